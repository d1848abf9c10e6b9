#include "scope/seeds.h"
#include "scope/scope.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define UTF8_BOM "\xef\xbb\xbf"
#define SEED_RECORD_VERSION 1

int seeds_split(char *line, int first_line, char **url, char **settings)
{
	char *t = line, *tab;

	if (first_line && !memcmp(t, UTF8_BOM, 3))
		t += 3;   /* a byte order mark is not part of the first URL */
	while (*t == ' ' || *t == '\t')
		t++;
	t[strcspn(t, "\r\n")] = '\0';
	if (!*t || *t == '#')
		return 0;
	tab = strchr(t, '\t');
	*settings = tab ? tab + 1 : t + strlen(t);
	if (tab)
		*tab = '\0';
	*url = t;
	return 1;
}

int seeds_sitemap(char **url)
{
	if (strncasecmp(*url, "sitemap:", 8))
		return 0;
	*url += 8;
	while (**url == ' ')
		(*url)++;
	return 1;
}

const char *seeds_check_settings(const char *settings)
{
	while (*settings == '\t' || *settings == ' ')
		settings++;
	if (*settings)
		return "per-seed settings are not supported by this version";
	return NULL;
}

static void pack_seed(struct buf *out, const char *url, const char *settings)
{
	out->len = 0;
	buf_put_u8(out, SEED_RECORD_VERSION);
	buf_put_str(out, url, strlen(url));
	buf_put_str(out, settings, strlen(settings));
}

/* The seed records of one open file, each added to w. */
static enum cr_err write_lines(FILE *fp, struct recfile_writer *w, struct scope *s)
{
	char *line = NULL, canon[URL_MAX_LEN + 1];
	size_t cap = 0;
	ssize_t n;
	int first = 1;
	struct buf rec;
	enum cr_err e = CR_OK;

	buf_init(&rec);
	while (!e && (n = getline(&line, &cap, fp)) >= 0) {
		char *url, *settings;
		const char *why;
		int sitemap;

		if (!seeds_split(line, first, &url, &settings)) {
			first = 0;
			continue;
		}
		first = 0;
		sitemap = seeds_sitemap(&url);
		if (url_canon(NULL, url, canon, sizeof(canon), &why) != CR_OK ||
		    seeds_check_settings(settings) || (s && s->rules &&
			scope_check_rules(s, canon, strlen(canon))))
			continue;
		pack_seed(&rec, canon, sitemap ? "kind=sitemap" : settings);
		e = recfile_writer_add(w, rec.p, rec.len);
	}
	if (!e && ferror(fp))
		e = CR_ERR_IO;
	free(line);
	buf_release(&rec);
	return e;
}

enum cr_err seeds_write(const struct crawl_dir *d, int version, const char *path,
			struct scope *s, int zstd_level)
{
	char out[PATH_MAX];
	struct recfile_writer *w = NULL;
	FILE *fp = fopen(path, "r");
	enum cr_err e;

	if (!fp) {
		log_err("inject", "cannot read seed file '%s': %s", path, strerror(errno));
		return CR_ERR_ARG;
	}
	layout_seeds(d, 0, out, sizeof(out));
	e = fs_mkdirs(out);
	layout_seeds(d, version, out, sizeof(out));
	if (!e)
		e = recfile_writer_open(out, REC_KIND_SEEDS, zstd_level, &w);
	if (!e)
		e = write_lines(fp, w, s);
	fclose(fp);
	if (e) {
		recfile_writer_abort(&w);
		log_err("inject", "cannot record the seeds in '%s'", out);
		return e;
	}
	return recfile_writer_commit(&w);
}

enum cr_err seeds_record_unpack(const void *p, size_t n, const char **url, size_t *ulen,
				const char **settings, size_t *slen)
{
	struct buf_reader rd;
	uint8_t v;

	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &v) || v != SEED_RECORD_VERSION || buf_get_str(&rd, url, ulen) ||
	    buf_get_str(&rd, settings, slen) || rd.off != rd.len || *ulen == 0)
		return CR_ERR_FORMAT;
	return CR_OK;
}

static enum cr_err load_file(const char *path, struct scope *s)
{
	struct recfile_reader *r;
	const void *p;
	size_t n;
	enum cr_err e = recfile_reader_open(path, REC_KIND_SEEDS, &r);

	if (e) {
		log_err("scope", "cannot read the seeds file '%s'", path);
		return e == CR_ERR_IO ? CR_ERR_STATE : e;
	}
	while ((e = recfile_reader_next(r, &p, &n)) == CR_OK) {
		const char *url, *settings;
		size_t ulen, slen;

		if (seeds_record_unpack(p, n, &url, &ulen, &settings, &slen) != CR_OK ||
		    scope_add_seed(s, url, ulen) != CR_OK) {
			log_err("scope", "damaged seed record in '%s'", path);
			e = CR_ERR_FORMAT;
			break;
		}
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

enum cr_err seeds_load_scope(const struct crawl_dir *d, int version, struct scope *s)
{
	char dir[PATH_MAX], path[PATH_MAX];
	DIR *dp;
	struct dirent *de;
	enum cr_err e = CR_OK;

	layout_seeds(d, 0, dir, sizeof(dir));
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? CR_OK : CR_ERR_IO;
	while (!e && (de = readdir(dp)) != NULL) {
		int v;
		char tail;

		/* NNNNN.zst only: an unfinished writer's temporary is skipped. */
		if (sscanf(de->d_name, "%d.zs%c", &v, &tail) != 2 || tail != 't' || v <= 0 ||
		    v > version)
			continue;
		layout_seeds(d, v, path, sizeof(path));
		if (strcmp(strrchr(path, '/') + 1, de->d_name))
			continue;
		e = load_file(path, s);
	}
	closedir(dp);
	return e;
}

#include "scope/seeds.h"
#include "scope/scope.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/log.h"

#include <dirent.h>
#include <xxhash.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define UTF8_BOM "\xef\xbb\xbf"
#define SEED_RECORD_VERSION 1
#define SEED_SETTINGS_MAX 4096

/* Cuts s at a comment (a '#' after a blank; at_start: or first, s following
 * a blank) and at its trailing blanks. */
static void cut_comment(char *s, int at_start)
{
	char *p, *e;

	for (p = s; (p = strchr(p, '#')) != NULL; p++)
		if (p > s ? p[-1] == ' ' || p[-1] == '\t' : at_start) {
			*p = '\0';
			break;
		}
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
}

int seeds_split(char *line, size_t n, int first_line, char **url, char **settings,
		const char **why)
{
	char *t = line, *tab;

	if (memchr(line, '\0', n)) {
		*why = "it holds a NUL byte";
		return -1;
	}
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
	cut_comment(t, 0);
	cut_comment(*settings, 1);
	if (strchr(t, ' ')) {
		*why = "text after the URL: a comment starts with '#' after a blank, settings "
		       "follow a tab";
		return -1;
	}
	*url = t;
	return 1;
}

uint64_t seeds_id(const char *url, size_t len)
{
	uint64_t h = XXH3_64bits(url, len);

	return h ? h : 1;
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

/* One key=value[0..n) into *out: NULL, or why not. */
static const char *one_setting(const char *kv, size_t n, struct seed_settings *out)
{
	static const char *const scopes[] = { "domain", "host", "any" };
	const char *eq = memchr(kv, '=', n);
	char val[32], *end;
	size_t i, kl = eq ? (size_t)(eq - kv) : n, vl = eq ? n - kl - 1 : 0;
	long v;

	if (!eq || vl == 0 || vl >= sizeof(val))
		return "a setting is key=value (max_pages, max_depth, scope, kind, score)";
	memcpy(val, eq + 1, vl);
	val[vl] = '\0';
	if (kl == 4 && !memcmp(kv, "kind", 4)) {
		out->sitemap = !strcmp(val, "sitemap");
		return out->sitemap || !strcmp(val, "page") ? NULL : "kind= takes page or sitemap";
	}
	if (kl == 5 && !memcmp(kv, "scope", 5)) {
		for (i = 0; i < 3; i++)
			if (!strcmp(val, scopes[i])) {
				out->scope = (int)i;   /* enum scope_mode order */
				return NULL;
			}
		return "scope= takes host, domain or any";
	}
	if (kl == 5 && !memcmp(kv, "score", 5)) {
		double d = strtod(val, &end);

		if (*end || end == val || !(d >= 0 && d <= 1e6))
			return "score= takes a number from 0 to 1000000";
		out->score = d;
		return NULL;
	}
	if (kl != 9 || (memcmp(kv, "max_pages", 9) && memcmp(kv, "max_depth", 9)))
		return "an unknown setting (max_pages, max_depth, scope, kind, score)";
	v = strtol(val, &end, 10);
	if (*end || end == val || v < 0 || v > (1L << 40))
		return "max_pages= and max_depth= take a whole number";
	if (!memcmp(kv, "max_depth", 9))
		out->max_depth = v;
	else if (v > 0)
		out->max_pages = v;
	else
		return "max_pages= must be 1 or more";
	return NULL;
}

const char *seeds_parse_settings(const char *settings, struct seed_settings *out)
{
	out->max_pages = out->max_depth = -1;
	out->scope = -1;
	out->sitemap = 0;
	out->score = 1;
	while (*settings) {
		size_t n;
		const char *why;

		while (*settings == '\t' || *settings == ' ')
			settings++;
		n = strcspn(settings, "\t");
		while (n && settings[n - 1] == ' ')
			n--;
		if (n && (why = one_setting(settings, n, out)) != NULL)
			return why;
		settings += n;
		while (*settings == ' ')
			settings++;
	}
	return NULL;
}

const char *seeds_check_settings(const char *settings)
{
	struct seed_settings s;

	return seeds_parse_settings(settings, &s);
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
	struct buf rec, extra;
	enum cr_err e = CR_OK;

	buf_init(&rec);
	buf_init(&extra);
	while (!e && (n = getline(&line, &cap, fp)) >= 0) {
		char *url, *settings;
		const char *why;
		int sitemap;

		if (seeds_split(line, (size_t)n, first, &url, &settings, &why) <= 0) {
			first = 0;
			continue;
		}
		first = 0;
		sitemap = seeds_sitemap(&url);
		if (url_canon(NULL, url, canon, sizeof(canon), &why) != CR_OK ||
		    seeds_check_settings(settings) || (s && s->rules &&
			scope_check_rules(s, canon, strlen(canon))))
			continue;
		if (sitemap) {
			/* "sitemap:URL" is kept as the setting it stands for. */
			buf_reset(&extra);
			buf_addf(&extra, "%s%skind=sitemap", settings, *settings ? "\t" : "");
			settings = (char *)buf_cstr(&extra);
		}
		pack_seed(&rec, canon, settings);
		e = recfile_writer_add(w, rec.p, rec.len);
	}
	if (!e && ferror(fp))
		e = CR_ERR_IO;
	free(line);
	buf_release(&rec);
	buf_release(&extra);
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

/* A recorded seed's settings (raw, slen bytes) into *set. */
static enum cr_err settings_of(const char *raw, size_t slen, struct seed_settings *set)
{
	char text[SEED_SETTINGS_MAX + 1];

	if (slen > SEED_SETTINGS_MAX)
		return CR_ERR_FORMAT;
	memcpy(text, raw, slen);
	text[slen] = '\0';
	return seeds_parse_settings(text, set) ? CR_ERR_FORMAT : CR_OK;
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
		struct seed_settings set;

		if (seeds_record_unpack(p, n, &url, &ulen, &settings, &slen) != CR_OK ||
		    settings_of(settings, slen, &set) != CR_OK ||
		    scope_add_seed(s, url, ulen, &set) != CR_OK) {
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

#include "scope/seeds.h"
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

/* 1 if a seed URL is written "sitemap:URL" (a sitemap to read, not a
 * page): *url then points past the prefix. */
static int is_sitemap(char **url)
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

enum cr_err seeds_reader_open(struct seeds_reader *r, const char *path, uint64_t stride,
			      uint64_t offset)
{
	memset(r, 0, sizeof(*r));
	r->fp = fopen(path, "r");
	if (!r->fp)
		return CR_ERR_IO;
	r->stride = stride ? stride : 1;
	r->offset = offset;
	buf_init(&r->settings);
	return CR_OK;
}

/* A line split into a seed: its URL canonical, its settings parsed. */
static void judge(struct seeds_reader *r, char *url, char *settings, struct seed_line *l)
{
	if (is_sitemap(&url)) {
		/* "sitemap:URL" is kept as the setting it stands for. */
		buf_reset(&r->settings);
		buf_addf(&r->settings, "%s%skind=sitemap", settings, *settings ? "\t" : "");
		settings = (char *)buf_cstr(&r->settings);
	}
	l->text = url;
	l->settings = settings;
	if (url_canon(NULL, url, l->url, sizeof(l->url), &l->why) == CR_OK)
		l->why = seeds_parse_settings(settings, &l->set);
	if (l->why)
		seeds_parse_settings("", &l->set);
}

enum cr_err seeds_reader_next(struct seeds_reader *r, struct seed_line *l)
{
	ssize_t n;

	while ((n = getline(&r->line, &r->cap, r->fp)) >= 0) {
		char *url, *settings;
		const char *why = NULL;
		int seed;

		if (r->lineno++ % r->stride != r->offset)
			continue;
		seed = seeds_split(r->line, (size_t)n, r->lineno == 1, &url, &settings, &why);
		if (!seed)
			continue;
		memset(l, 0, sizeof(*l));
		l->lineno = r->lineno;
		if (seed < 0) {
			l->why = why;
			l->bad_line = 1;
			l->text = l->settings = "";
			seeds_parse_settings("", &l->set);
		} else {
			judge(r, url, settings, l);
		}
		return CR_OK;
	}
	return ferror(r->fp) ? CR_ERR_IO : CR_EOF;
}

void seeds_reader_close(struct seeds_reader *r)
{
	if (r->fp)
		fclose(r->fp);
	free(r->line);
	buf_release(&r->settings);
	memset(r, 0, sizeof(*r));
}

/* The seed records of the reader's file, each added to w. */
static enum cr_err write_lines(struct seeds_reader *rd, struct recfile_writer *w,
			       int (*keep)(void *arg, const char *url), void *arg)
{
	struct seed_line l;
	struct buf rec;
	enum cr_err e;

	buf_init(&rec);
	while ((e = seeds_reader_next(rd, &l)) == CR_OK) {
		if (l.why || (keep && !keep(arg, l.url)))
			continue;
		pack_seed(&rec, l.url, l.settings);
		if ((e = recfile_writer_add(w, rec.p, rec.len)) != CR_OK)
			break;
	}
	buf_release(&rec);
	return e == CR_EOF ? CR_OK : e;
}

enum cr_err seeds_write(const struct crawl_dir *d, int version, const char *path,
			int (*keep)(void *arg, const char *url), void *arg, int zstd_level)
{
	char out[PATH_MAX];
	struct recfile_writer *w = NULL;
	struct seeds_reader rd;
	enum cr_err e;

	if (seeds_reader_open(&rd, path, 1, 0) != CR_OK) {
		log_err("inject", "cannot read seed file '%s': %s", path, strerror(errno));
		return CR_ERR_ARG;
	}
	layout_seeds(d, 0, out, sizeof(out));
	e = fs_mkdirs(out);
	layout_seeds(d, version, out, sizeof(out));
	if (!e)
		e = recfile_writer_open(out, REC_KIND_SEEDS, zstd_level, &w);
	if (!e)
		e = write_lines(&rd, w, keep, arg);
	seeds_reader_close(&rd);
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

static enum cr_err load_file(const char *path, seeds_fn fn, void *arg)
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
		    settings_of(settings, slen, &set) != CR_OK || fn(arg, url, ulen, &set)) {
			log_err("scope", "damaged seed record in '%s'", path);
			e = CR_ERR_FORMAT;
			break;
		}
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

enum cr_err seeds_load(const struct crawl_dir *d, int version, seeds_fn fn, void *arg)
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
		e = load_file(path, fn, arg);
	}
	closedir(dp);
	return e;
}

/*
 * index.c - CDXJ, WET / JSON-lines text and the link graph of a segment;
 * see index.h.
 */
#include "index/index.h"
#include "crawldb/crawl_record.h"
#include "crawldb/parse_record.h"
#include "fetch/http_head.h"
#include "index/sniff.h"
#include "index/stage.h"
#include "index/wat.h"
#include "parse/html.h"
#include "parse/parse.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/json.h"
#include "util/log.h"
#include "warc/warc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>
#include <xxhash.h>
#include <zstd.h>

#define INDEX_URI_MAX 8192
#define INDEX_MIN_BLOCK (64u << 20)
#define INDEX_STREAMS_MAX 64      /* staged series of a partition (4 a fetch attempt) */

const char *const index_counter_names[IX_COUNT_] = {
	"warc_files", "cdxj_lines", "text_docs", "text_duplicates", "text_language",
	"links", "parse_failed", "staged_files", "wat_records",
};

/* ---- SURT ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void index_surt(const char *url, struct buf *out)
{
	const char *p, *host, *hend, *port = NULL, *path;
	char *low, *q;
	size_t n = strlen(url), i;

	if (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)) {
		buf_adds(out, url);
		return;
	}
	low = malloc(n + 1);
	if (!low)
		return;
	for (i = 0; i <= n; i++)
		low[i] = (char)((url[i] >= 'A' && url[i] <= 'Z') ? url[i] + 32 : url[i]);
	host = strstr(low, "://") + 3;
	if (!strncmp(host, "www", 3)) {
		p = host + 3;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.')
			host = p + 1;
	}
	hend = host + strcspn(host, ":/?#");
	if (*hend == ':') {
		port = hend + 1;
		path = port + strcspn(port, "/?#");
	} else {
		path = hend;
	}
	/* host labels reversed */
	p = hend;
	while (p > host) {
		const char *s = p;

		while (s > host && s[-1] != '.')
			s--;
		buf_add(out, s, (size_t)(p - s));
		p = s > host ? s - 1 : host;
		if (s > host)
			buf_addc(out, ',');
	}
	/* a default port is dropped, as a WHATWG URL parser does */
	if (port && path > port &&
	    !(path - port == 2 && !strncmp(port, "80", 2) && low[4] == ':') &&
	    !(path - port == 3 && !strncmp(port, "443", 3) && low[4] == 's'))
		buf_addf(out, ":%.*s", (int)(path - port), port);
	buf_addc(out, ')');
	q = strchr(path, '#');
	if (q)
		*q = '\0';
	q = strchr(path, '?');
	if (q)
		*q++ = '\0';
	buf_adds(out, *path ? path : "/");
	if (q && *q) {
		char **parts = NULL;
		size_t np = 0, cap = 0;
		char *s = q;

		for (;;) {
			char *amp = strchr(s, '&');

			if (np == cap) {
				char **g = realloc(parts, (cap = cap ? 2 * cap : 8) * sizeof(*g));
				if (!g)
					break;
				parts = g;
			}
			parts[np++] = s;
			if (!amp)
				break;
			*amp = '\0';
			s = amp + 1;
		}
		qsort(parts, np, sizeof(*parts), cmp_str);
		buf_addc(out, '?');
		for (i = 0; i < np; i++) {
			if (i)
				buf_addc(out, '&');
			buf_adds(out, parts[i]);
		}
		free(parts);
	}
	free(low);
}

/* ---- small writers ---- */

/* A zstd stream to path.tmp, renamed to path by zw_close. */
struct zw {
	FILE *f;
	ZSTD_CCtx *cc;
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	unsigned char out[1 << 16];
	int failed;
};

static enum cr_err zw_open(struct zw *z, const char *path)
{
	memset(z, 0, sizeof(*z));
	snprintf(z->path, sizeof(z->path), "%s", path);
	snprintf(z->tmp, sizeof(z->tmp), "%s.tmp.%d", path, (int)getpid());
	z->f = fopen(z->tmp, "wb");
	z->cc = ZSTD_createCCtx();
	if (!z->f || !z->cc) {
		log_err("index", "cannot write '%s': %s", z->tmp, strerror(errno));
		if (z->f)
			fclose(z->f);
		ZSTD_freeCCtx(z->cc);
		z->f = NULL;
		return CR_ERR_IO;
	}
	ZSTD_CCtx_setParameter(z->cc, ZSTD_c_checksumFlag, 1);
	return CR_OK;
}

static void zw_push(struct zw *z, const void *p, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t r;

	do {
		ZSTD_outBuffer o = { z->out, sizeof(z->out), 0 };

		r = ZSTD_compressStream2(z->cc, &o, &in, mode);
		if (ZSTD_isError(r) || fwrite(z->out, 1, o.pos, z->f) != o.pos) {
			z->failed = 1;
			return;
		}
	} while (mode == ZSTD_e_end ? r != 0 : in.pos < in.size);
}

static enum cr_err zw_close(struct zw *z, int commit)
{
	int bad;

	if (!z->f)
		return CR_OK;
	if (commit)
		zw_push(z, "", 0, ZSTD_e_end);
	bad = z->failed || fflush(z->f) != 0 || fsync(fileno(z->f)) != 0;
	bad |= fclose(z->f) != 0;
	z->f = NULL;
	ZSTD_freeCCtx(z->cc);
	if (commit && !bad && rename(z->tmp, z->path) == 0)
		return CR_OK;
	unlink(z->tmp);
	if (commit)
		log_err("index", "cannot write '%s'", z->path);
	return commit ? CR_ERR_IO : CR_OK;
}

/* ---- one partition ---- */

struct stream;

/* A WARC file's CDXJ lines, collected to be sorted. */
struct lines {
	char **v;
	size_t n, cap;
};

struct part_ix {
	const struct job *j;
	int seg;
	uint32_t p;
	int use_staged;            /* take what the fetcher staged where it can */
	int stage_bad;             /* a staged file was damaged: read back */
	struct stream *streams;    /* INDEX_STREAMS_MAX */
	size_t nstreams;
	struct buf packed;
	struct hmap dups;          /* URL -> representative URL (strdup) */
	struct warc_writer *wet;   /* text.format = wet */
	gzFile jsonl;              /* text.format = jsonl */
	char text_path[PATH_MAX], text_tmp[PATH_MAX + 32];
	struct zw links;
	struct buf pages;          /* pages/PREFIX-NNNNN-PPPPP.pages.jsonl, written whole
				      at the end */
	struct lines *cdxj;        /* the current WARC file's CDXJ lines */
	struct buf wat;            /* its records' WAT places (struct wat_place), or empty */
	char wat_name[300];
	struct buf body;           /* a page's text, text.boilerplate applied */
	struct buf marks;          /* ... its boilerplate lines' numbers (mark): "2,3" */
	uint64_t *c;
	struct buf line, text, fields;
};

static enum cr_err load_dups(struct part_ix *x, int ver)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *d;
	size_t n;
	enum cr_err e;

	if (ver <= 0)
		return CR_OK;
	layout_crawldb_part(&x->j->dir, ver, x->p, path, sizeof(path));
	if ((e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r)) != CR_OK) {
		log_err("index", "cannot read CrawlDb part '%s': the duplicates it names would "
			"be lost", path);
		return e;
	}
	while ((e = recfile_reader_next(r, &d, &n)) == CR_OK) {
		struct crawl_record cr;
		void **slot;

		if (crawl_record_unpack(d, n, &cr) != CR_OK) {
			e = CR_ERR_FORMAT;
			break;
		}
		if (cr.status != ST_DUPLICATE || !cr.dup_of_len)
			continue;
		slot = hmap_put(&x->dups, cr.url, cr.url_len);
		if (slot && !*slot)
			*slot = strndup(cr.dup_of, cr.dup_of_len);
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

/* The Content-Type of an HTTP head, without parameters, into out. */
static void head_mime(const unsigned char *h, size_t n, char *out, size_t cap)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i + 13 < n; i++) {
		if ((i == 0 || h[i - 1] == '\n') &&
		    !strncasecmp((const char *)h + i, "content-type:", 13)) {
			size_t j = i + 13, e, o = 0;

			while (j < n && (h[j] == ' ' || h[j] == '\t'))
				j++;
			e = j;
			while (e < n && h[e] != ';' && h[e] != '\r' && h[e] != '\n')
				e++;
			while (e > j && (h[e - 1] == ' ' || h[e - 1] == '\t'))
				e--;
			for (; j < e && o + 1 < cap; j++)
				out[o++] = (char)h[j];
			out[o] = '\0';
			return;
		}
	}
}

size_t index_max_block(const struct config *cfg)
{
	uint64_t n = (uint64_t)cfg->max_body_bytes + 2 * (uint64_t)cfg->max_header_bytes + 65536;

	return n > INDEX_MIN_BLOCK && n < SIZE_MAX ? (size_t)n : INDEX_MIN_BLOCK;
}

void index_cdxj_filename(int seg, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "segments/%05d/warc/%s", seg, name);
}

void index_cdxj_extras(const char *uri, const void *head, size_t head_len, int status,
		       const char *truncated, struct index_cdxj_extra *e)
{
	char type[128], loc[URL_MAX_LEN + 1];
	const char *v, *why;
	size_t n;

	memset(e, 0, sizeof(*e));
	http_head_content_type(head, head_len, type, sizeof(type), e->charset,
			       sizeof(e->charset));
	if (truncated)
		snprintf(e->truncated, sizeof(e->truncated), "%s", truncated);
	if (status < 300 || status > 399 ||
	    !(v = http_head_field(head, head_len, "location", &n)) || n > URL_MAX_LEN)
		return;
	memcpy(loc, v, n);
	loc[n] = '\0';
	if (url_resolve(uri, loc, e->redirect, sizeof(e->redirect), &why) != CR_OK)
		e->redirect[0] = '\0';
}

/* One of Common Crawl's fields, when it has a value. */
static void extra_field(struct buf *b, const char *name, const char *v)
{
	if (!v[0])
		return;
	buf_addf(b, ",\"%s\":", name);
	json_str(b, v, strlen(v));
}

void index_cdxj_line(struct buf *b, const char *uri, const char *date, const char *mime,
		     int status, const char *digest, uint64_t length, uint64_t offset,
		     const char *fname, const struct index_cdxj_extra *e)
{
	char ts[15];
	size_t i, k = 0;
	const char *colon = strchr(digest, ':');

	for (i = 0; date[i] && k < 14; i++)
		if (date[i] >= '0' && date[i] <= '9')
			ts[k++] = date[i];
	ts[k] = '\0';
	index_surt(uri, b);
	buf_addf(b, " %s {\"url\":", ts);
	json_str(b, uri, strlen(uri));
	if (mime[0]) {
		buf_adds(b, ",\"mime\":");
		json_str(b, mime, strlen(mime));
	}
	if (status)
		buf_addf(b, ",\"status\":\"%d\"", status);
	if (digest[0]) {
		buf_adds(b, ",\"digest\":");
		json_str(b, colon ? colon + 1 : digest, strlen(colon ? colon + 1 : digest));
	}
	buf_addf(b, ",\"length\":\"%llu\",\"offset\":\"%llu\",\"filename\":",
		 (unsigned long long)length, (unsigned long long)offset);
	json_str(b, fname, strlen(fname));
	if (e) {
		extra_field(b, "mime-detected", e->mime_detected);
		extra_field(b, "charset", e->charset);
		extra_field(b, "truncated", e->truncated);
		extra_field(b, "redirect", e->redirect);
	}
	buf_adds(b, "}");
}

int index_record_facts(const char *type, const char *ct, const unsigned char *block,
		       size_t len, char *mime, size_t cap, int *status, size_t *head)
{
	int resp = !strcmp(type, "response");

	snprintf(mime, cap, "%s", strcmp(type, "revisit") ? ct : "warc/revisit");
	*status = 0;
	*head = 0;
	if ((resp || !strcmp(type, "revisit")) && !strncasecmp(ct, "application/http", 16) &&
	    warc_http_split(block, len, status, head) == CR_OK) {
		if (resp)
			head_mime(block, *head, mime, cap);
		return 1;
	}
	return 0;
}

/* The extensions of the text.format values that write a file. */
static const char *const text_exts[] = { "warc.wet.gz", "jsonl.gz" };

/* The path of the partition's file in folder sub of the segment, named as
 * its WARC files are - PREFIX-NNNNN-PPPPP.EXT - so that the files of two
 * crawls never share a name (the older part-PPPPP.EXT: old, "" for none). */
static void part_file(const struct part_ix *x, const char *sub, const char *ext, char *out,
		      size_t cap, char *old, size_t old_cap)
{
	char name[128];

	snprintf(name, sizeof(name), "%s-%05d-%05u.%s", x->j->dir.warc_prefix, x->seg, x->p,
		 ext);
	layout_segment_file(&x->j->dir, x->seg, sub, name, out, cap);
	if (!old)
		return;
	/* links/part-P.tsv.zst, pages/part-P.jsonl: the folder not in the name */
	if (!strncmp(ext, sub, strlen(sub)) && ext[strlen(sub)] == '.')
		ext += strlen(sub) + 1;
	snprintf(name, sizeof(name), "part-%05u.%s", x->p, ext);
	layout_segment_file(&x->j->dir, x->seg, sub, name, old, old_cap);
}

/* The path of the partition's text file in format k (text_exts). */
static void text_file(const struct part_ix *x, int k, char *out, size_t cap)
{
	part_file(x, "text", text_exts[k], out, cap, NULL, 0);
}

static enum cr_err text_open(struct part_ix *x)
{
	const struct config *cfg = &x->j->cfg;
	char dir[PATH_MAX - 64];

	if (x->wet || x->jsonl || cfg->text_format == 2)
		return CR_OK;
	layout_segment_sub(&x->j->dir, x->seg, "text", dir, sizeof(dir));
	if (fs_mkdirs(dir) != CR_OK)
		return CR_ERR_IO;
	text_file(x, cfg->text_format, x->text_path, sizeof(x->text_path));
	if (cfg->text_format == 0) {
		/* Plain text compresses well at level 1, at a third of level 6's
		 * CPU; the WET files are rewritten whenever the index is. */
		static const struct warc_writer_opts wo = { WARC_COMP_GZIP, 1, 0, NULL, 0, NULL,
							    NULL, NULL };

		return warc_writer_open_opts(x->text_path, "mpicrawl/0.1 (text extraction)",
					     &wo, &x->wet);
	}
	snprintf(x->text_tmp, sizeof(x->text_tmp), "%s.tmp.%d", x->text_path, (int)getpid());
	x->jsonl = gzopen(x->text_tmp, "wb1");
	if (!x->jsonl) {
		log_err("index", "cannot write '%s'", x->text_tmp);
		return CR_ERR_IO;
	}
	return CR_OK;
}

/* The partition's text in the formats text.format does not name goes, once
 * the partition's new outputs are written: a WET file left from an index
 * written as WET before is not the one the new CDXJ points into. */
static void text_drop_others(struct part_ix *x)
{
	char path[PATH_MAX];
	int k;

	for (k = 0; k < 2; k++) {
		if (k == x->j->cfg.text_format)
			continue;
		text_file(x, k, path, sizeof(path));
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("index", "cannot remove '%s': %s", path, strerror(errno));
	}
}

/* The link graph's lines of a page: source, target, anchor text. */
static enum cr_err page_links(struct part_ix *x, const struct index_stage_page *pg,
			      const char *uri)
{
	const char *u, *a;
	size_t pos = 0, un, an, i;
	enum cr_err e;

	while ((e = index_stage_link(pg, &pos, &u, &un, &a, &an)) == CR_OK) {
		x->line.len = 0;
		buf_addf(&x->line, "%s\t%.*s\t", uri, (int)un, u);
		/* Anchor text: blanks are collapsed already; no control byte
		 * may break the line. */
		for (i = 0; i < an; i++)
			buf_addc(&x->line, (unsigned char)a[i] < 0x20 ? ' ' : a[i]);
		buf_addc(&x->line, '\n');
		zw_push(&x->links, x->line.p, x->line.len, ZSTD_e_continue);
		x->c[IX_LINKS]++;
	}
	return e == CR_EOF ? CR_OK : e;
}

/* The page's languages as JSON: [{"code":"eng","percent":97},...]. */
static void langs_json(const struct lang_result *l, struct buf *b)
{
	unsigned i;

	buf_addc(b, '[');
	for (i = 0; i < l->n; i++)
		buf_addf(b, "%s{\"code\":\"%s\",\"percent\":%u}", i ? "," : "", l->code[i],
			 (unsigned)l->percent[i]);
	buf_addc(b, ']');
}

static void page_jsonl_line(struct part_ix *x, const struct index_stage_page *pg,
			    const char *uri, const char *date, const char *lang,
			    const char *dup)
{
	x->line.len = 0;
	buf_adds(&x->line, "{\"url\":");
	json_str(&x->line, uri, strlen(uri));
	buf_adds(&x->line, ",\"date\":");
	json_str(&x->line, date, strlen(date));
	buf_adds(&x->line, ",\"title\":");
	json_str(&x->line, pg->title, pg->title_len);
	buf_adds(&x->line, ",\"language\":");
	if (lang)
		buf_addf(&x->line, "\"%s\"", lang);
	else
		buf_adds(&x->line, "null");
	buf_adds(&x->line, ",\"languages\":");
	langs_json(&pg->lang, &x->line);
	buf_adds(&x->line, ",\"duplicate_of\":");
	if (dup)
		json_str(&x->line, dup, strlen(dup));
	else
		buf_adds(&x->line, "null");
	if (x->j->cfg.text_boilerplate == 1)
		buf_addf(&x->line, ",\"boilerplate_lines\":[%s]", buf_cstr(&x->marks));
	buf_addf(&x->line, ",\"noindex\":%s,\"text\":", pg->noindex ? "true" : "false");
	json_str(&x->line, (const char *)x->body.p, x->body.len);
	buf_adds(&x->line, "}\n");
}

/* The page's line of the pages list (WACZ's pages.jsonl): id, url, ts,
 * title, and the digest of its text as the parse record has it. */
static void page_list_line(struct part_ix *x, const struct index_stage_page *pg,
			   const char *uri)
{
	char date[WARC_DATE_MAX];

	warc_format_date(pg->date_us, date);
	buf_addf(&x->pages, "{\"id\":\"%016llx\",\"url\":",
		 (unsigned long long)XXH3_64bits_withSeed(uri, strlen(uri), (uint64_t)pg->date_us));
	json_str(&x->pages, uri, strlen(uri));
	buf_addf(&x->pages, ",\"ts\":\"%s\",\"title\":", date);
	json_str(&x->pages, pg->title, pg->title_len);
	buf_addf(&x->pages, ",\"textDigest\":\"xxh3:%016llx\"}\n",
		 (unsigned long long)XXH3_64bits(pg->text, pg->text_len));
}

/* Writes the pages list of x->p (pages/PREFIX-NNNNN-PPPPP.pages.jsonl, with WACZ's header
 * line), or removes an old one when the partition has no page. */
static enum cr_err pages_write(struct part_ix *x)
{
	static const char header[] = "{\"format\":\"json-pages-1.0\",\"id\":\"pages\","
				     "\"title\":\"All Pages\"}\n";
	char dir[PATH_MAX], path[PATH_MAX], old[PATH_MAX];
	struct buf all;
	enum cr_err e;

	layout_segment_sub(&x->j->dir, x->seg, "pages", dir, sizeof(dir));
	part_file(x, "pages", "pages.jsonl", path, sizeof(path), old, sizeof(old));
	unlink(old);   /* an older crawl's name: re-indexed, the list is this one */
	if (!x->pages.len) {
		unlink(path);
		return CR_OK;
	}
	if (fs_mkdirs(dir) != CR_OK)
		return CR_ERR_IO;
	buf_init(&all);
	buf_add(&all, header, sizeof(header) - 1);
	buf_add(&all, x->pages.p, x->pages.len);
	e = fs_write_atomic(path, all.p, all.len);
	buf_release(&all);
	return e;
}

/* The page's text as text.boilerplate says into x->body: every line
 * (keep, mark) or those not boilerplate (drop); with mark, the numbers of
 * its boilerplate lines, counted from first, into x->marks ("2,3,9"). */
static void page_body(struct part_ix *x, const struct index_stage_page *pg, unsigned first)
{
	int mode = x->j->cfg.text_boilerplate;
	const char *p = pg->text, *end = p + pg->text_len;
	uint32_t i;

	x->body.len = x->marks.len = 0;
	for (i = 0; p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int boiler = i < pg->nboiler && pg->boiler[i];

		if (!(boiler && mode == 2)) {
			if (x->body.len)
				buf_addc(&x->body, '\n');
			buf_add(&x->body, p, n);
		}
		if (boiler && mode == 1)
			buf_addf(&x->marks, "%s%u", x->marks.len ? "," : "", i + first);
		p += n + 1;
	}
}

/* Fields (",\"name\":...") join the CDXJ line of a page's response: the
 * last line of its WARC file so far, on both paths (staged, read back),
 * since the page follows its response; left alone if that line is of
 * another URL. */
static enum cr_err cdxj_amend(struct part_ix *x, const char *uri, const struct buf *fields)
{
	struct lines *l = x->cdxj;
	char *line, *grown;
	struct buf key;
	size_t n;
	int same;

	if (!l || !l->n || !fields->len)
		return CR_OK;
	line = l->v[l->n - 1];
	n = strlen(line);
	buf_init(&key);
	buf_adds(&key, "{\"url\":");
	json_str(&key, uri, strlen(uri));
	same = strstr(line, buf_cstr(&key)) && n && line[n - 1] == '}';
	buf_release(&key);
	if (!same)
		return CR_OK;
	if (!(grown = realloc(line, n + fields->len + 1)))
		return CR_ERR_NOMEM;
	memcpy(grown + n - 1, fields->p, fields->len);
	memcpy(grown + n - 1 + fields->len, "}", 2);
	l->v[l->n - 1] = grown;
	return CR_OK;
}

/* The page's languages as Common Crawl's "languages" ("eng,deu"). */
static enum cr_err cdxj_languages(struct part_ix *x, const struct index_stage_page *pg,
				  const char *uri)
{
	unsigned i;

	if (!pg->lang.n)
		return CR_OK;
	x->fields.len = 0;
	buf_adds(&x->fields, ",\"languages\":\"");
	for (i = 0; i < pg->lang.n; i++)
		buf_addf(&x->fields, "%s%s", i ? "," : "", pg->lang.code[i]);
	buf_addc(&x->fields, '"');
	return cdxj_amend(x, uri, &x->fields);
}

/* The charset the page was read in, as Common Crawl's "charset" records
 * the detected one: on a line whose Content-Type named none. */
static enum cr_err cdxj_charset(struct part_ix *x, const struct index_stage_page *pg,
				const char *uri)
{
	const struct lines *l = x->cdxj;

	if (!pg->charset_len || !l || !l->n || strstr(l->v[l->n - 1], ",\"charset\":"))
		return CR_OK;
	x->fields.len = 0;
	buf_adds(&x->fields, ",\"charset\":");
	json_str(&x->fields, pg->charset, pg->charset_len);
	return cdxj_amend(x, uri, &x->fields);
}

/* Where the page's WET record is: its file from the crawl directory, the
 * offset and length of its gzip member. */
static enum cr_err cdxj_wet(struct part_ix *x, const char *uri, uint64_t off, uint64_t len)
{
	const char *name = strrchr(x->text_path, '/');

	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "segments/%05d/text/%s", x->seg,
		 name ? name + 1 : x->text_path);
	x->fields.len = 0;
	buf_adds(&x->fields, ",\"wet-filename\":");
	json_str(&x->fields, path, strlen(path));
	buf_addf(&x->fields, ",\"wet-offset\":\"%llu\",\"wet-length\":\"%llu\"",
		 (unsigned long long)off, (unsigned long long)len);
	return cdxj_amend(x, uri, &x->fields);
}

/* The text (WET record or JSON line) and links of one page, whichever path
 * it came by. */
static enum cr_err page_out(struct part_ix *x, const struct index_stage_page *pg)
{
	char uri[INDEX_URI_MAX], id[64], date[WARC_DATE_MAX];
	const char *dup, *lang = pg->lang.n ? pg->lang.code[0] : NULL;
	uint64_t off, len;
	unsigned i;
	enum cr_err e;

	snprintf(uri, sizeof(uri), "%.*s", (int)pg->uri_len, pg->uri);
	snprintf(id, sizeof(id), "%.*s", (int)pg->id_len, pg->id);
	if ((e = page_links(x, pg, uri)) != CR_OK || (e = cdxj_charset(x, pg, uri)) != CR_OK ||
	    (e = cdxj_languages(x, pg, uri)) != CR_OK)
		return e;
	/* The WET block's line 1 is the title; JSON lines number text's. */
	page_body(x, pg, x->j->cfg.text_format == 0 ? 2 : 1);
	x->text.len = 0;
	buf_add(&x->text, pg->title, pg->title_len);
	buf_addc(&x->text, '\n');
	buf_add(&x->text, x->body.p, x->body.len);
	buf_addc(&x->text, '\n');
	dup = hmap_get(&x->dups, uri, strlen(uri));
	page_list_line(x, pg, uri);
	x->c[IX_TEXT_DOCS]++;
	x->c[IX_TEXT_DUPLICATES] += dup != NULL;
	x->c[IX_TEXT_LANG] += lang != NULL;
	if ((e = text_open(x)) != CR_OK)
		return e;
	if (x->wet) {
		struct warc_record_out o;

		x->fields.len = 0;
		/* Common Crawl's form: the codes, best first, comma-separated. */
		if (lang) {
			buf_adds(&x->fields, "WARC-Identified-Content-Language: ");
			for (i = 0; i < pg->lang.n; i++)
				buf_addf(&x->fields, "%s%s", i ? "," : "", pg->lang.code[i]);
			buf_adds(&x->fields, "\r\n");
		}
		if (dup)
			buf_addf(&x->fields, "X-Mpicrawl-Duplicate-Of: %s\r\n", dup);
		if (pg->noindex)
			buf_adds(&x->fields, "X-Mpicrawl-Noindex: true\r\n");
		if (x->marks.len)
			buf_addf(&x->fields, "X-Mpicrawl-Boilerplate-Lines: %s\r\n",
				 buf_cstr(&x->marks));
		memset(&o, 0, sizeof(o));
		o.type = "conversion";
		o.target_uri = uri;
		o.date_us = pg->date_us;
		o.refers_to = id;
		o.fields = buf_cstr(&x->fields);
		o.content_type = "text/plain";
		o.block = x->text.p;
		o.block_len = x->text.len;
		if ((e = warc_write_record(x->wet, &o, &off, &len)) != CR_OK)
			return e;
		return cdxj_wet(x, uri, off, len);
	}
	if (x->jsonl) {
		warc_format_date(pg->date_us, date);
		page_jsonl_line(x, pg, uri, date, lang, dup);
		if (gzwrite(x->jsonl, x->line.p, (unsigned)x->line.len) != (int)x->line.len)
			return CR_ERR_IO;
	}
	return CR_OK;
}

/* A page read back from its WARC record, through the fetcher's own reading
 * of it (parse_html) and the staged record's packing: the same bytes out. */
static enum cr_err page_from_warc(struct part_ix *x, const struct warc_record *rec,
				  const char *uri, const char *date, size_t head)
{
	struct index_stage_page sp;
	struct index_stage_rec sr;
	struct html_page pg;
	char type[128], charset[64], id[64];
	uint64_t pc[PC_COUNT_] = { 0 };
	uint32_t flags = 0;
	enum cr_err e;

	http_head_content_type(rec->block, head, type, sizeof(type), charset, sizeof(charset));
	if (!parse_doc(x->j, uri, type, charset, rec->block, head, rec->block + head,
		       rec->block_len - head, warc_record_truncated(rec), &pg, &flags, pc,
		       NULL, NULL)) {
		x->c[IX_PARSE_FAILED]++;
		return CR_OK;
	}
	warc_record_field(rec, "WARC-Record-ID", id, sizeof(id));
	memset(&sp, 0, sizeof(sp));
	sp.uri = uri;
	sp.uri_len = strlen(uri);
	sp.date_us = warc_parse_date(date);
	sp.id = id;
	sp.id_len = strlen(id);
	sp.noindex = (flags & PARSE_NOINDEX) != 0;
	sp.lang = pg.lang;
	sp.boiler = pg.boiler;
	sp.nboiler = pg.nlines;
	sp.title = (const char *)buf_cstr(&pg.title);
	sp.title_len = pg.title.len;
	sp.text = (const char *)buf_cstr(&pg.text);
	sp.text_len = pg.text.len;
	sp.nlinks = pg.nlinks;
	sp.links = (const char *const *)pg.links;
	sp.anchors = (const char *const *)pg.anchors;
	sp.charset = pg.charset;
	sp.charset_len = strlen(pg.charset);
	x->packed.len = 0;
	index_stage_pack_page(&x->packed, &sp);
	html_page_release(&pg);
	e = index_stage_unpack(x->packed.p, x->packed.len, &sr);
	return e ? e : page_out(x, &sr.page);
}

static int cmp_place(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = ((const struct wat_place *)b)->warc_offset;

	return (x > y) - (x < y);
}

/* Where the record of a CDXJ line went in the WAT file (index.wat): its
 * place found by the line's offset, as "wat-filename", "wat-offset",
 * "wat-length". */
static enum cr_err cdxj_wat(struct part_ix *x, char **line)
{
	const char *at = strstr(*line, ",\"offset\":\"");
	const struct wat_place *pl;
	uint64_t off;
	size_t n = strlen(*line);
	char *grown;

	if (!x->wat.len || !at || !n || (*line)[n - 1] != '}')
		return CR_OK;
	off = strtoull(at + 11, NULL, 10);
	pl = bsearch(&off, x->wat.p, x->wat.len / sizeof(*pl), sizeof(*pl), cmp_place);
	if (!pl)
		return CR_OK;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "segments/%05d/wat/%s", x->seg, x->wat_name);
	x->fields.len = 0;
	buf_adds(&x->fields, ",\"wat-filename\":");
	json_str(&x->fields, path, strlen(path));
	buf_addf(&x->fields, ",\"wat-offset\":\"%llu\",\"wat-length\":\"%llu\"}",
		 (unsigned long long)pl->wat_offset, (unsigned long long)pl->wat_length);
	if (!(grown = realloc(*line, n + x->fields.len)))
		return CR_ERR_NOMEM;
	memcpy(grown + n - 1, x->fields.p, x->fields.len);
	grown[n - 1 + x->fields.len] = '\0';
	*line = grown;
	return CR_OK;
}

/* Sorts a WARC file's CDXJ lines and writes them to its .cdxj file. */
static enum cr_err write_cdxj(struct part_ix *x, const char *name, char **lines, size_t n)
{
	char out[PATH_MAX], tmp[PATH_MAX + 32], cdxj[300];
	enum cr_err e;
	size_t i;
	FILE *f;

	for (i = 0; i < n; i++)
		if ((e = cdxj_wat(x, &lines[i])) != CR_OK)
			return e;
	qsort(lines, n, sizeof(*lines), cmp_str);
	snprintf(cdxj, sizeof(cdxj), "%s.cdxj", name);
	layout_segment_file(&x->j->dir, x->seg, "cdxj", cdxj, out, sizeof(out));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", out, (int)getpid());
	f = fopen(tmp, "w");
	e = f ? CR_OK : CR_ERR_IO;
	for (i = 0; f && i < n; i++)
		if (fputs(lines[i], f) == EOF || fputc('\n', f) == EOF)
			e = CR_ERR_IO;
	if (f && (fflush(f) != 0 || fsync(fileno(f)) != 0))
		e = CR_ERR_IO;
	if (f && fclose(f) != 0)
		e = CR_ERR_IO;
	if (e == CR_OK && rename(tmp, out) != 0)
		e = CR_ERR_IO;
	if (e != CR_OK) {
		log_err("index", "cannot write '%s': %s", out, strerror(errno));
		unlink(tmp);
	}
	x->c[IX_WARC_FILES]++;
	x->c[IX_CDXJ_LINES] += n;
	return e;
}

static enum cr_err lines_add(struct lines *l, const char *s, size_t n)
{
	if (l->n == l->cap) {
		char **g = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 256) * sizeof(*g));
		if (!g)
			return CR_ERR_NOMEM;
		l->v = g;
	}
	if (!(l->v[l->n] = strndup(s, n)))
		return CR_ERR_NOMEM;
	l->n++;
	return CR_OK;
}

static void lines_release(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* One record of a WARC file read back: its CDXJ line, and its text and
 * links when it has them. */
static enum cr_err one_record(struct part_ix *x, const char *name,
			      const struct warc_record *rec, struct lines *l)
{
	char type[32], uri[INDEX_URI_MAX], date[64], digest[128], ct[128], mime[128];
	char trunc[32], fname[300];
	struct index_cdxj_extra ex;
	int status;
	size_t head;
	enum cr_err e;

	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	if (strcmp(type, "response") && strcmp(type, "revisit") &&
	    strcmp(type, "resource") && strcmp(type, "metadata"))
		return CR_OK;
	warc_record_field(rec, "Content-Type", ct, sizeof(ct));
	if ((!strcmp(type, "metadata") || !strcmp(type, "resource")) &&
	    !strcasecmp(ct, "application/warc-fields"))
		return CR_OK;
	warc_record_field(rec, "WARC-Target-URI", uri, sizeof(uri));
	warc_record_field(rec, "WARC-Date", date, sizeof(date));
	warc_record_field(rec, "WARC-Payload-Digest", digest, sizeof(digest));
	index_record_facts(type, ct, rec->block, rec->block_len, mime, sizeof(mime), &status,
			   &head);
	warc_record_field(rec, "WARC-Truncated", trunc, sizeof(trunc));
	if (head)
		index_cdxj_extras(uri, rec->block, head, status, trunc[0] ? trunc : NULL, &ex);
	if (head && !strcmp(type, "response"))
		sniff_mime(rec->block, head, rec->block + head, rec->block_len - head,
			   ex.mime_detected, sizeof(ex.mime_detected));
	index_cdxj_filename(x->seg, name, fname, sizeof(fname));
	x->line.len = 0;
	index_cdxj_line(&x->line, uri, date, mime, status, digest, rec->length, rec->offset,
			fname, head ? &ex : NULL);
	if ((e = lines_add(l, (const char *)x->line.p, x->line.len)) != CR_OK)
		return e;
	if (!index_wants_text(name, !strcmp(type, "response"), status,
			      index_text_mime(mime, head && !strcmp(type, "response") ?
						    ex.mime_detected : "")))
		return CR_OK;
	return page_from_warc(x, rec, uri, date, head);
}

/* CDXJ of one WARC file, text and links of its pages, read back from it. */
static enum cr_err one_warc(struct part_ix *x, const char *name)
{
	char path[PATH_MAX];
	struct warc_reader *r;
	struct warc_record rec;
	struct lines l = { 0 };
	enum cr_err e;

	layout_segment_file(&x->j->dir, x->seg, "warc", name, path, sizeof(path));
	if ((e = warc_reader_open(path, index_max_block(&x->j->cfg), &r)) != CR_OK)
		return e;
	x->cdxj = &l;
	while ((e = warc_reader_next(r, &rec)) == CR_OK)
		if ((e = one_record(x, name, &rec, &l)) != CR_OK)
			break;
	x->cdxj = NULL;
	warc_reader_free(&r);
	if (e == CR_EOF)
		e = write_cdxj(x, name, l.v, l.n);
	lines_release(&l);
	return e;
}

/* ---- staged by the fetcher ---- */

/* A staged file of one WARC series, read in step with the series' files. */
struct stream {
	char key[256];
	struct recfile_reader *r;   /* NULL: none, or read to its end */
	char next[256];             /* the next WARC file it holds, or "" */
};

static struct stream *stream_for(struct part_ix *x, const char *key)
{
	char name[300], path[PATH_MAX];
	struct stream *st;
	struct index_stage_rec sr;
	const void *d;
	size_t i, n;

	for (i = 0; i < x->nstreams; i++)
		if (!strcmp(x->streams[i].key, key))
			return &x->streams[i];
	if (x->nstreams == INDEX_STREAMS_MAX)
		return NULL;
	st = &x->streams[x->nstreams++];
	memset(st, 0, sizeof(*st));
	snprintf(st->key, sizeof(st->key), "%s", key);
	snprintf(name, sizeof(name), "%s.zst", key);
	layout_segment_file(&x->j->dir, x->seg, "staged", name, path, sizeof(path));
	if (!fs_exists(path) || recfile_reader_open(path, REC_KIND_STAGE, &st->r) != CR_OK)
		return st;
	if (recfile_reader_next(st->r, &d, &n) != CR_OK ||
	    index_stage_unpack(d, n, &sr) != CR_OK || sr.kind != STAGE_FILE) {
		recfile_reader_free(&st->r);   /* empty or damaged: read back */
		return st;
	}
	snprintf(st->next, sizeof(st->next), "%.*s", (int)sr.n, sr.s);
	return st;
}

/* The CDXJ, text and links of WARC file name from its staged records, up to
 * the stream's next file. CR_ERR_FORMAT (x->stage_bad set) if the staged
 * file is damaged: the caller reads the partition back instead. */
static enum cr_err staged_warc(struct part_ix *x, struct stream *st, const char *name)
{
	struct index_stage_rec sr;
	struct lines l = { 0 };
	const void *d;
	size_t n;
	enum cr_err e;

	st->next[0] = '\0';
	x->cdxj = &l;
	while ((e = recfile_reader_next(st->r, &d, &n)) == CR_OK) {
		if ((e = index_stage_unpack(d, n, &sr)) != CR_OK)
			break;
		if (sr.kind == STAGE_FILE) {
			snprintf(st->next, sizeof(st->next), "%.*s", (int)sr.n, sr.s);
			break;
		}
		if (sr.kind == STAGE_CDXJ)
			e = lines_add(&l, sr.s, sr.n);
		else if (sr.kind == STAGE_PAGE)
			e = page_out(x, &sr.page);
		else
			x->c[IX_PARSE_FAILED]++;
		if (e)
			break;
	}
	x->cdxj = NULL;
	if (e == CR_EOF)
		recfile_reader_free(&st->r);
	if (e == CR_OK || e == CR_EOF)
		e = write_cdxj(x, name, l.v, l.n);
	else if (e == CR_ERR_FORMAT)
		x->stage_bad = 1;
	lines_release(&l);
	return e;
}

/* One WARC file of the partition: from what the fetcher staged for it when
 * there is such a thing, else read back. */
static enum cr_err index_warc(struct part_ix *x, const char *name)
{
	char key[256];
	struct stream *st;
	uint64_t n;
	enum cr_err e;

	x->wat.len = 0;
	if (x->j->cfg.index_wat) {
		if ((e = wat_write_file(x->j, x->seg, name, &n, &x->wat)) != CR_OK)
			return e;
		x->c[IX_WAT_RECORDS] += n;
		wat_name(name, x->wat_name, sizeof(x->wat_name));
	}

	if (x->use_staged && index_stage_key(name, key, sizeof(key)) &&
	    (st = stream_for(x, key)) != NULL && st->r && !strcmp(st->next, name)) {
		x->c[IX_STAGED_FILES]++;
		return staged_warc(x, st, name);
	}
	return one_warc(x, name);
}

/* The partition of a WARC file name PREFIX-NNNNN-PPPPP-... of segment seg
 * (PREFIX: the crawl's warc.prefix), or -1. */
static long name_partition(const struct crawl_dir *d, const char *name, int seg)
{
	char pre[LAYOUT_PREFIX_MAX + 16];
	char *end;
	long p;

	snprintf(pre, sizeof(pre), "%s-%05d-", d->warc_prefix, seg);
	if (strncmp(name, pre, strlen(pre)))
		return -1;
	p = strtol(name + strlen(pre), &end, 10);
	return end != name + strlen(pre) && *end == '-' ? p : -1;
}

static int is_warc_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 8 && !strcmp(n + l - 8, ".warc.gz")) ||
	       (l > 9 && !strcmp(n + l - 9, ".warc.zst"));
}

static enum cr_err do_partition(struct part_ix *x, char **names, size_t nn)
{
	char path[PATH_MAX], old[PATH_MAX];
	enum cr_err e = CR_OK, e2;
	size_t i;

	layout_segment_sub(&x->j->dir, x->seg, "links", path, sizeof(path));
	if (fs_mkdirs(path) != CR_OK)
		return CR_ERR_IO;
	part_file(x, "links", "links.tsv.zst", path, sizeof(path), old, sizeof(old));
	unlink(old);   /* an older crawl's name, written again under the new one */
	if ((e = zw_open(&x->links, path)) != CR_OK)
		return e;
	x->pages.len = 0;
	for (i = 0; i < nn && e == CR_OK; i++)
		if (name_partition(&x->j->dir, names[i], x->seg) == (long)x->p)
			e = index_warc(x, names[i]);
	e2 = zw_close(&x->links, e == CR_OK);
	if (e == CR_OK)
		e = e2;
	if (e == CR_OK)
		e = pages_write(x);
	if (x->wet && (e2 = warc_writer_close(&x->wet)) != CR_OK && e == CR_OK)
		e = e2;
	if (x->jsonl) {
		if (gzclose(x->jsonl) != Z_OK && e == CR_OK)
			e = CR_ERR_IO;
		x->jsonl = NULL;
		if (e == CR_OK && rename(x->text_tmp, x->text_path) != 0)
			e = CR_ERR_IO;
		if (e != CR_OK)
			unlink(x->text_tmp);
	}
	if (e == CR_OK)
		text_drop_others(x);
	return e;
}

int index_output_stale(const char *sub, const char *file, char *const *names, size_t n,
		       int wat_on)
{
	char out[320];
	int wat = !strcmp(sub, "wat");
	size_t i;

	if (strstr(file, ".tmp.") || (!wat && strcmp(sub, "cdxj")))
		return 0;
	if (wat && !wat_on)
		return 1;
	for (i = 0; i < n; i++) {
		if (wat)
			wat_name(names[i], out, sizeof(out));
		else
			snprintf(out, sizeof(out), "%s.cdxj", names[i]);
		if (!strcmp(out, file))
			return 0;
	}
	return 1;
}

/* A partition without WARC files (all of them gone) keeps no text, links
 * or pages an earlier index made of them (under either name, part_file). */
static void drop_partition(const struct job *j, int seg, uint32_t p)
{
	static const char *const outs[][2] = { { "text", "warc.wet.gz" }, { "text", "jsonl.gz" },
					       { "links", "links.tsv.zst" },
					       { "pages", "pages.jsonl" } };
	char path[2][PATH_MAX];
	struct part_ix x;
	size_t k;
	int n;

	memset(&x, 0, sizeof(x));
	x.j = j;
	x.seg = seg;
	x.p = p;
	for (k = 0; k < sizeof(outs) / sizeof(outs[0]); k++) {
		part_file(&x, outs[k][0], outs[k][1], path[0], PATH_MAX, path[1], PATH_MAX);
		for (n = 0; n < 2; n++)
			if (unlink(path[n]) != 0 && errno != ENOENT)
				log_warn("index", "cannot remove '%s': %s", path[n],
					 strerror(errno));
	}
}

/* The CDXJ and WAT files of partition p that an earlier index left and no
 * WARC file of names now makes (index_output_stale) are removed. */
static void drop_stale(const struct job *j, int seg, uint32_t p, char *const *names,
		       size_t nn)
{
	static const char *const subs[] = { "cdxj", "wat" };
	char dir[PATH_MAX], path[PATH_MAX + 300];
	size_t k, i, n;
	char **v;

	for (k = 0; k < 2; k++) {
		layout_segment_sub(&j->dir, seg, subs[k], dir, sizeof(dir));
		v = fs_list(dir, "", "", &n);
		for (i = 0; i < n; i++) {
			if (name_partition(&j->dir, v[i], seg) != (long)p ||
			    !index_output_stale(subs[k], v[i], names, nn, j->cfg.index_wat))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
			if (unlink(path) != 0 && errno != ENOENT)
				log_warn("index", "cannot remove '%s': %s", path, strerror(errno));
		}
		fs_list_free(v, n);
	}
}

static void streams_close(struct part_ix *x)
{
	size_t i;

	for (i = 0; i < x->nstreams; i++)
		recfile_reader_free(&x->streams[i].r);
	x->nstreams = 0;
}

static void dups_release(struct hmap *dups)
{
	size_t k = 0;
	struct hmap_slot *s;

	while ((s = hmap_next(dups, &k)) != NULL)
		free(s->val);
	hmap_release(dups);
}

/* Partition x->p: from the staged records where it can, and all of it read
 * back when a staged file turns out damaged. */
static enum cr_err index_partition(struct part_ix *x, char **names, size_t nn, int ver,
				   int use_staged)
{
	uint64_t before[IX_COUNT_];
	enum cr_err e;

	hmap_init(&x->dups);
	memcpy(before, x->c, sizeof(before));
	x->use_staged = use_staged;
	x->stage_bad = 0;
	e = load_dups(x, ver);
	if (e == CR_OK)
		e = do_partition(x, names, nn);
	streams_close(x);
	if (e != CR_OK && x->stage_bad) {
		log_warn("index", "segment %d partition %u: a staged file is damaged; reading "
			 "its WARC files back", x->seg, x->p);
		memcpy(x->c, before, sizeof(before));
		x->use_staged = 0;
		e = do_partition(x, names, nn);
	}
	dups_release(&x->dups);
	return e;
}

enum cr_err index_segment(const struct job *j, int seg, int crawldb_version, int use_staged,
			  uint64_t *c)
{
	struct part_ix x;
	char dir[PATH_MAX];
	char **names = NULL;
	size_t nn = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	enum cr_err e = CR_OK;
	uint32_t p;

	memset(&x, 0, sizeof(x));
	x.j = j;
	x.seg = seg;
	x.c = c;
	layout_segment_sub(&j->dir, seg, "cdxj", dir, sizeof(dir));
	if (fs_mkdirs(dir) != CR_OK)
		return CR_ERR_IO;
	layout_segment_sub(&j->dir, seg, "warc", dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return CR_OK;   /* nothing was fetched */
	while ((de = readdir(d)) != NULL) {
		if (!is_warc_name(de->d_name))
			continue;
		if (nn == cap) {
			char **g = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*g));
			if (!g) {
				e = CR_ERR_NOMEM;
				break;
			}
			names = g;
		}
		if (!(names[nn] = strdup(de->d_name))) {
			e = CR_ERR_NOMEM;
			break;
		}
		nn++;
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	x.streams = calloc(INDEX_STREAMS_MAX, sizeof(*x.streams));
	if (!x.streams)
		e = CR_ERR_NOMEM;
	buf_init(&x.packed);
	buf_init(&x.line);
	buf_init(&x.pages);
	buf_init(&x.body);
	buf_init(&x.marks);
	buf_init(&x.text);
	buf_init(&x.fields);
	buf_init(&x.wat);
	for (p = 0; e == CR_OK && p < j->dir.partitions; p++) {
		size_t k;
		int any = 0;

		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		for (k = 0; k < nn; k++)
			any |= name_partition(&j->dir, names[k], seg) == (long)p;
		if (any) {
			x.p = p;
			e = index_partition(&x, names, nn, crawldb_version, use_staged);
		} else {
			drop_partition(j, seg, p);
		}
		if (e == CR_OK)
			drop_stale(j, seg, p, names, nn);
	}
	free(x.streams);
	buf_release(&x.packed);
	buf_release(&x.line);
	buf_release(&x.pages);
	buf_release(&x.body);
	buf_release(&x.marks);
	buf_release(&x.text);
	buf_release(&x.fields);
	buf_release(&x.wat);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return e;
}

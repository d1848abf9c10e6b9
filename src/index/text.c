/*
 * text.c - what the index writes of a page beside its CDXJ line (index.h):
 * its text (a WET conversion record, or a JSON line), its links (the link
 * graph), its line in pages/, and the CDXJ fields that point into them.
 * The partition's state is part.h's.
 */
#include "index/part.h"
#include "index/index.h"
#include "index/stage.h"
#include "crawldb/parse_record.h"
#include "http/head.h"
#include "parse/html.h"
#include "parse/parse.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "warc/warc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <xxhash.h>
#include <zlib.h>

/* The extensions of the text.format values that write a file. */
static const char *const text_exts[] = { "warc.wet.gz", "jsonl.gz" };

/* The path of the partition's file in folder sub of the segment, named as
 * its WARC files are - PREFIX-NNNNN-PPPPP.EXT - so that the files of two
 * crawls never share a name (the older part-PPPPP.EXT: old, "" for none). */
void text_part_path(const struct part_ix *x, const char *sub, const char *ext, char *out,
		      size_t cap, char *old, size_t old_cap)
{
	char name[128];

	if (x->by_rank)
		snprintf(name, sizeof(name), "%s-%05d-r%04u.%s", x->j->dir.warc_prefix, x->seg,
			 x->unit, ext);
	else
		snprintf(name, sizeof(name), "%s-%05d-%05u.%s", x->j->dir.warc_prefix, x->seg,
			 x->unit, ext);
	layout_segment_file(&x->j->dir, x->seg, sub, name, out, cap);
	if (!old)
		return;
	if (x->by_rank) {
		old[0] = '\0';
		return;
	}
	/* links/part-P.tsv.zst, pages/part-P.jsonl: the folder not in the name */
	if (!strncmp(ext, sub, strlen(sub)) && ext[strlen(sub)] == '.')
		ext += strlen(sub) + 1;
	snprintf(name, sizeof(name), "part-%05u.%s", x->unit, ext);
	layout_segment_file(&x->j->dir, x->seg, sub, name, old, old_cap);
}

/* The path of the partition's text file in format k (text_exts). */
static void text_file(const struct part_ix *x, int k, char *out, size_t cap)
{
	text_part_path(x, "text", text_exts[k], out, cap, NULL, 0);
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
static void drop_others(struct part_ix *x)
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

/* Writes the pages list of the unit (pages/PREFIX-NNNNN-rRRRR.pages.jsonl, with WACZ's header
 * line), or removes an old one when the partition has no page. */
enum cr_err text_pages_write(struct part_ix *x)
{
	static const char header[] = "{\"format\":\"json-pages-1.0\",\"id\":\"pages\","
				     "\"title\":\"All Pages\"}\n";
	char dir[PATH_MAX], path[PATH_MAX], old[PATH_MAX];
	struct buf all;
	enum cr_err e;

	layout_segment_sub(&x->j->dir, x->seg, "pages", dir, sizeof(dir));
	text_part_path(x, "pages", "pages.jsonl", path, sizeof(path), old, sizeof(old));
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
enum cr_err text_page_out(struct part_ix *x, const struct index_stage_page *pg)
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
	if ((e = index_dup_of(x, uri, &dup)) != CR_OK)
		return e;
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
enum cr_err text_page_from_warc(struct part_ix *x, const struct warc_record *rec,
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
	return e ? e : text_page_out(x, &sr.page);
}

enum cr_err text_close(struct part_ix *x, enum cr_err e)
{
	enum cr_err e2;

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
		drop_others(x);
	return e;
}

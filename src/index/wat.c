#include "index/wat.h"
#include "parse/doc.h"
#include "crawldb/layout.h"
#include "crawldb/provenance.h"
#include "http/head.h"
#include "parse/parse.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

/* A header block's fields read, at most: more are left out of the JSON. */
#define WAT_FIELDS_MAX 512

/* ---- the JSON ---- */

static void key(struct buf *o, const char *k)
{
	json_str(o, k, strlen(k));
	buf_addc(o, ':');
}

static void kv(struct buf *o, const char *k, const char *v, size_t n)
{
	key(o, k);
	json_str(o, v, n);
}

static void kv_num(struct buf *o, const char *k, uint64_t v)
{
	key(o, k);
	buf_addf(o, "\"%llu\"", (unsigned long long)v);
}

struct field {
	const char *name;
	size_t nlen;
	size_t voff, vlen;       /* in the fields' value buffer */
};

static size_t skip_blanks(const char *h, size_t v, size_t end)
{
	while (v < end && (h[v] == ' ' || h[v] == '\t'))
		v++;
	return v;
}

/* The "Name: value" lines of a header block (after its first line when
 * skip_first), folded lines joined by a blank; values into vals. */
static size_t fields_read(const char *h, size_t n, int skip_first, struct field *f,
			  struct buf *vals)
{
	size_t i = 0, nf = 0;

	vals->len = 0;
	while (i < n) {
		size_t e = i, c, v;

		while (e < n && h[e] != '\n')
			e++;
		c = e;
		if (c > i && h[c - 1] == '\r')
			c--;
		if (skip_first) {
			skip_first = 0;
		} else if (c > i && (h[i] == ' ' || h[i] == '\t') && nf) {
			buf_addc(vals, ' ');
			v = skip_blanks(h, i, c);
			buf_add(vals, h + v, c - v);
			f[nf - 1].vlen = vals->len - f[nf - 1].voff;
		} else if (c > i && nf < WAT_FIELDS_MAX) {
			const char *colon = memchr(h + i, ':', c - i);

			if (colon && colon > h + i) {
				f[nf].name = h + i;
				f[nf].nlen = (size_t)(colon - (h + i));
				v = skip_blanks(h, (size_t)(colon - h) + 1, c);
				f[nf].voff = vals->len;
				buf_add(vals, h + v, c - v);
				f[nf].vlen = c - v;
				nf++;
			}
		}
		i = e + 1;
	}
	return nf;
}

static int same_name(const struct field *a, const struct field *b)
{
	return a->nlen == b->nlen && !strncasecmp(a->name, b->name, a->nlen);
}

/* The fields as a JSON object: a name given more than once is the list of
 * its values, in order, where it first appears. */
static void fields_json(struct buf *o, const char *h, size_t n, int skip_first,
			struct buf *vals)
{
	struct field f[WAT_FIELDS_MAX];
	size_t nf = fields_read(h, n, skip_first, f, vals), i, k;
	const char *vp;

	buf_addc(o, '{');
	for (i = 0; i < nf; i++) {
		size_t count = 0;

		for (k = 0; k < i && !same_name(&f[k], &f[i]); k++)
			;
		if (k < i)
			continue;   /* listed with its first */
		for (k = i; k < nf; k++)
			count += same_name(&f[k], &f[i]);
		if (o->p[o->len - 1] != '{')
			buf_addc(o, ',');
		json_str(o, f[i].name, f[i].nlen);
		buf_addc(o, ':');
		vp = (const char *)vals->p;
		if (count == 1) {
			json_str(o, vp + f[i].voff, f[i].vlen);
			continue;
		}
		buf_addc(o, '[');
		for (k = i; k < nf; k++)
			if (same_name(&f[k], &f[i])) {
				if (o->p[o->len - 1] != '[')
					buf_addc(o, ',');
				json_str(o, vp + f[k].voff, f[k].vlen);
			}
		buf_addc(o, ']');
	}
	buf_addc(o, '}');
}

/* Metadata-Records: a warc-fields block as a list of {Name, Value}. */
static void records_json(struct buf *o, const char *h, size_t n, struct buf *vals)
{
	struct field f[WAT_FIELDS_MAX];
	size_t nf = fields_read(h, n, 0, f, vals), i;

	buf_adds(o, "{\"Metadata-Records\":[");
	for (i = 0; i < nf; i++) {
		buf_adds(o, i ? ",{" : "{");
		kv(o, "Name", f[i].name, f[i].nlen);
		buf_addc(o, ',');
		kv(o, "Value", (const char *)vals->p + f[i].voff, f[i].vlen);
		buf_addc(o, '}');
	}
	buf_adds(o, "]}");
}

static void sha1_kv(struct buf *o, const char *k, const void *p, size_t n)
{
	char b32[33];

	warc_sha1_base32(p, n, b32);
	key(o, k);
	buf_addf(o, "\"sha1:%s\"", b32);
}

/* The words of a first line, split at blanks: at most 3, the third the
 * rest of the line ("HTTP/1.1 404 Not Found" -> HTTP/1.1, 404, Not Found). */
static void first_line(const char *h, size_t n, const char *w[3], size_t wl[3])
{
	size_t i = 0, k;

	for (k = 0; k < 3; k++) {
		size_t s = i;

		while (i < n && h[i] != '\r' && h[i] != '\n' && (k == 2 || h[i] != ' '))
			i++;
		w[k] = h + s;
		wl[k] = i - s;
		if (i < n && h[i] == ' ')
			i++;
	}
}

static void html_items(struct buf *o, const struct htmlmeta *m, enum htmlmeta_kind kind)
{
	uint32_t i;
	unsigned k;
	int first = 1;

	for (i = 0; i < m->nitems; i++) {
		const struct htmlmeta_item *it = htmlmeta_item(m, i);
		const char *n, *v;

		if (it->kind != kind)
			continue;
		buf_adds(o, first ? "{" : ",{");
		first = 0;
		for (k = 0; k < it->npairs; k++) {
			htmlmeta_pair(m, it, k, &n, &v);
			if (k)
				buf_addc(o, ',');
			kv(o, n, v, strlen(v));
		}
		if (it->has_text && it->text_len) {
			buf_addc(o, ',');
			kv(o, "text", (const char *)m->texts.p + it->text_off, it->text_len);
		}
		buf_addc(o, '}');
	}
}

static int has_kind(const struct htmlmeta *m, enum htmlmeta_kind kind)
{
	uint32_t i;

	for (i = 0; i < m->nitems; i++)
		if (htmlmeta_item(m, i)->kind == kind)
			return 1;
	return 0;
}

static void html_json(struct buf *o, const struct html_page *pg, const struct htmlmeta *m)
{
	static const struct {
		const char *name;
		enum htmlmeta_kind kind;
	} head[] = { { "Metas", HTMLMETA_META }, { "Link", HTMLMETA_LINK },
		     { "Scripts", HTMLMETA_SCRIPT } };
	size_t i;

	buf_adds(o, ",\"HTML-Metadata\":{\"Head\":{");
	kv(o, "Title", (const char *)pg->title.p, pg->title.len);
	if (m->base) {
		buf_addc(o, ',');
		kv(o, "Base", m->base, strlen(m->base));
	}
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
		if (!has_kind(m, head[i].kind))
			continue;
		buf_addc(o, ',');
		key(o, head[i].name);
		buf_addc(o, '[');
		html_items(o, m, head[i].kind);
		buf_addc(o, ']');
	}
	buf_adds(o, "},\"Links\":[");
	html_items(o, m, HTMLMETA_HREF);
	buf_adds(o, "]}");
}

/* HTTP-Response-Metadata or HTTP-Request-Metadata of an HTTP block. */
static void http_json(struct buf *o, const struct wat_source *s, struct buf *vals)
{
	const struct warc_record *r = s->rec;
	const char *h = (const char *)r->block, *w[3];
	size_t wl[3], hlen;
	int status, resp = r->block_len >= 5 && !memcmp(h, "HTTP/", 5);

	if (warc_http_split(r->block, r->block_len, &status, &hlen) != CR_OK)
		return;
	first_line(h, hlen, w, wl);
	buf_adds(o, resp ? ",\"HTTP-Response-Metadata\":{\"Response-Message\":{"
			 : ",\"HTTP-Request-Metadata\":{\"Request-Message\":{");
	kv(o, resp ? "Version" : "Method", w[0], wl[0]);
	buf_addc(o, ',');
	kv(o, resp ? "Status" : "Path", w[1], wl[1]);
	buf_addc(o, ',');
	kv(o, resp ? "Reason" : "Version", w[2], wl[2]);
	buf_adds(o, "},");
	kv_num(o, "Headers-Length", hlen);
	buf_adds(o, ",\"Headers\":");
	fields_json(o, h, hlen, 1, vals);
	buf_addc(o, ',');
	kv_num(o, "Entity-Length", r->block_len - hlen);
	buf_addc(o, ',');
	sha1_kv(o, "Entity-Digest", r->block + hlen, r->block_len - hlen);
	buf_adds(o, ",\"Entity-Trailing-Slop-Length\":\"0\"");
	if (resp && s->page && s->meta)
		html_json(o, s->page, s->meta);
	if (resp && s->pdf) {
		buf_adds(o, ",\"PDF-Metadata\":");
		doc_pdf_json(s->pdf, o);
	}
	buf_addc(o, '}');
}

static void payload_json(struct buf *o, const struct wat_source *s, struct buf *vals)
{
	const struct warc_record *r = s->rec;
	char type[32], ct[256];

	warc_record_field(r, "WARC-Type", type, sizeof(type));
	warc_record_field(r, "Content-Type", ct, sizeof(ct));
	buf_adds(o, "\"Payload-Metadata\":{");
	kv(o, "Actual-Content-Type", ct, strlen(ct));
	if (!strncasecmp(ct, "application/http", 16)) {
		http_json(o, s, vals);
	} else if (!strncasecmp(ct, "application/warc-fields", 23)) {
		if (!strcmp(type, "warcinfo")) {
			buf_adds(o, ",\"WARC-Info-Metadata\":");
			fields_json(o, (const char *)r->block, r->block_len, 0, vals);
		} else {
			buf_adds(o, ",\"WARC-Metadata-Metadata\":");
			records_json(o, (const char *)r->block, r->block_len, vals);
		}
	}
	buf_addc(o, '}');
}

static void container_json(struct buf *o, const struct wat_source *s)
{
	const struct warc_record *r = s->rec;
	uLong crc = crc32(0L, Z_NULL, 0);

	buf_adds(o, "\"Container\":{");
	kv(o, "Filename", s->filename, strlen(s->filename));
	buf_addf(o, ",\"Compressed\":%s,", s->comp == WAT_PLAIN ? "false" : "true");
	kv_num(o, "Offset", r->offset);
	if (s->comp == WAT_GZIP) {
		/* Our members: a 10-byte header, no name, an 8-byte trailer. */
		crc = crc32(crc, (const Bytef *)r->head, (uInt)r->head_len);
		crc = crc32_z(crc, r->block, r->block_len);
		crc = crc32(crc, (const Bytef *)"\r\n\r\n", 4);
		buf_adds(o, ",\"Gzip-Metadata\":{");
		kv_num(o, "Deflate-Length", r->length > 18 ? r->length - 18 : 0);
		buf_adds(o, ",\"Header-Length\":\"10\",\"Footer-Length\":\"8\",");
		kv_num(o, "Inflated-CRC", crc);
		buf_addc(o, ',');
		kv_num(o, "Inflated-Length", r->head_len + r->block_len + 4);
		buf_addc(o, '}');
	}
	buf_addc(o, '}');
}

void wat_json(const struct wat_source *s, struct buf *out)
{
	const struct warc_record *r = s->rec;
	struct buf vals;

	buf_init(&vals);
	buf_addc(out, '{');
	container_json(out, s);
	buf_adds(out, ",\"Envelope\":{\"Format\":\"WARC\",");
	kv_num(out, "WARC-Header-Length", r->head_len);
	buf_addc(out, ',');
	sha1_kv(out, "Block-Digest", r->block, r->block_len);
	buf_addc(out, ',');
	kv_num(out, "Actual-Content-Length", r->block_len);
	buf_adds(out, ",\"WARC-Header-Metadata\":");
	fields_json(out, r->head, r->head_len, 1, &vals);
	buf_addc(out, ',');
	payload_json(out, s, &vals);
	buf_adds(out, "}}");
	buf_release(&vals);
}

void wat_name(const char *warc_name, char *out, size_t cap)
{
	size_t n = strlen(warc_name);

	if (n > 8 && !strcmp(warc_name + n - 8, ".warc.gz"))
		n -= 8;
	else if (n > 9 && !strcmp(warc_name + n - 9, ".warc.zst"))
		n -= 9;
	snprintf(out, cap, "%.*s.warc.wat.gz", (int)n, warc_name);
}

/* ---- the file ---- */

struct wat_file {
	const struct job *j;
	const char *name;
	enum wat_container comp;
	struct warc_writer *w;
	struct buf json;
	uint64_t pc[PC_COUNT_];
};

/* Whether a record of type is an HTML response: its page and metadata are
 * read. */
static int html_response(const struct warc_record *r, const char *type, size_t *hlen,
			 char *charset, size_t cap)
{
	char mime[128];
	int status;

	if (strcmp(type, "response") ||
	    warc_http_split(r->block, r->block_len, &status, hlen) != CR_OK)
		return 0;
	http_head_content_type(r->block, *hlen, mime, sizeof(mime), charset, cap);
	return !strcasecmp(mime, "text/html") || !strcasecmp(mime, "application/xhtml+xml");
}

/* A PDF response (parse/doc.h) read by the PDF worker into pdf: 1 if it
 * was one, read or not (its fate says). */
static int pdf_response(struct wat_file *f, const struct warc_record *r, const char *type,
			const char *uri, struct pdf_doc *pdf)
{
	char mime[128], charset[64];
	struct html_page pg;
	uint32_t flags;
	size_t hlen;
	int status;

	if (strcmp(type, "response") || !f->j->cfg.parse_pdf ||
	    warc_http_split(r->block, r->block_len, &status, &hlen) != CR_OK)
		return 0;
	http_head_content_type(r->block, hlen, mime, sizeof(mime), charset, sizeof(charset));
	if (doc_kind(mime, r->block + hlen, r->block_len - hlen) != DOC_PDF)
		return 0;
	if (parse_doc(f->j, uri, mime, charset, r->block, hlen, r->block + hlen,
		      r->block_len - hlen, warc_record_truncated(r), &pg, &flags, f->pc, NULL,
		      pdf))
		html_page_release(&pg);
	return 1;
}

static enum cr_err one(struct wat_file *f, const struct warc_record *r, struct buf *places)
{
	char type[32], uri[8192], date[64], id[128], charset[64];
	struct wat_source s = { f->name, f->comp, r, NULL, NULL, NULL };
	struct pdf_doc pdf;
	struct warc_record_out out;
	struct wat_place pl;
	struct html_page pg;
	struct htmlmeta m;
	uint32_t flags;
	size_t hlen;
	enum cr_err e;

	warc_record_field(r, "WARC-Type", type, sizeof(type));
	if (!warc_record_field(r, "WARC-Target-URI", uri, sizeof(uri)) ||
	    !strcmp(type, "warcinfo"))
		snprintf(uri, sizeof(uri), "%s", f->name);
	htmlmeta_init(&m);
	pdf_doc_init(&pdf);
	if (pdf_response(f, r, type, uri, &pdf)) {
		s.pdf = &pdf;
	} else if (html_response(r, type, &hlen, charset, sizeof(charset))) {
		if (parse_html(f->j, uri, charset, r->block, hlen, r->block + hlen,
			       r->block_len - hlen, warc_record_truncated(r), &pg, &flags,
			       f->pc, &m)) {
			s.page = &pg;
			s.meta = &m;
		}
	}
	f->json.len = 0;
	wat_json(&s, &f->json);
	if (s.page)
		html_page_release(&pg);
	htmlmeta_release(&m);
	pdf_doc_release(&pdf);
	warc_record_field(r, "WARC-Date", date, sizeof(date));
	warc_record_field(r, "WARC-Record-ID", id, sizeof(id));
	memset(&out, 0, sizeof(out));
	out.type = "metadata";
	out.target_uri = uri;
	out.date_us = warc_parse_date(date);
	out.refers_to = id[0] == '<' ? id : NULL;
	out.content_type = "application/json";
	out.block = f->json.p;
	out.block_len = f->json.len;
	if ((e = warc_write_record(f->w, &out, &pl.wat_offset, &pl.wat_length)) == CR_OK &&
	    places) {
		pl.warc_offset = r->offset;
		buf_add(places, &pl, sizeof(pl));
	}
	return e;
}

static enum wat_container container_of(const char *name)
{
	size_t n = strlen(name);

	if (n > 3 && !strcmp(name + n - 3, ".gz"))
		return WAT_GZIP;
	return n > 4 && !strcmp(name + n - 4, ".zst") ? WAT_ZSTD : WAT_PLAIN;
}

enum cr_err wat_write_file(const struct job *j, int seg, const char *name, uint64_t *records,
			   struct buf *places)
{
	struct warc_writer_opts wo = { WARC_COMP_GZIP, 1, 0, NULL, 0, NULL, NULL, NULL };
	struct buf info;
	char in[PATH_MAX], out[PATH_MAX], tmp[PATH_MAX + 32], dir[PATH_MAX], wname[300];
	struct wat_file f = { j, name, container_of(name), NULL, { 0 }, { 0 } };
	struct warc_reader *r;
	struct warc_record rec;
	enum cr_err e, e2;

	*records = 0;
	layout_segment_sub(&j->dir, seg, "wat", dir, sizeof(dir));
	if (fs_mkdirs(dir) != CR_OK)
		return CR_ERR_IO;
	wat_name(name, wname, sizeof(wname));
	layout_segment_file(&j->dir, seg, "wat", wname, out, sizeof(out));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", out, (int)getpid());
	layout_segment_file(&j->dir, seg, "warc", name, in, sizeof(in));
	if ((e = warc_reader_open(in, config_warc_block_max(&j->cfg), &r)) != CR_OK)
		return e;
	/* JSON compresses well at level 1; the files are rewritten whenever
	 * the index is. The warcinfo names the crawl as its WARC files do. */
	buf_init(&info);
	provenance_fields(j, &info);
	wo.info = buf_cstr(&info);
	wo.filename = wname;
	e = warc_writer_open_opts(tmp, provenance_software(), &wo, &f.w);
	buf_release(&info);
	buf_init(&f.json);
	while (e == CR_OK && (e = warc_reader_next(r, &rec)) == CR_OK) {
		e = one(&f, &rec, places);
		*records += e == CR_OK;
	}
	warc_reader_free(&r);
	buf_release(&f.json);
	e2 = warc_writer_close(&f.w);
	if (e == CR_EOF)
		e = e2;
	if (e == CR_OK && rename(tmp, out) != 0) {
		log_err("index", "cannot write '%s': %s", out, strerror(errno));
		e = CR_ERR_IO;
	}
	if (e != CR_OK)
		unlink(tmp);
	return e;
}

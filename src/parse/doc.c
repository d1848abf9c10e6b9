#include "parse/doc.h"
#include "parse/lang.h"
#include "url/url.h"
#include "util/hmap.h"
#include "util/json.h"
#include "util/utf8.h"
#include "warc/warc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

enum doc_kind doc_kind(const char *mime, const void *body, size_t blen)
{
	if (blen >= 5 && !memcmp(body, "%PDF-", 5))
		return DOC_PDF;
	if (!strcasecmp(mime, "application/pdf"))
		return DOC_PDF;
	if (!mime[0] || !strcasecmp(mime, "text/html") ||
	    !strcasecmp(mime, "application/xhtml+xml"))
		return DOC_HTML;
	return strcasecmp(mime, "text/plain") ? DOC_OTHER : DOC_TEXT;
}

/* Lines, languages, digest and (no) boilerplate of a page whose title and
 * text are set. */
static void finish(struct html_page *p)
{
	uint32_t i;

	p->nlines = 0;
	if (p->text.len) {
		p->nlines = 1;
		for (i = 0; i < p->text.len; i++)
			p->nlines += p->text.p[i] == '\n';
	}
	if (p->nlines && !(p->boiler = calloc(p->nlines, 1)))
		abort();
	p->text_digest = XXH3_64bits(p->text.p, p->text.len);
	html_page_languages(p);
	buf_cstr(&p->title);
	buf_cstr(&p->text);
}

static void add_link(struct html_page *p, const char *u, const char *anchor)
{
	size_t n = p->nlinks + 1;

	if (!(p->links = realloc(p->links, n * sizeof(*p->links))) ||
	    !(p->anchors = realloc(p->anchors, n * sizeof(*p->anchors))) ||
	    !(p->links[p->nlinks] = strdup(u)) || !(p->anchors[p->nlinks] = strdup(anchor)))
		abort();
	p->nlinks++;
}

void doc_pdf_page(const struct pdf_doc *d, const char *url, size_t max_links,
		  struct html_page *out)
{
	struct pdf_doc t;
	struct hmap seen;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	buf_init(&out->title);
	buf_init(&out->text);
	if (d->field[PDF_TITLE]) {
		/* the title as one line */
		pdf_doc_init(&t);
		pdf_doc_add_text(&t, d->field[PDF_TITLE], strlen(d->field[PDF_TITLE]),
				 PDF_FIELD_MAX + 1);
		for (i = 0; i < t.text.len; i++)
			buf_addc(&out->title, t.text.p[i] == '\n' ? ' ' : (char)t.text.p[i]);
		pdf_doc_release(&t);
	}
	buf_add(&out->text, d->text.p, d->text.len);
	hmap_init(&seen);
	for (i = 0; i < d->nlinks; i++) {
		char u[URL_MAX_LEN + 1];
		const char *why;
		void **slot;

		if (out->nlinks >= max_links ||
		    url_canon(url, d->links[i], u, sizeof(u), &why) != CR_OK) {
			out->dropped++;
			continue;
		}
		slot = hmap_put(&seen, u, strlen(u));
		if (*slot)
			continue;
		*slot = out;
		add_link(out, u, d->anchors[i]);
	}
	hmap_release(&seen);
	finish(out);
}

void doc_text_page(const void *body, size_t blen, size_t max_text, struct html_page *out)
{
	struct pdf_doc t;
	struct buf latin;
	size_t i;

	memset(out, 0, sizeof(*out));
	buf_init(&out->title);
	buf_init(&out->text);
	pdf_doc_init(&t);
	buf_init(&latin);
	if (!utf8_valid(body, blen, 1)) {
		const unsigned char *b = body;

		for (i = 0; i < blen; i++) {
			if (b[i] < 0x80) {
				buf_addc(&latin, (char)b[i]);
			} else {
				buf_addc(&latin, (char)(0xc0 | (b[i] >> 6)));
				buf_addc(&latin, (char)(0x80 | (b[i] & 0x3f)));
			}
		}
		body = latin.p;
		blen = latin.len;
	}
	pdf_doc_add_text(&t, body, blen, max_text);
	buf_add(&out->text, t.text.p, t.text.len);
	pdf_doc_release(&t);
	buf_release(&latin);
	finish(out);
}

/* A value on one line: control bytes as blanks. */
static void one_line(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addc(out, (unsigned char)*s < 0x20 ? ' ' : *s);
}

/* The document's dates (those it says) in WARC-Date form: as
 * warc-fields lines, or (json) as members of an object. */
static void dates(const struct pdf_doc *d, int json, struct buf *out)
{
	static const char *const names[2][2] = { { "created", "modified" },
						 { "Created", "Modified" } };
	const int64_t v[2] = { d->created, d->modified };
	char date[WARC_DATE_MAX];
	unsigned i;

	for (i = 0; i < 2; i++) {
		if (!v[i])
			continue;
		warc_format_date(v[i] * 1000000, date);
		if (json)
			buf_addf(out, "\"%s\":\"%s\",", names[1][i], date);
		else
			buf_addf(out, "pdf-%s: %s\r\n", names[0][i], date);
	}
}

void doc_pdf_fields(const struct pdf_doc *d, struct buf *out)
{
	unsigned i;

	if (d->fate != PDF_OK) {
		buf_addf(out, "pdf-error: %s\r\n", pdf_fate_reason(d->fate));
		if (d->fate != PDF_ENCRYPTED)
			return;
	}
	for (i = 0; i < PDF_FIELDS_; i++) {
		if (!d->field[i])
			continue;
		buf_adds(out, "pdf-");
		for (const char *n = pdf_field_names[i]; *n; n++)
			buf_addc(out, (char)(*n | 0x20));
		buf_adds(out, ": ");
		one_line(out, d->field[i]);
		buf_adds(out, "\r\n");
	}
	dates(d, 0, out);
	if (d->fate == PDF_OK)
		buf_addf(out, "pdf-pages: %u\r\npdf-pages-read: %u\r\n", (unsigned)d->pages,
			 (unsigned)d->pages_read);
	if (d->version[0])
		buf_addf(out, "pdf-version: %s\r\n", d->version);
	buf_addf(out, "pdf-encrypted: %s\r\n", d->encrypted ? "true" : "false");
	if (d->text_cut)
		buf_adds(out, "pdf-text-cut: true\r\n");
}

void doc_pdf_json(const struct pdf_doc *d, struct buf *out)
{
	unsigned i;

	buf_addc(out, '{');
	for (i = 0; i < PDF_FIELDS_; i++) {
		if (!d->field[i])
			continue;
		json_str(out, pdf_field_names[i], strlen(pdf_field_names[i]));
		buf_addc(out, ':');
		json_str(out, d->field[i], strlen(d->field[i]));
		buf_addc(out, ',');
	}
	dates(d, 1, out);
	if (d->fate != PDF_OK)
		buf_addf(out, "\"Error\":\"%s\",", pdf_fate_reason(d->fate));
	buf_addf(out, "\"Pages\":\"%u\",\"Version\":", (unsigned)d->pages);
	json_str(out, d->version, strlen(d->version));
	buf_addf(out, ",\"Encrypted\":%s,\"Links\":[", d->encrypted ? "true" : "false");
	for (i = 0; i < d->nlinks; i++) {
		buf_adds(out, i ? ",{\"url\":" : "{\"url\":");
		json_str(out, d->links[i], strlen(d->links[i]));
		if (d->anchors[i][0]) {
			buf_adds(out, ",\"text\":");
			json_str(out, d->anchors[i], strlen(d->anchors[i]));
		}
		buf_addc(out, '}');
	}
	buf_adds(out, "]}");
}

#include "parse/pdf.h"
#include "util/utf8.h"

#include <ctype.h>
#include <poppler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fate_reasons[PDF_FATES_] = {
	"", "pdf:encrypted", "pdf:malformed", "pdf:too-large", "pdf:timeout", "pdf:crash",
	"pdf:memory", "pdf:no-worker",
};

const char *const pdf_field_names[PDF_FIELDS_] = {
	"Title", "Author", "Subject", "Keywords", "Creator", "Producer",
};

const char *pdf_fate_reason(enum pdf_fate f)
{
	return (unsigned)f < PDF_FATES_ ? fate_reasons[f] : "pdf:crash";
}

void pdf_doc_init(struct pdf_doc *d)
{
	memset(d, 0, sizeof(*d));
	buf_init(&d->text);
}

void pdf_doc_release(struct pdf_doc *d)
{
	uint32_t i;

	if (!d)
		return;
	for (i = 0; i < PDF_FIELDS_; i++)
		free(d->field[i]);
	for (i = 0; i < d->nlinks; i++) {
		free(d->links[i]);
		free(d->anchors[i]);
	}
	free(d->links);
	free(d->anchors);
	buf_release(&d->text);
	memset(d, 0, sizeof(*d));
}

/* An anchor text as one line of at most PDF_ANCHOR_MAX bytes; malloc'd. */
static char *anchor_copy(const char *a, size_t an)
{
	struct pdf_doc t;
	char *r;
	size_t i;

	pdf_doc_init(&t);
	pdf_doc_add_text(&t, a, an, PDF_ANCHOR_MAX + 1);
	for (i = 0; i < t.text.len; i++)
		if (t.text.p[i] == '\n')
			t.text.p[i] = ' ';
	if (!(r = strndup(t.text.len ? (const char *)t.text.p : "", t.text.len)))
		abort();
	pdf_doc_release(&t);
	return r;
}

int pdf_doc_add_link(struct pdf_doc *d, const char *uri, size_t n, const char *a, size_t an,
		     uint32_t max_links)
{
	size_t k = (size_t)d->nlinks + 1;

	if (!n || n > PDF_URI_MAX || d->nlinks >= max_links || memchr(uri, '\0', n))
		return 0;
	if (!(d->links = realloc(d->links, k * sizeof(*d->links))) ||
	    !(d->anchors = realloc(d->anchors, k * sizeof(*d->anchors))) ||
	    !(d->links[d->nlinks] = strndup(uri, n)))
		abort();
	d->anchors[d->nlinks++] = anchor_copy(a, an);
	return 1;
}

/* Appends one line's bytes, blanks collapsed, as far as max allows. 0 once
 * the text is full. */
static int add_line(struct pdf_doc *d, const unsigned char *s, size_t n, size_t max)
{
	size_t i = 0, start = d->text.len, line;
	int blank = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (d->text.len > 1 && d->text.p[d->text.len - 1] == '-' &&
	    isalpha(d->text.p[d->text.len - 2]) && i < n && islower(s[i]))
		d->text.len--;   /* "improv-" "ing": a word broken at the line's end */
	else if (d->text.len)
		buf_addc(&d->text, '\n');
	line = d->text.len;
	while (i < n) {
		size_t k = utf8_seq_len(s + i, n - i);

		if (!k || (k == 1 && (s[i] < 0x20 || s[i] == 0x7f || s[i] == ' '))) {
			blank = 1;   /* invalid bytes and controls are blanks */
			i += k ? k : 1;
			continue;
		}
		if (d->text.len + k + 1 > max) {
			d->text_cut = 1;
			break;
		}
		if (blank && d->text.len > line)
			buf_addc(&d->text, ' ');
		blank = 0;
		buf_add(&d->text, s + i, k);
		i += k;
	}
	if (d->text.len == line)
		d->text.len = start;   /* an empty line: none */
	return !d->text_cut;
}

void pdf_doc_add_text(struct pdf_doc *d, const char *s, size_t n, size_t max_text)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end && !d->text_cut) {
		const unsigned char *nl = p;

		while (nl < end && *nl != '\n' && *nl != '\r' && *nl != '\f')
			nl++;
		if (!add_line(d, p, (size_t)(nl - p), max_text))
			break;
		p = nl + 1;
	}
}

static char *field_copy(char *s)
{
	size_t n;
	char *r;

	if (!s || !s[0]) {
		g_free(s);   /* none, or empty: not said */
		return NULL;
	}
	n = strlen(s);
	if (n > PDF_FIELD_MAX)
		n = utf8_whole(s, PDF_FIELD_MAX);
	r = strndup(s, n);
	g_free(s);
	if (!r)
		abort();
	return r;
}

static void read_info(PopplerDocument *doc, const void *data, size_t len, struct pdf_doc *out)
{
	char *v;

	out->field[PDF_TITLE] = field_copy(poppler_document_get_title(doc));
	out->field[PDF_AUTHOR] = field_copy(poppler_document_get_author(doc));
	out->field[PDF_SUBJECT] = field_copy(poppler_document_get_subject(doc));
	out->field[PDF_KEYWORDS] = field_copy(poppler_document_get_keywords(doc));
	out->field[PDF_CREATOR] = field_copy(poppler_document_get_creator(doc));
	out->field[PDF_PRODUCER] = field_copy(poppler_document_get_producer(doc));
	out->created = poppler_document_get_creation_date(doc);
	out->modified = poppler_document_get_modification_date(doc);
	if (out->created < 0)
		out->created = 0;
	if (out->modified < 0)
		out->modified = 0;
	v = poppler_document_get_pdf_version_string(doc);
	if (v) {
		/* "PDF-1.5" */
		const char *num = strncmp(v, "PDF-", 4) ? v : v + 4;

		snprintf(out->version, sizeof(out->version), "%s", num);
		g_free(v);
	}
	out->pages = (uint32_t)poppler_document_get_n_pages(doc);
	/* An /Encrypt entry in a trailer or cross-reference stream; poppler-glib
	 * tells only of passwords it needed. */
	out->encrypted = memmem(data, len, "/Encrypt", 8) != NULL;
}

/* A page's text with the box of each of its characters (poppler's text
 * layout: one rectangle a character of the text, from the page's top). */
struct page_text {
	const char *t;
	size_t len;
	const PopplerRectangle *box;
	guint nbox;
};

/* The characters of pt whose boxes' centres lie in area (from the page's
 * top), in order, into a: a link's anchor text. */
static void text_in(const struct page_text *pt, const PopplerRectangle *area, struct buf *a)
{
	size_t at = 0, k;
	guint i;

	for (i = 0; i < pt->nbox && at < pt->len; i++, at += k) {
		const PopplerRectangle *b = &pt->box[i];
		double x = (b->x1 + b->x2) / 2, y = (b->y1 + b->y2) / 2;

		k = utf8_seq_len((const unsigned char *)pt->t + at, pt->len - at);
		if (!k)
			k = 1;
		if (x >= area->x1 && x <= area->x2 && y >= area->y1 && y <= area->y2 &&
		    a->len < 4 * PDF_ANCHOR_MAX)
			buf_add(a, pt->t + at, k);
	}
}

static void read_links(PopplerPage *page, const struct page_text *pt,
		       const struct pdf_limits *lim, struct pdf_doc *out)
{
	GList *map = poppler_page_get_link_mapping(page), *l;
	double width, height;
	struct buf a;

	poppler_page_get_size(page, &width, &height);
	buf_init(&a);
	for (l = map; l; l = l->next) {
		const PopplerLinkMapping *m = l->data;
		PopplerRectangle area = m->area;

		if (!m->action || m->action->type != POPPLER_ACTION_URI || !m->action->uri.uri)
			continue;
		/* The mapping's area counts from the page's foot, the text's
		 * boxes from its top. */
		area.y1 = height - m->area.y2;
		area.y2 = height - m->area.y1;
		a.len = 0;
		text_in(pt, &area, &a);
		pdf_doc_add_link(out, m->action->uri.uri, strlen(m->action->uri.uri),
				 (const char *)a.p, a.len, lim->max_links);
	}
	buf_release(&a);
	poppler_page_free_link_mapping(map);
}

/* One page's text and links into out. */
static void read_page(PopplerPage *page, const struct pdf_limits *lim, struct pdf_doc *out)
{
	struct page_text pt = { NULL, 0, NULL, 0 };
	PopplerRectangle *box = NULL;
	char *t = poppler_page_get_text(page);

	if (t) {
		pdf_doc_add_text(out, t, strlen(t), lim->max_text);
		pt.t = t;
		pt.len = strlen(t);
		if (poppler_page_get_text_layout(page, &box, &pt.nbox))
			pt.box = box;
	}
	read_links(page, &pt, lim, out);
	g_free(box);
	g_free(t);
}

void pdf_extract(const void *data, size_t len, const struct pdf_limits *lim,
		 struct pdf_doc *out)
{
	GBytes *bytes = g_bytes_new_static(data, len);
	GError *err = NULL;
	PopplerDocument *doc = poppler_document_new_from_bytes(bytes, NULL, &err);
	uint32_t i;

	if (!doc) {
		int locked = err && err->domain == POPPLER_ERROR &&
			     err->code == POPPLER_ERROR_ENCRYPTED;

		out->fate = locked ? PDF_ENCRYPTED : PDF_MALFORMED;
		out->encrypted = out->fate == PDF_ENCRYPTED;
		if (err)
			g_error_free(err);
		g_bytes_unref(bytes);
		return;
	}
	read_info(doc, data, len, out);
	for (i = 0; i < out->pages && i < lim->max_pages && !out->text_cut; i++) {
		PopplerPage *page = poppler_document_get_page(doc, (int)i);

		if (!page)
			continue;
		read_page(page, lim, out);
		out->pages_read = i + 1;
		g_object_unref(page);
	}
	out->fate = PDF_OK;
	g_object_unref(doc);
	g_bytes_unref(bytes);
}

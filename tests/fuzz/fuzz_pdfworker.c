/*
 * fuzz_pdfworker - what crosses the PDF worker's socket (parse/pdfworker.h)
 * and the text it hands on (parse/pdf.h, parse/doc.h).
 *
 * Input: one byte choosing what reads the rest: 0 a request's head (what
 * the worker reads), 1 a reply's head and body (what the rank reads from a
 * worker that may have gone astray), 2 a page's text and a plain text
 * (pdf_doc_add_text, doc_text_page). A reply read must pack to the same
 * body again; text must come out valid UTF-8 within its cap. poppler itself
 * is not driven here: it runs only in the worker, under its limits, and is
 * fuzzed upstream (OSS-Fuzz).
 */
#include "fuzz.h"
#include "parse/doc.h"
#include "parse/pdfworker.h"
#include "util/utf8.h"

static const struct pdf_limits lim = { 8, 4096, 16 };

static void reply(const uint8_t *p, size_t n)
{
	struct pdf_doc d;
	struct buf again;
	uint64_t len;

	if (pdfworker_reply_head(p, n, &lim, &len) != CR_OK || len > n - PDFWORKER_REPLY_HEAD)
		return;
	pdf_doc_init(&d);
	if (pdfworker_reply_unpack(p + PDFWORKER_REPLY_HEAD, (size_t)len, &lim, &d) == CR_OK) {
		buf_init(&again);
		pdfworker_reply_pack(&d, &again);
		if (again.len < PDFWORKER_REPLY_HEAD || d.text.len > lim.max_text ||
		    d.nlinks > lim.max_links ||
		    (d.text.len && !utf8_valid(d.text.p, d.text.len, 0)))
			abort();
		buf_release(&again);
	}
	pdf_doc_release(&d);
}

static void text(const uint8_t *p, size_t n)
{
	struct pdf_doc d;
	struct html_page pg;

	pdf_doc_init(&d);
	pdf_doc_add_text(&d, (const char *)p, n, 512);
	if (d.text.len > 512 || (d.text.len && !utf8_valid(d.text.p, d.text.len, 0)) ||
	    (d.text.len && (d.text.p[0] == '\n' || d.text.p[d.text.len - 1] == '\n')))
		abort();
	pdf_doc_release(&d);
	doc_text_page(p, n, 512, &pg);
	if (pg.text.len > 512 || (pg.text.len && !utf8_valid(pg.text.p, pg.text.len, 0)))
		abort();
	html_page_release(&pg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pdfworker_request q;
	uint8_t *copy;

	if (!size)
		return 0;
	/* copied so that reading past the end is caught */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		if (pdfworker_request_unpack(copy, size - 1, &q) == CR_OK &&
		    (q.len > PDFWORKER_MAX_INPUT || !q.lim.max_pages))
			abort();
		break;
	case 1:
		reply(copy, size - 1);
		break;
	default:
		text(copy, size - 1);
		break;
	}
	free(copy);
	return 0;
}

/*
 * doc.h - documents beyond HTML: which kind a response is, and a PDF's or a
 * plain text's reading as the struct html_page that an HTML page's text
 * goes through (parse record, WET record, language, digest, MinHash, link
 * graph), so that nothing downstream tells them apart.
 *
 * A response is a PDF when its Content-Type says application/pdf or its
 * body starts with "%PDF-" (what sniff.h reports as mime-detected
 * application/pdf, whatever the server said); plain text when its
 * Content-Type is text/plain. The PDF itself is read in the PDF worker
 * (pdfworker.h); what comes back is turned into a page here.
 * Pure: data in, data out.
 */
#ifndef CR_PARSE_DOC_H
#define CR_PARSE_DOC_H

#include <stddef.h>
#include <stdint.h>

#include "parse/html.h"
#include "parse/pdf.h"
#include "util/buf.h"

enum doc_kind { DOC_OTHER = 0, DOC_HTML, DOC_PDF, DOC_TEXT };

/* The kind of a response whose Content-Type (without parameters) is mime
 * ("" when none; HTML then, as ever) and whose body (as stored, or decoded)
 * starts with body[0..blen). */
enum doc_kind doc_kind(const char *mime, const void *body, size_t blen);

/*
 * The page of a PDF the worker read (d, its fate PDF_OK) at url: title the
 * document's Title (blanks collapsed), text d's, each link URI resolved
 * against url and canonicalised (url.h) - invalid and non-http(s) ones
 * dropped, duplicates kept once (the first one's anchor text), at most
 * max_links - no line boilerplate, languages and digest as an HTML page's.
 * Release it with html_page_release.
 */
void doc_pdf_page(const struct pdf_doc *d, const char *url, size_t max_links,
		  struct html_page *out);
/* The page of a plain text: its lines (blanks collapsed, no empty line; a
 * text that is not UTF-8 read as Latin-1), no title, no link, at most
 * max_text bytes. */
void doc_text_page(const void *body, size_t blen, size_t max_text, struct html_page *out);

/* A PDF's metadata as application/warc-fields lines of the metadata record
 * ("pdf-title: ...", "pdf-pages: 12", "pdf-version: 1.5", "pdf-encrypted:
 * false", "pdf-created: 2022-08-18T10:00:00Z", "pdf-error: pdf:timeout"),
 * appended to out; line breaks in values become blanks. */
void doc_pdf_fields(const struct pdf_doc *d, struct buf *out);
/* The same as the WAT's PDF-Metadata object, {"Title":...,"Pages":"12",
 * ..., "Links":[{"url":...,"text":...}]} (numbers as strings, as Common
 * Crawl writes them; "text" when the link has anchor text), appended to
 * out. */
void doc_pdf_json(const struct pdf_doc *d, struct buf *out);

#endif

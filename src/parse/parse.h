/*
 * parse.h - the parse phase: for each fetched HTML page of the segment, read
 * the response back from its WARC file and extract links, title and text
 * digest (html.h); a redirect contributes its target as a link. Output:
 * segments/N/parse/part-P.zst. Re-running it on a segment needs no fetch.
 * With fetch.parse (the default) the fetcher does the same work while it
 * still holds each body, and the parse phase is done with the fetch.
 * Not collective itself; each rank handles its own partitions.
 */
#ifndef CR_PARSE_PARSE_H
#define CR_PARSE_PARSE_H

#include <stdint.h>

#include "crawldb/job.h"
#include "parse/html.h"
#include "parse/pdf.h"
#include "util/error.h"

enum parse_counter {
	PC_PAGES,        /* HTML pages parsed */
	PC_FAILED,       /* pages that could not be read back or parsed */
	PC_SKIPPED,      /* fetched, not HTML */
	PC_REDIRECTS,
	PC_LINKS,        /* outlinks kept */
	PC_DROPPED,      /* invalid, non-http(s), over the cap */
	PC_NOFOLLOW,     /* links not followed: rel=nofollow, meta robots, X-Robots-Tag */
	PC_NOINDEX,      /* pages that say noindex (flagged in their parse record) */
	PC_DECODED,      /* bodies with a Content-Encoding undone (decode.h) */
	PC_DECODE_CAPPED, /* ... of which more than fetch.max_decoded_bytes: cut */
	PC_UNDECODABLE,  /* an unknown coding or corrupt data: not parsed */
	PC_SITEMAPS,     /* sitemaps (and feeds, lists) read */
	PC_SITEMAP_ENTRIES,  /* ... the URLs they listed, kept */
	PC_SITEMAP_DROPPED,  /* ... past the protocol's caps (50,000 URLs, 50 MiB) */
	PC_SITEMAP_INVALID,  /* ... entries without a usable URL */
	PC_SITEMAP_MALFORMED, /* sitemaps that were not one, or broke off */
	PC_EMBEDS,       /* requisites kept (fetch.embeds), of pages and stylesheets */
	PC_STYLESHEETS,  /* stylesheets fetched as requisites, read for theirs */
	PC_PDFS,         /* PDFs handed to the PDF worker (parse/pdfworker.h) */
	PC_PDF_FAILED,   /* ... that it could not read: a pdf:* reason */
	PC_TEXTS,        /* plain texts read */
	PC_COUNT_
};

extern const char *const parse_counter_names[PC_COUNT_];

CR_WUR enum cr_err parse_run(struct job *j, int seg, uint64_t *counters);

struct fetch_record;

/* 1 if parsing f needs its body (a fetched HTML page, PDF or plain text,
 * or a body of another type that may be a PDF by its signature). */
int parse_wants_body(const struct fetch_record *f);
/*
 * The parse record of one fetch outcome, appended to out: links, title and
 * text digest of an HTML page (head: its response head, for X-Robots-Tag;
 * body: its bytes as received), the target of a redirect. Returns 1 if a
 * record was written, 0 if the outcome has nothing to parse or the page could
 * not be parsed (counted in c, PC_COUNT_ long).
 * Used by the parse phase and by the fetcher (fetch.parse). keep (or NULL):
 * the fetcher keeps the HTML page for the index step's text and link graph;
 * it is zeroed, and filled when a page parsed (the caller releases it).
 */
struct parse_kept {
	int html;                 /* 1: page holds a page that parsed (HTML,
				     or a PDF's or plain text's: parse/doc.h) */
	struct html_page page;    /* owned: html_page_release */
	uint32_t flags;           /* enum parse_flag of the page */
	int is_pdf;               /* 1: a PDF; pdf says what became of it */
	struct pdf_doc pdf;       /* owned: pdf_doc_release */
};
/* Frees what k owns. */
void parse_kept_release(struct parse_kept *k);
int parse_page(const struct job *j, const struct fetch_record *f,
	       const unsigned char *head, size_t hlen,
	       const unsigned char *body, size_t blen, struct buf *out, uint64_t *c,
	       struct parse_kept *keep);

/*
 * A PDF read apart from its page, so that the fetcher's loop need not wait
 * for the worker (fetch/docs.h): parse_wants_pdf says whether a fetch
 * outcome is a PDF the worker would be asked to read (parse.pdf on);
 * parse_pdf_read asks it - any thread, one at a time, blocking for up to
 * parse.pdf_timeout_s - into out (pdf_doc_init'ed by the caller); and
 * parse_page_read is parse_page with that answer (read, or NULL: asked
 * here), whose contents it takes over (read is left empty).
 */
int parse_wants_pdf(const struct job *j, const struct fetch_record *f,
		    const unsigned char *body, size_t blen);
struct pdf_doc;
void parse_pdf_read(const struct job *j, const unsigned char *head, size_t hlen,
		    const unsigned char *body, size_t blen, struct pdf_doc *out);
int parse_page_read(const struct job *j, const struct fetch_record *f,
		    const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
		    struct buf *out, uint64_t *c, struct parse_kept *keep, struct pdf_doc *read);

/*
 * An HTML page as parsing keeps it, the one reading of a page that the parse
 * record, the text and the link graph share: the Content-Encoding undone (up
 * to fetch.max_decoded_bytes), read with charset (NULL or "": detected),
 * X-Robots-Tag and meta robots applied (nofollow keeps no link), the links
 * cut to what a record holds. *flags gets enum parse_flag bits. 1 if page
 * was filled (release it with html_page_release), 0 if the body could not be
 * decoded or parsed (counted in c, PC_COUNT_ long). meta: NULL, or an
 * initialised htmlmeta that gets what the markup says (htmlmeta.h). cut: the
 * body was cut short (fetch.max_body_bytes; status truncated, WARC-Truncated):
 * it is read up to parse_cut_tag, as is a decoding fetch.max_decoded_bytes
 * cut.
 */
struct htmlmeta;
int parse_html(const struct job *j, const char *url, const char *charset,
	       const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
	       int cut, struct html_page *page, uint32_t *flags, uint64_t *c,
	       struct htmlmeta *meta);

/*
 * Any document as parsing keeps it: an HTML page (parse_html), a PDF (read
 * by the PDF worker, parse.pdf) or a plain text, by doc_kind(mime, body)
 * (parse/doc.h), its Content-Encoding undone and X-Robots-Tag applied the
 * same way. 1 if page was filled, 0 if not (another type, or it could not
 * be read; counted in c). pdf: NULL, or initialised and given the PDF's
 * metadata and fate (its reason, when it could not be read).
 */
int parse_doc(const struct job *j, const char *url, const char *mime, const char *charset,
	      const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
	      int cut, struct html_page *page, uint32_t *flags, uint64_t *c,
	      struct htmlmeta *meta, struct pdf_doc *pdf);

/* The length of a cut body to read: a tag the cut ended in is left out (up
 * to its '<'), since a link cut short names another URL ("http://h:46503/"
 * cut as "http://h:465"). n if the body ends outside a tag. Pure. */
size_t parse_cut_tag(const unsigned char *body, size_t n);

#endif

/*
 * pdf.h - what a PDF says, read with poppler's C interface (poppler-glib):
 * its text, page by page, its document information (title, author, ...,
 * dates, page count, version, whether it is encrypted) and the URIs of its
 * link annotations.
 *
 * PDFs are hostile input and poppler is a large C++ library: pdf_extract is
 * only ever called inside the PDF worker (pdfworker.h), a process of its
 * own under CPU-time, address-space and file-size limits; a rank never
 * calls it. Everything else here (the fates, struct pdf_doc, packing) is
 * plain data the rank and the worker share.
 *
 * The text is UTF-8, one line per line poppler finds (a word broken by a
 * hyphen at a line's end and a lower-case letter starting the next is
 * joined, as pdftotext joins it), blanks collapsed to one space within a
 * line, no empty line, none at either end - the shape of
 * an HTML page's text (html.h), so that the WET record, the language, the
 * digest and MinHash read it the same way.
 */
#ifndef CR_PARSE_PDF_H
#define CR_PARSE_PDF_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* What became of one PDF: its reason ("pdf:timeout") is what the CrawlDb
 * and the metadata record keep when it is not PDF_OK. Numbered for the
 * worker's replies; never renumbered. */
enum pdf_fate {
	PDF_OK = 0,          /* read (perhaps only its first pages, or cut text) */
	PDF_ENCRYPTED = 1,   /* needs a password: no text */
	PDF_MALFORMED = 2,   /* poppler could not read it (a truncated one, say) */
	PDF_TOO_LARGE = 3,   /* over parse.pdf_max_bytes: not parsed */
	PDF_TIMEOUT = 4,     /* over parse.pdf_timeout_s of CPU or wall time */
	PDF_CRASH = 5,       /* the worker died (a signal) or answered garbage */
	PDF_MEMORY = 6,      /* the worker died at its address-space limit */
	PDF_NO_WORKER = 7,   /* the worker could not be started */
	PDF_FATES_
};

/* The reason of a fate ("pdf:encrypted", ...); "" for PDF_OK. */
const char *pdf_fate_reason(enum pdf_fate f);

/* Caps on what one extraction returns (the worker's output limit). */
struct pdf_limits {
	uint32_t max_pages;   /* pages whose text and links are read */
	size_t max_text;      /* bytes of text; the rest is cut */
	uint32_t max_links;   /* URIs kept */
};

/* The longest metadata string kept (bytes, a UTF-8 sequence is not cut). */
#define PDF_FIELD_MAX 1024
/* The longest link URI kept; longer ones are dropped. */
#define PDF_URI_MAX 8192
/* The most bytes of a link's anchor text (a UTF-8 sequence is not cut). */
#define PDF_ANCHOR_MAX 256

enum pdf_field {
	PDF_TITLE, PDF_AUTHOR, PDF_SUBJECT, PDF_KEYWORDS, PDF_CREATOR, PDF_PRODUCER,
	PDF_FIELDS_
};

/* The names of the fields as the metadata record and the WAT write them
 * ("Title", "Author", ...). */
extern const char *const pdf_field_names[PDF_FIELDS_];

struct pdf_doc {
	enum pdf_fate fate;
	int read;                   /* 1: the worker was asked (fate is its answer) */
	char *field[PDF_FIELDS_];   /* UTF-8, owned; NULL when the PDF has none */
	int64_t created;            /* seconds since the epoch; 0: not said */
	int64_t modified;
	uint32_t pages;             /* the page count */
	uint32_t pages_read;        /* of these, read (parse.pdf_max_pages) */
	char version[16];           /* "1.5"; "" unknown */
	int encrypted;              /* 1: the file is encrypted (perhaps readable) */
	int text_cut;               /* 1: the text was cut at max_text */
	struct buf text;            /* see above */
	char **links;               /* URIs as the annotations give them, owned */
	char **anchors;             /* each link's anchor text: the words under
				       its rectangle, blanks collapsed, at most
				       PDF_ANCHOR_MAX bytes, "" for none; owned */
	uint32_t nlinks;
};

void pdf_doc_init(struct pdf_doc *d);
/* Frees what d owns and zeroes it; accepts NULL. */
void pdf_doc_release(struct pdf_doc *d);
/* Adds a link (copies uri, and its anchor text a[0..an) - blanks, control
 * bytes and invalid UTF-8 collapsed to one space, cut at PDF_ANCHOR_MAX);
 * 0 if max_links are there already or uri is empty, holds a NUL or is
 * longer than PDF_URI_MAX. */
int pdf_doc_add_link(struct pdf_doc *d, const char *uri, size_t n, const char *a, size_t an,
		     uint32_t max_links);
/* Appends a page's text s[0..n) to d->text in the shape above, up to
 * max_text bytes in all (d->text_cut set when it stops short); invalid
 * UTF-8 and control bytes become spaces. Pure. */
void pdf_doc_add_text(struct pdf_doc *d, const char *s, size_t n, size_t max_text);

/*
 * Reads the PDF data[0..len) (borrowed for the call) into out (initialised
 * by the caller): its fate, and when it can be opened its document
 * information and, for up to lim->max_pages pages, text and link URIs. A
 * PDF that needs a password is PDF_ENCRYPTED, one poppler cannot open
 * PDF_MALFORMED. Run only in the worker (see above).
 */
void pdf_extract(const void *data, size_t len, const struct pdf_limits *lim,
		 struct pdf_doc *out);

#endif

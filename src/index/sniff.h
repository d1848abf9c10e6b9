/*
 * sniff.h - the media type of a response's payload as its bytes show it,
 * not as its Content-Type claims: Common Crawl's CDXJ "mime-detected".
 *
 * Two steps, over the first SNIFF_BYTES of the payload with its content
 * coding undone (a gzip-coded HTML page is text/html, not
 * application/gzip):
 *
 *  1. sniff_table: the WHATWG MIME Sniffing standard's rules for
 *     identifying an unknown type, as a browser applies them to a response
 *     without a Content-Type - HTML by its first tag (after blanks), XML,
 *     PDF, PostScript, a byte order mark, the image, audio/video, font and
 *     archive signatures - and otherwise text/plain when no byte is binary,
 *     application/octet-stream when one is. Pure, a few comparisons: what
 *     most pages and requisites meet.
 *  2. What the table calls application/octet-stream or application/zip
 *     (binary it does not name: MP4, WebM, office documents in a ZIP...)
 *     libmagic (Debian's libmagic-dev, the `file` command's library) names
 *     from its database, when it can. It costs some 150 µs a call, against
 *     about 1 µs for the table, so it reads only these.
 *
 * The libmagic database is loaded once a process, on first need; if it
 * cannot be, the table's answer stands (logged once). For the binary types
 * only the database names, the answer is that database's: nodes with
 * another libmagic version (or a MAGIC variable naming another database)
 * may name them otherwise - the fetcher's CDXJ and a later `mpicrawl index`
 * on another machine can then differ there. Not thread-safe; nothing here
 * is collective.
 */
#ifndef CR_INDEX_SNIFF_H
#define CR_INDEX_SNIFF_H

#include <stddef.h>

#define SNIFF_BYTES 1445   /* the standard's resource header: 1445 bytes */

/* The WHATWG rules over p[0..n) (n is cut to SNIFF_BYTES): a static string,
 * "" when n is 0. */
const char *sniff_table(const unsigned char *p, size_t n);

/*
 * The detected type of the body (blen bytes, as stored) of a response
 * whose HTTP head is head (hlen bytes: its Content-Encoding is read), into
 * out ("" when nothing was detected: an empty body, a coding that cannot
 * be undone). E.g. "text/html", "image/png", "video/mp4".
 */
void sniff_mime(const void *head, size_t hlen, const void *body, size_t blen, char *out,
		size_t cap);

#endif

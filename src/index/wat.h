/*
 * wat.h - WAT files: the metadata of every record of a WARC file as JSON,
 * in the structure Common Crawl's WAT files have, so that tools written for
 * theirs (web-graph builders, link and metadata studies) read ours.
 *
 *   segments/NNNNN/wat/<WARC file name>.wat.gz   (NAME.warc.gz ->
 *                                                  NAME.warc.wat.gz)
 *
 * A WAT file is itself a WARC file (gzip member per record): its warcinfo,
 * then per record of the WARC file one 'metadata' record, Content-Type
 * application/json, WARC-Refers-To the record's ID, WARC-Target-URI its
 * target (a warcinfo's: the WARC file's name), WARC-Date its date. The JSON:
 *
 *   {"Container": {Filename, Compressed, Offset, Gzip-Metadata},
 *    "Envelope": {Format, WARC-Header-Length, Block-Digest,
 *      Actual-Content-Length, WARC-Header-Metadata: {the WARC header},
 *      Payload-Metadata: {Actual-Content-Type, and one of
 *        HTTP-Response-Metadata: {Response-Message{Version, Status, Reason},
 *          Headers-Length, Headers, Entity-Length, Entity-Digest,
 *          Entity-Trailing-Slop-Length,
 *          HTML-Metadata: {Head: {Title, Base, Metas, Link, Scripts},
 *                          Links: [{path, url, text, rel, ...}]},
 *          or PDF-Metadata: {Title, Author, Subject, Keywords, Creator,
 *                          Producer, Created, Modified, Pages, Version,
 *                          Encrypted, Error, Links: [{url}]}},
 *        HTTP-Request-Metadata: {Request-Message{Method, Path, Version}, ...},
 *        WARC-Info-Metadata: {the warcinfo's fields},
 *        WARC-Metadata-Metadata: {Metadata-Records: [{Name, Value}]}}}}
 *
 * Numbers are JSON strings, as Common Crawl writes them; a header named
 * more than once is a list of its values in order. HTML-Metadata is read
 * from HTML responses (text/html, application/xhtml+xml) with their content
 * coding undone, by the same parse as the pages' text (parse.h); its URLs
 * are as written in the page (htmlmeta.h). PDF-Metadata is read from PDF
 * responses (parse/doc.h) by the PDF worker, with parse.pdf; its link URIs
 * are as the annotations give them. Digests are computed, SHA-1 in
 * base32 as the WARC's own.
 *
 * WAT files are written by the index step when index.wat is on, reading
 * each WARC file back (the pages' HTML parsed a second time). Nothing here
 * is collective.
 */
#ifndef CR_INDEX_WAT_H
#define CR_INDEX_WAT_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "parse/html.h"
#include "parse/htmlmeta.h"
#include "parse/pdf.h"
#include "util/buf.h"
#include "util/error.h"
#include "warc/warc.h"

enum wat_container { WAT_PLAIN = 0, WAT_GZIP, WAT_ZSTD };

/* One record as the WAT describes it; everything borrowed. */
struct wat_source {
	const char *filename;              /* the WARC file's name */
	enum wat_container comp;
	const struct warc_record *rec;
	const struct html_page *page;      /* an HTML response that parsed, or NULL */
	const struct htmlmeta *meta;      /* with page */
	const struct pdf_doc *pdf;        /* a PDF response as the worker read it
					     (parse/doc.h), or NULL */
};

/* The record's WAT JSON, appended to out (one line, no newline). */
void wat_json(const struct wat_source *s, struct buf *out);

/* The WAT file name of WARC file name ("X.warc.gz" / "X.warc.zst" ->
 * "X.warc.wat.gz"), into out. */
void wat_name(const char *warc_name, char *out, size_t cap);

/* Where a record's WAT record went: the offset of the record in its WARC
 * file, and the offset and length of the WAT record's gzip member. */
struct wat_place {
	uint64_t warc_offset, wat_offset, wat_length;
};

/* Writes the WAT file of WARC file name of segment seg (under a temporary
 * name, renamed when whole); *records gets how many records it describes,
 * places (when not NULL) one struct wat_place per record, in the order of
 * the WARC file. CR_ERR_IO / CR_ERR_FORMAT (logged with the file's name) if
 * the WARC file cannot be read or the WAT file written. */
CR_WUR enum cr_err wat_write_file(const struct job *j, int seg, const char *name,
				  uint64_t *records, struct buf *places);

#endif

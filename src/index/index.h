/*
 * index.h - what researchers read besides the WARC files, written per
 * segment after the round's update (so that duplicates are known):
 *
 *   segments/NNNNN/cdxj/<warc file>.cdxj     a CDXJ index of each WARC file,
 *                                             sorted, as pywb and warcio write it
 *   segments/NNNNN/text/mpicrawl-NNNNN-PPPPP.warc.wet.gz   extracted text as
 *                                             WARC conversion records (WET)
 *                  (or .jsonl.gz with text.format = jsonl)
 *   segments/NNNNN/links/part-PPPPP.tsv.zst  the link graph: source, target
 *
 * What the fetcher staged while it held each page (stage.h: CDXJ lines,
 * text, links) is used where it is whole; other WARC files are read back
 * (the pages as stored, read as the fetcher reads them, parse_html), so
 * both give the same bytes. Which pages are duplicates, of what, comes
 * from the CrawlDb version the update wrote. Each rank does its own partitions; nothing here is
 * collective and nothing touches MPI. Files are written under a temporary
 * name and renamed, so a rerun replaces them whole.
 */
#ifndef CR_INDEX_INDEX_H
#define CR_INDEX_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/error.h"

enum index_counter {
	IX_WARC_FILES,      /* WARC files indexed */
	IX_CDXJ_LINES,      /* CDXJ lines written */
	IX_TEXT_DOCS,       /* pages with extracted text */
	IX_TEXT_DUPLICATES, /* of these, near-duplicates (flagged) */
	IX_TEXT_LANG,       /* of these, with a detected language */
	IX_LINKS,           /* link graph edges */
	IX_PARSE_FAILED,    /* 2xx HTML pages that did not parse */
	IX_STAGED_FILES,    /* WARC files indexed from what the fetcher staged */
	IX_WAT_RECORDS,     /* records described in WAT files (index.wat) */
	IX_COUNT_
};

extern const char *const index_counter_names[IX_COUNT_];

/*
 * Writes the CDXJ, text and link files of segment seg for the partitions
 * rank owns; crawldb_version is the version the segment's update made (0:
 * none, no duplicates flagged). use_staged: WARC files the fetcher staged
 * their records for (stage.h) are indexed from those, the others read
 * back; 0 reads every WARC file back. Adds to c[IX_COUNT_]. CR_ERR_IO or
 * CR_ERR_FORMAT (logged with the file's name) if a file cannot be read or
 * written.
 */
CR_WUR enum cr_err index_segment(const struct job *j, int seg, int crawldb_version,
				 int use_staged, uint64_t *c);

/* 1 if file, found in the segment's folder sub ("cdxj" or "wat"), is the
 * output of none of the WARC files names[0..n) (a WARC file that is gone),
 * or is a WAT file while wat_on (index.wat) is 0: an earlier index left it,
 * and the index writing the segment again removes it. A file under a
 * temporary name (".tmp.") or of another folder is never stale. Pure. */
int index_output_stale(const char *sub, const char *file, char *const *names, size_t n,
		       int wat_on);

/* What a response's CDXJ line says beyond warcio's fields, as Common
 * Crawl's index says it: the media type its payload's bytes show
 * (sniff.h; the caller sets it), the charset of its Content-Type, where a
 * redirect points (its Location resolved against the URL), why it was
 * truncated (WARC-Truncated); "" each when none. */
struct index_cdxj_extra {
	char mime_detected[128];
	char charset[64];
	char redirect[URL_MAX_LEN + 1];
	char truncated[32];
};

/* The extras of a response of uri: head (head_len bytes, the status line
 * and headers), its status, its WARC-Truncated reason (NULL: none). */
void index_cdxj_extras(const char *uri, const void *head, size_t head_len, int status,
		       const char *truncated, struct index_cdxj_extra *e);

/* The CDXJ line of a WARC record, as warcio's and pywb's indexers write
 * it: SURT key, 14-digit time stamp, JSON (url, mime, status, digest
 * without its algorithm, length, offset, filename), then Common Crawl's
 * mime-detected, charset, truncated and redirect when e has them (NULL:
 * none); fname is
 * the WARC file's path from the crawl directory
 * (segments/NNNNN/warc/NAME: index_cdxj_filename). Appended to b. The
 * page's languages join later (index step, "languages"). */
void index_cdxj_line(struct buf *b, const char *uri, const char *date, const char *mime,
		     int status, const char *digest, uint64_t length, uint64_t offset,
		     const char *fname, const struct index_cdxj_extra *e);

/* The CDXJ filename of WARC file name of segment seg. */
void index_cdxj_filename(int seg, const char *name, char *out, size_t cap);

/*
 * The CDXJ mime and status of a WARC record of type with Content-Type ct
 * and block: a response's HTTP Content-Type (without parameters), a
 * revisit's "warc/revisit", another record's ct; the HTTP status of a
 * response or revisit (else 0) and *head the length of its HTTP head.
 * 1 if the block's HTTP head was read.
 */
int index_record_facts(const char *type, const char *ct, const unsigned char *block,
		       size_t len, char *mime, size_t cap, int *status, size_t *head);

#endif

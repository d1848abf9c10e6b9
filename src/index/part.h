/*
 * part.h - indexing one partition of a segment, private to src/index/: the
 * state index.c (the driver: staged or re-read WARC files, CDXJ) and
 * text.c (text, link graph, pages) share.
 */
#ifndef CR_INDEX_PART_H
#define CR_INDEX_PART_H

#include <limits.h>
#include <stdint.h>
#include <zlib.h>

#include "crawldb/job.h"
#include "index/stage.h"
#include "index/zw.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "warc/warc.h"

#define INDEX_URI_MAX 8192
#define INDEX_STREAMS_MAX 64      /* staged series of a partition (4 a fetch attempt) */

struct stream;

/* A WARC file's CDXJ lines, collected to be sorted. */
struct lines {
	char **v;
	size_t n, cap;
};

struct part_ix {
	const struct job *j;
	int seg;
	/* What is indexed at once: the WARC files of one rank of the fetch
	 * (PREFIX-NNNNN-rRRRR...), or of one partition in an older crawl's
	 * names (PREFIX-NNNNN-PPPPP...) - crawldb/layout.h's layout_warc_unit */
	uint32_t unit;
	int by_rank;
	int ver;                   /* the CrawlDb version that names duplicates */
	unsigned char *dups_loaded;   /* per partition: its duplicates read */
	int use_staged;            /* take what the fetcher staged where it can */
	int stage_bad;             /* a staged file was damaged: read back */
	struct stream *streams;    /* INDEX_STREAMS_MAX */
	size_t nstreams;
	struct buf packed;
	struct hmap dups;          /* URL -> representative URL (strdup), of the
				      partitions read so far (index_dup_of) */
	struct warc_writer *wet;   /* text.format = wet */
	gzFile jsonl;              /* text.format = jsonl */
	char text_path[PATH_MAX], text_tmp[PATH_MAX + 32];
	struct zw links;
	struct buf pages;          /* pages/PREFIX-NNNNN-PPPPP.pages.jsonl, written whole
				      at the end */
	struct lines *cdxj;        /* the current WARC file's CDXJ lines */
	struct buf wat;            /* its records' WAT places (struct wat_place), or empty */
	char wat_name[300];
	struct buf body;           /* a page's text, text.boilerplate applied */
	struct buf marks;          /* ... its boilerplate lines' numbers (mark): "2,3" */
	uint64_t *c;
	struct buf line, text, fields;
};

/* The page url a near-duplicate of (*rep, borrowed), or *rep NULL: its
 * partition's duplicates read from the CrawlDb the first time one of its
 * URLs is asked about. */
CR_WUR enum cr_err index_dup_of(struct part_ix *x, const char *url, const char **rep);

/* The path of the unit's file in folder sub of the segment, named as its
 * WARC files are - PREFIX-NNNNN-rRRRR.EXT (PREFIX-NNNNN-PPPPP.EXT for an
 * older crawl's partition) - so that the files of two crawls never share a
 * name (the older part-PPPPP.EXT: old, "" for none). */
void text_part_path(const struct part_ix *x, const char *sub, const char *ext, char *out,
		    size_t cap, char *old, size_t old_cap);
/* A page's text, links and pages/ line, and its CDXJ line's fields. */
CR_WUR enum cr_err text_page_out(struct part_ix *x, const struct index_stage_page *pg);
/* The same for a response read back from its WARC file (parsed again). */
CR_WUR enum cr_err text_page_from_warc(struct part_ix *x, const struct warc_record *rec,
				       const char *uri, const char *date, size_t head);
/* Writes pages/PREFIX-NNNNN-PPPPP.pages.jsonl whole. */
CR_WUR enum cr_err text_pages_write(struct part_ix *x);
/* Closes the text file (renamed into place when e is CR_OK, else removed)
 * and, after a success, removes the text the other formats left. Returns
 * the first error, e's first. */
CR_WUR enum cr_err text_close(struct part_ix *x, enum cr_err e);

#endif

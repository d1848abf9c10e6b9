/*
 * recfile.h - the record files of the crawl directory (CrawlDb parts, fetch
 * lists, fetch outcomes, parse data, sort runs).
 *
 * A record file is a 16-byte header (magic "MPCRREC1", the record kind, a
 * reserved word) followed by one zstd frame (with zstd's content checksum)
 * holding the records, each as varint(len + 1) and len bytes, and a trailer:
 * varint 0, the record count and the XXH64 of every byte before the trailer,
 * both u64 little-endian. A file that ends before its trailer, or whose count
 * or checksum disagree, is reported by name as damaged, never read as data.
 *
 * A writer writes "<path>.tmp.<pid>" and commits by rename: a committed file
 * is always whole.
 */
#ifndef CR_STORE_RECFILE_H
#define CR_STORE_RECFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum rec_kind {
	REC_KIND_CRAWLDB = 1,
	REC_KIND_FETCHLIST = 2,
	REC_KIND_FETCH = 3,
	REC_KIND_PARSE = 4,
	REC_KIND_LINK = 5,
	REC_KIND_ROBOTS = 6,
	REC_KIND_SORT = 7,
	REC_KIND_SEEDS = 8,
	REC_KIND_STAGE = 9,     /* index/stage.h */
	REC_KIND_RUNS = 10,     /* the runs of a near-duplicate store (dedup/runs.h) */
	REC_KIND_RANK = 11,     /* rank/part-PPPPP.zst (rank/rank.h) */
};

/* The largest record a reader accepts (a page's parse data with text). */
#define REC_MAX_BYTES (64u << 20)

struct recfile_writer;

/* Opens a writer for path; nothing is visible at path until commit. */
CR_WUR enum cr_err recfile_writer_open(const char *path, enum rec_kind kind,
				   int level, struct recfile_writer **out);
/* Appends one record; copies data. n must be <= REC_MAX_BYTES. */
CR_WUR enum cr_err recfile_writer_add(struct recfile_writer *w, const void *data, size_t n);
uint64_t recfile_writer_count(const struct recfile_writer *w);
/* Finishes, fsyncs and renames into place; frees *w (set to NULL) in all cases. */
CR_WUR enum cr_err recfile_writer_commit(struct recfile_writer **w);
/* Drops the temporary file; frees *w. Accepts NULL. */
void recfile_writer_abort(struct recfile_writer **w);

struct recfile_reader;

/* Opens path, checks its header. A path that is not there is looked for
 * in its folder's packs (pack.h), as a member. CR_ERR_IO if it cannot be
 * opened. */
CR_WUR enum cr_err recfile_reader_open(const char *path, enum rec_kind kind,
				   struct recfile_reader **out);
/* Next record, borrowed until the next call: CR_OK, CR_EOF after a verified
 * trailer, CR_ERR_FORMAT for a damaged file (logged with the file name). */
CR_WUR enum cr_err recfile_reader_next(struct recfile_reader *r, const void **data, size_t *n);
void recfile_reader_free(struct recfile_reader **r);
/* 1 if path is there, as a file or as a member of one of its folder's packs
 * - or may be: a damaged pack that could hold it counts (reading it then
 * fails and says so). */
int recfile_exists(const char *path);

/*
 * A quick look at a committed file, without reading its records: the header
 * of kind, then exactly one zstd frame to the end of the file (its block
 * headers walked, not its data). Catches a file cut short, overwritten or
 * with bytes after its end; a flipped bit inside is found by a full read.
 * A packed member is probed in its pack.
 * CR_OK, CR_ERR_IO (cannot be opened: *why "missing"), or CR_ERR_FORMAT
 * (*why says what is wrong). Logs nothing.
 */
CR_WUR enum cr_err recfile_probe(const char *path, enum rec_kind kind, const char **why);

#endif

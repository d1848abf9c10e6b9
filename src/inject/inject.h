/*
 * inject.h - adding seed URLs to the CrawlDb.
 *
 * A seed file has one URL per line (UTF-8; a byte order mark at its start
 * is skipped); blank lines and lines starting with '#' are skipped. Rank r
 * canonicalises the lines i with i % n == r and routes them to their owners
 * (route.h); each owner merges them into its CrawlDb parts as a new
 * version. Invalid lines are counted, and the first few are logged with
 * their line number; they never stop the inject.
 *
 * The ranks do not read the user's seed file: it may exist only on the node
 * the job was started from. Rank 0 copies it into the crawl directory
 * (provenance/seeds-*.txt, provenance.h), which every node shares, and the
 * ranks read that copy, a line at a time: memory does not grow with the
 * file, however large, and no rank holds another's lines.
 *
 * inject_run is collective. The caller commits the new version (CURRENT)
 * once all ranks agree.
 */
#ifndef CR_INJECT_INJECT_H
#define CR_INJECT_INJECT_H

#include <stdint.h>

#include "crawldb/job.h"
#include "update/merge.h"
#include "util/error.h"

enum inject_counter {
	IC_LINES,
	IC_VALID,
	IC_INVALID,
	IC_REFUSED,     /* refused by a rule of scope.rules */
	IC_ADDED,       /* new to the CrawlDb */
	IC_RECORDS,     /* in the new version */
	IC_COUNT_
};

extern const char *const inject_counter_names[IC_COUNT_];

/*
 * Whether the seed file at path holds a valid seed: reads up to the first
 * one (CR_OK) or to the end (CR_EOF: none). *lines and *invalid count what
 * was read; first gets "line N: why" of the first bad one. CR_ERR_IO if it
 * cannot be read. Not collective.
 */
CR_WUR enum cr_err inject_check(const char *path, uint64_t *lines, uint64_t *invalid,
				 char *first, size_t cap);

/* The seed file of an inject: path, the copy every rank reads (in the crawl
 * directory); name, the file the user gave, which messages name. */
struct inject_seeds {
	const char *path;
	const char *name;
};

/* Writes CrawlDb version ver + 1 of this rank's partitions. */
CR_WUR enum cr_err inject_run(struct job *j, const struct inject_seeds *seeds, int ver,
			      uint64_t *counters);

#endif

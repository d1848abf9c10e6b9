/*
 * inject.h - adding seed URLs to the CrawlDb.
 *
 * A seed file has one URL per line; blank lines and lines starting with '#'
 * are skipped. Rank r canonicalises the lines i with i % n == r and routes
 * them to their owners (route.h); each owner merges them into its CrawlDb
 * parts as a new version. Invalid lines are counted, and the first few are
 * logged with their line number; they never stop the inject.
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
	IC_ADDED,       /* new to the CrawlDb */
	IC_RECORDS,     /* in the new version */
	IC_COUNT_
};

extern const char *const inject_counter_names[IC_COUNT_];

/* Writes CrawlDb version ver + 1 of this rank's partitions. */
CR_WUR enum cr_err inject_run(struct job *j, const char *seeds, int ver, uint64_t *counters);

#endif

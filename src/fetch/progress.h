/*
 * progress.h - the live progress of the fetch phase.
 *
 * Each rank writes its progress file, segments/N/progress/rRRRR
 * (status/progfile.h; docs/FORMATS.md), every progress.interval_ms: its
 * counters, hosts and slowest hosts, through a temporary name and a rename.
 * Rank 0 adds up the files of all ranks (status/estimate.h) and prints one
 * line: URLs done of the round's total - every rank counted, those not
 * reported yet by what generate selected -, requests and their rate,
 * bytes, errors, hosts, ranks reporting and the time to go. Files rather
 * than messages, so that no rank ever waits for another to report, and
 * `mpicrawl status` reads the same files from any node.
 */
#ifndef CR_FETCH_PROGRESS_H
#define CR_FETCH_PROGRESS_H

#include <stdint.h>

#include "crawldb/job.h"
#include "fetch/hosts.h"

/* Samples kept for the recent rate: one a write, the oldest dropped. */
#define PROGRESS_RING 16

struct progress {
	const struct job *j;
	int seg;
	const char *phase;
	int ok;                 /* its folder exists and writes succeed */
	int64_t start_us, last_us;
	uint64_t selected;      /* rank 0: the URLs generate selected (0: unknown) */
	uint64_t kept;          /* outcomes an earlier attempt finished (the
				   fetcher sets it once its queues are loaded) */
	int64_t ring_us[PROGRESS_RING];
	uint64_t ring_req[PROGRESS_RING];
	int nring, ring_at;
};

enum { PROGRESS_FORCE = 1, PROGRESS_FINAL = 2 };

void progress_init(struct progress *p, const struct job *j, int seg, const char *phase);
/* counters: the fetcher's FC_COUNT_ counters; hosts: its host table (NULL:
 * none left). flags: PROGRESS_FORCE writes now; PROGRESS_FINAL marks the
 * rank's phase over (and writes). */
void progress_tick(struct progress *p, const uint64_t *counters,
		   const struct host_table *hosts, int flags);
void progress_release(struct progress *p);

#endif

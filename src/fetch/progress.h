/*
 * progress.h - the live progress line of the fetch phase.
 *
 * Each rank writes its counters to segments/N/progress/rNNNN every
 * progress.interval_ms (a small file replaced by rename); rank 0 adds up the
 * files of all ranks and prints one line: pages, pages/s, bytes, errors,
 * hosts still active. Files rather than messages, so that no rank ever waits
 * for another to report.
 */
#ifndef CR_FETCH_PROGRESS_H
#define CR_FETCH_PROGRESS_H

#include <stdint.h>

#include "crawldb/job.h"

struct progress {
	const struct job *j;
	int seg;
	const char *phase;
	int ok;                 /* its folder exists and writes succeed */
	int64_t start_us, last_us;
};

void progress_init(struct progress *p, const struct job *j, int seg, const char *phase);
/* counters: the fetcher's FC_COUNT_ counters; final forces a write. */
void progress_tick(struct progress *p, const uint64_t *counters, uint64_t hosts_left,
		   int final);
void progress_release(struct progress *p);

#endif

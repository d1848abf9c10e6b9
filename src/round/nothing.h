/*
 * nothing.h - when a round has nothing to do, the crawl says why: a
 * generate that selected nothing (the crawl complete, or hosts that asked
 * for a pause, or URLs waiting to be tried again), and a crawl that fetched
 * nothing (the most common outcomes of its URLs, each with what a user does
 * about it). Collective where marked.
 */
#ifndef CR_ROUND_NOTHING_H
#define CR_ROUND_NOTHING_H

#include <stdint.h>

#include "crawldb/job.h"

/* What a generate made, over all ranks: its segment, the URLs selected,
 * the due URLs of hosts that asked for a pause (held), the URLs not due
 * that wait to be tried again (retry), and the due URLs a cached
 * robots.txt denies (denied: recorded, not selected). */
struct round_generated {
	int seg;
	uint64_t selected, held, retry, denied;
	uint64_t seed_capped;   /* due, held back by their seed's max_pages */
};

/* 1 if a generate found nothing to do: nothing selected, nothing denied. */
int round_nothing_generated(const struct round_generated *g);
/* After a round_generate that found nothing to do: removes its segment
 * (rank 0) and says why nothing is due. Collective. */
void round_nothing_due(struct job *j, const struct round_generated *g);
/* Logs why nothing was fetched: the CrawlDb's most common status and
 * reason pairs (rank 0 reads; at most a million records). */
void round_explain_nothing_fetched(struct job *j);

#endif

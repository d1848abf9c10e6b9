/*
 * fetch.h - the fetch phase of a round.
 *
 * Each rank loads the fetch lists of its partitions into per-host queues and
 * runs one event loop: libcurl's multi interface for HTTP, c-ares (dns.h)
 * for names, a heap of hosts ordered by the time politeness lets them start
 * next (sched.h), robots.txt fetched - or taken from the cache of earlier
 * rounds - before any other URL of its origin. Responses go to WARC files,
 * one outcome per URL to segments/N/fetch/part-P.zst. URLs not reached when
 * fetch.time_limit_s ends the phase get no outcome and stay due.
 *
 * fetch_run is collective: every rank must call it.
 */
#ifndef CR_FETCH_FETCH_H
#define CR_FETCH_FETCH_H

#include "crawldb/job.h"
#include "fetch/counters.h"
#include "util/error.h"


/* version: the CrawlDb version the segment was generated from (its
 * seen-sets decide which links are new: frontier.h). counters (FC_COUNT_)
 * receive this rank's counts; with fetch.parse the segment's parse data is
 * written too, and parse_counters (PC_COUNT_) receive the parse phase's
 * counts. */
CR_WUR enum cr_err fetch_run(struct job *j, int seg, int version, uint64_t *counters,
			     uint64_t *parse_counters);

#endif

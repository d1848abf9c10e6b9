/*
 * carry.h - what one fetch phase hands the next through the robots cache,
 * per origin: when its host may next be asked (the end of its last request,
 * a hold it asked for), the Crawl-delay of its robots.txt, and its host's
 * DNS answer with its expiry. Politeness does not restart with a phase, and
 * a host is resolved once per TTL, not once per round.
 *
 * The cache keeps wall times; the fetcher's loop runs on the monotonic
 * clock: both clocks are passed in, read once by the caller.
 */
#ifndef CR_FETCH_CARRY_H
#define CR_FETCH_CARRY_H

#include <stdint.h>

#include "fetch/dns.h"
#include "fetch/origins.h"

/* After origins_load: every origin's carried timing and Crawl-delay bind
 * its host's first request, and its DNS answer, while it lasts and if it
 * was had since the job's configuration took effect (since, wall µs: job.h
 * config_since_us), goes into the resolver's cache. Returns how many
 * origins have their robots.txt rules from the cache. */
uint64_t carry_in(struct origin_table *t, struct dns *d, int64_t wall, int64_t mono,
		  int64_t since);

/* The same for the origins made after the load (origins_load_late): their
 * cache entries loaded, then carried in. CR_ERR_* if the cache could not be
 * read. */
CR_WUR enum cr_err carry_in_late(struct origin_table *t, struct dns *d, int64_t wall,
				 int64_t mono, int64_t since);

/* Before origins_write: each origin gets the timing its host leaves
 * (sched_carry_out) and its host's DNS answer as the resolver holds it. */
void carry_out(struct origin_table *t, struct dns *d, int64_t wall, int64_t mono);

#endif

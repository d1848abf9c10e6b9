/*
 * origins.h - the origins of a fetch phase's URLs (robots/origin.h, one per
 * scheme://authority) and the robots cache they are read from and written
 * back to (robots/NNNNN/part-P.zst, robots/cache.h).
 *
 * Only the origins of this phase's fetch lists are loaded from the cache of
 * earlier phases; the other entries are copied from the old file to the new
 * one as they are, so memory grows with the round, not with every host ever
 * seen. Entries older than ORIGINS_KEEP_TTLS robots.cache_ttl_s are
 * dropped: a host not crawled for that long has its robots.txt asked again
 * anyway. Nothing here is collective.
 */
#ifndef CR_FETCH_ORIGINS_H
#define CR_FETCH_ORIGINS_H

#include <stdint.h>

#include "crawldb/job.h"
#include "robots/origin.h"
#include "util/hmap.h"

#define ORIGINS_KEEP_TTLS 4

struct origin_table {
	const struct job *j;
	struct origin_policy pol;
	struct hmap map;          /* key -> struct origin */
	int cache_ver;            /* the robots cache read (0: none) */
	int loaded;               /* origins_mark_loaded was called */
	struct origin **late;     /* origins made since: not loaded yet */
	size_t nlate, late_cap;
};

/* Reads the latest robots cache version now: the phase creates its own
 * before it writes there. */
void origins_init(struct origin_table *t, const struct job *j);
void origins_release(struct origin_table *t);

/* The origin of key (scheme://authority), created on first use. */
struct origin *origins_get(struct origin_table *t, const char *key, uint32_t part);

/* Loads the cache entries of partition p for the origins known now (after
 * the fetch lists). now: wall µs. */
CR_WUR enum cr_err origins_load(struct origin_table *t, uint32_t p, int64_t now);

/* After the fetch lists' origins are loaded: origins made from now on (a
 * requisite another rank hands over, a link a resumed fetch queues again)
 * are noted as late. */
void origins_mark_loaded(struct origin_table *t);
/* Loads the cache entries of the late origins, from their partitions' parts
 * (what the cache says binds them as it binds the others: robots.txt, a
 * hold, the last request's end, the DNS answer), calls fn for each (NULL:
 * none), and forgets them. now: wall µs. */
CR_WUR enum cr_err origins_load_late(struct origin_table *t, int64_t now,
				     void (*fn)(void *arg, struct origin *o), void *arg);

/* Calls fn for every origin. */
void origins_each(struct origin_table *t, void (*fn)(void *arg, struct origin *o), void *arg);

/* Writes robots/SEG/part-P.zst for every owned partition: the origins of
 * this phase (each with the politeness it leaves and its host's DNS answer,
 * already in last_end, hold_until and dns: carry_out) and the old entries
 * carried. now: wall µs. */
CR_WUR enum cr_err origins_write(struct origin_table *t, int seg, int64_t now);

#endif

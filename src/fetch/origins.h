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
 * anyway. A robots.txt whose redirect chain the phase's end cut off is
 * written without its answer (its timing only), so the next phase asks it
 * again: the last hop's 3xx would read as "everything allowed". Nothing
 * here is collective.
 *
 * Early robots.txt files (fetch.c, robots.early_max): a host new to the
 * crawl that a page links to has its robots.txt asked in the round that
 * finds the link, so that the next round may fetch its first page at once
 * rather than a delay after the robots.txt. Generate reads the robots cache
 * to plan a round, and which hosts a rank finds first depends on the rank
 * count: so these answers go to files of their own
 * (robots/NNNNN/early-PPPPP.zst, the same entries), which only the fetcher
 * reads. A second table (early = 1) holds the phase's early origins and
 * writes them there, with the earlier early entries no phase used yet;
 * the main table loads an early entry with its origin's main one (the
 * newer answer applies, the later timing binds), and the origin is from
 * then on one of its phase like any other. The main table notes the hosts
 * of the entries it scans (at most ORIGINS_KNOWN_MAX, about 20 MiB of
 * names; past that no host is asked early in the phase), so that only a
 * host no entry names is asked early.
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
	int early;                /* the early table: reads nothing, writes the early files */
	const struct hmap *taken; /* early: the main table's origins, whose old early
				     entries it does not carry (set before writing) */
	struct hmap known;        /* main: the hosts of every entry the loads scanned
				     (name -> the table), when known_on */
	int known_on, known_full; /* noting them; more than ORIGINS_KNOWN_MAX: stopped */
	struct hmap reasons;      /* why robots.txt failed, as answers an earlier attempt
				     journaled say it (the keys: origin.failure's strings) */
};

/* Hosts the main table notes for early robots.txt files, at most. */
#define ORIGINS_KNOWN_MAX (1u << 18)

/* Reads the latest robots cache version now: the phase creates its own
 * before it writes there. */
void origins_init(struct origin_table *t, const struct job *j);
/* The same for the early table (early = 1); main is the phase's. */
void origins_init_early(struct origin_table *t, const struct job *j,
			const struct origin_table *main);
void origins_release(struct origin_table *t);

/* The origin of key (scheme://authority), created on first use. */
struct origin *origins_get(struct origin_table *t, const char *key, uint32_t part);

/* Loads the cache entries of partition p (its main file, then its early
 * file) for the origins known now (after the fetch lists); with known_on,
 * notes the host of every entry scanned. now: wall µs. */
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

/* 1 if an entry the loads scanned is of host name (known_on), or the
 * table stopped noting them. */
int origins_host_known(const struct origin_table *t, const char *name);

/*
 * A robots.txt answer that settled origin o (READY, or UNAVAILABLE with an
 * answer or a failure that is the site's), of the early table (early) or
 * the main one, into out: what the journal keeps (fetch/journal.h, kind
 * JOURNAL_ROBOTS) so that a resumed fetch takes it rather than asking again
 * - and writes it to the robots cache, which generate plans the next round
 * from, whether or not the origin has URLs left. Format: u8 table (0 main,
 * 1 early), the failure and the refusal (origin.h; "" for none) as
 * varint-prefixed strings, then the origin's robots cache record
 * (robots/cache.h) with last_end the answer's time (now: wall µs).
 */
void origins_answer_pack(const struct origin *o, int early, int64_t now, struct buf *out);
/* An answer origins_answer_pack made, of an origin of partition p, into
 * main or early: its origin made there (without a host), the answer taken as
 * a cache entry is (origins_load: the newer answer applies, the later timing
 * binds), with its failure and refusal. now: wall µs. CR_ERR_FORMAT if it
 * does not read. */
CR_WUR enum cr_err origins_restore(struct origin_table *main, struct origin_table *early,
				   uint32_t p, const void *answer, size_t n, int64_t now);

/* Writes robots/SEG/part-P.zst (the early table: early-P.zst) for every
 * owned partition: the origins of this phase that have anything to carry
 * (each with the politeness it leaves and its host's DNS answer, already
 * in last_end, hold_until and dns: carry_out) and the old entries carried
 * (the early table: those of the old early file that neither table holds).
 * now: wall µs. */
CR_WUR enum cr_err origins_write(struct origin_table *t, int seg, int64_t now);

#endif

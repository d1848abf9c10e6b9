/*
 * frontier.h - the links a fetch phase follows inside its round: the
 * fetcher hands in each parsed page, and every link follow.h admits joins
 * its host's queue at once, as a URL of the fetch list would.
 *
 * It owns what the decision needs beyond the page: the seen-sets of the
 * owned partitions (of the CrawlDb version the round was generated from,
 * loaded when first needed, a damaged one rebuilt from its part as update
 * does; a partition without one follows nothing, since every link would
 * look new; it also holds every URL of the fetch lists, generated from
 * that version), the URLs followed in the phase, and the crawl's scope.
 * Nothing here is collective; nothing reads the clock.
 *
 * A followed link is journaled (segout_followed) before the outcome of its
 * page; a resumed fetch hands the ones earlier attempts followed back
 * (frontier_keep) and they are queued again, so an interrupted round
 * fetches what an uninterrupted one would.
 *
 * Life: frontier_init before the fetch lists are read, frontier_keep (and
 * frontier_keep_handoff) for each link an earlier attempt followed (or
 * handed over), frontier_load after the fetch lists, frontier_page per
 * parsed page, frontier_take per requisite handed over, frontier_release.
 */
#ifndef CR_FETCH_FRONTIER_H
#define CR_FETCH_FRONTIER_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "fetch/fetchlist.h"
#include "fetch/follow.h"
#include "fetch/hosts.h"
#include "fetch/segout.h"
#include "scope/scope.h"
#include "seen/bloom.h"
#include "util/hmap.h"

struct frontier {
	const struct job *j;
	int version;               /* the CrawlDb version of the seen-sets */
	int on;                    /* fetch.follow_max > 0, and the scope read */
	struct scope scope;
	struct bloom *seen;        /* per partition */
	uint8_t *seen_state;       /* 0: not loaded, 1: loaded, 2: none to use */
	struct hmap queued;        /* the URLs followed in the phase (those of the fetch
				      lists are in the seen-set) */
	const struct hmap *done;   /* ... and those earlier attempts finished */
	struct buf kept;           /* links earlier attempts followed (frontier_keep) */
	uint64_t embeds;           /* requisites that joined their host's queue */
	struct hmap handed;        /* every requisite to hand over in the phase (URL ->
				      its record and the hand-off it goes out in) */
	unsigned handoff_round;    /* the hand-off those found now go out in (1: the
				      first; handoff.h) */
	/* Called for each link of another origin in an owned partition that
	 * follow_early admits (p: its partition); NULL: none is. */
	void (*early_fn)(void *arg, const char *url, size_t len, uint32_t p);
	void *early_arg;
	/* The same for a link in another rank's partition, which follow_early
	 * admits as far as the page decides (that rank's seen-set decides the
	 * rest: frontier_hint); NULL: none. Called with early_arg. */
	void (*hint_fn)(void *arg, const char *url, size_t len, uint32_t p);
};

/* version: the current CrawlDb version (0: none); done (borrowed for the
 * phase): what earlier attempts at the segment finished, taken as queued.
 * With following off (fetch.follow_max = 0 and fetch.embeds false)
 * frontier_page does nothing. */
CR_WUR enum cr_err frontier_init(struct frontier *fr, const struct job *j, int version,
				 const struct hmap *done);
/* A link an earlier attempt followed into partition p (segout_followed_fn),
 * with the band keys of its page; copied. */
void frontier_keep(struct frontier *fr, uint32_t p, const struct crawl_record *rec,
		   const uint64_t *bands, unsigned nb);
/* A requisite an earlier attempt handed over (segout_handoff) in hand-off
 * round: handed over again in that one. */
void frontier_keep_handoff(struct frontier *fr, const struct crawl_record *rec,
			   unsigned round);
/* After the fetch lists are read through l: the kept links not finished
 * join their hosts' queues again, in the order they were followed (a
 * site's root next again, as when it was followed); all of them, finished
 * or not, count against their host's fetch.follow_max as they did. */
CR_WUR enum cr_err frontier_load(struct frontier *fr, struct fetchlist_load *l);
void frontier_release(struct frontier *fr);

/*
 * The links of a parsed page (its packed parse record) of item it of host
 * h: those follow_decide admits are added to h's queue (hosts_add; a
 * site's root as the next to start, hosts_add_next) and noted; then its
 * requisites that follow_embed admits (counted in fr->embeds, not
 * returned), and those of other origins follow_handoff
 * admits are kept to hand over (journaled with segout_handoff). Links are
 * bounded by frontier_room with the round's span, requisites by the time
 * limit alone (limit, monotonic µs; INT64_MAX: none; now: the clock): a
 * page's images come right after it, however many the round planned.
 * Each is journaled through out (segout_followed). Links of other origins
 * in owned partitions go to early_fn as follow_early says, those in other
 * ranks' to hint_fn. Returns how
 * many links were followed.
 */
uint64_t frontier_page(struct frontier *fr, struct host *h, const struct host_item *it,
		       const void *parse, size_t parse_len, int64_t limit, int64_t now,
		       struct segout *out);

/* A link another rank's page showed to a host of this rank's (hint_fn
 * there): to early_fn unless its partition is not this rank's or its
 * seen-set holds it. */
void frontier_hint(struct frontier *fr, const char *url, size_t len);

/*
 * A requisite another rank handed over (rec: its packed CrawlDb record, n
 * bytes), through l into its host's queue as a link followed in the round -
 * unless its partition is not this rank's or has no seen-set, the seen-set
 * or the phase holds it, its host left the round (hosts_closed) or is in
 * it for an early robots.txt alone (its origin is the early table's), or the
 * time limit leaves its host no room (frontier_room without the round's
 * span; a new host: none after limit). A done host takes turns again (hosts_reopen). Journaled
 * (segout_followed) and counted in fr->embeds. Returns 1 if queued.
 */
int frontier_take(struct frontier *fr, struct fetchlist_load *l, const void *rec, size_t n,
		  int64_t limit, int64_t now, struct segout *out);

/*
 * The hand-off (handoff.h) of the requisites to hand over: how many go out
 * in the current one; then frontier_handoff_pack puts each into send[r]
 * (one buffer per rank, r the owner of its host's partition) as a u32 LE
 * length and its packed CrawlDb record - at most HANDOFF_BYTES_MAX / ranks
 * to one rank; beyond, they wait for update - and the next hand-off
 * begins. A requisite found more than once goes out once, with the least
 * (hops, depth, seed) of its records, so which one does not depend on the
 * order pages finished in.
 */
#define HANDOFF_BYTES_MAX (256u << 20)
/* The order copies of one requisite are taken in (<0, 0, >0): fewer hops,
 * then shallower, then the lesser seed; the URLs are not compared. */
int frontier_copy_cmp(const struct crawl_record *a, const struct crawl_record *b);
uint64_t frontier_handoff_pending(const struct frontier *fr);
void frontier_handoff_pack(struct frontier *fr, struct buf *send);

/* Counts into each host's earlier the URLs of done (an interrupted
 * attempt's finished URLs) that are its, so that a resumed fetch's room
 * is the uninterrupted one's. */
void frontier_count_earlier(struct host_table *t, const struct hmap *done);

/* The room of frontier_page: the URLs politeness (one a delay) lets h start
 * from now until limit (monotonic µs; INT64_MAX: none), beyond those it has
 * queued; and in the round's span (span_ms, job_round_span_ms; 0: none) no
 * more than generate would have selected (sched_feasible) in all, the
 * URLs an interrupted attempt finished included. */
uint64_t frontier_room(const struct host *h, int64_t limit, int64_t now, int64_t span_ms);

#endif

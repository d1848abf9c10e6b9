/*
 * follow.h - whether a link found while fetching joins its host's queue in
 * the same round (fetch.follow_max), the fetcher's answer to the batch
 * design's cost.
 *
 * Why: a round lasts as long as its busiest host's chain of requests, and a
 * host whose short list ends early waits idle for the next round, whose
 * URLs are only known once this round's pages are parsed. A site whose
 * pages are found one from the other (pagination, a deep tree) then
 * advances one level a round while the delay budget goes unused. Nutch's
 * answer (fetcher.follow.outlinks.depth) is to let the fetcher follow the
 * new links of the host it is fetching; so does this.
 *
 * What is followed: a link to the page's own origin (same scheme, host and
 * port: its robots.txt rules are known, its politeness is the host's), not
 * in the seen-set of the CrawlDb version the round was generated from, not
 * queued in this fetch already, and that update would admit - within
 * crawl.max_depth, not refused by scope.rules, not a path trap - from a
 * page whose seed sets no per-seed limit (max_pages, max_depth: those are
 * agreed over all ranks per round), and that is not itself a near-copy of
 * the page it was followed from. Each host follows at most
 * fetch.follow_max links a round, and with fetch.time_limit_s no more than
 * politeness lets it fetch before the limit.
 *
 * The near-copy rule is update's trap rule seen from the fetcher: update
 * counts the links of a near-duplicate page one hop more, and past
 * fetch.max_redirects hops a URL is a trap (a calendar or session space
 * whose every page has the same words). The fetcher does not know the
 * round's duplicates, but a page that shares an LSH band (dedup.bands) with
 * the page it was followed from is one it may well be: its links wait for
 * update. So do the links of a page that has hops itself (it was reached
 * over a redirect or from a near-duplicate): update alone counts them on.
 *
 * Anything doubtful is not followed: the link still goes to update, which
 * decides as it always did and the URL is fetched next round. Because a
 * host lives on one rank and its links are decided from its own pages and
 * the CrawlDb alone, which URLs are followed does not depend on the rank
 * count. Pure: the seen-set answer and the clock-derived room are inputs.
 */
#ifndef CR_FETCH_FOLLOW_H
#define CR_FETCH_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "scope/scope.h"

enum follow_verdict {
	FOLLOW_YES = 0,
	FOLLOW_OFF,          /* fetch.follow_max = 0 */
	FOLLOW_ORIGIN,       /* another origin */
	FOLLOW_SEEN,         /* the CrawlDb holds it (seen-set) */
	FOLLOW_QUEUED,       /* in this fetch already */
	FOLLOW_DEPTH,        /* past crawl.max_depth */
	FOLLOW_SEED,         /* its seed sets per-seed limits */
	FOLLOW_SCOPE,        /* scope.rules refuse it */
	FOLLOW_TRAP,         /* a path trap (trap.max_path_segments, ...) */
	FOLLOW_CAP,          /* the host followed fetch.follow_max links already */
	FOLLOW_NO_ROOM,      /* the time limit leaves no room for it */
	FOLLOW_NEAR_COPY,    /* its page is a near-copy of the page it was followed from */
	FOLLOW_HOPS,         /* its page was reached over redirects or near-copies */
	FOLLOW_VERDICTS_
};

/* The page a link was found on, and its host's state in the fetch. */
struct follow_page {
	const char *origin;       /* "scheme://authority" of the page */
	size_t origin_len;
	uint32_t depth;
	uint64_t seed;
	uint64_t followed;        /* links its host followed this round */
	uint64_t room;            /* URLs politeness lets the host still start before
				     fetch.time_limit_s, beyond those queued
				     (UINT64_MAX: no limit) */
	int near_copy;            /* the page shares an LSH band with the page it was
				     followed from (follow_near_copy) */
	uint8_t hops;             /* the page's hops (crawl_record.hops) */
};

/* One link: canonical URL; seen and queued as the caller found them. */
struct follow_link {
	const char *url;
	size_t len;
	int seen;
	int queued;
};

/* scope: the crawl's scope (rules and seeds), or NULL to refuse nothing by
 * it; cfg: fetch.follow_max, crawl.max_depth, trap.*. */
enum follow_verdict follow_decide(const struct follow_page *pg, const struct follow_link *l,
				  struct scope *scope, const struct config *cfg);

/*
 * The same for a requisite of a page or stylesheet (fetch.embeds): one on
 * the page's own origin joins the queue right away - not in the seen-set,
 * not queued, update's trap rule, not refused by scope.rules - as deep as
 * its page, whatever crawl.max_depth, and outside
 * fetch.follow_max (fetch.max_embeds bounded it per page already). Room
 * bounds it - the time limit's alone, not the round's plan (frontier.h).
 * Requisites of other origins are follow_handoff's.
 */
enum follow_verdict follow_embed(const struct follow_page *pg, const struct follow_link *l,
				 struct scope *scope, const struct config *cfg);

/*
 * A requisite of another origin (fetch.embeds): whether it is handed to the
 * rank that owns its host, which queues it after the round's pages
 * (handoff.h) unless that host's seen-set or queues hold it. Its host's
 * robots.txt and politeness are that rank's to apply, so here only what
 * the page decides: its seed sets no per-seed limit, scope allows it for a
 * requisite (scope.embeds = any-host: scope.rules alone; in-scope: the
 * whole scope, as for a link as deep as its page), not a path trap.
 * l's seen and queued are not read (the receiver knows them);
 * FOLLOW_ORIGIN for a URL of the page's own origin (follow_embed's).
 */
enum follow_verdict follow_handoff(const struct follow_page *pg, const struct follow_link *l,
				   struct scope *scope, const struct config *cfg);

/*
 * A link of another origin: whether its origin's robots.txt may be asked
 * in this round (robots.early_max; fetch/origins.h says why) - if its host
 * is new to the crawl, which the caller asks of the robots cache and the
 * fetch. Only for a link update would admit and generate could select next
 * round: not in the seen-set (l->seen, of its own partition), within
 * crawl.max_depth and the whole scope, not a path trap, from a page whose
 * links update counts on alone (not a near-copy, no hops: a trap's hosts
 * are not asked). Per-seed limits are not looked at: they bound pages,
 * and the link's host may be reached from other seeds. l's seen and
 * queued are the URL's own (the caller asks whether its host is new).
 */
enum follow_verdict follow_early(const struct follow_page *pg, const struct follow_link *l,
				 struct scope *scope, const struct config *cfg);

/* 1 if the two pages' band keys (nb each) share one: the pair is a
 * candidate near-duplicate in dedup's terms. */
int follow_near_copy(const uint64_t *a, const uint64_t *b, unsigned nb);

/* 1 if url is of origin ("scheme://authority" followed by '/', '?', '#'
 * or the end). */
int follow_same_origin(const char *origin, size_t olen, const char *url, size_t len);

extern const char *const follow_verdict_names[FOLLOW_VERDICTS_];

#endif

/*
 * score.h - how much a URL matters, and the order generate takes due URLs
 * in (generate.order).
 *
 * Why OPIC. A crawl needs an estimate of importance while it runs, from
 * the links it has seen so far, without a pass over the whole graph.
 * On-line Page Importance Computation (Abiteboul, Preda and Cobena, WWW
 * 2003) gives one that costs nothing beyond the links update routes
 * anyway: every URL holds cash; a seed enters with score.seed_cash. When a
 * page is fetched (or answers with a redirect) the cash it held when its
 * round was generated is spent: shared equally among its outlinks (its
 * links, a sitemap's entries, a redirect's target; not its requisites)
 * and added to its history, and its cash starts again from what its
 * inlinks bring. A link followed within the round (fetch.follow_max) is
 * fetched before update pays it: it spends its page's share ahead, and
 * update takes that share off what arrives. Cash is conserved: all a page spends arrives at its
 * links, except the part sent to links that never become records (out of
 * scope, too deep) and the cash of a page without links - that is lost,
 * and counted. A URL's importance (readdb's "score") is history + cash;
 * the order of fetching is cash (OPIC's greedy policy: the URL its
 * fetched parents have paid the most since it was last fetched), weighed
 * by priors.
 *
 * Priors, each a config key (docs/CONFIG.md):
 *   priority = cash * (1 + sitemap_weight * (p - 0.5)) * depth_decay^depth
 * where p is the sitemap's <priority> (0.5 when none said, as the
 * sitemaps protocol defines). A seed's cash is score.seed_cash times its
 * own score= setting (1 when none). A requisite (fetch.embeds) has no
 * cash: it comes before every page, since the page it belongs to was
 * fetched already and its capture is incomplete without it.
 *
 * generate.order = fifo is the order before scores: breadth first
 * (smaller depth first), for comparison. pagerank and hostrank order by
 * what the last `mpicrawl rank` computed (rank/rank.h: crawl runs it every
 * rank.every_rounds): the URL's PageRank, then its cash; or its host's
 * harmonic centrality, then its PageRank. A URL rank has not seen comes
 * after those it has (and requisites first, as always).
 *
 * Pure: the caller passes records in; nothing here does I/O.
 */
#ifndef CR_SCORE_SCORE_H
#define CR_SCORE_SCORE_H

#include <stdint.h>

#include "config/config.h"
#include "crawldb/crawl_record.h"

/* generate.order, in the order of its words (config.c). */
enum score_order {
	SCORE_ORDER_SCORE = 0,     /* OPIC cash and priors */
	SCORE_ORDER_FIFO = 1,      /* breadth first */
	SCORE_ORDER_PAGERANK = 2,  /* mpicrawl rank's page PageRank, then cash */
	SCORE_ORDER_HOSTRANK = 3,  /* its host's harmonic centrality, then page rank */
};

/* What mpicrawl rank said of a URL (rank/record.h); have 0: nothing (a
 * URL found after the last rank, or no rank at all): all 0. */
struct score_ranks {
	int have;
	double page, host, harmonic;
};

struct score_rules {
	int order;              /* enum score_order */
	double seed_cash;       /* score.seed_cash */
	double sitemap_weight;  /* score.sitemap_weight */
	double depth_decay;     /* score.depth_decay */
};

void score_rules_from(const struct config *cfg, struct score_rules *out);

/* 1 if a fetch outcome spends the URL's cash: a page with content, or a
 * redirect (a 304 carries no links: its cash stays). */
int score_spends(const struct crawl_record *fetched);

/* What each of n outlinks of a page that spends cash receives. */
double score_share(double cash, uint32_t n);

/*
 * A record's cash and history after update: old (NULL for a new URL)
 * and what it received from inlinks this round; spent is what its fetch
 * spent (score_spends ? the cash its fetch list or the following page
 * gave it : 0). Cash never goes below 0.
 */
void score_merge(const struct crawl_record *old, double spent, double received,
		 struct crawl_record *out);

/* The URL's importance: history + cash. */
double score_of(const struct crawl_record *r);

/* The key generate orders due URLs by, greater first (generate.order),
 * and what breaks its ties (before the URL's hash). */
double score_priority(const struct crawl_record *r, const struct score_ranks *rk,
		      const struct score_rules *s);
double score_secondary(const struct crawl_record *r, const struct score_ranks *rk,
		       const struct score_rules *s);

/*
 * 1 if r is its origin's root page ("/", no query; not a requisite): it
 * goes first among its host's URLs in a round whatever its priority, after
 * the requisites (which still come first by it). The root is where a
 * site's navigation starts - the links to its sections, and often to other
 * sites - so on a host found by a deep link it leads to the rest soonest,
 * and a crawl that stops early has it. It orders a host's list (and so
 * what the host's caps cut) and where a link followed in the round joins
 * its host's queue (next); it does not move a URL into or out of the
 * round's budget (generate.top_n ranks by priority alone).
 */
int score_is_root(const struct crawl_record *r);

#endif

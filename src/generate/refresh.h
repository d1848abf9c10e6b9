/*
 * refresh.h - how often a page changes, and how often to fetch it again:
 * the pure decisions of recrawling timed to change. No clock, no I/O:
 * histories and rates in, rates and intervals out.
 *
 * Why an estimator, not a count. A crawler sees a page only when it
 * fetches it; between two fetches the page may have changed once or ten
 * times, and the crawler learns one bit: changed or not. Counting changed
 * visits and dividing by the time watched (X / T) therefore underestimates
 * any page that changes faster than it is visited - a page that changes
 * hourly, visited daily, looks like a page that changes daily. Cho and
 * Garcia-Molina ("Estimating frequency of change", ACM TOIT 3(3), 2003)
 * model changes as a Poisson process of rate r, under which a visit after
 * an interval t finds a change with probability 1 - e^(-r t), and give:
 *
 *  - for visits at one interval I: r = -ln((n - X + 0.5) / (n + 0.5)) / I,
 *    n visits, X of them changed - the bias-reduced form of the maximum
 *    likelihood estimate, finite even when every visit found a change;
 *  - for visits at irregular intervals (a crawler's are): the maximum
 *    likelihood rate r solving
 *        sum over changed visits of t_i / (e^(r t_i) - 1)
 *          = sum over unchanged visits of t_j,
 *    found here by bisection on r (the left side falls as r grows).
 *    With no unchanged visit there is no finite root: the visits say only
 *    "faster than we can see", and the regular-interval form above, over
 *    the mean interval, stands in; with no changed visit the rate is 0.
 *
 * Why not fetch fast changers most. Under a fixed budget of fetches, the
 * freshness a page contributes - the share of time its copy is current -
 * when fetched every 1/f for a change rate r is F(r, f) = (f / r)(1 -
 * e^(-r/f)). Cho and Garcia-Molina ("Effective page refresh policies for
 * web crawlers", ACM TODS 28(4), 2003; ICDE 2003) show that spending the
 * budget in proportion to the change rate is worse than spending it
 * uniformly, and that the optimum equalises the marginal freshness dF/df
 * across pages: pages of middling rate get the most, and a page that
 * changes far faster than the budget can follow gets none at all, since
 * any copy of it is stale within moments. refresh_allocate computes that
 * optimum: for a multiplier mu, each page's f solves dF/df = mu (or is 0
 * when even the first fetch is worth less than mu), and mu is bisected
 * until the frequencies spend the budget.
 *
 * Everything here is deterministic: the same inputs give the same outputs
 * on every rank.
 */
#ifndef CR_GENERATE_REFRESH_H
#define CR_GENERATE_REFRESH_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "crawldb/crawl_record.h"

/* One visit of a page: the seconds since the visit before, and whether
 * the page had changed since (its text digest differed). */
struct refresh_visit {
	double interval_s;
	int changed;
	double lm_age_s;   /* when it changed, how long before the visit it
			      last had (its copy's Last-Modified); 0: unknown */
};

/* The regular-interval estimate: n visits interval_s apart, changed of
 * them finding a change. 0 when n is 0 or interval_s is not positive. */
double refresh_rate_regular(unsigned n, unsigned changed, double interval_s);

/* The maximum likelihood rate (changes a second) of a page's visits
 * (n of them, any intervals); see above for the cases without a root.
 * Visits with a non-positive interval are skipped. */
double refresh_rate(const struct refresh_visit *v, size_t n);

/* The freshness of a page changing at rate r (a second) fetched every 1/f
 * seconds: the expected share of time its copy is current. 1 for r = 0,
 * 0 for f = 0 (and r > 0). */
double refresh_freshness(double r, double f);

/*
 * The frequencies (fetches a second) f[0..n) that maximise the summed
 * freshness of n pages of change rates r[0..n) when the fetches a second
 * add up to budget; each f[i] at most f_max (a page is not fetched more
 * often than that: recrawl.min_interval_s) - pages that change not at all
 * get f_min (recrawl.max_interval_s: they are still looked at), and so
 * do pages the optimum would not fetch at all. Returns the budget the
 * frequencies spend: the budget, less when every page is at f_max, more
 * when f_min alone spends more. O(n) per bisection step, 100 steps.
 */
double refresh_allocate(const double *r, size_t n, double budget, double f_min, double f_max,
			double *f);

/*
 * When a page just fetched is due again (recrawl.policy), one page at a
 * time:
 *
 *  - fixed: always crawl.refetch_interval_s;
 *  - adaptive: the expected time to its next change, 1 / r for the rate r
 *    refresh_rate_of gives (fetch frequency proportional to change rate:
 *    the "proportional" rule of the papers above);
 *  - nutch: Nutch's AdaptiveFetchSchedule - the interval it was fetched at
 *    shrunk by a fifth when the page had changed, grown by two fifths
 *    when not;
 *  - freshness: as adaptive. Its own rule is for a round with a budget
 *    (generate.top_n), where refresh_key below ranks the refetches.
 *
 * Each clamped to [recrawl.min_interval_s, recrawl.max_interval_s].
 */
enum refresh_policy {
	REFRESH_FIXED = 0, REFRESH_ADAPTIVE = 1, REFRESH_NUTCH = 2, REFRESH_FRESHNESS = 3,
};

struct refresh_rules {
	int policy;          /* enum refresh_policy; in config.c's word order */
	double fixed_s;      /* crawl.refetch_interval_s */
	double min_s, max_s; /* recrawl.min_interval_s, recrawl.max_interval_s */
};

void refresh_rules_from(const struct config *cfg, struct refresh_rules *out);


/*
 * The rate a decision uses: the estimate of everything known of a page,
 * its visits v (n, newest first), the age first_age_s its first copy's
 * Last-Modified gave it (0: unknown), and a prior rate (a sitemap's
 * changefreq, else 1 / crawl.refetch_interval_s; 0: none).
 *
 * Last-Modified is the best evidence there is. Under the Poisson model,
 * a visit that found a change and whose copy says it changed s before
 * the visit has likelihood r e^(-r s) - the last change lies s back, how
 * many came before it does not matter - where the visit alone says only
 * 1 - e^(-r t). With it, a page that changes hourly says so at its first
 * fetch, and the estimate no longer saturates when every visit finds a
 * change; from ages alone the maximum likelihood is (changes seen) /
 * (time seen without a change), the ages of changed visits plus the
 * intervals of unchanged ones. Visits whose copy has no usable
 * Last-Modified count as in refresh_rate.
 *
 * The prior enters as a Gamma prior of REFRESH_PRIOR_CHANGES (0.2)
 * pseudo-changes over 0.2 / prior seconds, so the estimate is the prior
 * with nothing seen, a page seen unchanged is looked at again - later the
 * longer it stays so - and one lucky short age moves a slow page's
 * estimate less than it would alone (benchmark F: docs/PERFORMANCE.md).
 * With no prior it is the maximum likelihood: 0 when no change was seen,
 * refresh_rate_regular's form when every visit found one and nothing else
 * is known.
 */
double refresh_rate_of(const struct refresh_visit *v, size_t n, double prior, double first_age_s);

/* The prior of a sitemap changefreq (enum sitemap_changefreq): its word
 * as a period ("always" as hourly, "never" as yearly); 0 when none. */
double refresh_changefreq_rate(int changefreq);

/* A record's visits (CrawlDb history, newest first) into v
 * (CRAWL_HISTORY_MAX); returns how many. */
size_t refresh_visits_of(const struct crawl_history *h, struct refresh_visit *v);

/*
 * Refetches under a budget. With generate.top_n, a round's budget goes
 * partly to URLs never fetched (ranked by score) and partly to refetches
 * of pages fetched before (recrawl.share, budget.h); a refetch's rank is
 * its key, greater first:
 *
 *  - freshness: the marginal freshness of fetching it now, (1/r) h(r a)
 *    for its rate r (refresh_rate_of) and the age a of its copy. Taking
 *    the greatest keys each round keeps every page's key near one
 *    threshold when it is fetched: the threshold is the multiplier of
 *    refresh_allocate, the rounds' budget is what bisects it, and each
 *    page is refetched at the interval the optimum gives it. A page
 *    changing faster than the budget can follow (1/r below the
 *    threshold) is never chosen, as in the optimum. Fetched pages are
 *    candidates once recrawl.min_interval_s has passed, due or not.
 *  - the others: how overdue the page is, a / the interval it was set
 *    due after (fixed: the oldest copy first - the "uniform" rule).
 *
 * A sitemap's lastmod past the last visit says the page changed: its key
 * is as for an infinitely old copy.
 */
struct refresh_page {
	const struct refresh_visit *v;   /* its visits, newest first */
	size_t n;
	double age_s;         /* since its last visit */
	double scheduled_s;   /* the interval it was set due after (0: none) */
	double prior;         /* changes a second when its visits say nothing */
	int changed;          /* known changed since the last visit */
	double first_age_s;   /* its first copy's age by Last-Modified (the
				 history's first_age_s); 0: unknown */
};

double refresh_key(const struct refresh_rules *r, const struct refresh_page *p);

/* The seconds until the page is due again (recrawl.policy, above): p's
 * visits (this fetch's, if it was one, at 0), its scheduled_s the
 * interval it was due after this time (0: none, a first fetch). */
double refresh_next_s(const struct refresh_rules *r, const struct refresh_page *p);

/* What rec (a CrawlDb record, its visits into v: CRAWL_HISTORY_MAX) says
 * of its page at now (µs), for the functions above. */
void refresh_page_of(const struct refresh_rules *r, const struct crawl_record *rec, int64_t now,
		     struct refresh_visit *v, struct refresh_page *p);

/* 1 if rec is a page fetched before (a refetch, not a new URL). */
int refresh_is_refetch(const struct crawl_record *rec);

/* refresh_key of a record at now (µs); 0 for one that is not a refetch. */
double refresh_key_of(const struct refresh_rules *r, const struct crawl_record *rec,
		      int64_t now);

#endif

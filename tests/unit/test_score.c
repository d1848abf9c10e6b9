/*
 * test_score.c - OPIC cash (score/score.h) on simulated graphs, fetched
 * round by round as update would: cash is conserved (what the pages hold
 * plus what was lost equals what the seeds brought), also when links are
 * followed within the round and when pages have no links; history
 * converges to the graph's stationary distribution; and the priority
 * orders, with their priors.
 */
#include "test.h"
#include "score/score.h"

#include <math.h>
#include <stdlib.h>

#define NMAX 64
#define LMAX 8

struct graph {
	int n;
	int nout[NMAX];
	int out[NMAX][LMAX];
	struct crawl_record rec[NMAX];
	double lost;
};

/* A random graph; some pages (one in dangling_every) have no links. */
static void random_graph(struct graph *g, int n, int dangling_every)
{
	int i, k;

	memset(g, 0, sizeof(*g));
	g->n = n;
	for (i = 0; i < n; i++) {
		g->rec[i].status = ST_UNFETCHED;
		g->nout[i] = dangling_every && i % dangling_every == dangling_every - 1 ? 0 :
			     1 + (int)(test_rng() % LMAX);
		for (k = 0; k < g->nout[i]; k++)
			g->out[i][k] = (int)(test_rng() % (uint64_t)n);
	}
}

static double total_cash(const struct graph *g)
{
	double s = 0;
	int i;

	for (i = 0; i < g->n; i++)
		s += g->rec[i].cash;
	return s;
}

/*
 * One round: the pages in fetch[] are fetched (their fetch list held
 * their cash); with follow, each link of a fetched page to a page not
 * fetched yet this round is fetched too, spending its page's share ahead.
 * Then every page's record is merged as update does.
 */
static void round_of(struct graph *g, const int *fetch, int nf, int follow)
{
	double received[NMAX] = { 0 }, spent[NMAX] = { 0 };
	int fetched[NMAX] = { 0 }, queue[NMAX], nq = 0, i, k;

	for (i = 0; i < nf; i++) {
		fetched[fetch[i]] = 1;
		spent[fetch[i]] = g->rec[fetch[i]].cash;
		queue[nq++] = fetch[i];
	}
	for (i = 0; i < nq; i++) {
		int p = queue[i];
		double share = score_share(spent[p], (uint32_t)g->nout[p]);

		if (g->nout[p] == 0)
			g->lost += spent[p];
		for (k = 0; k < g->nout[p]; k++) {
			int q = g->out[p][k];

			received[q] += share;
			if (follow && !fetched[q]) {
				fetched[q] = 1;
				spent[q] = share;   /* the followed page spends ahead */
				queue[nq++] = q;
			}
		}
	}
	for (i = 0; i < g->n; i++) {
		struct crawl_record old = g->rec[i];

		score_merge(&old, fetched[i] ? spent[i] : 0, received[i], &g->rec[i]);
	}
}

/* The indexes of the k pages of most cash (OPIC's greedy policy). */
static int greedy(const struct graph *g, int k, int *out)
{
	int taken[NMAX] = { 0 }, i, j;

	for (j = 0; j < k; j++) {
		int best = -1;

		for (i = 0; i < g->n; i++)
			if (!taken[i] && (best < 0 || g->rec[i].cash > g->rec[best].cash))
				best = i;
		taken[best] = 1;
		out[j] = best;
	}
	return k;
}

static void test_conservation(void)
{
	int follow, trial;

	for (follow = 0; follow < 2; follow++)
		for (trial = 0; trial < 20; trial++) {
			struct graph g;
			int fetch[NMAX], r, ok = 1, hist_ok = 1;
			double before;

			test_rng_state = 1000 + (uint64_t)trial;
			random_graph(&g, 40, trial % 3 ? 7 : 0);
			g.rec[0].cash = 1;   /* two seeds */
			g.rec[1].cash = 2.5;
			for (r = 0; r < 30; r++) {
				double h0 = 0, h1 = 0;
				int i, nf = greedy(&g, 1 + (int)(test_rng() % 10), fetch);

				for (i = 0; i < g.n; i++)
					h0 += g.rec[i].history;
				before = total_cash(&g) + g.lost;
				round_of(&g, fetch, nf, follow);
				for (i = 0; i < g.n; i++) {
					h1 += g.rec[i].history;
					ok &= g.rec[i].cash >= 0;
				}
				ok &= fabs(total_cash(&g) + g.lost - before) < 1e-9 &&
				      fabs(before - 3.5) < 1e-9;
				hist_ok &= h1 >= h0;
			}
			CHECK(ok, "follow %d trial %d: cash + lost stays 3.5 (now %.12f + %.12f)",
			      follow, trial, total_cash(&g), g.lost);
			CHECK(hist_ok, "follow %d trial %d: history only grows", follow, trial);
		}
}

/* A -> B, A -> C, B -> C, C -> A: the walk's stationary distribution is
 * (0.4, 0.2, 0.4); OPIC's history, fetching every page each round,
 * converges to it (Abiteboul et al., theorem 1). */
static void test_history_converges(void)
{
	struct graph g;
	int all[3] = { 0, 1, 2 }, r, i;
	double h = 0, want[3] = { 0.4, 0.2, 0.4 }, err = 0;

	memset(&g, 0, sizeof(g));
	g.n = 3;
	g.nout[0] = 2;
	g.out[0][0] = 1;
	g.out[0][1] = 2;
	g.nout[1] = 1;
	g.out[1][0] = 2;
	g.nout[2] = 1;
	g.out[2][0] = 0;
	g.rec[0].cash = 1;
	for (r = 0; r < 3000; r++)
		round_of(&g, all, 3, 0);
	for (i = 0; i < 3; i++)
		h += score_of(&g.rec[i]);
	for (i = 0; i < 3; i++)
		err = fmax(err, fabs(score_of(&g.rec[i]) / h - want[i]));
	CHECK(err < 0.01, "history converges to (0.4, 0.2, 0.4): worst error %.4f", err);
	CHECK(fabs(total_cash(&g) - 1) < 1e-9, "and the cash is still 1");
}

static void test_spends(void)
{
	struct crawl_record r;
	static const struct {
		int status, http, spends;
	} cases[] = {
		{ ST_FETCHED, 200, 1 }, { ST_FETCHED, 304, 0 }, { ST_REDIRECT, 301, 1 },
		{ ST_TRUNCATED, 200, 1 }, { ST_TOO_LARGE, 200, 1 }, { ST_GONE, 404, 0 },
		{ ST_ERROR, 503, 0 }, { ST_DENIED, 0, 0 }, { ST_TIMEOUT, 0, 0 },
		{ ST_BLOCKED, 0, 0 }, { ST_DEFERRED, 0, 0 }, { ST_UNFETCHED, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.status = (uint8_t)cases[i].status;
		r.http_status = (uint16_t)cases[i].http;
		CHECK(score_spends(&r) == cases[i].spends, "spends: status %d http %d",
		      cases[i].status, cases[i].http);
	}
	CHECK(score_share(1, 4) == 0.25 && score_share(1, 0) == 0 && score_share(0, 3) == 0,
	      "share");
	/* A page that spent more than it held (followed, then its share
	 * arrives) never goes below 0. */
	memset(&r, 0, sizeof(r));
	score_merge(NULL, 0.5, 0.25, &r);
	CHECK(r.cash == 0 && r.history == 0.5, "cash floors at 0");
}

static void test_priority(void)
{
	struct score_rules s = { SCORE_ORDER_SCORE, 1, 1, 1 };
	struct crawl_record a, b;

	memset(&a, 0, sizeof(a));
	b = a;
	a.cash = 0.2;
	b.cash = 0.1;
	CHECK(score_priority(&a, NULL, &s) > score_priority(&b, NULL, &s), "more cash first");
	b.meta.priority = 1001;   /* <priority>1.0</priority> */
	CHECK(fabs(score_priority(&b, NULL, &s) - 0.15) < 1e-12, "sitemap 1.0: x1.5");
	b.meta.priority = 1;      /* 0.0 */
	CHECK(fabs(score_priority(&b, NULL, &s) - 0.05) < 1e-12, "sitemap 0.0: x0.5");
	b.meta.priority = 501;    /* 0.5, as none */
	CHECK(fabs(score_priority(&b, NULL, &s) - 0.1) < 1e-12, "sitemap 0.5: x1");
	s.depth_decay = 0.5;
	a.depth = 3;
	CHECK(fabs(score_priority(&a, NULL, &s) - 0.025) < 1e-12, "depth decay 0.5^3");
	a.meta.kind = CRAWL_EMBED;
	CHECK(isinf(score_priority(&a, NULL, &s)), "a requisite comes first");
	s.order = SCORE_ORDER_FIFO;
	a.meta.kind = CRAWL_PAGE;
	b.depth = 1;
	CHECK(score_priority(&b, NULL, &s) > score_priority(&a, NULL, &s), "fifo: shallower first");
	a.depth = 0;
	CHECK(score_priority(&a, NULL, &s) == 0, "fifo: the seeds' level is 0");
	/* pagerank and hostrank: what rank said, then cash, or page rank */
	{
		struct score_ranks r1 = { 1, 2.0, 0.5, 0.25 }, r2 = { 1, 1.0, 0.5, 0.75 };

		s.order = SCORE_ORDER_PAGERANK;
		s.depth_decay = 1;
		CHECK(score_priority(&a, &r1, &s) == 2.0 && score_priority(&a, NULL, &s) < 0,
		      "pagerank: the page rank; unranked below every ranked URL");
		CHECK(score_secondary(&a, &r1, &s) == a.cash, "pagerank: then cash");
		s.order = SCORE_ORDER_HOSTRANK;
		CHECK(score_priority(&a, &r2, &s) > score_priority(&a, &r1, &s) &&
		      score_secondary(&a, &r1, &s) == 2.0, "hostrank: harmonic, then page rank");
		a.meta.kind = CRAWL_EMBED;
		CHECK(isinf(score_priority(&a, &r1, &s)), "hostrank: a requisite first");
	}
}

/* What goes first among a host's URLs whatever its priority: the root page. */
static void test_first(void)
{
	static const struct { const char *url; int kind, first; } cases[] = {
		{ "http://h.test/", CRAWL_PAGE, 1 },
		{ "http://h.test:81/", CRAWL_PAGE, 1 },
		{ "http://h.test/?p=2", CRAWL_PAGE, 0 },
		{ "http://h.test/a/", CRAWL_PAGE, 0 },
		{ "http://h.test/a.css", CRAWL_EMBED, 0 },
		{ "http://h.test/", CRAWL_EMBED, 0 },   /* a requisite comes by its priority */
	};
	struct crawl_record r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.url = cases[i].url;
		r.url_len = strlen(r.url);
		r.meta.kind = (uint8_t)cases[i].kind;
		CHECK(score_is_root(&r) == cases[i].first, "score_is_root(%s)", cases[i].url);
	}
}

int main(void)
{
	test_conservation();
	test_history_converges();
	test_spends();
	test_priority();
	test_first();
	TEST_DONE();
}

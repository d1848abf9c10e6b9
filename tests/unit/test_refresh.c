#include "test.h"
#include "generate/refresh.h"

#include <math.h>
#include <stdlib.h>

#define DAY 86400.0

static double uniform01(void)
{
	return (double)(test_rng() >> 11) / 9007199254740992.0;
}

/* Exponential with the given mean. */
static double expo(double mean)
{
	return -mean * log(1 - uniform01());
}

/* n visits of a page changing as a Poisson process of rate r, the
 * intervals drawn by next(mean): did a change fall in each? */
static void simulate(double r, size_t n, double mean, int regular, struct refresh_visit *v)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double t = regular ? mean : expo(mean);

		v[i].interval_s = t;
		v[i].changed = expo(1 / r) < t;   /* memoryless: the next change */
	}
}

static void test_formulas(void)
{
	struct refresh_visit v[10];
	size_t i;

	CHECK(refresh_rate_regular(10, 0, DAY) == 0, "no change seen: 0");
	CHECK(fabs(refresh_rate_regular(10, 10, DAY) - log(21) / DAY) < 1e-15,
	      "every visit changed: finite, ln 21 / I");
	CHECK(refresh_rate_regular(0, 0, DAY) == 0 && refresh_rate_regular(5, 1, 0) == 0,
	      "no visit, no interval: 0");
	/* At one interval, the likelihood's root is -ln((n - X) / n) / I. */
	for (i = 0; i < 10; i++) {
		v[i].interval_s = DAY;
		v[i].changed = i < 4;
	}
	CHECK(fabs(refresh_rate(v, 10) - (-log(6.0 / 10) / DAY)) < 1e-9 / DAY,
	      "regular visits: %g, want %g", refresh_rate(v, 10), -log(0.6) / DAY);
	for (i = 0; i < 10; i++)
		v[i].changed = 1;
	CHECK(fabs(refresh_rate(v, 10) - log(21) / DAY) < 1e-15, "all changed: the regular form");
	for (i = 0; i < 10; i++)
		v[i].changed = 0;
	CHECK(refresh_rate(v, 10) == 0, "none changed: 0");
	v[0].interval_s = -5;
	v[1].interval_s = 0;
	v[2].changed = 1;
	CHECK(refresh_rate(v, 10) > 0 && isfinite(refresh_rate(v, 10)),
	      "bad intervals skipped");
}

/* Pages of known rates, visited about daily at irregular (exponential)
 * intervals: the estimate's mean is within 10 % of the truth from hourly to
 * monthly - the short intervals show the fast changers - while counting
 * changed visits (X / T) says an hourly or 6-hourly page changes less than
 * daily. Visited at exactly one day, an hourly page is changed at every
 * visit: no rate is visible, and the estimate is the regular form's lower
 * bound - still above the count. */
static void test_simulated(void)
{
	static const struct {
		double rate;
		int visible;    /* 0: visited at exactly one day */
	} pages[] = {
		{ 1 / 3600.0, 1 }, { 1 / (6 * 3600.0), 1 }, { 1 / DAY, 1 }, { 1 / (7 * DAY), 1 },
		{ 1 / (30 * DAY), 1 }, { 1 / 3600.0, 0 },
	};
	static struct refresh_visit v[400];
	size_t k, p, i;

	test_rng_state = 2003;
	for (k = 0; k < sizeof(pages) / sizeof(pages[0]); k++) {
		double r = pages[k].rate, est = 0, naive = 0;
		int n = 40;

		for (p = 0; p < (size_t)n; p++) {
			double T = 0;
			unsigned x = 0;

			simulate(r, 400, DAY, !pages[k].visible, v);
			est += refresh_rate(v, 400) / n;
			for (i = 0; i < 400; i++) {
				T += v[i].interval_s;
				x += v[i].changed != 0;
			}
			naive += x / T / n;
		}
		if (pages[k].visible)
			CHECK(fabs(est / r - 1) < 0.1, "rate 1/%.0f s: mean estimate %.3f of the truth",
			      1 / r, est / r);
		else
			CHECK(est > 5 * naive && est < r, "hourly: estimate %.2f/day, count %.2f/day",
			      est * DAY, naive * DAY);
		if (r >= 1 / (6 * 3600.0) - 1e-15)
			CHECK(naive < r / 3, "rate 1/%.0f s: counting says %.2f/day", 1 / r,
			      naive * DAY);
	}
}

static double total(const double *r, const double *f, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += refresh_freshness(r[i], f[i]);
	return s;
}

/* The allocation spends the budget, beats uniform and proportional
 * allocations of it, is not beaten by moving budget between any two pages,
 * and gives a page that changes far faster than the budget follows no
 * fetch beyond the floor. */
static void test_allocate(void)
{
	enum { N = 60 };
	double r[N], f[N], u[N], pr[N], rsum = 0, budget, spent, base, best;
	size_t i, j;

	CHECK(refresh_freshness(0, 1) == 1 && refresh_freshness(1, 0) == 0, "F bounds");
	CHECK(fabs(refresh_freshness(2, 2) - (1 - exp(-1))) < 1e-12, "F(r, r) = 1 - 1/e");
	test_rng_state = 1403;
	/* rates from hourly to yearly, log-uniform; one page changing every second */
	for (i = 0; i < N; i++)
		rsum += r[i] = exp(log(1 / 3600.0) + uniform01() * log(3600.0 / (365 * DAY)));
	r[N - 1] = 1.0;
	rsum += 1.0 - r[N - 1];
	budget = N / (3 * DAY);    /* every page every three days, on average */
	spent = refresh_allocate(r, N, budget, 0, 1, f);
	CHECK(fabs(spent - budget) < 1e-9 * budget, "spends %g of %g", spent, budget);
	CHECK(f[N - 1] == 0, "the page changing each second gets nothing: %g", f[N - 1]);
	for (i = 0; i < N; i++) {
		u[i] = budget / N;
		pr[i] = budget * r[i] / rsum;
	}
	base = total(r, f, N);
	CHECK(base > total(r, u, N) && total(r, u, N) > total(r, pr, N),
	      "optimum %.3f > uniform %.3f > proportional %.3f", base, total(r, u, N),
	      total(r, pr, N));
	/* no move of a tenth of one page's fetches to another improves it */
	best = base;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double d = f[i] / 10, fi = f[i], fj = f[j], t;

			if (i == j || d <= 0)
				continue;
			f[i] -= d;
			f[j] += d;
			t = total(r, f, N);
			if (t > best)
				best = t;
			f[i] = fi;
			f[j] = fj;
		}
	CHECK(best <= base * (1 + 1e-9), "a move improves it: %.6f > %.6f", best, base);
	/* bounds: a floor for every page, a cap on each */
	spent = refresh_allocate(r, N, budget, 1 / (30 * DAY), 1 / 3600.0, f);
	for (i = 0; i < N; i++)
		CHECK(f[i] >= 1 / (30 * DAY) && f[i] <= 1 / 3600.0, "page %zu at %g", i, f[i]);
	spent = refresh_allocate(r, N, 1e9, 0, 1 / 3600.0, f);
	CHECK(fabs(spent - (N - 0) / 3600.0) < 1e-9, "all at the cap: %g", spent);
	CHECK(refresh_allocate(r, 0, 1, 0, 1, f) == 0, "no page");
}

/* refresh_next_s for visits v[0..n), due after last before, the prior
 * the fixed interval's. */
static double next_s(const struct refresh_rules *r, const struct refresh_visit *v, size_t n,
		     double last)
{
	struct refresh_page p = { v, n, 0, last, r->fixed_s > 0 ? 1 / r->fixed_s : 0, 0, 0 };

	return refresh_next_s(r, &p);
}

/* recrawl.policy: when a page is due again. */
static void test_next(void)
{
	struct refresh_rules r = { REFRESH_FIXED, 86400, 3600, 30 * 86400.0 };
	struct refresh_visit daily_changed[4] = { { 86400, 1, 0 }, { 86400, 1, 0 },
						  { 86400, 0, 0 }, { 86400, 1, 0 } };
	struct refresh_visit never[3] = { { 86400, 0, 0 }, { 86400, 0, 0 }, { 86400, 0, 0 } };
	double s;

	CHECK(next_s(&r, daily_changed, 4, 86400) == 86400, "fixed: always the interval");
	r.policy = REFRESH_ADAPTIVE;
	CHECK(next_s(&r, NULL, 0, 0) == 86400, "adaptive, no visit: the fixed interval");
	s = next_s(&r, daily_changed, 4, 86400);
	CHECK(s > 3600 && s < 86400, "adaptive: 3 changes in 4 daily visits: due within a day "
	      "(%.0f s)", s);
	CHECK(fabs(next_s(&r, never, 3, 86400) - 16 * 86400.0) < 1e-3,
	      "adaptive: unchanged for 3 days, prior daily: 0.2 pseudo-changes in 3.2 days, "
	      "due in 16 (%.0f s)", next_s(&r, never, 3, 86400));
	r.fixed_s = 10 * 86400.0;
	CHECK(fabs(next_s(&r, never, 3, 86400) - 25 * 86400.0) < 1e-3,
	      "adaptive: unchanged, prior every 10 days: due in 25");
	r.fixed_s = 86400;
	r.max_s = 4 * 86400.0;
	CHECK(next_s(&r, never, 3, 86400) == 4 * 86400.0, "adaptive: bounded by the longest");
	r.max_s = 30 * 86400.0;
	r.policy = REFRESH_FRESHNESS;
	CHECK(fabs(next_s(&r, never, 3, 86400) - 16 * 86400.0) < 1e-3,
	      "freshness without a budget: as adaptive");
	r.policy = REFRESH_ADAPTIVE;
	/* its rate is ln 4 a day: due after 62,323 s */
	r.min_s = 70000;
	CHECK(next_s(&r, daily_changed, 4, 86400) == 70000, "adaptive: the shortest bounds it");
	r.policy = REFRESH_NUTCH;
	r.min_s = 3600;
	CHECK(fabs(next_s(&r, daily_changed, 4, 86400) - 0.8 * 86400) < 1e-6,
	      "nutch: changed: a fifth shorter");
	CHECK(fabs(next_s(&r, never, 3, 86400) - 1.4 * 86400) < 1e-6,
	      "nutch: unchanged: two fifths longer");
	CHECK(next_s(&r, never, 3, 29 * 86400.0) == 30 * 86400.0, "nutch: bounded");
	CHECK(next_s(&r, NULL, 0, 0) == 86400, "nutch: a first fetch: the fixed interval");
}

/*
 * Last-Modified as evidence, and the prior. Exact cases first; then pages
 * of known rates, each fetched once and visited 6 times at 3-day
 * intervals, every copy's age known: the estimate's median error is at
 * most a factor of e^0.7 at every rate (for the slowest, one change seen:
 * one sample's error), and for a page changing far faster than it is
 * visited, where the visits alone cannot tell hourly from daily, a fifth
 * of theirs or less.
 */
static void test_last_modified(void)
{
	struct refresh_visit v[6];
	static const double rates[] = { 24 / DAY, 1 / DAY, 0.1 / DAY, 0.003 / DAY };
	size_t i, k;

	CHECK(fabs(refresh_rate_of(NULL, 0, 0, 3600) - 1 / 3600.0) < 1e-12,
	      "first copy an hour old, no prior: 1 / hour");
	CHECK(fabs(refresh_rate_of(NULL, 0, 1 / DAY, 3600) - 1.2 / (3600 + 0.2 * DAY)) < 1e-12,
	      "... with a prior of a day: 1.2 changes in 5.8 hours");
	v[0] = (struct refresh_visit){ DAY, 1, 3600 };
	v[1] = (struct refresh_visit){ DAY, 0, 0 };
	CHECK(fabs(refresh_rate_of(v, 2, 0, 10 * DAY) - 2 / (3600 + 11 * DAY)) < 1e-15,
	      "two changes seen in 11 days and an hour without one");
	v[0].lm_age_s = 2 * DAY;
	CHECK(fabs(refresh_rate_of(v, 2, 0, 0) - refresh_rate(v, 2)) < 1e-15,
	      "a Last-Modified older than the visit before: set aside");
	v[0].changed = 0;
	CHECK(refresh_rate_of(v, 2, 0, 0) == 0, "no change, no prior: 0");
	CHECK(fabs(refresh_rate_of(v, 2, 0.1 / DAY, 0) - 0.2 / (4 * DAY)) < 1e-15,
	      "no change in 2 days, prior 0.1 a day: 0.2 pseudo-changes in 4 days");
	CHECK(refresh_rate_of(NULL, 0, 0.3, 0) == 0.3, "nothing seen: the prior");
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		double err[201], plain[201];
		int t;

		for (t = 0; t < 201; t++) {
			double r = rates[i], first = expo(1 / r);

			/* memoryless: the time back to the last change at a
			 * visit is exponential, a change iff within it */
			for (k = 0; k < 6; k++) {
				double a = expo(1 / r);

				v[k] = (struct refresh_visit){ 3 * DAY, a < 3 * DAY, 0 };
				v[k].lm_age_s = v[k].changed ? a : 0;
			}
			err[t] = fabs(log(refresh_rate_of(v, 6, 0, first) / r));
			for (k = 0; k < 6; k++)
				v[k].lm_age_s = 0;
			plain[t] = fabs(log(refresh_rate_of(v, 6, 1 / (10 * DAY), 0) / r));
		}
		for (k = 0; k < 201; k++) {   /* sort both for their medians */
			size_t m;

			for (m = k + 1; m < 201; m++) {
				double x;

				if (err[m] < err[k])
					x = err[k], err[k] = err[m], err[m] = x;
				if (plain[m] < plain[k])
					x = plain[k], plain[k] = plain[m], plain[m] = x;
			}
		}
		CHECK(err[100] < 0.7 && (i > 0 || err[100] < plain[100] / 5),
		      "rate %.3f a day: median |log error| %.2f with Last-Modified, %.2f without",
		      rates[i] * DAY, err[100], plain[100]);
	}
}

/* The keys of refetches under a budget. */
static void test_key(void)
{
	struct refresh_rules r = { REFRESH_FRESHNESS, 30 * DAY, 3600, 365 * DAY };
	struct refresh_visit v[2] = { { DAY, 1, 0 }, { DAY, 0, 0 } };
	struct refresh_page p = { v, 2, DAY, DAY, 0, 0, 0 };
	double rate = refresh_rate_of(v, 2, 0, 0), k;

	/* marginal freshness (1/r)(1 - (1 + ra) e^-ra) */
	k = refresh_key(&r, &p);
	CHECK(fabs(k - (1 - (1 + rate * DAY) * exp(-rate * DAY)) / rate) < 1e-9 * DAY,
	      "freshness: the marginal freshness (%g)", k);
	p.age_s = 2 * DAY;
	CHECK(refresh_key(&r, &p) > k, "freshness: an older copy first");
	p.changed = 1;
	CHECK(fabs(refresh_key(&r, &p) - 1 / rate) < 1e-9 * DAY, "known changed: 1 / rate");
	p.changed = 0;
	p.n = 0;
	p.prior = 1 / DAY;
	CHECK(fabs(refresh_key(&r, &p) - (1 - 3 * exp(-2)) * DAY) < 1e-6,
	      "no visit: the prior's rate");
	p.prior = 0;
	CHECK(refresh_key(&r, &p) == 0, "no rate at all: nothing to gain");
	/* the middling page beats both the fast and the slow one, at one age */
	{
		struct refresh_page fast = { NULL, 0, DAY, 0, 10 / DAY, 0, 0 };
		struct refresh_page mid = { NULL, 0, DAY, 0, 1 / DAY, 0, 0 };
		struct refresh_page slow = { NULL, 0, DAY, 0, 0.01 / DAY, 0, 0 };
		double kf = refresh_key(&r, &fast), km = refresh_key(&r, &mid);
		double ks = refresh_key(&r, &slow);

		CHECK(km > kf && km > ks, "freshness: the middling rate first (%g %g %g)", kf, km,
		      ks);
	}
	r.policy = REFRESH_FIXED;
	p.age_s = 3 * DAY;
	p.scheduled_s = 0;
	CHECK(fabs(refresh_key(&r, &p) - 0.1) < 1e-12, "fixed: age / the fixed interval");
	r.policy = REFRESH_NUTCH;
	p.scheduled_s = 2 * DAY;
	CHECK(fabs(refresh_key(&r, &p) - 1.5) < 1e-12, "nutch: age / its interval");
	p.changed = 1;
	CHECK(isinf(refresh_key(&r, &p)), "nutch: known changed: first");
	CHECK(refresh_changefreq_rate(3) == 1 / DAY && refresh_changefreq_rate(0) == 0 &&
	      refresh_changefreq_rate(8) == 0, "changefreq: daily, none, out of range");
	test_last_modified();
}

/*
 * Taking the greatest keys each round is the optimum: pages of known
 * rates, a budget of B fetches a day, the B best keys refetched each day;
 * the time-averaged expected freshness comes within 2 % of
 * refresh_allocate's optimum for the same budget, and beats taking the
 * oldest copies (uniform) and the most overdue by rate (proportional).
 */
#define SIM_PAGES 500
#define SIM_DAYS 400
#define SIM_WARM 100
static double run_policy(const double *r, int policy, unsigned budget)
{
	static double last[SIM_PAGES], key[SIM_PAGES];
	struct refresh_rules rules = { REFRESH_FRESHNESS, DAY, 0, 1e12 };
	double fresh = 0;
	unsigned d, i, b;

	for (i = 0; i < SIM_PAGES; i++)
		last[i] = -(double)(i % 7) * DAY;   /* fetched in the week before */
	for (d = 1; d <= SIM_DAYS; d++) {
		for (i = 0; i < SIM_PAGES; i++) {
			struct refresh_page p = { NULL, 0, d * DAY - last[i], 0, r[i], 0, 0 };

			key[i] = policy == 0 ? refresh_key(&rules, &p) :
				 policy == 1 ? p.age_s : p.age_s * r[i];
		}
		for (b = 0; b < budget; b++) {
			unsigned best = 0;

			for (i = 1; i < SIM_PAGES; i++)
				if (key[i] > key[best])
					best = i;
			last[best] = d * DAY;
			key[best] = -1;
		}
		/* the expected share of the day each copy is current */
		for (i = 0; d > SIM_WARM && i < SIM_PAGES; i++) {
			double a = d * DAY - last[i];

			fresh += (exp(-r[i] * a) - exp(-r[i] * (a + DAY))) / (r[i] * DAY);
		}
	}
	return fresh / ((double)(SIM_DAYS - SIM_WARM) * SIM_PAGES);
}

static void test_threshold_optimum(void)
{
	static double r[SIM_PAGES], f[SIM_PAGES];
	double opt = 0, mine, uni, prop;
	unsigned i, budget = SIM_PAGES / 10;

	for (i = 0; i < SIM_PAGES; i++)   /* hourly to yearly, log-uniform */
		r[i] = exp(log(1 / (365 * DAY)) + log(365 * 24.0) * (i + 0.5) / SIM_PAGES);
	refresh_allocate(r, SIM_PAGES, budget / DAY, 0, 1 / DAY, f);
	for (i = 0; i < SIM_PAGES; i++)
		opt += refresh_freshness(r[i], f[i]) / SIM_PAGES;
	mine = run_policy(r, 0, budget);
	uni = run_policy(r, 1, budget);
	prop = run_policy(r, 2, budget);
	CHECK(mine > 0.98 * opt && mine < 1.01 * opt,
	      "greatest keys: %.4f against the optimum %.4f", mine, opt);
	CHECK(mine > uni && uni > prop, "above uniform %.4f and proportional %.4f", uni, prop);
}

int main(void)
{
	test_key();
	test_threshold_optimum();
	test_formulas();
	test_simulated();
	test_allocate();
	test_next();
	TEST_DONE();
}

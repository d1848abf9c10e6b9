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

/* recrawl.policy: when a page is due again. */
static void test_next(void)
{
	struct refresh_rules r = { REFRESH_FIXED, 86400, 3600, 30 * 86400.0 };
	struct refresh_visit daily_changed[4] = { { 86400, 1 }, { 86400, 1 }, { 86400, 0 },
						  { 86400, 1 } };
	struct refresh_visit never[3] = { { 86400, 0 }, { 86400, 0 }, { 86400, 0 } };
	double s;

	CHECK(refresh_next_s(&r, daily_changed, 4, 86400) == 86400, "fixed: always the interval");
	r.policy = REFRESH_ADAPTIVE;
	CHECK(refresh_next_s(&r, NULL, 0, 0) == 86400, "adaptive, no visit: the fixed interval");
	s = refresh_next_s(&r, daily_changed, 4, 86400);
	CHECK(s > 3600 && s < 86400, "adaptive: 3 changes in 4 daily visits: due within a day "
	      "(%.0f s)", s);
	CHECK(refresh_next_s(&r, never, 3, 86400) == 30 * 86400.0,
	      "adaptive: never changed: the longest interval");
	/* its rate is ln 4 a day: due after 62,323 s */
	r.min_s = 70000;
	CHECK(refresh_next_s(&r, daily_changed, 4, 86400) == 70000, "adaptive: the shortest bounds it");
	r.policy = REFRESH_NUTCH;
	r.min_s = 3600;
	CHECK(fabs(refresh_next_s(&r, daily_changed, 4, 86400) - 0.8 * 86400) < 1e-6,
	      "nutch: changed: a fifth shorter");
	CHECK(fabs(refresh_next_s(&r, never, 3, 86400) - 1.4 * 86400) < 1e-6,
	      "nutch: unchanged: two fifths longer");
	CHECK(refresh_next_s(&r, never, 3, 29 * 86400.0) == 30 * 86400.0, "nutch: bounded");
	CHECK(refresh_next_s(&r, NULL, 0, 0) == 86400, "nutch: a first fetch: the fixed interval");
}

int main(void)
{
	test_formulas();
	test_simulated();
	test_allocate();
	test_next();
	TEST_DONE();
}

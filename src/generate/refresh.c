/*
 * refresh.c - change-rate estimates and the refresh allocation; see
 * refresh.h for the model and the sources.
 */
#include "generate/refresh.h"
#include "parse/sitemap.h"

#include <math.h>

/* Bisection steps: each halves the bracket (or its logarithm). */
#define REFRESH_STEPS 100

double refresh_rate_regular(unsigned n, unsigned changed, double interval_s)
{
	if (!n || !(interval_s > 0))
		return 0;
	if (changed > n)
		changed = n;
	return -log((n - changed + 0.5) / (n + 0.5)) / interval_s;
}

/* The likelihood equation's two sides at rate r: changed visits' side
 * minus unchanged visits' side; falls as r grows. */
static double mle_gap(const struct refresh_visit *v, size_t n, double r)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(v[i].interval_s > 0))
			continue;
		if (v[i].changed)
			s += v[i].interval_s / expm1(r * v[i].interval_s);
		else
			s -= v[i].interval_s;
	}
	return s;
}

double refresh_rate(const struct refresh_visit *v, size_t n)
{
	double total = 0, lo, hi;
	unsigned visits = 0, changed = 0, unchanged = 0;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		if (!(v[i].interval_s > 0))
			continue;
		visits++;
		total += v[i].interval_s;
		changed += v[i].changed != 0;
		unchanged += !v[i].changed;
	}
	if (!changed)
		return 0;
	if (!unchanged)
		return refresh_rate_regular(visits, changed, total / visits);
	/* A bracket around the root, then bisection on log r. */
	lo = 1e-3 / total;
	hi = 1e3 * visits / total;
	while (mle_gap(v, n, lo) < 0 && lo > 1e-300)
		lo /= 1e3;
	while (mle_gap(v, n, hi) > 0 && hi < 1e300)
		hi *= 1e3;
	for (k = 0; k < REFRESH_STEPS; k++) {
		double mid = sqrt(lo * hi);

		if (mle_gap(v, n, mid) > 0)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

double refresh_freshness(double r, double f)
{
	if (!(r > 0))
		return 1;
	if (!(f > 0))
		return 0;
	return -(f / r) * expm1(-r / f);
}

/* h(x) = 1 - (1 + x) e^-x: r times the marginal freshness of one more
 * fetch a second, x = r / f. Rises from 0 (x = 0) towards 1. */
static double h(double x)
{
	return -expm1(-x) - x * exp(-x);
}

/* The x with h(x) = y, 0 < y < 1. */
static double h_inverse(double y)
{
	double lo = 0, hi = 1;
	int k;

	while (h(hi) < y && hi < 1e6)
		hi *= 2;
	for (k = 0; k < REFRESH_STEPS; k++) {
		double mid = (lo + hi) / 2;

		if (h(mid) < y)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* A page's frequency where its marginal freshness is mu, within the
 * bounds: marginal freshness is (1/r) h(r/f), at most 1/r. */
static double freq_at(double r, double mu, double f_min, double f_max)
{
	double f;

	if (!(r > 0))
		return f_min;
	if (mu * r >= 1)
		f = 0;      /* not even the first fetch is worth mu */
	else if (mu <= 0)
		f = f_max;
	else
		f = r / h_inverse(mu * r);
	return f < f_min ? f_min : f > f_max ? f_max : f;
}

static double spend(const double *r, size_t n, double mu, double f_min, double f_max,
		    double *f)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += f[i] = freq_at(r[i], mu, f_min, f_max);
	return s;
}

double refresh_allocate(const double *r, size_t n, double budget, double f_min, double f_max,
			double *f)
{
	double lo = 0, hi = 0, s;
	size_t i;
	int k;

	if (!n)
		return 0;
	/* mu = 0 spends the most (every changing page at f_max); past the
	 * largest 1/r it spends the least (every page at f_min). */
	if ((s = spend(r, n, 0, f_min, f_max, f)) <= budget)
		return s;
	for (i = 0; i < n; i++)
		if (r[i] > 0 && 1 / r[i] > hi)
			hi = 1 / r[i];
	if ((s = spend(r, n, hi, f_min, f_max, f)) >= budget)
		return s;
	for (k = 0; k < REFRESH_STEPS; k++) {
		double mid = (lo + hi) / 2;

		if (spend(r, n, mid, f_min, f_max, f) > budget)
			lo = mid;
		else
			hi = mid;
	}
	return spend(r, n, hi, f_min, f_max, f);
}

/* The weight of the prior in refresh_rate_of: pseudo-changes. */
#define REFRESH_PRIOR_CHANGES 0.2

/* What the observations say at rate r: the derivative of their
 * log-likelihood (with the prior's, when prior > 0); falls as r grows. */
static double obs_gap(const struct refresh_visit *v, size_t n, double prior,
		      double first_age_s, double r)
{
	double s = 0;
	size_t i;

	if (prior > 0)
		s += REFRESH_PRIOR_CHANGES * (1 / r - 1 / prior);
	if (first_age_s > 0)
		s += 1 / r - first_age_s;
	for (i = 0; i < n; i++) {
		if (!(v[i].interval_s > 0))
			continue;
		if (!v[i].changed)
			s -= v[i].interval_s;
		else if (v[i].lm_age_s > 0 && v[i].lm_age_s < v[i].interval_s)
			s += 1 / r - v[i].lm_age_s;
		else
			s += v[i].interval_s / expm1(r * v[i].interval_s);
	}
	return s;
}

/* Which signs obs_gap takes: bit 0 it can be positive (a change seen,
 * an age, a prior), bit 1 negative (time without a change seen). */
static int obs_signs(const struct refresh_visit *v, size_t n, double prior,
		     double first_age_s, double *total)
{
	int signs = (prior > 0 ? 3 : 0) | (first_age_s > 0 ? 3 : 0);
	size_t i;

	*total = first_age_s > 0 ? first_age_s : 0;
	for (i = 0; i < n; i++) {
		if (!(v[i].interval_s > 0))
			continue;
		*total += v[i].interval_s;
		if (!v[i].changed)
			signs |= 2;
		else
			signs |= v[i].lm_age_s > 0 && v[i].lm_age_s < v[i].interval_s ? 3 : 1;
	}
	return signs;
}

double refresh_rate_of(const struct refresh_visit *v, size_t n, double prior, double first_age_s)
{
	double total, lo, hi;
	int k, signs = obs_signs(v, n, prior, first_age_s, &total);
	size_t i;
	unsigned changed = 0;

	if (!(signs & 1))
		return prior > 0 ? prior : 0;   /* nothing seen at all, or no change */
	if (!(signs & 2)) {   /* every visit changed, nothing else: no root */
		for (i = 0; i < n; i++)
			changed += v[i].interval_s > 0;
		return refresh_rate_regular(changed, changed, total / changed);
	}
	lo = hi = prior > 0 ? prior : 1 / total;
	while (obs_gap(v, n, prior, first_age_s, lo) < 0 && lo > 1e-300)
		lo /= 4;
	while (obs_gap(v, n, prior, first_age_s, hi) > 0 && hi < 1e300)
		hi *= 4;
	for (k = 0; k < REFRESH_STEPS; k++) {
		double mid = sqrt(lo * hi);

		if (obs_gap(v, n, prior, first_age_s, mid) > 0)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

double refresh_changefreq_rate(int changefreq)
{
	static const double period_s[] = {
		[CHANGEFREQ_ALWAYS] = 3600, [CHANGEFREQ_HOURLY] = 3600,
		[CHANGEFREQ_DAILY] = 86400, [CHANGEFREQ_WEEKLY] = 7 * 86400.0,
		[CHANGEFREQ_MONTHLY] = 30 * 86400.0, [CHANGEFREQ_YEARLY] = 365 * 86400.0,
		[CHANGEFREQ_NEVER] = 365 * 86400.0,
	};

	if (changefreq <= CHANGEFREQ_NONE || changefreq > CHANGEFREQ_NEVER)
		return 0;
	return 1 / period_s[changefreq];
}

size_t refresh_visits_of(const struct crawl_history *h, struct refresh_visit *v)
{
	size_t i, n = h->n < CRAWL_HISTORY_MAX ? h->n : CRAWL_HISTORY_MAX;

	for (i = 0; i < n; i++) {
		v[i].interval_s = h->interval_s[i];
		v[i].changed = (h->changed >> i) & 1;
		v[i].lm_age_s = h->lm_age_s[i];
	}
	return n;
}

void refresh_rules_from(const struct config *cfg, struct refresh_rules *out)
{
	out->policy = cfg->recrawl_policy;
	out->fixed_s = (double)cfg->refetch_interval_s;
	out->min_s = (double)cfg->recrawl_min_s;
	out->max_s = (double)cfg->recrawl_max_s;
}

double refresh_key(const struct refresh_rules *r, const struct refresh_page *p)
{
	double rate, sched;

	if (r->policy != REFRESH_FRESHNESS) {
		sched = p->scheduled_s > 0 ? p->scheduled_s : r->fixed_s > 0 ? r->fixed_s : 1;
		return p->changed ? INFINITY : p->age_s / sched;
	}
	rate = refresh_rate_of(p->v, p->n, p->prior, p->first_age_s);
	if (!(rate > 0))
		return 0;   /* never changes: nothing to gain */
	if (p->changed)
		return 1 / rate;
	return p->age_s > 0 ? h(rate * p->age_s) / rate : 0;
}

int refresh_is_refetch(const struct crawl_record *rec)
{
	return rec->meta.kind == CRAWL_PAGE && rec->visits.visited_at > 0 &&
	       (rec->status == ST_FETCHED || rec->status == ST_DUPLICATE ||
		rec->status == ST_TRUNCATED);
}

void refresh_page_of(const struct refresh_rules *r, const struct crawl_record *rec, int64_t now,
		     struct refresh_visit *v, struct refresh_page *p)
{
	int64_t at = rec->visits.visited_at;

	p->v = v;
	p->n = refresh_visits_of(&rec->visits, v);
	p->age_s = (double)(now - at) / 1e6;
	p->scheduled_s = rec->visits.scheduled_s;
	p->prior = refresh_changefreq_rate(rec->meta.changefreq);
	if (!(p->prior > 0) && r->fixed_s > 0)
		p->prior = 1 / r->fixed_s;
	p->changed = rec->meta.lastmod > at;
	p->first_age_s = rec->visits.first_age_s;
}

double refresh_key_of(const struct refresh_rules *r, const struct crawl_record *rec,
		      int64_t now)
{
	struct refresh_visit v[CRAWL_HISTORY_MAX];
	struct refresh_page p;

	if (!refresh_is_refetch(rec))
		return 0;
	refresh_page_of(r, rec, now, v, &p);
	return refresh_key(r, &p);
}

static double clamp(double x, const struct refresh_rules *r)
{
	if (x < r->min_s)
		x = r->min_s;
	return x > r->max_s ? r->max_s : x;
}

double refresh_next_s(const struct refresh_rules *r, const struct refresh_page *p)
{
	double rate, last_s = p->scheduled_s;

	switch (r->policy) {
	case REFRESH_ADAPTIVE:
	case REFRESH_FRESHNESS:
		rate = refresh_rate_of(p->v, p->n, p->prior, p->first_age_s);
		return clamp(rate > 0 ? 1 / rate : r->max_s, r);
	case REFRESH_NUTCH:
		if (!p->n || last_s <= 0)
			return clamp(last_s > 0 ? last_s : r->fixed_s, r);
		return clamp(last_s * (p->v[0].changed ? 0.8 : 1.4), r);
	default:
		return r->fixed_s;
	}
}

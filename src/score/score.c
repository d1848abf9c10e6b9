/*
 * score.c - OPIC cash and the order of generate; see score.h.
 */
#include "score/score.h"
#include "url/url.h"

#include <math.h>

void score_rules_from(const struct config *cfg, struct score_rules *out)
{
	out->order = cfg->generate_order;
	out->seed_cash = cfg->score_seed_cash;
	out->sitemap_weight = cfg->score_sitemap_weight;
	out->depth_decay = cfg->score_depth_decay;
}

int score_spends(const struct crawl_record *f)
{
	switch (f->status) {
	case ST_FETCHED:
		return f->http_status != 304;
	case ST_REDIRECT:
	case ST_TRUNCATED:
	case ST_TOO_LARGE:
		return 1;
	default:
		return 0;
	}
}

double score_share(double cash, uint32_t n)
{
	return n && cash > 0 ? cash / n : 0;
}

void score_merge(const struct crawl_record *old, double spent, double received,
		 struct crawl_record *out)
{
	double cash = (old ? old->cash : 0) + (received > 0 ? received : 0);

	/* From a fetch list, spent is the CrawlDb's cash: what is left is what
	 * arrived. A URL followed in the round spent its page's share ahead,
	 * and that share is among what arrived. */
	spent = spent > 0 ? spent : 0;
	out->cash = cash > spent ? cash - spent : 0;
	out->history = (old ? old->history : 0) + spent;
}

double score_of(const struct crawl_record *r)
{
	return r->history + r->cash;
}

/* OPIC cash weighed by the priors. */
static double weighed_cash(const struct crawl_record *r, const struct score_rules *s)
{
	double p, sitemap;

	/* meta.priority is thousandths plus one; 0: the sitemap said nothing */
	sitemap = r->meta.priority ? (r->meta.priority - 1) / 1000.0 : 0.5;
	p = r->cash * (1 + s->sitemap_weight * (sitemap - 0.5));
	if (s->depth_decay < 1)
		p *= pow(s->depth_decay, (double)r->depth);
	return p;
}

double score_priority(const struct crawl_record *r, const struct score_ranks *rk,
		      const struct score_rules *s)
{
	if (s->order == SCORE_ORDER_FIFO)
		return -(double)r->depth;
	if (r->meta.kind == CRAWL_EMBED)
		return HUGE_VAL;
	switch (s->order) {
	case SCORE_ORDER_PAGERANK:
		return rk && rk->have ? rk->page : -1;
	case SCORE_ORDER_HOSTRANK:
		return rk && rk->have ? rk->harmonic : -1;
	default:
		return weighed_cash(r, s);
	}
}

int score_is_root(const struct crawl_record *r)
{
	return r->meta.kind != CRAWL_EMBED && url_is_root(r->url, r->url_len);
}

double score_secondary(const struct crawl_record *r, const struct score_ranks *rk,
		       const struct score_rules *s)
{
	switch (s->order) {
	case SCORE_ORDER_PAGERANK:
		return weighed_cash(r, s);
	case SCORE_ORDER_HOSTRANK:
		return rk && rk->have ? rk->page : weighed_cash(r, s);
	default:
		return 0;
	}
}

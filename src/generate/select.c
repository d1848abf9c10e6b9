#include "generate/select.h"
#include "fetch/sched.h"
#include "generate/refresh.h"

#include <stdint.h>
#include <string.h>

const char *const generate_counter_names[GC_COUNT_] = {
	"records", "selected", "not_due", "host_capped", "politeness_capped", "too_deep",
	"hosts",
	"demoted", "demoted_hosts", "held", "seed_capped", "budget_capped", "retry_later",
	"robots_denied", "rescope_due",
};

void generate_rules_from(const struct config *cfg, struct generate_rules *g)
{
	g->max_depth = cfg->max_depth;
	g->max_per_host = cfg->max_per_host;
	g->demote_min_pages = cfg->demote_min_pages;
	g->demote_share = cfg->demote_share;
	g->demoted_per_round = cfg->demoted_per_round;
	g->round_ms = (int64_t)cfg->time_limit_s * 1000;
	g->delay_ms = cfg->delay_ms;
	g->max_crawl_delay_ms = cfg->max_crawl_delay_ms;
	/* refresh.h: under a budget, freshness ranks every page fetched long
	 * enough ago, due or not */
	g->refetch_early = cfg->top_n > 0 && cfg->recrawl_policy == REFRESH_FRESHNESS;
	g->refetch_min_us = (int64_t)cfg->recrawl_min_s * 1000000;
	g->robots_ttl_us = (int64_t)cfg->robots_ttl_s * 1000000;
}

enum generate_robots generate_robots_of(int denies, int64_t answered_at, int64_t ttl_us,
					int64_t now)
{
	if (!denies)
		return GEN_ROBOTS_NONE;
	/* as the fetch reads the cache (origin_on_cache): expired at the TTL */
	return now - answered_at < ttl_us ? GEN_ROBOTS_DENIED : GEN_ROBOTS_STALE;
}

void generate_denied_outcome(const struct crawl_record *r, int64_t answered_at,
			     struct fetch_record *out)
{
	memset(out, 0, sizeof(*out));
	/* what fetchlist_record keeps of a fetch list's record */
	out->rec.url = r->url;
	out->rec.url_len = r->url_len;
	out->rec.depth = r->depth;
	out->rec.retries = r->retries;
	out->rec.hops = r->hops;
	out->rec.meta = r->meta;
	out->rec.seed = r->seed;
	out->rec.cash = r->cash;
	out->rec.status = ST_DENIED;
	out->rec.fetched_at = answered_at;
	out->reason = "robots.txt";
	out->reason_len = strlen(out->reason);
	out->location = out->content_type = out->charset = out->warc = "";
}

/* 1 if r is a refetch rules make a candidate before it is due. */
static int refetch_early(const struct crawl_record *r, const struct generate_rules *g,
			 int64_t now)
{
	return g->refetch_early && refresh_is_refetch(r) &&
	       now - r->visits.visited_at >= g->refetch_min_us;
}

int generate_due(const struct crawl_record *r, int64_t now, long max_depth)
{
	if (max_depth > 0 && r->depth > (uint32_t)max_depth)
		return 0;
	if (r->status == ST_TRAP)
		return 0;
	/* New URLs have next_fetch 0; fetched ones the time merge set. */
	return r->next_fetch <= now;
}

/* 1 if s starts r's reason. */
static int reason_is(const struct crawl_record *r, const char *s)
{
	size_t n = strlen(s);

	return r->reason_len >= n && !memcmp(r->reason, s, n);
}

int generate_rejudged(const struct crawl_record *r, int64_t since_us)
{
	if (!r->fetched_at || r->fetched_at >= since_us)
		return 0;
	/* Not a denial: generate judges those itself against the cached
	 * robots.txt, whose answer (and the outcome's time) may be older. */
	switch (r->status) {
	case ST_BLOCKED:
	case ST_DEFERRED:
		return 1;
	case ST_ERROR:
	case ST_TIMEOUT:
	case ST_GONE:
		return reason_is(r, "dns:") || reason_is(r, "tls:") ||
		       reason_is(r, "robots.txt");
	default:
		return 0;
	}
}

int generate_rescoped(const struct crawl_record *r, const struct generate_host *h,
		      int64_t since_us)
{
	return h->rescope && r->fetched_at && r->fetched_at < since_us &&
	       (r->status == ST_FETCHED || r->status == ST_DUPLICATE);
}

int generate_demoted(const struct generate_rules *g, const struct generate_host *h)
{
	return g->demote_min_pages > 0 && h->pages >= (uint64_t)g->demote_min_pages &&
	       (double)h->duplicates >= g->demote_share * (double)h->pages;
}

/* The delay the fetcher will keep between the host's requests: the same
 * clamp as the fetcher's (sched.h), a Crawl-delay it would defer ignored. */
static long host_delay_ms(const struct generate_rules *g, const struct generate_host *h)
{
	struct sched_policy pol;
	long base = h->op.line && h->op.delay_ms >= 0 ? h->op.delay_ms : g->delay_ms;

	memset(&pol, 0, sizeof(pol));
	pol.delay_us = (int64_t)base * 1000;
	pol.max_crawl_delay_us = (int64_t)g->max_crawl_delay_ms * 1000;
	if (sched_crawl_delay(&pol, h->crawl_delay_ms))
		return base;
	return (long)(pol.delay_us / 1000);
}

/* 1 if r was blocked by an operator rule (its fetch reason says so). */
static int operator_blocked(const struct crawl_record *r)
{
	return r->status == ST_BLOCKED && r->reason_len == 8 && !memcmp(r->reason, "operator", 8);
}

enum generate_verdict generate_select(const struct crawl_record *r,
				      const struct generate_host *h,
				      const struct generate_rules *g, int64_t now)
{
	long cap = h->op.line && h->op.max_per_host >= 0 ? h->op.max_per_host : g->max_per_host;

	if (g->max_depth > 0 && r->depth > (uint32_t)g->max_depth)
		return GEN_TOO_DEEP;
	if (!generate_due(r, now, 0) && !refetch_early(r, g, now) &&
	    !generate_rejudged(r, g->config_since_us) &&
	    !generate_rescoped(r, h, g->config_since_us) && !(operator_blocked(r) && !h->op.block))
		return GEN_NOT_DUE;
	if (h->seed_capped)
		return GEN_SEED_CAPPED;
	if (h->op.block)
		return GEN_SELECT;   /* no request: politeness has nothing to cap */
	if (h->robots == GEN_ROBOTS_DENIED)
		return GEN_DENIED;   /* no request: no place in the round */
	if (h->hold_until > now)
		return GEN_HELD;
	if (h->selected >= (uint64_t)g->demoted_per_round && generate_demoted(g, h))
		return GEN_DEMOTED;
	if (cap > 0 && h->selected + h->denied_taken >= (uint64_t)cap)
		return GEN_HOST_CAPPED;
	/* A URL an expired robots.txt denies likely costs no request: the
	 * span's count is of requests (a host whose one URL a round is denied
	 * would idle), and those are bounded apart, as many again. */
	if (g->round_ms > 0 && (int64_t)(h->robots == GEN_ROBOTS_STALE ? h->denied_taken
								       : h->selected) >=
				       sched_feasible(g->round_ms, host_delay_ms(g, h)))
		return GEN_POLITENESS_CAPPED;
	return GEN_SELECT;
}

/* Per host of a CrawlDb part: pages with content (low 32 bits) and how many
 * of them are duplicates (high 32 bits). */

/*
 * follow.c - the in-round following decision; see follow.h.
 */
#include "fetch/follow.h"
#include "crawldb/link_record.h"
#include "url/trap.h"
#include "scope/scope.h"

#include <string.h>

const char *const follow_verdict_names[FOLLOW_VERDICTS_] = {
	"follow", "off", "origin", "seen", "queued", "depth", "seed", "scope", "trap", "cap",
	"no-room", "near-copy", "hops",
};

int follow_near_copy(const uint64_t *a, const uint64_t *b, unsigned nb)
{
	unsigned i;

	for (i = 0; i < nb; i++)
		if (a[i] == b[i])
			return 1;
	return 0;
}

int follow_same_origin(const char *origin, size_t olen, const char *url, size_t len)
{
	return len >= olen && !memcmp(url, origin, olen) &&
	       (len == olen || url[olen] == '/' || url[olen] == '?' || url[olen] == '#');
}

/* What update would refuse: its scope rules, or a path trap (the query and
 * host counts need the sorted CrawlDb; the per-host cap stands in). */
static enum follow_verdict admitted(const struct follow_link *l, struct scope *scope,
				    const struct config *cfg)
{
	static const struct trap_state none;

	if (scope && scope->rules && scope_check_rules(scope, l->url, l->len))
		return FOLLOW_SCOPE;
	if (trap_check(&none, l->url, l->len, cfg))
		return FOLLOW_TRAP;
	return FOLLOW_YES;
}

/* 1 if the page's seed sets per-seed limits (max_pages, max_depth): those
 * are agreed over all ranks per round, so its links wait for update. */
static int seed_limited(const struct follow_page *pg, struct scope *scope)
{
	const struct scope_seed *sd = scope && pg->seed ? scope_seed_of(scope, pg->seed) : NULL;

	return sd && (sd->set.max_pages >= 0 || sd->set.max_depth >= 0);
}

/* A URL of the page's origin that the fetch and the CrawlDb do not hold. */
static enum follow_verdict fresh(const struct follow_page *pg, const struct follow_link *l)
{
	if (!follow_same_origin(pg->origin, pg->origin_len, l->url, l->len))
		return FOLLOW_ORIGIN;
	if (l->queued)
		return FOLLOW_QUEUED;
	if (l->seen)
		return FOLLOW_SEEN;
	return FOLLOW_YES;
}

enum follow_verdict follow_decide(const struct follow_page *pg, const struct follow_link *l,
				  struct scope *scope, const struct config *cfg)
{
	enum follow_verdict v;

	/* A round's budget (generate.top_n) is the URLs generate chose. */
	if (cfg->follow_max <= 0 || cfg->top_n > 0)
		return FOLLOW_OFF;
	if (pg->near_copy)
		return FOLLOW_NEAR_COPY;
	if (pg->hops)
		return FOLLOW_HOPS;
	if ((v = fresh(pg, l)) != FOLLOW_YES)
		return v;
	if (cfg->max_depth > 0 && pg->depth + 1 > (uint64_t)cfg->max_depth)
		return FOLLOW_DEPTH;
	if (seed_limited(pg, scope))
		return FOLLOW_SEED;
	if ((v = admitted(l, scope, cfg)) != FOLLOW_YES)
		return v;
	if (pg->followed >= (uint64_t)cfg->follow_max)
		return FOLLOW_CAP;
	if (pg->room == 0)
		return FOLLOW_NO_ROOM;
	return FOLLOW_YES;
}

enum follow_verdict follow_embed(const struct follow_page *pg, const struct follow_link *l,
				 struct scope *scope, const struct config *cfg)
{
	static const struct trap_state none;
	enum follow_verdict v;

	if (!cfg->fetch_embeds)
		return FOLLOW_OFF;
	if ((v = fresh(pg, l)) != FOLLOW_YES)
		return v;
	if (seed_limited(pg, scope))
		return FOLLOW_SEED;
	if (scope && scope->rules && scope_check_rules(scope, l->url, l->len))
		return FOLLOW_SCOPE;
	if (trap_check(&none, l->url, l->len, cfg))
		return FOLLOW_TRAP;
	if (pg->room == 0)
		return FOLLOW_NO_ROOM;
	return FOLLOW_YES;
}

enum follow_verdict follow_handoff(const struct follow_page *pg, const struct follow_link *l,
				   struct scope *scope, const struct config *cfg)
{
	static const struct trap_state none;
	struct link_record lr;

	if (!cfg->fetch_embeds)
		return FOLLOW_OFF;
	if (follow_same_origin(pg->origin, pg->origin_len, l->url, l->len))
		return FOLLOW_ORIGIN;
	if (seed_limited(pg, scope))
		return FOLLOW_SEED;
	memset(&lr, 0, sizeof(lr));
	lr.url = l->url;
	lr.url_len = l->len;
	lr.depth = pg->depth;
	lr.seed = pg->seed;
	lr.meta.kind = CRAWL_EMBED;
	lr.from = "";
	if (scope && (cfg->scope_embeds == SCOPE_EMBEDS_ANY_HOST
		      ? scope->rules && scope_check_rules(scope, l->url, l->len)
		      : scope_check_link(scope, &lr) != SCOPE_IN))
		return FOLLOW_SCOPE;
	if (trap_check(&none, l->url, l->len, cfg))
		return FOLLOW_TRAP;
	return FOLLOW_YES;
}

enum follow_verdict follow_early(const struct follow_page *pg, const struct follow_link *l,
				 struct scope *scope, const struct config *cfg)
{
	static const struct trap_state none;
	struct link_record lr;

	if (cfg->robots_early_max <= 0)
		return FOLLOW_OFF;
	if (follow_same_origin(pg->origin, pg->origin_len, l->url, l->len))
		return FOLLOW_ORIGIN;
	if (pg->near_copy)
		return FOLLOW_NEAR_COPY;
	if (pg->hops)
		return FOLLOW_HOPS;
	if (l->queued)
		return FOLLOW_QUEUED;
	if (l->seen)
		return FOLLOW_SEEN;
	if (cfg->max_depth > 0 && pg->depth + 1 > (uint64_t)cfg->max_depth)
		return FOLLOW_DEPTH;
	memset(&lr, 0, sizeof(lr));
	lr.url = l->url;
	lr.url_len = l->len;
	lr.depth = (uint32_t)pg->depth + 1;
	lr.seed = pg->seed;
	lr.meta.kind = CRAWL_PAGE;
	lr.from = "";
	if (scope && scope_check_link(scope, &lr) != SCOPE_IN)
		return FOLLOW_SCOPE;
	if (trap_check(&none, l->url, l->len, cfg))
		return FOLLOW_TRAP;
	return FOLLOW_YES;
}

/*
 * test_follow.c - which links the fetcher follows inside the round
 * (fetch/follow.h), as a table, and the room a time limit leaves a host
 * (fetch/frontier.h).
 */
#include "test.h"
#include "config/config.h"
#include "fetch/follow.h"
#include "fetch/frontier.h"
#include "scope/seeds.h"

#include <stdlib.h>
#include <string.h>

static const char seed_plain[] = "http://a.test/";
static const char seed_capped[] = "http://b.test/";

/* The defaults, and a scope of two seeds (b.test's with max_pages) and a
 * rule refusing a.test's /private/. */
static void setup(struct config *cfg, struct scope *s)
{
	struct seed_settings capped = { 5, -1, -1, 0, 1 };
	static const char rules[] = "-http://(test,a,)/private/\n";
	char err[128];

	config_defaults(cfg);
	scope_init(s, SCOPE_SEEDS_DOMAINS);
	CHECK(scope_add_seed(s, seed_plain, strlen(seed_plain), NULL) == CR_OK, "seed");
	CHECK(scope_add_seed(s, seed_capped, strlen(seed_capped), &capped) == CR_OK, "seed");
	CHECK(scope_rules_parse(rules, strlen(rules), "t", &s->rules, err, sizeof(err)) == CR_OK,
	      "rules: %s", err);
}

static void table(void)
{
	static const struct {
		const char *what;
		const char *url;
		int seen, queued;
		uint32_t depth;
		int capped_seed;
		uint64_t followed, room;
		long follow_max, max_depth;
		enum follow_verdict want;
		int near_copy, hops;
	} cases[] = {
		{ "a new link of the page's origin", "http://a.test/p/2", 0, 0, 1, 0, 0,
		  UINT64_MAX, 10, 0, FOLLOW_YES, 0, 0 },
		{ "with a query", "http://a.test/list?page=2", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_YES, 0, 0 },
		{ "the origin itself", "http://a.test", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_YES, 0, 0 },
		{ "following off", "http://a.test/p/2", 0, 0, 1, 0, 0, UINT64_MAX, 0, 0,
		  FOLLOW_OFF, 0, 0 },
		{ "another host", "http://b.test/p/2", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_ORIGIN, 0, 0 },
		{ "another port", "http://a.test:8080/p/2", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_ORIGIN, 0, 0 },
		{ "another scheme", "https://a.test/p/2", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_ORIGIN, 0, 0 },
		{ "a longer host name", "http://a.test.evil/p", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_ORIGIN, 0, 0 },
		{ "queued already", "http://a.test/p/2", 0, 1, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_QUEUED, 0, 0 },
		{ "in the CrawlDb", "http://a.test/p/2", 1, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_SEEN, 0, 0 },
		{ "at the depth limit", "http://a.test/p/2", 0, 0, 2, 0, 0, UINT64_MAX, 10, 3,
		  FOLLOW_YES, 0, 0 },
		{ "past the depth limit", "http://a.test/p/2", 0, 0, 3, 0, 0, UINT64_MAX, 10, 3,
		  FOLLOW_DEPTH, 0, 0 },
		{ "a seed with max_pages", "http://a.test/p/2", 0, 0, 1, 1, 0, UINT64_MAX, 10, 0,
		  FOLLOW_SEED, 0, 0 },
		{ "refused by scope.rules", "http://a.test/private/x", 0, 0, 1, 0, 0, UINT64_MAX,
		  10, 0, FOLLOW_SCOPE, 0, 0 },
		{ "a path trap", "http://a.test/x/x/x/x/x/x/x", 0, 0, 1, 0, 0, UINT64_MAX, 10, 0,
		  FOLLOW_TRAP, 0, 0 },
		{ "the host's cap", "http://a.test/p/2", 0, 0, 1, 0, 10, UINT64_MAX, 10, 0,
		  FOLLOW_CAP, 0, 0 },
		{ "under the cap", "http://a.test/p/2", 0, 0, 1, 0, 9, UINT64_MAX, 10, 0,
		  FOLLOW_YES, 0, 0 },
		{ "no room before the time limit", "http://a.test/p/2", 0, 0, 1, 0, 0, 0, 10, 0,
		  FOLLOW_NO_ROOM, 0, 0 },
		{ "room for one", "http://a.test/p/2", 0, 0, 1, 0, 0, 1, 10, 0, FOLLOW_YES, 0, 0 },
		{ "from a near-copy of its parent", "http://a.test/cal/2027/1", 0, 0, 1, 0, 0,
		  UINT64_MAX, 10, 0, FOLLOW_NEAR_COPY, 1, 0 },
		{ "from a page reached over a redirect", "http://a.test/p/2", 0, 0, 1, 0, 0,
		  UINT64_MAX, 10, 0, FOLLOW_HOPS, 0, 1 },
	};
	struct config cfg;
	struct scope s;
	size_t i;

	setup(&cfg, &s);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct follow_page pg = { "http://a.test", 13, cases[i].depth, 0,
					  cases[i].followed, cases[i].room, cases[i].near_copy,
					  (uint8_t)cases[i].hops };
		struct follow_link l = { cases[i].url, strlen(cases[i].url), cases[i].seen,
					 cases[i].queued };
		enum follow_verdict v;

		pg.seed = cases[i].capped_seed ? seeds_id(seed_capped, strlen(seed_capped))
					       : seeds_id(seed_plain, strlen(seed_plain));
		cfg.follow_max = cases[i].follow_max;
		cfg.max_depth = cases[i].max_depth;
		v = follow_decide(&pg, &l, &s, &cfg);
		CHECK(v == cases[i].want, "%s: %s, want %s", cases[i].what, follow_verdict_names[v],
		      follow_verdict_names[cases[i].want]);
	}
	scope_release(&s);
}

/* Whether a link of another origin has its robots.txt asked in the round
 * (follow_early): the page is a.test's, at depth 1. */
static void early(void)
{
	static const struct {
		const char *what;
		const char *url;
		int seen, queued, near_copy, hops;
		long early_max, max_depth;
		enum follow_verdict want;
	} cases[] = {
		{ "a new link to another seed's domain", "http://b.test/p/1", 0, 0, 0, 0, 1000, 0,
		  FOLLOW_YES },
		{ "another port of the page's host", "http://a.test:8080/", 0, 0, 0, 0, 1000, 0,
		  FOLLOW_YES },
		{ "early robots.txt off", "http://b.test/p/1", 0, 0, 0, 0, 0, 0, FOLLOW_OFF },
		{ "the page's own origin", "http://a.test/p/2", 0, 0, 0, 0, 1000, 0,
		  FOLLOW_ORIGIN },
		{ "outside the seeds' domains", "http://c.test/", 0, 0, 0, 0, 1000, 0,
		  FOLLOW_SCOPE },
		{ "in the CrawlDb", "http://b.test/p/1", 1, 0, 0, 0, 1000, 0, FOLLOW_SEEN },
		{ "its host in the fetch", "http://b.test/p/1", 0, 1, 0, 0, 1000, 0, FOLLOW_QUEUED },
		{ "past the depth limit", "http://b.test/p/1", 0, 0, 0, 0, 1000, 1, FOLLOW_DEPTH },
		{ "at the depth limit", "http://b.test/p/1", 0, 0, 0, 0, 1000, 2, FOLLOW_YES },
		{ "a path trap", "http://b.test/x/x/x/x/x/x/x", 0, 0, 0, 0, 1000, 0, FOLLOW_TRAP },
		{ "from a near-copy", "http://b.test/p/1", 0, 0, 1, 0, 1000, 0, FOLLOW_NEAR_COPY },
		{ "from a page with hops", "http://b.test/p/1", 0, 0, 0, 1, 1000, 0, FOLLOW_HOPS },
	};
	struct config cfg;
	struct scope s;
	size_t i;

	setup(&cfg, &s);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct follow_page pg = { "http://a.test", 13, 1, 0, 0, UINT64_MAX,
					  cases[i].near_copy, (uint8_t)cases[i].hops };
		struct follow_link l = { cases[i].url, strlen(cases[i].url), cases[i].seen,
					 cases[i].queued };
		enum follow_verdict v;

		pg.seed = seeds_id(seed_plain, strlen(seed_plain));
		cfg.robots_early_max = cases[i].early_max;
		cfg.max_depth = cases[i].max_depth;
		v = follow_early(&pg, &l, &s, &cfg);
		CHECK(v == cases[i].want, "early, %s: %s, want %s", cases[i].what,
		      follow_verdict_names[v], follow_verdict_names[cases[i].want]);
	}
	scope_release(&s);
}

static void near_copies(void)
{
	uint64_t a[4] = { 1, 2, 3, 4 }, b[4] = { 9, 9, 3, 9 }, c[4] = { 5, 6, 7, 8 };

	CHECK(follow_near_copy(a, b, 4), "one band shared: a candidate pair");
	CHECK(!follow_near_copy(a, c, 4), "no band shared");
	CHECK(!follow_near_copy(a, b, 2), "only the bands given count");
}

static void room(void)
{
	struct host h;

	memset(&h, 0, sizeof(h));
	h.pol.delay_us = 1000000;
	h.n = 5;
	h.next = 2;
	CHECK(frontier_room(&h, INT64_MAX, 0, 0) == UINT64_MAX, "no limit: no bound");
	/* 10 s at 1 s and the scheduler's margin (sched.h) is 9 starts */
	CHECK(frontier_room(&h, 10000000, 0, 0) == 6,
	      "9 delays left, 3 queued: room for 6, got %llu",
	      (unsigned long long)frontier_room(&h, 10000000, 0, 0));
	CHECK(frontier_room(&h, 10000000, 8000000, 0) == 0, "2 delays left, 3 queued: none");
	CHECK(frontier_room(&h, 10000000, 20000000, 0) == 0, "past the limit: none");
	/* The round's span: 8 s at 1 s is 9 URLs in all, 5 taken already. */
	CHECK(frontier_room(&h, INT64_MAX, 0, 8000) == 4, "span: room for 4, got %llu",
	      (unsigned long long)frontier_room(&h, INT64_MAX, 0, 8000));
	CHECK(frontier_room(&h, INT64_MAX, 0, 3000) == 0, "span used up: none");
	CHECK(frontier_room(&h, 10000000, 7000000, 8000) == 0,
	      "the time limit is the tighter: none");
	CHECK(frontier_room(&h, 10000000, 0, 8000) == 4, "the span is the tighter: 4");
	h.pol.delay_us = 0;
	CHECK(frontier_room(&h, 10000000, 0, 8000) == UINT64_MAX, "no delay: no bound");
}

/* Requisites (follow_embed): the page's origin, not seen or queued, no
 * trap, room, scope.rules; past crawl.max_depth and outside follow_max. */
static void embeds(void)
{
	static const struct {
		const char *what, *url;
		int seen, queued, capped_seed, embeds, in_scope;
		uint64_t room, followed;
		enum follow_verdict want;
	} cases[] = {
		{ "a stylesheet of the page's origin", "http://a.test/s.css", 0, 0, 0, 1, 0,
		  UINT64_MAX, 0, FOLLOW_YES },
		{ "fetch.embeds off", "http://a.test/s.css", 0, 0, 0, 0, 0, UINT64_MAX, 0,
		  FOLLOW_OFF },
		{ "a CDN's image: follow_handoff's", "http://cdn.test/i.png", 0, 0, 0, 1, 0, UINT64_MAX,
		  0, FOLLOW_ORIGIN },
		{ "queued already", "http://a.test/s.css", 0, 1, 0, 1, 0, UINT64_MAX, 0,
		  FOLLOW_QUEUED },
		{ "in the CrawlDb", "http://a.test/s.css", 1, 0, 0, 1, 0, UINT64_MAX, 0,
		  FOLLOW_SEEN },
		{ "a seed with limits", "http://a.test/s.css", 0, 0, 1, 1, 0, UINT64_MAX, 0,
		  FOLLOW_SEED },
		{ "any-host: scope.rules' deny lines still apply", "http://a.test/private/s.css",
		  0, 0, 0, 1, 0, UINT64_MAX, 0, FOLLOW_SCOPE },
		{ "in-scope: scope.rules apply", "http://a.test/private/s.css", 0, 0, 0, 1, 1,
		  UINT64_MAX, 0, FOLLOW_SCOPE },
		{ "a path trap", "http://a.test/x/x/x/x/x/x/x.png", 0, 0, 0, 1, 0, UINT64_MAX, 0,
		  FOLLOW_TRAP },
		{ "no room", "http://a.test/s.css", 0, 0, 0, 1, 0, 0, 0, FOLLOW_NO_ROOM },
		{ "past follow_max: not counted there", "http://a.test/s.css", 0, 0, 0, 1, 0,
		  UINT64_MAX, 10, FOLLOW_YES },
	};
	struct config cfg;
	struct scope s;
	size_t i;

	setup(&cfg, &s);
	cfg.follow_max = 10;
	cfg.max_depth = 2;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* At the depth limit: its links would not be followed. */
		struct follow_page pg = { "http://a.test", 13, 2, 0, cases[i].followed,
					  cases[i].room, 0, 0 };
		struct follow_link l = { cases[i].url, strlen(cases[i].url), cases[i].seen,
					 cases[i].queued };
		enum follow_verdict v;

		pg.seed = cases[i].capped_seed ? seeds_id(seed_capped, strlen(seed_capped))
					       : seeds_id(seed_plain, strlen(seed_plain));
		cfg.fetch_embeds = cases[i].embeds;
		cfg.scope_embeds = cases[i].in_scope ? SCOPE_EMBEDS_IN_SCOPE : SCOPE_EMBEDS_ANY_HOST;
		v = follow_embed(&pg, &l, &s, &cfg);
		CHECK(v == cases[i].want, "embed, %s: %s, want %s", cases[i].what,
		      follow_verdict_names[v], follow_verdict_names[cases[i].want]);
	}
	scope_release(&s);
}

/* Requisites of other origins (follow_handoff): handed to the rank of
 * their host unless the page's seed sets limits, scope refuses them for a
 * requisite (scope.embeds), or a path trap; seen and queued are the
 * receiver's to judge. */
static void handoffs(void)
{
	static const struct {
		const char *what, *url;
		int embeds, in_scope, capped_seed;
		enum follow_verdict want;
	} cases[] = {
		{ "a CDN's image", "http://cdn.other/i.png", 1, 0, 0, FOLLOW_YES },
		{ "another scheme of the host", "https://c.test/s.css", 1, 0, 0, FOLLOW_YES },
		{ "the page's own origin: follow_embed's", "http://c.test/s.css", 1, 0, 0,
		  FOLLOW_ORIGIN },
		{ "fetch.embeds off", "http://cdn.other/i.png", 0, 0, 0, FOLLOW_OFF },
		{ "a seed with limits", "http://cdn.other/i.png", 1, 0, 1, FOLLOW_SEED },
		{ "any-host: scope.rules' deny lines apply", "http://a.test/private/i.png", 1, 0,
		  0, FOLLOW_SCOPE },
		{ "in-scope: a host outside the seeds' domains", "http://cdn.other/i.png", 1, 1,
		  0, FOLLOW_SCOPE },
		{ "in-scope: a seed's domain", "http://a.test/i.png", 1, 1, 0, FOLLOW_YES },
		{ "a path trap", "http://cdn.other/x/x/x/x/x/x/x.png", 1, 0, 0, FOLLOW_TRAP },
	};
	struct config cfg;
	struct scope s;
	size_t i;

	setup(&cfg, &s);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct follow_page pg = { "http://c.test", 13, 1, 0, 0, 0, 0, 0 };
		struct follow_link l = { cases[i].url, strlen(cases[i].url), 1, 1 };
		enum follow_verdict v;

		pg.seed = cases[i].capped_seed ? seeds_id(seed_capped, strlen(seed_capped))
					       : seeds_id(seed_plain, strlen(seed_plain));
		cfg.fetch_embeds = cases[i].embeds;
		cfg.scope_embeds = cases[i].in_scope ? SCOPE_EMBEDS_IN_SCOPE : SCOPE_EMBEDS_ANY_HOST;
		v = follow_handoff(&pg, &l, &s, &cfg);
		CHECK(v == cases[i].want, "handoff, %s: %s, want %s", cases[i].what,
		      follow_verdict_names[v], follow_verdict_names[cases[i].want]);
	}
	scope_release(&s);
}

int main(void)
{
	table();
	early();
	embeds();
	handoffs();
	near_copies();
	room();
	TEST_DONE();
}

#include "generate/generate.h"
#include "generate/rescope.h"
#include "generate/seedcap.h"
#include "test.h"
#include "update/merge.h"

/* generate_select over a table: each rule on its own, and their order. */
static void select_table(void)
{
	static const struct {
		const char *name;
		uint32_t depth;
		int status;
		int64_t next_fetch;
		uint64_t selected, pages, dups;
		long crawl_delay_ms;
		long max_depth, max_per_host, time_limit_s;
		int want;
		int64_t hold_until;
	} rows[] = {
		{ "due", 0, ST_UNFETCHED, 0, 0, 0, 0, -1, 0, 0, 0, GEN_SELECT, 0 },
		{ "not due yet", 0, ST_FETCHED, 2000, 0, 0, 0, -1, 0, 0, 0, GEN_NOT_DUE, 0 },
		{ "a trap is never due", 0, ST_TRAP, 0, 0, 0, 0, -1, 0, 0, 0, GEN_NOT_DUE, 0 },
		{ "too deep", 4, ST_UNFETCHED, 0, 0, 0, 0, -1, 3, 0, 0, GEN_TOO_DEEP, 0 },
		{ "too deep before not due", 4, ST_FETCHED, 2000, 0, 0, 0, -1, 3, 0, 0,
		  GEN_TOO_DEEP, 0 },
		{ "at max_depth", 3, ST_UNFETCHED, 0, 0, 0, 0, -1, 3, 0, 0, GEN_SELECT, 0 },
		{ "host cap", 0, ST_UNFETCHED, 0, 5, 0, 0, -1, 0, 5, 0, GEN_HOST_CAPPED, 0 },
		{ "under the host cap", 0, ST_UNFETCHED, 0, 4, 0, 0, -1, 0, 5, 0, GEN_SELECT, 0 },
		{ "demoted host, after its few", 0, ST_UNFETCHED, 0, 2, 20, 15, -1, 0, 0, 0,
		  GEN_DEMOTED, 0 },
		{ "demoted host, its few per round", 0, ST_UNFETCHED, 0, 1, 20, 15, -1, 0, 0, 0,
		  GEN_SELECT, 0 },
		{ "few duplicates: not demoted", 0, ST_UNFETCHED, 0, 2, 20, 5, -1, 0, 0, 0,
		  GEN_SELECT, 0 },
		{ "demoted before the host cap", 0, ST_UNFETCHED, 0, 5, 20, 15, -1, 0, 5, 0,
		  GEN_DEMOTED, 0 },
		{ "politeness: 60 s at 1 s is 61", 0, ST_UNFETCHED, 0, 61, 0, 0, -1, 0, 0, 60,
		  GEN_POLITENESS_CAPPED, 0 },
		{ "politeness: the 61st fits", 0, ST_UNFETCHED, 0, 60, 0, 0, -1, 0, 0, 60,
		  GEN_SELECT, 0 },
		{ "politeness: Crawl-delay 10 s", 0, ST_UNFETCHED, 0, 7, 0, 0, 10000, 0, 0, 60,
		  GEN_POLITENESS_CAPPED, 0 },
		{ "politeness: a deferred Crawl-delay counts the phase's", 0, ST_UNFETCHED, 0, 7,
		  0, 0, 999999, 0, 0, 60, GEN_SELECT, 0 },
		{ "no time limit: no politeness cap", 0, ST_UNFETCHED, 0, 100000, 0, 0, 10000, 0, 0,
		  0, GEN_SELECT, 0 },
		{ "a host's pause not ended: held", 0, ST_UNFETCHED, 0, 0, 0, 0, -1, 0, 0, 0,
		  GEN_HELD, 5000 },
		{ "a pause that ended", 0, ST_UNFETCHED, 0, 0, 0, 0, -1, 0, 0, 0, GEN_SELECT, 1000 },
		{ "not due before held", 0, ST_FETCHED, 2000, 0, 0, 0, -1, 0, 0, 0, GEN_NOT_DUE,
		  5000 },
	};
	struct config cfg;
	size_t i;

	config_defaults(&cfg);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crawl_record r;
		struct generate_host h = { .selected = rows[i].selected, .pages = rows[i].pages,
					   .duplicates = rows[i].dups,
					   .crawl_delay_ms = rows[i].crawl_delay_ms,
					   .hold_until = rows[i].hold_until };
		struct generate_rules g;

		generate_rules_from(&cfg, &g);
		g.max_depth = rows[i].max_depth;
		g.max_per_host = rows[i].max_per_host;
		g.round_ms = (int64_t)rows[i].time_limit_s * 1000;
		g.delay_ms = 1000;
		g.max_crawl_delay_ms = 30000;
		g.demote_min_pages = 10;
		g.demote_share = 0.5;
		g.demoted_per_round = 2;
		memset(&r, 0, sizeof(r));
		r.depth = rows[i].depth;
		r.status = (uint8_t)rows[i].status;
		r.next_fetch = rows[i].next_fetch;
		CHECK((int)generate_select(&r, &h, &g, 1000) == rows[i].want, "%s: verdict %d",
		      rows[i].name, (int)generate_select(&r, &h, &g, 1000));
	}
}

/* A URL its origin's expired robots.txt denies likely makes no request
 * (the fetch asks the robots.txt again first), so the round's span does
 * not count it: past the span's requests it is still taken (the fetch
 * records it denied), up to as many denied again; both count against
 * generate.max_per_host, the fetch list's bound. */
static void denied_rows(const struct config *cfg)
{
	static const struct {
		const char *name;
		enum generate_robots denied;
		uint64_t selected, denied_taken;
		long max_per_host;
		enum generate_verdict want;
	} rows[] = {
		{ "allowed, the span's 2 requests taken: capped", 0, 2, 0, 0,
		  GEN_POLITENESS_CAPPED },
		{ "allowed, one request left: taken", 0, 1, 5, 0, GEN_SELECT },
		{ "denied, the span's 2 requests taken: taken", GEN_ROBOTS_STALE, 2, 0, 0,
		  GEN_SELECT },
		{ "denied, one denied taken: taken", GEN_ROBOTS_STALE, 2, 1, 0, GEN_SELECT },
		{ "denied, as many denied as the span: capped", GEN_ROBOTS_STALE, 0, 2, 0,
		  GEN_POLITENESS_CAPPED },
		{ "denied, max_per_host counts both: capped", GEN_ROBOTS_STALE, 1, 1, 2,
		  GEN_HOST_CAPPED },
		{ "allowed, max_per_host counts both: capped", 0, 1, 1, 2, GEN_HOST_CAPPED },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crawl_record r;
		struct generate_host h = { .selected = rows[i].selected, .crawl_delay_ms = -1,
					   .denied_taken = rows[i].denied_taken,
					   .robots = rows[i].denied };
		struct generate_rules g;
		enum generate_verdict v;

		generate_rules_from(cfg, &g);
		g.max_per_host = rows[i].max_per_host;
		g.round_ms = 1000;   /* at a 1 s delay: 2 requests */
		g.delay_ms = 1000;
		memset(&r, 0, sizeof(r));
		r.status = ST_UNFETCHED;
		v = generate_select(&r, &h, &g, 1000);
		CHECK(v == rows[i].want, "%s: verdict %d", rows[i].name, (int)v);
	}
}

/* A due URL a robots.txt answer still valid denies is not selected
 * (GEN_DENIED), whatever its host's caps, the span or a hold: it takes no
 * place in the round. What comes before it still does: depth, not due,
 * the seed's max_pages, an operator's block. */
static void valid_denied_rows(const struct config *cfg)
{
	static const struct {
		const char *name;
		enum generate_robots robots;
		uint32_t depth;
		int64_t next_fetch, hold_until;
		uint64_t selected;
		int seed_capped, block;
		enum generate_verdict want;
	} rows[] = {
		{ "denied: not selected", GEN_ROBOTS_DENIED, 0, 0, 0, 0, 0, 0, GEN_DENIED },
		{ "denied past the span's requests", GEN_ROBOTS_DENIED, 0, 0, 0, 9, 0, 0,
		  GEN_DENIED },
		{ "denied past max_per_host", GEN_ROBOTS_DENIED, 0, 0, 0, 5, 0, 0, GEN_DENIED },
		{ "denied while its host holds", GEN_ROBOTS_DENIED, 0, 0, 5000, 0, 0, 0,
		  GEN_DENIED },
		{ "denied but not due", GEN_ROBOTS_DENIED, 0, 2000, 0, 0, 0, 0, GEN_NOT_DUE },
		{ "denied but too deep", GEN_ROBOTS_DENIED, 4, 0, 0, 0, 0, 0, GEN_TOO_DEEP },
		{ "denied, its seed's pages spent", GEN_ROBOTS_DENIED, 0, 0, 0, 0, 1, 0,
		  GEN_SEED_CAPPED },
		{ "denied, its host blocked: the block's", GEN_ROBOTS_DENIED, 0, 0, 0, 0, 0, 1,
		  GEN_SELECT },
		{ "expired answer: selected, counted apart", GEN_ROBOTS_STALE, 0, 0, 0, 3, 0, 0,
		  GEN_SELECT },
		{ "allowed, past the span: capped", GEN_ROBOTS_NONE, 0, 0, 0, 2, 0, 0,
		  GEN_POLITENESS_CAPPED },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crawl_record r;
		struct generate_host h = { .selected = rows[i].selected, .crawl_delay_ms = -1,
					   .hold_until = rows[i].hold_until,
					   .robots = rows[i].robots,
					   .seed_capped = rows[i].seed_capped };
		struct generate_rules g;
		enum generate_verdict v;

		h.op.line = rows[i].block;
		h.op.block = rows[i].block;
		h.op.delay_ms = h.op.max_in_flight = h.op.max_per_host = -1;
		generate_rules_from(cfg, &g);
		g.max_depth = 3;
		g.max_per_host = 5;
		g.round_ms = 1000;   /* at a 1 s delay: 2 requests */
		g.delay_ms = 1000;
		memset(&r, 0, sizeof(r));
		r.status = ST_UNFETCHED;
		r.depth = rows[i].depth;
		r.next_fetch = rows[i].next_fetch;
		v = generate_select(&r, &h, &g, 1000);
		CHECK(v == rows[i].want, "%s: verdict %d", rows[i].name, (int)v);
	}
}

/* Which answers generate judges by: one within robots.cache_ttl_s, as the
 * fetch reads the cache (expired at the TTL itself). */
static void robots_of_table(void)
{
	static const struct {
		const char *name;
		int denies;
		int64_t at, ttl, now;
		enum generate_robots want;
	} rows[] = {
		{ "allowed", 0, 100, 1000, 200, GEN_ROBOTS_NONE },
		{ "allowed, expired", 0, 100, 1000, 5000, GEN_ROBOTS_NONE },
		{ "denied, fresh", 1, 100, 1000, 200, GEN_ROBOTS_DENIED },
		{ "denied, the last µs", 1, 100, 1000, 1099, GEN_ROBOTS_DENIED },
		{ "denied, at the TTL: expired", 1, 100, 1000, 1100, GEN_ROBOTS_STALE },
		{ "denied, long expired", 1, 100, 1000, 90000, GEN_ROBOTS_STALE },
		{ "denied, no TTL", 1, 100, 0, 100, GEN_ROBOTS_STALE },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum generate_robots v = generate_robots_of(rows[i].denies, rows[i].at,
							    rows[i].ttl, rows[i].now);

		CHECK(v == rows[i].want, "%s: %d", rows[i].name, (int)v);
	}
}

/* The outcome generate writes for a URL it found denied: update reads it
 * as the fetcher's - denied, due again when the robots.txt that denied it
 * is asked again, a refusal for the decision log. */
static void denied_outcome(const struct config *cfg)
{
	struct crawl_record old, out;
	struct fetch_record f;
	int64_t at = 5000000;

	memset(&old, 0, sizeof(old));
	old.url = "http://a.test/private/x";
	old.url_len = strlen(old.url);
	old.depth = 2;
	old.cash = 0.25;
	generate_denied_outcome(&old, at, &f);
	CHECK(f.rec.status == ST_DENIED && f.rec.fetched_at == at && f.rec.depth == 2 &&
	      f.rec.url == old.url && f.rec.cash == 0.25, "the outcome's record");
	CHECK(f.reason_len == 10 && !memcmp(f.reason, "robots.txt", 10), "reason robots.txt");
	merge_apply(&old, &f, cfg, &out);
	CHECK(out.status == ST_DENIED && out.next_fetch == at + cfg->robots_ttl_s * 1000000LL,
	      "due when its robots.txt is asked again: %lld", (long long)out.next_fetch);
	CHECK_STR(merge_refusal(&out), "robots");
}

/* The operator's host rules (hosts.rules) in generate_select. */
static void operator_table(void)
{
	static const struct {
		const char *name;
		int status;
		const char *reason;
		int64_t next_fetch;
		uint64_t selected;
		int block;
		long delay_ms, max_per_host;
		int want;
	} rows[] = {
		{ "no rule: the phase's cap", ST_UNFETCHED, "", 0, 5, 0, -1, -1, GEN_HOST_CAPPED },
		{ "a host's own cap, higher", ST_UNFETCHED, "", 0, 5, 0, -1, 9, GEN_SELECT },
		{ "a host's own cap, lower", ST_UNFETCHED, "", 0, 2, 0, -1, 2, GEN_HOST_CAPPED },
		{ "blocked: every due URL, no cap", ST_UNFETCHED, "", 0, 50, 1, -1, -1, GEN_SELECT },
		{ "blocked: not due stays not due", ST_FETCHED, "", 2000, 0, 1, -1, -1,
		  GEN_NOT_DUE },
		{ "unblocked: due at once", ST_BLOCKED, "operator", 2000, 0, 0, -1, -1,
		  GEN_SELECT },
		{ "still blocked: not yet", ST_BLOCKED, "operator", 2000, 0, 1, -1, -1,
		  GEN_NOT_DUE },
		{ "blocked for its address: waits", ST_BLOCKED, "non-public address", 2000, 0, 0,
		  -1, -1, GEN_NOT_DUE },
		{ "a faster delay: more fit the phase", ST_UNFETCHED, "", 0, 100, 0, 250, 0,
		  GEN_SELECT },
		{ "a slower delay: fewer fit", ST_UNFETCHED, "", 0, 10, 0, 10000, 0,
		  GEN_POLITENESS_CAPPED },
	};
	struct config cfg;
	size_t i;

	config_defaults(&cfg);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crawl_record r;
		struct generate_host h = { .selected = rows[i].selected, .crawl_delay_ms = -1 };
		struct generate_rules g;

		h.op.line = 1;
		h.op.block = rows[i].block;
		h.op.delay_ms = rows[i].delay_ms;
		h.op.max_in_flight = -1;
		h.op.max_per_host = rows[i].max_per_host;
		if (!strcmp(rows[i].name, "no rule: the phase's cap"))
			memset(&h.op, 0, sizeof(h.op));
		generate_rules_from(&cfg, &g);
		g.max_per_host = 5;
		g.round_ms = 60000;
		g.delay_ms = 1000;
		memset(&r, 0, sizeof(r));
		r.status = (uint8_t)rows[i].status;
		r.reason = rows[i].reason;
		r.reason_len = strlen(rows[i].reason);
		r.next_fetch = rows[i].next_fetch;
		CHECK((int)generate_select(&r, &h, &g, 1000) == rows[i].want, "%s: verdict %d",
		      rows[i].name, (int)generate_select(&r, &h, &g, 1000));
	}
	denied_rows(&cfg);
	valid_denied_rows(&cfg);
	robots_of_table();
	denied_outcome(&cfg);
}

/* The seeds' bounds, over a one-rank count: each seed takes its budget of
 * its smallest keys, never one more. */
struct fake_keys {
	size_t n;
	const uint64_t *keys[3];
	size_t nkeys[3];
	int calls;
};

static void fake_count(void *arg, const uint64_t *bound, uint64_t *out)
{
	struct fake_keys *f = arg;
	size_t k, i;

	f->calls++;
	for (k = 0; k < f->n; k++)
		for (out[k] = 0, i = 0; i < f->nkeys[k]; i++)
			out[k] += f->keys[k][i] < bound[k];
}

static void seed_bounds(void)
{
	static const uint64_t a[] = { 10, 20, 30, 40, 50 }, b[] = { 7, 7000, UINT64_MAX - 1 },
		c[] = { 0, 2 };
	struct fake_keys f = { 3, { a, b, c }, { 5, 3, 2 }, 0 };
	uint64_t budget[3] = { 2, 5, 0 }, bound[3];

	seedcap_bounds(3, budget, fake_count, &f, bound);
	CHECK(f.calls == 64, "one count a bit: %d", f.calls);
	CHECK(bound[0] > 20 && bound[0] <= 30, "two of five: bound %llu",
	      (unsigned long long)bound[0]);
	CHECK(bound[1] == UINT64_MAX, "room for all: bound %llu", (unsigned long long)bound[1]);
	CHECK(bound[2] == 0, "budget spent: nothing, not even key 0");
	{
		struct crawl_record r = { .url = "http://a.test/x", .url_len = 15, .depth = 2 };
		struct crawl_record s = { .url = "http://a.test/x", .url_len = 15, .depth = 1 };

		CHECK(seedcap_key(&s) < seedcap_key(&r) && seedcap_key(&r) != UINT64_MAX,
		      "nearer the seed first");
	}
	{
		struct crawl_record r = { .url = "http://a.test/x", .url_len = 15 };
		struct generate_host h = { .crawl_delay_ms = -1, .seed_capped = 1 };
		struct generate_rules g;
		struct config cfg;

		config_defaults(&cfg);
		generate_rules_from(&cfg, &g);
		CHECK(generate_select(&r, &h, &g, 1000) == GEN_SEED_CAPPED, "a capped seed's URL");
		r.next_fetch = 2000;
		CHECK(generate_select(&r, &h, &g, 1000) == GEN_NOT_DUE, "not due comes first");
	}
}

/* generate_rejudged: which outcomes the configuration decided, judged
 * again once when it changes. */
static void rejudged_table(void)
{
	static const struct {
		const char *name;
		int status;
		const char *reason;
		int64_t fetched_at;
		int want;
	} rows[] = {
		{ "blocked: non-public address, before", ST_BLOCKED, "non-public address", 50, 1 },
		{ "blocked, decided under this config", ST_BLOCKED, "non-public address", 100, 0 },
		{ "blocked by an operator rule", ST_BLOCKED, "operator", 50, 1 },
		{ "denied: generate judges it against robots.txt", ST_DENIED, "robots.txt", 50, 0 },
		{ "deferred: Crawl-delay or robots.txt unreachable", ST_DEFERRED, "robots.txt", 50, 1 },
		{ "dns failure", ST_ERROR, "dns: failure", 50, 1 },
		{ "dns nxdomain, retries spent", ST_GONE, "dns: nxdomain", 50, 1 },
		{ "tls: untrusted (tls.ca_file)", ST_ERROR, "tls:untrusted", 50, 1 },
		{ "a timeout is the server's", ST_TIMEOUT, "Timeout was reached", 50, 0 },
		{ "a 404 is the server's", ST_GONE, "", 50, 0 },
		{ "a 503 is the server's", ST_ERROR, "http 503", 50, 0 },
		{ "fetched", ST_FETCHED, "", 50, 0 },
		{ "never fetched", ST_UNFETCHED, "", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crawl_record r;

		memset(&r, 0, sizeof(r));
		r.status = (uint8_t)rows[i].status;
		r.reason = rows[i].reason;
		r.reason_len = strlen(rows[i].reason);
		r.fetched_at = rows[i].fetched_at;
		CHECK(generate_rejudged(&r, 100) == rows[i].want, "%s", rows[i].name);
	}
}

/* The links a scope refused: which decision lines name a page to fetch
 * again (rescope.h), and which pages are due for it. */
static void rescope_table(void)
{
	static const struct {
		const char *line, *from;
	} lines[] = {
		{ "{\"url\":\"http://b.test/x\",\"reason\":\"scope:mode\",\"from\":\"http://a.test/\"}",
		  "http://a.test/" },
		{ "{\"url\":\"http://b.test/x\",\"reason\":\"scope:rules\",\"from\":\"http://a.test/q?a=\\\"1\\\"\"}",
		  "http://a.test/q?a=\"1\"" },
		{ "{\"url\":\"http://b.test/x\",\"reason\":\"depth\",\"from\":\"http://a.test/\"}", NULL },
		{ "{\"url\":\"http://b.test/\",\"reason\":\"scope:seed\",\"from\":\"\"}", NULL },
		{ "{\"url\":\"http://b.test/x\",\"reason\":\"scope:mode\",\"from\":\"http://a.test/\\u0001\"}",
		  NULL },
		{ "{\"url\":\"http://b.test/x\",\"reason\":\"scope:mode\",\"from\":\"http://a.te", NULL },
		{ "not json", NULL },
	};
	char from[256];
	struct crawl_record r;
	struct generate_host h;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int got = rescope_refused_from(lines[i].line, strlen(lines[i].line), from,
					       sizeof(from));

		CHECK(got == (lines[i].from != NULL) && (!got || !strcmp(from, lines[i].from)),
		      "line %zu: %d '%s'", i, got, got ? from : "");
	}
	memset(&r, 0, sizeof(r));
	memset(&h, 0, sizeof(h));
	r.status = ST_FETCHED;
	r.fetched_at = 50;
	CHECK(!generate_rescoped(&r, &h, 100), "a page without refused links: not due");
	h.rescope = 1;
	CHECK(generate_rescoped(&r, &h, 100), "a page with refused links, fetched before: due");
	CHECK(!generate_rescoped(&r, &h, 50), "fetched since the change: not again");
	r.status = ST_GONE;
	CHECK(!generate_rescoped(&r, &h, 100), "a page that is gone has no links to judge");
}

int main(void)
{
	struct crawl_record r;
	struct config cfg;
	struct fetch_record f;
	struct crawl_record old, out;

	rejudged_table();
	rescope_table();
	memset(&r, 0, sizeof(r));
	r.next_fetch = 100;
	CHECK(!generate_due(&r, 99, 0) && generate_due(&r, 100, 0), "due at next_fetch");
	r.depth = 4;
	CHECK(!generate_due(&r, 1000, 3) && generate_due(&r, 1000, 4), "max_depth");

	/* A deferred URL (Crawl-delay above the cap) comes back after the retry
	 * interval, keeps its retry count and digest. */
	config_defaults(&cfg);
	memset(&old, 0, sizeof(old));
	old.url = "http://a.test/";
	old.url_len = strlen(old.url);
	old.retries = 2;
	old.digest = 77;
	memset(&f, 0, sizeof(f));
	f.rec = old;
	f.rec.status = ST_DEFERRED;
	f.rec.fetched_at = 1000000;
	f.rec.digest = 0;
	merge_apply(&old, &f, &cfg, &out);
	CHECK(out.status == ST_DEFERRED && out.retries == 2 && out.digest == 77 &&
	      out.next_fetch == 1000000 + cfg.retry_interval_s * 1000000LL,
	      "deferred: retries %u digest %llu next %lld", out.retries,
	      (unsigned long long)out.digest, (long long)out.next_fetch);
	CHECK_STR(crawl_record_status_name(ST_DEFERRED), "deferred");
	select_table();
	operator_table();
	seed_bounds();
	TEST_DONE();
}

/*
 * test_origin.c - the robots.txt life of an origin (robots/origin.h) as a
 * table of event scripts: each row starts from a fresh origin, applies its
 * events in order and checks the state (and, for "need", the action) after
 * each one. Then what the rules say once READY, and where a redirected
 * robots.txt is asked. Pure: times are given.
 */
#include "robots/origin.h"
#include "test.h"

#define SEC 1000000LL
#define TTL (3600 * SEC)
#define RETRY (600 * SEC)
#define NOW (1700000000 * SEC)

enum ev { END, NEED, ANSWER, CACHE };

struct step {
	enum ev ev;
	int status;              /* ANSWER, CACHE */
	const char *body;
	const char *location;    /* ANSWER */
	int64_t age;             /* CACHE: how old the entry is */
	enum origin_state state; /* after the event */
	int action;              /* NEED: the action expected */
};

struct script {
	const char *name;
	struct step steps[12];
};

#define ALLOWS "User-agent: *\nAllow: /\n"
#define DENIES "User-agent: *\nDisallow: /private\n"

static const struct script scripts[] = {
	{ "fetched, 200", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_WAIT },
		{ ANSWER, 200, DENIES, 0, 0, ORIGIN_READY, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_READY, ORIGIN_APPLY } } },
	{ "404: everything allowed", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 404, "", 0, 0, ORIGIN_READY, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_READY, ORIGIN_APPLY } } },
	{ "503: unavailable, URLs held", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 503, "", 0, 0, ORIGIN_UNAVAILABLE, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_UNAVAILABLE, ORIGIN_HOLD } } },
	{ "429 and no answer: unavailable", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 429, "", 0, 0, ORIGIN_UNAVAILABLE, 0 },
		{ ANSWER, 0, "", 0, 0, ORIGIN_UNAVAILABLE, 0 } } },
	{ "a redirect is a hop of its own", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "https://a.test/robots.txt", 0, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 200, ALLOWS, 0, 0, ORIGIN_READY, 0 } } },
	{ "a redirect without a target: allowed", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 302, "", "", 0, ORIGIN_READY, 0 } } },
	{ "five hops are followed, the sixth is not", {
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "http://b.test/1", 0, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "http://b.test/2", 0, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "http://b.test/3", 0, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "http://b.test/4", 0, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "http://b.test/5", 0, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK },
		{ ANSWER, 301, "", "http://b.test/6", 0, ORIGIN_READY, 0 } } },
	{ "cached and fresh", {
		{ CACHE, 200, DENIES, 0, 10 * SEC, ORIGIN_READY, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_READY, ORIGIN_APPLY } } },
	{ "cached and expired: asked again", {
		{ CACHE, 200, DENIES, 0, TTL, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK } } },
	{ "cached failure within the retry interval: held", {
		{ CACHE, 500, "", 0, RETRY - SEC, ORIGIN_UNAVAILABLE, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_UNAVAILABLE, ORIGIN_HOLD } } },
	{ "cached failure past the retry interval: asked again", {
		{ CACHE, 500, "", 0, RETRY, ORIGIN_UNKNOWN, 0 },
		{ NEED, 0, 0, 0, 0, ORIGIN_FETCHING, ORIGIN_ASK } } },
	{ "cached 404 stays allowed", {
		{ CACHE, 404, "", 0, RETRY * 2, ORIGIN_READY, 0 } } },
};

static void run_script(const struct script *s, const struct origin_policy *pol)
{
	struct origin o;
	size_t i;

	origin_init(&o, "http://a.test", 3);
	for (i = 0; i < 12 && s->steps[i].ev != END; i++) {
		const struct step *st = &s->steps[i];
		int action = -1;

		switch (st->ev) {
		case NEED:
			action = (int)origin_on_need(&o);
			break;
		case ANSWER:
			origin_on_answer(&o, pol, NOW, st->status, st->body, strlen(st->body),
					 st->location);
			break;
		case CACHE:
			origin_on_cache(&o, pol, NOW - st->age, st->status, st->body,
					strlen(st->body), NOW);
			break;
		case END:
			break;
		}
		CHECK(o.state == st->state, "%s, step %zu: state %s, want %s", s->name, i,
		      origin_state_name(o.state), origin_state_name(st->state));
		if (st->ev == NEED)
			CHECK(action == st->action, "%s, step %zu: action %d, want %d", s->name, i,
			      action, st->action);
	}
	origin_release(&o);
}

static void rules_and_urls(const struct origin_policy *pol)
{
	struct origin_policy small = *pol;
	struct origin o;

	small.max_bytes = 30;
	char url[256];

	origin_init(&o, "http://a.test:8080", 0);
	origin_robots_url(&o, url, sizeof(url));
	CHECK(!strcmp(url, "http://a.test:8080/robots.txt"), "robots URL %s", url);
	(void)origin_on_need(&o);
	origin_on_answer(&o, pol, NOW, 200, DENIES "Crawl-delay: 3\n",
			 strlen(DENIES "Crawl-delay: 3\n"), NULL);
	CHECK(o.answered && o.fetched_at == NOW && o.http_status == 200, "answer recorded");
	CHECK(!robots_allowed(o.rules, "/private/x") && robots_allowed(o.rules, "/public"),
	      "rules of the answer apply");
	CHECK(robots_crawl_delay_ms(o.rules) == 3000, "crawl delay read");
	origin_release(&o);

	origin_init(&o, "http://a.test", 0);
	(void)origin_on_need(&o);
	origin_on_answer(&o, pol, NOW, 308, "", 0, "https://www.a.test/robots.txt");
	origin_robots_url(&o, url, sizeof(url));
	CHECK(!strcmp(url, "https://www.a.test/robots.txt"), "redirected robots URL %s", url);
	CHECK(o.hops == 1, "one hop");
	origin_release(&o);

	/* A body longer than the cap is kept to the cap and one byte more. */
	origin_init(&o, "http://a.test", 0);
	(void)origin_on_need(&o);
	origin_on_answer(&o, &small, NOW, 200, "User-agent: *\nDisallow: /a\nDisallow: /b\n", 40,
			 NULL);
	CHECK(o.body.len == small.max_bytes + 1, "body kept to the cap + 1: %zu", o.body.len);
	origin_release(&o);
}

/* Why a robots.txt failed is kept in the cache's body and read back: a
 * TLS failure refuses the origin's URLs in later phases too; a failure
 * cached before the configuration changed is asked again. */
static void failures_kept(const struct origin_policy *pol)
{
	struct origin_policy p = *pol;
	struct origin o, back;

	origin_init(&o, "https://expired.test", 0);
	(void)origin_on_need(&o);
	origin_on_answer(&o, pol, NOW, 0, NULL, 0, NULL);
	origin_on_failure(&o, "tls:expired");
	CHECK_STR(o.refused, "tls:expired");
	CHECK_STR(o.failure, "tls:expired");
	origin_init(&back, "https://expired.test", 0);
	origin_on_cache(&back, pol, NOW, 0, o.body.p, o.body.len, NOW + 1);
	CHECK(back.state == ORIGIN_UNAVAILABLE && origin_on_need(&back) == ORIGIN_HOLD,
	      "a cached failure holds");
	CHECK_STR(back.refused, "tls:expired");
	origin_release(&back);
	origin_init(&back, "https://expired.test", 0);
	origin_on_cache(&back, pol, NOW, 0, "dns: nxdomain", 13, NOW + 1);
	CHECK(back.refused == NULL, "not TLS: not refused");
	CHECK_STR(back.failure, "dns: nxdomain");
	origin_release(&back);
	p.since_us = NOW + 1;
	origin_init(&back, "https://expired.test", 0);
	origin_on_cache(&back, &p, NOW, 0, o.body.p, o.body.len, NOW + 2);
	CHECK(back.state == ORIGIN_UNKNOWN && origin_on_need(&back) == ORIGIN_ASK,
	      "a failure from before the configuration: asked again");
	origin_release(&back);
	origin_init(&back, "https://expired.test", 0);
	origin_on_cache(&back, &p, NOW, 503, "", 0, NOW + 2);
	CHECK(back.state == ORIGIN_UNKNOWN, "a 503 from before the configuration: asked again");
	origin_release(&back);
	origin_init(&back, "https://expired.test", 0);
	origin_on_cache(&back, &p, NOW, 200, "User-agent: *\nDisallow: /x\n", 26, NOW + 2);
	CHECK(back.state == ORIGIN_READY, "rules from before the configuration still apply");
	origin_release(&back);
	origin_on_answer(&o, pol, NOW, 200, "", 0, NULL);
	CHECK(o.refused == NULL && o.failure == NULL, "an answer clears why");
	origin_release(&o);
}

int main(void)
{
	struct origin_policy pol = { "mpicrawl", TTL, RETRY, 500 * 1024, 0 };
	size_t i;

	failures_kept(&pol);

	for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		run_script(&scripts[i], &pol);
	rules_and_urls(&pol);
	TEST_DONE();
}

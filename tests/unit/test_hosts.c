/*
 * test_hosts.c - a host's life in the fetch phase (fetch/hosts.h): scripts
 * of the fetcher's moves - resolve, start, end, wait for robots.txt, stop -
 * with the state and heap position each leaves. Then groups: one member's
 * request holds the others back. No network, no clock.
 */
#include "fetch/hosts.h"

#include "test.h"

#include <stdio.h>
#include <string.h>

/* What sched.h adds to a delay. */
#define M SCHED_MARGIN_US

enum op { END, SET_RESOLVING, SET_READY, SET_ROBOTS, START, FINISH, TAKE, SETTLE, STOP };

struct step {
	enum op op;
	int64_t t;               /* START, FINISH: when */
	enum host_state state;   /* after the step */
	int64_t heap_key;        /* -1: not in the heap */
};

struct script {
	const char *name;
	int urls;
	struct step steps[12];
};

static const struct script scripts[] = {
	{ "a host's round", 2, {
		{ SETTLE, 0, HOST_NEW, 0 },
		{ SET_RESOLVING, 0, HOST_RESOLVING, -1 },
		{ SET_READY, 0, HOST_READY, 0 },
		{ START, 100, HOST_READY, -1 },          /* one in flight: out of the heap */
		{ FINISH, 300, HOST_READY, 1300 + M },    /* back at end + delay */
		{ START, 1300 + M, HOST_DRAINING, -1 },   /* the last URL started */
		{ FINISH, 1400 + M, HOST_DONE, -1 } } },
	{ "waiting for robots.txt", 1, {
		{ SET_RESOLVING, 0, HOST_RESOLVING, -1 },
		{ SET_READY, 0, HOST_READY, 0 },
		{ SET_ROBOTS, 0, HOST_ROBOTS, -1 },
		{ SET_READY, 0, HOST_READY, 0 },
		{ START, 10, HOST_DRAINING, -1 },
		{ FINISH, 20, HOST_DONE, -1 } } },
	{ "stopped with a request in flight", 3, {
		{ SET_RESOLVING, 0, HOST_RESOLVING, -1 },
		{ SET_READY, 0, HOST_READY, 0 },
		{ START, 10, HOST_READY, -1 },
		{ STOP, 0, HOST_DRAINING, -1 },           /* the rest left due */
		{ FINISH, 50, HOST_DONE, -1 } } },
	{ "its DNS failed: nothing left", 2, {
		{ SET_RESOLVING, 0, HOST_RESOLVING, -1 },
		{ TAKE, 0, HOST_RESOLVING, -1 },
		{ SET_READY, 0, HOST_DONE, -1 } } },
	{ "a DONE host stays done", 1, {
		{ TAKE, 0, HOST_NEW, 0 },
		{ SETTLE, 0, HOST_DONE, -1 },
		{ SET_READY, 0, HOST_DONE, -1 } } },
};

static void run_script(const struct script *s)
{
	struct sched_policy pol = { .delay_us = 1000, .max_in_flight = 1 };
	struct host_table t;
	struct host *h;
	struct crawl_record rec;
	size_t i;
	int k;

	hosts_init(&t, &pol);
	h = hosts_get(&t, "a.test");
	memset(&rec, 0, sizeof(rec));
	for (k = 0; k < s->urls; k++)
		hosts_add(h, "http://a.test/", &rec, 0, NULL);
	for (i = 0; i < 12 && s->steps[i].op != END; i++) {
		const struct step *st = &s->steps[i];

		switch (st->op) {
		case SET_RESOLVING: hosts_set(&t, h, HOST_RESOLVING); break;
		case SET_READY: hosts_set(&t, h, HOST_READY); break;
		case SET_ROBOTS: hosts_set(&t, h, HOST_ROBOTS); break;
		case START:
			h->next++;
			sched_on_start(&h->s, st->t);
			hosts_settle(&t, h, 0);
			break;
		case FINISH:
			sched_on_end(&h->s, st->t);
			hosts_settle(&t, h, 0);
			break;
		case TAKE: h->next = h->n; break;
		case SETTLE: hosts_settle(&t, h, 0); break;
		case STOP:
			h->next = h->n;
			hosts_settle(&t, h, 1);
			break;
		case END: break;
		}
		CHECK(h->state == st->state, "%s, step %zu: %s, want %s", s->name, i,
		      hosts_state_name(h->state), hosts_state_name(st->state));
		if (st->heap_key == -1)
			CHECK(h->s.heap_pos == SIZE_MAX, "%s, step %zu: in the heap", s->name, i);
		else
			CHECK(h->s.heap_pos != SIZE_MAX && h->s.heap_key == st->heap_key,
			      "%s, step %zu: heap key %lld, want %lld", s->name, i,
			      (long long)h->s.heap_key, (long long)st->heap_key);
	}
	CHECK(t.left == (h->state == HOST_DONE ? 0u : 1u), "%s: hosts left %zu", s->name,
	      t.left);
	hosts_release(&t);
}

/* Two hosts of a group: the first's request holds the second back until
 * it ends and the delay passes. */
static void groups(void)
{
	struct sched_policy pol = { .delay_us = 1000, .max_in_flight = 1 };
	struct host_table t;
	struct host *a, *b;
	struct crawl_record rec;

	hosts_init(&t, &pol);
	memset(&rec, 0, sizeof(rec));
	a = hosts_get(&t, "a.example.test");
	b = hosts_get(&t, "b.example.test");
	hosts_add(a, "http://a.example.test/", &rec, 0, NULL);
	hosts_add(b, "http://b.example.test/", &rec, 0, NULL);
	hosts_join(&t, a, "example.test");
	hosts_join(&t, b, "example.test");
	CHECK(a->gate == b->gate && a->gate != &a->s, "one gate for the group");
	hosts_set(&t, a, HOST_READY);
	hosts_set(&t, b, HOST_READY);
	a->next++;
	sched_on_start(&a->s, 100);
	sched_on_start(a->gate, 100);
	hosts_settle_group(&t, a, 0);
	CHECK(b->s.heap_pos == SIZE_MAX, "a member's request holds the others");
	CHECK(hosts_due(&t, 100) == NULL, "no host due while the group's request runs");
	sched_on_end(&a->s, 400);
	sched_on_end(a->gate, 400);
	hosts_settle_group(&t, a, 0);
	CHECK(a->state == HOST_DONE && b->state == HOST_READY && b->s.heap_key == 1400 + M,
	      "after it ends, the next member waits the delay: %lld", (long long)b->s.heap_key);
	CHECK(hosts_due(&t, 1399 + M) == NULL && hosts_due(&t, 1400 + M) == b,
	      "b due at 1400 + M");
	CHECK(hosts_next_time(&t) == 1400 + M, "next time 1400 + M");
	hosts_release(&t);
}

/* A host whose next start lies beyond max_hold leaves the round, keeping
 * the hold; one just under it waits. */
static void holds(void)
{
	struct sched_policy pol = { .delay_us = 1000, .max_in_flight = 1 };
	struct host_table t;
	struct host *a, *b;
	struct crawl_record rec;
	int k;

	hosts_init(&t, &pol);
	t.max_hold_us = 30000;
	hosts_tick(&t, 100000);
	memset(&rec, 0, sizeof(rec));
	a = hosts_get(&t, "a.test");
	b = hosts_get(&t, "b.test");
	for (k = 0; k < 3; k++) {
		hosts_add(a, "http://a.test/", &rec, 0, NULL);
		hosts_add(b, "http://b.test/", &rec, 0, NULL);
	}
	a->next = 1;
	sched_hold(a->gate, 100000 + 30001);   /* a Retry-After past the limit */
	sched_hold(b->gate, 100000 + 30000);   /* one at the limit */
	hosts_set(&t, a, HOST_READY);
	hosts_set(&t, b, HOST_READY);
	CHECK(a->state == HOST_DONE && a->next == a->n && t.released == 1 &&
	      t.released_urls == 2, "released: %s, %llu URLs", hosts_state_name(a->state),
	      (unsigned long long)t.released_urls);
	CHECK(a->gate->not_before_us == 130001, "the released host keeps its hold");
	CHECK(b->state == HOST_READY && b->s.heap_key == 130000, "one at the limit waits");
	t.max_hold_us = 0;
	sched_hold(b->gate, 100000 + 3600000000LL);
	hosts_settle(&t, b, 0);
	CHECK(b->state == HOST_READY, "no limit: any hold is waited for");
	hosts_release(&t);
}

/* Requisites another rank handed over after a host's turns ended
 * (hosts_reopen): a resolved host is READY again at its next start, one
 * never resolved NEW; a host that left the round takes none (hosts_closed). */
static void reopen(void)
{
	struct sched_policy pol = { .delay_us = 1000, .max_in_flight = 1, .max_failures = 3 };
	struct host_table t;
	struct host *a, *b, *c;
	struct crawl_record rec;

	hosts_init(&t, &pol);
	memset(&rec, 0, sizeof(rec));
	a = hosts_get(&t, "a.test");
	b = hosts_get(&t, "b.test");
	c = hosts_get(&t, "c.test");
	hosts_add(a, "http://a.test/", &rec, 0, NULL);
	snprintf(a->addr, sizeof(a->addr), "127.0.0.1");
	a->next = 1;
	sched_on_start(&a->s, 100);
	sched_on_end(&a->s, 200);
	hosts_settle(&t, a, 0);
	b->next = b->n;          /* its name failed: nothing left */
	hosts_settle(&t, b, 0);
	c->failures = 3;         /* parked (host_outcome's SCHED_PARK) */
	c->parked = 1;
	hosts_settle(&t, c, 0);
	CHECK(t.left == 0 && a->state == HOST_DONE && b->state == HOST_DONE, "all done");
	CHECK(!hosts_closed(a) && !hosts_closed(b) && hosts_closed(c),
	      "only the parked host is closed");
	hosts_add(a, "http://a.test/i.png", &rec, 0, NULL);
	hosts_reopen(&t, a);
	CHECK(a->state == HOST_READY && a->s.heap_key == 1200 + M && t.left == 1,
	      "resolved: READY at end + delay (%s at %lld)", hosts_state_name(a->state),
	      (long long)a->s.heap_key);
	hosts_add(b, "http://b.test/i.png", &rec, 0, NULL);
	hosts_reopen(&t, b);
	CHECK(b->state == HOST_NEW && b->s.heap_key == 0 && t.left == 2,
	      "never resolved: NEW, to ask DNS again");
	hosts_add(a, "http://a.test/j.png", &rec, 0, NULL);
	hosts_reopen(&t, a);
	CHECK(a->state == HOST_READY && t.left == 2, "reopening a READY host changes nothing");
	a->released = 1;
	CHECK(hosts_closed(a), "a released host is closed");
	c->failures = 0;   /* a request in flight when it was parked succeeded */
	CHECK(hosts_closed(c), "parked stays closed after a success");
	hosts_release(&t);
}

/* The operator's host rules: a name rule's overrides, an address rule's
 * block, and what a resolved address means (hosts_address_verdict). */
static void operator_rules(void)
{
	static const char text[] = "fast.test delay_ms=50 max_in_flight=3\n"
				   "named.test delay_ms=700\n"
				   "203.0.113.0/24 block\n"
				   "127.0.0.2 delay_ms=9000\n";
	static const struct {
		const char *host, *addr;
		int allow_private;
		const char *want;
		int64_t delay_us;
		int in_flight;
	} cases[] = {
		{ "fast.test", "192.0.2.1", 1, NULL, 50000, 3 },
		{ "other.test", "203.0.113.5", 1, "operator", 1000, 1 },
		{ "fast.test", "203.0.113.5", 1, "operator", 50000, 3 },
		{ "other.test", "127.0.0.2", 0, "non-public address", 1000, 1 },
		{ "other.test", "127.0.0.2", 1, NULL, 9000000, 1 },
		{ "named.test", "127.0.0.2", 1, NULL, 700000, 1 },
		{ "other.test", "127.0.0.1", 1, NULL, 1000, 1 },
		/* Answers with an IPv6 and an IPv4 address: any one decides. */
		{ "other.test", "2001:db8::1,127.0.0.2", 0, "non-public address", 1000, 1 },
		{ "other.test", "::1,192.0.2.1", 0, "non-public address", 1000, 1 },
		{ "other.test", "2606:4700::1,192.0.2.1", 1, NULL, 1000, 1 },
		{ "other.test", "2606:4700::1,203.0.113.9", 1, "operator", 1000, 1 },
		{ "other.test", "127.0.0.2,::1", 1, NULL, 9000000, 1 },
		{ "other.test", "::1,127.0.0.2", 1, NULL, 1000, 1 },
	};
	struct sched_policy pol = { .delay_us = 1000, .max_in_flight = 1 };
	struct host_rules *r = NULL;
	struct addr_list none = { .n = 0 };
	char err[128];
	size_t i;

	CHECK(host_rules_parse(text, strlen(text), "t", &r, err, sizeof(err)) == CR_OK, "%s",
	      err);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct host_table t;
		struct host *h;
		struct host_settings s;
		const char *got;

		hosts_init(&t, &pol);
		h = hosts_get(&t, cases[i].host);
		if (host_rules_by_name(r, cases[i].host, &s))
			hosts_override(h, &s);
		got = hosts_address_verdict(h, cases[i].addr, cases[i].allow_private, &none, r);
		CHECK(cases[i].want ? got && !strcmp(got, cases[i].want) : !got,
		      "case %zu: verdict %s", i, got ? got : "go on");
		CHECK(h->pol.delay_us == cases[i].delay_us && h->pol.max_in_flight ==
		      cases[i].in_flight, "case %zu: delay %lld, in flight %d", i,
		      (long long)h->pol.delay_us, h->pol.max_in_flight);
		hosts_release(&t);
	}
	{
		struct host_table t;
		struct host *h;
		struct host_settings s;

		host_rules_free(&r);
		CHECK(host_rules_parse("*.blocked.test block\n", 21, "t", &r, err, sizeof(err)) ==
		      CR_OK, "a block rule");
		hosts_init(&t, &pol);
		h = hosts_get(&t, "a.blocked.test");
		CHECK(host_rules_by_name(r, h->name, &s) == 1, "matched by name");
		hosts_override(h, &s);
		CHECK(h->blocked && h->rule == 1, "blocked by its name");
		hosts_release(&t);
	}
	host_rules_free(&r);
}

/* Where hosts_add_next puts a URL: next to start, after an early
 * robots.txt not yet asked and after earlier ones it put there, in order.
 * Each case: the queue as moves ('a' hosts_add, 'n' hosts_add_next, 'e'
 * an early item, '+' one started), then the URLs left to start. */
static void add_next(void)
{
	static const struct { const char *moves, *left; } cases[] = {
		{ "aan", "2 0 1" },
		{ "a+an", "2 1" },
		{ "aanan", "2 4 0 1 3" },
		{ "ea+n", "2 1" },
		{ "ean", "2 1" },
		{ "n", "0" },
		{ "a+n+an", "3 2" },
	};
	struct sched_policy pol = { .delay_us = 1000, .max_in_flight = 1 };
	struct crawl_record rec;
	size_t c, k;

	memset(&rec, 0, sizeof(rec));
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct host_table t;
		struct host *h;
		char url[32], got[64] = "";
		unsigned u = 0;

		hosts_init(&t, &pol);
		h = hosts_get(&t, "a.test");
		for (const char *m = cases[c].moves; *m; m++) {
			snprintf(url, sizeof(url), "http://a.test/%u", u);
			if (*m == '+') {
				h->next++;
				continue;
			}
			u++;
			if (*m == 'n')
				hosts_add_next(h, url, &rec, 0, NULL);
			else
				hosts_add(h, url, &rec, 0, NULL)->early = *m == 'e';
		}
		for (k = h->next; k < h->n; k++) {
			if (h->items[k]->early)
				continue;
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
				 got[0] ? " " : "", h->items[k]->url + strlen("http://a.test/"));
		}
		CHECK(strcmp(got, cases[c].left) == 0, "%s: left '%s', want '%s'",
		      cases[c].moves, got, cases[c].left);
		hosts_release(&t);
	}
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		run_script(&scripts[i]);
	groups();
	holds();
	reopen();
	operator_rules();
	add_next();
	TEST_DONE();
}

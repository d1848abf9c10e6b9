/*
 * test_sched.c - politeness (fetch/sched.h): request spacing, the heap of
 * hosts, and tables for the Crawl-delay clamp, Retry-After holds, back-off
 * and parking, group gates and timing carried across phases. Times are
 * given; nothing sleeps.
 */
#include "test.h"
#include "fetch/sched.h"

#include <stdint.h>
#include <stdlib.h>

#define MS 1000LL
#define SEC 1000000LL

static void crawl_delays(void)
{
	static const struct {
		int64_t delay_us, max_us;
		long cd_ms;
		int defer;
		int64_t after_us;
	} rows[] = {
		{ 1 * SEC, 30 * SEC, -1, 0, 1 * SEC },        /* none given */
		{ 1 * SEC, 30 * SEC, 0, 0, 1 * SEC },         /* 0 never lowers */
		{ 1 * SEC, 30 * SEC, 500, 0, 1 * SEC },       /* below the delay: kept */
		{ 1 * SEC, 30 * SEC, 5000, 0, 5 * SEC },      /* raises */
		{ 1 * SEC, 30 * SEC, 30000, 0, 30 * SEC },    /* at the cap: taken */
		{ 1 * SEC, 30 * SEC, 30001, 1, 1 * SEC },     /* above: deferred, delay kept */
		{ 40 * SEC, 30 * SEC, 2000, 0, 40 * SEC },    /* a longer own delay wins */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sched_policy p = { .delay_us = rows[i].delay_us, .max_in_flight = 1,
					  .max_crawl_delay_us = rows[i].max_us };
		int d = sched_crawl_delay(&p, rows[i].cd_ms);

		CHECK(d == rows[i].defer && p.delay_us == rows[i].after_us,
		      "crawl delay row %zu: defer %d delay %lld", i, d, (long long)p.delay_us);
	}
}

/* Failures in a row: the hold each sets (from now = 0) and the verdict. */
static void backoff(void)
{
	static const struct {
		int failed;
		int verdict;
		int64_t hold_us;     /* not_before after it, 0: unchanged */
	} steps[] = {
		{ 1, SCHED_BACKOFF, 1 * SEC },    /* max(delay 200 ms, 1 s) */
		{ 1, SCHED_BACKOFF, 2 * SEC },
		{ 1, SCHED_BACKOFF, 4 * SEC },
		{ 1, SCHED_BACKOFF, 5 * SEC },    /* capped by backoff_max */
		{ 0, SCHED_GO, 5 * SEC },         /* a success resets the count */
		{ 1, SCHED_BACKOFF, 5 * SEC },    /* 1 s again, an older hold stays */
		{ 1, SCHED_BACKOFF, 5 * SEC },
		{ 1, SCHED_BACKOFF, 5 * SEC },
		{ 1, SCHED_BACKOFF, 5 * SEC },
		{ 1, SCHED_PARK, 5 * SEC },       /* the fifth in a row parks */
	};
	struct sched_policy base = { .delay_us = 200 * MS, .max_in_flight = 1,
				     .backoff_max_us = 5 * SEC, .max_failures = 5 };
	struct sched_host g;
	int failures = 0;
	size_t i;

	sched_host_init(&g);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		enum sched_verdict v = sched_on_outcome(&g, &failures, steps[i].failed, &base, 0);

		CHECK((int)v == steps[i].verdict && g.not_before_us == steps[i].hold_us,
		      "back-off step %zu: verdict %d hold %lld", i, (int)v,
		      (long long)g.not_before_us);
	}
	base.delay_us = 3 * SEC;
	failures = 0;
	sched_host_init(&g);
	(void)sched_on_outcome(&g, &failures, 1, &base, 100);
	CHECK(g.not_before_us == 100 + 3 * SEC, "back-off unit is the delay when longer");
}

static void holds_and_groups(void)
{
	struct sched_policy one = { .delay_us = 1000, .max_in_flight = 1 };
	struct sched_host gate, a, b;

	sched_host_init(&a);
	sched_hold(&a, 9000);
	sched_hold(&a, 4000);
	CHECK(a.not_before_us == 9000, "a shorter hold never shortens a longer one");
	CHECK(sched_next_start(&a, &one) == 9000, "hold binds the next start");

	sched_host_init(&gate);
	sched_host_init(&b);
	sched_on_start(&b, 500);
	sched_on_end(&b, 700);
	sched_gate_join(&gate, &a);
	sched_gate_join(&gate, &b);
	CHECK(gate.not_before_us == 9000 && gate.last_end_us == 700 && gate.last_start_us == 500,
	      "the gate takes each member's timing");
	CHECK(sched_next_start(&gate, &one) == 9000, "the group waits for the longest hold");
}

/* Wall clock 1e15 (µs), monotonic clock 5e9 at the same instant. */
static void carried(void)
{
	const int64_t wall = 1000000000000000LL, mono = 5000000000LL;
	static const struct {
		int64_t last_end_ago, hold_in;   /* wall, relative to now; 0: none */
		int64_t want_end, want_hold;     /* monotonic after carry_in; INT64_MIN / 0: none */
	} rows[] = {
		{ 0, 0, INT64_MIN, 0 },
		{ 2 * SEC, 0, 5000000000LL - 2 * SEC, 0 },
		{ -3 * SEC, 0, INT64_MIN, 0 },              /* a last end in the future: not trusted */
		{ 2 * SEC, 30 * SEC, 5000000000LL - 2 * SEC, 5000000000LL + 30 * SEC },
		{ 0, -1 * SEC, INT64_MIN, 0 },              /* a hold that passed */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sched_host g;
		int64_t le = rows[i].last_end_ago ? wall - rows[i].last_end_ago : 0;
		int64_t hu = rows[i].hold_in ? wall + rows[i].hold_in : 0, le2 = 0, hu2 = 0;

		sched_host_init(&g);
		sched_carry_in(&g, le, hu, wall, mono);
		CHECK(g.last_end_us == rows[i].want_end && g.not_before_us == rows[i].want_hold,
		      "carry in row %zu: end %lld hold %lld", i, (long long)g.last_end_us,
		      (long long)g.not_before_us);
		sched_carry_out(&g, wall, mono, &le2, &hu2);
		if (rows[i].want_end == INT64_MIN)
			CHECK(le2 == 0 && hu2 == 0, "carry out row %zu: nothing to keep", i);
		else
			CHECK(le2 == le && hu2 == (rows[i].want_hold ? hu : 0),
			      "carry out row %zu: round trip %lld %lld", i, (long long)le2,
			      (long long)hu2);
	}
}

/* The most requests a span holds (what generate selects of a host). */
static void feasible(void)
{
	CHECK(sched_feasible(0, 1000) == INT64_MAX, "no span, no bound");
	CHECK(sched_feasible(600000, 0) == INT64_MAX, "no delay, no bound");
	CHECK(sched_feasible(600000, 1000) == 601, "10 min at 1 s: %lld",
	      (long long)sched_feasible(600000, 1000));
	CHECK(sched_feasible(60000, 5000) == 13, "1 min at 5 s: %lld",
	      (long long)sched_feasible(60000, 5000));
	CHECK(sched_feasible(1000, 30000) == 1, "a delay longer than the span: one URL");
	CHECK(sched_feasible(3750, 1000) == 4, "3.75 s at 1 s: %lld",
	      (long long)sched_feasible(3750, 1000));
}

int main(void)
{
	struct sched_policy one = { .delay_us = 1000, .max_in_flight = 1 };
	struct sched_policy two = { .delay_us = 1000, .max_in_flight = 2 };
	struct sched_host h, hs[100];
	struct sched_heap q;
	int i;

	feasible();
	sched_host_init(&h);
	CHECK(sched_next_start(&h, &one) <= 0, "a new host may start at once");
	sched_on_start(&h, 5000);
	CHECK(sched_next_start(&h, &one) == INT64_MAX, "one in flight blocks the host");
	sched_on_end(&h, 5600);
	CHECK(sched_next_start(&h, &one) == 6600 + SCHED_MARGIN_US,
	      "delay (and the margin) counts from the end: %lld",
	      (long long)sched_next_start(&h, &one));
	h.not_before_us = 9000;
	CHECK(sched_next_start(&h, &one) == 9000, "Retry-After hold wins");

	sched_host_init(&h);
	sched_on_start(&h, 100);
	CHECK(sched_next_start(&h, &two) == 1100 + SCHED_MARGIN_US,
	      "two in flight: starts spaced by delay");
	sched_on_start(&h, 1100);
	CHECK(sched_next_start(&h, &two) == INT64_MAX, "max_in_flight reached");
	sched_on_end(&h, 1500);
	CHECK(sched_next_start(&h, &two) == 2100 + SCHED_MARGIN_US,
	      "next start after the last start");
	{
		struct sched_policy none = { .delay_us = 0, .max_in_flight = 1 };
		struct sched_host z;

		sched_host_init(&z);
		sched_on_start(&z, 100);
		sched_on_end(&z, 400);
		CHECK(sched_next_start(&z, &none) == 400, "no delay, no margin: %lld",
		      (long long)sched_next_start(&z, &none));
	}

	sched_heap_init(&q);
	for (i = 0; i < 100; i++) {
		sched_host_init(&hs[i]);
		sched_heap_set(&q, &hs[i], (i * 37) % 100);
	}
	sched_heap_set(&q, &hs[5], -1);
	CHECK(sched_heap_top(&q) == &hs[5], "decrease key moves to top");
	sched_heap_remove(&q, &hs[5]);
	{
		int64_t prev = INT64_MIN;
		int ok = 1, n = 0;
		struct sched_host *t;

		while ((t = sched_heap_top(&q)) != NULL) {
			if (t->heap_key < prev)
				ok = 0;
			prev = t->heap_key;
			sched_heap_remove(&q, t);
			n++;
		}
		CHECK(ok && n == 99, "heap pops in order (%d)", n);
	}
	sched_heap_release(&q);
	crawl_delays();
	backoff();
	holds_and_groups();
	carried();
	TEST_DONE();
}

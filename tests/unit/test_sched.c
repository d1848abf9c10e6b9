#include "test.h"
#include "fetch/sched.h"

#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	struct sched_policy one = { .delay_us = 1000, .max_in_flight = 1 };
	struct sched_policy two = { .delay_us = 1000, .max_in_flight = 2 };
	struct sched_host h, hs[100];
	struct sched_heap q;
	int i;

	sched_host_init(&h);
	CHECK(sched_next_start(&h, &one) <= 0, "a new host may start at once");
	sched_on_start(&h, 5000);
	CHECK(sched_next_start(&h, &one) == INT64_MAX, "one in flight blocks the host");
	sched_on_end(&h, 5600);
	CHECK(sched_next_start(&h, &one) == 6600, "delay counts from the end: %lld",
	      (long long)sched_next_start(&h, &one));
	h.not_before_us = 9000;
	CHECK(sched_next_start(&h, &one) == 9000, "Retry-After hold wins");

	sched_host_init(&h);
	sched_on_start(&h, 100);
	CHECK(sched_next_start(&h, &two) == 1100, "two in flight: starts spaced by delay");
	sched_on_start(&h, 1100);
	CHECK(sched_next_start(&h, &two) == INT64_MAX, "max_in_flight reached");
	sched_on_end(&h, 1500);
	CHECK(sched_next_start(&h, &two) == 2100, "next start after the last start");

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
	TEST_DONE();
}

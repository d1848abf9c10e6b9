#include "fetch/sched.h"

#include <stdio.h>
#include <stdlib.h>

void sched_host_init(struct sched_host *h)
{
	h->in_flight = 0;
	h->last_start_us = INT64_MIN;
	h->last_end_us = INT64_MIN;
	h->not_before_us = 0;
	h->heap_pos = SIZE_MAX;
	h->heap_key = 0;
}

int64_t sched_next_start(const struct sched_host *h, const struct sched_policy *p)
{
	int64_t t = INT64_MIN, gap = p->delay_us > 0 ? p->delay_us + SCHED_MARGIN_US : 0;

	if (h->in_flight >= p->max_in_flight)
		return INT64_MAX;
	if (h->last_start_us != INT64_MIN)
		t = h->last_start_us + gap;
	if (p->max_in_flight == 1 && h->last_end_us != INT64_MIN && h->last_end_us + gap > t)
		t = h->last_end_us + gap;
	if (h->not_before_us > t)
		t = h->not_before_us;
	return t;
}

int64_t sched_need_us(const struct sched_host *h, const struct sched_policy *p,
		      uint64_t queue, int64_t now_us)
{
	int64_t gap = p->delay_us > 0 ? p->delay_us + SCHED_MARGIN_US : 0;
	int64_t next = sched_next_start(h, p), wait;
	int m = p->max_in_flight > 0 ? p->max_in_flight : 1;

	if (!queue)
		return 0;
	/* All open: the next start is a delay after one of them ends. */
	wait = next == INT64_MAX ? gap : next > now_us ? next - now_us : 0;
	if (queue - 1 > (uint64_t)(INT64_MAX - wait) / (uint64_t)(gap ? gap : 1))
		return INT64_MAX;
	return wait + (int64_t)((queue - 1) / (uint64_t)m) * gap;
}

void sched_on_start(struct sched_host *h, int64_t now_us)
{
	h->in_flight++;
	h->last_start_us = now_us;
}

void sched_on_end(struct sched_host *h, int64_t now_us)
{
	if (h->in_flight > 0)
		h->in_flight--;
	if (now_us > h->last_end_us)
		h->last_end_us = now_us;
}

int sched_crawl_delay(struct sched_policy *p, long crawl_delay_ms)
{
	int64_t us;

	if (crawl_delay_ms < 0)
		return 0;
	us = (int64_t)crawl_delay_ms * 1000;
	if (us > p->max_crawl_delay_us)
		return 1;
	if (us > p->delay_us)
		p->delay_us = us;
	return 0;
}

void sched_hold(struct sched_host *h, int64_t until_us)
{
	if (until_us > h->not_before_us)
		h->not_before_us = until_us;
}

/* Back-off waits start at a second, however short the delay. */
#define BACKOFF_BASE_US 1000000

enum sched_verdict sched_on_outcome(struct sched_host *gate, int *failures, int failed,
				    const struct sched_policy *base, int64_t now_us)
{
	int64_t unit, wait;
	int k;

	if (!failed) {
		*failures = 0;
		return SCHED_GO;
	}
	k = ++*failures;
	if (k >= base->max_failures)
		return SCHED_PARK;
	unit = base->delay_us > BACKOFF_BASE_US ? base->delay_us : BACKOFF_BASE_US;
	wait = unit << (k - 1 < 20 ? k - 1 : 20);
	if (wait > base->backoff_max_us)
		wait = base->backoff_max_us;
	sched_hold(gate, now_us + wait);
	return SCHED_BACKOFF;
}

void sched_gate_join(struct sched_host *gate, const struct sched_host *m)
{
	if (m->last_end_us > gate->last_end_us)
		gate->last_end_us = m->last_end_us;
	if (m->last_start_us > gate->last_start_us)
		gate->last_start_us = m->last_start_us;
	if (m->not_before_us > gate->not_before_us)
		gate->not_before_us = m->not_before_us;
}

void sched_carry_in(struct sched_host *gate, int64_t last_end_wall, int64_t hold_until_wall,
		    int64_t now_wall, int64_t now_mono)
{
	if (last_end_wall > 0 && last_end_wall <= now_wall) {
		int64_t t = last_end_wall - now_wall + now_mono;

		if (gate->last_end_us == INT64_MIN || t > gate->last_end_us)
			gate->last_end_us = t;
		if (gate->last_start_us == INT64_MIN || t > gate->last_start_us)
			gate->last_start_us = t;
	}
	if (hold_until_wall > now_wall)
		sched_hold(gate, hold_until_wall - now_wall + now_mono);
}

void sched_carry_out(const struct sched_host *gate, int64_t now_wall, int64_t now_mono,
		     int64_t *last_end_wall, int64_t *hold_until_wall)
{
	int64_t hold;

	if (gate->last_end_us == INT64_MIN)
		return;
	*last_end_wall = gate->last_end_us - now_mono + now_wall;
	hold = gate->not_before_us ? gate->not_before_us - now_mono + now_wall : 0;
	if (hold > *hold_until_wall)
		*hold_until_wall = hold;
}

void sched_heap_init(struct sched_heap *q)
{
	q->v = NULL;
	q->n = 0;
	q->cap = 0;
}

void sched_heap_release(struct sched_heap *q)
{
	free(q->v);
	sched_heap_init(q);
}

static void put(struct sched_heap *q, size_t i, struct sched_host *h)
{
	q->v[i] = h;
	h->heap_pos = i;
}

static void up(struct sched_heap *q, size_t i)
{
	struct sched_host *h = q->v[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (q->v[parent]->heap_key <= h->heap_key)
			break;
		put(q, i, q->v[parent]);
		i = parent;
	}
	put(q, i, h);
}

static void down(struct sched_heap *q, size_t i)
{
	struct sched_host *h = q->v[i];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;

		if (l >= q->n)
			break;
		if (r < q->n && q->v[r]->heap_key < q->v[l]->heap_key)
			m = r;
		if (q->v[m]->heap_key >= h->heap_key)
			break;
		put(q, i, q->v[m]);
		i = m;
	}
	put(q, i, h);
}

void sched_heap_set(struct sched_heap *q, struct sched_host *h, int64_t key)
{
	if (h->heap_pos != SIZE_MAX) {
		int64_t old = h->heap_key;

		h->heap_key = key;
		if (key < old)
			up(q, h->heap_pos);
		else
			down(q, h->heap_pos);
		return;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct sched_host **nv = realloc(q->v, cap * sizeof(*nv));

		if (!nv) {
			fputs("mpicrawl: out of memory\n", stderr);
			abort();
		}
		q->v = nv;
		q->cap = cap;
	}
	h->heap_key = key;
	put(q, q->n++, h);
	up(q, q->n - 1);
}

void sched_heap_remove(struct sched_heap *q, struct sched_host *h)
{
	size_t i = h->heap_pos;
	struct sched_host *last;

	if (i == SIZE_MAX)
		return;
	h->heap_pos = SIZE_MAX;
	last = q->v[--q->n];
	if (i == q->n)
		return;
	put(q, i, last);
	up(q, i);
	down(q, last->heap_pos);
}

struct sched_host *sched_heap_top(const struct sched_heap *q)
{
	return q->n ? q->v[0] : NULL;
}

int64_t sched_feasible(int64_t span_ms, long delay_ms)
{
	if (span_ms <= 0 || delay_ms <= 0)
		return INT64_MAX;
	/* One request (the robots.txt, or the first page) at the start, then
	 * one per delay until the span ends. */
	return span_ms / delay_ms + 1;
}

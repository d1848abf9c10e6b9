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
	int64_t t = INT64_MIN;

	if (h->in_flight >= p->max_in_flight)
		return INT64_MAX;
	if (h->last_start_us != INT64_MIN)
		t = h->last_start_us + p->delay_us;
	if (p->max_in_flight == 1 && h->last_end_us != INT64_MIN &&
	    h->last_end_us + p->delay_us > t)
		t = h->last_end_us + p->delay_us;
	if (h->not_before_us > t)
		t = h->not_before_us;
	return t;
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

/*
 * sched.h - politeness: when may the next request to a host start.
 *
 * Pure decisions over plain data; the fetcher passes the clock in. A host
 * gets at most max_in_flight open requests. With one in flight (the
 * default), the next request starts no sooner than delay after the previous
 * response ended - so the server sees the delay between its requests even
 * when connection set-up times differ. With more, request starts are spaced
 * by delay.
 *
 * struct sched_heap orders hosts by the time they may start next; each host
 * remembers its heap position, so it can be moved when its time changes.
 */
#ifndef CR_FETCH_SCHED_H
#define CR_FETCH_SCHED_H

#include <stddef.h>
#include <stdint.h>

struct sched_policy {
	int64_t delay_us;
	int max_in_flight;
};

struct sched_host {
	int in_flight;
	int64_t last_start_us;   /* INT64_MIN: never */
	int64_t last_end_us;
	int64_t not_before_us;   /* extra hold (e.g. Retry-After), 0 if none */
	size_t heap_pos;         /* SIZE_MAX when not in the heap */
	int64_t heap_key;
};

void sched_host_init(struct sched_host *h);
/* Earliest start of a new request; INT64_MAX if max_in_flight are open. */
int64_t sched_next_start(const struct sched_host *h, const struct sched_policy *p);
void sched_on_start(struct sched_host *h, int64_t now_us);
void sched_on_end(struct sched_host *h, int64_t now_us);

struct sched_heap {
	struct sched_host **v;
	size_t n, cap;
};

void sched_heap_init(struct sched_heap *q);
void sched_heap_release(struct sched_heap *q);
/* Inserts h with key, or moves it if already in the heap. */
void sched_heap_set(struct sched_heap *q, struct sched_host *h, int64_t key);
void sched_heap_remove(struct sched_heap *q, struct sched_host *h);
/* The host with the smallest key, or NULL. */
struct sched_host *sched_heap_top(const struct sched_heap *q);

#endif

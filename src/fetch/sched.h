/*
 * sched.h - politeness: when may the next request to a host start. Every
 * rule of politeness lives here, as pure decisions over plain data; the
 * fetcher passes the clock in (monotonic µs, and the wall clock where times
 * cross phases) and generate asks the same Crawl-delay clamp.
 *
 * - Spacing. A host gets at most max_in_flight open requests. With one in
 *   flight (the default), the next request starts no sooner than delay after
 *   the previous response ended - so the server sees the delay between its
 *   requests even when connection set-up times differ. With more, request
 *   starts are spaced by delay. A delay gets SCHED_MARGIN_US on top: the
 *   server's clock of a response's end runs a little behind ours, and its
 *   log counts in milliseconds - nginx's showed gaps of 198.6 ms at a
 *   200 ms delay, 498.56 at 500 - and the promise is kept as the server
 *   sees it.
 * - Crawl-delay. A robots.txt Crawl-delay raises a host's delay, never
 *   lowers it; one above max_crawl_delay defers the host's URLs (a pace the
 *   site did not ask for is not taken, and nor is its own for the rest of
 *   the phase).
 * - Holds. A 429 or 503 with Retry-After holds the host until then.
 * - Back-off. After the k-th failed request in a row (5xx, 429, timeouts,
 *   connection failures) the next waits max(delay, 1 s) * 2^(k-1), at most
 *   backoff_max; after max_failures the host is parked for the phase (its
 *   URLs stay due). A success resets the count.
 * - Groups. Hosts that share a budget (politeness.by = domain or ip) start
 *   their requests by one gate, a struct sched_host of the group: a member
 *   joining brings its own timing into it.
 * - Carried timing. A phase does not restart politeness: the end of a
 *   host's last request and any hold are kept in wall-clock time (the
 *   robots cache stores them) and bind the next phase's first request.
 *
 * struct sched_heap orders hosts by the time they may start next; each host
 * remembers its heap position, so it can be moved when its time changes.
 */
#ifndef CR_FETCH_SCHED_H
#define CR_FETCH_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* What a delay gets on top (see Spacing); no delay, none. */
#define SCHED_MARGIN_US 2000

struct sched_policy {
	int64_t delay_us;            /* politeness.delay_ms, raised by a Crawl-delay */
	int max_in_flight;           /* politeness.max_in_flight */
	int64_t max_crawl_delay_us;  /* politeness.max_crawl_delay_ms */
	int64_t backoff_max_us;      /* politeness.backoff_max_ms */
	int max_failures;            /* politeness.max_host_failures */
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
/* How long politeness keeps a host busy with queue more URLs from now_us,
 * at least: until its next start, then a delay between starts
 * (max_in_flight at a time). The requests' own time is not counted.
 * INT64_MAX when it does not fit. */
int64_t sched_need_us(const struct sched_host *h, const struct sched_policy *p,
		      uint64_t queue, int64_t now_us);
void sched_on_start(struct sched_host *h, int64_t now_us);
void sched_on_end(struct sched_host *h, int64_t now_us);

/* The most requests of one host a span of span_ms holds at one request per
 * delay_ms (INT64_MAX when either is 0: no bound): what generate selects of
 * a host for a round, and what the fetcher's frontier lets a host queue. */
int64_t sched_feasible(int64_t span_ms, long delay_ms);

/* Raises p's delay to a robots.txt Crawl-delay (ms; negative: none).
 * Returns 1, leaving p alone, if it is above p->max_crawl_delay_us: the
 * host's URLs are then deferred. */
int sched_crawl_delay(struct sched_policy *p, long crawl_delay_ms);

/* Holds h until until_us (a Retry-After): no request starts before. */
void sched_hold(struct sched_host *h, int64_t until_us);

enum sched_verdict {
	SCHED_GO,        /* go on as politeness allows */
	SCHED_BACKOFF,   /* go on after the back-off hold set on the gate */
	SCHED_PARK,      /* stop: the host's remaining URLs stay due */
};

/*
 * A request of a host ended; failed says whether it counts as a failure.
 * *failures is the host's count of failures in a row. base is the phase's
 * policy (its delay, not one a Crawl-delay raised).
 */
enum sched_verdict sched_on_outcome(struct sched_host *gate, int *failures, int failed,
				    const struct sched_policy *base, int64_t now_us);

/* A host joins a group's gate: the gate takes on the member's timing. */
void sched_gate_join(struct sched_host *gate, const struct sched_host *member);

/*
 * Timing carried across phases, in wall-clock µs since the epoch (0:
 * none): the end of the last request, and a hold. carry_in applies what
 * the last phase left (a last end in the future is not trusted);
 * carry_out writes what this phase leaves, keeping a later hold, and
 * leaves both alone if the gate made no request.
 */
void sched_carry_in(struct sched_host *gate, int64_t last_end_wall, int64_t hold_until_wall,
		    int64_t now_wall, int64_t now_mono);
void sched_carry_out(const struct sched_host *gate, int64_t now_wall, int64_t now_mono,
		     int64_t *last_end_wall, int64_t *hold_until_wall);

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

/*
 * origin.h - the robots.txt life of one origin (scheme://host[:port]) in a
 * fetch phase: one state, one function that changes it (origin.c's
 * set_state), one handler per event. Pure: times are passed in; the
 * fetcher makes the requests and tells the origin what came back.
 *
 *             need               answer 2xx                  (its rules)
 *   UNKNOWN ------> FETCHING -------------------------> READY
 *      ^               |    answer 4xx, or 3xx past     (everything
 *      |               |    ORIGIN_MAX_HOPS or unusable  allowed)
 *      |  answer 3xx   |--------------------------> READY
 *      +---------------|    answer 5xx, 429, none
 *      (a hop of its   +--------------------------> UNAVAILABLE
 *       own, RFC 9309 2.3.1.2)                      (disallow for now,
 *                                                    2.3.1.4)
 *   cache entry fresher than robots.cache_ttl_s: READY or UNAVAILABLE as
 *   its answer says; an UNAVAILABLE one older than crawl.retry_interval_s,
 *   or any older than the TTL: UNKNOWN (asked again when needed).
 *
 * An origin also carries what politeness keeps across phases (sched.h's
 * carried timing) and whether it was answered this phase (so the robots
 * cache gets the new answer).
 */
#ifndef CR_ROBOTS_ORIGIN_H
#define CR_ROBOTS_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "robots/cache.h"
#include "robots/robots.h"
#include "util/buf.h"

/* RFC 9309 2.3.1.2: at least five consecutive redirects are followed. */
#define ORIGIN_MAX_HOPS 5

enum origin_state {
	ORIGIN_UNKNOWN,       /* not asked (or expired, or a redirect to follow) */
	ORIGIN_FETCHING,      /* its robots.txt is being fetched */
	ORIGIN_READY,         /* rules apply */
	ORIGIN_UNAVAILABLE,   /* 5xx, 429 or no answer: nothing is fetched for now */
};

struct origin_policy {
	const char *agent;    /* robots.agent: the product token rules are read for */
	int64_t ttl_us;       /* robots.cache_ttl_s */
	int64_t retry_us;     /* crawl.retry_interval_s: an unavailable one is asked again after */
	size_t max_bytes;     /* robots.max_bytes: of a body, this much (and one byte) is kept */
	int64_t since_us;     /* job.h config_since_us: a failure (no answer, 5xx,
				 429) cached before it was had under another
				 configuration: asked again */
};

struct origin {
	char *key;            /* "scheme://authority" */
	uint32_t part;        /* the partition of its URLs */
	enum origin_state state;
	struct robots *rules; /* READY: what applies (NULL, out of memory: allow all) */
	int64_t fetched_at;   /* wall µs of its answer; 0: never answered */
	int http_status;      /* of the answer; 0: none */
	const char *failure;  /* no answer: why (the transport's reason, kept in
			       * body, which the cache keeps); NULL otherwise */
	struct buf body;      /* the answer's body, as the cache keeps it */
	int answered;         /* answered in this phase */
	char *robots_url;     /* where it is asked after redirects; NULL: KEY/robots.txt */
	int hops;             /* redirects followed */
	int64_t last_end;     /* carried politeness (sched_carry_*), wall µs; 0: none */
	int64_t hold_until;
	struct robots_cache_dns dns;   /* its host's DNS answer, carried (expires 0: none) */
	const char *refused;  /* UNAVAILABLE because the server's TLS certificate or
			       * handshake failed: the reason ("tls:...", tls.h, in
			       * body), its URLs' outcome; NULL otherwise */
	void *host;           /* the fetcher's queue of its URLs (not owned) */
	uint64_t silent;      /* its robots.txt got nothing back in the fetcher's netwatch
			       * epoch this is (fetch/netwatch.h); 0: it answered */
};

/* key is copied. */
void origin_init(struct origin *o, const char *key, uint32_t part);
void origin_release(struct origin *o);

/* Event: the robots cache of earlier phases has an answer of wall time at
 * (status, body; the body is copied). now: wall µs. */
void origin_on_cache(struct origin *o, const struct origin_policy *pol, int64_t at,
		     int status, const void *body, size_t len, int64_t now);

enum origin_action {
	ORIGIN_ASK,      /* fetch its robots.txt now (origin_robots_url): it is FETCHING */
	ORIGIN_WAIT,     /* it is being fetched: the URL waits */
	ORIGIN_APPLY,    /* its rules are known: apply them to the URL */
	ORIGIN_HOLD,     /* unreachable: the fetcher defers the URL until the
			  * robots.txt is asked again (with refused set, gives it
			  * that error) */
};

/* Event: its robots.txt request ended without an answer (after
 * origin_on_answer with status 0), why: the transport's reason or NULL.
 * It becomes the body the cache keeps, so that a later phase still says
 * why (failure; refused when it starts with "tls:"). */
void origin_on_failure(struct origin *o, const char *why);

/* Event: a URL of the origin is next in its host's queue. */
enum origin_action origin_on_need(struct origin *o);

/*
 * Event: its robots.txt request ended at wall time at. status: the HTTP
 * status, 0 for no usable answer; location: for a 3xx, the canonical
 * target (outcome.h), or NULL/"" when there is none. The body is copied
 * (at most max_bytes + 1 bytes, so the parser can tell a line cut at the
 * cap).
 */
void origin_on_answer(struct origin *o, const struct origin_policy *pol, int64_t at,
		      int status, const void *body, size_t len, const char *location);

/* Where its robots.txt is asked next: the last redirect's target, or
 * KEY/robots.txt. At most cap bytes with the NUL. */
void origin_robots_url(const struct origin *o, char *out, size_t cap);

const char *origin_state_name(enum origin_state s);

#endif

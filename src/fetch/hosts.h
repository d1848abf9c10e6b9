/*
 * hosts.h - the host queues of a fetch phase: each host's URLs (in fetch
 * list order, links followed in the round after them, a site's root page
 * next: hosts_add_next), its politeness timing, its group, and its life in
 * the phase as one state machine whose every change goes through
 * hosts_settle.
 *
 *   NEW ------turn-----> RESOLVING --answer--> READY <-----> ROBOTS
 *    (in the heap at 0)                       (in the heap    (its next URL
 *                                              at its next     waits for a
 *                                              start)          robots.txt)
 *   any state, when nothing is left to start (or the phase stops):
 *     DRAINING while requests are in flight, then DONE.
 *   READY, when its next start lies more than max_hold ahead (a Retry-After,
 *     a back-off, a long Crawl-delay): released - its remaining URLs leave
 *     the round with no outcome, and its gate keeps the hold (it is carried
 *     to later phases) - then DRAINING or DONE.
 *
 * The heap orders hosts by the time politeness (sched.h) lets them start
 * next; only NEW and READY hosts are in it. A host of a group (politeness.by
 * = domain or ip) starts its requests by the group's gate, so members share
 * one budget; when a member's request ends, every member is settled again.
 *
 * Nothing here does I/O or reads the clock.
 */
#ifndef CR_FETCH_HOSTS_H
#define CR_FETCH_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "util/addr.h"
#include "fetch/sched.h"
#include "scope/host_rules.h"
#include "robots/origin.h"
#include "util/hmap.h"

enum host_state {
	HOST_NEW,         /* not resolved: its first turn asks DNS */
	HOST_RESOLVING,   /* DNS in flight */
	HOST_READY,       /* resolved: in the heap while politeness lets it start */
	HOST_ROBOTS,      /* its next URL waits for its origin's robots.txt */
	HOST_DRAINING,    /* nothing left to start; requests in flight */
	HOST_DONE,
};

/* One URL of a fetch list. */
struct host_item {
	char *url;
	char *etag;               /* its record's ETag (owned), or NULL */
	struct crawl_record rec;  /* its CrawlDb record (strings: url, etag) */
	uint32_t part;
	struct origin *origin;    /* of its scheme and authority (not owned) */
	uint64_t *from_bands;     /* followed in the round: the LSH band keys of the
				     page it was found on (owned; NULL: none) */
	int early;                /* not a URL: its origin's robots.txt is asked early
				     (origins.h), with no outcome of its own */
	int ahead;                /* joined by hosts_add_next */
};

struct host_group;

struct host {
	struct sched_host s;      /* first: the heap hands back &host->s */
	struct sched_host *gate;  /* whose timing applies: &s, or the group's */
	struct host_group *group; /* NULL when politeness is per host */
	struct sched_policy pol;  /* the phase's, raised by the host's Crawl-delay */
	enum host_state state;
	char *name;
	char addr[64];            /* resolved */
	struct host_item **items;
	size_t n, next;           /* items, and the next one to start */
	size_t cap;
	struct origin *waiting;   /* ROBOTS: the origin whose robots.txt it waits for */
	int robots_kind;          /* ... and the request kind it is asked by (fetcher.h's
				     REQ_*), kept while a redirect's other host resolves */
	int failures;             /* failed requests in a row (sched_on_outcome) */
	int blocked;              /* an operator rule blocks it: no request at all */
	unsigned rule;            /* the line of the operator rule its name matched, or 0 */
	uint64_t followed;        /* URLs its pages added to its queue (frontier.h) */
	size_t earlier;           /* URLs an interrupted attempt at the segment finished
				     (not queued again; frontier_count_earlier) */
	int released;             /* left the round for a long hold: nothing joins */
	int parked;               /* parked after politeness.max_host_failures failures */
	int early;                /* in the phase only for an early robots.txt: no URL
				     of its own (hosts_mark_early) */
	void *ctx;                /* the fetcher's, for callbacks (not owned) */
};

struct host_table {
	struct hmap hosts;        /* name -> struct host */
	struct hmap groups;       /* domain or address -> struct host_group */
	struct sched_heap heap;
	struct sched_policy pol;  /* the phase's */
	size_t left;              /* hosts not DONE */
	size_t early_left;        /* ... of which only for an early robots.txt */
	int64_t max_hold_us;      /* fetch.max_hold_s; 0: no limit */
	int64_t now;              /* the loop's clock (hosts_tick) */
	uint64_t released;        /* hosts released for a long hold */
	uint64_t released_urls;   /* ... and the URLs that left the round with them */
};

void hosts_init(struct host_table *t, const struct sched_policy *pol);
void hosts_release(struct host_table *t);

/* The host called name, created (NEW, in the heap at 0) on first use. */
struct host *hosts_get(struct host_table *t, const char *name);
/* h, just made, is in the phase only for an early robots.txt (an item
 * with early set): it does not hold the fetch loop open (early_left). */
void hosts_mark_early(struct host_table *t, struct host *h);
/* A URL of its own joins h: if it was there for an early robots.txt, it
 * counts as any host from now on. */
void hosts_claim(struct host_table *t, struct host *h);
/* Appends a URL to h's queue; url copied, rec's strings borrowed until the
 * call returns (rec.url is pointed at the copy). */
struct host_item *hosts_add(struct host *h, const char *url,
			    const struct crawl_record *rec, uint32_t part,
			    struct origin *origin);
/* As hosts_add, but the URL is the next of h's to start: before the rest of
 * its queue, after any URLs hosts_add_next put there already (they keep
 * their order) and after an early robots.txt not yet asked. */
struct host_item *hosts_add_next(struct host *h, const char *url,
				 const struct crawl_record *rec, uint32_t part,
				 struct origin *origin);
/* Puts h into the group of key (a registrable domain or an address),
 * created on first use; h's timing joins the group's gate. */
void hosts_join(struct host_table *t, struct host *h, const char *key);
/* The same for politeness.by = ip: the group of the first of addrs (dns.h's
 * answer; the address libcurl tries first). */
void hosts_join_addr(struct host_table *t, struct host *h, const char *addrs);

/* Applies an operator rule (hosts.rules) to h: block, or its delay and
 * max_in_flight in place of the phase's (a Crawl-delay still raises the
 * delay later). A rule with line 0 (none matched) changes nothing. */
void hosts_override(struct host *h, const struct host_settings *s);

/*
 * What the addresses a host resolved to (dns.h's comma-separated answer)
 * mean for it: NULL to go on (the first address's rule overrides applied
 * when no name rule matched the host), or why all its URLs are blocked:
 * "non-public address" (any of them, unless allowed, by fetch.allow_private
 * or an allow list), "operator" (an address rule's block on any of them).
 * Pure but for h's overrides; h NULL: none (an address of another host's,
 * a robots.txt redirect's target).
 */
const char *hosts_address_verdict(struct host *h, const char *addrs, int allow_private,
				  const struct addr_list *allow, const struct host_rules *rules);

/* Moves h to state s (RESOLVING, READY or ROBOTS) and settles it. */
void hosts_set(struct host_table *t, struct host *h, enum host_state s);
/* Puts h where its queue and timing say: DRAINING or DONE when nothing is
 * left to start (or stopping), else its heap position for READY. */
void hosts_settle(struct host_table *t, struct host *h, int stopping);
/* hosts_settle for h and, in a group, every other member. */
void hosts_settle_group(struct host_table *t, struct host *h, int stopping);

/*
 * URLs joined h's queue after the loop that fetched it ended (requisites
 * other ranks handed over: handoff.h): a DONE host takes turns again from
 * where it was - READY if it has an address, else NEW (so a failed name
 * fails them as it failed the others, an operator block blocks them).
 * Call hosts_closed first: a host that left the round takes none.
 */
void hosts_reopen(struct host_table *t, struct host *h);
/* 1 if h left the round and takes no URL more: released for a long hold,
 * or parked after politeness.max_host_failures failures. */
int hosts_closed(const struct host *h);

/* The time limit or a stop: no URL not started yet will be; they get no
 * outcome (they stay due). Returns how many (early items not counted). */
uint64_t hosts_leave_rest(struct host_table *t, int stopping);
/* The loop's clock, for the hold limit. */
void hosts_tick(struct host_table *t, int64_t now);

/* The host whose turn comes first, if it may start by now; else NULL. */
struct host *hosts_due(struct host_table *t, int64_t now);
/* When the first host may start (INT64_MAX: none in the heap). */
int64_t hosts_next_time(const struct host_table *t);

const char *hosts_state_name(enum host_state s);

#endif

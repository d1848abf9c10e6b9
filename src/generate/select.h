/*
 * select.h - the rules of generate, pure: is a record due, is it judged
 * again after a config change, what does a cached robots.txt say of it,
 * and the verdict for one record given what the phase knows of its host so
 * far (generate_select). What the phase counts is named here too. The
 * phase around them (generate.h) streams the CrawlDb through them; ranked.c
 * and seedcap.c ask the same rules.
 */
#ifndef CR_GENERATE_SELECT_H
#define CR_GENERATE_SELECT_H

#include <stdint.h>

#include "config/config.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "scope/host_rules.h"

enum generate_counter {
	GC_RECORDS,      /* CrawlDb records read */
	GC_SELECTED,     /* written to fetch lists */
	GC_NOT_DUE,
	GC_HOST_CAPPED,  /* due, left for a later round by generate.max_per_host */
	GC_POLITENESS_CAPPED,   /* due, more than politeness lets the phase fetch */
	GC_TOO_DEEP,
	GC_HOSTS,
	GC_DEMOTED,      /* due, held back: the host's pages are mostly duplicates */
	GC_DEMOTED_HOSTS,
	GC_HELD,         /* due, but their host asked for a pause that has not ended */
	GC_SEED_CAPPED,  /* due, never fetched, past their seed's max_pages */
	GC_BUDGET_CAPPED,   /* due, within their host's caps, past generate.top_n */
	GC_RETRY_LATER,  /* not due: to be tried again (error, timeout, deferred) */
	GC_ROBOTS_DENIED,   /* due, denied by a cached robots.txt: recorded, not selected */
	GC_RESCOPE_DUE,  /* pages due for the links a scope refused (rescope.h), taken or
			    not: none left, the pass is done; some, their fetch asks
			    whole pages (no 304) */
	GC_COUNT_
};

extern const char *const generate_counter_names[GC_COUNT_];

/* 1 if the record is due at now (µs) and within max_depth (0: no limit). */
int generate_due(const struct crawl_record *r, int64_t now, long max_depth);

/*
 * 1 if r's last outcome is one the configuration decides - refused by an
 * address rule or a host rule, deferred by
 * politeness.max_crawl_delay_ms or a robots.txt the TLS settings could not
 * reach, failed on DNS (dns.servers) or TLS (tls.*) - and was decided
 * before since_us, when the configuration the job runs with took effect
 * (job.h): such a URL is due again whatever its next fetch time, once, as
 * the hint that came with it ("set fetch.allow_private=true", "check
 * dns.servers") promises. Pure.
 */
int generate_rejudged(const struct crawl_record *r, int64_t since_us);


/* The rules of selection (from the config: crawl.max_depth,
 * generate.max_per_host, trap.demote_*, fetch.time_limit_s, politeness.*;
 * generate_run sets round_ms to the round's span, job_round_span_ms). */
struct generate_rules {
	long max_depth;              /* 0: no limit */
	long max_per_host;           /* 0: no limit */
	long demote_min_pages;       /* 0: no demotion */
	double demote_share;
	long demoted_per_round;
	int64_t round_ms;            /* a host's span in the round; 0: none */
	long delay_ms;
	long max_crawl_delay_ms;
	int refetch_early;           /* a fetched page is a candidate once */
	int64_t refetch_min_us;      /* this long after its last visit */
	int64_t config_since_us;     /* job.h: outcomes the configuration decided
					before it are judged again */
	int64_t robots_ttl_us;       /* robots.cache_ttl_s: how long an answer holds */
};

void generate_rules_from(const struct config *cfg, struct generate_rules *out);

/* What an origin's cached robots.txt says of a URL, for generate. */
enum generate_robots {
	GEN_ROBOTS_NONE,             /* allowed, or no rules cached: the fetch decides */
	GEN_ROBOTS_DENIED,           /* denied by an answer still valid: not selected */
	GEN_ROBOTS_STALE,            /* denied by an answer past robots.cache_ttl_s: the
					fetch asks again first; likely no request */
};

/* The verdict on a URL whose origin's rules, answered at answered_at (µs),
 * deny it (denies 1) or not, at now, answers holding ttl_us. Pure. */
enum generate_robots generate_robots_of(int denies, int64_t answered_at, int64_t ttl_us,
					int64_t now);

/* The outcome of r, denied by a robots.txt answered at answered_at, as the
 * fetcher writes it (fetch_emit_status_at): status denied, reason
 * "robots.txt", the answer's time as its fetch time - update makes it due
 * when that answer expires. Strings borrowed from r. Pure. */
void generate_denied_outcome(const struct crawl_record *r, int64_t answered_at,
			     struct fetch_record *out);

/* What the phase knows of a record's host when the record comes. */
struct generate_host {
	uint64_t selected;           /* its URLs selected so far this round that make a
					request (not denied_taken) */
	uint64_t pages;              /* its pages with content in the CrawlDb */
	uint64_t duplicates;         /* ... of which near-duplicates */
	long crawl_delay_ms;         /* its origin's cached robots.txt Crawl-delay; -1: none */
	int64_t hold_until;          /* its origin's hold (robots cache), µs; 0: none */
	uint64_t denied_taken;       /* its URLs selected that a stale robots.txt denies */
	enum generate_robots robots; /* the URL judged: what its origin's cached
					robots.txt says of it */
	int64_t robots_at;           /* ... when that robots.txt was answered, µs */
	struct host_settings op;     /* the operator's rule for it (hosts.rules) */
	int seed_capped;             /* the record's seed has had its max_pages */
	int rescope;                 /* the record's page had links a scope refused,
					and the configuration changed (rescope.h) */
};

/* 1 if r is a page whose links a scope refused (h->rescope) fetched before
 * since_us: due again, for its links to be judged by the scope in force
 * (rescope.h). Pure. */
int generate_rescoped(const struct crawl_record *r, const struct generate_host *h,
		      int64_t since_us);

enum generate_verdict {
	GEN_SELECT,
	GEN_TOO_DEEP,                /* deeper than max_depth */
	GEN_NOT_DUE,                 /* not due at now, or a trap */
	GEN_DEMOTED,                 /* the host is mostly duplicates: a few per round */
	GEN_HOST_CAPPED,             /* max_per_host reached */
	GEN_POLITENESS_CAPPED,       /* more than politeness lets the fetch phase fetch */
	GEN_HELD,                    /* its host asked for a pause (fetch.max_hold_s) */
	GEN_SEED_CAPPED,             /* its seed's max_pages are spent (seedcap.h) */
	GEN_DENIED,                  /* its cached robots.txt denies it: recorded denied */
};

/* 1 if the host's pages are mostly near-duplicates (trap.demote_*). */
int generate_demoted(const struct generate_rules *g, const struct generate_host *h);
/* Whether record r goes into this round's fetch list. Pure. The host's
 * operator rule overrides generate.max_per_host and the delay of the
 * politeness cap; a blocked host's due URLs are all selected (the fetcher
 * records them blocked without a request); a URL blocked by an operator
 * rule that no longer blocks its host is due at once. A due URL its valid
 * robots.txt denies is GEN_DENIED whatever its host's caps and holds. */
enum generate_verdict generate_select(const struct crawl_record *r,
				      const struct generate_host *h,
				      const struct generate_rules *g, int64_t now);

#endif

/*
 * fetcher.h - the fetch phase's state, shared by its two files (private to
 * src/fetch/): fetch.c runs the event loop, phase.c what surrounds it -
 * loading the queues, the hand-offs between loops, the agreement and the
 * commit (fetch.h's fetch_run).
 */
#ifndef CR_FETCH_FETCHER_H
#define CR_FETCH_FETCHER_H

#include <stdint.h>

#include "crawldb/job.h"
#include "fetch/addr.h"
#include "fetch/dns.h"
#include "fetch/fetch.h"
#include "fetch/frontier.h"
#include "fetch/hosts.h"
#include "fetch/http.h"
#include "fetch/origins.h"
#include "fetch/segout.h"
#include "parse/parse.h"
#include "scope/host_rules.h"
#include "util/buf.h"
#include "util/hmap.h"

struct fetcher {
	struct job *j;
	int seg;
	int parse;                  /* fetch.parse: pages are parsed as they come */
	int revisits;               /* warc.revisits, which needs fetch.parse */
	struct host_table hosts;
	struct origin_table origins;
	struct origin_table early;  /* robots.txt of new hosts asked early (origins.h) */
	int early_active;           /* ... of them in flight */
	struct hmap hinted;         /* hosts of other ranks whose links were passed on
				       to them this phase (comm_hint_send) */
	struct hmap done;           /* URLs an earlier attempt finished */
	struct addr_list allow;     /* fetch.allow_addresses */
	struct host_rules *rules;   /* hosts.rules, or NULL */
	struct dns *dns;
	struct http_client *http;
	struct segout *out;
	struct frontier frontier;   /* links followed in the round */
	int64_t limit;              /* fetch.time_limit_s, monotonic µs (INT64_MAX: none) */
	uint64_t c[FC_COUNT_];
	uint64_t pc[PC_COUNT_];     /* parse counters, with fetch.parse */
	struct buf parsed;
	uint64_t kept, warc_cut;    /* what resuming kept and cut, for the log */
	int stopping;               /* start nothing; end the loop */
	int64_t drain_until;        /* asked to stop: open requests may end until then */
	int64_t next_sync;          /* next journal batch */
	enum cr_err failed;
};

/* The first failure is the phase's. */
static inline void fail(struct fetcher *f, enum cr_err e)
{
	if (e && !f->failed)
		f->failed = e;
}

/* Runs the loop until every queued URL has an outcome, the time limit, a
 * stop or a failure (fetch.c). May run again after URLs were queued. */
void fetch_loop(struct fetcher *f);
/* A stop, its grace running out, the time limit: 1 when the loop must end
 * at once (fetch.c). */
int fetch_limits(struct fetcher *f, int64_t now);

#endif

/*
 * fetcher.h - the fetch phase's state, shared by its four files (private
 * to src/fetch/): fetch.c runs the event loop, fetch_robots.c its robots.txt
 * requests, fetch_net.c the requests that got nothing back, phase.c what
 * surrounds it - loading the queues, the hand-offs between loops, the
 * agreement and the commit (fetch.h's fetch_run).
 */
#ifndef CR_FETCH_FETCHER_H
#define CR_FETCH_FETCHER_H

#include <stdint.h>

#include "crawldb/job.h"
#include "util/addr.h"
#include "fetch/dns.h"
#include "fetch/docs.h"
#include "fetch/counters.h"
#include "fetch/frontier.h"
#include "fetch/hosts.h"
#include "fetch/http.h"
#include "fetch/netwatch.h"
#include "fetch/origins.h"
#include "fetch/progress.h"
#include "fetch/segout.h"
#include "parse/parse.h"
#include "scope/host_rules.h"
#include "util/buf.h"
#include "util/hmap.h"

/* What a request is, for the transfer's kind: a page, its origin's
 * robots.txt, or the robots.txt of a host new to the crawl asked early
 * (origins.h; such a request does not hold the loop open). */
enum { REQ_PAGE, REQ_ROBOTS, REQ_EARLY };

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
	struct progress prog;       /* this rank's progress file (progress.h) */
	int64_t limit;              /* fetch.time_limit_s, monotonic µs (INT64_MAX: none) */
	uint64_t c[FC_COUNT_];
	uint64_t pc[PC_COUNT_];     /* parse counters, with fetch.parse */
	struct buf parsed;
	struct docs *docs;          /* PDFs read apart (docs.h); NULL until the first */
	uint64_t kept, warc_cut;    /* what resuming kept and cut, for the log */
	int stopping;               /* start nothing; end the loop */
	int64_t drain_until;        /* asked to stop: open requests may end until then */
	int64_t next_sync;          /* next journal batch */
	struct netwatch net;        /* the sites' failures, or this node's network's */
	uint64_t net_epoch;         /* counts the answers that released held outcomes */
	struct buf held;            /* outcomes of requests that got nothing back, until
				       netwatch tells whose failure they are: per outcome
				       u32 partition, u32 length, the packed fetch record */
	uint64_t nheld;
	enum cr_err failed;
};

/* The first failure is the phase's. */
static inline void fail(struct fetcher *f, enum cr_err e)
{
	if (e && !f->failed)
		f->failed = e;
}

/* The outcome of a URL that made no request: status and why (a string that
 * outlives the call), as of wall time at (0: now); held (fetch_hold) when
 * it comes of a request that got nothing back in this netwatch epoch
 * (fetch.c). */
void fetch_emit_status_at(struct fetcher *f, struct host_item *it, int status,
			  const char *why, int64_t at, int held);
/* A request of h to addr:port got nothing back (http.h's silent; a DNS
 * query with no answer: "", 0): netwatch counts it (fetch_net.c). */
void fetch_silent(struct fetcher *f, const struct host *h, const char *addr, int port);
/* The outcome of such a request, kept (fr is copied) until netwatch tells
 * whose failure it is (fetch_net.c). */
void fetch_hold(struct fetcher *f, uint32_t part, const struct fetch_record *fr);
/* A server answered (r is not silent): what is held is the sites'. */
void fetch_heard(struct fetcher *f, const struct http_result *r);
/* Probes the witnesses: what is held is written, or - the network is down
 * - dropped, and the fetch stops on every rank. */
void fetch_net_judge(struct fetcher *f);
/* The loop's end: what is still held is judged (netwatch_at_end). */
void fetch_net_end(struct fetcher *f);
/* Starts a request of h to the server name at addr (h's own, but for a
 * robots.txt redirected to another host), paced as h's; 0 if libcurl
 * refused it (the phase fails) (fetch.c). */
int fetch_start(struct fetcher *f, struct host *h, const char *name, const char *addr,
		const char *url, int kind, void *user, const struct http_request *cond);

/* Asks o's robots.txt; h waits for it (fetch_robots.c). */
void fetch_robots_start(struct fetcher *f, struct host *h, struct origin *o, int kind);
/* Its answer, r: the rules, or why there are none. */
void fetch_robots_done(struct fetcher *f, struct origin *o, const struct http_result *r);
/* A URL of an origin whose robots.txt is unreachable: deferred, with the
 * answer named (or an error, when no server we may trust answers). */
void fetch_robots_hold(struct fetcher *f, struct host_item *it);

/* Runs the loop until every queued URL has an outcome, the time limit, a
 * stop or a failure (fetch.c). May run again after URLs were queued. */
void fetch_loop(struct fetcher *f);
/* Finishes the pages whose PDFs were read (docs.h); wait: all pending,
 * waiting for each (fetch.c). */
void fetch_docs_poll(struct fetcher *f, int wait);
/* A stop, its grace running out, the time limit: 1 when the loop must end
 * at once (fetch.c). */
int fetch_limits(struct fetcher *f, int64_t now);

#endif

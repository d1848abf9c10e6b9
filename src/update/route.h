/*
 * route.h - moving discovered links to the rank that owns their partition.
 *
 * Every rank produces links (from seeds in inject, from parse data in
 * update); route_run calls the producer until it fills a bounded batch, then
 * exchanges the batches of all ranks (comm_stream) and sorts what arrived
 * into one external sort per owned partition. It repeats until every rank's
 * producer is exhausted. Memory: one batch out, one in,
 * and the sorts' budget. The caller finishes each partition's sort
 * (xsort_finish) when it is about to merge it, so that the run files of one
 * partition at a time are open.
 *
 * With a seen-set (seen.h), a link whose URL the filter of its partition
 * holds is dropped on arrival instead of sorted (counted in seen_dropped).
 *
 * route_run is collective: every rank must call it.
 */
#ifndef CR_UPDATE_ROUTE_H
#define CR_UPDATE_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"
#include "config/config.h"
#include "crawldb/layout.h"
#include "seen/bloom.h"
#include "store/xsort.h"
#include "util/buf.h"
#include "util/error.h"

struct route;
struct link_record;

/* Produces links with route_add until route_full() or its input ends; returns
 * 1 when its input is exhausted, 0 to be called again, -1 on error. */
typedef int (*route_producer_fn)(void *ctx, struct route *r);

struct route {
	const struct crawl_dir *dir;
	int rank, nranks;
	size_t batch_bytes;
	struct comm_stream *stream;   /* while route_run runs */
	route_producer_fn produce;
	void *produce_ctx;
	struct xsort **sorts;    /* per partition; NULL where not owned */
	struct bloom *seen;      /* per partition; .bits NULL: no filter */
	uint64_t sent, received, seen_dropped;
	unsigned seen_unused;   /* partitions whose filter did not fit the budget */
	struct buf scratch;
};

/* seen_version: the CrawlDb version whose seen-sets filter arriving links
 * (0: none, or seen.enabled false). */
CR_WUR enum cr_err route_init(struct route *r, const struct crawl_dir *d,
			      const struct config *cfg, const char *tmpdir,
			      int rank, int nranks, int seen_version);
/* Frees the seen-set filters once the links are routed (they only decide
 * which links are sorted). */
void route_forget_seen(struct route *r);
void route_release(struct route *r);
void route_add(struct route *r, const char *url, size_t len, uint32_t depth, uint8_t hops,
	       const char *from, size_t from_len);
/* The same for a whole link record (a sitemap entry's flags and meta). */
void route_add_link(struct route *r, const struct link_record *l);
int route_full(const struct route *r);
/* Collective. Afterwards route->sorts[p] of owned partitions hold the links
 * that arrived; after xsort_finish they yield them sorted by URL (then
 * depth). */
CR_WUR enum cr_err route_run(struct route *r, route_producer_fn fn, void *ctx);

#endif

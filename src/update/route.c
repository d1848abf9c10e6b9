#include "update/route.h"
#include "comm/comm.h"
#include "crawldb/link_record.h"
#include "seen/seen.h"
#include "util/log.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

enum cr_err route_init(struct route *r, const struct crawl_dir *d,
		       const struct config *cfg, const char *tmpdir, int rank,
		       int nranks, int seen_version)
{
	uint32_t p, owned = 0;
	size_t budget, filters = 0, total = mem_budget(cfg->memory_budget_mb);

	memset(r, 0, sizeof(*r));
	r->dir = d;
	r->rank = rank;
	r->nranks = nranks;
	r->batch_bytes = (size_t)cfg->exchange_batch_kb * 1024;
	buf_init(&r->scratch);
	r->sorts = calloc(d->partitions, sizeof(*r->sorts));
	r->seen = calloc(d->partitions, sizeof(*r->seen));
	if (!r->sorts || !r->seen) {
		route_release(r);
		return CR_ERR_NOMEM;
	}
	for (p = 0; p < d->partitions; p++) {
		if (!layout_owns(p, rank, nranks))
			continue;
		owned++;
		if (!cfg->seen_enabled || !seen_load(d, cfg, seen_version, p, &r->seen[p]))
			continue;
		/* The filters are held all at once, and grow with the CrawlDb:
		 * those past a quarter of the budget are not used (their
		 * partitions' links go to the sort unfiltered; the merge drops
		 * what the CrawlDb has). */
		if (filters + bloom_bytes(&r->seen[p]) > total / 4) {
			bloom_release(&r->seen[p]);
			r->seen_unused++;
			continue;
		}
		filters += bloom_bytes(&r->seen[p]);
	}
	if (r->seen_unused)
		log_warn("update", "%u partitions' seen-sets do not fit in a quarter of "
			 "memory.budget_mb (%ld MiB): their links are sorted unfiltered - "
			 "more disk and time; raise memory.budget_mb or add ranks",
			 r->seen_unused, cfg->memory_budget_mb);
	/* Half the budget, less the filters, for the sorts (at least a
	 * quarter); batches and merges use the rest. */
	budget = total / 2 > filters + total / 4 ? total / 2 - filters : total / 4;
	budget /= owned ? owned : 1;
	for (p = 0; p < d->partitions; p++) {
		enum cr_err e;

		if (!layout_owns(p, rank, nranks))
			continue;
		e = xsort_new(tmpdir, budget, link_record_cmp, &r->sorts[p]);
		if (e) {
			route_release(r);
			return e;
		}
	}
	return CR_OK;
}

void route_forget_seen(struct route *r)
{
	uint32_t p;

	for (p = 0; r->seen && p < r->dir->partitions; p++)
		bloom_release(&r->seen[p]);
}

void route_release(struct route *r)
{
	uint32_t p;

	if (r->sorts)
		for (p = 0; p < r->dir->partitions; p++)
			xsort_free(&r->sorts[p]);
	free(r->sorts);
	if (r->seen)
		for (p = 0; p < r->dir->partitions; p++)
			bloom_release(&r->seen[p]);
	free(r->seen);
	buf_release(&r->scratch);
	memset(r, 0, sizeof(*r));
}

void route_add(struct route *r, const char *url, size_t len, uint32_t depth, uint8_t hops,
	       const char *from, size_t from_len)
{
	struct link_record l = { .url = url, .url_len = len, .depth = depth, .hops = hops,
				 .from = from, .from_len = from_len };

	route_add_link(r, &l);
}

void route_add_link(struct route *r, const struct link_record *l)
{
	uint32_t p = layout_partition(r->dir, l->url, l->url_len);

	r->scratch.len = 0;
	link_record_pack(l, &r->scratch);
	comm_stream_post(r->stream, layout_owner(p, r->nranks), r->scratch.p, r->scratch.len);
	r->sent++;
}

int route_full(const struct route *r)
{
	return comm_stream_full(r->stream);
}

/* A link that arrived: into its partition's sort, unless the seen-set
 * knows it. */
static enum cr_err take(void *arg, const void *rec, size_t n)
{
	struct route *r = arg;
	struct link_record l;
	uint32_t p;

	if (link_record_unpack(rec, n, &l)) {
		log_err("update", "bad link record received");
		return CR_ERR_FORMAT;
	}
	p = layout_partition(r->dir, l.url, l.url_len);
	if (!r->sorts[p]) {
		log_err("update", "link routed to the wrong rank");
		return CR_ERR_FORMAT;
	}
	r->received++;
	/* A sitemap's entry is news even for a URL the CrawlDb holds. */
	if (!(l.flags & LINK_ENTRY) && r->seen[p].bits &&
	    bloom_has(&r->seen[p], l.url, l.url_len)) {
		struct link_record c = { .url = l.url, .url_len = l.url_len,
					 .flags = LINK_CASH, .cash = l.cash };

		r->seen_dropped++;
		if (!(l.cash > 0))
			return CR_OK;
		/* Only its cash is news (score/score.h): the least to sort. */
		r->scratch.len = 0;
		link_record_pack(&c, &r->scratch);
		return xsort_add(r->sorts[p], r->scratch.p, r->scratch.len);
	}
	return xsort_add(r->sorts[p], rec, n);
}

/* The caller's producer, called by comm_stream until a batch is full. */
static enum cr_err fill(void *arg, struct comm_stream *s)
{
	struct route *r = arg;
	int rc;

	r->stream = s;
	rc = r->produce(r->produce_ctx, r);
	return rc < 0 ? CR_ERR_IO : rc > 0 ? CR_EOF : CR_OK;
}

enum cr_err route_run(struct route *r, route_producer_fn fn, void *ctx)
{
	r->produce = fn;
	r->produce_ctx = ctx;
	return comm_stream(r->batch_bytes, fill, take, r);
}

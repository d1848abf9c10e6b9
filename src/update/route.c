#include "update/route.h"
#include "comm/comm.h"
#include "crawldb/record.h"
#include "seen/seen.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

enum cr_err route_init(struct route *r, const struct crawl_dir *d,
		       const struct config *cfg, const char *tmpdir, int rank,
		       int nranks, int seen_version)
{
	uint32_t p, owned = 0;
	size_t budget, filters = 0, total = (size_t)cfg->memory_budget_mb * 1024 * 1024;
	int i;

	memset(r, 0, sizeof(*r));
	r->dir = d;
	r->rank = rank;
	r->nranks = nranks;
	r->batch_bytes = (size_t)cfg->exchange_batch_kb * 1024;
	buf_init(&r->scratch);
	r->send = calloc((size_t)nranks, sizeof(*r->send));
	r->sorts = calloc(d->partitions, sizeof(*r->sorts));
	r->seen = calloc(d->partitions, sizeof(*r->seen));
	if (!r->send || !r->sorts || !r->seen) {
		route_release(r);
		return CR_ERR_NOMEM;
	}
	for (i = 0; i < nranks; i++)
		buf_init(&r->send[i]);
	for (p = 0; p < d->partitions; p++) {
		if (!layout_owns(p, rank, nranks))
			continue;
		owned++;
		if (cfg->seen_enabled && seen_load(d, seen_version, p, &r->seen[p]))
			filters += bloom_bytes(&r->seen[p]);
	}
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

void route_release(struct route *r)
{
	uint32_t p;
	int i;

	if (r->send)
		for (i = 0; i < r->nranks; i++)
			buf_release(&r->send[i]);
	free(r->send);
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

void route_add(struct route *r, const char *url, size_t len, uint32_t depth, uint8_t hops)
{
	struct link_record l = { url, len, depth, hops };
	uint32_t p = layout_partition(r->dir, url, len);
	struct buf *b = &r->send[p % (uint32_t)r->nranks];
	size_t before = b->len;

	r->scratch.len = 0;
	link_record_pack(&l, &r->scratch);
	buf_put_varint(b, r->scratch.len);
	buf_add(b, r->scratch.p, r->scratch.len);
	r->pending += b->len - before;
	r->sent++;
}

int route_full(const struct route *r)
{
	return r->pending >= r->batch_bytes;
}

static enum cr_err take(struct route *r, const struct buf *in)
{
	struct rd rd;

	rd_init(&rd, in->p, in->len);
	while (rd.off < rd.len) {
		const char *rec;
		size_t n;
		struct link_record l;
		uint32_t p;
		enum cr_err e;

		if (rd_str(&rd, &rec, &n) || link_record_unpack(rec, n, &l))
			return CR_ERR_FORMAT;
		p = layout_partition(r->dir, l.url, l.url_len);
		if (!r->sorts[p])
			return CR_ERR_FORMAT;   /* routed to the wrong rank: a bug */
		r->received++;
		if (r->seen[p].bits && bloom_has(&r->seen[p], l.url, l.url_len)) {
			r->seen_dropped++;
			continue;
		}
		e = xsort_add(r->sorts[p], rec, n);
		if (e)
			return e;
	}
	return CR_OK;
}

enum cr_err route_run(struct route *r, route_producer_fn fn, void *ctx)
{
	struct buf in;
	enum cr_err e = CR_OK;
	int done = 0;

	buf_init(&in);
	for (;;) {
		int rc = 0, i;

		while (!done && !route_full(r) && rc == 0) {
			rc = fn(ctx, r);
			if (rc != 0)
				done = 1;
		}
		if (rc < 0)
			e = CR_ERR_IO;
		/* All ranks take part in every exchange, with or without data. */
		if (!comm_agree(e == CR_OK)) {
			e = e ? e : CR_ERR_COMM;
			break;
		}
		in.len = 0;
		e = comm_exchange(r->send, &in);
		if (e)
			break;
		for (i = 0; i < r->nranks; i++)
			r->send[i].len = 0;
		r->pending = 0;
		e = take(r, &in);
		if (e)
			log_err("update", "bad link batch received: %s", cr_strerror(e));
		if (!comm_agree(e == CR_OK)) {
			e = e ? e : CR_ERR_COMM;
			break;
		}
		if (comm_agree(done))
			break;
	}
	buf_release(&in);
	return e;
}

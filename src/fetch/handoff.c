/*
 * handoff.c - requisites handed to the ranks of their hosts; see handoff.h.
 */
#include "fetch/handoff.h"
#include "comm/comm.h"
#include "crawldb/crawl_record.h"
#include "util/clock.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One record that arrived: its bytes and, unpacked, what orders copies. */
struct arrived {
	const unsigned char *p;
	size_t n;
	struct crawl_record rec;
};

/* By URL, then as frontier.h orders copies (frontier_copy_cmp), so that of
 * a URL several ranks sent, the same one wins on any rank count. */
static int arrived_cmp(const void *x, const void *y)
{
	const struct crawl_record *a = &((const struct arrived *)x)->rec;
	const struct crawl_record *b = &((const struct arrived *)y)->rec;
	size_t n = a->url_len < b->url_len ? a->url_len : b->url_len;
	int c = memcmp(a->url, b->url, n);

	if (c || a->url_len != b->url_len)
		return c ? c : (a->url_len < b->url_len ? -1 : 1);
	return frontier_copy_cmp(a, b);
}

/* Queues what arrived (u32 LE length, then a packed CrawlDb record, each),
 * one copy of each URL. Returns how many were queued. */
static uint64_t take_all(struct frontier *fr, const struct buf *in, struct fetchlist_load *l,
			 int64_t limit, struct segout *out)
{
	struct buf_reader rd;
	struct arrived *a = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t taken = 0;
	uint32_t len;

	buf_reader_init(&rd, in->p, in->len);
	while (rd.off < rd.len && !buf_get_u32le(&rd, &len) && len <= rd.len - rd.off) {
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if (!(a = realloc(a, cap * sizeof(*a)))) {
				fputs("mpicrawl: out of memory\n", stderr);
				abort();
			}
		}
		a[n].p = in->p + rd.off;
		a[n].n = len;
		rd.off += len;
		n += crawl_record_unpack(a[n].p, a[n].n, &a[n].rec) == CR_OK;
	}
	if (n)
		qsort(a, n, sizeof(*a), arrived_cmp);
	for (i = 0; i < n; i++)
		if (i == 0 || a[i].rec.url_len != a[i - 1].rec.url_len ||
		    memcmp(a[i].rec.url, a[i - 1].rec.url, a[i].rec.url_len))
			taken += (uint64_t)frontier_take(fr, l, a[i].p, a[i].n, limit,
							 clock_mono_us(), out);
	free(a);
	return taken;
}

enum cr_err handoff_exchange(struct frontier *fr, int go, struct fetchlist_load *l,
			     int64_t limit, struct segout *out, int *more)
{
	uint64_t pending = go ? frontier_handoff_pending(fr) : 0, taken;
	int n = comm_size(), r;
	struct buf *send, recv;
	enum cr_err e;

	*more = 0;
	comm_sum_u64(&pending, 1);
	if (!pending)
		return CR_OK;
	if (!(send = calloc((size_t)n, sizeof(*send)))) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	for (r = 0; r < n; r++)
		buf_init(&send[r]);
	if (go)
		frontier_handoff_pack(fr, send);
	buf_init(&recv);
	e = comm_exchange(send, &recv);
	for (r = 0; r < n; r++)
		buf_release(&send[r]);
	free(send);
	if (!e && go) {
		taken = take_all(fr, &recv, l, limit, out);
		log_debug("fetch", "requisites handed over: %llu queued here",
			  (unsigned long long)taken);
	}
	buf_release(&recv);
	*more = !e;
	return e;
}

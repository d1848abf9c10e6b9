/*
 * handoff.c - requisites handed to the ranks of their hosts; see handoff.h.
 */
#include "fetch/handoff.h"
#include "comm/comm.h"
#include "util/clock.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>

/* Queues what arrived: u32 LE length, then a packed CrawlDb record, each. */
static uint64_t take_all(struct frontier *fr, const struct buf *in, struct fetchlist_load *l,
			 int64_t limit, struct segout *out)
{
	struct buf_reader rd;
	uint64_t taken = 0;
	uint32_t n;

	buf_reader_init(&rd, in->p, in->len);
	while (rd.off < rd.len) {
		if (buf_get_u32le(&rd, &n) || n > rd.len - rd.off)
			break;
		taken += (uint64_t)frontier_take(fr, l, in->p + rd.off, n, limit, clock_mono_us(),
						 out);
		rd.off += n;
	}
	return taken;
}

/* What this rank sends: its handoffs (moved out of fr), or nothing. */
static struct buf *outgoing(struct frontier *fr, int go, int n)
{
	struct buf *send = calloc((size_t)n, sizeof(*send));
	int r;

	if (!send) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	for (r = 0; r < n; r++)
		buf_init(&send[r]);
	if (!go || !fr->handoff)
		return send;
	for (r = 0; r < n; r++) {
		send[r] = fr->handoff[r];
		buf_init(&fr->handoff[r]);
	}
	fr->handoffs = 0;
	fr->handoff_bytes = 0;
	return send;
}

enum cr_err handoff_exchange(struct frontier *fr, int go, struct fetchlist_load *l,
			     int64_t limit, struct segout *out, int *more)
{
	uint64_t pending = go ? fr->handoffs : 0, taken;
	int n = comm_size(), r;
	struct buf *send, recv;
	enum cr_err e;

	*more = 0;
	comm_sum_u64(&pending, 1);
	if (!pending)
		return CR_OK;
	send = outgoing(fr, go, n);
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

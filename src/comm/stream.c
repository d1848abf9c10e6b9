/*
 * stream.c - the bounded fill / exchange / take loop of comm.h's
 * comm_stream, the one place that writes it. No MPI here: it runs on
 * comm_agree and comm_exchange.
 */
#include "comm/comm.h"

#include <stdlib.h>

struct comm_stream {
	int nranks;
	size_t batch;         /* bytes to post before a batch goes out */
	size_t pending;       /* bytes posted since */
	struct buf *send;     /* one per rank: varint length + record */
};

void comm_stream_post(struct comm_stream *s, int rank, const void *rec, size_t n)
{
	struct buf *b = &s->send[rank];
	size_t before = b->len;

	buf_put_varint(b, n);
	buf_add(b, rec, n);
	s->pending += b->len - before;
}

int comm_stream_full(const struct comm_stream *s)
{
	return s->pending >= s->batch;
}

/* Hands each record of one arrived batch to take. */
static enum cr_err take_all(const struct buf *in, comm_take_fn take, void *arg)
{
	struct buf_reader rd;
	enum cr_err e = CR_OK;

	buf_reader_init(&rd, in->p, in->len);
	while (!e && rd.off < rd.len) {
		const char *rec;
		size_t n;

		e = buf_get_str(&rd, &rec, &n);
		if (!e)
			e = take(arg, rec, n);
	}
	return e;
}

/* One round of the loop: fill a batch, send it, take what arrives. *done
 * is set (on every rank alike) once no rank has anything left. */
static enum cr_err stream_round(struct comm_stream *s, comm_fill_fn fill, comm_take_fn take,
				void *arg, int *eof, struct buf *in, int *done)
{
	enum cr_err e = CR_OK;
	int i;

	while (!*eof && !comm_stream_full(s)) {
		e = fill(arg, s);
		if (e == CR_EOF) {
			*eof = 1;
			e = CR_OK;
		}
		if (e)
			break;
	}
	/* Every rank takes part in every exchange, with or without data. */
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	in->len = 0;
	e = comm_exchange(s->send, in);
	if (e)
		return e;
	for (i = 0; i < s->nranks; i++)
		s->send[i].len = 0;
	s->pending = 0;
	e = take_all(in, take, arg);
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	*done = comm_agree(*eof);
	return CR_OK;
}

enum cr_err comm_stream(size_t batch_bytes, comm_fill_fn fill, comm_take_fn take, void *arg)
{
	struct comm_stream s;
	struct buf in;
	enum cr_err e = CR_OK;
	int i, eof = 0, done = 0;

	s.nranks = comm_size();
	s.batch = batch_bytes ? batch_bytes : 1;
	s.pending = 0;
	s.send = calloc((size_t)s.nranks, sizeof(*s.send));
	if (!comm_agree(s.send != NULL)) {
		e = s.send ? CR_ERR_COMM : CR_ERR_NOMEM;
		free(s.send);
		return e;
	}
	for (i = 0; i < s.nranks; i++)
		buf_init(&s.send[i]);
	buf_init(&in);
	while (!e && !done)
		e = stream_round(&s, fill, take, arg, &eof, &in, &done);
	buf_release(&in);
	for (i = 0; i < s.nranks; i++)
		buf_release(&s.send[i]);
	free(s.send);
	return e;
}

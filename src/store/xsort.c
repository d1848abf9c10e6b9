#include "store/xsort.h"
#include "store/recfile.h"
#include "util/buf.h"
#include "util/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs a sort may spill before it refuses (about 2 TB at 4 MiB a run). */
#define XSORT_MAX_RUNS (1u << 19)
/* What an open run costs while runs are merged: its zstd window (runs are
 * written with a 128 KiB one, recfile.h), the reader's input buffer and
 * window of records, and the decoder's state. */
#define XSORT_RUN_COST (512u << 10)
/* The fewest runs merged at once, whatever the budget. */
#define XSORT_FAN_MIN 8

struct run_head {
	struct recfile_reader *rd;
	const void *data;
	size_t n;
};

struct xsort {
	char tmpdir[PATH_MAX - 128];
	size_t budget;
	xsort_cmp_fn cmp;
	struct buf arena;   /* varint-less: records back to back */
	size_t *idx;        /* offsets into arena; lengths in len[] */
	size_t *len;
	size_t nidx, capidx;
	size_t nruns;
	size_t first;       /* runs before it were merged into later ones */
	size_t merges;      /* runs made by merging runs (xsort_merges) */
	int finished;
	size_t mem_pos;     /* when no run was spilled: position in idx */
	struct run_head *heads;  /* min-heap of run heads */
	size_t nheads;
	unsigned id;
};

static unsigned xsort_seq;

enum cr_err xsort_new(const char *tmpdir, size_t budget_bytes, xsort_cmp_fn cmp,
		      struct xsort **out)
{
	struct xsort *x = calloc(1, sizeof(*x));

	if (!x)
		return CR_ERR_NOMEM;
	snprintf(x->tmpdir, sizeof(x->tmpdir), "%s", tmpdir);
	x->budget = budget_bytes < (1u << 20) ? (1u << 20) : budget_bytes;
	x->cmp = cmp;
	x->id = xsort_seq++;
	buf_init(&x->arena);
	*out = x;
	return CR_OK;
}

static void run_path(const struct xsort *x, size_t i, char *out, size_t cap)
{
	snprintf(out, cap, "%s/xsort-%d-%u-%zu.run", x->tmpdir, (int)getpid(), x->id, i);
}

static struct xsort *sort_ctx;

static int idx_cmp(const void *a, const void *b)
{
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const struct xsort *x = sort_ctx;

	return x->cmp(x->arena.p + x->idx[ia], x->len[ia], x->arena.p + x->idx[ib],
		      x->len[ib]);
}

/* Sorts the in-memory records; returns a permutation (caller frees). */
static size_t *sort_memory(struct xsort *x)
{
	size_t *perm = malloc((x->nidx + 1) * sizeof(*perm));
	size_t i;

	if (!perm)
		return NULL;
	for (i = 0; i < x->nidx; i++)
		perm[i] = i;
	sort_ctx = x;
	qsort(perm, x->nidx, sizeof(*perm), idx_cmp);
	sort_ctx = NULL;
	return perm;
}

/* A run's writer committed as run nruns (counted), or dropped after the
 * error e. */
static enum cr_err end_run(struct xsort *x, struct recfile_writer **w, enum cr_err e)
{
	if (e) {
		recfile_writer_abort(w);
		return e;
	}
	e = recfile_writer_commit(w);
	if (!e)
		x->nruns++;
	return e;
}

static enum cr_err spill(struct xsort *x)
{
	char path[PATH_MAX];
	struct recfile_writer *w = NULL;
	size_t *perm;
	size_t i;
	enum cr_err e;

	if (x->nidx == 0)
		return CR_OK;
	if (x->nruns >= XSORT_MAX_RUNS) {
		log_err("store", "external sort: more than %u runs; raise memory.budget_mb",
			XSORT_MAX_RUNS);
		return CR_ERR_LIMIT;
	}
	perm = sort_memory(x);
	if (!perm)
		return CR_ERR_NOMEM;
	run_path(x, x->nruns, path, sizeof(path));
	e = recfile_writer_open(path, REC_KIND_SORT, 1, &w);
	for (i = 0; !e && i < x->nidx; i++)
		e = recfile_writer_add(w, x->arena.p + x->idx[perm[i]], x->len[perm[i]]);
	free(perm);
	e = end_run(x, &w, e);
	if (e)
		return e;
	x->nidx = 0;
	x->arena.len = 0;
	return CR_OK;
}

/* The bytes the buffers would have allocated with one more record of n
 * bytes (they grow by doubling), and qsort's permutation at the spill. */
static size_t footprint(const struct xsort *x, size_t n)
{
	size_t need = x->arena.len + n + 1, cap = x->arena.cap ? x->arena.cap : 64;
	size_t icap = x->nidx < x->capidx ? x->capidx : x->capidx ? x->capidx * 2 : 1024;

	while (cap < need)
		cap *= 2;
	return cap + icap * 2 * sizeof(size_t) + (x->nidx + 1) * sizeof(size_t);
}

enum cr_err xsort_add(struct xsort *x, const void *data, size_t n)
{
	/* Spilled before the buffers would grow past the budget: what they
	 * allocate, not what they hold, is the memory (a doubling could
	 * otherwise take twice the budget). */
	if (x->nidx && footprint(x, n) > x->budget) {
		enum cr_err e = spill(x);

		if (e)
			return e;
	}
	if (x->nidx == x->capidx) {
		size_t cap = x->capidx ? x->capidx * 2 : 1024;
		size_t *ni = realloc(x->idx, cap * sizeof(*ni));
		size_t *nl;

		if (!ni)
			return CR_ERR_NOMEM;
		x->idx = ni;
		nl = realloc(x->len, cap * sizeof(*nl));
		if (!nl)
			return CR_ERR_NOMEM;
		x->len = nl;
		x->capidx = cap;
	}
	x->idx[x->nidx] = x->arena.len;
	x->len[x->nidx] = n;
	x->nidx++;
	buf_add(&x->arena, data, n);
	/* A record larger than the budget alone: spilled at once, and its
	 * memory given back before the next run fills. */
	if (x->arena.cap > x->budget) {
		enum cr_err e = spill(x);

		buf_release(&x->arena);
		buf_init(&x->arena);
		if (e)
			return e;
	}
	return CR_OK;
}

static int head_less(const struct xsort *x, const struct run_head *a,
		     const struct run_head *b)
{
	return x->cmp(a->data, a->n, b->data, b->n) < 0;
}

static void heap_down(struct xsort *x, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct run_head t;

		if (l < x->nheads && head_less(x, &x->heads[l], &x->heads[m]))
			m = l;
		if (r < x->nheads && head_less(x, &x->heads[r], &x->heads[m]))
			m = r;
		if (m == i)
			return;
		t = x->heads[i];
		x->heads[i] = x->heads[m];
		x->heads[m] = t;
		i = m;
	}
}

/* No run was spilled: put idx/len in sorted order and serve from memory. */
static enum cr_err order_in_memory(struct xsort *x)
{
	size_t *perm = sort_memory(x);
	size_t *ni = malloc((x->nidx + 1) * sizeof(*ni));
	size_t *nl = malloc((x->nidx + 1) * sizeof(*nl));
	size_t i;

	if (!perm || !ni || !nl) {
		free(perm);
		free(ni);
		free(nl);
		return CR_ERR_NOMEM;
	}
	for (i = 0; i < x->nidx; i++) {
		ni[i] = x->idx[perm[i]];
		nl[i] = x->len[perm[i]];
	}
	free(perm);
	free(x->idx);
	free(x->len);
	x->idx = ni;
	x->len = nl;
	return CR_OK;
}

/* Opens runs [from, to) as the heap of heads. */
static enum cr_err open_heads(struct xsort *x, size_t from, size_t to)
{
	size_t i;
	enum cr_err e;

	x->heads = calloc(to - from + 1, sizeof(*x->heads));
	x->nheads = 0;
	if (!x->heads)
		return CR_ERR_NOMEM;
	for (i = from; i < to; i++) {
		char path[PATH_MAX];
		struct run_head *h = &x->heads[x->nheads];

		run_path(x, i, path, sizeof(path));
		e = recfile_reader_open(path, REC_KIND_SORT, &h->rd);
		if (e)
			return e;
		e = recfile_reader_next(h->rd, &h->data, &h->n);
		if (e) {
			recfile_reader_free(&h->rd);
			if (e == CR_EOF)
				continue;
			return e;
		}
		x->nheads++;
	}
	for (i = x->nheads / 2; i-- > 0;)
		heap_down(x, i);
	return CR_OK;
}

static void close_heads(struct xsort *x)
{
	size_t i;

	for (i = 0; i < x->nheads; i++)
		recfile_reader_free(&x->heads[i].rd);
	free(x->heads);
	x->heads = NULL;
	x->nheads = 0;
}

/* Moves the smallest head's run on; its record was borrowed until now. */
static enum cr_err advance_top(struct xsort *x)
{
	struct run_head *top = &x->heads[0];
	enum cr_err e = recfile_reader_next(top->rd, &top->data, &top->n);

	if (e == CR_EOF) {
		recfile_reader_free(&top->rd);
		x->heads[0] = x->heads[--x->nheads];
	} else if (e) {
		return e;
	}
	if (x->nheads)
		heap_down(x, 0);
	return CR_OK;
}

/* Merges runs [from, to) into a new run (numbered nruns), then removes
 * them. */
static enum cr_err merge_group(struct xsort *x, size_t from, size_t to)
{
	char path[PATH_MAX];
	struct recfile_writer *w = NULL;
	enum cr_err e = open_heads(x, from, to);
	size_t i;

	run_path(x, x->nruns, path, sizeof(path));
	if (!e)
		e = recfile_writer_open(path, REC_KIND_SORT, 1, &w);
	while (!e && x->nheads) {
		e = recfile_writer_add(w, x->heads[0].data, x->heads[0].n);
		if (!e)
			e = advance_top(x);
	}
	close_heads(x);
	e = end_run(x, &w, e);
	if (e)
		return e;
	for (i = from; i < to; i++) {
		run_path(x, i, path, sizeof(path));
		unlink(path);
	}
	return CR_OK;
}

enum cr_err xsort_finish_within(struct xsort *x, size_t merge_bytes)
{
	size_t fan = merge_bytes / XSORT_RUN_COST;
	enum cr_err e;

	x->finished = 1;
	if (x->nruns == 0) {
		x->mem_pos = 0;
		return order_in_memory(x);
	}
	e = spill(x);
	if (e)
		return e;
	buf_release(&x->arena);
	if (fan < XSORT_FAN_MIN)
		fan = XSORT_FAN_MIN;
	/* More runs than the budget can hold open: merge the oldest into
	 * longer ones first, each byte rewritten once a pass. */
	while (x->nruns - x->first > fan) {
		size_t end = x->first + fan;

		e = merge_group(x, x->first, end);
		if (e)
			return e;
		x->merges++;
		x->first = end;
	}
	return open_heads(x, x->first, x->nruns);
}

enum cr_err xsort_finish(struct xsort *x)
{
	return xsort_finish_within(x, x->budget);
}

enum cr_err xsort_next(struct xsort *x, const void **data, size_t *n)
{
	struct run_head *top;
	enum cr_err e;

	if (!x->finished)
		return CR_ERR_STATE;
	if (x->nruns == 0) {
		if (x->mem_pos >= x->nidx)
			return CR_EOF;
		*data = x->arena.p + x->idx[x->mem_pos];
		*n = x->len[x->mem_pos];
		x->mem_pos++;
		return CR_OK;
	}
	if (x->nheads == 0)
		return CR_EOF;
	top = &x->heads[0];
	/* The previous record handed out belongs to the reader we advance
	 * now; it was borrowed only until this call. */
	if (x->arena.cap < top->n + 1) {
		buf_release(&x->arena);
		buf_init(&x->arena);
	}
	x->arena.len = 0;
	buf_add(&x->arena, top->data, top->n);
	*data = x->arena.p;
	*n = top->n;
	e = advance_top(x);
	return e;
}

size_t xsort_runs(const struct xsort *x)
{
	return x->nruns;
}

size_t xsort_merges(const struct xsort *x)
{
	return x->merges;
}

void xsort_free(struct xsort **xp)
{
	struct xsort *x = xp ? *xp : NULL;
	size_t i;

	if (!x)
		return;
	close_heads(x);
	for (i = x->first; i < x->nruns; i++) {
		char path[PATH_MAX];

		run_path(x, i, path, sizeof(path));
		unlink(path);
	}
	free(x->idx);
	free(x->len);
	buf_release(&x->arena);
	free(x);
	*xp = NULL;
}

/*
 * comm_sim.c - comm.h on threads (comm_sim.h). Each collective is two
 * barriers: a rank writes what it brings (an op name, a size, a root, a
 * pointer) into its slot and waits until every rank has; then each reads
 * the others' slots and computes its own result; a second barrier keeps
 * every slot and the data it points at alive until all have read. The
 * mutex of the barrier orders the writes before the reads.
 */
#include "comm_sim.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sim_slot {
	const char *op;      /* the collective the rank is in */
	size_t n;            /* its count, which every rank must agree on */
	int root;
	const void *in;      /* what it brings */
	int ok;              /* comm_agree's vote */
};

struct sim {
	int n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int arrived;
	unsigned long gen;
	struct sim_slot slot[COMM_SIM_RANKS_MAX];
};

struct sim_rank {
	struct sim *s;
	int rank;
	void (*fn)(void *arg);
	void *arg;
};

static _Thread_local struct sim *sim_mine;
static _Thread_local int sim_me;
static _Thread_local uint64_t sim_sent, sim_exchanges;
static size_t sim_limit = INT_MAX;

int comm_rank(void)
{
	return sim_mine ? sim_me : 0;
}

int comm_size(void)
{
	return sim_mine ? sim_mine->n : 1;
}

uint64_t comm_bytes_sent(void)
{
	return sim_sent;
}

uint64_t comm_sim_exchanges(void)
{
	return sim_exchanges;
}

void comm_sim_set_exchange_limit(size_t bytes)
{
	sim_limit = bytes ? bytes : INT_MAX;
}

const char *comm_node(int rank)
{
	return rank >= 0 && rank < comm_size() ? "sim" : "?";
}

int comm_nodes(void)
{
	return 1;
}

void comm_abort(int code)
{
	fprintf(stderr, "comm_sim: rank %d called comm_abort(%d)\n", comm_rank(), code);
	fflush(NULL);
	exit(code ? code : 1);
}

/* Every rank of s reaches this before any leaves it. */
static void sim_wait(struct sim *s, const char *op)
{
	unsigned long gen;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += COMM_SIM_WAIT_S;
	pthread_mutex_lock(&s->mu);
	gen = s->gen;
	if (++s->arrived == s->n) {
		s->arrived = 0;
		s->gen++;
		pthread_cond_broadcast(&s->cv);
	}
	while (gen == s->gen) {
		if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT) {
			fprintf(stderr, "comm_sim: rank %d waited %d s in %s: a rank never "
				"reached it\n", sim_me, COMM_SIM_WAIT_S, op);
			fflush(NULL);
			abort();
		}
	}
	pthread_mutex_unlock(&s->mu);
}

/* Enters collective op: every rank must be in the same op with the same
 * count and root, as MPI requires. Returns the slots, readable until
 * sim_leave. */
static const struct sim_slot *sim_enter(const char *op, size_t n, int root, const void *in,
					int ok)
{
	struct sim *s = sim_mine;
	int r;

	s->slot[sim_me] = (struct sim_slot){ op, n, root, in, ok };
	sim_wait(s, op);
	for (r = 0; r < s->n; r++) {
		const struct sim_slot *o = &s->slot[r];

		if (strcmp(o->op, op) || o->n != n || o->root != root) {
			fprintf(stderr, "comm_sim: rank %d is in %s (count %zu, root %d) while "
				"rank %d is in %s (count %zu, root %d): collectives out of "
				"order\n", sim_me, op, n, root, r, o->op, o->n, o->root);
			fflush(NULL);
			abort();
		}
	}
	return s->slot;
}

static void sim_leave(const char *op)
{
	sim_wait(sim_mine, op);
}

int comm_agree(int ok)
{
	const struct sim_slot *sl;
	int r, all = 1;

	if (!sim_mine)
		return ok ? 1 : 0;
	sl = sim_enter("comm_agree", 0, 0, NULL, ok != 0);
	for (r = 0; r < sim_mine->n; r++)
		all &= sl[r].ok;
	sim_leave("comm_agree");
	return all;
}

/* Every rank's n values at v, folded element-wise into each rank's v. */
static void sim_reduce(const char *op, void *v, size_t n, size_t size,
		       void (*fold)(void *acc, const void *in, size_t n))
{
	const struct sim_slot *sl;
	void *acc;
	int r;

	if (!sim_mine || n == 0)
		return;
	acc = malloc(n * size);
	if (!acc)
		abort();
	memcpy(acc, v, n * size);
	sl = sim_enter(op, n, 0, v, 1);
	for (r = 0; r < sim_mine->n; r++)
		if (r != sim_me)
			fold(acc, sl[r].in, n);
	/* The others read v until every rank has folded. */
	sim_leave(op);
	memcpy(v, acc, n * size);
	free(acc);
}

static void fold_sum_u64(void *acc, const void *in, size_t n)
{
	uint64_t *a = acc;
	const uint64_t *b = in;
	size_t i;

	for (i = 0; i < n; i++)
		a[i] += b[i];
}

static void fold_max_i64(void *acc, const void *in, size_t n)
{
	int64_t *a = acc;
	const int64_t *b = in;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

void comm_sum_u64(uint64_t *v, size_t n)
{
	sim_reduce("comm_sum_u64", v, n, sizeof(*v), fold_sum_u64);
}

void comm_max_i64(int64_t *v, size_t n)
{
	sim_reduce("comm_max_i64", v, n, sizeof(*v), fold_max_i64);
}

void comm_barrier(void)
{
	if (!sim_mine)
		return;
	(void)sim_enter("comm_barrier", 0, 0, NULL, 1);
	sim_leave("comm_barrier");
}

void comm_bcast(void *p, size_t n, int root)
{
	const struct sim_slot *sl;

	if (!sim_mine)
		return;
	sl = sim_enter("comm_bcast", n, root, p, 1);
	if (sim_me != root && n)
		memcpy(p, sl[root].in, n);
	sim_leave("comm_bcast");
}

void comm_allgather(const void *mine, size_t n, void *all)
{
	const struct sim_slot *sl;
	int r;

	if (!sim_mine) {
		memcpy(all, mine, n);
		return;
	}
	sl = sim_enter("comm_allgather", n, 0, mine, 1);
	for (r = 0; r < sim_mine->n && n; r++)
		memcpy((char *)all + (size_t)r * n, sl[r].in, n);
	sim_leave("comm_allgather");
}

void comm_bcast_buf(struct buf *b, int root)
{
	const struct sim_slot *sl;

	if (!sim_mine)
		return;
	/* The length is root's alone: not compared. */
	sl = sim_enter("comm_bcast_buf", 0, root, b, 1);
	if (sim_me != root) {
		const struct buf *from = sl[root].in;

		buf_reset(b);
		buf_add(b, from->p, from->len);
	}
	sim_leave("comm_bcast_buf");
}

/* What rank r sends in all, and what arrives at it, in one exchange. */
static void exchange_totals(const struct sim_slot *sl, int nr, int r, size_t *sent,
			    size_t *got)
{
	const struct buf *send = sl[r].in;
	int q;

	*sent = *got = 0;
	for (q = 0; q < nr; q++) {
		*sent += send[q].len;
		*got += ((const struct buf *)sl[q].in)[r].len;
	}
}

/* comm.c's limits: what each rank sends checked (and agreed) first, then
 * what arrives at each; the rank over a limit says CR_ERR_LIMIT, the
 * others CR_ERR_COMM. */
static enum cr_err exchange_check(const struct sim_slot *sl, int nr)
{
	size_t sent, got;
	int r, stage;

	for (stage = 0; stage < 2; stage++) {
		int mine = 0, any = 0;

		for (r = 0; r < nr; r++) {
			int over;

			exchange_totals(sl, nr, r, &sent, &got);
			over = (stage ? got : sent) > sim_limit;
			any |= over;
			if (r == sim_me)
				mine = over;
		}
		if (any)
			return mine ? CR_ERR_LIMIT : CR_ERR_COMM;
	}
	return CR_OK;
}

enum cr_err comm_exchange(struct buf *send, struct buf *recv)
{
	const struct sim_slot *sl;
	enum cr_err e;
	int q, nr;

	if (!sim_mine) {
		buf_add(recv, send[0].p, send[0].len);
		return CR_OK;
	}
	nr = sim_mine->n;
	sim_exchanges++;
	sl = sim_enter("comm_exchange", 0, 0, send, 1);
	e = exchange_check(sl, nr);
	for (q = 0; !e && q < nr; q++) {
		const struct buf *from = &((const struct buf *)sl[q].in)[sim_me];

		buf_add(recv, from->p, from->len);
		if (q != sim_me)
			sim_sent += send[q].len;
	}
	sim_leave("comm_exchange");
	return e;
}

static void *sim_thread(void *arg)
{
	struct sim_rank *r = arg;

	sim_mine = r->s;
	sim_me = r->rank;
	sim_sent = sim_exchanges = 0;
	r->fn(r->arg);
	/* A rank that returns while others wait in a collective is caught
	 * here: its "collective" is the end of the run. */
	(void)sim_enter("the end of comm_sim_run", 0, 0, NULL, 1);
	sim_leave("the end of comm_sim_run");
	sim_mine = NULL;
	return NULL;
}

int comm_sim_run(int nranks, void (*fn)(void *arg), void *arg)
{
	struct sim *s;
	struct sim_rank ranks[COMM_SIM_RANKS_MAX];
	pthread_t th[COMM_SIM_RANKS_MAX];
	int r;

	if (nranks < 1 || nranks > COMM_SIM_RANKS_MAX || sim_mine)
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->n = nranks;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	for (r = 0; r < nranks; r++) {
		ranks[r] = (struct sim_rank){ s, r, fn, arg };
		if (pthread_create(&th[r], NULL, sim_thread, &ranks[r]) != 0) {
			/* The started ranks wait for this one: nothing to do but end. */
			fprintf(stderr, "comm_sim: cannot start %d threads\n", nranks);
			fflush(NULL);
			abort();
		}
	}
	for (r = 0; r < nranks; r++)
		pthread_join(th[r], NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
	return 0;
}

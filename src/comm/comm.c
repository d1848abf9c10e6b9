#include "comm/comm.h"
#include "util/log.h"

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int comm_r, comm_n = 1, comm_up, comm_threads;
static uint64_t comm_sent;

/* Each rank's node name, COMM_NODE_MAX bytes a rank. */
#define COMM_NODE_MAX 64
static char *comm_node_names;

/* Collective: every rank's processor name (its host name), gathered. */
static void learn_nodes(void)
{
	char me[MPI_MAX_PROCESSOR_NAME + 1] = "";
	char mine[COMM_NODE_MAX] = "";
	int len = 0;

	MPI_Get_processor_name(me, &len);
	snprintf(mine, sizeof(mine), "%s", me);
	comm_node_names = calloc((size_t)comm_n, COMM_NODE_MAX);
	if (!comm_node_names)
		abort();
	MPI_Allgather(mine, COMM_NODE_MAX, MPI_CHAR, comm_node_names, COMM_NODE_MAX, MPI_CHAR,
		      MPI_COMM_WORLD);
}

enum cr_err comm_init(int *argc, char ***argv)
{
	int provided;

	/* Multiple: the liveness watch has a thread of its own. (The fetch's
	 * fsync thread, fetch/syncer.h, never calls MPI.) */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
		return CR_ERR_COMM;
	comm_threads = provided >= MPI_THREAD_MULTIPLE;
	MPI_Comm_rank(MPI_COMM_WORLD, &comm_r);
	MPI_Comm_size(MPI_COMM_WORLD, &comm_n);
	comm_up = 1;
	log_set_rank(comm_r);
	learn_nodes();
	return CR_OK;
}

void comm_finalize(void)
{
	comm_watch_stop();
	if (comm_up)
		MPI_Finalize();
	comm_up = 0;
	free(comm_node_names);
	comm_node_names = NULL;
}

const char *comm_node(int rank)
{
	if (!comm_node_names || rank < 0 || rank >= comm_n ||
	    !comm_node_names[(size_t)rank * COMM_NODE_MAX])
		return "?";
	return comm_node_names + (size_t)rank * COMM_NODE_MAX;
}

int comm_nodes(void)
{
	int r, q, n = 0;

	for (r = 0; r < comm_n; r++) {
		for (q = 0; q < r && strcmp(comm_node(q), comm_node(r)); q++)
			;
		n += q == r;
	}
	return n;
}

uint64_t comm_bytes_sent(void)
{
	return comm_sent;
}

int comm_rank(void)
{
	return comm_r;
}

int comm_size(void)
{
	return comm_n;
}

/*
 * Ranks often reach an agreement at very different times (one finished its
 * fetch list long before another). A blocking collective would spin a core
 * in MPI's progress loop all that while - a core the slower ranks, sharing
 * the node, need. So the reduction is started non-blocking and tested with
 * short sleeps in between, growing to at most NAP_MAX_NS. Not longer: over
 * TCP (ranks on several nodes) each step of the reduction moves only when
 * its ranks test it, so a rank asleep when the last one arrives holds every
 * step up by its nap - with naps of 2 ms an agreement of 4 ranks on 4 nodes
 * took 18 ms, with 250 us 3 ms (bench G).
 */
#define NAP_MAX_NS 250000L

/* Tests req until it completes, sleeping between tests (see above); calls
 * each(), when given, before every test. */
static void wait_napping(MPI_Request *req, void (*each)(void))
{
	long nap_ns = 20000;
	int done = 0;

	for (;;) {
		struct timespec ts = { 0, nap_ns };

		if (each)
			each();
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ts, NULL);
		if (nap_ns < NAP_MAX_NS)
			nap_ns *= 2;
	}
}

int comm_agree(int ok)
{
	int in = ok ? 1 : 0, out = 0;
	MPI_Request req;

	if (!comm_up)
		return in;
	MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD, &req);
	wait_napping(&req, NULL);
	return out;
}

void comm_sum_u64(uint64_t *v, size_t n)
{
	if (!comm_up || n == 0)
		return;
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void comm_max_i64(int64_t *v, size_t n)
{
	if (!comm_up || n == 0)
		return;
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
}

void comm_barrier(void)
{
	if (comm_up)
		MPI_Barrier(MPI_COMM_WORLD);
}

/* A broadcast waited for as comm_agree waits: the others may wait long for
 * root (rank 0 reading the user's files, a snapshot). */
static void bcast_napping(void *p, int n, MPI_Datatype t, int root)
{
	MPI_Request req;

	MPI_Ibcast(p, n, t, root, MPI_COMM_WORLD, &req);
	wait_napping(&req, NULL);
}

void comm_bcast(void *p, size_t n, int root)
{
	if (comm_up)
		bcast_napping(p, (int)n, MPI_BYTE, root);
}

void comm_allgather(const void *mine, size_t n, void *all)
{
	if (!comm_up) {
		memcpy(all, mine, n);
		return;
	}
	MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, MPI_COMM_WORLD);
}

void comm_bcast_buf(struct buf *b, int root)
{
	/* 1 GiB pieces: a count MPI takes as an int. */
	const size_t piece = (size_t)1 << 30;
	uint64_t n = b->len;
	size_t off;

	if (!comm_up)
		return;
	bcast_napping(&n, 1, MPI_UINT64_T, root);
	if (comm_r != root) {
		buf_reset(b);
		buf_reserve(b, (size_t)n);
		b->len = (size_t)n;
	}
	for (off = 0; off < (size_t)n; off += piece) {
		size_t k = (size_t)n - off < piece ? (size_t)n - off : piece;

		bcast_napping(b->p + off, (int)k, MPI_BYTE, root);
	}
}

enum cr_err comm_exchange(struct buf *send, struct buf *recv)
{
	int n = comm_n, i;
	int *scount = NULL, *sdispl, *rcount, *rdispl;
	unsigned char *sbuf = NULL;
	size_t stotal = 0, rtotal = 0;
	enum cr_err e = CR_OK;

	if (!comm_up) {
		buf_add(recv, send[0].p, send[0].len);
		return CR_OK;
	}
	for (i = 0; i < n; i++)
		stotal += send[i].len;
	if (stotal > INT_MAX)
		e = CR_ERR_LIMIT;
	if (!e) {
		scount = calloc((size_t)n * 4, sizeof(int));
		sbuf = malloc(stotal + 1);
		if (!scount || !sbuf)
			e = CR_ERR_NOMEM;
	}
	/* Every rank takes both collectives below, or none does. */
	if (!comm_agree(e == CR_OK)) {
		free(sbuf);
		free(scount);
		return e ? e : CR_ERR_COMM;
	}
	sdispl = scount + n;
	rcount = sdispl + n;
	rdispl = rcount + n;
	stotal = 0;
	for (i = 0; i < n; i++) {
		scount[i] = (int)send[i].len;
		sdispl[i] = (int)stotal;
		if (send[i].len)
			memcpy(sbuf + stotal, send[i].p, send[i].len);
		stotal += send[i].len;
	}
	MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < n; i++) {
		rdispl[i] = (int)rtotal;
		rtotal += (size_t)rcount[i];
	}
	/* Each rank sent at most INT_MAX in all, but what arrives here is the
	 * sum of all ranks' parts for this rank: check, then agree again. */
	e = rtotal > INT_MAX ? CR_ERR_LIMIT : CR_OK;
	if (!comm_agree(e == CR_OK)) {
		free(sbuf);
		free(scount);
		return e ? e : CR_ERR_COMM;
	}
	buf_reserve(recv, rtotal);
	comm_sent += stotal - send[comm_r].len;
	MPI_Alltoallv(sbuf, scount, sdispl, MPI_BYTE, recv->p + recv->len, rcount,
		      rdispl, MPI_BYTE, MPI_COMM_WORLD);
	recv->len += rtotal;
	free(sbuf);
	free(scount);
	return CR_OK;
}

/* ---- stop notices ---- */

#define NOTICE_TAG 7

static MPI_Comm notice_comm = MPI_COMM_NULL;
static MPI_Request notice_rreq = MPI_REQUEST_NULL;
static MPI_Request *notice_sreq;
static int notice_in, notice_out = 1, notice_sent, notice_got;

void comm_notice_open(void)
{
	if (!comm_up || notice_comm != MPI_COMM_NULL)
		return;
	/* A communicator of their own: notices never match anything else. */
	MPI_Comm_dup(MPI_COMM_WORLD, &notice_comm);
	notice_sent = notice_got = 0;
	MPI_Irecv(&notice_in, 1, MPI_INT, MPI_ANY_SOURCE, NOTICE_TAG, notice_comm,
		  &notice_rreq);
}

void comm_notice_send(void)
{
	int r;

	if (notice_comm == MPI_COMM_NULL || notice_sent)
		return;
	notice_sreq = malloc((size_t)comm_n * sizeof(*notice_sreq));
	if (!notice_sreq)
		return;   /* the driver's agreement after the phase still tells them */
	notice_sent = 1;
	for (r = 0; r < comm_n; r++) {
		notice_sreq[r] = MPI_REQUEST_NULL;
		if (r != comm_r)
			MPI_Isend(&notice_out, 1, MPI_INT, r, NOTICE_TAG, notice_comm,
				  &notice_sreq[r]);
	}
}

int comm_notice_heard(void)
{
	int done = 0;

	if (notice_comm == MPI_COMM_NULL)
		return 0;
	if (!notice_got && notice_rreq != MPI_REQUEST_NULL) {
		MPI_Test(&notice_rreq, &done, MPI_STATUS_IGNORE);
		if (done)
			notice_got = 1;
	}
	return notice_got;
}

/* The barrier's wait, each nap: a signal that arrived is passed on. */
static int (*barrier_stopping)(void);

static void notice_each(void)
{
	if (barrier_stopping && barrier_stopping())
		comm_notice_send();
	comm_notice_heard();
}

/* Waits at a barrier of the notice communicator, passing on a signal that
 * arrives meanwhile. */
static void notice_barrier(int (*stopping)(void))
{
	MPI_Request barrier;

	MPI_Ibarrier(notice_comm, &barrier);
	barrier_stopping = stopping;
	wait_napping(&barrier, notice_each);
	barrier_stopping = NULL;
}

void comm_notice_wait(int (*stopping)(void))
{
	if (notice_comm != MPI_COMM_NULL)
		notice_barrier(stopping);
}

/* ---- hints ---- */

#define HINT_TAG 8

struct hint_out {
	MPI_Request req;
	void *p;
};

static struct hint_out *hint_out;
static size_t hint_nout, hint_cap;
static int *hint_sent;   /* per destination rank, this phase */
static int hint_got;

/* Frees the sends that are done (all of them with wait set). */
static void hints_reap(int wait)
{
	size_t i, k = 0;

	for (i = 0; i < hint_nout; i++) {
		int done = 0;

		if (wait)
			MPI_Wait(&hint_out[i].req, MPI_STATUS_IGNORE);
		else
			MPI_Test(&hint_out[i].req, &done, MPI_STATUS_IGNORE);
		if (wait || done)
			free(hint_out[i].p);
		else
			hint_out[k++] = hint_out[i];
	}
	hint_nout = k;
}

void comm_hint_send(int to, const void *p, size_t n)
{
	void *copy;

	if (notice_comm == MPI_COMM_NULL || to == comm_r || to < 0 || to >= comm_n ||
	    n > INT_MAX)
		return;
	hints_reap(0);
	if (!hint_sent && !(hint_sent = calloc((size_t)comm_n, sizeof(*hint_sent))))
		return;
	if (hint_nout == hint_cap) {
		size_t cap = hint_cap ? hint_cap * 2 : 64;
		struct hint_out *v = realloc(hint_out, cap * sizeof(*v));

		if (!v)
			return;   /* a hint may be lost */
		hint_out = v;
		hint_cap = cap;
	}
	if (!(copy = malloc(n ? n : 1)))
		return;
	memcpy(copy, p, n);
	hint_out[hint_nout].p = copy;
	MPI_Isend(copy, (int)n, MPI_BYTE, to, HINT_TAG, notice_comm, &hint_out[hint_nout].req);
	hint_nout++;
	hint_sent[to]++;
}

/* Receives the hint st names, and hands it to fn (or drops it). */
static void hint_take(MPI_Status *st, void (*fn)(void *arg, const void *p, size_t n),
		      void *arg)
{
	int n = 0;
	void *p;

	MPI_Get_count(st, MPI_BYTE, &n);
	p = malloc(n > 0 ? (size_t)n : 1);
	if (!p)
		abort();
	MPI_Recv(p, n, MPI_BYTE, st->MPI_SOURCE, HINT_TAG, notice_comm, MPI_STATUS_IGNORE);
	hint_got++;
	if (fn)
		fn(arg, p, (size_t)n);
	free(p);
}

void comm_hint_poll(void (*fn)(void *arg, const void *p, size_t n), void *arg)
{
	MPI_Status st;
	int flag = 1;

	if (notice_comm == MPI_COMM_NULL)
		return;
	while (flag) {
		MPI_Iprobe(MPI_ANY_SOURCE, HINT_TAG, notice_comm, &flag, &st);
		if (flag)
			hint_take(&st, fn, arg);
	}
	hints_reap(0);
}

/* At the phase's end, once no rank sends any more: receives (and drops)
 * every hint still in flight to this rank, completes this rank's sends. */
static void hints_close(void)
{
	int *sent = calloc((size_t)comm_n, sizeof(*sent)), expect = 0;
	MPI_Status st;

	if (!sent)
		abort();
	if (hint_sent)
		memcpy(sent, hint_sent, (size_t)comm_n * sizeof(*sent));
	MPI_Reduce_scatter_block(sent, &expect, 1, MPI_INT, MPI_SUM, notice_comm);
	while (hint_got < expect) {
		MPI_Probe(MPI_ANY_SOURCE, HINT_TAG, notice_comm, &st);
		hint_take(&st, NULL, NULL);
	}
	hints_reap(1);
	free(sent);
	free(hint_sent);
	free(hint_out);
	hint_sent = NULL;
	hint_out = NULL;
	hint_nout = hint_cap = 0;
	hint_got = 0;
}

int comm_notice_close(int (*stopping)(void))
{
	int senders, expect, got;

	if (notice_comm == MPI_COMM_NULL)
		return stopping && stopping();
	/* Waiting as comm_agree does, passing on a signal that arrives now. */
	notice_barrier(stopping);
	/* Every rank has stopped sending: count the senders, then receive
	 * exactly what was sent here, so nothing is left in flight. */
	senders = notice_sent;
	MPI_Allreduce(MPI_IN_PLACE, &senders, 1, MPI_INT, MPI_SUM, notice_comm);
	expect = senders - notice_sent;
	got = notice_got;
	if (notice_rreq != MPI_REQUEST_NULL) {
		if (got < expect) {
			MPI_Wait(&notice_rreq, MPI_STATUS_IGNORE);
			got++;
		} else {
			MPI_Cancel(&notice_rreq);
			MPI_Wait(&notice_rreq, MPI_STATUS_IGNORE);
		}
	}
	for (; got < expect; got++)
		MPI_Recv(&notice_in, 1, MPI_INT, MPI_ANY_SOURCE, NOTICE_TAG, notice_comm,
			 MPI_STATUS_IGNORE);
	if (notice_sent) {
		MPI_Waitall(comm_n, notice_sreq, MPI_STATUSES_IGNORE);
		free(notice_sreq);
		notice_sreq = NULL;
	}
	hints_close();   /* collective */
	MPI_Comm_free(&notice_comm);
	notice_comm = MPI_COMM_NULL;
	notice_sent = notice_got = 0;
	return senders > 0;
}

/* ---- liveness ---- */

#define WATCH_TAG 9
/* How often the watch beats and looks, at most. */
#define WATCH_PERIOD_NS 1000000000L

static MPI_Comm watch_comm = MPI_COMM_NULL;
static pthread_t watch_thread;
static atomic_int watch_on;
static double watch_timeout_s;

struct watch {
	double last;            /* when the last step ran (monotonic s) */
	double *heard;          /* per rank: when it was last heard (monotonic s) */
	char *warned;           /* per rank: its silence was said */
	MPI_Request *sent;      /* per rank: the beat on its way there */
	MPI_Request in;
	int beat, got;
};

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Rank 0 watches every rank; every other rank watches rank 0. */
static int watches(int r)
{
	return r != comm_r && (comm_r == 0 || r == 0);
}

/* A watched rank silent for timeout_s: the job ends (rank 0), or this rank
 * does (any other), naming whom it lost. */
static void watch_lost(const struct watch *w, int r, double silent)
{
	int q, others = 0;

	if (comm_r != 0) {
		log_err("comm", "rank 0 on %s has not answered for %.0f s (comm.timeout_s): "
			"this rank (on %s) ends; the next job continues the crawl",
			comm_node(0), silent, comm_node(comm_r));
		_exit(COMM_EXIT_LOST);
	}
	for (q = 1; q < comm_n; q++)
		others += mono_s() - w->heard[q] >= watch_timeout_s;
	if (comm_n > 2 && others == comm_n - 1)
		log_err("comm", "no other rank has answered for %.0f s (comm.timeout_s): this "
			"node (%s) may have lost its network; ending the job, the next one "
			"continues the crawl", silent, comm_node(0));
	else
		log_err("comm", "rank %d on %s has not answered for %.0f s (comm.timeout_s): "
			"ending the job; what was done is kept, and the next job continues the "
			"crawl (on nodes that work)", r, comm_node(r), silent);
	MPI_Abort(MPI_COMM_WORLD, COMM_EXIT_LOST);
	_exit(COMM_EXIT_LOST);
}

/* One beat: sends where the last one has left, takes in what came, judges. */
static void watch_step(struct watch *w)
{
	double now = mono_s(), warn = watch_timeout_s / 6 > 3 ? watch_timeout_s / 6 : 3;
	MPI_Status st;
	int r, done;

	/* A step long overdue: this process was stopped (SIGSTOP, a job
	 * suspended and resumed) - the others' silence meanwhile is its own
	 * sleep, so every clock starts again. */
	if (w->last && now - w->last > 3 * WATCH_PERIOD_NS / 1e9)
		for (r = 0; r < comm_n; r++)
			w->heard[r] = now;
	w->last = now;

	for (r = 0; r < comm_n; r++) {
		done = 1;
		if (!watches(r))
			continue;
		if (w->sent[r] != MPI_REQUEST_NULL)
			MPI_Test(&w->sent[r], &done, MPI_STATUS_IGNORE);
		if (done)
			MPI_Isend(&w->beat, 1, MPI_INT, r, WATCH_TAG, watch_comm, &w->sent[r]);
	}
	for (done = 1; done;) {
		MPI_Test(&w->in, &done, &st);
		if (done) {
			w->heard[st.MPI_SOURCE] = now;
			MPI_Irecv(&w->got, 1, MPI_INT, MPI_ANY_SOURCE, WATCH_TAG, watch_comm,
				  &w->in);
		}
	}
	for (r = 0; r < comm_n; r++) {
		double silent = now - w->heard[r];

		if (!watches(r))
			continue;
		if (silent >= watch_timeout_s)
			watch_lost(w, r, silent);
		if (silent >= warn && !w->warned[r])
			log_warn("comm", "rank %d on %s has not answered for %.0f s; the job ends "
				 "if it stays silent for %.0f s (comm.timeout_s)", r, comm_node(r),
				 silent, watch_timeout_s);
		else if (silent < warn && w->warned[r])
			log_info("comm", "rank %d on %s answers again", r, comm_node(r));
		w->warned[r] = silent >= warn;
	}
}

static void *watch_main(void *arg)
{
	struct watch w;
	int r;

	sigset_t all;

	/* Signals are the main thread's business (util/stop.h). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	(void)arg;
	memset(&w, 0, sizeof(w));
	w.heard = calloc((size_t)comm_n, sizeof(*w.heard));
	w.warned = calloc((size_t)comm_n, 1);
	w.sent = malloc((size_t)comm_n * sizeof(*w.sent));
	if (!w.heard || !w.warned || !w.sent)
		abort();
	w.beat = 1;
	for (r = 0; r < comm_n; r++) {
		w.heard[r] = mono_s();
		w.sent[r] = MPI_REQUEST_NULL;
	}
	MPI_Irecv(&w.got, 1, MPI_INT, MPI_ANY_SOURCE, WATCH_TAG, watch_comm, &w.in);
	while (atomic_load(&watch_on)) {
		long slept;

		watch_step(&w);
		/* In tenths, so that a stop does not wait a whole period. */
		for (slept = 0; slept < WATCH_PERIOD_NS && atomic_load(&watch_on);
		     slept += WATCH_PERIOD_NS / 10) {
			struct timespec ts = { 0, WATCH_PERIOD_NS / 10 };

			nanosleep(&ts, NULL);
		}
	}
	/* Every rank is here (the stop is collective): what is still on its
	 * way arrives, and the receive posted last is taken back. */
	for (r = 0; r < comm_n; r++)
		if (w.sent[r] != MPI_REQUEST_NULL)
			MPI_Wait(&w.sent[r], MPI_STATUS_IGNORE);
	MPI_Cancel(&w.in);
	MPI_Wait(&w.in, MPI_STATUS_IGNORE);
	free(w.heard);
	free(w.warned);
	free(w.sent);
	return NULL;
}

/* OpenMPI's mpirun gives up on a node whose network is lost after its TCP
 * keepalive (oob_tcp_keepalive_*: 300 s, then 9 probes 20 s apart); if it
 * has anything to send there first - an abort - it waits for TCP's
 * retransmissions instead, about 15 minutes. So a job across nodes under
 * mpirun wants a keepalive shorter than the watch's timeout: said once. */
static void watch_hint(double timeout_s)
{
	const char *t = getenv("OMPI_MCA_oob_tcp_keepalive_time");
	const char *i = getenv("OMPI_MCA_oob_tcp_keepalive_intvl");
	const char *p = getenv("OMPI_MCA_oob_tcp_keepalive_probes");
	double gives_up = (t ? atof(t) : 300) + (i ? atof(i) : 20) * (p ? atof(p) : 9);

	if (comm_r != 0 || !getenv("OMPI_MCA_orte_hnp_uri") || comm_nodes() < 2 ||
	    gives_up < timeout_s)
		return;
	log_warn("comm", "this job spans %d nodes under mpirun, which gives up on a node that "
		 "lost its network only after %.0f s (its TCP keepalive): run it with "
		 "OMPI_MCA_oob_tcp_keepalive_time=10 OMPI_MCA_oob_tcp_keepalive_intvl=5 "
		 "OMPI_MCA_oob_tcp_keepalive_probes=3 (scripts/mpicrawl-run and slurm/crawl.sbatch "
		 "set them), or a lost node may hold it for minutes", comm_nodes(), gives_up);
}

enum cr_err comm_watch_start(double timeout_s)
{
	int ok;

	if (!comm_up || comm_n < 2 || timeout_s <= 0 || watch_comm != MPI_COMM_NULL)
		return CR_OK;
	if (!comm_agree(comm_threads)) {
		if (comm_r == 0)
			log_warn("comm", "this MPI gives no MPI_THREAD_MULTIPLE: no rank is "
				 "watched (comm.timeout_s); a lost node may hold the job until "
				 "the launcher gives up on it");
		return CR_OK;
	}
	watch_hint(timeout_s);
	MPI_Comm_dup(MPI_COMM_WORLD, &watch_comm);
	watch_timeout_s = timeout_s;
	atomic_store(&watch_on, 1);
	ok = pthread_create(&watch_thread, NULL, watch_main, NULL) == 0;
	if (comm_agree(ok))
		return CR_OK;
	/* Every rank watches, or none does. */
	atomic_store(&watch_on, 0);
	if (ok)
		pthread_join(watch_thread, NULL);
	MPI_Comm_free(&watch_comm);
	watch_comm = MPI_COMM_NULL;
	return CR_ERR_NOMEM;
}

void comm_watch_stop(void)
{
	if (watch_comm == MPI_COMM_NULL)
		return;
	/* Every rank stops beating at about the same time: none may take
	 * another's end for a silence. */
	comm_barrier();
	atomic_store(&watch_on, 0);
	pthread_join(watch_thread, NULL);
	comm_barrier();
	MPI_Comm_free(&watch_comm);
	watch_comm = MPI_COMM_NULL;
}

void comm_abort(int code)
{
	if (comm_up && comm_n > 1)
		MPI_Abort(MPI_COMM_WORLD, code);
	exit(code);
}

/*
 * comm.h - everything mpicrawl asks of MPI, and the only place that includes
 * <mpi.h>.
 *
 * Ranks own partitions (partition p belongs to rank p % size), so the rest of
 * the program needs only: who am I, how many are we, do we all agree, sums
 * of counters, and an exchange of packed records between all ranks. All
 * calls except comm_rank/comm_size/comm_abort are collective: every rank must
 * call them in the same order.
 */
#ifndef CR_COMM_COMM_H
#define CR_COMM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Starts MPI (a plain run is a singleton of one rank) with threads: the
 * calling thread makes every call of this header but the liveness watch,
 * which makes its own from a thread of its own (comm_watch_start).
 * Collective: learns every rank's node. */
CR_WUR enum cr_err comm_init(int *argc, char ***argv);
void comm_finalize(void);
int comm_rank(void);
int comm_size(void);
/* Collective: 1 if ok is non-zero on every rank. */
int comm_agree(int ok);
/* Collective: element-wise sum over ranks, in place on every rank. */
void comm_sum_u64(uint64_t *v, size_t n);
/* Collective: element-wise max over ranks, in place on every rank. */
void comm_max_i64(int64_t *v, size_t n);
void comm_barrier(void);
/* Collective: root's n bytes at p are copied to every rank. */
void comm_bcast(void *p, size_t n, int root);
/* Collective: every rank's n bytes at mine, in rank order, into all
 * (comm_size() * n bytes). */
void comm_allgather(const void *mine, size_t n, void *all);
/* Collective: root's b, of a length only root knows, is copied into every
 * other rank's b (what it held is replaced); any length, sent in pieces
 * MPI's int counts can say. */
void comm_bcast_buf(struct buf *b, int root);
/*
 * Collective: send[r] (an array of comm_size() buffers) goes to rank r; what
 * every rank sent to this one is appended to recv, in rank order. Each
 * send[r] must hold less than 1 GiB; callers bound their batches.
 */
CR_WUR enum cr_err comm_exchange(struct buf *send, struct buf *recv);

/*
 * Collective: moves records to the ranks that own them in bounded batches,
 * for when there are more of them than memory should hold (links in update,
 * band entries and candidates in dedup). Every rank calls it with its own
 * fill and take:
 *
 *   fill(arg, s)  posts records with comm_stream_post (each to a rank, e.g.
 *                 layout_owner of the record's partition) and returns CR_OK
 *                 while it has more, CR_EOF when its input is exhausted, or
 *                 an error. It is called again until comm_stream_full or
 *                 its input ends.
 *   take(arg, rec, n)  gets each record that arrived at this rank (borrowed
 *                 during the call), batch by batch, in the order of the
 *                 sending ranks.
 *
 * Then the posted batch goes out (comm_exchange) and the loop repeats until
 * every rank's input is exhausted. Memory: one batch out (batch_bytes, plus
 * the last post) and one in. An error of fill or take on any rank ends the
 * loop on every rank: the first is returned (CR_ERR_COMM on the others).
 * mpiFileUtils' mfu_flist_remap is the model.
 */
struct comm_stream;
typedef enum cr_err (*comm_fill_fn)(void *arg, struct comm_stream *s);
typedef enum cr_err (*comm_take_fn)(void *arg, const void *rec, size_t n);

CR_WUR enum cr_err comm_stream(size_t batch_bytes, comm_fill_fn fill, comm_take_fn take,
			       void *arg);
/* Posts the n bytes at rec to rank (copies). Not collective. */
void comm_stream_post(struct comm_stream *s, int rank, const void *rec, size_t n);
/* 1 once the posted batch has reached batch_bytes: fill should return. */
int comm_stream_full(const struct comm_stream *s);
/*
 * Stop notices, for a phase in which ranks do not otherwise talk (the fetch
 * loop) but one rank's "stop soon" (a signal) must reach all of them soon.
 * comm_notice_open (collective) starts listening; comm_notice_send tells
 * every other rank, once (not collective); comm_notice_heard says whether
 * another rank's notice arrived (not collective, does not block);
 * comm_notice_close (collective) waits until every rank has reached it -
 * calling stopping() while it waits, and sending a notice when that returns
 * non-zero, so a rank that finished early still passes a late signal on -
 * then takes in every notice sent and returns 1 if any rank sent one.
 */
void comm_notice_open(void);
void comm_notice_send(void);
int comm_notice_heard(void);
int comm_notice_close(int (*stopping)(void));
/* Collective, between open and close: waits until every rank has reached
 * it, as comm_notice_close does (a signal that arrives meanwhile is passed
 * on), without closing. For a rank that waits on the others inside the
 * phase (the fetcher's hand-offs, fetch/handoff.h). */
void comm_notice_wait(int (*stopping)(void));

/*
 * Hints, on the notice communicator between comm_notice_open and close: a
 * few bytes one rank passes another during the fetch, which the receiver
 * may act on (fetch/phase.c: a link to a new host of the receiver's, whose
 * robots.txt it may ask at once). Nothing may depend on a hint arriving:
 * one that reaches its rank after that rank's loop is done is dropped by
 * comm_notice_close, which receives every hint still in flight.
 * comm_hint_send copies n bytes for rank to (not collective, does not
 * block); comm_hint_poll calls fn for each hint that arrived (not
 * collective, does not block). Without the communicator both do nothing.
 */
void comm_hint_send(int to, const void *p, size_t n);
void comm_hint_poll(void (*fn)(void *arg, const void *p, size_t n), void *arg);

/*
 * Liveness: whether every rank is still there, for a job whose ranks sit on
 * nodes that can fail. Without it a rank whose node lost its network (or
 * froze) leaves the others blocked in MPI until the launcher gives up on the
 * node (OpenMPI's mpirun: its TCP keepalive, 8 minutes by default), and a
 * rank cut off from the others goes on writing to the shared crawl directory.
 *
 * comm_watch_start (collective) starts a thread of its own, on a
 * communicator of its own: each second every rank tells rank 0 it is alive
 * and rank 0 tells every rank. A rank silent for a sixth of timeout_s gets a
 * warning line naming it and its node; for timeout_s, rank 0 ends the job
 * (MPI_Abort, COMM_EXIT_LOST) with a line naming it and its node. A rank
 * that has not heard rank 0 for timeout_s ends itself with the same code
 * and a line, as if killed: what it committed stays, the rest is for the
 * next job. The thread never touches the crawl's data. timeout_s 0, one
 * rank, or an MPI without MPI_THREAD_MULTIPLE: no watch (said once).
 * comm_watch_stop (collective; every rank calls it before comm_finalize)
 * ends the thread. A launcher that must itself notice a lost node (mpirun)
 * is told how in docs/OPERATIONS.md.
 */
#define COMM_EXIT_LOST 69
CR_WUR enum cr_err comm_watch_start(double timeout_s);
void comm_watch_stop(void);
/* The node (host name) rank runs on, as MPI names it; "?" if unknown.
 * Borrowed until comm_finalize. Not collective. */
const char *comm_node(int rank);
/* How many distinct nodes the job's ranks run on. Not collective. */
int comm_nodes(void);
/* Bytes this rank has sent to other ranks so far by comm_exchange and
 * comm_stream (the records a round moves). Not collective. */
uint64_t comm_bytes_sent(void);

/* Ends every rank of the job with code (only the driver calls this). */
void comm_abort(int code) __attribute__((noreturn));

#endif

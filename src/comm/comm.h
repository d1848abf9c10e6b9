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

/* Starts MPI (a plain run is a singleton of one rank). */
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
/*
 * Collective: send[r] (an array of comm_size() buffers) goes to rank r; what
 * every rank sent to this one is appended to recv, in rank order. Each
 * send[r] must hold less than 1 GiB; callers bound their batches.
 */
CR_WUR enum cr_err comm_exchange(struct buf *send, struct buf *recv);
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

/* Ends every rank of the job with code (only the driver calls this). */
void comm_abort(int code) __attribute__((noreturn));

#endif

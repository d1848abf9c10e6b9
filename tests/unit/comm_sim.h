/*
 * comm_sim.h - comm.h's collectives with N ranks as N threads of one
 * process, for unit tests only (STYLE.md: "a comm that simulates N ranks
 * inside one process"). Never part of libcore.a or the binary: the
 * Makefile links it, with src/comm/stream.c built without MPI, into the
 * unit programs that ask for it (SIM_TESTS).
 *
 * comm_sim_run(n, fn, arg) starts n threads, each one rank (comm_rank() is
 * the thread's, comm_size() is n), runs fn(arg) on every one and returns
 * when all have returned. The collectives behave as MPI's do for their
 * callers: every rank must call the same ones in the same order (a rank
 * that calls another one, or returns from fn while the others wait in one,
 * ends the program with a line saying which ranks did what), data arrive
 * in rank order, and a rank blocks until every rank has reached the
 * collective (a wait of more than COMM_SIM_WAIT_S ends the program: a rank
 * never came). Outside comm_sim_run the calling thread is a job of one rank,
 * as comm.c is before comm_init.
 *
 * Not simulated: comm_init and comm_finalize, the stop notices, the hints
 * and the liveness watch - a program that calls them does not link with
 * this one (the fetch phase is tested end to end, tests/mpi/).
 *
 * The test harness's CHECK is not thread-safe: rank functions should note
 * what they saw and let the main thread check it after comm_sim_run.
 */
#ifndef CR_TEST_COMM_SIM_H
#define CR_TEST_COMM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"

#define COMM_SIM_RANKS_MAX 64
#define COMM_SIM_WAIT_S 60

/* Runs fn(arg) on nranks (1..COMM_SIM_RANKS_MAX) simulated ranks, arg
 * shared by all; 0, or -1 for a count out of range or a call from inside a
 * run (a thread that cannot be started ends the program). */
int comm_sim_run(int nranks, void (*fn)(void *arg), void *arg);

/* How many comm_exchange calls this rank made in its comm_sim_run (not
 * collective): a test's way to tell one batch of comm_stream from the
 * next. */
uint64_t comm_sim_exchanges(void);

/* What one rank may send in one comm_exchange, and what may arrive at one
 * (comm.c: INT_MAX, MPI's counts); over it, comm_exchange fails as comm.c's
 * does - CR_ERR_LIMIT on the rank over it, CR_ERR_COMM on the others. Set
 * outside comm_sim_run; 0 restores INT_MAX. */
void comm_sim_set_exchange_limit(size_t bytes);

#endif

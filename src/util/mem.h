/*
 * mem.h - what of memory.budget_mb a rank's own structures may take.
 *
 * memory.budget_mb is the process's, as an operator reads it (peak RSS,
 * what a batch system kills for). A rank holds a base it does not choose -
 * MPI's buffers and progress threads, the libraries, the configuration -
 * 24-28 MiB a rank under OpenMPI on 2 ranks here. That base is measured once, when the job has
 * started, and taken off the budget before a phase cuts it into shares for
 * its sorts and filters; without it, benchmark B's update at 100 M URLs
 * peaked 7 MiB over a 256 MiB budget with every sort within its share.
 */
#ifndef CR_UTIL_MEM_H
#define CR_UTIL_MEM_H

#include <stddef.h>

/* The process's resident set now, in bytes (0 if it cannot be read). */
size_t mem_rss(void);
/* Records the base, the resident set now, and returns it. Called once a
 * job has started. */
size_t mem_note_base(void);
/* What a budget of total bytes leaves for a phase when the process holds
 * base bytes: total - base, at least total / 2. Pure. */
size_t mem_left(size_t total, size_t base);
/* Bytes of a budget of budget_mb MiB left for the phase's own shares: the
 * budget less the base, at least half the budget (a base that large is said
 * once, as a warning). */
size_t mem_budget(long budget_mb);

#endif

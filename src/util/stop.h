/*
 * stop.h - "stop soon" requests: SIGTERM and SIGUSR1, and a first SIGINT
 * (Ctrl-C on a process in a terminal; a second one stops it at once).
 *
 * A batch system asks a job to end before it kills it: Slurm sends SIGTERM
 * (and, with `sbatch --signal`, SIGUSR1 some minutes before the time limit);
 * OpenMPI's mpirun forwards SIGUSR1 (and SIGTERM, shortly before SIGKILL) to
 * every rank. The handler only sets a flag: the fetch loop reads it and ends
 * its phase within fetch.stop_grace_s, other phases stop at their next safe
 * point, and the driver exits with ROUND_EXIT_STOPPED (75). Telling the other ranks
 * is the driver's business (comm.h), not this module's.
 *
 * Nothing here is collective; nothing touches MPI.
 */
#ifndef CR_UTIL_STOP_H
#define CR_UTIL_STOP_H

/* Installs the handlers of SIGTERM, SIGUSR1 and SIGINT (once; later calls do
 * nothing). */
void stop_install(void);
/* The signal that asked this process to stop, or 0. */
int stop_requested(void);
/* Sets the request as a signal would (tests; a stop relayed from another rank). */
void stop_request(int sig);

#endif

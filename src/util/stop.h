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
 * A control file does the same from any node that sees the crawl
 * directory: `mpicrawl stop` writes DIR/stop naming the job's rank 0
 * (its pid and host, as DIR/lock has them); rank 0 looks for it at most
 * once a second from stop_requested, and a file that names it is a
 * SIGUSR1. The other ranks learn of it as of a signal on rank 0.
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

/* Rank 0 of a job: stop_requested also looks, once a second at most, for
 * the control file at path naming this process. path is copied. */
void stop_watch_file(const char *path);

/* Pure: 1 if a control file's text ("pid=P\nhost=H\n...") names pid on
 * host. */
int stop_file_names(const char *text, long pid, const char *host);

#endif

/*
 * log.h - one line format for every rank:
 *   2026-11-22T01:02:03.456Z r0003 fetch W host 'a.example': robots.txt timed out
 *
 * The rank is set once by the driver (log_set_rank). Lines go to stderr,
 * written with a single write(2) so lines of different ranks do not interleave
 * mid-line. Levels: E error, W warning, I info, D debug (shown when
 * MPICRAWL_DEBUG is set in the environment).
 */
#ifndef CR_UTIL_LOG_H
#define CR_UTIL_LOG_H

void log_set_rank(int rank);
void log_msg(char level, const char *stage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(stage, ...) log_msg('E', stage, __VA_ARGS__)
#define log_warn(stage, ...) log_msg('W', stage, __VA_ARGS__)
#define log_info(stage, ...) log_msg('I', stage, __VA_ARGS__)
#define log_debug(stage, ...) log_msg('D', stage, __VA_ARGS__)

/* One line for the user, "mpicrawl: ...", on stderr from rank 0 only. */
void log_user(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* This process's rank as the launcher's environment says (OpenMPI, PMIx,
 * PMI, Slurm), so that it is known before MPI starts; 0 when run alone. */
int log_launcher_rank(void);

#endif

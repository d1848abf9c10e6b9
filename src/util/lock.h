/*
 * lock.h - the lock of a crawl directory (DIR/lock, crawldb/layout.h), so
 * that two jobs never work on one crawl at once.
 *
 * The lock is an flock(2) on that file, held for the whole job by one process
 * (rank 0: the other ranks learn the outcome from it). The file records the
 * holder - host, pid, Slurm job id, start time - for the message a second
 * job prints. The kernel (or the shared filesystem's lock manager) drops an
 * flock when its holder dies, so a job killed with SIGKILL leaves a file
 * whose lock is free: the next job takes it over. A lock still held by a
 * process that is gone (a node that died, on a filesystem whose lock manager
 * has not noticed yet) is cleared by `mpicrawl unlock` (lock_clear).
 *
 * Nothing here is collective; nothing touches MPI.
 */
#ifndef CR_UTIL_LOCK_H
#define CR_UTIL_LOCK_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

struct dir_lock {
	int fd;                   /* -1: not held */
	char path[PATH_MAX];
};

/* Who holds (or held) a lock, as its file says. */
struct lock_holder {
	char host[256];
	long pid;
	char job[64];             /* SLURM_JOB_ID, or "-" */
	char started[32];         /* UTC, ISO 8601 */
};

/*
 * Takes the lock file at path for this process and writes the holder record. CR_OK: l
 * holds it until lock_release. CR_ERR_STATE: another process holds it; h
 * (may be NULL) receives what its file says. CR_ERR_IO: the file cannot be
 * created or written (logged). On a filesystem without flock the lock is not
 * enforced: a warning is logged and CR_OK returned.
 */
CR_WUR enum cr_err lock_acquire(const char *path, struct dir_lock *l,
				struct lock_holder *h);
/* Removes the lock file and drops the lock. Accepts a lock not held. */
void lock_release(struct dir_lock *l);

/*
 * For the read-only commands: is the lock at path held by a job, without
 * taking it? *held 1 (h receives what its file says) or 0 (no file, or a
 * file whose flock is free: a killed job's). The look is a shared flock
 * dropped at once; lock_acquire and lock_clear try again for a moment,
 * so that a job starting just then is not refused for it, nor a stale
 * lock kept. Logs nothing.
 */
void lock_peek(const char *path, int *held, struct lock_holder *h);

/* Reads a holder record's "key=value" lines (host, pid, job, started;
 * others ignored) from text into h. Pure. */
void lock_holder_parse(const char *text, struct lock_holder *h);

/* One line describing a holder: "job J, pid P on host H, since T" (or, with
 * no pid written, says so: a job starting, or a lock file left empty). */
void lock_holder_str(const struct lock_holder *h, char *out, size_t cap);

enum lock_clear_result {
	LOCK_CLEAR_NONE,          /* no lock file */
	LOCK_CLEAR_REMOVED,       /* the lock was free (holder gone): removed */
	LOCK_CLEAR_ALIVE,         /* held by a live process on this host: kept */
	LOCK_CLEAR_REMOTE,        /* held, by a process on another host: kept unless force */
	LOCK_CLEAR_FORCED,        /* held on another host, removed because force was given */
};

/*
 * `mpicrawl unlock`: removes a stale lock file at path. A lock whose flock is free is
 * removed; one held by a live process of this host never is; one held from
 * another host only with force (that host's job must be known to be gone).
 * h receives the holder record when there is one. CR_ERR_IO on a failed
 * removal.
 */
CR_WUR enum cr_err lock_clear(const char *path, int force, struct lock_holder *h,
			      enum lock_clear_result *res);

enum lock_peek_result {
	LOCK_PEEK_NONE,           /* no lock file: no job */
	LOCK_PEEK_ALIVE,          /* its holder is a live process of this host */
	LOCK_PEEK_GONE,           /* its holder was of this host and is gone */
	LOCK_PEEK_REMOTE,         /* held from another host (or not written yet):
				     not known from here */
};

/* What the lock file at path says of its holder, read without any flock
 * (lock_peek asks the lock itself): h receives the holder record, whose
 * pid is looked for when it is of this host. For `mpicrawl status`. */
enum lock_peek_result lock_look(const char *path, struct lock_holder *h);

#endif

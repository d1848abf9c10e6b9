/*
 * status.h - what a crawl directory says of its job, read from any node
 * at any time, while a job runs or after: the lock's holder, the round
 * and its phase (crawldb/state.h), the ranks' progress files (progfile.h)
 * added up (estimate.h), the estimates of the round's and the crawl's
 * end, the disk used. `mpicrawl status` prints it; rank 0's metrics
 * writer (metrics.h) and the fetch's progress line read the same files.
 *
 * Only committed files are read: never a temporary (*.tmp.*) one. A
 * progress file that is damaged or cut short is skipped and noted, never
 * an error. Nothing here is collective; nothing touches MPI.
 */
#ifndef CR_STATUS_STATUS_H
#define CR_STATUS_STATUS_H

#include <stdint.h>

#include "crawldb/layout.h"
#include "status/estimate.h"
#include "status/progfile.h"
#include "util/lock.h"

/* Ranks whose progress files are read, at most. */
#define STATUS_RANKS_MAX 4096
#define STATUS_NOTES 8

enum status_job {
	STATUS_NEW,               /* no job has crawled yet */
	STATUS_RUNNING,           /* a job holds the lock */
	STATUS_STOPPED,           /* no job, and a round under way (stopped, killed) */
	STATUS_COMPLETE,          /* no job, and the last round done */
};

extern const char *const status_job_names[4];

/* The progress files of a segment: one per rank of the newest job. */
struct status_progress {
	int ranks;                /* of the job whose file is newest; 0: none read */
	int n;                    /* files[0..n): rank i's at i */
	struct progfile *files;
	int *ok;                  /* files[i] read whole */
	int skipped;              /* files damaged or cut short */
	char notes[STATUS_NOTES][160];   /* what was wrong with them, one a line */
	int nnotes;
};

/* Reads segment seg's progress files (none: ranks 0). Free with
 * status_progress_release. CR_ERR_NOMEM only. */
CR_WUR enum cr_err status_progress_read(const struct crawl_dir *d, int seg,
					struct status_progress *sp);
void status_progress_release(struct status_progress *sp);

struct status {
	enum status_job job;
	enum lock_peek_result lock;
	struct lock_holder holder;
	int last_exit;            /* DIR/last_job's exit code; -1: none */
	int version;              /* the committed CrawlDb version; 0: none */
	int seg;                  /* the last segment; 0: none */
	int phases;               /* its crawldb/state.h phase bits */
	const char *phase;        /* the phase under way or next: "fetch", ...; "done" */
	uint64_t selected;        /* the URLs its generate selected */
	uint64_t due_later;       /* due URLs after the round: those its generate left
				     for later rounds; once updated, the CrawlDb's
				     unfetched URLs */
	struct status_progress prog;
	struct estimate_round est;   /* of prog: only when prog.ranks */
	int64_t crawl_eta_s;      /* -1 unknown */
	uint64_t disk_bytes;
	int64_t now_us;
};

enum { STATUS_DISK = 1 };

/* Reads dir into *st; flags: STATUS_DISK measures the disk used (a walk of
 * the directory), else disk_bytes is 0. CR_ERR_ARG: dir is not a crawl
 * directory (no crawl.meta). Free with status_release, also on error. */
CR_WUR enum cr_err status_read(const char *dir, int64_t now_us, unsigned flags,
			       struct status *st);
void status_release(struct status *st);

/* The bytes the files under root take on disk (du); 0 on error. */
uint64_t status_disk_bytes(const char *root);

#endif

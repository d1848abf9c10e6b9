/*
 * syncer.h - the fetch's periodic durability writes (journal.h), done by a
 * thread of their own so that the event loop never waits on the disk.
 *
 * Why: every fetch.sync_interval_ms the fetcher makes what it finished
 * durable - each partition's WARC files fsynced, then its journal entries
 * appended and the journal fsynced. Done on the loop's thread, that is up
 * to four fsyncs per partition a rank owns, one after the other, every
 * second: on a local disk a few milliseconds during which no request
 * starts and no response is read (hosts started late, their delay already
 * over); on a cluster's shared file system (Lustre, GPFS), where an fsync
 * can take tens of milliseconds, a large share of the loop's time.
 *
 * A batch: the descriptors of WARC files to fsync first, then journal bytes
 * to append, each to its journal, which is then fsynced. The loop forms it
 * (the WARC writers' buffers written out before their descriptors are
 * added, the journals' pending entries moved in), submits it, and goes on;
 * one batch is in flight at a time, and the loop forms the next only once
 * it is done, so journals are appended in order and an entry on disk never
 * names WARC bytes that are not - journal.h's rule, as before. Descriptors
 * are duplicated into the batch (the loop may close a WARC file meanwhile)
 * and closed when it is done.
 *
 * Lifecycle: syncer_start makes the thread; syncer_add_* fill the next
 * batch (only when syncer_busy is 0); syncer_submit hands it over;
 * syncer_wait waits for it and returns its result (a failure is logged
 * there, on the caller's thread: the phase then fails, as a failed
 * synchronous sync failed it); syncer_stop waits, ends the thread and frees.
 * All calls come from one thread (the fetch's); signals are blocked in the
 * syncer's, so they reach the loop. Nothing here touches MPI.
 */
#ifndef CR_FETCH_SYNCER_H
#define CR_FETCH_SYNCER_H

#include <stddef.h>

#include "util/buf.h"
#include "util/error.h"

struct syncer;

/* Starts the thread. CR_ERR_NOMEM / CR_ERR_LIB (logged) if it cannot. */
CR_WUR enum cr_err syncer_start(struct syncer **out);
/* 1 while a submitted batch is not done. */
int syncer_busy(struct syncer *s);
/* The next batch: fsync fd (duplicated; the caller keeps its own). */
CR_WUR enum cr_err syncer_add_fsync(struct syncer *s, int fd, const char *path);
/* The next batch: append bytes (moved out of *bytes, which is left empty)
 * to fd (duplicated), then fdatasync it. */
CR_WUR enum cr_err syncer_add_append(struct syncer *s, int fd, const char *path,
				     struct buf *bytes);
/* 1 if the next batch holds anything. */
int syncer_pending(const struct syncer *s);
/* Hands the next batch over (nothing if it is empty). */
void syncer_submit(struct syncer *s);
/* Waits until the batch in flight (if any) is done: CR_OK, or CR_ERR_IO
 * for the first write or fsync that failed (logged here, once). */
CR_WUR enum cr_err syncer_wait(struct syncer *s);
/* Waits, ends the thread, frees *s (set to NULL). Accepts NULL. */
void syncer_stop(struct syncer **s);

#endif

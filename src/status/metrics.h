/*
 * metrics.h - DIR/metrics.prom (or metrics.path): what `mpicrawl status`
 * says, as Prometheus metrics (prom.h) named mpicrawl_..., for
 * node_exporter's textfile collector. Rank 0 rewrites the file every
 * metrics.interval_s while a job runs, from a thread of its own that reads
 * the directory as status does (status.h): so the file goes on through
 * every phase, whatever the main thread is doing, and the crawl never
 * waits for it. The file is replaced by rename: a reader sees one whole
 * version. docs/FORMATS.md lists the metrics.
 *
 * Not collective; nothing touches MPI.
 */
#ifndef CR_STATUS_METRICS_H
#define CR_STATUS_METRICS_H

#include "status/status.h"
#include "util/buf.h"
#include "util/error.h"

/* The metrics of st, appended to out. Pure. */
void metrics_text(const struct status *st, struct buf *out);

/* Writes the metrics of dir to path once (status_read, metrics_text, a
 * rename). */
CR_WUR enum cr_err metrics_write(const char *dir, const char *path);

/* Starts the writer thread for dir (path: "" for DIR/metrics.prom) every
 * interval_s seconds (0: none started). Rank 0, once a job holds the lock. */
CR_WUR enum cr_err metrics_start(const char *dir, const char *path, long interval_s);
/* Stops the thread, if any, and writes the file a last time (the job is
 * still the lock's holder: the last version says what it ended with). */
void metrics_stop(void);

#endif

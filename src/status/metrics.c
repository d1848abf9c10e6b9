#include "status/metrics.h"
#include "status/prom.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The disk is measured every this many writes (a walk of the directory). */
#define METRICS_DISK_EVERY 12

static void gauge(struct buf *o, const char *name, const char *help, double v)
{
	prom_family(o, name, PROM_GAUGE, help);
	prom_sample(o, name, NULL, v);
}

static void job_metrics(const struct status *st, struct buf *o)
{
	int i;

	prom_family(o, "mpicrawl_job", PROM_GAUGE,
		    "1 for the state the crawl's job is in (running, stopped, complete, new)");
	for (i = 0; i < 4; i++)
		prom_sample(o, "mpicrawl_job", (const char *const[]){ "state",
			    status_job_names[i], NULL }, st->job == (enum status_job)i);
	gauge(o, "mpicrawl_round", "The round (segment) under way or last done", st->seg);
	prom_family(o, "mpicrawl_phase", PROM_GAUGE,
		    "1 for the phase of the round under way or next");
	prom_sample(o, "mpicrawl_phase", (const char *const[]){ "phase", st->phase, NULL }, 1);
	gauge(o, "mpicrawl_crawldb_version", "The committed CrawlDb version", st->version);
	gauge(o, "mpicrawl_disk_used_bytes", "Bytes the crawl directory takes on disk",
	      (double)st->disk_bytes);
	gauge(o, "mpicrawl_due_later_urls",
	      "URLs due after the round (generate's leftovers; once updated, the CrawlDb's "
	      "unfetched URLs)", (double)st->due_later);
}

static void round_metrics(const struct status *st, struct buf *o)
{
	const struct estimate_round *e = &st->est;

	gauge(o, "mpicrawl_round_urls", "URLs of the round, every rank counted", (double)e->total);
	gauge(o, "mpicrawl_round_urls_done", "URLs of the round with an outcome", (double)e->done);
	gauge(o, "mpicrawl_ranks", "Ranks of the job that fetches the round",
	      st->prog.ranks);
	gauge(o, "mpicrawl_ranks_reporting", "Ranks whose progress file was read whole",
	      e->reporting);
	gauge(o, "mpicrawl_fetch_request_rate",
	      "HTTP requests per second lately, all ranks", e->rate_recent);
	if (st->job == STATUS_RUNNING && e->eta_s >= 0)
		gauge(o, "mpicrawl_round_eta_seconds", "Seconds until the round's fetch ends, "
		      "estimated", (double)e->eta_s);
	if (st->crawl_eta_s >= 0)
		gauge(o, "mpicrawl_crawl_eta_seconds", "Seconds until the crawl ends, at least",
		      (double)st->crawl_eta_s);
}

static void failure_metrics(const struct status *st, struct buf *o)
{
	const struct estimate_round *e = &st->est;
	int k;

	prom_family(o, "mpicrawl_fetch_failures_total", PROM_COUNTER,
		    "Outcomes and requests of the round's fetch that failed, by class");
	for (k = 0; k < PF_COUNT_; k++)
		prom_sample(o, "mpicrawl_fetch_failures_total", (const char *const[]){ "class",
			    progfile_fail_names[k], NULL }, (double)e->fail[k]);
	prom_family(o, "mpicrawl_hosts", PROM_GAUGE, "Hosts of the round's fetch, by state");
	prom_sample(o, "mpicrawl_hosts", (const char *const[]){ "state", "active", NULL },
		    (double)e->hosts_active);
	prom_sample(o, "mpicrawl_hosts", (const char *const[]){ "state", "parked", NULL },
		    (double)e->hosts_parked);
	prom_sample(o, "mpicrawl_hosts", (const char *const[]){ "state", "held", NULL },
		    (double)e->hosts_held);
}

/* One family with a sample per rank that reported. */
static void per_rank(const struct status *st, struct buf *o, const char *name,
		     enum prom_type t, const char *help, int what)
{
	char rank[16];
	int r;

	prom_family(o, name, t, help);
	for (r = 0; r < st->prog.n; r++) {
		const struct progfile *f = &st->prog.files[r];

		if (!st->prog.ok[r])
			continue;
		snprintf(rank, sizeof(rank), "%d", r);
		prom_sample(o, name, (const char *const[]){ "rank", rank, NULL },
			    what == 0 ? (double)f->requests : what == 1 ? (double)f->bytes :
			    what == 2 ? (double)f->done : (double)f->urls);
	}
}

void metrics_text(const struct status *st, struct buf *out)
{
	job_metrics(st, out);
	round_metrics(st, out);
	failure_metrics(st, out);
	per_rank(st, out, "mpicrawl_fetch_requests_total", PROM_COUNTER,
		 "HTTP requests the rank completed in the round's fetch (robots.txt included)", 0);
	per_rank(st, out, "mpicrawl_fetch_body_bytes_total", PROM_COUNTER,
		 "Body bytes the rank received in the round's fetch", 1);
	per_rank(st, out, "mpicrawl_rank_urls_done", PROM_GAUGE,
		 "URLs of the rank's queues with an outcome", 2);
	per_rank(st, out, "mpicrawl_rank_urls", PROM_GAUGE,
		 "URLs of the rank's queues: its fetch lists and those that joined in the round",
		 3);
}

static struct {
	pthread_t thread;
	int running;
	atomic_int stop;
	long interval_s;
	char dir[PATH_MAX];
	char path[PATH_MAX];
	uint64_t disk;            /* the last measure, for the writes between */
} writer;

/* One write; the disk measured when with_disk, else *disk told again. */
static enum cr_err write_once(const char *dir, const char *path, int with_disk,
			      uint64_t *disk)
{
	struct status st;
	struct buf b;
	enum cr_err e = status_read(dir, clock_now_us(), with_disk ? STATUS_DISK : 0, &st);

	buf_init(&b);
	if (!e) {
		if (with_disk)
			*disk = st.disk_bytes;
		st.disk_bytes = *disk;
		metrics_text(&st, &b);
		e = fs_write_replace(path, b.p, b.len);
	}
	buf_release(&b);
	status_release(&st);
	/* A crawl being made has no crawl.meta yet: nothing to say. */
	return e == CR_ERR_ARG ? CR_OK : e;
}

enum cr_err metrics_write(const char *dir, const char *path)
{
	uint64_t disk = 0;

	return write_once(dir, path, 1, &disk);
}

static void *writer_main(void *arg)
{
	unsigned n = 0;
	int warned = 0;

	(void)arg;
	while (!atomic_load(&writer.stop)) {
		int64_t next = clock_mono_us() + (int64_t)writer.interval_s * 1000000;
		int disk = n++ % METRICS_DISK_EVERY == 0;

		if (write_once(writer.dir, writer.path, disk, &writer.disk) && !warned++)
			log_warn("metrics", "cannot write '%s': metrics not kept up to date",
				 writer.path);
		while (!atomic_load(&writer.stop) && clock_mono_us() < next) {
			struct timespec ts = { 0, 100000000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

enum cr_err metrics_start(const char *dir, const char *path, long interval_s)
{
	char def[PATH_MAX];
	sigset_t all, old;
	int rc;

	if (interval_s <= 0 || writer.running)
		return CR_OK;
	layout_top(dir, "metrics.prom", def, sizeof(def));
	snprintf(writer.dir, sizeof(writer.dir), "%s", dir);
	snprintf(writer.path, sizeof(writer.path), "%s", path && path[0] ? path : def);
	writer.interval_s = interval_s;
	atomic_store(&writer.stop, 0);
	/* Signals are the main thread's business (util/stop.h): its poll
	 * they cut short. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&writer.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		log_warn("metrics", "cannot start the metrics writer: no %s", writer.path);
		return CR_ERR_IO;
	}
	writer.running = 1;
	return CR_OK;
}

void metrics_stop(void)
{
	if (!writer.running)
		return;
	atomic_store(&writer.stop, 1);
	pthread_join(writer.thread, NULL);
	writer.running = 0;
	if (write_once(writer.dir, writer.path, 1, &writer.disk))
		log_warn("metrics", "cannot write '%s'", writer.path);
}

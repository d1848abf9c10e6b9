/*
 * cmd_status.c - `mpicrawl status --dir DIR [--json] [--watch S]`: what a
 * crawl's job is doing, from any node that sees the directory, at any
 * time, while a job runs or after (status/status.h reads it). One process,
 * no MPI, nothing written. --watch prints it again every S seconds until
 * the job is over (and says so once more) or the command is interrupted.
 *
 * Exit codes: 0 printed (a damaged progress file is a note, not a
 * failure); 1 DIR is not a crawl directory; 2 bad usage.
 */
#include "cli/cmds.h"
#include "status/status.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char status_usage[] = "mpicrawl status --dir DIR [--json] [--watch S]";

/* "29 s", "4 min 10 s", "2 h 5 min"; "unknown" for a negative. */
static void span(int64_t s, char *out, size_t cap)
{
	if (s < 0)
		snprintf(out, cap, "unknown");
	else if (s < 120)
		snprintf(out, cap, "%lld s", (long long)s);
	else if (s < 7200)
		snprintf(out, cap, "%lld min %lld s", (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(out, cap, "%lld h %lld min", (long long)(s / 3600),
			 (long long)(s / 60 % 60));
}

/* UTC, ISO 8601, of µs since the epoch. */
static void iso(int64_t us, char *out, size_t cap)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "pid P on host H since T, Slurm job J" (no job: not said). */
static void holder(const struct lock_holder *h, char *out, size_t cap)
{
	if (h->pid <= 0) {
		lock_holder_str(h, out, cap);
		return;
	}
	snprintf(out, cap, "pid %ld on host %s since %s%s%s", h->pid, h->host, h->started,
		 h->job[0] && strcmp(h->job, "-") ? ", Slurm job " : "",
		 h->job[0] && strcmp(h->job, "-") ? h->job : "");
}

static void text_job(const char *dir, const struct status *st, struct buf *o)
{
	char who[512];

	holder(&st->holder, who, sizeof(who));
	buf_addf(o, "crawl '%s': %s", dir, status_job_names[st->job]);
	if (st->lock == LOCK_PEEK_ALIVE || st->lock == LOCK_PEEK_REMOTE)
		buf_addf(o, " - %s%s", who,
			 st->lock == LOCK_PEEK_REMOTE ? " (another host: not checked from here)" :
			 "");
	else if (st->lock == LOCK_PEEK_GONE)
		buf_addf(o, " - its last job is gone (%s)", who);
	buf_addf(o, "\nround %d, phase %s; CrawlDb version %d\n", st->seg, st->phase,
		 st->version);
}

static void text_fetch(const struct status *st, struct buf *o)
{
	const struct estimate_round *e = &st->est;
	int k;

	buf_addf(o, "urls: %" PRIu64 " of %" PRIu64 " done (%.1f%%), %d of %d ranks reporting",
		 e->done, e->total,
		 e->total ? 100.0 * (double)e->done / (double)e->total : 0.0, e->reporting,
		 st->prog.ranks);
	if (e->reporting < st->prog.ranks)
		buf_adds(o, " (the others count as not done)");
	buf_addf(o, "\nrequests: %" PRIu64 " (%.1f/s overall, %.1f/s lately), %.1f MB\n",
		 e->requests, e->rate, e->rate_recent, (double)e->bytes / 1e6);
	buf_adds(o, "failures:");
	for (k = 0; k < PF_COUNT_; k++)
		buf_addf(o, " %s %" PRIu64 "%s", progfile_fail_names[k], e->fail[k],
			 k + 1 < PF_COUNT_ ? "," : "\n");
	buf_addf(o, "hosts: %" PRIu64 " active, %" PRIu64 " parked, %" PRIu64 " held\n",
		 e->hosts_active, e->hosts_parked, e->hosts_held);
	for (k = 0; k < e->ntop; k++) {
		char need[32];

		span(e->top[k].need_ms / 1000, need, sizeof(need));
		buf_addf(o, "%s %s: %" PRIu64 " URLs queued, %s to go\n",
			 k ? "             " : "slowest hosts:", e->top[k].name, e->top[k].queue,
			 need);
	}
	if (e->reporting)
		buf_addf(o, "rank balance: %.0f%% to %.0f%% of each rank's URLs done\n",
			 100 * e->balance_min, 100 * e->balance_max);
}

static void text_ends(const struct status *st, struct buf *o)
{
	char a[32], b[32];

	if (st->job != STATUS_RUNNING)
		return;
	span(st->est.eta_s, a, sizeof(a));
	if (st->est.eta_s >= 0) {
		iso(st->now_us + st->est.eta_s * 1000000, b, sizeof(b));
		buf_addf(o, "round's fetch ends: in about %s (%s)\n", a, b);
	} else {
		buf_addf(o, "round's fetch ends: %s (no rate yet)\n", a);
	}
	span(st->crawl_eta_s, a, sizeof(a));
	buf_addf(o, "crawl ends: %s%s (%" PRIu64 " URLs due after this round; links found "
		 "add more)\n", st->crawl_eta_s >= 0 ? "in at least " : "", a, st->due_later);
}

static void text(const char *dir, const struct status *st, struct buf *o)
{
	int k;

	text_job(dir, st, o);
	if (st->seg && st->prog.ranks)
		text_fetch(st, o);
	else if (st->seg)
		buf_addf(o, "urls: %" PRIu64 " of %" PRIu64 " done (no progress file yet)\n",
			 st->est.done, st->est.total);
	text_ends(st, o);
	buf_addf(o, "disk used: %.1f MB\n", (double)st->disk_bytes / 1e6);
	for (k = 0; k < st->prog.nnotes; k++)
		buf_addf(o, "note: %s\n", st->prog.notes[k]);
}

static void json_kv_str(struct buf *o, const char *k, const char *v)
{
	buf_addf(o, "\"%s\":", k);
	json_str(o, v, strlen(v));
	buf_addc(o, ',');
}

static void json_job(const char *dir, const struct status *st, struct buf *o)
{
	char t[32];

	iso(st->now_us, t, sizeof(t));
	buf_addc(o, '{');
	json_kv_str(o, "dir", dir);
	json_kv_str(o, "time", t);
	json_kv_str(o, "job", status_job_names[st->job]);
	if (st->lock != LOCK_PEEK_NONE) {
		buf_adds(o, "\"lock\":{");
		json_kv_str(o, "host", st->holder.host);
		json_kv_str(o, "job", st->holder.job);
		json_kv_str(o, "since", st->holder.started);
		buf_addf(o, "\"pid\":%ld,\"alive\":%s},", st->holder.pid,
			 st->lock == LOCK_PEEK_ALIVE ? "true" :
			 st->lock == LOCK_PEEK_GONE ? "false" : "null");
	}
	buf_addf(o, "\"round\":%d,", st->seg);
	json_kv_str(o, "phase", st->phase);
	buf_addf(o, "\"crawldb_version\":%d,", st->version);
}

static void json_ranks(const struct status *st, struct buf *o)
{
	int r;

	buf_addf(o, "\"ranks\":{\"total\":%d,\"reporting\":%d,\"finished\":%d,"
		 "\"balance_min\":%.4f,\"balance_max\":%.4f,\"each\":[", st->prog.ranks,
		 st->est.reporting, st->est.finished, st->est.balance_min, st->est.balance_max);
	for (r = 0; r < st->prog.n; r++) {
		const struct progfile *f = &st->prog.files[r];

		if (r)
			buf_addc(o, ',');
		if (!st->prog.ok[r]) {
			buf_adds(o, "null");
			continue;
		}
		buf_addf(o, "{\"rank\":%d,\"done\":%" PRIu64 ",\"urls\":%" PRIu64
			 ",\"requests\":%" PRIu64 ",\"finished\":%s}", r, f->done, f->urls,
			 f->requests, f->final ? "true" : "false");
	}
	buf_adds(o, "]},");
}

static void json_fetch(const struct status *st, struct buf *o)
{
	const struct estimate_round *e = &st->est;
	int k;

	buf_addf(o, "\"urls\":{\"done\":%" PRIu64 ",\"total\":%" PRIu64 ",\"selected\":%" PRIu64
		 "},", e->done, e->total, st->selected);
	buf_addf(o, "\"requests\":%" PRIu64 ",\"rate\":%.3f,\"rate_recent\":%.3f,"
		 "\"bytes\":%" PRIu64 ",\"failures\":{", e->requests, e->rate, e->rate_recent,
		 e->bytes);
	for (k = 0; k < PF_COUNT_; k++)
		buf_addf(o, "%s\"%s\":%" PRIu64, k ? "," : "", progfile_fail_names[k], e->fail[k]);
	buf_addf(o, "},\"hosts\":{\"active\":%" PRIu64 ",\"parked\":%" PRIu64 ",\"held\":%"
		 PRIu64 "},\"slowest_hosts\":[", e->hosts_active, e->hosts_parked, e->hosts_held);
	for (k = 0; k < e->ntop; k++) {
		buf_adds(o, k ? ",{\"host\":" : "{\"host\":");
		json_str(o, e->top[k].name, strlen(e->top[k].name));
		buf_addf(o, ",\"queue\":%" PRIu64 ",\"need_s\":%.1f}", e->top[k].queue,
			 (double)e->top[k].need_ms / 1000);
	}
	buf_adds(o, "],");
	json_ranks(st, o);
}

static void json_num_or_null(struct buf *o, const char *k, int64_t v)
{
	if (v < 0)
		buf_addf(o, "\"%s\":null,", k);
	else
		buf_addf(o, "\"%s\":%lld,", k, (long long)v);
}

static void json(const char *dir, const struct status *st, struct buf *o)
{
	int k;

	json_job(dir, st, o);
	json_fetch(st, o);
	json_num_or_null(o, "round_eta_s", st->job == STATUS_RUNNING ? st->est.eta_s : -1);
	json_num_or_null(o, "crawl_eta_s", st->crawl_eta_s);
	buf_addf(o, "\"due_later\":%" PRIu64 ",\"disk_bytes\":%" PRIu64 ",\"notes\":[",
		 st->due_later, st->disk_bytes);
	for (k = 0; k < st->prog.nnotes; k++) {
		if (k)
			buf_addc(o, ',');
		json_str(o, st->prog.notes[k], strlen(st->prog.notes[k]));
	}
	buf_adds(o, "]}\n");
}

/* Prints the status once; *over set when no job runs. 0, or 1 for a
 * directory that is not a crawl's. */
static int show(const char *dir, int as_json, int *over)
{
	struct status st;
	struct buf o;
	enum cr_err e = status_read(dir, clock_now_us(), STATUS_DISK, &st);

	if (e) {
		if (e == CR_ERR_ARG)
			fprintf(stderr, "mpicrawl status: '%s' is not a crawl directory\n", dir);
		else
			fprintf(stderr, "mpicrawl status: out of memory\n");
		status_release(&st);
		return 1;
	}
	buf_init(&o);
	if (as_json)
		json(dir, &st, &o);
	else
		text(dir, &st, &o);
	fwrite(o.p, 1, o.len, stdout);
	fflush(stdout);
	buf_release(&o);
	*over = st.job != STATUS_RUNNING;
	status_release(&st);
	return 0;
}

/* One line: what is wrong, and the usage. */
static int bad_usage(const char *why)
{
	fprintf(stderr, "mpicrawl status: %s (usage: %s)\n", why, status_usage);
	return 2;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const char status_help[] =
	"  what a crawl's job is doing: running, stopped or complete, the\n"
	"  round and phase, URLs done of the round's, rates, failures, hosts,\n"
	"  the slowest hosts, rank balance, when the round and the crawl end,\n"
	"  disk used; from any node, while a job runs or after. --json: one\n"
	"  JSON object; --watch S: again every S seconds until the job ends\n\n"
	"exit codes: 0 printed; 1 not a crawl directory; 2 bad usage\n";

struct status_opts {
	const char *dir;
	double watch;
	int json;
};

/* -1 to go on; else the exit code (help printed, or bad usage said). */
static int parse(int argc, char **argv, struct status_opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			o->dir = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			o->json = 1;
		} else if (!strcmp(argv[i], "--watch") && i + 1 < argc) {
			char *end;

			o->watch = strtod(argv[++i], &end);
			if (end == argv[i] || *end || !(o->watch >= 0.1 && o->watch <= 86400))
				return bad_usage("--watch wants seconds, 0.1 to 86400");
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s\n\n%s", status_usage, status_help);
			return 0;
		} else {
			char why[96];

			snprintf(why, sizeof(why), "bad argument '%.64s'", argv[i]);
			return bad_usage(why);
		}
	}
	return o->dir ? -1 : bad_usage("--dir is required");
}

int cmd_status(int argc, char **argv)
{
	struct status_opts o = { NULL, 0, 0 };
	int over = 0, rc = parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	for (;;) {
		rc = show(o.dir, o.json, &over);
		if (rc || !o.watch || over)
			return rc;
		nap(o.watch);
		if (!o.json)
			fputs("\n", stdout);
	}
}

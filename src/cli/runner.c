#include "cli/runner.h"
#include "comm/comm.h"
#include "crawldb/crawl_record.h"
#include "fetch/fetch.h"
#include "generate/generate.h"
#include "index/index.h"
#include "inject/inject.h"
#include "parse/parse.h"
#include "update/update.h"
#include "url/url.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/stop.h"

#include <dirent.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int launcher_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
					    "PMI_RANK", "SLURM_PROCID" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v)
			return (int)strtol(v, NULL, 10);
	}
	return 0;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	if (launcher_rank() != 0)
		return;
	fputs("mpicrawl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void bad_usage(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void bad_usage(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (launcher_rank() == 0) {
		fputs("mpicrawl: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\nusage: %s\n", usage);
	}
	exit(2);
}

static long parse_long(const char *usage, const char *opt, const char *v, long min, long max)
{
	char *end;
	long x = strtol(v, &end, 10);

	if (end == v || *end || x < min || x > max)
		bad_usage(usage, "%s: bad value '%s' (%ld to %ld)", opt, v, min, max);
	return x;
}

void cli_parse(int argc, char **argv, const char *cmd, const char *allowed,
	       const char *usage, struct cli_opts *o)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "seeds", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 'S' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "segment", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	(void)cmd;
	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		if (c == 'h') {
			if (launcher_rank() == 0)
				printf("usage: %s\n", usage);
			exit(0);
		}
		if (c == '?')
			bad_usage(usage, "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			bad_usage(usage, "option '%s' needs a value", argv[optind - 1]);
		if (!strchr(allowed, c))
			bad_usage(usage, "option '%s' does not apply here", argv[optind - 2]);
		switch (c) {
		case 'd': o->dir = optarg; break;
		case 's': o->seeds = optarg; break;
		case 'c': o->config = optarg; break;
		case 'r': o->rounds = parse_long(usage, "--rounds", optarg, 1, 1000000); break;
		case 'g': o->segment = (int)parse_long(usage, "--segment", optarg, 1, 99999); break;
		case 'S':
			if (o->nsets >= (int)(sizeof(o->sets) / sizeof(o->sets[0])))
				bad_usage(usage, "too many --set options");
			o->sets[o->nsets++] = optarg;
			break;
		}
	}
	if (optind < argc)
		bad_usage(usage, "unexpected argument '%s'", argv[optind]);
	if (strchr(allowed, 'd') && !o->dir)
		bad_usage(usage, "--dir is required");
}

/* The crawl directory's lock, held by rank 0 from cli_job_start to cli_job_end. */
static struct dir_lock job_lock = { .fd = -1 };

/* Rank 0 takes DIR/lock (ranks may run on several hosts: one holder per
 * job); every rank learns whether it got it. */
static int take_lock(struct job *j, const char *dir)
{
	enum cr_err e = CR_OK;
	struct lock_holder h;

	if (j->rank == 0) {
		char path[PATH_MAX];

		layout_top(dir, "lock", path, sizeof(path));
		e = fs_mkdirs(dir);
		if (!e)
			e = lock_acquire(path, &job_lock, &h);
		if (e == CR_ERR_STATE) {
			char who[512];

			lock_holder_str(&h, who, sizeof(who));
			cli_error("crawl directory '%s' is in use by %s; if that job is gone, "
				  "run 'mpicrawl unlock --dir %s'", dir, who, dir);
		}
	}
	return comm_agree(e == CR_OK);
}

int cli_job_start(struct job *j, const struct cli_opts *o, int create)
{
	int i, ok;
	enum cr_err e = CR_OK;

	memset(j, 0, sizeof(*j));
	config_defaults(&j->cfg);
	/* Configuration errors are found before MPI starts: one line, exit 2. */
	if (o->config && config_load(&j->cfg, o->config) != CR_OK)
		return 2;
	for (i = 0; i < o->nsets; i++)
		if (config_set_kv(&j->cfg, o->sets[i]) != CR_OK)
			return 2;
	url_configure(&j->cfg);
	if (comm_init(NULL, NULL) != CR_OK) {
		cli_error("cannot start MPI");
		return 1;
	}
	j->rank = comm_rank();
	j->nranks = comm_size();
	stop_install();
	e = layout_open(o->dir, &j->cfg, create, &j->dir);
	ok = comm_agree(e == CR_OK);
	if (!ok)
		return e == CR_ERR_ARG ? 2 : 1;
	if (!take_lock(j, o->dir))
		return 1;
	if (create && j->rank == 0) {
		char meta[PATH_MAX];

		snprintf(meta, sizeof(meta), "%s/crawl.meta", o->dir);
		if (!fs_exists(meta))
			e = layout_write_meta(&j->dir, &j->cfg);
	}
	if (!comm_agree(e == CR_OK))
		return 1;
	if (j->rank == 0 && (uint32_t)j->nranks > j->dir.partitions)
		log_warn("job", "%d ranks but %u partitions: ranks %u and up have no work "
			 "(partition.count is fixed when the crawl directory is created)",
			 j->nranks, j->dir.partitions, j->dir.partitions);
	e = job_tmpdir(j);
	if (!comm_agree(e == CR_OK)) {
		log_err("job", "cannot create scratch directory under '%s'", o->dir);
		return 1;
	}
	return 0;
}

int cli_job_end(int code)
{
	/* Every rank (they all get here) is done with the directory first. */
	comm_barrier();
	lock_release(&job_lock);
	comm_finalize();
	return code;
}

/* ---- phases ---- */

static double secs_since(int64_t t0)
{
	return (double)(clock_mono_us() - t0) / 1e6;
}

/* Sums counters over ranks and builds the phase's JSON on rank 0. */
static void phase_json(struct job *j, const char *const *names, uint64_t *v, size_t n,
		       double secs, int extra_ver, struct buf *out)
{
	struct json_counter cs[64];
	size_t i;

	comm_sum_u64(v, n);
	for (i = 0; i < n && i < 64; i++) {
		cs[i].name = names[i];
		cs[i].value = v[i];
	}
	buf_addf(out, "{\"seconds\":%.3f,\"ranks\":%d", secs, j->nranks);
	if (extra_ver >= 0)
		buf_addf(out, ",\"crawldb_version\":%d", extra_ver);
	buf_adds(out, ",\"counters\":");
	json_counters(cs, n < 64 ? n : 64, out);
	buf_adds(out, "}\n");
}

/* stats.json of a segment: every phase's JSON, gathered from _SUCCESS files. */
static void write_stats(struct job *j, int seg)
{
	static const char *const phases[] = { "generate", "fetch", "parse", "update",
					      "index" };
	char dir[PATH_MAX - 64], path[PATH_MAX];
	struct buf b;
	size_t i;
	int first = 1;

	if (j->rank != 0)
		return;
	layout_segment_dir(&j->dir, seg, dir, sizeof(dir));
	buf_init(&b);
	buf_addf(&b, "{\"segment\":%d", seg);
	for (i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		struct buf p;

		buf_init(&p);
		snprintf(path, sizeof(path), "%s/_SUCCESS.%s", dir, phases[i]);
		if (fs_read_all(path, 1 << 20, &p) == CR_OK && p.len) {
			while (p.len && (p.p[p.len - 1] == '\n'))
				p.len--;
			buf_addf(&b, ",\"%s\":", phases[i]);
			buf_add(&b, p.p, p.len);
		}
		buf_release(&p);
		first = 0;
	}
	(void)first;
	buf_adds(&b, "}\n");
	snprintf(path, sizeof(path), "%s/stats.json", dir);
	if (fs_write_atomic(path, b.p, b.len) != CR_OK)
		log_warn("crawl", "cannot write '%s'", path);
	buf_release(&b);
}

void cli_write_stats(struct job *j, int seg)
{
	write_stats(j, seg);
}

static int mark(struct job *j, int seg, const char *phase, const struct buf *json)
{
	enum cr_err e = CR_OK;

	if (j->rank == 0)
		e = layout_phase_mark(&j->dir, seg, phase, buf_cstr((struct buf *)json));
	if (!comm_agree(e == CR_OK))
		return 1;
	write_stats(j, seg);
	return 0;
}

/*
 * What the crawl directory says is read by rank 0 and broadcast: on a shared
 * filesystem another rank could still see an older view, and ranks that
 * decide differently would call different collectives.
 */
static int current_version(struct job *j, int *ver)
{
	int v[2] = { 0, 0 };

	if (j->rank == 0)
		v[0] = layout_crawldb_current(&j->dir, &v[1]) == CR_OK;
	comm_bcast(v, sizeof(v), 0);
	*ver = v[1];
	return v[0] ? 0 : 1;
}

static int phase_done(struct job *j, int seg, const char *phase)
{
	int v = j->rank == 0 ? layout_phase_done(&j->dir, seg, phase) : 0;

	comm_bcast(&v, sizeof(v), 0);
	return v;
}

static int last_segment(struct job *j)
{
	int v = j->rank == 0 ? layout_segment_last(&j->dir) : 0;

	comm_bcast(&v, sizeof(v), 0);
	return v;
}

/* After CURRENT moved to ver: drop versions older than ver - 1. */
static void prune_crawldb(struct job *j, int ver)
{
	char dir[PATH_MAX];

	if (j->rank != 0 || ver < 3)
		return;
	layout_crawldb_dir(&j->dir, ver - 2, dir, sizeof(dir));
	if (fs_exists(dir) && fs_remove_tree(dir) != CR_OK)
		log_warn("crawl", "cannot remove old CrawlDb version '%s'", dir);
}

/* Commits CrawlDb version ver, made by origin ("inject" or "segment N"),
 * which is written beside it first. */
static int commit_version(struct job *j, int ver, const char *origin)
{
	enum cr_err e = CR_OK;

	if (j->rank == 0) {
		char dir[PATH_MAX - 16], path[PATH_MAX];

		layout_crawldb_dir(&j->dir, ver, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/_FROM", dir);
		e = fs_write_atomic(path, origin, strlen(origin));
		if (!e)
			e = layout_crawldb_commit(&j->dir, ver);
	}
	if (!comm_agree(e == CR_OK))
		return 1;
	prune_crawldb(j, ver);
	return 0;
}

static void clean_phase(struct job *j, int seg, const char *const *subdirs);

/* Removes CrawlDb version ver, which is not committed (CURRENT is older):
 * what an interrupted inject or update left, temporary files included. */
static void clean_version(struct job *j, int ver)
{
	char dir[PATH_MAX];

	if (j->rank == 0) {
		layout_crawldb_dir(&j->dir, ver, dir, sizeof(dir));
		if (fs_exists(dir) && fs_remove_tree(dir) != CR_OK)
			log_warn("crawl", "cannot remove uncommitted CrawlDb version '%s'", dir);
	}
	comm_barrier();
}

int runner_inject(struct job *j, const char *seeds)
{
	uint64_t c[IC_COUNT_] = { 0 };
	int ver, rc;
	enum cr_err e;
	struct buf json;
	int64_t t0 = clock_mono_us();

	rc = current_version(j, &ver);
	if (rc)
		return rc;
	clean_version(j, ver + 1);
	e = inject_run(j, seeds, ver, c);
	if (!comm_agree(e == CR_OK)) {
		cli_error("inject failed");
		return e == CR_ERR_ARG ? 2 : 1;
	}
	rc = commit_version(j, ver + 1, "inject\n");
	buf_init(&json);
	phase_json(j, inject_counter_names, c, IC_COUNT_, secs_since(t0), ver + 1, &json);
	if (!rc && j->rank == 0)
		log_info("inject", "%llu seeds read, %llu valid, %llu invalid, %llu new; "
			 "CrawlDb version %d has %llu URLs",
			 (unsigned long long)c[IC_LINES], (unsigned long long)c[IC_VALID],
			 (unsigned long long)c[IC_INVALID], (unsigned long long)c[IC_ADDED],
			 ver + 1, (unsigned long long)c[IC_RECORDS]);
	buf_release(&json);
	return rc;
}

int runner_generate(struct job *j, int *segp, uint64_t *selected)
{
	uint64_t c[GC_COUNT_] = { 0 };
	int ver, seg = 0, rc;
	enum cr_err e;
	struct buf json;
	int64_t t0 = clock_mono_us(), now = clock_now_us();

	rc = current_version(j, &ver);
	if (rc)
		return rc;
	if (ver == 0) {
		cli_error("the CrawlDb is empty: inject seeds first");
		return 1;
	}
	seg = last_segment(j);
	/* An unfinished generate left its segment: reuse the number. */
	if (seg == 0 || phase_done(j, seg, "generate")) {
		seg++;
	} else {
		static const char *const fetchlist[] = { "fetchlist", NULL };

		clean_phase(j, seg, fetchlist);
	}
	comm_bcast(&now, sizeof(now), 0);
	e = generate_run(j, seg, ver, now, c);
	if (!comm_agree(e == CR_OK)) {
		cli_error("generate failed");
		return 1;
	}
	buf_init(&json);
	phase_json(j, generate_counter_names, c, GC_COUNT_, secs_since(t0), ver, &json);
	rc = mark(j, seg, "generate", &json);
	buf_release(&json);
	if (!rc && j->rank == 0)
		log_info("generate", "segment %d: %llu URLs due on %llu hosts "
			 "(%llu capped per host, %llu not due)", seg,
			 (unsigned long long)c[GC_SELECTED], (unsigned long long)c[GC_HOSTS],
			 (unsigned long long)c[GC_HOST_CAPPED], (unsigned long long)c[GC_NOT_DUE]);
	*segp = seg;
	*selected = c[GC_SELECTED];
	return rc;
}

static int resolve_segment(struct job *j, int *seg, const char *need)
{
	int s = *seg;

	if (s == 0)
		s = last_segment(j);
	if (s == 0 || !phase_done(j, s, need)) {
		cli_error("segment %d is not ready: its %s phase has not completed", s, need);
		return 1;
	}
	*seg = s;
	return 0;
}

/* Outcomes of the last fetch phase (all ranks): crawl stops when a round
 * could fetch nothing at all, rather than asking the same failing
 * robots.txt again at once, round after round. */
static uint64_t last_outcomes;

int runner_fetch(struct job *j, int seg)
{
	uint64_t c[FC_COUNT_] = { 0 }, pc[PC_COUNT_] = { 0 };
	enum cr_err e;
	struct buf json;
	int rc;
	int64_t t0 = clock_mono_us();

	static const char *const fetch_out[] = { "fetch", "warc", "parse", "progress", NULL };
	static const char *const progress[] = { "progress", NULL };
	int stopped;

	if (resolve_segment(j, &seg, "generate"))
		return 1;
	if (phase_done(j, seg, "fetch")) {
		/* Fetching a fetched segment again starts afresh. */
		clean_phase(j, seg, fetch_out);
	} else {
		/* An interrupted fetch is resumed from its journals
		 * (fetch/journal.h); the robots cache it may have half
		 * written is not read as this segment's. */
		clean_phase(j, seg, progress);
		if (j->rank == 0) {
			char dir[PATH_MAX];

			snprintf(dir, sizeof(dir), "%s/robots/%05d", j->dir.root, seg);
			if (fs_exists(dir) && fs_remove_tree(dir) != CR_OK)
				log_warn("crawl", "cannot remove '%s'", dir);
		}
		comm_barrier();
	}
	comm_notice_open();
	e = fetch_run(j, seg, c, pc);
	/* Ranks that finished pass a late signal on while they wait. */
	comm_notice_close(stop_requested);
	stopped = !comm_agree(e != CR_AGAIN);
	if (!comm_agree(e == CR_OK || e == CR_AGAIN)) {
		cli_error("fetch of segment %d failed", seg);
		return 1;
	}
	if (stopped) {
		if (j->rank == 0)
			log_info("fetch", "segment %d: stopped early on a signal; what was "
				 "fetched is kept: run the same command again to continue", seg);
		return CLI_EXIT_STOPPED;
	}
	buf_init(&json);
	phase_json(j, fetch_counter_names, c, FC_COUNT_, secs_since(t0), -1, &json);
	last_outcomes = c[FC_FETCHED] + c[FC_REDIRECT] + c[FC_GONE] + c[FC_ERROR] +
			c[FC_DENIED] + c[FC_BLOCKED] + c[FC_DEFERRED];
	rc = mark(j, seg, "fetch", &json);
	if (!rc && j->cfg.fetch_parse) {
		/* The fetcher parsed as it went: the parse phase is complete. */
		json.len = 0;
		phase_json(j, parse_counter_names, pc, PC_COUNT_, 0, -1, &json);
		rc = mark(j, seg, "parse", &json);
		if (!rc && j->rank == 0)
			log_info("parse", "segment %d (while fetching): %llu pages, %llu links, "
				 "%llu failed", seg, (unsigned long long)pc[PC_PAGES],
				 (unsigned long long)pc[PC_LINKS],
				 (unsigned long long)pc[PC_FAILED]);
	}
	buf_release(&json);
	if (!rc && j->rank == 0) {
		double s = secs_since(t0);

		log_info("fetch", "segment %d: %llu requests in %.1f s (%.1f/s), %llu fetched, "
			 "%llu redirects, %llu gone, %llu errors, %llu denied by robots.txt, "
			 "%llu blocked, %.1f MB", seg,
			 (unsigned long long)c[FC_REQUESTS], s,
			 s > 0 ? (double)c[FC_REQUESTS] / s : 0,
			 (unsigned long long)c[FC_FETCHED], (unsigned long long)c[FC_REDIRECT],
			 (unsigned long long)c[FC_GONE], (unsigned long long)c[FC_ERROR],
			 (unsigned long long)c[FC_DENIED], (unsigned long long)c[FC_BLOCKED],
			 (double)c[FC_BYTES] / 1e6);
	}
	return rc;
}

int runner_parse(struct job *j, int seg)
{
	uint64_t c[PC_COUNT_] = { 0 };
	enum cr_err e;
	struct buf json;
	int rc;
	int64_t t0 = clock_mono_us();

	if (resolve_segment(j, &seg, "fetch"))
		return 1;
	e = parse_run(j, seg, c);
	if (!comm_agree(e == CR_OK)) {
		cli_error("parse of segment %d failed", seg);
		return 1;
	}
	buf_init(&json);
	phase_json(j, parse_counter_names, c, PC_COUNT_, secs_since(t0), -1, &json);
	rc = mark(j, seg, "parse", &json);
	buf_release(&json);
	if (!rc && j->rank == 0)
		log_info("parse", "segment %d: %llu pages, %llu links, %llu failed", seg,
			 (unsigned long long)c[PC_PAGES], (unsigned long long)c[PC_LINKS],
			 (unsigned long long)c[PC_FAILED]);
	return rc;
}

/* The CrawlDb version a segment was generated from (its _SUCCESS.generate). */
static int segment_base_version(struct job *j, int seg)
{
	char dir[PATH_MAX - 64], path[PATH_MAX];
	struct buf b;
	const char *p;
	int v = -1;

	layout_segment_dir(&j->dir, seg, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/_SUCCESS.generate", dir);
	buf_init(&b);
	if (fs_read_all(path, 1 << 20, &b) == CR_OK &&
	    (p = strstr(buf_cstr(&b), "\"crawldb_version\":")) != NULL)
		v = (int)strtol(p + 18, NULL, 10);
	buf_release(&b);
	return v;
}

/* 1 if CrawlDb version ver was made by the update of segment seg (rank 0
 * reads, all learn). */
static int version_from(struct job *j, int ver, int seg)
{
	int v = 0;

	if (j->rank == 0) {
		char dir[PATH_MAX - 16], path[PATH_MAX], want[32];
		struct buf b;

		layout_crawldb_dir(&j->dir, ver, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/_FROM", dir);
		snprintf(want, sizeof(want), "segment %d\n", seg);
		buf_init(&b);
		v = fs_read_all(path, 64, &b) == CR_OK && !strcmp(buf_cstr(&b), want);
		buf_release(&b);
	}
	comm_bcast(&v, sizeof(v), 0);
	return v;
}

int runner_update(struct job *j, int seg)
{
	uint64_t c[UC_COUNT_] = { 0 };
	enum cr_err e;
	struct buf json;
	int ver, base, rc;
	int64_t t0 = clock_mono_us();

	if (resolve_segment(j, &seg, "parse"))
		return 1;
	rc = current_version(j, &ver);
	if (rc)
		return rc;
	base = segment_base_version(j, seg);
	comm_bcast(&base, sizeof(base), 0);
	if (base <= 0 || (ver != base && !(ver == base + 1 && version_from(j, ver, seg)))) {
		cli_error("segment %d was generated from CrawlDb version %d, which is no longer "
			  "current (%d): generate a new segment", seg, base, ver);
		return 1;
	}
	buf_init(&json);
	if (ver == base + 1) {
		/* A previous run committed the CrawlDb and stopped before
		 * marking the phase: only the mark is missing. */
		buf_adds(&json, "{\"resumed\":true}\n");
		rc = mark(j, seg, "update", &json);
		buf_release(&json);
		return rc;
	}
	clean_version(j, ver + 1);
	e = update_run(j, seg, ver, c);
	if (!comm_agree(e == CR_OK)) {
		cli_error("update of segment %d failed", seg);
		buf_release(&json);
		return 1;
	}
	{
		char origin[32];

		snprintf(origin, sizeof(origin), "segment %d\n", seg);
		rc = commit_version(j, ver + 1, origin);
	}
	phase_json(j, update_counter_names, c, UC_COUNT_, secs_since(t0), ver + 1, &json);
	if (!rc)
		rc = mark(j, seg, "update", &json);
	buf_release(&json);
	/* CDXJ, text and links: after the update, which decided the duplicates */
	if (!rc && j->cfg.index_enabled)
		rc = runner_index(j, seg, ver + 1);
	if (!rc && j->rank == 0)
		log_info("update", "segment %d: %llu links routed, %llu new URLs; CrawlDb "
			 "version %d: %llu URLs, %llu fetched, %llu unfetched, %llu gone, "
			 "%llu errors, %llu denied", seg,
			 (unsigned long long)c[UC_LINKS_SENT], (unsigned long long)c[UC_ADDED],
			 ver + 1, (unsigned long long)c[UC_RECORDS],
			 (unsigned long long)c[UC_STATUS_FIRST + ST_FETCHED],
			 (unsigned long long)c[UC_STATUS_FIRST + ST_UNFETCHED],
			 (unsigned long long)c[UC_STATUS_FIRST + ST_GONE],
			 (unsigned long long)c[UC_STATUS_FIRST + ST_ERROR],
			 (unsigned long long)c[UC_STATUS_FIRST + ST_DENIED]);
	return rc;
}

int runner_index(struct job *j, int seg, int crawldb_version)
{
	uint64_t c[IX_COUNT_] = { 0 };
	struct json_counter cs[IX_COUNT_];
	int64_t t0 = clock_mono_us();
	struct buf json;
	enum cr_err e;
	size_t i;

	e = index_segment(j, seg, crawldb_version, c);
	if (!comm_agree(e == CR_OK)) {
		cli_error("index of segment %d failed", seg);
		return 1;
	}
	comm_sum_u64(c, IX_COUNT_);
	if (j->rank != 0)
		return comm_agree(1) ? 0 : 1;
	for (i = 0; i < IX_COUNT_; i++) {
		cs[i].name = index_counter_names[i];
		cs[i].value = c[i];
	}
	buf_init(&json);
	buf_addf(&json, "{\"seconds\":%.3f,\"ranks\":%d,\"counters\":",
		 (double)(clock_mono_us() - t0) / 1e6, j->nranks);
	json_counters(cs, IX_COUNT_, &json);
	buf_adds(&json, "}\n");
	e = layout_phase_mark(&j->dir, seg, "index", buf_cstr(&json));
	buf_release(&json);
	if (e == CR_OK) {
		cli_write_stats(j, seg);
		log_info("index", "segment %d: %llu WARC files, %llu CDXJ lines, %llu texts "
			 "(%llu duplicates), %llu links", seg,
			 (unsigned long long)c[IX_WARC_FILES], (unsigned long long)c[IX_CDXJ_LINES],
			 (unsigned long long)c[IX_TEXT_DOCS],
			 (unsigned long long)c[IX_TEXT_DUPLICATES],
			 (unsigned long long)c[IX_LINKS]);
	}
	return comm_agree(e == CR_OK) ? 0 : 1;
}

/* Removes what an interrupted phase of seg left, so it is redone whole. */
static void clean_phase(struct job *j, int seg, const char *const *subdirs)
{
	char dir[PATH_MAX - 64], path[PATH_MAX];
	size_t i;

	if (j->rank == 0) {
		layout_segment_dir(&j->dir, seg, dir, sizeof(dir));
		for (i = 0; subdirs[i]; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
			if (fs_remove_tree(path) != CR_OK)
				log_warn("crawl", "cannot remove '%s'", path);
		}
	}
	comm_barrier();
}

/* Removes the temporary files (NAME.tmp.PID) a killed job left in dir and,
 * with depth 1, in its subdirectories: files written under a temporary name
 * and never renamed into place. */
static void clean_tmp(const char *dir, int depth)
{
	DIR *dh = opendir(dir);
	struct dirent *de;

	if (!dh)
		return;
	while ((de = readdir(dh)) != NULL) {
		char path[PATH_MAX + 256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (depth > 0 && de->d_type == DT_DIR)
			clean_tmp(path, depth - 1);
		if (!strstr(de->d_name, ".tmp."))
			continue;
		if (unlink(path) != 0)
			log_warn("crawl", "cannot remove '%s'", path);
	}
	closedir(dh);
}

/*
 * Crash tests (tests/e2e/resume.sh) kill a job inside a chosen phase:
 * MPICRAWL_TEST_KILL="PHASE SEG MS RANK SIG" makes rank RANK (-1: every
 * rank) send itself signal SIG (9: SIGKILL, 15: SIGTERM, ...) MS ms after
 * phase PHASE (inject, generate, fetch, parse, update) of segment SEG (0 for
 * inject) starts in `crawl`. Not for production use.
 */
static int test_kill_sig;
static long test_kill_ms;

static void *test_kill_thread(void *arg)
{
	struct timespec ts = { test_kill_ms / 1000, (test_kill_ms % 1000) * 1000000 };

	(void)arg;
	nanosleep(&ts, NULL);
	kill(getpid(), test_kill_sig);
	return NULL;
}

static void test_kill_arm(const struct job *j, const char *phase, int seg)
{
	const char *spec = getenv("MPICRAWL_TEST_KILL");
	char ph[16];
	int sseg, rank, sig;
	long ms;
	pthread_t t;

	if (!spec || test_kill_sig ||
	    sscanf(spec, "%15s %d %ld %d %d", ph, &sseg, &ms, &rank, &sig) != 5)
		return;
	if (strcmp(ph, phase) || sseg != seg || (rank >= 0 && rank != j->rank) || ms < 0 ||
	    sig <= 0)
		return;
	test_kill_sig = sig;
	test_kill_ms = ms;
	if (pthread_create(&t, NULL, test_kill_thread, NULL) == 0)
		pthread_detach(t);
}

/*
 * A safe point of the crawl loop: 1 on every rank if any rank was asked to
 * stop (SIGTERM, SIGUSR1). What is committed stays; the next run continues.
 */
static int stop_here(struct job *j, const char *before)
{
	int sig = stop_requested();

	if (comm_agree(sig == 0))
		return 0;
	if (j->rank == 0)
		log_info("crawl", "asked to stop: stopping before %s; run the same command "
			 "again to continue", before);
	return 1;
}

int runner_crawl(struct job *j, const char *seeds, long rounds)
{
	static const char *const parse_out[] = { "parse", NULL };
	int ver, rc, round;
	long max = rounds > 0 ? rounds : j->cfg.max_rounds;

	rc = current_version(j, &ver);
	if (rc)
		return rc;
	if (j->rank == 0) {
		char dir[PATH_MAX];
		int last = layout_segment_last(&j->dir);

		snprintf(dir, sizeof(dir), "%s/crawldb", j->dir.root);
		clean_tmp(dir, 0);
		if (last > 0) {
			layout_segment_dir(&j->dir, last, dir, sizeof(dir));
			clean_tmp(dir, 1);
		}
	}
	if (ver == 0) {
		if (!seeds) {
			cli_error("the CrawlDb is empty: give --seeds");
			return 2;
		}
		test_kill_arm(j, "inject", 0);
		rc = runner_inject(j, seeds);
		if (rc)
			return rc;
	} else if (seeds && j->rank == 0) {
		log_info("crawl", "continuing the crawl in '%s'; seeds are injected only "
			 "into an empty CrawlDb (use 'mpicrawl inject' to add more)", j->dir.root);
	}
	for (round = 1; round <= max; round++) {
		int seg = last_segment(j);
		int64_t t0 = clock_mono_us();

		if (stop_here(j, "the next round"))
			return CLI_EXIT_STOPPED;
		if (seg == 0 || phase_done(j, seg, "update") || !phase_done(j, seg, "generate")) {
			uint64_t selected = 0;

			test_kill_arm(j, "generate",
				      seg == 0 || phase_done(j, seg, "generate") ? seg + 1 : seg);

			rc = runner_generate(j, &seg, &selected);
			if (rc)
				return rc;
			if (selected == 0) {
				if (j->rank == 0) {
					char dir[PATH_MAX - 64];

					layout_segment_dir(&j->dir, seg, dir, sizeof(dir));
					if (fs_remove_tree(dir) != CR_OK)
						log_warn("crawl", "cannot remove empty "
							 "segment '%s'", dir);
					log_info("crawl", "nothing is due: the crawl is complete");
				}
				comm_barrier();
				return 0;
			}
		} else if (j->rank == 0) {
			log_info("crawl", "resuming segment %d", seg);
		}
		last_outcomes = 1;   /* a resumed round fetched before it stopped */
		if (!phase_done(j, seg, "fetch")) {
			if (stop_here(j, "fetch"))
				return CLI_EXIT_STOPPED;
			test_kill_arm(j, "fetch", seg);
			rc = runner_fetch(j, seg);
			if (rc)
				return rc;
		}
		if (!phase_done(j, seg, "parse")) {
			if (stop_here(j, "parse"))
				return CLI_EXIT_STOPPED;
			test_kill_arm(j, "parse", seg);
			clean_phase(j, seg, parse_out);
			rc = runner_parse(j, seg);
			if (rc)
				return rc;
		}
		if (stop_here(j, "update"))
			return CLI_EXIT_STOPPED;
		test_kill_arm(j, "update", seg);
		rc = runner_update(j, seg);
		if (rc)
			return rc;
		if (j->rank == 0)
			log_info("crawl", "round %d (segment %d) done in %.1f s", round, seg,
				 secs_since(t0));
		if (last_outcomes == 0) {
			if (j->rank == 0)
				log_info("crawl", "no URL could be fetched this round (robots.txt "
					 "unavailable, hosts parked or the time limit): stopping; "
					 "run again later to continue");
			return 0;
		}
	}
	if (j->rank == 0)
		log_info("crawl", "stopped after %ld rounds; run again to continue", max);
	return 0;
}

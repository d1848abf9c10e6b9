/*
 * test_live.c - what the read-only commands read of a crawl directory a
 * job is writing (round/live.h): which segment folders a segment's
 * manifests commit, which names are temporaries, whether the last round
 * is in progress and how it is said; then round_live_read on a directory
 * whose lock this process holds. No MPI.
 */
#include "round/live.h"
#include "test.h"

#include <stdlib.h>

#define G ROUND_GENERATED
#define F ROUND_FETCHED
#define P ROUND_PARSED
#define U ROUND_UPDATED
#define I ROUND_INDEXED

static void committed(void)
{
	static const struct {
		const char *sub;
		int phases, want;
	} rows[] = {
		{ "fetchlist", 0, 0 },        /* generate under way */
		{ "fetchlist", G, 1 },
		{ "denied", G, 1 },
		{ "fetch", G, 0 },            /* fetch under way: part-P.zst.tmp.PID */
		{ "warc", G, 0 },
		{ "fetch", G | F, 1 },
		{ "warc", G | F | P, 1 },
		{ "parse", G | F, 0 },
		{ "parse", G | F | P, 1 },
		{ "cdxj", G | F | P | U, 0 }, /* index under way */
		{ "cdxj", G | F | P | U | I, 1 },
		{ "text", I, 1 },
		{ "links", G | F | P | U | I, 1 },
		{ "progress", G | F | P | U | I, 0 },   /* live counters, never committed */
		{ "staged", G | F, 0 },
		{ "nonsense", G | F | P | U | I, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK(round_sub_committed(rows[i].phases, rows[i].sub) == rows[i].want,
		      "%s with phases %d: %d", rows[i].sub, rows[i].phases, !rows[i].want);
}

static void decision_kinds(void)
{
	static const struct {
		int phases;
		const char *want;    /* the kinds, joined by spaces */
	} rows[] = {
		{ 0, "" },
		{ G, "generate-" },
		{ G | F | P, "generate-" },      /* update under way: its logs are not yet */
		{ G | F | P | U, "generate- update- held-" },
		{ G | F | P | U | I, "generate- update- held-" },
	};
	char buf[100];
	const char *got = buf;
	size_t i, at, k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *const *kinds = round_decision_kinds(rows[i].phases);

		buf[0] = '\0';
		for (k = 0, at = 0; kinds[k]; k++)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", k ? " " : "",
					       kinds[k]);
		CHECK_STR(got, rows[i].want);
	}
}

static void kept(void)
{
	static const struct {
		int ver, current, want;
	} rows[] = {
		{ 4, 4, 1 }, { 4, 5, 1 },     /* current, and the one before it */
		{ 4, 6, 0 }, { 4, 9, 0 },     /* removed as version 6 committed */
		{ 5, 4, 0 },                  /* not committed: CURRENT went back (repair) */
		{ 0, 0, 0 },                  /* none */
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK(round_version_kept(rows[i].ver, rows[i].current) == rows[i].want,
		      "version %d with %d current: %d", rows[i].ver, rows[i].current,
		      !rows[i].want);
}

static void temps(void)
{
	static const struct {
		const char *name;
		int want;
	} rows[] = {
		{ "part-00005.zst.tmp.4079", 1 },
		{ "part-00005.zst", 0 },
		{ "update-00001.jsonl.zst.tmp", 1 },
		{ "update-00001.jsonl.zst", 0 },
		{ "CURRENT.tmp.12", 1 },
		{ "mpicrawl-20261127-00001-00000-node1.warc.gz", 0 },
		{ "a.tmpl", 0 },
		{ "tmp", 0 },
		{ ".tmp", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK(round_name_is_temp(rows[i].name) == rows[i].want, "'%s': %d", rows[i].name,
		      !rows[i].want);
}

static void progress(void)
{
	static const struct {
		struct round_snapshot s;   /* version, version_from, seg, phases, seg_base, ok */
		int running;
		const char *want;
	} rows[] = {
		{ { 0, 0, 0, 0, 0, 1 }, 1, "no round yet" },
		{ { 1, 0, 1, 0, 0, 1 }, 1, "round 1 in progress (generate under way)" },
		{ { 1, 0, 1, G, 1, 1 }, 1,
		  "round 1 in progress (generate committed; fetch under way)" },
		{ { 3, 2, 3, G | F | P, 3, 1 }, 1,
		  "round 3 in progress (generate, fetch, parse committed; update under way)" },
		{ { 3, 2, 3, G | F, 3, 1 }, 0,
		  "round 3 interrupted (generate, fetch committed; parse not done)" },
		{ { 4, 3, 3, G | F | P | U, 3, 1 }, 1, "round 3 complete" },
		{ { 4, 3, 3, G | F | P | U | I, 3, 1 }, 0, "round 3 complete" },
		{ { 5, 0, 4, G, 4, 1 }, 1, "round 4 left behind" },
	};
	char buf[200];
	const char *out = buf;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		round_progress_str(&rows[i].s, rows[i].running, buf, sizeof(buf));
		CHECK_STR(out, rows[i].want);
		CHECK(round_in_progress(&rows[i].s) == (strstr(out, "in progress") ||
							 strstr(out, "interrupted")),
		      "in progress: %s", out);
	}
}

static void line(void)
{
	struct round_live v;
	char buf[1024];
	const char *out = buf;

	memset(&v, 0, sizeof(v));
	v.running = 1;
	snprintf(v.holder.host, sizeof(v.holder.host), "node017");
	v.holder.pid = 4242;
	snprintf(v.holder.job, sizeof(v.holder.job), "987654");
	snprintf(v.holder.started, sizeof(v.holder.started), "2026-11-22T01:02:03Z");
	v.s = (struct round_snapshot){ 5, 4, 5, G | F, 5, 1 };
	v.committed_us = 1795314620LL * 1000000;
	round_live_line(&v, buf, sizeof(buf));
	CHECK_STR(out, "a job is running (job 987654, pid 4242 on host node017, since "
		  "2026-11-22T01:02:03Z): showing the state committed at 2026-11-22T02:30:20Z: "
		  "CrawlDb version 5, round 5 in progress (generate, fetch committed; parse "
		  "under way)");
}

/* round_live_read: the lock this process holds is seen as held; released,
 * not. */
static void reading(void)
{
	char tmpl[] = "/tmp/test_live.XXXXXX", path[PATH_MAX];
	struct crawl_dir d;
	struct dir_lock lk = { .fd = -1 };
	struct round_live v;
	char *root = mkdtemp(tmpl);

	if (!root) {
		CHECK(0, "mkdtemp");
		return;
	}
	memset(&d, 0, sizeof(d));
	snprintf(d.root, sizeof(d.root), "%s", root);
	d.partitions = 1;
	round_live_read(&d, &v);
	CHECK(!v.running && v.s.version == 0 && v.s.seg == 0, "empty: not running");
	layout_top(root, "lock", path, sizeof(path));
	CHECK(lock_acquire(path, &lk, NULL) == CR_OK, "lock taken");
	round_live_read(&d, &v);
	CHECK(v.running && v.holder.pid == (long)getpid(), "held: running, pid %ld",
	      v.holder.pid);
	lock_release(&lk);
	round_live_read(&d, &v);
	CHECK(!v.running, "released: not running");
	CHECK(fs_remove_tree(root) == CR_OK, "cleanup");
}

int main(void)
{
	committed();
	decision_kinds();
	kept();
	temps();
	progress();
	line();
	reading();
	TEST_DONE();
}

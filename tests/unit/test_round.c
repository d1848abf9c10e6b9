/*
 * test_round.c - the round engine's decision (crawldb/state.h): from a table
 * of directory snapshots - fresh, between phases, killed in each phase,
 * committed but not marked, stale - the step it takes, the segment, and
 * what it removes first. Then state_read on a real directory, and the JSON
 * reader it uses. No MPI.
 */
#include "round/length.h"
#include "crawldb/state.h"
#include "test.h"
#include "util/json.h"

#include <stdlib.h>

#define G ROUND_GENERATED
#define F ROUND_FETCHED
#define P ROUND_PARSED
#define U ROUND_UPDATED

static const struct {
	const char *name;
	struct round_snapshot s;     /* version, version_from, seg, phases, seg_base, ok */
	enum round_step step;
	int seg, clean_version;
	const char *clean;           /* the first folder removed, or "" */
	int clean_robots;
} rows[] = {
	{ "empty directory", { 0, 0, 0, 0, 0, 1 }, ROUND_INJECT, 0, 1, "", 0 },
	{ "inject killed: its version is removed", { 0, 0, 0, 0, 0, 1 }, ROUND_INJECT, 0, 1, "",
	  0 },
	{ "injected, no segment", { 1, 0, 0, 0, 0, 1 }, ROUND_GENERATE, 1, 0, "", 0 },
	{ "generate killed", { 1, 0, 1, 0, 0, 1 }, ROUND_GENERATE, 1, 0, "fetchlist", 0 },
	{ "generated", { 1, 0, 1, G, 1, 1 }, ROUND_FETCH, 1, 0, "progress", 1 },
	{ "fetch killed: resumed", { 1, 0, 1, G, 1, 1 }, ROUND_FETCH, 1, 0, "progress", 1 },
	{ "fetched", { 1, 0, 1, G | F, 1, 1 }, ROUND_PARSE, 1, 0, "parse", 0 },
	{ "parsed while fetching", { 1, 0, 1, G | F | P, 1, 1 }, ROUND_UPDATE, 1, 2, "", 0 },
	{ "update killed before commit", { 4, 3, 4, G | F | P, 4, 1 }, ROUND_UPDATE, 4, 5, "",
	  0 },
	{ "update committed, not marked", { 5, 4, 4, G | F | P, 4, 1 }, ROUND_MARK_UPDATE, 4, 0,
	  "", 0 },
	{ "a version made by another segment: left behind", { 5, 3, 4, G | F | P, 4, 1 },
	  ROUND_GENERATE, 5, 0, "", 0 },
	{ "generated from an old version: left behind", { 7, 6, 4, G | F | P, 4, 1 },
	  ROUND_GENERATE, 5, 0, "", 0 },
	{ "generated, then an inject: left behind", { 5, 0, 4, G, 4, 1 }, ROUND_GENERATE, 5,
	  0, "", 0 },
	{ "fetched, then an inject: left behind", { 5, 0, 4, G | F, 4, 1 }, ROUND_GENERATE, 5,
	  0, "", 0 },
	{ "no base version known", { 2, 1, 2, G | F | P, 0, 1 }, ROUND_STALE, 2, 0, "", 0 },
	{ "round done: the next segment", { 2, 1, 1, G | F | P | U, 1, 1 }, ROUND_GENERATE, 2,
	  0, "", 0 },
	{ "updated and indexed", { 9, 8, 8, G | F | P | U | ROUND_INDEXED, 8, 1 },
	  ROUND_GENERATE, 9, 0, "", 0 },
	{ "an update mark without a generate mark: generated again", { 2, 1, 2, U, 0, 1 },
	  ROUND_GENERATE, 2, 0, "fetchlist", 0 },
};

static void decisions(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct round_plan p;
		const char *first;

		state_next(&rows[i].s, &p);
		first = p.clean_subdirs ? p.clean_subdirs[0] : "";
		CHECK(p.step == rows[i].step && p.seg == rows[i].seg &&
		      p.clean_version == rows[i].clean_version && !strcmp(first, rows[i].clean) &&
		      p.clean_robots == rows[i].clean_robots,
		      "%s: %s seg %d clean v%d '%s' robots %d", rows[i].name,
		      state_step_name(p.step), p.seg, p.clean_version, first, p.clean_robots);
	}
}

/* state_read over a directory laid out by hand. */
static void reading(void)
{
	char root[] = "/tmp/test_round.XXXXXX", path[PATH_MAX];
	struct crawl_dir d;
	struct round_snapshot s;
	const char *gen = "{\"seconds\":0.1,\"ranks\":2,\"crawldb_version\":3,"
			  "\"counters\":{\"crawldb_version\":99,\"selected\":5}}\n";

	CHECK(mkdtemp(root) != NULL, "scratch directory");
	memset(&d, 0, sizeof(d));
	snprintf(d.root, sizeof(d.root), "%s", root);
	d.partitions = 4;
	state_read(&d, 0, &s);
	CHECK(s.ok && s.version == 0 && s.seg == 0, "empty: version %d seg %d", s.version, s.seg);
	layout_crawldb_dir(&d, 3, path, sizeof(path));
	CHECK(fs_mkdirs(path) == CR_OK, "mkdir");
	CHECK(state_commit_version(&d, 3, "segment 2\n") == CR_OK, "commit");
	layout_segment_dir(&d, 3, path, sizeof(path));
	CHECK(fs_mkdirs(path) == CR_OK && layout_phase_mark(&d, 3, "generate", gen) == CR_OK &&
	      layout_phase_mark(&d, 3, "fetch", "{}") == CR_OK, "marks");
	state_read(&d, 0, &s);
	CHECK(s.ok && s.version == 3 && s.version_from == 2 && s.seg == 3 &&
	      s.phases == (G | F) && s.seg_base == 3,
	      "read: version %d from %d seg %d phases %d base %d", s.version, s.version_from,
	      s.seg, s.phases, s.seg_base);
	layout_top(root, "crawldb/CURRENT", path, sizeof(path));
	CHECK(test_spit(path, "garbage", 7) == 0, "damage CURRENT");
	state_read(&d, 0, &s);
	CHECK(!s.ok, "a damaged CURRENT: not ok");
	CHECK(fs_remove_tree(root) == CR_OK, "cleanup");
}

/* The robots.txt cache keeps its two newest versions (with gaps: a fetch
 * that wrote none). */
static void robots_pruned(void)
{
	static const int have[] = { 1, 2, 3, 5, 8 };
	char root[] = "/tmp/test_round.XXXXXX", path[PATH_MAX];
	struct crawl_dir d;
	size_t i;

	CHECK(mkdtemp(root) != NULL, "scratch directory");
	memset(&d, 0, sizeof(d));
	snprintf(d.root, sizeof(d.root), "%s", root);
	state_prune_robots(&d);   /* none: nothing to do */
	for (i = 0; i < sizeof(have) / sizeof(have[0]); i++) {
		layout_robots_part(&d, have[i], 0, path, sizeof(path));
		*strrchr(path, '/') = '\0';
		CHECK(fs_mkdirs(path) == CR_OK, "mkdir %s", path);
		layout_robots_part(&d, have[i], 0, path, sizeof(path));
		CHECK(test_spit(path, "x", 1) == 0, "a part of version %d", have[i]);
	}
	layout_top(root, "robots/notes", path, sizeof(path));
	CHECK(test_spit(path, "x", 1) == 0, "a file not ours");
	state_prune_robots(&d);
	for (i = 0; i < sizeof(have) / sizeof(have[0]); i++) {
		layout_robots_dir(&d, have[i], path, sizeof(path));
		CHECK(fs_exists(path) == (have[i] >= 5), "version %d %s", have[i],
		      have[i] >= 5 ? "kept" : "removed");
	}
	layout_top(root, "robots/notes", path, sizeof(path));
	CHECK(fs_exists(path), "what is not a version is left alone");
	state_prune_robots(&d);
	layout_robots_dir(&d, 5, path, sizeof(path));
	CHECK(fs_exists(path) && layout_robots_last(&d) == 8, "again: the two stay");
	CHECK(fs_remove_tree(root) == CR_OK, "cleanup");
}

/* A member's raw value, looked into again: how report reads stats.json. */
static void nested(void)
{
	const char *t = "{\"fetch\":{\"seconds\":1.5,\"counters\":{\"fetched\":12}},"
			"\"parse\":{\"counters\":{\"fetched\":99}}}";
	const char *f, *c;
	size_t fn, cn;
	int64_t v = 0;

	CHECK(json_get_value(t, strlen(t), "fetch", &f, &fn) == CR_OK && *f == '{' &&
	      f[fn - 1] == '}', "the fetch object's span");
	CHECK(json_get_value(f, fn, "counters", &c, &cn) == CR_OK &&
	      json_get_int(c, cn, "fetched", &v) == CR_OK && v == 12,
	      "fetch's own counter, not parse's: %lld", (long long)v);
	CHECK(json_get_value(f, fn, "seconds", &c, &cn) == CR_OK && cn == 3 && !memcmp(c, "1.5", 3),
	      "a number's raw text");
	CHECK(json_get_value(t, strlen(t), "index", &f, &fn) == CR_EOF, "no such phase");
}

static void json(void)
{
	static const struct {
		const char *text, *key;
		enum cr_err e;
		int64_t v;
	} jrows[] = {
		{ "{\"a\":1,\"b\":-22}", "b", CR_OK, -22 },
		{ " { \"a\" : 7 } ", "a", CR_OK, 7 },
		{ "{\"x\":{\"a\":1},\"a\":2}", "a", CR_OK, 2 },      /* not the nested one */
		{ "{\"s\":\"\\\"a\\\":5\",\"a\":3}", "a", CR_OK, 3 },  /* not inside a string */
		{ "{\"arr\":[1,{\"a\":9}],\"a\":4}", "a", CR_OK, 4 },
		{ "{\"a\":1}", "b", CR_EOF, 0 },
		{ "{}", "a", CR_EOF, 0 },
		{ "{\"a\":\"1\"}", "a", CR_ERR_FORMAT, 0 },
		{ "{\"a\":1.5}", "a", CR_ERR_FORMAT, 0 },
		{ "[1,2]", "a", CR_ERR_FORMAT, 0 },
		{ "{\"a\":1", "b", CR_ERR_FORMAT, 0 },
		{ "{\"a\":", "a", CR_ERR_FORMAT, 0 },
		{ "", "a", CR_ERR_FORMAT, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(jrows) / sizeof(jrows[0]); i++) {
		int64_t v = 0;
		enum cr_err e = json_get_int(jrows[i].text, strlen(jrows[i].text), jrows[i].key, &v);

		CHECK(e == jrows[i].e && (e != CR_OK || v == jrows[i].v), "json row %zu: %s %lld",
		      i, error_str(e), (long long)v);
	}
	nested();
}

/* round/length.h: the span a round plans for. */
static void lengths(void)
{
	static const struct {
		const char *name;
		struct round_length_in in;   /* configured_s, delay_ms, steps, records */
		int64_t want_ms;
	} lrows[] = {
		{ "a number is taken as it is", { 30, 1000, 6, 0 }, 30000 },
		{ "0: no plan", { 0, 1000, 6, 0 }, 0 },
		{ "auto without a delay: no plan", { ROUND_LENGTH_AUTO, 0, 2, 0 }, 0 },
		{ "auto, no step: half a delay", { ROUND_LENGTH_AUTO, 1000, 0, 0 }, 500 },
		{ "auto, no step, 2 s delay", { ROUND_LENGTH_AUTO, 2000, 0, 0 }, 1000 },
		{ "auto, no step, short delay: the minimum", { ROUND_LENGTH_AUTO, 20, 0, 0 },
		  500 },
		{ "auto, one step: 1.25x one delay", { ROUND_LENGTH_AUTO, 1000, 1, 0 }, 1250 },
		{ "auto, four steps: 1.25^4 x one delay", { ROUND_LENGTH_AUTO, 1000, 4, 0 },
		  2442 },
		{ "auto, one step, short delay: 1.25x the minimum", { ROUND_LENGTH_AUTO, 20, 1, 0 },
		  625 },
		{ "auto, one step, 2 s delay", { ROUND_LENGTH_AUTO, 2000, 1, 0 }, 2500 },
		{ "auto, a large CrawlDb: 20 us a record", { ROUND_LENGTH_AUTO, 1000, 1, 10000000 },
		  200000 },
		{ "auto, a small CrawlDb changes nothing", { ROUND_LENGTH_AUTO, 1000, 1, 1000 },
		  1250 },
		{ "auto, a crawl of many steps stops growing", { ROUND_LENGTH_AUTO, 1000, 99998, 0 },
		  2147483647000LL },
		{ "a long delay: half of it", { ROUND_LENGTH_AUTO, 60000, 0, 0 }, 30000 },
	};
	size_t i;

	for (i = 0; i < sizeof(lrows) / sizeof(lrows[0]); i++) {
		int64_t got = round_length_ms(&lrows[i].in);

		CHECK(got == lrows[i].want_ms, "%s: %lld ms, want %lld", lrows[i].name,
		      (long long)got, (long long)lrows[i].want_ms);
	}
}

/* round/length.h: the growth steps from the origins the updates counted. */
static void steps(void)
{
	static const struct {
		const char *name;
		int prev;
		int64_t after, before;
		int want;
	} srows[] = {
		{ "the first round found its hosts: none more", 0, 3, -1, 0 },
		{ "nothing known before: counted as none", 2, 1, -1, 2 },
		{ "4 to 7 origins: none more", 0, 7, 4, 0 },
		{ "93 to 99 origins, 6 % more: a step", 0, 99, 93, 1 },
		{ "exactly 1.1x is not more: a step", 3, 11, 10, 4 },
		{ "just over 1.1x: none more", 3, 12, 10, 3 },
		{ "fewer than before: a step", 1, 5, 9, 2 },
		{ "an update that said nothing: a step", 5, -1, 50, 6 },
		{ "none before, none after: a step", 0, 0, 0, 1 },
	};
	/* benchmark C's web as its updates found it: 3 seed hosts, then */
	static const int64_t c_web[] = { 3, 4, 7, 14, 24, 50, 77, 93, 99, 100, 100, 100 };
	static const int want_c[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4 };
	size_t i;
	int s = 0;

	for (i = 0; i < sizeof(srows) / sizeof(srows[0]); i++) {
		int got = round_steps_next(srows[i].prev, srows[i].after, srows[i].before);

		CHECK(got == srows[i].want, "%s: %d steps, want %d", srows[i].name, got,
		      srows[i].want);
	}
	/* round i + 2's steps from round i + 1's and the origins after it */
	for (i = 0; i < sizeof(c_web) / sizeof(c_web[0]); i++) {
		s = round_steps_next(s, c_web[i], i ? c_web[i - 1] : -1);
		CHECK(s == want_c[i], "benchmark C's web, after update %zu: %d steps, want %d",
		      i + 1, s, want_c[i]);
	}
}

int main(void)
{
	lengths();
	steps();
	decisions();
	reading();
	robots_pruned();
	json();
	TEST_DONE();
}

/*
 * test_runs.c - the runs of a near-duplicate store (dedup/runs.h).
 *
 * - dedup_runs_plan, table-tested, and over 300 rounds of random sizes: the
 *   runs never exceed DEDUP_RUNS_MAX, each is larger than all newer ones
 *   together unless the cap merged, and equal rounds give a binary counter.
 * - The merged reader against a plain sort of the same records: band-like
 *   records (24 bytes, every one kept, equal ones oldest run first) and
 *   signature-like ones (8-byte key, the newest run's records only), with
 *   the run each record came from; no runs; a run out of order, cut short or
 *   missing is an error, never data.
 * - A store through versions: a single file of before reads as run 0, the
 *   next version links it as run 00000 beside the round's run, merges when
 *   the plan says, and dedup_runs_check finds a run damaged, missing or of
 *   another size than its manifest names.
 */
#include "dedup/runs.h"
#include "store/recfile.h"
#include "test.h"
#include "util/be.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

static char tmp_dir[256];

/* ---- the plan ---- */

struct plan_case {
	uint64_t bytes[8];
	size_t n, max, want;
};

static const struct plan_case plan_cases[] = {
	{ { 0 }, 0, 8, 0 },
	{ { 5 }, 1, 8, 1 },
	{ { 1, 1 }, 2, 8, 2 },
	{ { 2, 1 }, 2, 8, 1 },
	{ { 2, 1, 1 }, 3, 8, 3 },          /* 1 <= 1, then 2 <= 2 */
	{ { 10, 3, 2, 1 }, 4, 8, 3 },      /* 3 <= 2 + 1: from it on */
	{ { 10, 4, 2, 1 }, 4, 8, 1 },
	{ { 4, 9, 2, 1 }, 4, 8, 4 },       /* the oldest such run counts */
	{ { 10, 3, 2, 2 }, 4, 8, 3 },      /* 2 <= 2, 3 <= 4, 10 > 7 */
	{ { 8, 5, 2, 1, 1 }, 5, 8, 5 },     /* 8 <= 5 + 2 + 1 + 1 */
	{ { 100, 50, 25, 12, 6, 3 }, 6, 4, 3 },   /* the cap: 4 runs left */
	{ { 100, 50, 25, 12, 6, 3 }, 6, 8, 1 },
	{ { 5, 1 }, 2, 1, 2 },             /* one run at most: all merged */
	{ { 7, 0 }, 2, 8, 1 },
	{ { 0, 0 }, 2, 8, 2 },
};

static void test_plan_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(plan_cases) / sizeof(plan_cases[0]); i++) {
		const struct plan_case *c = &plan_cases[i];
		size_t got = dedup_runs_plan(c->bytes, c->n, c->max);

		CHECK(got == c->want, "plan case %zu: got %zu, want %zu", i, got, c->want);
	}
}

/* Rounds of random sizes through the plan, as dedup_runs_next applies it. */
static void test_plan_rounds(int equal)
{
	uint64_t runs[DEDUP_RUNS_CAP];
	size_t n = 0, r, i, worst = 0;
	int bad_count = 0, bad_shape = 0;

	test_rng_state = 7;
	for (r = 1; r <= 300; r++) {
		uint64_t sum = 0;
		size_t m;

		runs[n++] = equal ? 1 : 1 + test_rng() % 1000;
		m = dedup_runs_plan(runs, n, DEDUP_RUNS_MAX);
		for (i = n - m; i < n; i++)
			sum += runs[i];
		n -= m;
		runs[n++] = sum;
		bad_count += n > DEDUP_RUNS_MAX;
		worst = n > worst ? n : worst;
		if (equal) {
			/* A binary counter: one run per bit of r. */
			bad_shape += (int)n != __builtin_popcount((unsigned)r);
			continue;
		}
		for (i = 0, sum = 0; n >= 2 && i + 1 < n; i++) {
			size_t k;

			for (k = i + 1, sum = 0; k < n; k++)
				sum += runs[k];
			bad_shape += runs[i] <= sum && n < DEDUP_RUNS_MAX;
		}
	}
	CHECK(!bad_count, "more than %d runs (%zu)", DEDUP_RUNS_MAX, worst);
	CHECK(!bad_shape, "%s rounds: %d rounds left runs out of shape",
	      equal ? "equal" : "random", bad_shape);
}

/* ---- the merged reader ---- */

static int cmp_rec(const void *a, const void *b)
{
	return memcmp(a, b, 24);
}

/* Writes n records of 24 bytes (sorted here) to path. */
static int write_run(const char *path, unsigned char (*recs)[24], size_t n)
{
	struct recfile_writer *w;
	size_t i;

	qsort(recs, n, 24, cmp_rec);
	if (recfile_writer_open(path, REC_KIND_SORT, 1, &w) != CR_OK)
		return -1;
	for (i = 0; i < n; i++)
		if (recfile_writer_add(w, recs[i], 24) != CR_OK) {
			recfile_writer_abort(&w);
			return -1;
		}
	return recfile_writer_commit(&w) == CR_OK ? 0 : -1;
}

#define NRUNS 4
#define PER_RUN 500

/*
 * Records of 24 bytes: key (8, few distinct values so that runs share
 * keys), then the run's number (8), then a counter. shadow: keyed by the
 * first 8 bytes; else by all 24.
 */
static void test_merge(int shadow)
{
	static unsigned char recs[NRUNS][PER_RUN][24], all[NRUNS * PER_RUN][24];
	char paths[NRUNS][300];
	const char *pp[NRUNS];
	struct dedup_merge *m = NULL;
	const void *data;
	size_t n, run, i, r, got = 0, want = 0, wrong = 0;
	enum cr_err e;

	test_rng_state = shadow ? 11 : 12;
	for (r = 0; r < NRUNS; r++) {
		for (i = 0; i < PER_RUN; i++) {
			be_put(recs[r][i], test_rng() % 700, 8);
			be_put(recs[r][i] + 8, r, 8);
			be_put(recs[r][i] + 16, test_rng() % 3, 8);   /* some equal records */
		}
		snprintf(paths[r], sizeof(paths[r]), "%s/run%zu.zst", tmp_dir, r);
		pp[r] = paths[r];
		CHECK(write_run(paths[r], recs[r], PER_RUN) == 0, "write run %zu", r);
	}
	/* What the merge must give: records of every run, in key order, equal
	 * keys oldest run first (or, shadowed, the newest run's only). */
	for (r = 0; r < NRUNS; r++)
		for (i = 0; i < PER_RUN; i++) {
			size_t k;
			int hidden = 0;

			for (k = r + 1; shadow && k < NRUNS && !hidden; k++) {
				size_t j;

				for (j = 0; j < PER_RUN && !hidden; j++)
					hidden = !memcmp(recs[k][j], recs[r][i], 8);
			}
			if (!hidden)
				memcpy(all[want++], recs[r][i], 24);
		}
	qsort(all, want, 24, cmp_rec);
	CHECK(dedup_merge_open(pp, NRUNS, shadow ? 8 : 24, shadow, &m) == CR_OK, "open");
	while (m && (e = dedup_merge_next(m, &data, &n, &run)) == CR_OK) {
		const unsigned char *p = data;

		wrong += got >= want || n != 24 || memcmp(p, all[got], 24) ||
			 p[15] != (unsigned char)run;
		got++;
	}
	CHECK(m && e == CR_EOF, "merge ends with EOF");
	CHECK(got == want, "%s merge: %zu records, want %zu", shadow ? "shadowed" : "plain", got,
	      want);
	CHECK(!wrong, "%zu records out of place", wrong);
	dedup_merge_free(&m);
	dedup_merge_free(&m);   /* NULL is fine */
}

static void test_merge_bad(void)
{
	unsigned char recs[3][24];
	char good[300], bad[300], cut[300], gone[300];
	const char *pp[2];
	struct recfile_writer *w;
	struct dedup_merge *m = NULL;
	const void *data;
	size_t n, i;
	enum cr_err e = CR_OK;
	struct buf b;

	CHECK(dedup_merge_open(NULL, 0, 8, 0, &m) == CR_OK, "no runs opens");
	CHECK(m && dedup_merge_next(m, &data, &n, NULL) == CR_EOF, "no runs: EOF at once");
	dedup_merge_free(&m);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 3; i++)
		be_put(recs[i], 3 - i, 8);   /* descending: out of order */
	snprintf(good, sizeof(good), "%s/good.zst", tmp_dir);
	snprintf(bad, sizeof(bad), "%s/bad.zst", tmp_dir);
	snprintf(cut, sizeof(cut), "%s/cut.zst", tmp_dir);
	snprintf(gone, sizeof(gone), "%s/gone.zst", tmp_dir);
	CHECK(recfile_writer_open(bad, REC_KIND_SORT, 1, &w) == CR_OK, "open bad");
	for (i = 0; i < 3; i++)
		CHECK(recfile_writer_add(w, recs[i], 24) == CR_OK, "add");
	CHECK(recfile_writer_commit(&w) == CR_OK, "commit bad");
	CHECK(write_run(good, recs, 3) == 0, "write");
	pp[0] = good;
	pp[1] = bad;
	CHECK(dedup_merge_open(pp, 2, 8, 0, &m) == CR_OK, "open with a bad run");
	while (m && (e = dedup_merge_next(m, &data, &n, NULL)) == CR_OK)
		;
	CHECK(e == CR_ERR_FORMAT, "a run out of order is damaged (got %d)", (int)e);
	dedup_merge_free(&m);
	buf_init(&b);
	CHECK(test_slurp(good, &b) == 0 && test_spit(cut, b.p, b.len - 5) == 0, "cut copy");
	buf_release(&b);
	pp[1] = cut;
	e = dedup_merge_open(pp, 2, 8, 0, &m);
	while (!e && (e = dedup_merge_next(m, &data, &n, NULL)) == CR_OK)
		;
	CHECK(e == CR_ERR_FORMAT, "a run cut short is damaged (got %d)", (int)e);
	dedup_merge_free(&m);
	pp[1] = gone;
	CHECK(dedup_merge_open(pp, 2, 8, 0, &m) == CR_ERR_IO && !m, "a missing run: CR_ERR_IO");
}

/* ---- a store through versions ---- */

static int write_recs(const char *path, unsigned first, unsigned count)
{
	static unsigned char recs[64][24];
	unsigned i;

	memset(recs, 0, sizeof(recs));
	for (i = 0; i < count && i < 64; i++)
		be_put(recs[i], first + i, 8);
	return write_run(path, recs, count);
}

static size_t count_store(const struct crawl_dir *d, int ver)
{
	struct dedup_runs rs;
	struct dedup_merge *m = NULL;
	const void *data;
	size_t n, total = 0;

	if (dedup_runs_load(d, ver, DEDUP_SIG, 0, &rs) != CR_OK ||
	    dedup_merge_store(d, ver, DEDUP_SIG, 0, &rs, &m) != CR_OK)
		return (size_t)-1;
	while (dedup_merge_next(m, &data, &n, NULL) == CR_OK)
		total++;
	dedup_merge_free(&m);
	return total;
}

static void test_versions(void)
{
	struct crawl_dir d;
	struct dedup_runs rs;
	char path[PATH_MAX], dir[PATH_MAX];
	const char *why = "";
	uint64_t written = 0;
	int v;

	memset(&d, 0, sizeof(d));
	snprintf(d.root, sizeof(d.root), "%s/crawl", tmp_dir);
	d.partitions = 1;
	for (v = 1; v <= 6; v++) {
		layout_crawldb_dir(&d, v, dir, sizeof(dir));
		CHECK(fs_mkdirs(dir) == CR_OK, "mkdir");
	}
	/* Version 1: a store as one file, as crawls before runs wrote it. */
	layout_crawldb_store(&d, 1, "sig", 0, path, sizeof(path));
	CHECK(write_recs(path, 0, 40) == 0, "legacy file");
	CHECK(dedup_runs_load(&d, 1, DEDUP_SIG, 0, &rs) == CR_OK && rs.n == 1 && rs.r[0].legacy,
	      "a single file reads as one run");
	CHECK(count_store(&d, 1) == 40, "legacy store: 40 records");
	/* Versions 2 to 5 from segments 2 to 5: a small run each round. */
	for (v = 1; v <= 4; v++) {
		struct dedup_runs old;
		struct dedup_run r = { (uint32_t)v + 1, 0, 0 };

		CHECK(dedup_runs_load(&d, v, DEDUP_SIG, 0, &old) == CR_OK, "load %d", v);
		dedup_runs_path(&d, v + 1, DEDUP_SIG, 0, &r, path, sizeof(path));
		CHECK(write_recs(path, 30 + 5 * (unsigned)v, 10) == 0, "round run");
		CHECK(dedup_runs_next(&d, v, DEDUP_SIG, 0, &old, (uint32_t)v + 1, DEDUP_RUNS_MAX,
				      &written) ==
			      CR_OK, "next version %d", v + 1);
		CHECK(dedup_runs_check(&d, v + 1, DEDUP_SIG, 0, 1, path, sizeof(path), &why,
				       NULL) == CR_OK, "version %d checks: %s", v + 1, why);
	}
	/* 40 + 5 new ids a round (the other 5 shadow older ones). */
	CHECK(count_store(&d, 5) == 60, "version 5: %zu records, want 60", count_store(&d, 5));
	CHECK(dedup_runs_load(&d, 5, DEDUP_SIG, 0, &rs) == CR_OK && rs.n >= 1 && rs.n <= 3 &&
		      !rs.r[0].legacy, "version 5: %zu runs", rs.n);
	layout_crawldb_run(&d, 5, "sig", 0, 0, path, sizeof(path));
	CHECK(!fs_exists(path) || rs.r[0].seg == 0, "run 00000 is the file of before");
	CHECK(written > 0, "bytes written counted");
	/* Damage: another size, bytes flipped, a run gone. */
	dedup_runs_path(&d, 5, DEDUP_SIG, 0, &rs.r[rs.n - 1], dir, sizeof(dir));
	CHECK(truncate(dir, 20) == 0, "truncate");
	CHECK(dedup_runs_check(&d, 5, DEDUP_SIG, 0, 0, path, sizeof(path), &why, NULL) ==
		      CR_ERR_FORMAT && !strcmp(path, dir), "a cut run is found: %s", path);
	CHECK(unlink(dir) == 0, "unlink");
	CHECK(dedup_runs_check(&d, 5, DEDUP_SIG, 0, 1, path, sizeof(path), &why, NULL) ==
		      CR_ERR_IO && !strcmp(path, dir), "a missing run is found: %s", why);
	CHECK(dedup_runs_remove(&d, 5, DEDUP_SIG, 0) == 0, "remove");
	CHECK(dedup_runs_load(&d, 5, DEDUP_SIG, 0, &rs) == CR_OK && rs.n == 0, "removed: empty");
	/* Inject's carry links every file. */
	CHECK(dedup_runs_carry(&d, 4, 6, DEDUP_SIG, 0) == CR_OK, "carry");
	CHECK(count_store(&d, 6) == count_store(&d, 4), "carried store reads the same");
}

int main(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/test_runs.%d", (int)getpid());
	if (fs_mkdirs(tmp_dir) != CR_OK)
		return 1;
	test_plan_table();
	test_plan_rounds(1);
	test_plan_rounds(0);
	test_merge(0);
	test_merge(1);
	test_merge_bad();
	test_versions();
	CHECK(fs_remove_tree(tmp_dir) == CR_OK, "remove temp dir");
	TEST_DONE();
}

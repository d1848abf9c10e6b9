/*
 * test_xsort.c - the external sort (store/xsort.h). Random byte records from
 * a fixed-seed generator, ordered by a memcmp comparator, sorted in memory
 * (large budget, no run spilled) and under the smallest budget (1 MiB, many
 * runs merged from disk; with more runs than it merges at once, merged in
 * passes); the output must equal qsort of the same input,
 * duplicates included. Empty input ends at once; run files are gone after
 * xsort_free.
 */
#include "store/xsort.h"
#include "test.h"
#include "util/buf.h"
#include "util/fs.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp_dir[256];

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_bytes(const void *a, size_t an, const void *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

struct item {
	size_t off, len;
};

static const unsigned char *q_base;

static int cmp_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return cmp_bytes(q_base + x->off, x->len, q_base + y->off, y->len);
}

static int dir_entries(void)
{
	DIR *d = opendir(tmp_dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

struct xcase {
	const char *name;
	size_t nrec;
	size_t minlen, maxlen;   /* record length range */
	size_t pool;             /* >0: records drawn from this many distinct ones */
	int alphabet;            /* bytes drawn from 0..alphabet-1 (0: all 256) */
	size_t budget;
	int want_runs;           /* 0: none, 1: more than one, 2: more than one pass */
};

static void run_case(const struct xcase *c, uint64_t seed)
{
	struct buf bytes;
	struct item *items = calloc(c->nrec + 1, sizeof(*items));
	struct xsort *x = NULL;
	size_t i, got = 0, mismatch = SIZE_MAX;
	enum cr_err e;
	const void *d;
	size_t n;
	int dups = 0;

	buf_init(&bytes);
	rng_state = seed;
	if (!items)
		abort();
	for (i = 0; i < c->nrec; i++) {
		size_t len, j;

		if (c->pool && i >= c->pool) {
			items[i] = items[rng() % c->pool];   /* a duplicate */
			continue;
		}
		len = c->minlen + (c->maxlen > c->minlen ? rng() % (c->maxlen - c->minlen + 1)
							  : 0);
		items[i].off = bytes.len;
		items[i].len = len;
		buf_reserve(&bytes, len);
		for (j = 0; j < len; j++) {
			uint64_t r = rng();

			bytes.p[bytes.len++] =
				(unsigned char)(c->alphabet ? r % (uint64_t)c->alphabet : r);
		}
	}

	e = xsort_new(tmp_dir, c->budget, cmp_bytes, &x);
	CHECK(e == CR_OK, "%s: new", c->name);
	if (e)
		goto out;
	CHECK(xsort_next(x, &d, &n) == CR_ERR_STATE, "%s: next before finish", c->name);
	for (i = 0; i < c->nrec && !e; i++)
		e = xsort_add(x, bytes.p + items[i].off, items[i].len);
	CHECK(e == CR_OK, "%s: add: %s", c->name, error_str(e));
	e = xsort_finish(x);
	CHECK(e == CR_OK, "%s: finish: %s", c->name, error_str(e));
	if (c->want_runs)
		CHECK(xsort_runs(x) > 1, "%s: %zu runs, want more than one", c->name,
		      xsort_runs(x));
	else
		CHECK(xsort_runs(x) == 0, "%s: %zu runs, want none", c->name, xsort_runs(x));
	if (c->want_runs == 2)
		CHECK(xsort_merges(x) > 0 && dir_entries() <= 8,
		      "%s: %zu runs, %zu merged first, %d files left to merge, want <= 8",
		      c->name, xsort_runs(x), xsort_merges(x), dir_entries());
	else   /* each merge of the 1 MiB budget's 8 runs leaves 1 file of 9 */
		CHECK(dir_entries() == (int)(xsort_runs(x) - 8 * xsort_merges(x)),
		      "%s: %d files for %zu runs, %zu merged first", c->name, dir_entries(),
		      xsort_runs(x), xsort_merges(x));

	q_base = bytes.p;
	qsort(items, c->nrec, sizeof(*items), cmp_items);
	for (i = 1; i < c->nrec; i++)
		if (!cmp_items(&items[i - 1], &items[i]))
			dups++;
	if (c->pool)
		CHECK(dups > 0, "%s: the input has duplicates", c->name);

	while ((e = xsort_next(x, &d, &n)) == CR_OK) {
		if (mismatch == SIZE_MAX &&
		    (got >= c->nrec || n != items[got].len ||
		     (n && memcmp(d, bytes.p + items[got].off, n) != 0)))
			mismatch = got;
		got++;
		if (got > c->nrec + 10)
			break;
	}
	CHECK(e == CR_EOF, "%s: ends with %s", c->name, error_str(e));
	CHECK(got == c->nrec, "%s: %zu records out, %zu in", c->name, got, c->nrec);
	CHECK(mismatch == SIZE_MAX, "%s: output differs from qsort at record %zu",
	      c->name, mismatch);
	CHECK(xsort_next(x, &d, &n) == CR_EOF, "%s: stays at EOF", c->name);
	xsort_free(&x);
	CHECK(x == NULL, "%s: free clears the pointer", c->name);
	CHECK(dir_entries() == 0, "%s: run files removed (%d left)", c->name, dir_entries());
out:
	xsort_free(&x);
	free(items);
	buf_release(&bytes);
}

int main(void)
{
	static const size_t big = 256u << 20, small = 1u << 20;
	static const struct xcase cases[] = {
		{ "empty in memory", 0, 0, 0, 0, 0, big, 0 },
		{ "empty, smallest budget", 0, 0, 0, 0, 0, small, 0 },
		{ "one empty record", 1, 0, 0, 0, 0, big, 0 },
		{ "one record", 1, 5, 5, 0, 0, small, 0 },
		{ "in memory, 20000 random", 20000, 0, 48, 0, 0, big, 0 },
		{ "in memory, duplicates", 20000, 1, 6, 300, 4, big, 0 },
		{ "spilled, 120000 random", 120000, 0, 40, 0, 0, small, 1 },
		{ "spilled, budget 1 clamps to 1 MiB", 60000, 8, 40, 0, 0, 1, 1 },
		{ "spilled, duplicates from 500", 100000, 1, 12, 500, 3, small, 1 },
		{ "spilled, all equal", 60000, 10, 10, 1, 0, small, 1 },
		{ "spilled, shared prefixes", 80000, 0, 30, 0, 2, small, 1 },
		{ "spilled, records near the budget", 12, 200000, 700000, 0, 0, small, 1 },
		/* more runs than a 1 MiB budget merges at once (8): merged
		 * first into longer ones */
		{ "spilled, 40 runs merged in passes", 900000, 0, 40, 300000, 0, small, 2 },
	};
	size_t i;

	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/mpicrawl-xsort-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i], 0x5eed0000 + i);

	/* Two sorts at once in one directory keep their runs apart. */
	{
		struct xsort *a = NULL, *b = NULL;
		const void *d;
		size_t n, k, na = 0, nb = 0;
		int ok = 1;
		char rec[16];

		CHECK(xsort_new(tmp_dir, small, cmp_bytes, &a) == CR_OK, "new a");
		CHECK(xsort_new(tmp_dir, small, cmp_bytes, &b) == CR_OK, "new b");
		for (k = 0; a && b && k < 60000 && ok; k++) {
			snprintf(rec, sizeof(rec), "%08zu", 59999 - k);
			ok = xsort_add(a, rec, 8) == CR_OK;
			rec[0] = 'b';
			ok = ok && xsort_add(b, rec, 8) == CR_OK;
		}
		CHECK(ok, "adds to two sorts");
		if (a && b) {
			CHECK(xsort_finish(a) == CR_OK && xsort_finish(b) == CR_OK, "finish both");
			CHECK(xsort_runs(a) > 1 && xsort_runs(b) > 1, "both spilled");
			for (k = 0; xsort_next(a, &d, &n) == CR_OK; k++) {
				snprintf(rec, sizeof(rec), "%08zu", k);
				if (n != 8 || memcmp(d, rec, 8))
					ok = 0;
				na++;
			}
			for (k = 0; xsort_next(b, &d, &n) == CR_OK; k++) {
				snprintf(rec, sizeof(rec), "%08zu", k);
				rec[0] = 'b';
				if (n != 8 || memcmp(d, rec, 8))
					ok = 0;
				nb++;
			}
			CHECK(ok && na == 60000 && nb == 60000, "two sorts: %zu and %zu records",
			      na, nb);
		}
		xsort_free(&a);
		xsort_free(&b);
		xsort_free(NULL);
		CHECK(dir_entries() == 0, "both sorts' run files removed");
	}
	CHECK(fs_remove_tree(tmp_dir) == CR_OK, "remove temp dir");
	TEST_DONE();
}

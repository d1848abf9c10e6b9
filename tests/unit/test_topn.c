#include "test.h"
#include "generate/budget.h"
#include "generate/topn.h"

#include <math.h>
#include <stdlib.h>

static int by_key_desc(const void *a, const void *b)
{
	return -topn_cmp(*(const struct topn_key *)a, *(const struct topn_key *)b);
}

/* One selection over keys split among nranks as rank = i % nranks, with
 * the steps' counts summed as an allreduce would; into sel[i]. */
static int run(const struct topn_key *k, size_t n, unsigned nranks, uint64_t want,
	       unsigned char *sel)
{
	struct topn_select s;
	int steps = 0;
	size_t i;

	topn_init(&s, want);
	while (!s.done) {
		uint64_t counts[256] = { 0 };
		unsigned r;

		for (r = 0; r < nranks; r++) {
			/* rank r's keys: a strided copy, as a partitioning would */
			struct topn_key mine[512];
			size_t m = 0;

			for (i = r; i < n; i += nranks)
				mine[m++] = k[i];
			topn_count(&s, mine, m, counts);
		}
		topn_step(&s, counts);
		steps++;
	}
	for (i = 0; i < n; i++)
		sel[i] = (unsigned char)topn_selected(&s, k[i]);
	return steps;
}

/* Against a sort: the N best keys exactly, the same set on 1, 2 and 4
 * ranks, with many equal scores (ties broken by the URL hash), negative,
 * zero and NaN scores, N of 0, 1, all and more than all. */
static void test_select(void)
{
	enum { N = 500 };
	static struct topn_key k[N], sorted[N];
	static unsigned char sel[3][N];
	static const uint64_t wants[] = { 0, 1, 7, 100, 250, 499, 500, 900 };
	size_t i, w;

	test_rng_state = 15;
	for (i = 0; i < N; i++) {
		/* 20 distinct scores: ties everywhere */
		double score = (double)(int)(test_rng() % 20) - 5;

		if (i % 97 == 0)
			score = NAN;
		k[i] = topn_key_of(score, test_rng());
	}
	memcpy(sorted, k, sizeof(k));
	qsort(sorted, N, sizeof(*sorted), by_key_desc);
	for (w = 0; w < sizeof(wants) / sizeof(wants[0]); w++) {
		uint64_t want = wants[w], got = 0;
		int steps = run(k, N, 1, want, sel[0]), same = 1, exact = 1;

		run(k, N, 2, want, sel[1]);
		run(k, N, 4, want, sel[2]);
		for (i = 0; i < N; i++) {
			int expect = want > 0 && (want >= N ||
				     topn_cmp(k[i], sorted[want - 1]) >= 0);

			same &= sel[0][i] == sel[1][i] && sel[0][i] == sel[2][i];
			exact &= sel[0][i] == expect;
			got += sel[0][i];
		}
		CHECK(same, "N=%llu: the same set on 1, 2 and 4 ranks", (unsigned long long)want);
		CHECK(exact && got == (want < N ? want : N), "N=%llu: %llu selected, the best: %d",
		      (unsigned long long)want, (unsigned long long)got, exact);
		CHECK(steps <= TOPN_STEPS, "N=%llu: %d steps", (unsigned long long)want, steps);
	}
}

static void test_keys(void)
{
	CHECK(topn_cmp(topn_key_of(2.5, 1), topn_key_of(-3, 9)) > 0, "2.5 > -3");
	CHECK(topn_cmp(topn_key_of(-1, 1), topn_key_of(-2, 9)) > 0, "-1 > -2");
	CHECK(topn_cmp(topn_key_of(0.0, 5), topn_key_of(-0.0, 5)) == 0, "-0 is 0");
	CHECK(topn_cmp(topn_key_of(1e-300, 0), topn_key_of(0, ~0ull)) > 0, "tiny > 0");
	CHECK(topn_cmp(topn_key_of(NAN, ~0ull), topn_key_of(-1e308, 0)) < 0,
	      "NaN is the worst");
	CHECK(topn_cmp(topn_key_of(1, 2), topn_key_of(1, 3)) < 0, "ties by hash");
}

/* recrawl.share: the budget's split between new URLs and refetches. */
static void test_split(void)
{
	static const struct {
		uint64_t n;
		double share;
		uint64_t fresh, refetch, want_new, want_refetch;
	} t[] = {
		{ 100, 0.5, 900, 30, 70, 30 },     /* few refetches: new URLs take the rest */
		{ 100, 0.5, 10, 500, 10, 90 },     /* few new URLs: refetches take the rest */
		{ 100, 0.5, 900, 500, 50, 50 },
		{ 100, 0.25, 900, 500, 75, 25 },
		{ 100, 0, 900, 500, 100, 0 },      /* new URLs first, whatever waits */
		{ 100, 0, 40, 500, 40, 60 },
		{ 100, 1, 900, 500, 0, 100 },
		{ 100, 1, 900, 20, 80, 20 },
		{ 100, 0.5, 30, 20, 30, 20 },      /* both fit */
		{ 3, 0.5, 10, 10, 1, 2 },          /* 1.5 rounds to 2 */
		{ 100, 0.5, 0, 0, 0, 0 },
		{ 0, 0.5, 10, 10, 0, 0 },
		{ 100, 7, 900, 500, 0, 100 },      /* out of range: bounded */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t q[BUDGET_SIDES];

		budget_split(t[i].n, t[i].share, t[i].fresh, t[i].refetch, q);
		CHECK(q[BUDGET_NEW] == t[i].want_new && q[BUDGET_REFETCH] == t[i].want_refetch,
		      "split %zu: %llu new, %llu refetches", i, (unsigned long long)q[BUDGET_NEW],
		      (unsigned long long)q[BUDGET_REFETCH]);
	}
}

int main(void)
{
	test_split();
	test_keys();
	test_select();
	TEST_DONE();
}

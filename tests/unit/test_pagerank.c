/*
 * test_pagerank.c - PageRank and harmonic centrality (rank/pagerank.h) on
 * small graphs whose answers are known: solved by hand or by an
 * independent power iteration, and the rank record's round trip.
 */
#include "test.h"
#include "rank/pagerank.h"
#include "rank/record.h"

#include <math.h>

/* A -> B, A -> C, B -> C, C -> A. */
static const uint64_t off3[] = { 0, 2, 3, 4 };
static const uint32_t to3[] = { 1, 2, 2, 0 };

static void test_known(void)
{
	/* d = 0.85: pA = 0.05 + 0.85 pC, pB = 0.05 + 0.425 pA,
	 * pC = 0.05 + 0.425 pA + 0.85 pB. */
	static const double want[3] = { 0.387789711702, 0.214810627473, 0.397399660825 };
	/* ... and C -> D as well, D without links (its rank jumps anywhere). */
	static const uint64_t off4[] = { 0, 2, 3, 5, 5 };
	static const uint32_t to4[] = { 1, 2, 2, 0, 3 };
	static const double want4[4] = { 0.233993777632, 0.186671033241, 0.345341411495,
					 0.233993777632 };
	double pr[4], scratch[4], moved, err = 0, sum = 0;
	unsigned it, i;

	it = pagerank_run(3, off3, to3, 0.85, 1e-13, 1000, pr, scratch, &moved);
	for (i = 0; i < 3; i++) {
		err = fmax(err, fabs(pr[i] - want[i]));
		sum += pr[i];
	}
	CHECK(err < 1e-11, "3 nodes: worst error %.3g after %u steps", err, it);
	CHECK(fabs(sum - 1) < 1e-12 && moved < 1e-13 && it < 1000, "sums to 1, converged");
	it = pagerank_run(4, off4, to4, 0.85, 1e-13, 1000, pr, scratch, &moved);
	for (i = 0, err = 0, sum = 0; i < 4; i++) {
		err = fmax(err, fabs(pr[i] - want4[i]));
		sum += pr[i];
	}
	CHECK(err < 1e-11, "a dangling node: worst error %.3g after %u steps", err, it);
	CHECK(fabs(sum - 1) < 1e-12, "a dangling node: still sums to 1");
	it = pagerank_run(3, off3, to3, 0.85, 1e-13, 3, pr, scratch, &moved);
	CHECK(it == 3 && moved > 1e-13, "max_it stops it");
	/* A graph of no links: uniform. */
	{
		static const uint64_t off0[] = { 0, 0, 0 };

		pagerank_run(2, off0, to3, 0.85, 1e-13, 100, pr, scratch, &moved);
		CHECK(fabs(pr[0] - 0.5) < 1e-15 && fabs(pr[1] - 0.5) < 1e-15, "no links: uniform");
	}
}

static void test_harmonic(void)
{
	/* 0 -> 1 -> 2, and 3 alone. */
	static const uint64_t off[] = { 0, 1, 2, 2, 2 };
	static const uint32_t to[] = { 1, 2 };
	uint64_t h[4] = { 0, 0, 0, 0 };
	const uint64_t one = PAGERANK_HARMONIC_ONE;
	int32_t dist[4] = { -1, -1, -1, -1 };
	uint32_t queue[4], s;
	int clean = 1, i;

	for (s = 0; s < 4; s++)
		pagerank_harmonic_from(4, off, to, s, h, dist, queue);
	for (i = 0; i < 4; i++)
		clean &= dist[i] == -1;
	CHECK(h[0] == 0 && h[1] == one && h[2] == one + one / 2 && h[3] == 0,
	      "path 0-1-2: harmonic 0, 1, 1.5, 0 (got %g %g %g %g)", (double)h[0] / one,
	      (double)h[1] / one, (double)h[2] / one, (double)h[3] / one);
	CHECK(clean, "dist back to -1");
	/* The cycle of test_known: A reaches B (1) and C (1); C reaches A (1)
	 * and B (2); B reaches C (1) and A (2). */
	memset(h, 0, sizeof(h));
	for (s = 0; s < 3; s++)
		pagerank_harmonic_from(3, off3, to3, s, h, dist, queue);
	CHECK(h[0] == one + one / 2 && h[1] == one + one / 2 && h[2] == 2 * one,
	      "A, B, C: 1.5, 1.5, 2 (got %g %g %g)", (double)h[0] / one, (double)h[1] / one,
	      (double)h[2] / one);
}

static void test_record(void)
{
	struct rank_record r = { "http://a.example/x", 18, 2.5, 0.75, 0.5 }, q;
	struct buf b;
	size_t i;
	int truncs = 1;

	buf_init(&b);
	rank_record_pack(&r, &b);
	CHECK(rank_record_unpack(b.p, b.len, &q) == CR_OK && q.url_len == 18 &&
	      !memcmp(q.url, r.url, 18) && q.page == 2.5 && q.host == 0.75 && q.harmonic == 0.5,
	      "rank record round trip");
	for (i = 0; i < b.len; i++)
		truncs &= rank_record_unpack(b.p, i, &q) != CR_OK;
	CHECK(truncs, "every truncation refused");
	r.harmonic = 1.5;   /* over 1: damage */
	b.len = 0;
	rank_record_pack(&r, &b);
	CHECK(rank_record_unpack(b.p, b.len, &q) == CR_ERR_FORMAT, "harmonic over 1 refused");
	r.harmonic = 0;
	r.page = NAN;
	b.len = 0;
	rank_record_pack(&r, &b);
	CHECK(rank_record_unpack(b.p, b.len, &q) == CR_ERR_FORMAT, "NaN refused");
	buf_release(&b);
}

int main(void)
{
	test_known();
	test_harmonic();
	test_record();
	TEST_DONE();
}

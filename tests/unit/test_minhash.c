#include "crawldb/crawl_record.h"
#include "crawldb/parse_record.h"
#include "util/minhash.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static const char *const vocab[] = {
	"amber", "birch", "cedar", "delta", "ember", "fern", "glacier", "harbor",
	"iris", "juniper", "kelp", "lantern", "meadow", "nectar", "orchid", "pebble",
};

/* n words from vocab (by rng), with a share of them replaced afterwards. */
static void text(struct buf *b, uint64_t seed, unsigned n, unsigned change_every,
		 uint64_t change_seed)
{
	unsigned i;

	b->len = 0;
	test_rng_state = seed;
	for (i = 0; i < n; i++) {
		unsigned w = (unsigned)(test_rng() % 16);

		if (change_every && i % change_every == change_seed % change_every)
			w = (w + 1 + (unsigned)(change_seed % 15)) % 16;
		buf_addf(b, "%s%s", i ? " " : "", vocab[w]);
		/* Extra punctuation and case never change the words. */
		if (i % 7 == 3)
			buf_add(b, ", ", 2);
	}
}

/* The distinct k-word shingles of a word list, as strings. */
static char **shingle_set(char **w, size_t nw, unsigned k, size_t *n)
{
	char **l = calloc(nw + 1, sizeof(*l));
	size_t i, j;

	*n = 0;
	for (i = 0; i + k <= nw; i++) {
		char s[512] = "";

		for (j = 0; j < k; j++) {
			size_t len = strlen(s);

			snprintf(s + len, sizeof(s) - len, "%s|", w[i + j]);
		}
		for (j = 0; j < *n && strcmp(l[j], s); j++)
			;
		if (j == *n)
			l[(*n)++] = strdup(s);
	}
	return l;
}

/* Exact Jaccard of the k-shingle sets, by brute force over the word lists. */
static double exact(const struct buf *x, const struct buf *y, unsigned k)
{
	struct buf wx, wy;
	char **sx, **sy;
	size_t nx = 0, ny = 0, i, j, inter = 0, ux = 0, uy = 0;
	char *p, *save;

	buf_init(&wx);
	buf_init(&wy);
	minhash_words((const char *)x->p, x->len, &wx);
	minhash_words((const char *)y->p, y->len, &wy);
	sx = calloc(wx.len + 1, sizeof(*sx));
	sy = calloc(wy.len + 1, sizeof(*sy));
	for (p = strtok_r((char *)buf_cstr(&wx), " ", &save); p; p = strtok_r(NULL, " ", &save))
		sx[nx++] = p;
	for (p = strtok_r((char *)buf_cstr(&wy), " ", &save); p; p = strtok_r(NULL, " ", &save))
		sy[ny++] = p;
	/* Shingles as strings joined by '|', deduplicated by linear scan. */
	{
		size_t ax, cy;
		char **la = shingle_set(sx, nx, k, &ax), **lc = shingle_set(sy, ny, k, &cy);

		for (i = 0; i < ax; i++)
			for (j = 0; j < cy; j++)
				if (!strcmp(la[i], lc[j])) {
					inter++;
					break;
				}
		ux = ax;
		uy = cy;
		for (i = 0; i < ax; i++)
			free(la[i]);
		for (i = 0; i < cy; i++)
			free(lc[i]);
		free(la);
		free(lc);
	}
	free(sx);
	free(sy);
	buf_release(&wx);
	buf_release(&wy);
	return ux + uy - inter ? (double)inter / (double)(ux + uy - inter) : 1.0;
}

int main(void)
{
	struct buf a, b, w;
	uint32_t sa[128], sb[128];
	unsigned every[] = { 0, 100, 50, 20, 10, 5, 3 };
	size_t i;
	int full;
	enum minhash_scheme sch;
	const char *hello = "  Hello, WORLD!! na\xc3\xafve_x 42\tb\xc3\xa9";

	buf_init(&a);
	buf_init(&b);
	buf_init(&w);

	/* Words. */
	CHECK(minhash_words(hello, strlen(hello), &w) == 6 &&
	      !strcmp(buf_cstr(&w), "hello world na\xc3\xafve x 42 b\xc3\xa9"),
	      "words: '%s'", buf_cstr(&w));
	w.len = 0;
	CHECK(minhash_words("", 0, &w) == 0 && w.len == 0, "no words");
	for (sch = MINHASH_FUNCTIONS; sch <= MINHASH_OPH; sch++) {
		const char *name = sch == MINHASH_OPH ? "oph" : "minhash";

		CHECK(minhash_sign("...", 3, 5, 128, sch, sa) == 0,
		      "%s: no shingles without words", name);
		CHECK(minhash_sign("one two", 7, 5, 128, sch, sa) == 1,
		      "%s: a short text is one shingle", name);
		CHECK(minhash_sign("One, TWO", 8, 5, 128, sch, sb) == 1 &&
		      minhash_similarity(sa, sb, 128) == 1.0,
		      "%s: case and punctuation do not matter", name);
		CHECK(minhash_sign("a b c d e f", 11, 5, 128, sch, sa) == 2,
		      "%s: 6 words, 2 shingles", name);
		for (i = 0, full = 1; i < 128; i++)
			full &= sa[i] != UINT32_MAX;
		CHECK(full, "%s: every value set for a text of 2 shingles", name);

		/* Estimates track the exact Jaccard index. */
		for (i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
			double est, ex;

			text(&a, 7, 600, 0, 0);
			text(&b, 7, 600, every[i], 11 + i);
			minhash_sign((const char *)a.p, a.len, 5, 128, sch, sa);
			minhash_sign((const char *)b.p, b.len, 5, 128, sch, sb);
			est = minhash_similarity(sa, sb, 128);
			ex = exact(&a, &b, 5);
			printf("# %s: one word in %u changed: exact %.3f, estimated %.3f\n", name,
			       every[i], ex, est);
			CHECK(fabs(est - ex) < 0.12, "%s: estimate %.3f vs exact %.3f (1 in %u changed)",
			      name, est, ex, every[i]);
		}
		/* Short texts: most bins are filled by densification. */
		for (i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
			double est, ex;

			text(&a, 9, 60, 0, 0);
			text(&b, 9, 60, every[i] ? every[i] / 5 + 2 : 0, 31 + i);
			minhash_sign((const char *)a.p, a.len, 5, 128, sch, sa);
			minhash_sign((const char *)b.p, b.len, 5, 128, sch, sb);
			est = minhash_similarity(sa, sb, 128);
			ex = exact(&a, &b, 5);
			printf("# %s: 60 words: exact %.3f, estimated %.3f\n", name, ex, est);
			CHECK(fabs(est - ex) < 0.2, "%s: short text: estimate %.3f vs exact %.3f",
			      name, est, ex);
		}
		text(&a, 1, 400, 0, 0);
		text(&b, 2, 400, 0, 0);
		minhash_sign((const char *)a.p, a.len, 5, 128, sch, sa);
		minhash_sign((const char *)b.p, b.len, 5, 128, sch, sb);
		CHECK(minhash_similarity(sa, sb, 128) < 0.1, "%s: unrelated texts: %.3f", name,
		      minhash_similarity(sa, sb, 128));
	}
	/* Over many pairs, OPH's estimates are unbiased and no noisier than
	 * 128 hash functions' (within a margin). */
	{
		double err[2] = { 0, 0 }, bias[2] = { 0, 0 };
		unsigned t;

		for (t = 0; t < 200; t++) {
			text(&a, 100 + t, 300, 0, 0);
			text(&b, 100 + t, 300, 3 + t % 7, 1000 + t);
			for (sch = MINHASH_FUNCTIONS; sch <= MINHASH_OPH; sch++) {
				double d;

				minhash_sign((const char *)a.p, a.len, 5, 128, sch, sa);
				minhash_sign((const char *)b.p, b.len, 5, 128, sch, sb);
				d = minhash_similarity(sa, sb, 128) - exact(&a, &b, 5);
				bias[sch] += d / 200;
				err[sch] += d * d / 200;
			}
		}
		printf("# 200 pairs: minhash bias %+.4f rmse %.4f; oph bias %+.4f rmse %.4f\n",
		       bias[0], sqrt(err[0]), bias[1], sqrt(err[1]));
		CHECK(fabs(bias[1]) < 0.02 && sqrt(err[1]) < 1.3 * sqrt(err[0]) + 0.01,
		      "oph: bias %.4f, rmse %.4f (minhash %.4f)", bias[1], sqrt(err[1]),
		      sqrt(err[0]));
	}
	CHECK(minhash_band_key(sa, 3, 8) == minhash_band_key(sa, 3, 8) &&
	      minhash_band_key(sa, 3, 8) != minhash_band_key(sa, 4, 8), "band keys");

	/* The parse record carries the signature. */
	{
		struct parse_record pr, back;
		const char *links[] = { "http://x.test/" };

		memset(&pr, 0, sizeof(pr));
		pr.url = "http://a.test/";
		pr.url_len = strlen(pr.url);
		pr.nsig = 128;
		pr.sig = sa;
		w.len = 0;
		parse_record_pack(&pr, links, 1, &w);
		CHECK(parse_record_unpack(w.p, w.len, &back) == CR_OK && back.nsig == 128 &&
		      parse_record_sig(&back, 0) == sa[0] && parse_record_sig(&back, 127) == sa[127],
		      "signature round trip");
		CHECK(parse_record_unpack(w.p, w.len - 1, &back) == CR_ERR_FORMAT, "cut signature");
	}
	buf_release(&a);
	buf_release(&b);
	buf_release(&w);
	TEST_DONE();
}

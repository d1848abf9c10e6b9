#include "util/minhash.h"

#include <string.h>
#include <xxhash.h>

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80;
}

/* Finds the next word at or after *pos; its bytes are text[*start, *end). */
static int next_word(const char *text, size_t len, size_t *pos, size_t *start, size_t *end)
{
	size_t i = *pos;

	while (i < len && !word_byte((unsigned char)text[i]))
		i++;
	if (i >= len)
		return 0;
	*start = i;
	while (i < len && word_byte((unsigned char)text[i]))
		i++;
	*end = i;
	*pos = i;
	return 1;
}

/* Hash of one word, lower-cased (a word longer than the buffer is hashed
 * in pieces, chained). */
static uint64_t word_hash(const char *w, size_t n)
{
	char low[256];
	uint64_t h = 0;
	size_t off = 0;

	do {
		size_t m = n - off < sizeof(low) ? n - off : sizeof(low), i;

		for (i = 0; i < m; i++) {
			unsigned char c = (unsigned char)w[off + i];

			low[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		h = XXH3_64bits_withSeed(low, m, h);
		off += m;
	} while (off < n);
	return h;
}

size_t minhash_words(const char *text, size_t len, struct buf *out)
{
	size_t pos = 0, s, e, n = 0;

	while (next_word(text, len, &pos, &s, &e)) {
		size_t i;

		if (n++)
			buf_addc(out, ' ');
		for (i = s; i < e; i++) {
			unsigned char c = (unsigned char)text[i];

			buf_addc(out, (char)(c >= 'A' && c <= 'Z' ? c + 32 : c));
		}
	}
	return n;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The hash functions' coefficients, the same in every process. */
static uint64_t coef_a[MINHASH_MAX], coef_b[MINHASH_MAX];
static int coef_ready;

static void coefficients(void)
{
	uint64_t s = 0x6d696e6861736831ULL;   /* "minhash1" */
	unsigned i;

	if (coef_ready)
		return;
	for (i = 0; i < MINHASH_MAX; i++) {
		coef_a[i] = splitmix(&s) | 1;
		coef_b[i] = splitmix(&s);
	}
	coef_ready = 1;
}

static void fold(uint64_t sh, unsigned n, uint32_t *sig)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		uint32_t v = (uint32_t)((coef_a[i] * sh + coef_b[i]) >> 32);

		if (v < sig[i])
			sig[i] = v;
	}
}

/* A shingle's hash from its k word hashes (a ring, oldest first). */
static uint64_t shingle_hash(const uint64_t *ring, unsigned k, unsigned first)
{
	uint64_t h = 0x736869ULL;
	unsigned j;

	for (j = 0; j < k; j++)
		h = XXH3_64bits_withSeed(&ring[(first + j) % k], sizeof(uint64_t), h);
	return h;
}

/* One-permutation hashing: the shingle's one hash picks a bin by its high
 * half and competes there with its low half. */
static void oph_fold(uint64_t sh, unsigned n, uint32_t *sig)
{
	unsigned bin = (unsigned)(((sh >> 32) * n) >> 32);
	uint32_t v = (uint32_t)sh;

	if (v < sig[bin])
		sig[bin] = v;
}

/* A shingle's hash for one-permutation hashing: one XXH3 over its k word
 * hashes in order. */
static uint64_t oph_shingle_hash(const uint64_t *ring, unsigned k, unsigned first)
{
	uint64_t w[32];

	memcpy(w, ring + first, (k - first) * sizeof(*w));
	memcpy(w + (k - first), ring, first * sizeof(*w));
	return XXH3_64bits_withSeed(w, k * sizeof(*w), 0x6f7068ULL);
}

/*
 * Fills the bins no shingle fell into (Shrivastava, "Optimal densification
 * for fast and accurate minwise hashing", ICML 2017): empty bin i takes the
 * value of the first bin that was not empty along its own fixed sequence of
 * probes j = h(i, 1), h(i, 2), ... The sequence depends on i alone, so two
 * texts agree on bin i with probability equal to their Jaccard index, as
 * with n independent hash functions. Past a bound on probes the next bin
 * that was not empty is taken (texts of a handful of shingles only).
 */
static void oph_densify(unsigned n, uint32_t *sig)
{
	uint8_t filled[MINHASH_MAX];
	unsigned i, t, any = 0;

	for (i = 0; i < n; i++)
		any |= filled[i] = sig[i] != UINT32_MAX;
	if (!any)
		return;
	for (i = 0; i < n; i++) {
		uint64_t st = 0x64656e7365ULL ^ ((uint64_t)i << 32);
		unsigned j = i;

		if (filled[i])
			continue;
		for (t = 0; t < 16 * n; t++) {
			j = (unsigned)(((splitmix(&st) >> 32) * n) >> 32);
			if (filled[j])
				break;
		}
		while (!filled[j])
			j = (j + 1) % n;
		sig[i] = sig[j];
	}
}

size_t minhash_sign(const char *text, size_t len, unsigned k, unsigned n,
		    enum minhash_scheme scheme, uint32_t *sig)
{
	uint64_t ring[32];
	size_t pos = 0, s, e, words = 0, shingles = 0;
	int oph = scheme == MINHASH_OPH;

	if (k < 1)
		k = 1;
	if (k > 32)
		k = 32;
	if (n > MINHASH_MAX)
		n = MINHASH_MAX;
	if (!oph)
		coefficients();
	while (next_word(text, len, &pos, &s, &e)) {
		if (!words)
			memset(sig, 0xff, n * sizeof(*sig));
		ring[words % k] = word_hash(text + s, e - s);
		words++;
		if (words < k)
			continue;
		if (oph)
			oph_fold(oph_shingle_hash(ring, k, (unsigned)(words % k)), n, sig);
		else
			fold(shingle_hash(ring, k, (unsigned)(words % k)), n, sig);
		shingles++;
	}
	if (words && words < k) {
		if (oph)
			oph_fold(oph_shingle_hash(ring, (unsigned)words, 0), n, sig);
		else
			fold(shingle_hash(ring, (unsigned)words, 0), n, sig);
		shingles++;
	}
	if (oph && shingles)
		oph_densify(n, sig);
	return shingles;
}

double minhash_similarity(const uint32_t *a, const uint32_t *b, unsigned n)
{
	unsigned i, same = 0;

	for (i = 0; i < n; i++)
		same += a[i] == b[i];
	return n ? (double)same / n : 0;
}

uint64_t minhash_band_key(const uint32_t *sig, unsigned b, unsigned rows)
{
	return XXH3_64bits_withSeed(sig + (size_t)b * rows, rows * sizeof(uint32_t), b + 1);
}

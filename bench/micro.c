/*
 * micro.c - single-core throughput of the hot loops behind near-duplicate
 * detection and the seen-set, for `make bench` (bench/run.sh, part D):
 *
 *   micro minhash PAGES WORDS   MinHash signatures (5-word shingles, 128
 *                               values) of PAGES synthetic texts of WORDS words
 *   micro bloom KEYS            KEYS URL-like keys added to a filter sized
 *                               for them at 1e-4, then lookups of 2 million
 *                               ready-made keys, half of them present
 *
 * Prints "name value unit" lines. Texts and keys are made before the clock
 * starts; each measurement is repeated until it has run for 2 s.
 */
#include "dedup/minhash.h"
#include "seen/bloom.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 42;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int bench_minhash(long pages, long words)
{
	struct buf *texts = calloc((size_t)pages, sizeof(*texts));
	uint32_t sig[128];
	double t0, t, bytes = 0;
	long i, j, done = 0, rounds = 0;
	enum minhash_scheme s;

	if (!texts)
		return 1;
	for (i = 0; i < pages; i++) {
		buf_init(&texts[i]);
		for (j = 0; j < words; j++) {
			/* Words of 3-10 letters from a 5000-word vocabulary. */
			uint64_t w = rng() % 5000, len = 3 + w % 8, k;

			if (j)
				buf_addc(&texts[i], ' ');
			for (k = 0; k < len; k++)
				buf_addc(&texts[i], (char)('a' + (w * 7 + k * 13) % 26));
		}
		bytes += (double)texts[i].len;
	}
	for (s = MINHASH_FUNCTIONS; s <= MINHASH_OPH; s++) {
		const char *name = s == MINHASH_OPH ? "oph" : "minhash";

		done = rounds = 0;
		t0 = now();
		do {
			for (i = 0; i < pages; i++)
				minhash_sign((const char *)texts[i].p, texts[i].len, 5, 128, s, sig);
			done += pages;
			rounds++;
			t = now() - t0;
		} while (t < 2.0);
		printf("%s_pages_per_s %.0f pages/s\n", name, (double)done / t);
		printf("%s_mb_per_s %.1f MB/s\n", name, bytes * (double)rounds / t / 1e6);
	}
	printf("minhash_page_bytes %.0f bytes\n", bytes / (double)pages);
	for (i = 0; i < pages; i++)
		buf_release(&texts[i]);
	free(texts);
	return 0;
}

static size_t url_key(char *out, size_t cap, uint64_t i)
{
	return (size_t)snprintf(out, cap, "http://h%06llu.bench.test/p/%llu.html",
				(unsigned long long)(i % 100000), (unsigned long long)i);
}

static int bench_bloom(long keys)
{
	struct bloom b;
	const long probes = 2000000;
	char k[96], *pk = malloc((size_t)probes * 48);
	size_t *pl = malloc((size_t)probes * sizeof(size_t));
	double t0, t;
	long i, hits = 0, lookups = 0;

	if (!pk || !pl || bloom_init(&b, (uint64_t)keys, 1e-4, 0) != CR_OK)
		return 1;
	/* Adds: key formatting included. */
	t0 = now();
	for (i = 0; i < keys; i++)
		bloom_add(&b, k, url_key(k, sizeof(k), (uint64_t)i));
	t = now() - t0;
	printf("bloom_adds_per_s %.0f adds/s (URL formatting included)\n", (double)keys / t);
	/* Lookups of ready keys, half of them added (spread over the filter). */
	for (i = 0; i < probes; i++)
		pl[i] = url_key(pk + i * 48, 48, (uint64_t)(i % 2 ? keys + i : i * (keys / probes)));
	t0 = now();
	do {
		for (i = 0; i < probes; i++)
			hits += bloom_has(&b, pk + i * 48, pl[i]);
		lookups += probes;
		t = now() - t0;
	} while (t < 2.0);
	printf("bloom_lookups_per_s %.0f lookups/s\n", (double)lookups / t);
	printf("bloom_bytes %zu bytes\n", bloom_bytes(&b));
	printf("bloom_hit_share %.4f\n", (double)hits / (double)lookups);
	bloom_release(&b);
	free(pk);
	free(pl);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "minhash"))
		return bench_minhash(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "bloom"))
		return bench_bloom(strtol(argv[2], NULL, 10));
	fprintf(stderr, "usage: micro minhash PAGES WORDS | micro bloom KEYS\n");
	return 2;
}

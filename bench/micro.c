/*
 * micro.c - single-core throughput of the hot loops behind near-duplicate
 * detection and the seen-set, for `make bench` (bench/run.sh, part D):
 *
 *   micro minhash PAGES WORDS   MinHash signatures (5-word shingles, 128
 *                               values) of PAGES synthetic texts of WORDS words
 *   micro bloom KEYS            KEYS URL-like keys added to a filter sized
 *                               for them at 1e-4, then lookups of 2 million
 *                               ready-made keys, half of them present
 *   micro floor WARC...         the library work a crawl with the defaults
 *                               cannot skip, on the records of WARC files
 *                               it wrote (bench A): each record as one gzip
 *                               member at level 6 (libdeflate), its SHA-1
 *                               digests, and one libxml2 pass over each
 *                               HTML payload with no callbacks; CPU seconds
 *                               for one pass over all the records
 *
 * Prints "name value unit" lines. Texts and keys are made before the clock
 * starts; each measurement is repeated until it has run for 2 s.
 */
#include "util/minhash.h"
#include "seen/bloom.h"
#include "util/buf.h"
#include "warc/warc.h"

#include <libdeflate.h>
#include <libxml/HTMLparser.h>
#include <openssl/evp.h>

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

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The records of the WARC files, each as the writer compresses it (head,
 * block, CRLF CRLF), and where its block and payload start. */
struct floor_rec {
	struct buf raw;
	size_t block_at, payload_at;
	int html;
};

static int floor_load(char **files, int n, struct floor_rec **out, size_t *count)
{
	struct floor_rec *v = NULL;
	size_t len = 0, cap = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct warc_reader *r;
		struct warc_record rec;
		enum cr_err e;

		if (warc_reader_open(files[i], 0, &r) != CR_OK)
			return 1;
		while ((e = warc_reader_next(r, &rec)) == CR_OK) {
			const unsigned char *pay;
			size_t plen, hl;
			int status = 0;
			struct floor_rec *f;

			if (len == cap) {
				cap = cap ? cap * 2 : 1024;
				if (!(v = realloc(v, cap * sizeof(*v))))
					return 1;
			}
			f = &v[len++];
			memset(f, 0, sizeof(*f));
			buf_init(&f->raw);
			buf_add(&f->raw, rec.head, rec.head_len);
			f->block_at = f->payload_at = f->raw.len;
			buf_add(&f->raw, rec.block, rec.block_len);
			buf_add(&f->raw, "\r\n\r\n", 4);
			if (warc_record_payload(&rec, &pay, &plen) == CR_OK)
				f->payload_at = f->block_at + (size_t)(pay - rec.block);
			f->html = warc_http_split(rec.block, rec.block_len, &status, &hl) ==
					  CR_OK && status == 200 && memmem(rec.block, hl, "text/html", 9);
		}
		warc_reader_free(&r);
		if (e != CR_EOF)
			return 1;
	}
	*out = v;
	*count = len;
	return 0;
}

/* One pass of WHAT over every record, repeated until 1 CPU second has gone:
 * CPU seconds a pass. */
static double floor_time(struct floor_rec *v, size_t n, int what)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
	size_t cap = 1 << 20, i;
	unsigned char *out = malloc(cap), md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;
	double t0 = cpu_now(), t;
	long passes = 0;

	if (!c || !out)
		abort();
	do {
		for (i = 0; i < n; i++) {
			const unsigned char *p = v[i].raw.p;
			size_t len = v[i].raw.len - 4;

			if (what == 0) {
				size_t b = libdeflate_gzip_compress_bound(c, v[i].raw.len);

				if (b > cap && !(out = realloc(out, cap = b)))
					abort();
				(void)libdeflate_gzip_compress(c, p, v[i].raw.len, out, cap);
			} else if (what == 1) {
				EVP_Digest(p + v[i].block_at, len - v[i].block_at, md, &mdlen,
					   EVP_sha1(), NULL);
				if (v[i].payload_at != v[i].block_at)
					EVP_Digest(p + v[i].payload_at, len - v[i].payload_at, md,
						   &mdlen, EVP_sha1(), NULL);
			} else if (v[i].html) {
				htmlSAXHandler sax;
				const char *b = (const char *)p + v[i].payload_at;
				htmlParserCtxtPtr x =
					htmlCreateMemoryParserCtxt(b, (int)(len - v[i].payload_at));

				if (!x)
					abort();
				memset(&sax, 0, sizeof(sax));
				memcpy(x->sax, &sax, sizeof(sax));
				htmlCtxtUseOptions(x, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
						      HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
						      HTML_PARSE_COMPACT);
				htmlParseDocument(x);
				htmlFreeParserCtxt(x);
			}
		}
		passes++;
		t = cpu_now() - t0;
	} while (t < 1.0);
	libdeflate_free_compressor(c);
	free(out);
	return t / (double)passes;
}

static int bench_floor(char **files, int n)
{
	static const char *const names[] = { "gzip6", "sha1", "libxml2" };
	struct floor_rec *v = NULL;
	size_t count = 0, i, html = 0;
	double sum = 0, s;
	int k;

	if (floor_load(files, n, &v, &count)) {
		fprintf(stderr, "micro: cannot read the WARC files\n");
		return 1;
	}
	for (i = 0; i < count; i++)
		html += (size_t)v[i].html;
	printf("floor_records %zu records\n", count);
	printf("floor_html %zu pages\n", html);
	for (k = 0; k < 3; k++) {
		s = floor_time(v, count, k);
		sum += s;
		printf("floor_%s_s %.3f CPU s\n", names[k], s);
	}
	printf("floor_total_s %.3f CPU s\n", sum);
	for (i = 0; i < count; i++)
		buf_release(&v[i].raw);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "minhash"))
		return bench_minhash(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "bloom"))
		return bench_bloom(strtol(argv[2], NULL, 10));
	if (argc >= 3 && !strcmp(argv[1], "floor"))
		return bench_floor(argv + 2, argc - 2);
	fprintf(stderr, "usage: micro minhash PAGES WORDS | micro bloom KEYS | "
		"micro floor WARC...\n");
	return 2;
}

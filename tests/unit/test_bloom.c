#include "seen/bloom.h"
#include "test.h"

#include <stdlib.h>

/* Keys like URLs: "http://hNNN.test/p/K.html" with a salt per set. */
static size_t key(char *out, size_t cap, const char *salt, uint64_t i)
{
	return (size_t)snprintf(out, cap, "http://h%llu.%s.test/p/%llu.html",
				(unsigned long long)(i % 997), salt,
				(unsigned long long)i);
}

/* Measures the false-positive rate of a filter built for n keys at rate p. */
static void fp_case(uint64_t n, double p, uint64_t probes)
{
	struct bloom b;
	char k[128];
	uint64_t i, fp = 0, missed = 0;
	double rate;

	CHECK(bloom_init(&b, n, p, 0) == CR_OK, "init n=%llu p=%g", (unsigned long long)n, p);
	if (!b.bits)
		return;
	for (i = 0; i < n; i++)
		bloom_add(&b, k, key(k, sizeof(k), "in", i));
	for (i = 0; i < n; i++)
		missed += !bloom_has(&b, k, key(k, sizeof(k), "in", i));
	for (i = 0; i < probes; i++)
		fp += bloom_has(&b, k, key(k, sizeof(k), "out", i));
	rate = (double)fp / (double)probes;
	printf("# bloom n=%llu target %g: measured %.6f (%llu of %llu), %.2f bits/key, k=%u\n",
	       (unsigned long long)n, p, rate, (unsigned long long)fp,
	       (unsigned long long)probes, (double)bloom_bytes(&b) * 8 / (double)n, b.k);
	CHECK(missed == 0, "no false negatives (%llu)", (unsigned long long)missed);
	/* At most the target (with sampling slack when few positives are
	 * expected), and not absurdly oversized either. */
	CHECK(rate <= p * 1.05 + 3.0 / (double)probes, "fp rate %.6f over target %g", rate, p);
	CHECK(rate >= p / 20, "fp rate %.6f far under target %g: filter oversized", rate, p);
	bloom_release(&b);
}

int main(void)
{
	struct bloom b, c;
	struct buf img;
	char dir[] = "/tmp/test_bloom.XXXXXX", path[256], k[128];
	uint64_t i;
	int same = 1;

	fp_case(200000, 0.01, 1000000);
	fp_case(200000, 0.001, 1000000);
	fp_case(100000, 0.0001, 2000000);
	fp_case(1000, 0.01, 200000);

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/seen.bloom", dir);
	CHECK(bloom_init(&b, 5000, 0.001, 0) == CR_OK, "init");
	for (i = 0; i < 5000; i++)
		bloom_add(&b, k, key(k, sizeof(k), "in", i));
	CHECK(bloom_save(&b, path) == CR_OK, "save");
	CHECK(bloom_load(&c, path) == CR_OK, "load");
	CHECK(c.count == 5000 && c.k == b.k && c.nblocks == b.nblocks, "header back");
	for (i = 0; i < 20000 && c.bits; i++) {
		size_t n = key(k, sizeof(k), i < 5000 ? "in" : "out", i);

		same &= bloom_has(&b, k, n) == bloom_has(&c, k, n);
	}
	CHECK(same, "the loaded filter answers as the saved one");
	bloom_release(&c);

	/* Damage: a flipped bit, a cut file, a wrong magic, no file. */
	buf_init(&img);
	CHECK(test_slurp(path, &img) == 0, "slurp");
	img.p[100] ^= 1;
	CHECK(test_spit(path, img.p, img.len) == 0 && bloom_load(&c, path) == CR_ERR_FORMAT,
	      "flipped bit refused");
	img.p[100] ^= 1;
	CHECK(test_spit(path, img.p, img.len - 9) == 0 && bloom_load(&c, path) == CR_ERR_FORMAT,
	      "cut file refused");
	img.p[0] = 'X';
	CHECK(test_spit(path, img.p, img.len) == 0 && bloom_load(&c, path) == CR_ERR_FORMAT,
	      "bad magic refused");
	CHECK(test_spit(path, img.p, 10) == 0 && bloom_load(&c, path) == CR_ERR_FORMAT,
	      "short header refused");
	unlink(path);
	CHECK(bloom_load(&c, path) == CR_ERR_IO, "absent file");
	CHECK(bloom_init(&c, 1000000, 0.001, 4096) == CR_ERR_LIMIT, "size cap");
	buf_release(&img);
	bloom_release(&b);
	rmdir(dir);
	TEST_DONE();
}

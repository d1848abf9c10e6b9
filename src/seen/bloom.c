#include "seen/bloom.h"
#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/*
 * The file image is the filter's memory: a 64-byte header, the blocks, an
 * 8-byte XXH64 of everything before it. Saving writes the image as it is.
 *   0  "MCBLOOM1"   8  nblocks (le64)   16 k (le32)   20 zero (le32)
 *   24 count (le64) 32..63 zero
 */
#define HDR 64
#define MAGIC "MCBLOOM1"
#define BLOCK_BITS 512
#define MAX_K 16

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static unsigned char *image(const struct bloom *b)
{
	return (unsigned char *)b->bits - HDR;
}

static size_t image_bytes(uint64_t nblocks)
{
	return HDR + (size_t)nblocks * 64 + 8;
}

/*
 * A blocked filter is a little worse than a classic one of the same size,
 * because keys do not spread evenly over blocks, and more so at low rates:
 * 5% more bits per decade of the rate keeps the measured rate under the
 * target from 1e-2 to 1e-4 (test_bloom). k is the classic optimum.
 */
static double classic_bits(double fp_rate)
{
	if (!(fp_rate > 0) || fp_rate >= 1)
		fp_rate = 0.01;
	return -log(fp_rate) / (M_LN2 * M_LN2);
}

double bloom_bits_per_key(double fp_rate)
{
	double c = classic_bits(fp_rate);

	return c * (1.0 + 0.05 * c * M_LN2 * M_LN2 / M_LN10);
}

static enum cr_err alloc_image(struct bloom *b, uint64_t nblocks)
{
	size_t n = image_bytes(nblocks);
	unsigned char *img = aligned_alloc(64, (n + 63) / 64 * 64);

	if (!img)
		return CR_ERR_NOMEM;
	memset(img, 0, n);
	b->bits = (uint64_t *)(img + HDR);
	b->nblocks = nblocks;
	return CR_OK;
}

enum cr_err bloom_init(struct bloom *b, uint64_t n, double fp_rate, size_t max_bytes)
{
	double bpk = bloom_bits_per_key(fp_rate);
	double bits = (double)(n ? n : 1) * bpk;
	long k = lround(classic_bits(fp_rate) * M_LN2);
	uint64_t nblocks;

	memset(b, 0, sizeof(*b));
	if (bits > (double)((uint64_t)1 << 46))
		return CR_ERR_LIMIT;
	nblocks = (uint64_t)ceil(bits / BLOCK_BITS);
	if (nblocks < 1)
		nblocks = 1;
	if (max_bytes && image_bytes(nblocks) > max_bytes)
		return CR_ERR_LIMIT;
	b->k = (uint32_t)(k < 1 ? 1 : k > MAX_K ? MAX_K : k);
	return alloc_image(b, nblocks);
}

void bloom_release(struct bloom *b)
{
	if (b->bits)
		free(image(b));
	memset(b, 0, sizeof(*b));
}

size_t bloom_bytes(const struct bloom *b)
{
	return b->bits ? image_bytes(b->nblocks) : 0;
}

struct bloom_hash bloom_hash(const void *key, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(key, len);
	struct bloom_hash r = { h.low64, h.high64 };

	return r;
}

/* The block (from the low half of the hash, by multiply-shift) and the
 * bits inside it: 9-bit slices of the high half, remixed every 7 bits. */
static uint64_t *locate(const struct bloom *b, struct bloom_hash h, uint64_t *bits)
{
	*bits = h.hi;
	return b->bits + (uint64_t)(((unsigned __int128)h.lo * b->nblocks) >> 64) * 8;
}

static uint32_t next_bit(uint64_t *state, uint32_t i)
{
	uint32_t bit;

	if (i && i % 7 == 0) {
		uint64_t z = *state + 0x9e3779b97f4a7c15ULL;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		*state = z ^ (z >> 31);
	}
	bit = (uint32_t)(*state & (BLOCK_BITS - 1));
	*state = (*state >> 9) | (*state << 55);
	return bit;
}

void bloom_add(struct bloom *b, const void *key, size_t len)
{
	bloom_add_hash(b, bloom_hash(key, len));
}

void bloom_add_hash(struct bloom *b, struct bloom_hash h)
{
	uint64_t st;
	uint64_t *w = locate(b, h, &st);
	uint32_t i;

	for (i = 0; i < b->k; i++) {
		uint32_t bit = next_bit(&st, i);

		w[bit >> 6] |= (uint64_t)1 << (bit & 63);
	}
	b->count++;
}

int bloom_has(const struct bloom *b, const void *key, size_t len)
{
	uint64_t st;
	const uint64_t *w = locate(b, bloom_hash(key, len), &st);
	uint32_t i;

	for (i = 0; i < b->k; i++) {
		uint32_t bit = next_bit(&st, i);

		if (!(w[bit >> 6] & ((uint64_t)1 << (bit & 63))))
			return 0;
	}
	return 1;
}

enum cr_err bloom_save(const struct bloom *b, const char *path)
{
	unsigned char *img = image(b);
	size_t n = image_bytes(b->nblocks);

	memset(img, 0, HDR);
	memcpy(img, MAGIC, 8);
	put64(img + 8, b->nblocks);
	put64(img + 16, b->k);
	put64(img + 24, b->count);
	put64(img + n - 8, XXH64(img, n - 8, 0));
	return fs_write_atomic(path, img, n);
}

static enum cr_err read_exact(int fd, unsigned char *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return CR_ERR_IO;
		p += r;
		n -= (size_t)r;
	}
	return CR_OK;
}

enum cr_err bloom_load(struct bloom *b, const char *path)
{
	unsigned char hdr[HDR], *img;
	struct stat st;
	uint64_t nblocks, k;
	enum cr_err e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(b, 0, sizeof(*b));
	if (fd < 0)
		return CR_ERR_IO;
	if (fstat(fd, &st) || read_exact(fd, hdr, HDR)) {
		close(fd);
		return CR_ERR_FORMAT;
	}
	nblocks = get64(hdr + 8);
	k = get64(hdr + 16);
	if (memcmp(hdr, MAGIC, 8) || nblocks == 0 || nblocks > ((uint64_t)1 << 40) ||
	    k < 1 || k > MAX_K || (uint64_t)st.st_size != image_bytes(nblocks)) {
		close(fd);
		return CR_ERR_FORMAT;
	}
	e = alloc_image(b, nblocks);
	if (e) {
		close(fd);
		return e;
	}
	img = image(b);
	memcpy(img, hdr, HDR);
	e = read_exact(fd, img + HDR, image_bytes(nblocks) - HDR);
	close(fd);
	if (!e && get64(img + image_bytes(nblocks) - 8) !=
		  XXH64(img, image_bytes(nblocks) - 8, 0))
		e = CR_ERR_FORMAT;
	if (e) {
		bloom_release(b);
		return e == CR_ERR_NOMEM ? e : CR_ERR_FORMAT;
	}
	b->k = (uint32_t)k;
	b->count = get64(hdr + 24);
	return CR_OK;
}

/*
 * bloom.h - the seen-set: a blocked Bloom filter of URLs.
 *
 * One filter per CrawlDb partition holds every URL of that partition's
 * CrawlDb version (crawldb/NNNNN/seen-PPPPP.bloom). The update phase asks it
 * before a routed link enters the external sort: a URL the filter holds is
 * already in the CrawlDb, so the link is dropped early. A false positive
 * drops a new URL; the rate is set by seen.fp_rate.
 *
 * Layout: 64-byte blocks (one cache line); a key sets k bits inside one
 * block, all derived from one XXH3-128 of the key, so a lookup touches one
 * cache line. The file is a header, the blocks and an XXH64 of both; a file
 * whose size or checksum is wrong is refused (CR_ERR_FORMAT).
 */
#ifndef CR_SEEN_BLOOM_H
#define CR_SEEN_BLOOM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct bloom {
	uint64_t *bits;     /* nblocks * 8 words */
	uint64_t nblocks;
	uint32_t k;         /* bits set per key */
	uint64_t count;     /* keys added */
};

/* Bits per key and k for a target false-positive rate (for docs and tests). */
double bloom_bits_per_key(double fp_rate);

/* A filter for n keys at fp_rate. CR_ERR_NOMEM, or CR_ERR_LIMIT when the
 * filter would exceed max_bytes (0: no cap). */
CR_WUR enum cr_err bloom_init(struct bloom *b, uint64_t n, double fp_rate, size_t max_bytes);
void bloom_release(struct bloom *b);
size_t bloom_bytes(const struct bloom *b);

/* The hash a key is filed under: add a key now or its hash later. */
struct bloom_hash {
	uint64_t lo, hi;
};

struct bloom_hash bloom_hash(const void *key, size_t len);
void bloom_add_hash(struct bloom *b, struct bloom_hash h);
void bloom_add(struct bloom *b, const void *key, size_t len);
/* 1: probably added before; 0: certainly not. */
int bloom_has(const struct bloom *b, const void *key, size_t len);

/* Writes the filter to path atomically (temporary name, fsync, rename). */
CR_WUR enum cr_err bloom_save(const struct bloom *b, const char *path);
/* Reads a filter written by bloom_save; CR_ERR_IO when absent or unreadable,
 * CR_ERR_FORMAT when damaged. */
CR_WUR enum cr_err bloom_load(struct bloom *b, const char *path);

#endif

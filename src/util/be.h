/*
 * be.h - unsigned numbers as n big-endian bytes (1 to 8): the byte order
 * that sorts like the number, for sort keys and packed records compared
 * with memcmp (dedup's bands and candidates, generate's ranked keys).
 */
#ifndef CR_UTIL_BE_H
#define CR_UTIL_BE_H

#include <stdint.h>

/* Writes the low n bytes of v at p, most significant first. */
static inline void be_put(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = (unsigned char)v;
		v >>= 8;
	}
}

/* The number the n bytes at p say, most significant first. */
static inline uint64_t be_get(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

#endif

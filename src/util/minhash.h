/*
 * minhash.h - words, shingles and MinHash signatures of a page's text.
 *
 * Words: maximal runs of bytes that are ASCII letters or digits or bytes
 * >= 0x80 (so UTF-8 letters stay inside words); ASCII letters are folded to
 * lower case; every other byte separates words. A shingle is k consecutive
 * words; a text of fewer than k words (but at least one) has one shingle of
 * all its words. Two schemes make the n values of a signature:
 *
 * - MINHASH_OPH (dedup.signature = oph, the default): one-permutation
 *   hashing (Li, Owen and Zhang, NIPS 2012): one 64-bit hash per shingle
 *   picks one of n bins and keeps the minimum there; bins no shingle fell
 *   into are filled by optimal densification (Shrivastava, ICML 2017).
 *   One hash per shingle instead of n.
 * - MINHASH_FUNCTIONS (dedup.signature = minhash; crawls made before the
 *   key existed): the shingle's hash feeds n hash functions h_i(s) = (a_i *
 *   s + b_i) >> 32 (multiply-shift, a_i odd, fixed seeds), each keeping its
 *   minimum.
 *
 * Either way two pages agree on value i with probability equal to the
 * Jaccard index of their shingle sets, so the share of equal values
 * estimates it. The two schemes' signatures do not compare: a crawl keeps
 * the scheme it was created with (crawl.meta). Pure and deterministic on
 * every rank.
 */
#ifndef CR_UTIL_MINHASH_H
#define CR_UTIL_MINHASH_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define MINHASH_MAX 1024
#define MINHASH_BANDS_MAX 512   /* dedup.bands at most */

/* Appends the text's words to out, separated by single spaces (what
 * `mpicrawl warc --text` prints). Returns the number of words. */
size_t minhash_words(const char *text, size_t len, struct buf *out);

enum minhash_scheme { MINHASH_FUNCTIONS = 0, MINHASH_OPH = 1 };

/* Computes n values (n <= MINHASH_MAX) over k-word shingles of text into
 * sig. Returns the number of shingles (0: no words, sig untouched). */
size_t minhash_sign(const char *text, size_t len, unsigned k, unsigned n,
		    enum minhash_scheme scheme, uint32_t *sig);

/* Share of equal values of two n-value signatures: estimated Jaccard. */
double minhash_similarity(const uint32_t *a, const uint32_t *b, unsigned n);

/* The LSH key of band b (rows values from sig + b * rows). */
uint64_t minhash_band_key(const uint32_t *sig, unsigned b, unsigned rows);

#endif

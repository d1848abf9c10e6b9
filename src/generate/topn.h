/*
 * topn.h - which URLs a round's global budget takes (generate.top_n, issue
 * 15): the N best by score over all ranks, the same N on any rank count.
 *
 * Why a radix select. Each rank holds the scores of its own partitions'
 * due URLs; the budget's boundary - the N-th best score - is a fact about
 * all of them together. Sorting everything on one rank would not scale,
 * and an approximate quantile (a histogram of scores) would take a few
 * URLs too many or too few at the boundary, differently with another
 * partitioning. Instead every URL gets a unique 128-bit key - its score in
 * an order-preserving form, then its URL's 64-bit hash as the tie-break -
 * and the threshold key is found byte by byte from the top: each step,
 * every rank counts its keys within the range decided so far by their next
 * byte (256 counters), the counts are summed over the ranks (one
 * allreduce of 256 integers), and the byte where the N-th key falls is
 * decided. Sixteen steps decide all 128 bits; the step stops early once
 * the range holds exactly the keys still wanted. The selected set is then
 * "key >= threshold": exact, and the same whichever rank holds which URL.
 *
 * Pure: the caller does the counting over its keys (topn_count), the
 * summing (comm's allreduce) and the loop; nothing here knows MPI.
 */
#ifndef CR_GENERATE_TOPN_H
#define CR_GENERATE_TOPN_H

#include <stddef.h>
#include <stdint.h>

/* A URL's place in the order: greater is better. */
struct topn_key {
	uint64_t hi;   /* the score, order-preserving (topn_key_of) */
	uint64_t lo;   /* the URL's hash: ties of score broken by it */
};

/* The key of a score (NaN counts as the worst) and a URL hash. */
struct topn_key topn_key_of(double score, uint64_t url_hash);
/* <0, 0, >0 as a is worse than, equal to, better than b. */
int topn_cmp(struct topn_key a, struct topn_key b);

#define TOPN_STEPS 16   /* bytes of a key */

/* The selection while it is being decided, the same on every rank. */
struct topn_select {
	uint64_t want;          /* N, the budget */
	uint64_t above;         /* keys known to be better than the range */
	struct topn_key prefix; /* the decided bytes of the threshold, the rest 0 */
	unsigned bytes;         /* how many are decided */
	int done;               /* the threshold is known */
	int all;                /* fewer keys than N: every key is selected */
};

void topn_init(struct topn_select *s, uint64_t n);

/* Adds to counts[256] the keys k[0..n) within the undecided range, by
 * their next byte. A rank's part of a step. */
void topn_count(const struct topn_select *s, const struct topn_key *k, size_t n,
		uint64_t counts[256]);

/* Decides the next byte from counts summed over every rank; sets done
 * when the threshold is known (at the latest after TOPN_STEPS steps). */
void topn_step(struct topn_select *s, const uint64_t counts[256]);

/* Once done: whether a key is among the N. */
int topn_selected(const struct topn_select *s, struct topn_key k);

#endif

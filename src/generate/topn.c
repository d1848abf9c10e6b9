/*
 * topn.c - the global budget's threshold by a distributed radix select;
 * see topn.h.
 */
#include "generate/topn.h"

#include <math.h>
#include <string.h>

struct topn_key topn_key_of(double score, uint64_t url_hash)
{
	struct topn_key k = { 0, url_hash };
	uint64_t bits;

	if (isnan(score))
		return k;
	if (score == 0)
		score = 0;   /* -0 and +0 alike */
	memcpy(&bits, &score, sizeof(bits));
	/* IEEE doubles order as integers once negatives are flipped whole and
	 * positives have their sign bit set. */
	k.hi = bits >> 63 ? ~bits : bits | (1ull << 63);
	return k;
}

int topn_cmp(struct topn_key a, struct topn_key b)
{
	if (a.hi != b.hi)
		return a.hi < b.hi ? -1 : 1;
	return a.lo < b.lo ? -1 : a.lo > b.lo;
}

/* Byte i of a key, from the most significant (0) to the least (15). */
static unsigned byte_at(struct topn_key k, unsigned i)
{
	return i < 8 ? (unsigned)(k.hi >> (56 - 8 * i)) & 0xff
		     : (unsigned)(k.lo >> (56 - 8 * (i - 8))) & 0xff;
}

static void set_byte(struct topn_key *k, unsigned i, unsigned b)
{
	if (i < 8)
		k->hi |= (uint64_t)b << (56 - 8 * i);
	else
		k->lo |= (uint64_t)b << (56 - 8 * (i - 8));
}

/* Whether k's decided bytes are the prefix's. */
static int in_range(const struct topn_select *s, struct topn_key k)
{
	unsigned i;

	for (i = 0; i < s->bytes; i++)
		if (byte_at(k, i) != byte_at(s->prefix, i))
			return 0;
	return 1;
}

void topn_init(struct topn_select *s, uint64_t n)
{
	memset(s, 0, sizeof(*s));
	s->want = n;
	s->done = n == 0;
}

void topn_count(const struct topn_select *s, const struct topn_key *k, size_t n,
		uint64_t counts[256])
{
	size_t i;

	if (s->done)
		return;
	for (i = 0; i < n; i++)
		if (in_range(s, k[i]))
			counts[byte_at(k[i], s->bytes)]++;
}

void topn_step(struct topn_select *s, const uint64_t counts[256])
{
	uint64_t need = s->want - s->above, acc = 0, total = 0;
	int b;

	if (s->done)
		return;
	for (b = 0; b < 256; b++)
		total += counts[b];
	if (total <= need) {
		/* the whole range is wanted: fewer keys than N at the first
		 * step, else the threshold is the range's lowest key */
		s->all = s->bytes == 0;
		s->done = 1;
		return;
	}
	for (b = 255; b > 0 && acc + counts[b] < need; b--)
		acc += counts[b];
	s->above += acc;
	set_byte(&s->prefix, s->bytes, (unsigned)b);
	s->bytes++;
	/* the chosen byte's keys are exactly the ones still wanted, or the
	 * key is whole */
	s->done = counts[b] == need - acc || s->bytes == TOPN_STEPS;
}

int topn_selected(const struct topn_select *s, struct topn_key k)
{
	if (!s->want)
		return 0;
	return s->all || topn_cmp(k, s->prefix) >= 0;
}

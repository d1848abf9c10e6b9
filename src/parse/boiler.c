/*
 * boiler.c - boilerplate lines by link density and length; see boiler.h.
 */
#include "parse/boiler.h"

enum { BAD, SHORT, NEAR, GOOD };

static int first_class(const struct boiler_line *l)
{
	if (l->words && (double)l->link_words > BOILER_LINK_DENSITY * l->words)
		return BAD;
	if (l->words >= BOILER_GOOD_WORDS)
		return GOOD;
	if (l->words < BOILER_SHORT_WORDS)
		return SHORT;
	return NEAR;
}

/* Lines decided in the current pass carry RESOLVED: they were of the
 * class the pass skips, and are skipped as such. */
#define RESOLVED 16

/* The class of the nearest line from i in direction d (+1, -1) that is not
 * of class skip (nor decided in this pass); BAD past an edge. */
static int neighbour(const uint8_t *c, size_t n, size_t i, int d, int skip)
{
	size_t k = i;

	for (;;) {
		if ((d < 0 && k == 0) || (d > 0 && k + 1 >= n))
			return BAD;
		k = d < 0 ? k - 1 : k + 1;
		if (c[k] != skip && !(c[k] & RESOLVED))
			return c[k];
	}
}

void boiler_classify(const struct boiler_line *l, size_t n, uint8_t *flags)
{
	size_t i;

	for (i = 0; i < n; i++)
		flags[i] = (uint8_t)first_class(&l[i]);
	/* Short lines from their nearest non-short neighbours. */
	for (i = 0; i < n; i++) {
		int a, b;

		if (flags[i] != SHORT)
			continue;
		a = neighbour(flags, n, i, -1, SHORT);
		b = neighbour(flags, n, i, +1, SHORT);
		a = a == BAD && b == BAD ? BAD : a != BAD && b != BAD ? GOOD : NEAR;
		flags[i] = (uint8_t)(a | RESOLVED);
	}
	for (i = 0; i < n; i++)
		flags[i] &= (uint8_t)~RESOLVED;
	/* Near-good lines from their nearest good or bad lines. */
	for (i = 0; i < n; i++) {
		int good;

		if (flags[i] != NEAR)
			continue;
		good = neighbour(flags, n, i, -1, NEAR) == GOOD ||
		       neighbour(flags, n, i, +1, NEAR) == GOOD;
		flags[i] = (uint8_t)((good ? GOOD : BAD) | RESOLVED);
	}
	for (i = 0; i < n; i++)
		flags[i] = (flags[i] & (uint8_t)~RESOLVED) == BAD;
}

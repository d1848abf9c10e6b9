#include "round/length.h"

#include <math.h>

/* Plans stop growing here (ms): a round of 2^31 s is no plan in practice. */
#define ROUND_MAX_MS 2147483647000.0

int64_t round_length_ms(const struct round_length_in *in)
{
	double t;

	if (in->configured_s != ROUND_LENGTH_AUTO)
		return in->configured_s > 0 ? (int64_t)in->configured_s * 1000 : 0;
	if (in->delay_ms <= 0)
		return 0;
	t = (double)in->delay_ms * ROUND_FIRST_DELAYS;
	if (t < ROUND_MIN_S * 1000.0)
		t = ROUND_MIN_S * 1000.0;
	/* Growth counts from one delay: a plan under one delay takes one URL a
	 * host whatever its length, so steps below it would change nothing. */
	if (in->steps > 0)
		t = (t < (double)in->delay_ms ? (double)in->delay_ms : t) *
		    pow(ROUND_GROWTH, in->steps);
	if ((double)in->records * ROUND_US_PER_RECORD / 1000.0 > t)
		t = (double)in->records * ROUND_US_PER_RECORD / 1000.0;
	return t < ROUND_MAX_MS ? (int64_t)ceil(t) : (int64_t)ROUND_MAX_MS;
}

int round_steps_next(int prev, int64_t after, int64_t before)
{
	if (after >= 0 && (double)after > (double)(before > 0 ? before : 0) * ROUND_FINDING)
		return prev;
	return prev + 1;
}

#include "util/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int64_t clock_now_us(void)
{
	static int64_t offset_us;
	static int known;
	struct timespec ts;

	if (!known) {
		const char *s = getenv("MPICRAWL_CLOCK_OFFSET_S");

		/* clock_offset_ok vetted it when the job started */
		offset_us = s && clock_offset_ok() ? strtoll(s, NULL, 10) * 1000000LL : 0;
		known = 1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + offset_us;
}

int clock_offset_ok(void)
{
	const char *s = getenv("MPICRAWL_CLOCK_OFFSET_S");
	char *end;
	long long v;

	if (!s)
		return 1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return ((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9')) &&
	       !*end && !errno && v <= 100LL * 365 * 86400 && v >= -100LL * 365 * 86400;
}

int64_t clock_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

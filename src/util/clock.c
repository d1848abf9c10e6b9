#include "util/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int64_t clock_now_us(void)
{
	static int64_t offset_us = -1;
	struct timespec ts;

	if (offset_us < 0) {
		const char *s = getenv("MPICRAWL_CLOCK_OFFSET_S");

		offset_us = s ? strtoll(s, NULL, 10) * 1000000LL : 0;
		if (offset_us < 0)
			offset_us = 0;
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
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && v <= 100LL * 365 * 86400;
}

int64_t clock_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

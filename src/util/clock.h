/*
 * clock.h - the crawl's clock. Decisions take "now" as an argument; only
 * drivers read the clock, through here. MPICRAWL_CLOCK_OFFSET_S in the
 * environment shifts the wall clock (tests of recrawl schedules use it rather
 * than sleeping).
 */
#ifndef CR_UTIL_CLOCK_H
#define CR_UTIL_CLOCK_H

#include <stdint.h>

/* Wall clock, µs since the epoch, with the test offset applied. */
int64_t clock_now_us(void);
/* 0 if MPICRAWL_CLOCK_OFFSET_S is set to anything but whole seconds, at
 * most 100 years either way (docs/OPERATIONS.md, Environment); 1
 * otherwise. */
int clock_offset_ok(void);

/* Monotonic clock in µs, for intervals and politeness timing. */
int64_t clock_mono_us(void);

#endif

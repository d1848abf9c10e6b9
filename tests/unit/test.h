/*
 * test.h - the unit tests' few macros. A test program checks many cases and
 * ends with the line "result: P passed, F failed"; tests/run.sh adds up those
 * lines. A failing case prints one line saying where and why.
 */
#ifndef CR_TEST_H
#define CR_TEST_H

#include <stdio.h>
#include <string.h>

static int t_passed, t_failed;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (cond) {                                                 \
			t_passed++;                                         \
		} else {                                                    \
			t_failed++;                                         \
			printf("not ok %s:%d: ", __FILE__, __LINE__);       \
			printf(__VA_ARGS__);                                \
			printf("\n");                                       \
		}                                                           \
	} while (0)

#define CHECK_STR(got, want)                                                \
	CHECK((got) && strcmp((got), (want)) == 0, "got '%s', want '%s'",  \
	      (got) ? (got) : "(null)", (want))

#define TEST_DONE()                                                         \
	do {                                                                \
		printf("result: %d passed, %d failed\n", t_passed, t_failed); \
		return t_failed ? 1 : 0;                                    \
	} while (0)

#endif

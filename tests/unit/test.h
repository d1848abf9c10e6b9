/*
 * test.h - the unit tests' few macros. A test program checks many cases and
 * ends with the line "result: P passed, F failed" (", S skipped" when a
 * group of checks could not run: the public conformance suites are not
 * there); tests/run.sh adds up those lines. A failing case prints one line
 * saying where and why, a skipped group one line saying why.
 */
#ifndef CR_TEST_H
#define CR_TEST_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fs.h"

static int t_passed, t_failed, t_skipped;

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

/* A deterministic generator (splitmix64): tests set test_rng_state to
 * replay a case. */
static uint64_t test_rng_state;

static inline uint64_t test_rng(void)
{
	uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The whole file into b (replacing its contents); 0 or -1. */
static inline int test_slurp(const char *path, struct buf *b)
{
	buf_reset(b);
	return fs_read_all(path, SIZE_MAX, b) == CR_OK ? 0 : -1;
}

/* Writes a whole file; 0 or -1. */
static inline int test_spit(const char *path, const void *p, size_t n)
{
	return fs_write_atomic(path, p, n) == CR_OK ? 0 : -1;
}

/* Makes a new scratch directory NAME.XXXXXX into out: on tmpfs (/dev/shm)
 * where there is one, where an fsync costs nothing; 0 or -1. */
static inline int test_scratch(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 name);
	return mkdtemp(out) ? 0 : -1;
}

/* Silences stderr (the code's log lines) around loops of bad input;
 * test_quiet_off(test_quiet_on()) restores it. */
static inline int test_quiet_on(void)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	if (null >= 0) {
		dup2(null, 2);
		close(null);
	}
	return saved;
}

static inline void test_quiet_off(int saved)
{
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
}

/* n checks not run, and why (one line). */
#define SKIP(n, ...)                                                        \
	do {                                                                \
		t_skipped += (n);                                           \
		printf("skip: ");                                           \
		printf(__VA_ARGS__);                                        \
		printf("\n");                                               \
	} while (0)

#define TEST_DONE()                                                         \
	do {                                                                \
		if (t_skipped)                                              \
			printf("result: %d passed, %d failed, %d skipped\n", \
			       t_passed, t_failed, t_skipped);              \
		else                                                        \
			printf("result: %d passed, %d failed\n", t_passed,   \
			       t_failed);                                   \
		return t_failed ? 1 : 0;                                    \
	} while (0)

#endif

/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point's
 * prototype, and small helpers to cut one input into the several arguments a
 * parser takes. A target is one file, tests/fuzz/fuzz_NAME.c, defining
 * LLVMFuzzerTestOneInput; it is linked either with libFuzzer (make fuzz) or
 * with tests/fuzz/replay.c, which runs it once over each file given (the
 * seed corpus replay of make test).
 *
 * A target must return 0, leak nothing, and abort() when a property it
 * checks (a round trip, a cap) does not hold: that is a crash to fix.
 */
#ifndef CR_FUZZ_H
#define CR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of p[0..n) (NULs inside stay: C readers see a
 * prefix). The caller frees it. */
static inline char *fuzz_strndup(const void *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/*
 * Cuts data at the first sep byte: *a gets the bytes before it, *rest and
 * *rn what follows (NULL, 0 when sep does not occur: then *a is all of
 * data). *a is a new string the caller frees.
 */
static inline void fuzz_cut(const uint8_t *data, size_t size, int sep, char **a,
			    const uint8_t **rest, size_t *rn)
{
	const uint8_t *s = size ? memchr(data, sep, size) : NULL;
	size_t n = s ? (size_t)(s - data) : size;

	*a = fuzz_strndup(data, n);
	*rest = s ? s + 1 : NULL;
	*rn = s ? size - n - 1 : 0;
}

/*
 * A path that holds exactly data[0..size), for readers that take a file
 * name: one file per process (a memfd when the system has them, else a
 * temporary file), rewritten on each call. Aborts if it cannot be written.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	size_t off = 0;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", 0);
		if (fd >= 0) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		} else {
			const char *dir = getenv("TMPDIR");

			snprintf(path, sizeof(path), "%s/fuzz-input-XXXXXX",
				 dir && strlen(dir) < 40 ? dir : "/tmp");
			fd = mkstemp(path);
			if (fd < 0)
				abort();
		}
	}
	if (ftruncate(fd, 0) != 0)
		abort();
	while (off < size) {
		ssize_t w = pwrite(fd, data + off, size - off, (off_t)off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	return path;
}

#endif

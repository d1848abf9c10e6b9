/*
 * replay.c - runs a fuzz target once over each file given, without
 * libFuzzer: what make test does with the seed corpora, built with gcc and
 * the sanitizers of build-san/. Directories given are read one level deep.
 *
 * Each input runs in a child process, so one crash is reported as a FAIL
 * line (the sanitizer's report above it) and the others still run. Prints
 * "ok INPUT" or "FAIL INPUT", then "result: P passed, F failed"; exits 1 if
 * any failed.
 */
#include "fuzz.h"
#include "util/buf.h"
#include "util/fs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int passed, failed;

static int run_file(const char *path)
{
	struct buf b;
	pid_t pid;
	int st = 0;

	buf_init(&b);
	if (fs_read_all(path, SIZE_MAX, &b) != CR_OK) {
		buf_release(&b);
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* A private copy of exactly the input's size, so that reading
		 * past its end is caught. */
		size_t n = b.len;
		uint8_t *p = malloc(n ? n : 1);

		if (!p)
			_exit(2);
		if (n)
			memcpy(p, b.p, n);
		buf_release(&b);
		LLVMFuzzerTestOneInput(p, n);
		free(p);
		exit(0);
	}
	buf_release(&b);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void one(const char *path)
{
	if (run_file(path) == 0) {
		passed++;
		printf("ok %s\n", path);
	} else {
		failed++;
		printf("FAIL %s\n", path);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (!d) {
		failed++;
		printf("FAIL %s (cannot open)\n", path);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct buf full;

		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		buf_init(&full);
		buf_addf(&full, "%s/%s", path, e->d_name);
		names[n++] = fuzz_strndup(full.p, full.len);
		buf_release(&full);
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		one(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			dir(argv[i]);
		else
			one(argv[i]);
	}
	printf("result: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

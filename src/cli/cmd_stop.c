/*
 * cmd_stop.c - `mpicrawl stop --dir DIR [--wait S]`: asks the job that
 * holds DIR to stop as SIGUSR1 would (util/stop.h), from any node that sees
 * the directory: the control file DIR/stop names the job's rank 0 (pid and
 * host, from DIR/lock), which looks for it once a second. With --wait, it
 * waits up to S seconds for the job to let the directory go. No MPI.
 */
#include "cli/cmds.h"
#include "crawldb/layout.h"
#include "util/fs.h"
#include "util/lock.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char stop_usage[] = "mpicrawl stop --dir DIR [--wait SECONDS]";
static const char stop_help[] =
	"  asks the job working on DIR to stop soon, as SIGUSR1 does: it ends\n"
	"  its open requests within fetch.stop_grace_s and exits 75; run the\n"
	"  crawl again to continue. From any node that sees DIR.\n"
	"  --wait S   wait up to S seconds for the job to end\n\n"
	"exit codes: 0 asked (and, with --wait, ended) or no job running;\n"
	"1 not a crawl directory, cannot ask, or still running after --wait;\n"
	"2 bad usage\n";

static int bad_usage(const char *what)
{
	fprintf(stderr, "mpicrawl: %s\nusage: %s\n", what, stop_usage);
	return 2;
}

/* The holder of DIR/lock, once it has written who it is (a job that is
 * starting has not, for a moment): 1 held, 0 not. */
static int holder_of(const char *lock, struct lock_holder *h)
{
	int held = 0, tries;

	for (tries = 0; tries < 40; tries++) {
		lock_peek(lock, &held, h);
		if (!held || h->pid > 0)
			return held;
		usleep(50000);
	}
	return held;
}

/* Writes DIR/stop naming h's process. */
static int ask(const char *dir, const struct lock_holder *h)
{
	char path[PATH_MAX], text[1024], me[256] = "?", when[32];
	time_t t = time(NULL);
	struct tm tm;

	gethostname(me, sizeof(me) - 1);
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(text, sizeof(text), "pid=%ld\nhost=%s\nfrom=%s\nasked=%s\n", h->pid, h->host,
		 me, when);
	layout_top(dir, "stop", path, sizeof(path));
	if (fs_write_atomic(path, text, strlen(text)) != CR_OK) {
		fprintf(stderr, "mpicrawl: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}

/* Waits up to secs for the lock at path to be free: 0 once it is. */
static int wait_free(const char *path, long secs)
{
	struct lock_holder h;
	int held = 0;
	long i;

	for (i = 0; i < secs * 10; i++) {
		lock_peek(path, &held, &h);
		if (!held)
			return 0;
		usleep(100000);
	}
	lock_peek(path, &held, &h);
	return held;
}

static int parse_args(int argc, char **argv, const char **dir, long *wait)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		switch (c) {
		case 'd': *dir = optarg; break;
		case 'w':
			*wait = strtol(optarg, &end, 10);
			if (!optarg[0] || *end || *wait < 0 || *wait > 86400)
				return bad_usage("--wait takes seconds, 0 to 86400");
			break;
		case 'h':
			printf("usage: %s\n\n%s", stop_usage, stop_help);
			exit(0);
		default:
			return bad_usage("bad option");
		}
	}
	if (!*dir || optind < argc)
		return bad_usage(*dir ? "unexpected argument" : "--dir is required");
	return 0;
}

int cmd_stop(int argc, char **argv)
{
	const char *dir = NULL;
	char lock[PATH_MAX], meta[PATH_MAX], who[512];
	struct lock_holder h;
	long wait = -1;
	int rc = parse_args(argc, argv, &dir, &wait), held;

	if (rc)
		return rc;
	layout_top(dir, "crawl.meta", meta, sizeof(meta));
	if (!fs_exists(meta)) {
		fprintf(stderr, "mpicrawl: '%s' is not a crawl directory (no crawl.meta)\n", dir);
		return 1;
	}
	layout_top(dir, "lock", lock, sizeof(lock));
	held = holder_of(lock, &h);
	if (!held) {
		printf("no job is working on '%s': nothing to stop\n", dir);
		return 0;
	}
	lock_holder_str(&h, who, sizeof(who));
	if (h.pid <= 0) {
		fprintf(stderr, "mpicrawl: the lock of '%s' names no process: cannot ask it\n",
			dir);
		return 1;
	}
	if (ask(dir, &h))
		return 1;
	printf("asked %s to stop\n", who);
	if (wait < 0)
		return 0;
	if (wait_free(lock, wait)) {
		fprintf(stderr, "mpicrawl: the job is still running after %ld s\n", wait);
		return 1;
	}
	printf("the job has ended\n");
	return 0;
}

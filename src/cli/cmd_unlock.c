/*
 * cmd_unlock.c - `mpicrawl unlock --dir DIR [--force]`: clears a stale lock
 * of a crawl directory (util/lock.h). A lock whose holder is gone is
 * removed; one held by a live process of this host never is; one held from
 * another host only with --force, once that host's job is known to be gone
 * (a node that died while its filesystem still reports its lock). No MPI.
 */
#include "cli/cmds.h"
#include "crawldb/layout.h"
#include "util/lock.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char unlock_usage[] = "mpicrawl unlock --dir DIR [--force]";

int cmd_unlock(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	int force = 0, c;
	struct lock_holder h;
	enum lock_clear_result res;
	char who[512], path[PATH_MAX];

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'f': force = 1; break;
		case 'h':
			printf("usage: %s\n\n"
			       "  removes the lock of a crawl directory whose job is gone; a lock\n"
			       "  held by a live process of this host is never removed, one held\n"
			       "  from another host only with --force\n\n"
			       "exit codes: 0 removed or not locked; 1 held (named) or cannot be\n"
			       "removed; 2 bad usage\n", unlock_usage);
			return 0;
		default:
			fprintf(stderr, "mpicrawl: bad option '%s'\nusage: %s\n", argv[optind - 1],
				unlock_usage);
			return 2;
		}
	}
	if (!dir || optind < argc) {
		fprintf(stderr, "mpicrawl: %s\nusage: %s\n",
			dir ? "unexpected argument" : "--dir is required", unlock_usage);
		return 2;
	}
	layout_top(dir, "lock", path, sizeof(path));
	if (lock_clear(path, force, &h, &res) != CR_OK)
		return 1;
	lock_holder_str(&h, who, sizeof(who));
	switch (res) {
	case LOCK_CLEAR_NONE:
		printf("'%s' is not locked\n", dir);
		return 0;
	case LOCK_CLEAR_REMOVED:
		printf("removed the stale lock of '%s' (%s)\n", dir, who);
		return 0;
	case LOCK_CLEAR_FORCED:
		printf("removed the lock of '%s' held from another host (%s)\n", dir, who);
		return 0;
	case LOCK_CLEAR_ALIVE:
		fprintf(stderr, "mpicrawl: '%s' is locked by a live process on this host (%s): "
			"not removed\n", dir, who);
		return 1;
	case LOCK_CLEAR_REMOTE:
		fprintf(stderr, "mpicrawl: '%s' is locked from another host (%s); if that job is "
			"gone, run 'mpicrawl unlock --dir %s --force'\n", dir, who, dir);
		return 1;
	}
	return 1;
}

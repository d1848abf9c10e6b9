/*
 * cmd_check.c - `mpicrawl check --dir DIR [--repair]`: fsck for a crawl
 * directory (round/check.h). One process. --repair holds the directory's
 * lock while it works, so no crawl runs meanwhile (and is refused while one
 * does); without it, check takes no lock and reads the committed state,
 * saying so when a job runs (round/live.h).
 */
#include "cli/cmds.h"
#include "config/config.h"
#include "crawldb/layout.h"
#include "round/check.h"
#include "round/live.h"
#include "util/lock.h"
#include "util/log.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char check_usage[] = "mpicrawl check --dir DIR [--repair]";

static void check_help(void)
{
	printf("usage: %s\n\n"
	       "  reads every committed file of the crawl directory whole - CrawlDb parts,\n"
	       "  seen-sets, near-duplicate stores, fetch lists, fetch outcomes, parse\n"
	       "  data, the robots cache - and every WARC record a fetch outcome or a\n"
	       "  CDXJ line names; prints each problem on one line\n"
	       "  --repair  also does what is safe: writes a lost crawldb/CURRENT again,\n"
	       "            keeps the whole records of a damaged WARC file and has the URLs\n"
	       "            of lost records (or of a lost WARC file) fetched again, rebuilds\n"
	       "            seen-sets, drops damaged near-duplicate stores, goes back to the\n"
	       "            CrawlDb version before a damaged one (its update is redone),\n"
	       "            removes a damaged robots cache and leftovers\n\n"
	       "  while a job runs, check reads what it has committed (and says so);\n"
	       "  --repair is refused until the job ends\n\n"
	       "exit codes: 0 no problem is left; 1 a problem is left (named), or the\n"
	       "directory is not a crawl directory, or --repair while it is in use;\n"
	       "2 bad usage\n", check_usage);
}

/* Prints the summary; the exit code. */
static int check_said(const struct check_report *r, int repair)
{
	printf("%llu files and %llu WARC records checked: %llu problems left%s\n",
	       (unsigned long long)r->files, (unsigned long long)r->records,
	       (unsigned long long)r->problems,
	       r->repaired ? "" : (repair ? "" : " (--repair does what is safe)"));
	if (r->repaired)
		printf("%llu repaired\n", (unsigned long long)r->repaired);
	return r->problems ? 1 : 0;
}

/* --repair: under the directory's lock, refused while a job holds it. */
static int check_repair(const char *dir, const struct crawl_dir *d, const struct config *cfg)
{
	struct dir_lock lk = { .fd = -1 };
	struct lock_holder h;
	struct check_report r;
	char path[PATH_MAX], who[512];
	enum cr_err e;

	layout_top(dir, "lock", path, sizeof(path));
	if ((e = lock_acquire(path, &lk, &h)) != CR_OK) {
		if (e != CR_ERR_STATE)
			return 1;   /* said: the lock cannot be opened */
		lock_holder_str(&h, who, sizeof(who));
		fprintf(stderr, "mpicrawl: crawl directory '%s' is in use by %s: --repair waits "
			"for it to end (without --repair, check reads what it has committed)\n",
			dir, who);
		return 1;
	}
	e = check_run(d, cfg, CHECK_REPAIR, &r);
	lock_release(&lk);
	return e != CR_OK ? 1 : check_said(&r, 1);
}

/* Without --repair: no lock; while a job runs, its committed state. */
static int check_read(const struct crawl_dir *d, const struct config *cfg)
{
	struct round_live live;
	struct check_report r;

	round_live_read(d, &live);
	round_live_say(&live, "check");
	if (check_run(d, cfg, live.running ? CHECK_LIVE : CHECK_READ, &r) != CR_OK)
		return 1;
	return check_said(&r, 0);
}

int cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "repair", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	int repair = 0, c;
	struct config cfg;
	struct crawl_dir d;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'r': repair = 1; break;
		case 'h': check_help(); return 0;
		default:
			fprintf(stderr, "mpicrawl: bad option '%s'\nusage: %s\n", argv[optind - 1],
				check_usage);
			return 2;
		}
	}
	if (!dir || optind < argc) {
		fprintf(stderr, "mpicrawl: %s\nusage: %s\n",
			dir ? "unexpected argument" : "--dir is required", check_usage);
		return 2;
	}
	config_defaults(&cfg);
	if (layout_open(dir, &cfg, 0, &d) != CR_OK)
		return 1;
	return repair ? check_repair(dir, &d, &cfg) : check_read(&d, &cfg);
}

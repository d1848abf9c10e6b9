/*
 * main.c - bin/mpicrawl: one binary, one subcommand per stage of the crawl.
 */
#include "cli/cmds.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "crawl", cmd_crawl, "inject seeds (first time) and run rounds" },
	{ "inject", cmd_inject, "add seed URLs to the CrawlDb" },
	{ "generate", cmd_generate, "write the fetch lists of a new segment" },
	{ "fetch", cmd_fetch, "fetch a segment's fetch lists" },
	{ "parse", cmd_parse, "extract links and text of a fetched segment" },
	{ "update", cmd_update, "merge a segment into the CrawlDb" },
	{ "rank", cmd_rank, "PageRank and host centrality of the fetched link graph" },
	{ "readdb", cmd_readdb, "print CrawlDb statistics or records" },
	{ "url", cmd_url, "print the canonical form of URLs" },
	{ "robots", cmd_robots, "test URLs against a robots.txt file" },
	{ "warc", cmd_warc, "list and check the records of WARC files" },
	{ "index", cmd_index, "write a segment's CDXJ, text and link graph again" },
	{ "wacz", cmd_wacz, "pack the crawl's WARC files, index and pages as one WACZ" },
	{ "report", cmd_report, "write DIR/report.html: charts of the crawl" },
	{ "unlock", cmd_unlock, "clear the stale lock of a crawl directory" },
	{ "check", cmd_check, "verify a crawl directory's files; --repair what is safe" },
};

static void usage(FILE *to)
{
	size_t i;

	fputs("usage: mpicrawl COMMAND [OPTIONS]   (under mpirun/srun for several ranks)\n"
	      "commands:\n", to);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(to, "  %-9s %s\n", commands[i].name, commands[i].help);
	fputs("'mpicrawl COMMAND --help' shows a command's options; docs/CONFIG.md lists "
	      "the configuration keys.\n", to);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fputs("mpicrawl: missing command\n", stderr);
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("mpicrawl 0.1");
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "mpicrawl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}

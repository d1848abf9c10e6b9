/*
 * main.c - bin/mpicrawl: one binary, one subcommand per stage of the crawl.
 */
#include "cli/cmds.h"
#include "parse/pdfworker.h"
#include "scope/scope.h"
#include "util/log.h"

#include <stdio.h>
#include <string.h>

/* tool: one process's work - under mpirun or srun the first rank alone
 * does it (the others would print it again, or find the crawl directory
 * locked by their sibling); the rest run on every rank. */
static const struct {
	const char *name;
	int (*fn)(int, char **);
	int tool;
	const char *help;
} commands[] = {
	{ "crawl", cmd_crawl, 0, "inject seeds (first time) and run rounds" },
	{ "inject", cmd_inject, 0, "add seed URLs to the CrawlDb" },
	{ "generate", cmd_generate, 0, "write the fetch lists of a new segment" },
	{ "fetch", cmd_fetch, 0, "fetch a segment's fetch lists" },
	{ "parse", cmd_parse, 0, "extract links and text of a fetched segment" },
	{ "update", cmd_update, 0, "merge a segment into the CrawlDb" },
	{ "rank", cmd_rank, 0, "PageRank and host centrality of the fetched link graph" },
	{ "readdb", cmd_readdb, 1, "print CrawlDb statistics or records" },
	{ "url", cmd_url, 1, "print the canonical form of URLs" },
	{ "robots", cmd_robots, 1, "test URLs against a robots.txt file" },
	{ "warc", cmd_warc, 1, "list and check the records of WARC files" },
	{ "index", cmd_index, 0, "write a segment's CDXJ, text and link graph again" },
	{ "wacz", cmd_wacz, 1, "pack the crawl's WARC files, index and pages as one WACZ" },
	{ "report", cmd_report, 1, "write DIR/report.html: charts of the crawl" },
	{ "unlock", cmd_unlock, 1, "clear the stale lock of a crawl directory" },
	{ "stop", cmd_stop, 1, "ask the job working on a crawl directory to stop soon" },
	{ "check", cmd_check, 1, "verify a crawl directory's files; --repair what is safe" },
	{ "status", cmd_status, 1, "what a crawl's job is doing, how far, how fast, when it ends" },
};

static void usage(FILE *to)
{
	size_t i;

	fputs("usage: mpicrawl COMMAND [OPTIONS]   (under mpirun/srun for several ranks;\n"
	      "       readdb, url, robots, warc, wacz, report, unlock, stop, check and\n"
	      "       status run once)\n"
	      "commands:\n", to);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(to, "  %-9s %s\n", commands[i].name, commands[i].help);
	fputs("'mpicrawl COMMAND --help' shows a command's options; docs/CONFIG.md lists "
	      "the configuration keys.\n", to);
}

int main(int argc, char **argv)
{
	size_t i;

	scope_register_checks();
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
	/* Hidden: the PDF worker a rank starts (parse/pdfworker.h). */
	if (!strcmp(argv[1], PDFWORKER_COMMAND))
		return pdfworker_main(argc - 1, argv + 1);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].tool && log_launcher_rank() > 0 ? 0 :
			       commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "mpicrawl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}

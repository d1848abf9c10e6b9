/*
 * cli.h - the options every command on a crawl directory shares, and
 * starting and ending its job: configuration (defaults, file, --set), MPI,
 * the crawl directory and its lock. The commands then call the round
 * engine (round/round.h).
 */
#ifndef CR_CLI_CLI_H
#define CR_CLI_CLI_H

#include "crawldb/job.h"

struct cli_opts {
	const char *dir;
	const char *seeds;
	const char *config;
	long rounds;          /* 0: until nothing is due (crawl.max_rounds cap) */
	int segment;          /* 0: the latest */
	const char *sets[128];
	int nsets;
	/* The command decides what becomes of URLs (crawl, inject, generate,
	 * fetch, update): its configuration is the one config.since follows
	 * (provenance.h); parse, index and rank leave it alone. */
	int judges;
};

/* Parses argv for command cmd. allowed: the options this command takes,
 * as a string of letters: d dir, s seeds, c config, S set, r rounds,
 * g segment. Exits 2 with a one-line error and usage on bad input. */
void cli_parse(int argc, char **argv, const char *cmd, const char *allowed,
	       const char *usage, struct cli_opts *o);

/* Starts MPI and fills j: config (defaults, file, --set), crawl directory
 * (created when create is set). Rank 0 alone reads the configuration, the
 * files it names and the seed file (checked: one valid seed), and hands
 * them to every rank (inputs/inputs.h); a bad one is an exit code of 2 on
 * every rank, said in one line by rank 0. Collective. Returns an exit code
 * (0 ok). */
int cli_job_start(struct job *j, const struct cli_opts *o, int create);
/* Finishes MPI; returns code. */
int cli_job_end(int code);

#endif

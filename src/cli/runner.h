/*
 * runner.h - the driver of the stage commands: common options, setting up
 * MPI and the job, running one phase on all ranks (agreeing on success,
 * summing counters, committing, writing _SUCCESS and stats.json), and the
 * crawl loop that resumes an interrupted round where it stopped.
 */
#ifndef CR_CLI_RUNNER_H
#define CR_CLI_RUNNER_H

#include "crawldb/job.h"

struct cli_opts {
	const char *dir;
	const char *seeds;
	const char *config;
	long rounds;          /* 0: until nothing is due (crawl.max_rounds cap) */
	int segment;          /* 0: the latest */
	const char *sets[128];
	int nsets;
};

/* Parses argv for command cmd. allowed: the options this command takes,
 * as a string of letters: d dir, s seeds, c config, S set, r rounds,
 * g segment. Exits 2 with a one-line error and usage on bad input. */
void cli_parse(int argc, char **argv, const char *cmd, const char *allowed,
	       const char *usage, struct cli_opts *o);

/* Starts MPI and fills j: config (defaults, file, --set), crawl directory
 * (created when create is set). Returns an exit code (0 ok). */
int cli_job_start(struct job *j, const struct cli_opts *o, int create);
/* Finishes MPI; returns code. */
int cli_job_end(int code);

/*
 * Exit code of a job that stopped early because it was asked to (SIGTERM,
 * SIGUSR1): what it did is committed or journaled, and running the same
 * command again continues (EX_TEMPFAIL of sysexits.h).
 */
#define CLI_EXIT_STOPPED 75

/* The phases, each collective; 0 on success, else an exit code
 * (CLI_EXIT_STOPPED when the fetch phase stopped early on a signal). */
int runner_inject(struct job *j, const char *seeds);
/* *seg receives the new segment; *selected the number of URLs (all ranks). */
int runner_generate(struct job *j, int *seg, uint64_t *selected);
int runner_fetch(struct job *j, int seg);
int runner_parse(struct job *j, int seg);
int runner_update(struct job *j, int seg);
/* CDXJ, text and link graph of a fetched segment (src/index/), with the
 * duplicates of CrawlDb version crawldb_version: each rank indexes its
 * partitions, rank 0 writes _SUCCESS.index and stats.json. Collective. */
int runner_index(struct job *j, int seg, int crawldb_version);
/* Rewrites segments/N/stats.json from its _SUCCESS files (rank 0 only). */
void cli_write_stats(struct job *j, int seg);
/* The crawl loop: inject when the CrawlDb is empty, then rounds. */
int runner_crawl(struct job *j, const char *seeds, long rounds);

/* Prints a one-line message from rank 0 only (the rank is read from the
 * launcher's environment before MPI starts). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

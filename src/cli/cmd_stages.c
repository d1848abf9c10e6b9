/*
 * cmd_stages.c - the commands that run phases of the crawl on all ranks:
 * crawl, inject, generate, fetch, parse, update, rank.
 */
#include "cli/cmds.h"
#include "comm/comm.h"
#include "crawldb/provenance.h"
#include "cli/cli.h"
#include "rank/rank.h"
#include "round/round.h"
#include "util/log.h"

#include <limits.h>
#include <stdio.h>

#define COMMON "[--config FILE] [--set KEY=VALUE]..."

/* Rank 0 records the run's configuration and seed file (provenance.h);
 * every rank learns whether it could, and where the copy of the seeds is
 * that the job reads (inject.h): copy (PATH_MAX bytes) and *seeds. */
static int record_provenance(const struct job *j, const char *given, char *copy,
			     struct inject_seeds *seeds)
{
	enum cr_err e = CR_OK;

	copy[0] = '\0';
	if (j->rank == 0)
		e = provenance_record(j, given, copy, PATH_MAX);
	if (!comm_agree(e == CR_OK))
		return 1;
	comm_bcast(copy, PATH_MAX, 0);
	seeds->path = copy;
	seeds->name = given;
	return 0;
}

int cmd_crawl(int argc, char **argv)
{
	static const char usage[] =
		"mpicrawl crawl --dir DIR [--seeds FILE] [--rounds N] " COMMON;
	struct cli_opts o;
	struct job j;
	struct inject_seeds seeds;
	char copy[PATH_MAX];
	int rc;

	cli_parse(argc, argv, "crawl", "dscSr", usage, &o);
	rc = cli_job_start(&j, &o, 1);
	if (!rc)
		rc = record_provenance(&j, o.seeds, copy, &seeds);
	if (!rc)
		rc = round_crawl(&j, o.seeds ? &seeds : NULL, o.rounds);
	return cli_job_end(rc);
}

int cmd_generate(int argc, char **argv)
{
	static const char usage[] = "mpicrawl generate --dir DIR " COMMON;
	struct cli_opts o;
	struct job j;
	int rc;
	struct round_generated g = { 0 };

	cli_parse(argc, argv, "generate", "dcS", usage, &o);
	rc = cli_job_start(&j, &o, 0);
	if (!rc)
		rc = round_generate(&j, &g);
	/* Nothing due: no segment, as crawl makes none (a later crawl would
	 * take an empty one for a round that fetched nothing). */
	if (!rc && round_nothing_generated(&g))
		round_nothing_due(&j, &g);
	if (!rc && j.rank == 0 && round_nothing_generated(&g))
		printf("nothing is due: no segment\n");
	else if (!rc && j.rank == 0 && g.denied)
		printf("segment %d: %llu URLs, %llu denied by robots.txt\n", g.seg,
		       (unsigned long long)g.selected, (unsigned long long)g.denied);
	else if (!rc && j.rank == 0)
		printf("segment %d: %llu URLs\n", g.seg, (unsigned long long)g.selected);
	return cli_job_end(rc);
}

/* A command that runs one phase: its options (cli_parse's letters), the
 * job, run, the job's end. creates: the crawl directory may be made here,
 * from the seeds - --seeds is required (inject). */
static int one_phase(int argc, char **argv, const char *name, const char *opts,
		     const char *usage, int creates,
		     int (*run)(struct job *, const struct cli_opts *))
{
	struct cli_opts o;
	struct job j;
	int rc;

	cli_parse(argc, argv, name, opts, usage, &o);
	if (creates && !o.seeds) {
		log_user("--seeds is required");
		if (log_launcher_rank() == 0)
			fprintf(stderr, "usage: %s\n", usage);
		return 2;
	}
	rc = cli_job_start(&j, &o, creates);
	if (!rc)
		rc = run(&j, &o);
	return cli_job_end(rc);
}

static int inject(struct job *j, const struct cli_opts *o)
{
	struct inject_seeds seeds;
	char copy[PATH_MAX];
	int rc = record_provenance(j, o->seeds, copy, &seeds);

	return rc ? rc : round_inject(j, &seeds);
}

static int fetch(struct job *j, const struct cli_opts *o)
{
	return round_fetch(j, o->segment, NULL);
}

static int parse(struct job *j, const struct cli_opts *o)
{
	return round_parse(j, o->segment);
}

static int update(struct job *j, const struct cli_opts *o)
{
	return round_update(j, o->segment);
}

static int rank(struct job *j, const struct cli_opts *o)
{
	(void)o;
	return rank_run(j) == CR_OK ? 0 : 1;
}

int cmd_inject(int argc, char **argv)
{
	return one_phase(argc, argv, "inject", "dscS",
			 "mpicrawl inject --dir DIR --seeds FILE " COMMON, 1, inject);
}

int cmd_fetch(int argc, char **argv)
{
	return one_phase(argc, argv, "fetch", "dcSg",
			 "mpicrawl fetch --dir DIR [--segment N] " COMMON, 0, fetch);
}

int cmd_parse(int argc, char **argv)
{
	return one_phase(argc, argv, "parse", "dcSg",
			 "mpicrawl parse --dir DIR [--segment N] " COMMON, 0, parse);
}

int cmd_update(int argc, char **argv)
{
	return one_phase(argc, argv, "update", "dcSg",
			 "mpicrawl update --dir DIR [--segment N] " COMMON, 0, update);
}

int cmd_rank(int argc, char **argv)
{
	return one_phase(argc, argv, "rank", "dcS", "mpicrawl rank --dir DIR " COMMON, 0, rank);
}

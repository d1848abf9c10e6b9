/*
 * job.h - what every stage of a running job shares: the configuration, the
 * crawl directory, this rank and the rank count, and a scratch directory for
 * sort runs.
 */
#ifndef CR_CRAWLDB_JOB_H
#define CR_CRAWLDB_JOB_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "crawldb/layout.h"
#include "util/buf.h"
#include "util/error.h"

struct job {
	struct config cfg;
	struct crawl_dir dir;
	int rank, nranks;
	/* The span of each host's time the round at hand plans for (ms; 0:
	 * none): generate.round_s as the round driver resolved it
	 * (round/length.h). Generate and fetch read job_round_span_ms. */
	int64_t round_ms;
	/* When the configuration the job runs with took effect (µs, the
	 * crawl's clock): the start of the first job that ran with it, of an
	 * unbroken line of jobs with the same config digest (provenance.h).
	 * Refusals and failures the configuration decided before it are
	 * judged again (generate_rejudged). */
	int64_t config_since_us;
	/* 1 until a generate of the configuration has judged again the links
	 * a scope refused (generate/rescope.h; config.since says it is done). */
	int rescope;
	/* Pages fetched before it (µs) are asked whole, without the
	 * conditions of a refetch: their links are wanted (a 304 has none) -
	 * set for a fetch whose generate took pages for a scope's refusals. */
	int64_t whole_before_us;
	char tmpdir[PATH_MAX];   /* this rank's scratch, created by job_tmpdir */
};

/* The round's span per host (ms; 0: none): round_ms, or fetch.time_limit_s
 * when that is shorter. */
int64_t job_round_span_ms(const struct job *j);

/*
 * Creates (empty) this rank's scratch directory: where the sorts spill
 * (store/xsort.h) and a phase keeps what it reads back - files of one rank
 * and one phase, never read by another rank or a later job. A shared
 * filesystem pays for every such file, so it goes to node-local scratch
 * when the node says where that is: storage.tmp_dir, else $SLURM_TMPDIR,
 * else $TMPDIR - as BASE/mpicrawl-HASH/rNNNN, HASH naming the crawl
 * directory; else DIR/tmp/rNNNN, as before there was a choice.
 */
CR_WUR enum cr_err job_tmpdir(struct job *j);
/* Removes what job_tmpdir made of this rank's (its crawl's folder too, in
 * node-local scratch, once empty): at the job's end. */
void job_tmpdir_remove(const char *tmpdir);

#endif

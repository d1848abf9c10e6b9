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
	char tmpdir[PATH_MAX];   /* DIR/tmp/rNNNN, created by job_tmpdir */
};

/* Creates (empty) this rank's scratch directory under the crawl directory. */
CR_WUR enum cr_err job_tmpdir(struct job *j);

#endif

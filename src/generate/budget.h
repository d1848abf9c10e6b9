/*
 * budget.h - generate.top_n: the round's budget over all ranks.
 *
 * Each rank writes the keys (topn.h) of the URLs generate found eligible
 * - due, and within their host's caps - to a file in its job's tmpdir, so
 * that memory stays flat however many there are. budget_agree then runs
 * topn's radix select: every step reads the file once and sums 256
 * counters over the ranks. What is agreed is the same on every rank, and
 * so is the set of URLs it takes on any rank count.
 *
 * Lifecycle: budget_open, budget_add for every eligible URL, budget_agree
 * (collective), budget_takes per URL, budget_close (removes the file;
 * also after a failure).
 */
#ifndef CR_GENERATE_BUDGET_H
#define CR_GENERATE_BUDGET_H

#include <stdint.h>
#include <stdio.h>

#include "generate/seedcap.h"
#include "generate/topn.h"
#include "util/error.h"

struct budget {
	FILE *keys;              /* owned: the eligible URLs' keys, 16 bytes each */
	char path[4096];
	uint64_t n;              /* keys added on this rank */
	struct topn_select sel;  /* once agreed */
	int agreed;
};

/* tmpdir: the job's own directory (job.h). */
CR_WUR enum cr_err budget_open(struct budget *b, const char *tmpdir);
CR_WUR enum cr_err budget_add(struct budget *b, struct topn_key k);
/* Collective: agrees which of all ranks' keys are the top_n best. ok is
 * this rank's state so far (0: it failed; every rank then returns
 * CR_ERR_COMM or its own error without selecting). */
CR_WUR enum cr_err budget_agree(struct budget *b, uint64_t top_n, int ok,
				const struct seedcap_comm *mpi);
/* Once agreed: 1 if the URL of key k is within the budget. */
int budget_takes(const struct budget *b, struct topn_key k);
void budget_close(struct budget *b);

#endif

/*
 * budget.h - generate.top_n: the round's budget over all ranks, shared
 * between URLs never fetched and refetches (recrawl.share).
 *
 * Each rank writes the keys (topn.h) of the URLs generate found eligible
 * - due, and within their host's caps - to a file per side in its job's
 * tmpdir, so that memory stays flat however many there are: new URLs
 * keyed by score (score.h), refetches by refresh_key (refresh.h). The two
 * keys do not compare - cash against marginal freshness - so the budget
 * is split first, by a rule, then each side takes its best:
 *
 *   refetches get round(share * N), or more when fewer new URLs wait than
 *   the rest, and no more than there are; new URLs get the remainder, no
 *   more than there are.
 *
 * Why a share. A crawl that only discovers never notices a page change;
 * one that only refetches never grows. Which matters more is the
 * campaign's call, not a fact the crawler can derive; the share states it,
 * and no side's part is wasted while the other has URLs waiting.
 *
 * budget_agree sums each side's count over the ranks (one allreduce),
 * splits the budget, then runs topn's radix select on each side: every
 * step reads the side's file once and sums 256 counters over the ranks.
 * What is agreed is the same on every rank, and so is the set of URLs it
 * takes on any rank count.
 *
 * Lifecycle: budget_open, budget_add for every eligible URL, budget_agree
 * (collective), budget_takes per URL, budget_close (removes the files;
 * also after a failure).
 */
#ifndef CR_GENERATE_BUDGET_H
#define CR_GENERATE_BUDGET_H

#include <stdint.h>
#include <stdio.h>

#include "generate/seedcap.h"
#include "generate/topn.h"
#include "util/error.h"

enum budget_side { BUDGET_NEW = 0, BUDGET_REFETCH = 1, BUDGET_SIDES };

struct budget {
	struct {
		FILE *keys;              /* owned: the side's keys, 16 bytes each */
		char path[4096];
		uint64_t n;              /* keys added on this rank */
		struct topn_select sel;  /* once agreed */
	} side[BUDGET_SIDES];
	uint64_t quota[BUDGET_SIDES];    /* once agreed: each side's part of N */
	int agreed;
};

/*
 * The split of a budget of n between new URLs (fresh of them waiting, all
 * ranks) and refetches (refetch of them), share the refetches' part while
 * both wait: quota[BUDGET_NEW], quota[BUDGET_REFETCH]. Pure.
 */
void budget_split(uint64_t n, double share, uint64_t fresh, uint64_t refetch,
		  uint64_t quota[BUDGET_SIDES]);

/* tmpdir: the job's own directory (job.h). */
CR_WUR enum cr_err budget_open(struct budget *b, const char *tmpdir);
CR_WUR enum cr_err budget_add(struct budget *b, enum budget_side side, struct topn_key k);
/* Collective: agrees which of all ranks' keys are within top_n, split by
 * share. ok is this rank's state so far (0: it failed; every rank then
 * returns CR_ERR_COMM or its own error without selecting). */
CR_WUR enum cr_err budget_agree(struct budget *b, uint64_t top_n, double share, int ok,
				const struct seedcap_comm *mpi);
/* Once agreed: 1 if the URL of key k (on side) is within the budget. */
int budget_takes(const struct budget *b, enum budget_side side, struct topn_key k);
void budget_close(struct budget *b);

#endif

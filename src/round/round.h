/*
 * round.h - the round engine: runs the phases of the crawl on all ranks
 * and moves the crawl directory forward.
 *
 * Each phase function is collective (every rank must call it): it runs the
 * stage (inject/, generate/, fetch/, parse/, update/, index/), agrees with
 * the other ranks on success, sums the stage's counters, commits (rank 0:
 * state.h's commits, segments/N/_SUCCESS.<phase> with the counters as JSON,
 * stats.json) and logs one summary line. round_crawl strings them into
 * rounds, asking state.h after every step what comes next, so that a
 * crawl killed at any instant continues where it stopped.
 *
 * Every function returns a process exit code: 0 done, 1 the phase failed
 * (logged), 2 bad input, ROUND_EXIT_STOPPED when a signal asked the job to
 * stop (what it did is committed or journaled; the same command continues),
 * ROUND_EXIT_LOST when a rank found its node's network down.
 */
#ifndef CR_ROUND_ROUND_H
#define CR_ROUND_ROUND_H

#include <stdint.h>

#include "crawldb/job.h"
#include "inject/inject.h"
#include "round/nothing.h"

/* EX_TEMPFAIL of sysexits.h. */
#define ROUND_EXIT_STOPPED 75
/* EX_UNAVAILABLE: a node or its network was lost (comm.h's COMM_EXIT_LOST);
 * what was done is committed or journaled, and the next job continues. */
#define ROUND_EXIT_LOST 69

int round_inject(struct job *j, const struct inject_seeds *seeds);
int round_generate(struct job *j, struct round_generated *out);
/* seg 0: the last segment. A fetched segment is fetched again afresh; an
 * interrupted fetch resumes. *outcomes (may be NULL) gets how many URLs got
 * an outcome, over all ranks. */
int round_fetch(struct job *j, int seg, uint64_t *outcomes);
int round_parse(struct job *j, int seg);
int round_update(struct job *j, int seg);
/* CDXJ, text and link graph of a fetched segment (src/index/), with the
 * duplicates of CrawlDb version crawldb_version; use_staged: from what the
 * fetcher staged where it can (a round), else read back from the WARC
 * files (mpicrawl index). */
int round_index(struct job *j, int seg, int crawldb_version, int use_staged);
/* Inject when the CrawlDb is empty, then rounds until nothing is due, or
 * rounds (0: crawl.max_rounds). seeds: NULL, none given. */
int round_crawl(struct job *j, const struct inject_seeds *seeds, long rounds);

/* Rewrites segments/N/stats.json from its _SUCCESS files (rank 0 only). */
void round_write_stats(struct job *j, int seg);

/*
 * Called as each phase of round_crawl starts ("inject", "generate",
 * "fetch", "parse", "update"; seg 0 for inject). NULL in the crawler; the
 * crash tests' build sets it (tests/hooks/kill.c) to kill the job at a
 * chosen instant.
 */
extern void (*round_phase_hook)(const struct job *j, const char *phase, int seg);

#endif

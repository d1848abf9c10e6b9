/*
 * seedcap.h - a seed's max_pages=: how many new pages each round may take
 * from it, agreed over all ranks.
 *
 * A seed line's max_pages=N bounds the pages fetched from everything
 * reached from that seed (crawl_record.seed), over the whole crawl: a page
 * is a URL the server answered (any HTTP status), counted once; fetching
 * it again is free, and URLs refused without a request (robots.txt, an
 * operator's block) cost nothing. Each
 * round, before selecting, every rank counts the limited seeds' pages
 * fetched so far and collects the keys of their due, never-fetched URLs;
 * the counts are summed over ranks (MPI), and for each seed a bound is
 * found, bit by bit, such that fewer than N - fetched keys lie below it -
 * one allreduce a bit, 64 in all. A URL is taken only under its seed's
 * bound, so the selection is the same on any rank count: the URLs nearest
 * the seed first (the key is depth, then URL hash).
 *
 * Lifecycle: seedcap_prepare (collective) -> seedcap_allows* ->
 * seedcap_release. With no limited seed, prepare does no MPI call at all
 * (every rank reads the same seeds files and so agrees).
 */
#ifndef CR_GENERATE_SEEDCAP_H
#define CR_GENERATE_SEEDCAP_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "crawldb/job.h"
#include "util/error.h"
#include "util/hmap.h"

struct seedcap_keys {
	uint64_t *v;
	size_t n, cap;
};

struct seedcap {
	size_t n;                   /* limited seeds */
	const struct seedcap_comm *mpi;
	struct hmap index;          /* seed id (8 bytes) -> k + 1 */
	uint64_t *limit;            /* max_pages of seed k */
	uint64_t *fetched;          /* its pages fetched before this round, all ranks */
	uint64_t *bound;            /* its URLs with a key below this may be taken */
	struct seedcap_keys *keys;  /* its candidates on this rank, sorted */
};

/* The order a seed's candidates are taken in: depth, then URL hash. Never
 * UINT64_MAX. */
uint64_t seedcap_key(const struct crawl_record *r);

/* How ranks agree (comm.h's comm_agree and comm_sum_u64; the unit tests
 * pass one-rank stand-ins). */
struct seedcap_comm {
	int (*agree)(int ok);
	void (*sum)(uint64_t *v, size_t n);
};

/* Collective: reads the seeds (CrawlDb version ver) and this rank's parts,
 * agrees the bounds. */
CR_WUR enum cr_err seedcap_prepare(struct seedcap *c, const struct job *j, int ver, int64_t now,
				   const struct seedcap_comm *mpi);
/* 1 if r may be selected as far as its seed's max_pages go. */
int seedcap_allows(const struct seedcap *c, const struct crawl_record *r);
void seedcap_release(struct seedcap *c);

/*
 * The bounds, given count(arg, bound, out) that writes for every seed k the
 * number of candidates (of all ranks) with a key below bound[k]: for each
 * k the largest bound with at most budget[k] keys below it. Calls count 64
 * times. Pure but for count.
 */
void seedcap_bounds(size_t n, const uint64_t *budget,
		    void (*count)(void *arg, const uint64_t *bound, uint64_t *out), void *arg,
		    uint64_t *bound);

#endif

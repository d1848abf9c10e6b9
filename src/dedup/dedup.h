/*
 * dedup.h - near-duplicate pages across ranks and rounds: MinHash and LSH.
 *
 * Each page parsed in a round carries a MinHash signature (minhash.h) in its
 * parse record. In the update phase, dedup_run splits every signature into
 * dedup.bands bands; a band's key names its owner partition (key % P), and
 * the band entries travel there (MPI, in bounded batches). The owner reads
 * them beside its persistent band index (every page seen so far, sorted by
 * key, then round, then URL hash); a new page and up to
 * dedup.max_candidates earlier pages of the same bucket form candidate
 * pairs. The earlier page's signature comes from the signature store of its
 * partition (every signed page, by URL hash, with its round and whether it
 * is a representative); the pair is verified where the new page lives:
 * estimated Jaccard >= dedup.threshold, or equal text digests.
 *
 * Both stores are lists of sorted runs (runs.h): version V+1 links the
 * runs of V and adds one run of the round's entries, merging runs now and
 * then; readers merge the runs. What an update writes into them grows with
 * the round, not with the crawl.
 *
 * Clusters: pages are ordered by (round, URL hash). A new page is a
 * duplicate of the first page in that order it was verified against that is
 * itself a representative; with none, it is a representative. Matches with
 * earlier rounds are decided where the page lives; matches within the round
 * (a page's decision depends on its earlier peers') are decided on rank 0
 * from the verified same-round pairs alone, in order. Every step works on
 * partitions and sorted streams, so the answer does not depend on the
 * number of ranks.
 *
 * A CrawlDb version made by inject keeps the stores of the version before
 * it (dedup_carry): they describe the pages, and inject adds none.
 *
 * dedup_run is collective. Its result says which of this rank's pages of the
 * round are duplicates and of what; merge then gives them status duplicate.
 */
#ifndef CR_DEDUP_DEDUP_H
#define CR_DEDUP_DEDUP_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "util/error.h"
#include "util/hmap.h"

enum dedup_counter {
	DC_PAGES,        /* pages of the round with a signature */
	DC_BANDS,        /* band entries routed */
	DC_CANDIDATES,   /* candidate pairs (before verification) */
	DC_VERIFIED,     /* pairs at or over the threshold */
	DC_DUPLICATES,   /* pages of the round marked duplicate */
	DC_OF_EARLIER,   /* ... of a page of an earlier round */
	DC_STORE_BYTES,  /* bytes written into the stores (the round's runs, merges) */
	DC_COUNT_
};

extern const char *const dedup_counter_names[DC_COUNT_];

struct dedup_result {
	struct hmap dups;   /* 8-byte URL hash -> representative URL (malloc'ed) */
};

/* The URL hash that orders pages within a round. */
uint64_t dedup_id(const char *url, size_t len);

/* Collective. Reads segment seg's parse data and CrawlDb version ver's
 * stores, writes version ver + 1's (the round's runs; runs.h), fills res. */
CR_WUR enum cr_err dedup_run(struct job *j, int seg, int ver, struct dedup_result *res,
			     uint64_t *counters);
/* The band index and signature store of this rank's partitions in CrawlDb
 * version ver, linked into version ver + 1 (not collective). */
CR_WUR enum cr_err dedup_carry(const struct job *j, int ver);

/* The representative of url if it is a duplicate, else NULL. */
const char *dedup_rep(const struct dedup_result *res, const char *url, size_t len);

void dedup_init(struct dedup_result *res);
void dedup_release(struct dedup_result *res);

#endif

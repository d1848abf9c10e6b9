/*
 * update.h - the update phase: merge what a round found into the CrawlDb.
 *
 * Outlinks of the segment's parse data (depth + 1) are routed to the ranks
 * that own them (route.h, MPI_Alltoallv in bounded batches); each rank then
 * merges, per partition, the committed CrawlDb part, the sorted fetch
 * outcomes and the sorted links into the next version (merge.h). Between
 * the two, dedup.h finds the round's near-duplicate pages; merge gives them
 * status duplicate.
 *
 * update_run is collective. The caller commits the new version (CURRENT)
 * once all ranks agree.
 */
#ifndef CR_UPDATE_UPDATE_H
#define CR_UPDATE_UPDATE_H

#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "crawldb/job.h"
#include "dedup/dedup.h"
#include "util/error.h"

enum update_counter {
	UC_LINKS_SENT,
	UC_LINKS_RECEIVED,
	UC_SEEN_DROPPED,   /* links the seen-set knew: dropped before the sort */
	UC_DUP_LINKS,      /* duplicate pages whose links count one hop more */
	UC_OUTCOMES,
	UC_ADDED,
	UC_TOO_DEEP,
	UC_TRAPS,          /* new URLs that entered as status trap */
	UC_SCOPE_MODE,     /* links refused by scope.mode (scope/scope.h) */
	UC_SCOPE_RULES,    /* ... by a '-' rule of scope.rules */
	UC_SCOPE_LIMIT,    /* ... because a rule's regex hit its match limit */
	UC_CROSS_REFUSED,  /* sitemap entries of a host whose robots.txt does not name it */
	UC_SCOPE_SEED,     /* links refused by their seed's scope= setting */
	UC_SEED_DEPTH,     /* links past their seed's max_depth= setting */
	UC_RECORDS,
	UC_ORIGINS,        /* distinct scheme://authority among them (round/length.h) */
	UC_STATUS_FIRST,   /* then one counter per crawl status */
	UC_DEDUP_FIRST = UC_STATUS_FIRST + ST_COUNT_,   /* then dedup.h's counters */
	UC_COUNT_ = UC_DEDUP_FIRST + DC_COUNT_
};

extern const char *const update_counter_names[UC_COUNT_];

/* Writes CrawlDb version ver + 1 of this rank's partitions from version ver
 * and segment seg. */
CR_WUR enum cr_err update_run(struct job *j, int seg, int ver, uint64_t *counters);

#endif

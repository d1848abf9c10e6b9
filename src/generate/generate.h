/*
 * generate.h - the generate phase: each rank streams the committed CrawlDb
 * parts of its partitions and writes the URLs that are due now into the
 * segment's fetch lists (segments/N/fetchlist/part-P.zst), at most
 * generate.max_per_host per host and none deeper than crawl.max_depth. A
 * host also gets no more URLs than its delay (politeness.delay_ms, or its
 * cached robots.txt Crawl-delay) lets it fetch in the round's span
 * (generate.round_s, round/length.h; or fetch.time_limit_s when shorter), so
 * a round does not end with one slow host's tail.
 * Memory: one counter per host, never the CrawlDb.
 *
 * The order (generate.order, score/score.h): with score, each host's due
 * URLs are taken best first (ranked.c sorts them, on disk past the memory
 * budget; its root page first, score_is_root), so its caps and a time limit
 * cut the least important; with
 * fifo, in URL order as the CrawlDb streams. generate.top_n bounds the
 * round over all ranks (budget.h).
 *
 * generate_select (select.h) is the pure decision for one record, given
 * what the phase knows of its host so far; generate_run streams records
 * through it.
 *
 * A due URL whose origin's cached robots.txt - an answer still within
 * robots.cache_ttl_s - denies it is not selected: it would make no
 * request, so it takes no place in the round's plan, generate.top_n or
 * generate.max_per_host. Generate writes its outcome as the fetcher would
 * (status denied, reason "robots.txt") to segments/N/denied/part-P.zst,
 * which update merges with the fetch outcomes: it is due again when that
 * robots.txt is asked again, and update's decision log names it.
 */
#ifndef CR_GENERATE_GENERATE_H
#define CR_GENERATE_GENERATE_H

#include <stdint.h>

#include "crawldb/job.h"
#include "generate/select.h"
#include "util/error.h"

struct seedcap;
struct seedcap_comm;
/* Writes this rank's fetch lists for segment seg from CrawlDb version ver;
 * cap: the seeds' max_pages bounds (seedcap_prepare), or NULL. Collective
 * through mpi when generate.top_n is set (budget.h). */
CR_WUR enum cr_err generate_run(struct job *j, int seg, int ver, int64_t now,
				const struct seedcap *cap, const struct seedcap_comm *mpi,
				uint64_t *counters);

#endif

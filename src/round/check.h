/*
 * check.h - `mpicrawl check`: fsck for a crawl directory.
 *
 * Reads every committed file whole: the current CrawlDb version's parts
 * (record checksums), seen-sets (their checksums), near-duplicate stores;
 * each segment's fetch lists, fetch outcomes and parse data as far as its
 * phases went; every WARC file a fetch outcome names, and the response
 * record at the offset the outcome names, and at the offset each CDXJ line
 * names; the manifests (_SUCCESS, _FROM, CURRENT) and that they agree; the
 * latest robots cache; the seeds; the ranks (rank/part-*.zst). Every
 * problem is one line on stderr. Only committed files are read (a
 * segment's folders once their phase is marked, no temporaries:
 * round/live.h), so a check while a job runs finds no damage in what the
 * job is writing.
 *
 * With repair, what can be done safely is done and said:
 * - a missing or damaged crawldb/CURRENT names the newest whole CrawlDb
 *   version again; a damaged WARC file keeps its whole records (the file
 *   set aside), a missing one is dropped from the fetch outcomes and the
 *   index, and the URLs whose captures were lost are due again in a new
 *   CrawlDb version (round/repair.h);
 * - a damaged or missing seen-set is rebuilt from its CrawlDb part;
 * - a damaged near-duplicate store drops the version's stores (the crawl
 *   goes on; near-duplicates of earlier pages are no longer recognised);
 * - a damaged CrawlDb part goes back to the version before it when that
 *   one is whole and no later segment was generated from the damaged one:
 *   the update that made it is redone by the next crawl;
 * - a damaged robots cache is removed (robots.txt is asked again);
 * - a damaged rank part is removed (its URLs go by cash until the next
 *   `mpicrawl rank` writes it again);
 * - a journal left beside a committed fetch, and temporary files, are
 *   removed.
 * What cannot be repaired (a damaged fetch outcome of a fetched segment, a
 * damaged WARC file while a round is under way) is named with what to do.
 *
 * One process (rank 0); nothing is collective.
 */
#ifndef CR_ROUND_CHECK_H
#define CR_ROUND_CHECK_H

#include <stdint.h>

#include "config/config.h"
#include "crawldb/layout.h"
#include "util/error.h"

struct check_report {
	uint64_t files;        /* files read */
	uint64_t records;      /* WARC records looked up */
	uint64_t problems;     /* found */
	uint64_t repaired;     /* of them, repaired */
};

/* How check_run reads the directory. */
enum check_mode {
	CHECK_READ,       /* report problems only */
	CHECK_LIVE,       /* the same while a job runs (round/live.h): what the job is
			   * about to remove as it commits - a journal beside the fetch
			   * it has just marked, a CrawlDb version two commits old - is
			   * no problem */
	CHECK_REPAIR,     /* report and repair; the caller holds the lock */
};

/* Checks (and with CHECK_REPAIR, repairs) the crawl directory d. It reads
 * committed files alone (round/live.h), whether or not a job runs. */
CR_WUR enum cr_err check_run(const struct crawl_dir *d, const struct config *cfg,
			     enum check_mode mode, struct check_report *r);

#endif

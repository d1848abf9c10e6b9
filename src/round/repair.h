/*
 * repair.h - what `mpicrawl check --repair` does about a crawl directory
 * that lost part of itself (round/check.h finds it):
 *
 * - crawldb/CURRENT missing or damaged: it names again the newest CrawlDb
 *   version that is complete (its _FROM written, every part whole), as the
 *   commit that made it would have;
 * - a WARC file damaged (a gzip member or zstd frame that does not decode):
 *   its good records are copied, in order, into a file of the same name,
 *   and the damaged file is set aside in segments/N/damaged/; the fetch
 *   outcomes naming its records get their new offsets;
 * - a WARC file gone: the fetch outcomes naming it, and those naming a
 *   damaged record, name no WARC record any more;
 * - the URLs whose latest capture was lost so are due again: a new CrawlDb
 *   version (_FROM "repair") has them unfetched, due now, without the
 *   ETag, Last-Modified and digest of the capture that is gone (the next
 *   fetch brings a whole response, not a 304 or a revisit);
 * - an indexed segment so mended is indexed again (CDXJ, text, links; the
 *   outputs of the WARC files that are gone go: index.h).
 *
 * One process, holding the directory's lock; nothing is collective.
 */
#ifndef CR_ROUND_REPAIR_H
#define CR_ROUND_REPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "crawldb/crawl_record.h"
#include "crawldb/layout.h"
#include "util/error.h"

/* A CrawlDb version on disk: its number, and whether it is complete (its
 * _FROM is there and every part reads whole). */
struct repair_version {
	int version;
	int complete;
};

/* The version CURRENT names again: the newest complete one; 0 if none.
 * Pure. */
int repair_pick_version(const struct repair_version *v, size_t n);

/* If CrawlDb record r is of the capture made at captured_at (µs: its
 * fetched_at), which was lost from the archive: r becomes unfetched and
 * due at now_us, without what told the lost copy (digest, text digest,
 * ETag, Last-Modified, fetch time), and 1 is returned. 0, r untouched,
 * when r is of another (a later) fetch. Pure. */
int repair_forget_capture(struct crawl_record *r, int64_t captured_at, int64_t now_us);

/* A record of a WARC file copied without its damaged ones: where it was,
 * where it is now. */
struct repair_move {
	uint64_t from, to;
};

/* The new offset of the record that was at offset from, in moves[0..n)
 * (sorted by from): 1 and *to, or 0 when that record was lost. Pure. */
int repair_moved(const struct repair_move *moves, size_t n, uint64_t from, uint64_t *to);

/* What a repair did, for check's lines. */
struct repair_said {
	uint64_t salvaged;     /* WARC files rewritten without damaged records */
	uint64_t kept;         /* records they kept */
	uint64_t gone;         /* WARC files missing that outcomes named */
	uint64_t lost;         /* fetch outcomes whose WARC record is lost */
	uint64_t due;          /* of their URLs, set due again in the CrawlDb */
	int version;           /* the CrawlDb version written (0: none) */
};

/* Rewrites crawldb/CURRENT to the newest complete version (*version);
 * CR_ERR_STATE when no version is complete. */
CR_WUR enum cr_err repair_current(const struct crawl_dir *d, int *version);

/*
 * Mends the archive of every fetched segment (damaged WARC files salvaged,
 * outcomes of lost records cleared), sets the URLs whose captures were lost
 * due again in a new CrawlDb version, and indexes again the segments it
 * changed that were indexed (with cfg: the crawl's newest provenance
 * configuration, else the defaults). CR_ERR_STATE, nothing changed, when
 * a round is under way (its update would find the CrawlDb moved on): the
 * crawl finishes it first. Adds to *said.
 */
CR_WUR enum cr_err repair_archive(const struct crawl_dir *d, int64_t now_us,
				  struct repair_said *said);

#endif

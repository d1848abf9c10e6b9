/*
 * seen.h - the seen-set of a CrawlDb version, one Bloom filter per
 * partition, written next to the partition's records and committed with
 * them (layout_seen_part). The filter of a version holds exactly the URLs of
 * that version: it is rebuilt by each merge from the URLs it writes, sized
 * for max(seen.expected_urls / partitions, URLs written) at seen.fp_rate.
 *
 * A damaged filter is rebuilt from the part it derives from (seen_load
 * says so); a missing one is never fatal: the update then routes every link
 * to the sort as if the filter were empty.
 */
#ifndef CR_SEEN_SEEN_H
#define CR_SEEN_SEEN_H

#include <stdint.h>

#include "config/config.h"
#include "crawldb/layout.h"
#include "seen/bloom.h"
#include "util/buf.h"
#include "util/error.h"

/* Loads the filter of partition p of CrawlDb version ver, rebuilding a
 * damaged one first. Returns 1 when loaded, 0 when there is none to use. */
int seen_load(const struct crawl_dir *d, const struct config *cfg, int ver, uint32_t p,
	      struct bloom *out);
/* Writes the filter of partition p of version ver anew from its CrawlDb
 * part. */
CR_WUR enum cr_err seen_rebuild(const struct crawl_dir *d, const struct config *cfg, int ver,
				uint32_t p);

/* Builds and writes the filter of partition p of version ver from its
 * CrawlDb part, which holds n URLs (read as it is streamed: memory is the
 * filter's alone, whatever the part's size). */
CR_WUR enum cr_err seen_build(const struct crawl_dir *d, const struct config *cfg, int ver,
			      uint32_t p, uint64_t n);

/* Appends the 16-byte key hash of url to hashes (bloom_hash). */
void seen_note(struct buf *hashes, const char *url, size_t len);

/* Builds and writes the filter of partition p of version ver from the key
 * hashes collected with seen_note. */
CR_WUR enum cr_err seen_write(const struct crawl_dir *d, const struct config *cfg, int ver,
			      uint32_t p, const struct buf *hashes);

#endif

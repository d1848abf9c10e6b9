/*
 * layout.h - names in the crawl directory and its small state files.
 *
 *   crawl.meta                        format, partition count and key, creation config
 *   crawldb/CURRENT                   number of the committed CrawlDb version
 *   crawldb/NNNNN/part-PPPPP.zst      CrawlDb records of partition PPPPP
 *   crawldb/NNNNN/seen-PPPPP.bloom    its seen-set (seen/bloom.h)
 *   robots/NNNNN/part-PPPPP.zst       robots.txt cache (version = segment that wrote it)
 *   segments/NNNNN/<kind>/part-PPPPP.zst   fetchlist, fetch, parse
 *   segments/NNNNN/warc/              WARC files (.warc.gz)
 *   segments/NNNNN/_SUCCESS.<phase>   a phase of the round is complete
 *
 * Partitions, not ranks, own data: partition = XXH3(host or registrable
 * domain) % P, and rank r of n owns the partitions p with p % n == r.
 */
#ifndef CR_CRAWLDB_LAYOUT_H
#define CR_CRAWLDB_LAYOUT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "util/error.h"

#define LAYOUT_FORMAT 1
#define LAYOUT_ROOT_MAX (PATH_MAX - 256)

struct crawl_dir {
	char root[LAYOUT_ROOT_MAX];
	uint32_t partitions;
	int partition_by;
};

/*
 * Reads DIR/crawl.meta into d and sets cfg's partition keys from it; a
 * config that asks for a different partition count is an error. If the
 * directory has no crawl.meta and create is set, d is filled from cfg (the
 * caller writes the meta with layout_write_meta on one rank).
 */
CR_WUR enum cr_err layout_open(const char *root, struct config *cfg, int create,
			       struct crawl_dir *d);
CR_WUR enum cr_err layout_write_meta(const struct crawl_dir *d, const struct config *cfg);

/* Partition of a canonical URL. */
uint32_t layout_partition(const struct crawl_dir *d, const char *url, size_t len);
/* 1 if rank owns partition p. */
int layout_owns(uint32_t p, int rank, int nranks);

/* The committed CrawlDb version (0: none yet). */
CR_WUR enum cr_err layout_crawldb_current(const struct crawl_dir *d, int *version);
CR_WUR enum cr_err layout_crawldb_commit(const struct crawl_dir *d, int version);
void layout_crawldb_dir(const struct crawl_dir *d, int version, char *out, size_t cap);
void layout_crawldb_part(const struct crawl_dir *d, int version, uint32_t p,
			 char *out, size_t cap);

/* crawldb/NNNNN/seen-PPPPP.bloom */
void layout_seen_part(const struct crawl_dir *d, int version, uint32_t p,
		      char *out, size_t cap);

/* The highest segment number present (0: none). */
int layout_segment_last(const struct crawl_dir *d);
void layout_segment_dir(const struct crawl_dir *d, int seg, char *out, size_t cap);
/* segments/NNNNN/<kind>/part-PPPPP.zst */
void layout_segment_part(const struct crawl_dir *d, int seg, const char *kind,
			 uint32_t p, char *out, size_t cap);
int layout_phase_done(const struct crawl_dir *d, int seg, const char *phase);
CR_WUR enum cr_err layout_phase_mark(const struct crawl_dir *d, int seg,
				     const char *phase, const char *json);

/* The latest robots cache version (a segment number, 0: none). */
int layout_robots_last(const struct crawl_dir *d);
void layout_robots_part(const struct crawl_dir *d, int version, uint32_t p,
			char *out, size_t cap);

#endif

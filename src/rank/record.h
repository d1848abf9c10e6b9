/*
 * record.h - one URL's ranks, as mpicrawl rank writes them
 * (rank/part-PPPPP.zst, record kind 11, sorted by URL) and generate reads
 * them: packed as crawldb/crawl_record.h packs, a version byte first.
 */
#ifndef CR_RANK_RECORD_H
#define CR_RANK_RECORD_H

#include <stddef.h>

#include "crawldb/layout.h"
#include "util/buf.h"
#include "util/error.h"

/* One record of rank/part-PPPPP.zst. */
struct rank_record {
	const char *url;       /* borrowed from the packed bytes */
	size_t url_len;
	double page;           /* PageRank x URLs of the graph (mean 1) */
	double host;           /* its host's PageRank x hosts (mean 1) */
	double harmonic;       /* its host's harmonic centrality / (hosts - 1) */
};

void rank_record_pack(const struct rank_record *r, struct buf *out);
CR_WUR enum cr_err rank_record_unpack(const void *p, size_t n, struct rank_record *r);

/* The path of partition p's ranks. */
void rank_part_path(const struct crawl_dir *d, uint32_t p, char *out, size_t cap);

#endif

/*
 * layout.h - names in the crawl directory and its small state files.
 *
 *   crawl.meta                        format, partition count and key, warc.prefix, creation config
 *   lock                              the job's lock (util/lock.h)
 *   metrics.prom                      the job's state for Prometheus (status/metrics.h)
 *   crawldb/CURRENT                   number of the committed CrawlDb version
 *   crawldb/NNNNN/part-PPPPP.zst      CrawlDb records of partition PPPPP
 *   crawldb/NNNNN/seen-PPPPP.bloom    its seen-set (seen/bloom.h)
 *   crawldb/NNNNN/lsh-PPPPP.SSSSS.zst a run of the near-duplicate band index (dedup/runs.h)
 *   crawldb/NNNNN/sig-PPPPP.SSSSS.zst a run of the MinHash signatures (dedup/runs.h)
 *   crawldb/NNNNN/lsh-PPPPP.runs      the runs of a store, oldest first (also sig-)
 *   crawldb/NNNNN/lsh-PPPPP.zst       a store as one file, as crawls before runs wrote it
 *   crawldb/NNNNN/_FROM               what made the version: "inject", "segment N", "repair"
 *   segments/NNNNN/damaged/           WARC files check --repair set aside (round/repair.h)
 *   robots/NNNNN/part-PPPPP.zst       robots.txt cache (version = segment that wrote it)
 *   seeds/NNNNN.zst                   the seeds of the inject that made CrawlDb version NNNNN
 *   segments/NNNNN/<kind>/part-PPPPP.zst   fetchlist, fetch, parse
 *   segments/NNNNN/fetch/part-PPPPP.journal   an unfinished fetch's journal
 *   segments/NNNNN/fetch/marks-rRRRR-aK.journal   ... and how far rank RRRR's
 *                                     WARC files were durable
 *   segments/NNNNN/warc/              WARC files (.warc.gz)
 *   segments/NNNNN/cdxj/ text/ links/ the index step's outputs (index/index.h)
 *   segments/NNNNN/progress/rRRRR     live progress of rank RRRR (status/progfile.h)
 *   segments/NNNNN/_SUCCESS.<phase>   a phase of the round is complete
 *   segments/NNNNN/stats.json         every phase's counters
 *   tmp/rRRRR/                        scratch of rank RRRR (sort runs), when no
 *                                     node-local one is named (job.h)
 *   report.html                       `mpicrawl report`
 *
 * The per-partition files of segments/ and robots/ (NAME-PPPPP.zst, the
 * decision logs) are gathered per rank into packs at their phase's end
 * (store/pack.h): a path here names a file that may live in a pack, and
 * recfile.h's reader finds it there.
 *
 * Every path of the crawl directory is spelled here and nowhere else.
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

/* What WARC file names of the crawl begin with (warc.prefix), at most. */
#define LAYOUT_PREFIX_MAX 72
/* The highest segment number (five digits in names). */
#define LAYOUT_SEGMENT_MAX 99999

struct crawl_dir {
	char root[LAYOUT_ROOT_MAX];
	uint32_t partitions;
	int partition_by;
	/* warc.prefix as crawl.meta fixes it: the config's, or made at creation
	 * (layout_make_prefix); "mpicrawl" in crawls made before the key. */
	char warc_prefix[LAYOUT_PREFIX_MAX];
};

/*
 * Reads DIR/crawl.meta into d and sets cfg's partition keys from it; a
 * config that asks for a different partition count or warc.prefix is an
 * error. If the directory has no crawl.meta and create is set, d is filled
 * from cfg, a warc.prefix made when cfg has none (the caller writes the meta
 * with layout_write_meta on one rank, and every rank opens it again: the
 * prefix made is rank 0's).
 */
CR_WUR enum cr_err layout_open(const char *root, struct config *cfg, int create,
			       struct crawl_dir *d);
CR_WUR enum cr_err layout_write_meta(const struct crawl_dir *d, const struct config *cfg);

/* A warc.prefix unique to a crawl, as IIPC's file naming recommends a
 * prefix and a timestamp: "mpicrawl-YYYYMMDDhhmmss-XXXXXX", the time now_us
 * (UTC) and six random hex digits, into out. */
void layout_make_prefix(int64_t now_us, char *out, size_t cap);

/* Paths at the top of the crawl directory root: crawl.meta, lock,
 * report.html, metrics.prom, and the folders crawldb, segments, robots and
 * tmp. name is one of those. */
void layout_top(const char *root, const char *name, char *out, size_t cap);

/* Partition of a canonical URL. */
uint32_t layout_partition(const struct crawl_dir *d, const char *url, size_t len);
/* The rank of nranks that owns partition p. */
int layout_owner(uint32_t p, int nranks);
/* 1 if rank owns partition p. */
int layout_owns(uint32_t p, int rank, int nranks);

/* The committed CrawlDb version (0: none yet). */
CR_WUR enum cr_err layout_crawldb_current(const struct crawl_dir *d, int *version);
CR_WUR enum cr_err layout_crawldb_commit(const struct crawl_dir *d, int version);
void layout_crawldb_dir(const struct crawl_dir *d, int version, char *out, size_t cap);
void layout_crawldb_part(const struct crawl_dir *d, int version, uint32_t p,
			 char *out, size_t cap);
/* crawldb/NNNNN/NAME (_FROM) */
void layout_crawldb_file(const struct crawl_dir *d, int version, const char *name,
			 char *out, size_t cap);
/* KIND-PPPPP: what the name of every file of a dedup store (kind "lsh" or
 * "sig") of partition p begins with, followed by a dot. */
void layout_crawldb_store_stem(const char *kind, uint32_t p, char *out, size_t cap);
/* crawldb/NNNNN/KIND-PPPPP.zst: a dedup store as one file (before runs) */
void layout_crawldb_store(const struct crawl_dir *d, int version, const char *kind,
			  uint32_t p, char *out, size_t cap);
/* crawldb/NNNNN/KIND-PPPPP.SSSSS.zst: the run of a dedup store numbered seg */
void layout_crawldb_run(const struct crawl_dir *d, int version, const char *kind,
			uint32_t p, uint32_t seg, char *out, size_t cap);
/* crawldb/NNNNN/KIND-PPPPP.runs: the manifest of a dedup store's runs */
void layout_crawldb_runs(const struct crawl_dir *d, int version, const char *kind,
			 uint32_t p, char *out, size_t cap);

/* crawldb/NNNNN/seen-PPPPP.bloom */
void layout_seen_part(const struct crawl_dir *d, int version, uint32_t p,
		      char *out, size_t cap);

/* The highest segment number present (0: none). */
int layout_segment_last(const struct crawl_dir *d);
void layout_segment_dir(const struct crawl_dir *d, int seg, char *out, size_t cap);
/* segments/NNNNN/<kind>/part-PPPPP.zst */
void layout_segment_part(const struct crawl_dir *d, int seg, const char *kind,
			 uint32_t p, char *out, size_t cap);
/* segments/NNNNN/NAME: a folder (fetch, warc, cdxj, ...) or a file
 * (stats.json, _SUCCESS.<phase>) of the segment. */
void layout_segment_sub(const struct crawl_dir *d, int seg, const char *name,
			char *out, size_t cap);
/* segments/NNNNN/SUB/NAME: a file in one of the segment's folders, named by
 * the module that writes it (a WARC file, a CDXJ file, a text file). */
void layout_segment_file(const struct crawl_dir *d, int seg, const char *sub,
			 const char *name, char *out, size_t cap);
/* segments/NNNNN/fetch/part-PPPPP.journal */
void layout_journal(const struct crawl_dir *d, int seg, uint32_t p, char *out, size_t cap);
/*
 * WARC file names of segment seg (segments/NNNNN/warc/): what a rank's
 * series writer names its files with, PREFIX-NNNNN-rRRRR (and -aK for the
 * K-th resumed attempt of the fetch), the writer adding -SSSSS-HOST-SERIES
 * and the extension. Crawls before rank files named them per partition,
 * PREFIX-NNNNN-PPPPP (-rK), read alike.
 */
void layout_warc_prefix(const struct crawl_dir *d, int seg, int rank, int attempt,
			char *out, size_t cap);
/* An older crawl's names of partition p's files, PREFIX-NNNNN-PPPPP: what
 * its WARC and staged files begin with (then -rK, or -SSSSS-HOST...). */
void layout_warc_part_prefix(const struct crawl_dir *d, int seg, uint32_t p, char *out,
			     size_t cap);
/* What a WARC file name of segment seg says: 1 with *unit its rank
 * (*by_rank 1) or, in an older crawl's name, its partition (*by_rank 0),
 * and *attempt; 0 when it is no such name. */
int layout_warc_unit(const struct crawl_dir *d, const char *name, int seg, uint32_t *unit,
		     int *by_rank, int *attempt);
/* segments/NNNNN/fetch/marks-rRRRR-aK.journal: how far rank RRRR's WARC
 * files of attempt K were durable when its journals last were
 * (fetch/journal.h). */
void layout_warc_marks(const struct crawl_dir *d, int seg, int rank, int attempt,
		       char *out, size_t cap);
/* segments/NNNNN/progress/rRRRR */
void layout_progress(const struct crawl_dir *d, int seg, int rank, char *out, size_t cap);
int layout_phase_done(const struct crawl_dir *d, int seg, const char *phase);
CR_WUR enum cr_err layout_phase_mark(const struct crawl_dir *d, int seg,
				     const char *phase, const char *json);

/* The latest robots cache version (a segment number, 0: none). */
int layout_robots_last(const struct crawl_dir *d);
void layout_robots_part(const struct crawl_dir *d, int version, uint32_t p,
			char *out, size_t cap);
void layout_robots_dir(const struct crawl_dir *d, int version, char *out, size_t cap);
/* robots/NNNNN/early-PPPPP.zst: robots.txt files asked before their hosts'
 * round (fetch/origins.h), which only the fetcher reads. */
void layout_robots_early(const struct crawl_dir *d, int version, uint32_t p,
			 char *out, size_t cap);

/* seeds/NNNNN.zst; version 0 gives the folder. */
void layout_seeds(const struct crawl_dir *d, int version, char *out, size_t cap);

/* tmp/rRRRR: a rank's scratch. */
void layout_tmp(const struct crawl_dir *d, int rank, char *out, size_t cap);

#endif

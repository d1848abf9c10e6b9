/*
 * runs.h - a near-duplicate store as a list of sorted runs (an LSM shape).
 *
 * Each partition has two stores (dedup.h): the band index "lsh" and the
 * signature store "sig". A store of CrawlDb version V is a list of runs,
 * oldest first, each a record file of sorted records:
 *
 *   crawldb/V/KIND-PPPPP.SSSSS.zst   a run: what segments up to SSSSS added
 *                                    (after the run before it in the list)
 *   crawldb/V/KIND-PPPPP.runs        its manifest: the runs, oldest first
 *
 * An update does not rewrite the store: version V+1 gets the runs of V as
 * hard links (never edited) plus one new run of the round's entries, named
 * by the round's segment. Runs are numbered by the newest segment they hold,
 * so the numbers rise along the list and a run's name says its age.
 *
 * Readers merge the runs with one cursor each (dedup_merge): in the order
 * of the records' keys; for the band index every entry of every run (equal
 * keys oldest run first), for the signature store the newest run's records
 * of a URL hash only (a page fetched again shadows its older signature).
 * The merged stream is the single sorted file the store used to be.
 *
 * Compaction (dedup_runs_plan, pure): after the round's run is added, the
 * oldest run that is no larger (in bytes) than all newer runs together is
 * merged with all of them into one; then more of the newest runs are merged
 * while more than dedup.max_runs (DEDUP_RUNS_MAX, 8) remain. Each run is then larger than every
 * newer run together (unless the cap merged), so a store of N bytes whose
 * newest run has n bytes has at most min(max_runs, 1 + log2(N / n))
 * runs: a reader opens at most that many files per store (its read
 * amplification). Rounds of equal size make a binary counter: a record is
 * written again about log2(rounds) times in all (its write amplification),
 * where a rewrite per round wrote it once per round. The merged run is
 * written into the new version under the round's number; the committed
 * version's files are never touched.
 *
 * A store written before runs existed (crawldb/V/KIND-PPPPP.zst, no
 * manifest) reads as one run numbered 0; the next update links it into the
 * new version as KIND-PPPPP.00000.zst. No manifest and no such file: the
 * store is empty.
 *
 * Nothing here is collective; each rank works on the partitions it owns.
 */
#ifndef CR_DEDUP_RUNS_H
#define CR_DEDUP_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/layout.h"
#include "util/error.h"

/* The stores of a partition, as dedup_store_kinds[] names them. */
enum dedup_store { DEDUP_LSH = 0, DEDUP_SIG = 1, DEDUP_STORES };
extern const char *const dedup_store_kinds[DEDUP_STORES];

/* The default of dedup.max_runs: the most runs a store keeps after an
 * update (the bound on files a reader opens per store). */
#define DEDUP_RUNS_MAX 8
/* The most runs a manifest may list (a longer one is damaged); more than
 * dedup.max_runs can take. */
#define DEDUP_RUNS_CAP 64

struct dedup_run {
	uint32_t seg;       /* the newest segment it holds; 0: from before runs */
	uint64_t bytes;     /* its file's size */
	int legacy;         /* it is the single file KIND-PPPPP.zst */
};

struct dedup_runs {
	size_t n;
	struct dedup_run r[DEDUP_RUNS_CAP];
};

/*
 * How many of the newest of n runs (sizes in bytes, oldest first) to merge
 * into one: 1 means none (0 for no runs). Pure. The rule is the header's:
 * from the oldest run no larger than the sum of the newer ones, then more
 * until at most max_runs remain.
 */
size_t dedup_runs_plan(const uint64_t *bytes, size_t n, size_t max_runs);

/* A manifest's record (n bytes at p) as a run. CR_OK or CR_ERR_FORMAT. */
CR_WUR enum cr_err dedup_runs_unpack(const void *p, size_t n, struct dedup_run *out);

/* The runs of store k of partition p in version ver: its manifest, else the
 * single file of before, else none. CR_ERR_FORMAT for a damaged manifest
 * (not logged: *out untouched). */
CR_WUR enum cr_err dedup_runs_load(const struct crawl_dir *d, int ver, enum dedup_store k,
				   uint32_t p, struct dedup_runs *out);
/* The file of run r of that store. */
void dedup_runs_path(const struct crawl_dir *d, int ver, enum dedup_store k, uint32_t p,
		     const struct dedup_run *r, char *out, size_t cap);

/*
 * A look at every file of the store: the manifest reads, each run it names
 * is there with the size it names, and (whole) reads whole in order, or
 * (not whole) passes recfile_probe. CR_OK, or the first problem: path gets
 * the file, *why says what (a constant string). files counts what was
 * looked at (may be NULL). Logs nothing.
 */
CR_WUR enum cr_err dedup_runs_check(const struct crawl_dir *d, int ver, enum dedup_store k,
				    uint32_t p, int whole, char *path, size_t cap,
				    const char **why, uint64_t *files);

/*
 * Version ver + 1 of the store from version ver: the round's run, if
 * update wrote one (dedup_runs_path of run { seg } in ver + 1), joins the
 * runs of ver (old, as loaded); the newest runs are merged when
 * dedup_runs_plan (with max_runs) says so; the others are linked from ver;
 * the manifest is written. *written adds the bytes of the round's run and
 * of a merged one.
 */
CR_WUR enum cr_err dedup_runs_next(const struct crawl_dir *d, int ver, enum dedup_store k,
				   uint32_t p, const struct dedup_runs *old, uint32_t seg,
				   size_t max_runs, uint64_t *written);

/* Every file of store k of partition p in version from (runs, manifest, or
 * the single file of before) linked into version to. */
CR_WUR enum cr_err dedup_runs_carry(const struct crawl_dir *d, int from, int to,
				    enum dedup_store k, uint32_t p);
/* Removes every file of store k of partition p in version ver; 0 if all
 * went (a file that cannot be removed is logged). */
int dedup_runs_remove(const struct crawl_dir *d, int ver, enum dedup_store k, uint32_t p);

/* ---- the merged reader ---- */

struct dedup_merge;

/*
 * Opens a cursor on each of n record files (paths[0] oldest), each sorted
 * bytewise, and merges them by their records' first keylen bytes. shadow:
 * of records whose keys are equal, only those of the newest file holding
 * the key are yielded; else all, oldest file first. Copies paths.
 */
CR_WUR enum cr_err dedup_merge_open(const char *const *paths, size_t n, size_t keylen,
				    int shadow, struct dedup_merge **out);
/* The merged runs of store k of partition p in version ver (as loaded), in
 * the store's order (band entries all; signatures newest first). */
CR_WUR enum cr_err dedup_merge_store(const struct crawl_dir *d, int ver, enum dedup_store k,
				     uint32_t p, const struct dedup_runs *rs,
				     struct dedup_merge **out);
/* The next record, borrowed until the next call; *run (may be NULL) gets
 * the index of its file. CR_OK, CR_EOF, CR_ERR_FORMAT (a damaged file or a
 * record out of order or shorter than the key: logged with the file's name). */
CR_WUR enum cr_err dedup_merge_next(struct dedup_merge *m, const void **data, size_t *n,
				    size_t *run);
/* Accepts NULL. */
void dedup_merge_free(struct dedup_merge **m);

#endif

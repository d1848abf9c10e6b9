/*
 * decisions.h - the decision log: every URL a phase chose not to fetch or
 * not to store, with its reason and the page it came from, so that a crawl
 * can account for each link it found (as Heritrix's crawl.log and Nutch's
 * filter logs do).
 *
 *   segments/NNNNN/decisions/PHASE-PPPPP.jsonl.zst
 *
 * One file per phase and partition (partitions, not ranks, own data: a
 * phase re-run on another rank count rewrites the same names). Each is a
 * zstd stream (with its content checksum) of JSON lines:
 *
 *   {"url":"http://b.test/x","reason":"scope:mode","from":"http://a.test/"}
 *
 * A reason is one word, optionally refined after a colon: scope:mode,
 * scope:rules, scope:limit, depth, trap:path, trap:query, trap:host,
 * trap:redirects, ... (docs/SCOPE.md lists them). "from" is "" for a seed.
 *
 * Lifecycle: decisions_open -> decisions_add* -> decisions_commit (fsync,
 * rename into place) or decisions_abort (the temporary file removed). A
 * writer owns its buffers and file.
 */
#ifndef CR_SCOPE_DECISIONS_H
#define CR_SCOPE_DECISIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "crawldb/layout.h"
#include "util/error.h"

struct decisions;

CR_WUR enum cr_err decisions_open(const struct crawl_dir *d, int seg, const char *phase,
				  uint32_t p, int level, struct decisions **out);
CR_WUR enum cr_err decisions_add(struct decisions *w, const char *reason, const char *url,
				 size_t len, const char *from, size_t from_len);
uint64_t decisions_count(const struct decisions *w);
CR_WUR enum cr_err decisions_commit(struct decisions **w);
void decisions_abort(struct decisions **w);

/* A writer for each partition of d this rank owns (NULL for the others):
 * an array of d->partitions writers, the phase's whole log. */
CR_WUR enum cr_err decisions_open_owned(const struct crawl_dir *d, int seg, const char *phase,
					int rank, int nranks, int level,
					struct decisions ***out);
/* Commits (or aborts) and frees each writer of such an array, then the
 * array; *ws becomes NULL. Accepts NULL. */
CR_WUR enum cr_err decisions_commit_owned(const struct crawl_dir *d, struct decisions ***ws);
void decisions_abort_owned(const struct crawl_dir *d, struct decisions ***ws);

/* A crawl that ends with nothing due leaves no segment, yet its last
 * generate held URLs back (per-seed-limit): its decision files of segment
 * from move to segment to (the last one) as held-PPPPP.jsonl.zst, replacing
 * those of an earlier end there. Returns how many files moved; a file that
 * cannot be moved is logged. */
size_t decisions_keep_held(const struct crawl_dir *d, int from, int to);

/* Calls fn for each line of segment seg's PHASE-PPPPP file (without its
 * newline); none when there is no such file. A damaged file is logged and
 * CR_ERR_FORMAT. */
typedef void (*decisions_line_fn)(void *arg, const char *line, size_t n);
CR_WUR enum cr_err decisions_scan(const struct crawl_dir *d, int seg, const char *phase,
				  uint32_t p, decisions_line_fn fn, void *arg);

/* Writes every line of the segment's decision log to out, files in name
 * order: those whose names begin with one of kinds (NULL-terminated:
 * "generate-", "update-", "held-"; NULL: all) - the logs of the phases
 * committed (round/live.h). A damaged file is an error naming it
 * (CR_ERR_FORMAT). */
CR_WUR enum cr_err decisions_print(const struct crawl_dir *d, int seg,
				   const char *const *kinds, FILE *out,
				   uint64_t *lines);

#endif

/*
 * xsort.h - an external merge sort of byte records under a memory budget.
 *
 * Records are gathered in memory until the budget is reached, sorted and
 * spilled to a run file (a record file in tmpdir); at the end the runs are
 * merged with a heap. Memory stays within the budget whatever the input size,
 * which is how inject, generate and update stay flat in memory as the CrawlDb
 * grows. The order is stable for equal keys within one run only: callers that
 * need a total order put a tie-breaker in the record.
 *
 * The merge holds one reader per run open (about 512 KiB each): when there
 * are more runs than its budget holds, the oldest are merged into longer
 * runs first, as many at a time as the budget holds (at least 8), so that
 * the memory of the final merge does not grow with the input either; each
 * such pass rewrites the data once (n log n in all).
 */
#ifndef CR_STORE_XSORT_H
#define CR_STORE_XSORT_H

#include <stddef.h>

#include "util/error.h"

typedef int (*xsort_cmp_fn)(const void *a, size_t an, const void *b, size_t bn);

struct xsort;

/* tmpdir: an existing directory for run files (removed by xsort_free). */
CR_WUR enum cr_err xsort_new(const char *tmpdir, size_t budget_bytes,
			     xsort_cmp_fn cmp, struct xsort **out);
/* Adds a record (copied). */
CR_WUR enum cr_err xsort_add(struct xsort *x, const void *data, size_t n);
/* Ends input; afterwards xsort_next yields records in order. The merge
 * keeps within the sort's budget. */
CR_WUR enum cr_err xsort_finish(struct xsort *x);
/* The same, the merge within merge_bytes instead: for a sort whose budget
 * was a share while many filled at once, merged one at a time. */
CR_WUR enum cr_err xsort_finish_within(struct xsort *x, size_t merge_bytes);
/* Next record, borrowed until the next call; CR_EOF at the end. */
CR_WUR enum cr_err xsort_next(struct xsort *x, const void **data, size_t *n);
/* Number of runs spilled to disk so far (for stats and tests). */
size_t xsort_runs(const struct xsort *x);
/* Runs made by merging runs before the final merge (0: one pass). */
size_t xsort_merges(const struct xsort *x);
void xsort_free(struct xsort **x);

#endif

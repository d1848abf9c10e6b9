/*
 * rescope.h - the links a scope refused, judged again when the
 * configuration changes (issue: "following the crawler's own hint").
 *
 * A link the scope refuses is not stored: the decision log keeps it
 * (scope:mode, scope:rules, scope:limit) with the page it was found on.
 * When a job's configuration differs from the one before (job.h
 * config_since_us), its first generate reads those lines of every earlier
 * segment of the partition (decisions/update-PPPPP names pages of PPPPP)
 * and makes each such page due again: fetched afresh, its links are
 * judged by the scope in force now. A page fetched since the change is
 * not (generate_rescoped), so the pass costs one refetch a page, once.
 *
 * Lifecycle: rescope_load fills a set the caller owns (hmap_release).
 */
#ifndef CR_GENERATE_RESCOPE_H
#define CR_GENERATE_RESCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "util/error.h"
#include "util/hmap.h"

/* Pure: 1 if the decision line is a scope refusal with a page it was found
 * on, that page into from (cap bytes). */
int rescope_refused_from(const char *line, size_t n, char *from, size_t cap);

/* The pages of partition p whose links a scope refused, in segments 1 to
 * last, into pages (keys: the page URLs). A damaged decision log is
 * logged and skipped: the pass only saves refused links. */
CR_WUR enum cr_err rescope_load(const struct job *j, int last, uint32_t p, struct hmap *pages);

#endif

/*
 * parse.h - the parse phase: for each fetched HTML page of the segment, read
 * the response back from its WARC file and extract links, title and text
 * digest (html.h); a redirect contributes its target as a link. Output:
 * segments/N/parse/part-P.zst. Re-running it on a segment needs no fetch.
 * Not collective itself; each rank handles its own partitions.
 */
#ifndef CR_PARSE_PARSE_H
#define CR_PARSE_PARSE_H

#include <stdint.h>

#include "crawldb/job.h"
#include "util/error.h"

enum parse_counter {
	PC_PAGES,        /* HTML pages parsed */
	PC_FAILED,       /* pages that could not be read back or parsed */
	PC_SKIPPED,      /* fetched, not HTML */
	PC_REDIRECTS,
	PC_LINKS,        /* outlinks kept */
	PC_DROPPED,      /* invalid, non-http(s), over the cap */
	PC_NOFOLLOW,
	PC_COUNT_
};

extern const char *const parse_counter_names[PC_COUNT_];

CR_WUR enum cr_err parse_run(struct job *j, int seg, uint64_t *counters);

#endif

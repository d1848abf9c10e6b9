/*
 * trap.h - links into URL spaces without end, caught when they would enter
 * the CrawlDb. Three rules, each with its key:
 *
 *   - a path with more than trap.max_path_segments segments, or in which
 *     one segment occurs more than trap.max_segment_repeats times
 *     (/a/a/a/a/..., /x/y/x/y/x/y/...);
 *   - more than trap.max_query_variants URLs of one path that differ only
 *     in their query (ever-new session ids, sort orders, calendars by query);
 *   - more than crawl.max_urls_per_host URLs of one host (scheme and
 *     authority) in the CrawlDb.
 *
 * A new URL caught by a rule enters the CrawlDb with status trap and is never
 * fetched. Merge streams a partition sorted by URL, so the URLs of one host,
 * and those of one path with different queries, are neighbours: the state
 * below counts them as they pass. Pure, and the same on any rank count.
 */
#ifndef CR_URL_TRAP_H
#define CR_URL_TRAP_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "url/url.h"

struct trap_state {
	char host[URL_MAX_LEN + 1];   /* "scheme://authority/" of the last URL */
	size_t host_len;
	uint64_t host_count;
	char query[URL_MAX_LEN + 1];  /* the last URL up to its '?', or "" */
	size_t query_len;
	uint64_t query_count;
};

/* Zeroes the state (before a partition). */
void trap_reset(struct trap_state *s);
/* Counts a URL written to the CrawlDb (in sorted order). */
void trap_note(struct trap_state *s, const char *url, size_t len);
/* The rule a new URL breaks ("path", "query", "host"), or NULL. Call before
 * trap_note of the same URL. */
const char *trap_check(const struct trap_state *s, const char *url, size_t len,
		       const struct config *cfg);

#endif

/*
 * cache.h - the records of the robots.txt cache (robots/NNNNN/part-P.zst):
 * origin ("scheme://host[:port]"), fetch time (µs), HTTP status (0: no
 * answer) and the body as fetched (at most robots.max_bytes). The fetcher
 * reads and writes them; generate reads the Crawl-delay of each origin to
 * size fetch lists that politeness can finish.
 */
#ifndef CR_ROBOTS_CACHE_H
#define CR_ROBOTS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* When the crawler may next ask the host (µs since the epoch, 0: unknown):
 * the end of its last request, and a hold it asked for (Retry-After). They
 * carry politeness from one fetch phase to the next. */
struct robots_cache_times {
	int64_t last_end;
	int64_t hold_until;
};

void robots_cache_pack(struct buf *out, const char *origin, int64_t fetched_at,
		       int http_status, const void *body, size_t body_len,
		       const struct robots_cache_times *t);
/* origin is copied into key (NUL-terminated); body is borrowed from data;
 * t is zeroed for records written without the times. */
CR_WUR enum cr_err robots_cache_unpack(const void *data, size_t n, char *key, size_t kcap,
				       int64_t *fetched_at, int *http_status,
				       const char **body, size_t *body_len,
				       struct robots_cache_times *t);

#endif

/*
 * cache.h - the records of the robots.txt cache (robots/NNNNN/part-P.zst):
 * origin ("scheme://host[:port]"), fetch time (µs), HTTP status (0: no
 * answer) and the body as fetched (at most robots.max_bytes). The fetcher
 * reads and writes them; generate reads the Crawl-delay of each origin to
 * size fetch lists that politeness can finish, and its rules to leave out
 * (and record denied) the URLs they deny; both read it through
 * robots_cache_scan.
 */
#ifndef CR_ROBOTS_CACHE_H
#define CR_ROBOTS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* When the crawler may next ask the host (µs since the epoch, 0: unknown):
 * the end of its last request, and a hold it asked for (Retry-After). They
 * carry politeness from one fetch phase to the next. And the host's DNS
 * answer (fetch/dns.h: enum dns_result, the address when it is one) until
 * it expires (wall µs; expires 0: none kept), so that a host is resolved once per
 * TTL rather than once per phase - with when it was had (wall µs; 0: not
 * known, records written before it was kept), so that an answer had under
 * another configuration (dns.servers) is not taken. */
struct robots_cache_dns {
	int64_t expires;
	int64_t at;
	int result;
	char addr[64];
};
struct robots_cache_times {
	int64_t last_end;
	int64_t hold_until;
	struct robots_cache_dns dns;
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

/* One record of a cache file, unpacked (body borrowed from the record). */
struct robots_cache_entry {
	const void *data;         /* the packed record */
	size_t n;
	char origin[600];
	int64_t fetched_at;
	int http_status;
	const char *body;
	size_t body_len;
	struct robots_cache_times times;
};

typedef enum cr_err (*robots_cache_fn)(void *arg, const struct robots_cache_entry *e);

/*
 * Calls fn for each record of the cache file at path (none if it does not
 * exist). The cache only saves requests: a damaged file is reported and its
 * remaining entries dropped, never an error - otherwise every retry of a
 * phase would fail on it again. fn returns CR_OK to go on; another value
 * ends the scan and is returned.
 */
CR_WUR enum cr_err robots_cache_scan(const char *path, robots_cache_fn fn, void *arg);

#endif

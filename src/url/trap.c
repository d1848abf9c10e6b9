#include "url/trap.h"

#include <string.h>

void trap_reset(struct trap_state *s)
{
	s->host_len = s->query_len = 0;
	s->host_count = s->query_count = 0;
}

/* Length of "scheme://authority/" (or of the whole URL without a path). */
static size_t host_prefix(const char *url, size_t len)
{
	const char *p = memchr(url, ':', len);
	const char *slash;

	if (!p || (size_t)(p - url) + 3 > len || p[1] != '/' || p[2] != '/')
		return len;
	p += 3;
	slash = memchr(p, '/', len - (size_t)(p - url));
	return slash ? (size_t)(slash - url) + 1 : len;
}

/* Length up to and including the '?' of the query, 0 without one. */
static size_t query_prefix(const char *url, size_t len)
{
	const char *q = memchr(url, '?', len);

	return q ? (size_t)(q - url) + 1 : 0;
}

void trap_note(struct trap_state *s, const char *url, size_t len)
{
	size_t h = host_prefix(url, len), q = query_prefix(url, len);

	if (h == s->host_len && !memcmp(url, s->host, h)) {
		s->host_count++;
	} else {
		memcpy(s->host, url, h);
		s->host_len = h;
		s->host_count = 1;
	}
	if (q && q == s->query_len && !memcmp(url, s->query, q)) {
		s->query_count++;
	} else if (q) {
		memcpy(s->query, url, q);
		s->query_len = q;
		s->query_count = 1;
	}
}

/* 1 if the path has too many segments or one segment too often. */
static int path_trap(const char *path, size_t len, const struct config *cfg)
{
	const char *seg[256];
	size_t seglen[256], n = 0, i, j;

	while (len && path[0] == '/') {
		const char *end;
		size_t l;

		path++;
		len--;
		end = memchr(path, '/', len);
		l = end ? (size_t)(end - path) : len;
		if (n == sizeof(seg) / sizeof(seg[0]))
			return 1;
		seg[n] = path;
		seglen[n++] = l;
		path += l;
		len -= l;
	}
	if (cfg->trap_max_segments > 0 && n > (size_t)cfg->trap_max_segments)
		return 1;
	if (cfg->trap_max_repeats <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		size_t same = 1;

		if (!seglen[i])
			continue;
		for (j = i + 1; j < n; j++)
			same += seglen[j] == seglen[i] && !memcmp(seg[j], seg[i], seglen[i]);
		if (same > (size_t)cfg->trap_max_repeats)
			return 1;
	}
	return 0;
}

const char *trap_check(const struct trap_state *s, const char *url, size_t len,
		       const struct config *cfg)
{
	size_t h = host_prefix(url, len), q = query_prefix(url, len);
	size_t pend = q ? q - 1 : len;
	const char *hash = memchr(url, '#', len);

	if (hash && (size_t)(hash - url) < pend)
		pend = (size_t)(hash - url);
	if (h < len && h > 0 && path_trap(url + h - 1, pend - (h - 1), cfg))
		return "path";
	if (q && cfg->trap_max_query_variants > 0 && q == s->query_len &&
	    !memcmp(url, s->query, q) && s->query_count >= (uint64_t)cfg->trap_max_query_variants)
		return "query";
	if (cfg->max_urls_per_host > 0 && h == s->host_len && !memcmp(url, s->host, h) &&
	    s->host_count >= (uint64_t)cfg->max_urls_per_host)
		return "host";
	return NULL;
}

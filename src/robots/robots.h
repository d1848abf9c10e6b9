/*
 * robots.h - robots.txt (RFC 9309) for one crawler: parse a body for our
 * product token, then answer "may this path be fetched?".
 *
 * Pure: no I/O, no clock, no MPI. robots_parse keeps only what the chosen
 * groups say (their rules, their Crawl-delay) plus the file's Sitemap lines,
 * so one struct robots per host is small. A struct robots is immutable after
 * it is made; any number of threads may query it at once. The rules the
 * matcher implements, and where they differ from Google's, are written down
 * in docs/ROBOTS.md.
 */
#ifndef CR_ROBOTS_ROBOTS_H
#define CR_ROBOTS_ROBOTS_H

#include <stddef.h>

#include "util/error.h"

/* Bytes of a robots.txt body that are read; the rest is ignored (RFC 9309
 * 2.5 asks for at least 500 KiB). A line cut by the cap is dropped. */
#define ROBOTS_MAX_BYTES (500 * 1024)
/* Sitemap lines kept per file; later ones are ignored. */
#define ROBOTS_MAX_SITEMAPS 1024
/* Largest Crawl-delay reported (one day); larger values are clamped. */
#define ROBOTS_MAX_CRAWL_DELAY_MS 86400000L

struct robots;

/*
 * Parses body (any bytes, not NUL-terminated; at most ROBOTS_MAX_BYTES are
 * read) for the product token agent, matched case-insensitively against the
 * leading token of each user-agent line. All groups naming the agent are
 * merged; if none names it, all "*" groups apply, merged; if there are none
 * either, everything is allowed. Copies what it keeps: body and agent are
 * borrowed for the call only. On success *out is a new object the caller
 * frees with robots_free. CR_ERR_ARG if agent or out is NULL, or body is NULL
 * with len > 0; CR_ERR_NOMEM if the object cannot be allocated.
 */
CR_WUR enum cr_err robots_parse(const void *body, size_t len, const char *agent,
				struct robots **out);

/*
 * How percent-encoded unreserved characters (A-Z a-z 0-9 - . _ ~) compare.
 * KEPT: as written, on both sides - "%7E" and "~" differ (google/robotstxt's
 * ID_Encoding cases; what robots_parse does). DECODED: decoded on both sides
 * first, as RFC 9309 2.2.2 and its table ask ("/foo/bar/%62%61%7A" matches
 * "/foo/bar/baz"). The crawler's: its URLs are canonical (url.h decodes such
 * escapes), so a rule kept as written could never match a link the site
 * wrote the way its rule is ("Disallow: /%7Ejoe/").
 */
enum robots_escapes { ROBOTS_ESCAPES_KEPT, ROBOTS_ESCAPES_DECODED };

/* robots_parse, with the escapes compared as esc says. */
CR_WUR enum cr_err robots_parse_with(const void *body, size_t len, const char *agent,
				     enum robots_escapes esc, struct robots **out);

/* Policies without a file: everything allowed (e.g. robots.txt gave 4xx), and
 * everything but /robots.txt disallowed (e.g. 5xx, unreachable). NULL when
 * out of memory. The caller frees with robots_free. */
struct robots *robots_new_allow_all(void);
struct robots *robots_new_disallow_all(void);

/* Frees *r and sets it to NULL; r and *r may be NULL. */
void robots_free(struct robots **r);

/*
 * 1 if path_query may be fetched, 0 if not. path_query is the URL's path plus
 * ";params" and "?query", no fragment, percent-encoded as in the URL (see
 * robots_url_path), its unreserved escapes decoded first when r was parsed
 * with ROBOTS_ESCAPES_DECODED; "" counts as "/". The longest matching rule wins, Allow
 * wins a tie, no match allows; "/robots.txt" is always allowed. A NULL r
 * allows everything.
 */
int robots_allowed(const struct robots *r, const char *path_query);

/* Crawl-delay of the chosen groups in milliseconds (the largest if several
 * give one), or -1 when they give none. */
long robots_crawl_delay_ms(const struct robots *r);

/* Sitemap lines of the whole file, in file order. A returned string is
 * borrowed until robots_free; NULL when i is out of range. */
size_t robots_sitemap_count(const struct robots *r);
const char *robots_sitemap(const struct robots *r, size_t i);

/*
 * The string matched against rules, taken from a full URL: path (default
 * "/"), params and query; the fragment is dropped. Also accepts URLs without
 * a scheme ("example.com/a", "//host/a", "/a"). Writes at most cap bytes
 * including the NUL; CR_ERR_LIMIT (out untouched) if it does not fit.
 */
CR_WUR enum cr_err robots_url_path(const char *url, char *out, size_t cap);

/*
 * The normal form rules are stored in: "%xx" escapes upper-cased, bytes
 * >= 0x80 percent-encoded, a "$" that is not the last byte encoded as "%24",
 * everything else unchanged. Writes at most cap bytes including the NUL;
 * CR_ERR_LIMIT (out untouched) if it does not fit.
 */
CR_WUR enum cr_err robots_escape_pattern(const char *pattern, char *out,
					 size_t cap);

/* 1 if agent is a valid product token ([a-zA-Z_-]+, RFC 9309 2.2.1). */
int robots_agent_valid(const char *agent);

#endif

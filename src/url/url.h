/*
 * url.h - resolving links and the canonical form of a URL.
 *
 * Every URL that enters the crawl (seeds, outlinks, redirect targets) goes
 * through url_canon, so one page has one spelling in the CrawlDb: http and
 * https only; scheme and host lower-case; default port, user info and
 * fragment dropped; dot segments resolved; empty path becomes "/";
 * percent-encoded unreserved characters decoded and other escapes upper-cased;
 * at most URL_MAX_LEN bytes. Resolution of relative references is libcurl's
 * (curl_url). Pure: no network, no clock.
 */
#ifndef CR_URL_URL_H
#define CR_URL_URL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define URL_MAX_LEN 2048
#define URL_HOST_MAX 256

/*
 * Resolves href against base (NULL: href must be absolute) and writes the
 * canonical URL to out (cap bytes with the NUL). On failure returns
 * CR_ERR_FORMAT (or CR_ERR_LIMIT when too long) and points *reason at a
 * static phrase ("bad scheme", "no host", ...).
 */
CR_WUR enum cr_err url_canon(const char *base, const char *href, char *out,
			     size_t cap, const char **reason);

/* As url_canon, without the dedup rules: the fragment is kept. */
CR_WUR enum cr_err url_resolve(const char *base, const char *href, char *out,
			       size_t cap, const char **reason);

/* The host of a canonical URL, lower-case, without port. */
CR_WUR enum cr_err url_host(const char *url, char *out, size_t cap);

/* The authority (host[:port]) of a canonical URL: the politeness key. */
CR_WUR enum cr_err url_authority(const char *url, char *out, size_t cap);

/* Path and query of a canonical URL (borrowed pointer into url). */
const char *url_path(const char *url);

#endif

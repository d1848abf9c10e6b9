/*
 * url.h - resolving links and the canonical form of a URL.
 *
 * Resolution follows the WHATWG URL standard's parser for the special
 * schemes http and https (what a browser does with an href): tabs and
 * newlines removed, C0 controls and spaces trimmed, backslashes read as
 * slashes, "http:foo" forms, IPv4 number forms, IPv6 compression, IDN hosts
 * to punycode (libidn2, UTS #46 non-transitional), forbidden host code
 * points, port range, the standard's percent-encode sets. Other schemes are
 * refused ("not http or https").
 *
 * Every URL that enters the crawl (seeds, outlinks, redirect targets) goes
 * through url_canon, so one page has one spelling in the CrawlDb: the
 * resolved URL with the dedup rules of struct url_rules applied (fragment,
 * user info and default port dropped, escapes normalised, tracking and
 * session parameters stripped, ...). The rules are process-wide, set once
 * from the job's configuration (url_set_rules) before any URL is read.
 * Pure: no network, no clock; the fast path (ASCII host) allocates nothing.
 * docs/URLS.md has the details.
 */
#ifndef CR_URL_URL_H
#define CR_URL_URL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define URL_MAX_LEN 2048
#define URL_HOST_MAX 256
#define URL_STRIP_PARAMS_MAX 512
/* The default of url.strip_params (also in the key table of config.c). */
#define URL_STRIP_PARAMS_DEFAULT \
	"utm_*,fbclid,gclid,gclsrc,dclid,msclkid,mc_eid,mc_cid,yclid,igshid,_ga,_gl," \
	"twclid,ttclid,wbraid,gbraid"

/* The dedup rules of url_canon (docs/URLS.md; config keys url.*). */
struct url_rules {
	int drop_fragment;       /* "#frag" dropped */
	int drop_userinfo;       /* "user:pw@" dropped */
	int default_port;        /* ":80" on http, ":443" on https dropped */
	int drop_trailing_dot;   /* "example.com." is "example.com" */
	int dot_segments;        /* "./" and "../" resolved */
	int normalize_escapes;   /* %xx of unreserved decoded, others upper-case */
	int drop_empty_query;    /* "x?" is "x" */
	int strip_session_ids;   /* ";jsessionid=", phpsessid, sid, ... dropped */
	int sort_query;          /* query parameters sorted */
	size_t max_length;       /* longer canonical URLs are invalid, "too long" */
	/* Query parameter names dropped, comma-separated, compared ignoring
	 * ASCII case; a trailing '*' matches any rest ("utm_*"). */
	char strip_params[URL_STRIP_PARAMS_MAX];
};

struct config;

/* The defaults of the url.* configuration keys. */
void url_rules_default(struct url_rules *r);
/* The rules a job configuration asks for. */
void url_rules_from_config(const struct config *c, struct url_rules *r);
/* Sets the rules url_canon applies in this process (copies r). Call before
 * any URL is canonicalised; not thread-safe against concurrent url_canon. */
void url_set_rules(const struct url_rules *r);
/* url_set_rules(url_rules_from_config(c)): the one call a job makes. */
void url_configure(const struct config *c);

/*
 * Resolves href against base (NULL: href must be absolute) and writes the
 * canonical URL to out (cap bytes with the NUL). On failure returns
 * CR_ERR_FORMAT (or CR_ERR_LIMIT when too long) and points *reason at a
 * static phrase ("not http or https", "no host", ...).
 */
CR_WUR enum cr_err url_canon(const char *base, const char *href, char *out,
			     size_t cap, const char **reason);

/* Resolution alone (WHATWG href), without the dedup rules: the fragment,
 * user info and an empty query are kept. At most URL_MAX_LEN bytes. */
CR_WUR enum cr_err url_resolve(const char *base, const char *href, char *out,
			       size_t cap, const char **reason);
/* As url_resolve, href given as n bytes that may hold NULs. */
CR_WUR enum cr_err url_resolve_n(const char *base, const char *href, size_t n,
				 char *out, size_t cap, const char **reason);

/* The host of a canonical URL, lower-case, without port. */
CR_WUR enum cr_err url_host(const char *url, char *out, size_t cap);

/* The authority (host[:port]) of a canonical URL: the politeness key. */
CR_WUR enum cr_err url_authority(const char *url, char *out, size_t cap);

/* Path and query of a canonical URL (borrowed pointer into url). */
const char *url_path(const char *url);

/* 1 if the canonical URL (len bytes, no NUL needed) is its origin's root
 * page: the path "/" with no query. */
int url_is_root(const char *url, size_t len);

#endif

#include "url/url.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <curl/curl.h>

#include "util/buf.h"

static int is_unreserved(int c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends s with %xx of unreserved characters decoded and others upper-cased. */
static void add_normalised(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	while (*s) {
		int h1, h2;

		if (s[0] == '%' && (h1 = hexval((unsigned char)s[1])) >= 0 &&
		    (h2 = hexval((unsigned char)s[2])) >= 0) {
			int c = h1 * 16 + h2;

			/* "%2E" stays encoded: decoded it could form a new
			 * dot segment, and the form would not be stable. */
			if (is_unreserved(c) && c != '.') {
				buf_addc(b, (char)c);
			} else {
				buf_addc(b, '%');
				buf_addc(b, hex[h1]);
				buf_addc(b, hex[h2]);
			}
			s += 3;
			continue;
		}
		buf_addc(b, *s++);
	}
}

/* Browsers strip leading and trailing C0 controls and spaces and remove
 * tabs and newlines anywhere in an href. */
static void clean_href(const char *href, struct buf *out)
{
	const char *end = href + strlen(href);

	while (*href && (unsigned char)*href <= ' ')
		href++;
	while (end > href && (unsigned char)end[-1] <= ' ')
		end--;
	for (; href < end; href++)
		if (*href != '\t' && *href != '\n' && *href != '\r')
			buf_addc(out, *href);
}

/* The scheme of an absolute reference, or 0 (RFC 3986: ALPHA *( ALPHA /
 * DIGIT / "+" / "-" / "." ) ":"). */
static size_t scheme_len(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !isalpha((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++) {
		if (s[i] == ':')
			return i;
		if (!isalnum((unsigned char)s[i]) && !strchr("+-.", s[i]))
			return 0;
	}
	return 0;
}

static enum cr_err canon(const char *base, const char *href, char *out, size_t cap,
			 const char **reason, int keep_fragment)
{
	CURLU *u = curl_url();
	struct buf clean, res;
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	char *query = NULL, *frag = NULL;
	enum cr_err e = CR_ERR_FORMAT;
	CURLUcode rc;
	size_t i;

	*reason = "invalid url";
	if (!u) {
		*reason = "out of memory";
		return CR_ERR_NOMEM;
	}
	buf_init(&clean);
	buf_init(&res);
	clean_href(href, &clean);
	if (clean.len > 4 * URL_MAX_LEN) {
		*reason = "too long";
		e = CR_ERR_LIMIT;
		goto out;
	}
	if (base && curl_url_set(u, CURLUPART_URL, base, CURLU_URLENCODE) != CURLUE_OK) {
		*reason = "bad base";
		goto out;
	}
	{
		size_t sl = scheme_len((const char *)clean.p, clean.len);

		if (sl && !((sl == 4 && !strncasecmp((const char *)clean.p, "http", 4)) ||
			    (sl == 5 && !strncasecmp((const char *)clean.p, "https", 5)))) {
			*reason = "not http or https";
			goto out;
		}
	}
	if (clean.len == 0 && !base) {
		*reason = "empty";
		goto out;
	}
	/* A fragment-only or empty reference is the base document itself
	 * (libcurl would resolve "#x" against the base's directory). */
	if (base && (clean.len == 0 || clean.p[0] == '#')) {
		struct buf t;

		buf_init(&t);
		buf_adds(&t, base);
		t.len = strcspn(buf_cstr(&t), "#");
		buf_add(&t, clean.p, clean.len);
		buf_release(&clean);
		clean = t;
	}
	rc = curl_url_set(u, CURLUPART_URL, buf_cstr(&clean),
			  CURLU_URLENCODE | CURLU_NON_SUPPORT_SCHEME);
	if (rc != CURLUE_OK) {
		*reason = curl_url_strerror(rc);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		*reason = "not http or https";
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0]) {
		*reason = "no host";
		goto out;
	}
	if (strlen(host) >= URL_HOST_MAX) {
		*reason = "host too long";
		goto out;
	}
	curl_url_get(u, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT);
	curl_url_get(u, CURLUPART_PATH, &path, 0);
	curl_url_get(u, CURLUPART_QUERY, &query, 0);
	if (keep_fragment)
		curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0);

	buf_adds(&res, scheme);
	buf_adds(&res, "://");
	for (i = 0; host[i]; i++)
		buf_addc(&res, (char)tolower((unsigned char)host[i]));
	if (res.p[res.len - 1] == '.')
		res.len--;   /* "example.com." is "example.com" */
	if (res.p[res.len - 1] == '/') {
		*reason = "no host";
		goto out;
	}
	if (port)
		buf_addf(&res, ":%s", port);
	if (!path || !path[0])
		buf_addc(&res, '/');
	else
		add_normalised(&res, path);
	if (query && query[0]) {
		buf_addc(&res, '?');
		add_normalised(&res, query);
	}
	if (frag) {
		buf_addc(&res, '#');
		buf_adds(&res, frag);
	}
	if (res.len >= cap || res.len > URL_MAX_LEN) {
		*reason = "too long";
		e = CR_ERR_LIMIT;
		goto out;
	}
	memcpy(out, res.p, res.len);
	out[res.len] = '\0';
	e = CR_OK;
	*reason = NULL;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(u);
	buf_release(&clean);
	buf_release(&res);
	return e;
}

enum cr_err url_canon(const char *base, const char *href, char *out, size_t cap,
		      const char **reason)
{
	return canon(base, href, out, cap, reason, 0);
}

enum cr_err url_resolve(const char *base, const char *href, char *out, size_t cap,
			const char **reason)
{
	return canon(base, href, out, cap, reason, 1);
}

/* Start and length of the authority of "scheme://authority/...". */
static const char *authority(const char *url, size_t *n)
{
	const char *a = strstr(url, "://");

	if (!a)
		return NULL;
	a += 3;
	*n = strcspn(a, "/?#");
	return a;
}

enum cr_err url_authority(const char *url, char *out, size_t cap)
{
	size_t n;
	const char *a = authority(url, &n);

	if (!a || n == 0)
		return CR_ERR_FORMAT;
	if (n >= cap)
		return CR_ERR_LIMIT;
	memcpy(out, a, n);
	out[n] = '\0';
	return CR_OK;
}

enum cr_err url_host(const char *url, char *out, size_t cap)
{
	size_t n, h;
	const char *a = authority(url, &n);

	if (!a || n == 0)
		return CR_ERR_FORMAT;
	if (a[0] == '[') {
		const char *close = memchr(a, ']', n);

		if (!close)
			return CR_ERR_FORMAT;
		h = (size_t)(close - a) + 1;
	} else {
		const char *colon = memchr(a, ':', n);

		h = colon ? (size_t)(colon - a) : n;
	}
	if (h >= cap)
		return CR_ERR_LIMIT;
	memcpy(out, a, h);
	out[h] = '\0';
	return CR_OK;
}

const char *url_path(const char *url)
{
	size_t n;
	const char *a = authority(url, &n);

	if (!a)
		return "/";
	return a[n] ? a + n : "/";
}

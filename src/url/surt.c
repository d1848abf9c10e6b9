#include "url/surt.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Appends n bytes at *pos; 0 when they do not fit (with the NUL). */
static int put(char *out, size_t cap, size_t *pos, const char *s, size_t n)
{
	if (*pos + n >= cap)
		return 0;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = '\0';
	return 1;
}

/* 1 if host[0..n) is an IPv4 address or a bracketed IPv6 one. */
static int is_ip(const char *host, size_t n)
{
	char tmp[64];
	unsigned char bin[16];

	if (n && host[0] == '[')
		return 1;
	if (n >= sizeof(tmp))
		return 0;
	memcpy(tmp, host, n);
	tmp[n] = '\0';
	return inet_pton(AF_INET, tmp, bin) == 1;
}

/* Writes host[0..n) reversed, each label followed by ','. */
static int put_reversed(char *out, size_t cap, size_t *pos, const char *host, size_t n)
{
	size_t end = n;

	while (end > 0) {
		size_t start = end;

		while (start > 0 && host[start - 1] != '.')
			start--;
		if (!put(out, cap, pos, host + start, end - start) || !put(out, cap, pos, ",", 1))
			return 0;
		end = start ? start - 1 : 0;
	}
	return 1;
}

enum cr_err surt_from_url(const char *url, size_t len, char *out, size_t cap)
{
	const char *sep = memchr(url, ':', len);
	const char *auth, *end, *host_end, *p;
	size_t pos = 0;

	if (!sep || (size_t)(url + len - sep) < 3 || memcmp(sep, "://", 3) != 0)
		return CR_ERR_FORMAT;
	auth = sep + 3;
	end = auth;
	while (end < url + len && *end != '/' && *end != '?' && *end != '#')
		end++;
	if (end == auth)
		return CR_ERR_FORMAT;
	/* The port: after the last ':' that is not inside brackets. */
	host_end = end;
	for (p = end; p > auth; p--)
		if (p[-1] == ':' || p[-1] == ']')
			break;
	if (p > auth && p[-1] == ':')
		host_end = p - 1;
	if (host_end == auth)
		return CR_ERR_FORMAT;
	if (!((size_t)(sep - url) == 5 && !strncmp(url, "https", 5) ? put(out, cap, &pos, "http", 4)
	      : put(out, cap, &pos, url, (size_t)(sep - url))) ||
	    !put(out, cap, &pos, "://(", 4))
		return CR_ERR_LIMIT;
	if (is_ip(auth, (size_t)(host_end - auth))) {
		if (!put(out, cap, &pos, auth, (size_t)(host_end - auth)))
			return CR_ERR_LIMIT;
	} else if (!put_reversed(out, cap, &pos, auth, (size_t)(host_end - auth))) {
		return CR_ERR_LIMIT;
	}
	if (!put(out, cap, &pos, host_end, (size_t)(end - host_end)) ||
	    !put(out, cap, &pos, ")", 1))
		return CR_ERR_LIMIT;
	if (end == url + len || *end != '/')
		if (!put(out, cap, &pos, "/", 1))
			return CR_ERR_LIMIT;
	return put(out, cap, &pos, end, (size_t)(url + len - end)) ? CR_OK : CR_ERR_LIMIT;
}

#define SURT_HOST_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.,:_[]"

/* The length of a scheme followed by "://" at the start of t, or 0. */
static size_t scheme_len(const char *t)
{
	size_t n = 0;

	if (!isalpha((unsigned char)t[0]))
		return 0;
	while (isalnum((unsigned char)t[n]) || t[n] == '+' || t[n] == '-' || t[n] == '.')
		n++;
	return strncmp(t + n, "://", 3) ? 0 : n;
}

int surt_is_prefix(const char *text)
{
	size_t s = scheme_len(text), h;

	if (s)
		text += s + 3;
	if (*text != '(')
		return 0;
	h = strspn(text + 1, SURT_HOST_CHARS);
	return text[1 + h] == ')' || text[1 + h] == '\0';
}

enum cr_err surt_prefix(const char *text, char *out, size_t cap, const char **why)
{
	size_t s = scheme_len(text), pos = 0, i, h;
	const char *body;

	if (!surt_is_prefix(text)) {
		*why = "not a SURT prefix: '(' or 'scheme://(' then the reversed host";
		return CR_ERR_FORMAT;
	}
	body = s ? text + s + 3 : text;
	if (!s || (s == 5 && !strncasecmp(text, "https", 5)) || (s == 4 &&
							    !strncasecmp(text, "http", 4))) {
		if (!put(out, cap, &pos, "http://", 7))
			goto long_;
	} else {
		if (!put(out, cap, &pos, text, s + 3))
			goto long_;
		for (i = 0; i < s; i++)
			out[i] = (char)tolower((unsigned char)out[i]);
	}
	h = 1 + strspn(body + 1, SURT_HOST_CHARS);
	if (!put(out, cap, &pos, body, strlen(body)))
		goto long_;
	for (i = pos - strlen(body); i < pos - strlen(body) + h; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	return CR_OK;
long_:
	*why = "too long";
	return CR_ERR_LIMIT;
}

/* ---- the CDXJ form ---- */

/* Query parameters sort as strings. */
static int cmp_param(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends '?' and the parameters of query q (cut in place) sorted. */
static void sorted_query(char *q, struct buf *out)
{
	char **parts = NULL;
	size_t np = 0, cap = 0, i;

	for (;;) {
		char *amp = strchr(q, '&');

		if (np == cap) {
			char **g = realloc(parts, (cap = cap ? 2 * cap : 8) * sizeof(*g));
			if (!g)
				break;
			parts = g;
		}
		parts[np++] = q;
		if (!amp)
			break;
		*amp = '\0';
		q = amp + 1;
	}
	qsort(parts, np, sizeof(*parts), cmp_param);
	buf_addc(out, '?');
	for (i = 0; i < np; i++) {
		if (i)
			buf_addc(out, '&');
		buf_adds(out, parts[i]);
	}
	free(parts);
}

void surt_key(const char *url, struct buf *out)
{
	const char *p, *host, *hend, *port = NULL, *path;
	char *low, *q;
	size_t n = strlen(url), i;

	if (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)) {
		buf_adds(out, url);
		return;
	}
	low = malloc(n + 1);
	if (!low)
		return;
	for (i = 0; i <= n; i++)
		low[i] = (char)((url[i] >= 'A' && url[i] <= 'Z') ? url[i] + 32 : url[i]);
	host = strstr(low, "://") + 3;
	if (!strncmp(host, "www", 3)) {
		p = host + 3;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.')
			host = p + 1;
	}
	hend = host + strcspn(host, ":/?#");
	if (*hend == ':') {
		port = hend + 1;
		path = port + strcspn(port, "/?#");
	} else {
		path = hend;
	}
	/* host labels reversed */
	p = hend;
	while (p > host) {
		const char *s = p;

		while (s > host && s[-1] != '.')
			s--;
		buf_add(out, s, (size_t)(p - s));
		p = s > host ? s - 1 : host;
		if (s > host)
			buf_addc(out, ',');
	}
	/* a default port is dropped, as a WHATWG URL parser does */
	if (port && path > port &&
	    !(path - port == 2 && !strncmp(port, "80", 2) && low[4] == ':') &&
	    !(path - port == 3 && !strncmp(port, "443", 3) && low[4] == 's'))
		buf_addf(out, ":%.*s", (int)(path - port), port);
	buf_addc(out, ')');
	q = strchr(path, '#');
	if (q)
		*q = '\0';
	q = strchr(path, '?');
	if (q)
		*q++ = '\0';
	buf_adds(out, *path ? path : "/");
	if (q && *q)
		sorted_query(q, out);
	free(low);
}

#include "url/url.h"
#include "config/config.h"
#include "url/host.h"
#include "util/hex.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * The parser is the WHATWG "basic URL parser" cut down to the special
 * schemes http and https, written as straight-line code over the cleaned
 * input. The parsed URL lives in one fixed buffer (struct parts): its
 * components are written in order (user info, host, path, query, fragment)
 * and remembered as spans, so that resolving against a base copies the
 * base's spans and only the path's tail moves. Nothing is allocated except
 * by libidn2 for a non-ASCII or "xn--" host.
 */

#define URL_IN_MAX (4 * URL_MAX_LEN)        /* cleaned input bytes looked at */
#define URL_WORK (3 * URL_IN_MAX + 512)     /* parsed form: every byte %xx */

struct wbuf {
	char *p;
	size_t len, cap;
	int over;
};

struct span {
	size_t off, len;
};

struct parts {
	int https;
	struct span user, pass, host, path, query, frag;
	int has_query, has_frag;
	long port;              /* -1: none (or the default, dropped) */
	int default_port;       /* the default port was written out */
	struct wbuf w;
};

static struct url_rules rules;
static int rules_set;

static void put(struct wbuf *w, const char *s, size_t n)
{
	if (w->over || n > w->cap - w->len) {
		w->over = 1;
		return;
	}
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

static void putch(struct wbuf *w, char c)
{
	if (w->len >= w->cap) {
		w->over = 1;
		return;
	}
	w->p[w->len++] = c;
}

static const char hexdig[] = "0123456789ABCDEF";

/* The percent-encode sets of the standard, one bit each. */
enum { SET_FRAG = 1, SET_QUERY = 2, SET_PATH = 4, SET_USER = 8 };

static int must_encode(unsigned char c, int set)
{
	if (c < 0x20 || c > 0x7e)
		return 1;
	switch (set) {
	case SET_USER:
		if (strchr("/:;=@[\\]^|", c))
			return 1;
		/* fall through */
	case SET_PATH:
		if (strchr("?^`{}", c))
			return 1;
		/* fall through */
	case SET_QUERY:
		return strchr(" \"#<>'", c) != NULL;
	case SET_FRAG:
		return strchr(" \"<>`", c) != NULL;
	}
	return 0;
}

static void put_encoded(struct wbuf *w, const char *s, size_t n, int set)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (must_encode(c, set)) {
			putch(w, '%');
			putch(w, hexdig[c >> 4]);
			putch(w, hexdig[c & 15]);
		} else {
			putch(w, (char)c);
		}
	}
}

static int is_slash(int c, int special)
{
	return c == '/' || (special && c == '\\');
}

/* "." or "%2e" (any case) */
static int single_dot(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') || (n == 3 && !strncasecmp(s, "%2e", 3));
}

/* "..", ".%2e", "%2e." or "%2e%2e" */
static int double_dot(const char *s, size_t n)
{
	if (n == 2)
		return s[0] == '.' && s[1] == '.';
	if (n == 4)
		return (s[0] == '.' && !strncasecmp(s + 1, "%2e", 3)) ||
		       (!strncasecmp(s, "%2e", 3) && s[3] == '.');
	return n == 6 && !strncasecmp(s, "%2e%2e", 6);
}

/* ---- the parser ---- */

static void span_start(struct parts *u, struct span *sp)
{
	sp->off = u->w.len;
}

static void span_end(struct parts *u, struct span *sp)
{
	sp->len = u->w.len - sp->off;
}

static void copy_span(struct parts *u, struct span *dst, const struct parts *b,
		      const struct span *src)
{
	span_start(u, dst);
	put(&u->w, b->w.p + src->off, src->len);
	span_end(u, dst);
}

/* Removes the path's last segment. */
static void path_pop(struct parts *u)
{
	size_t end = u->w.len;

	while (end > u->path.off && u->w.p[end - 1] != '/')
		end--;
	if (end > u->path.off)
		end--;
	u->w.len = end;
}

static void parse_fragment(struct parts *u, const char *s, size_t n)
{
	u->has_frag = 1;
	span_start(u, &u->frag);
	put_encoded(&u->w, s, n, SET_FRAG);
	span_end(u, &u->frag);
}

static void parse_query(struct parts *u, const char *s, size_t n)
{
	const char *hash = memchr(s, '#', n);
	size_t q = hash ? (size_t)(hash - s) : n;

	u->has_query = 1;
	span_start(u, &u->query);
	put_encoded(&u->w, s, q, SET_QUERY);
	span_end(u, &u->query);
	if (hash)
		parse_fragment(u, hash + 1, n - q - 1);
}

/* The path state from s, appending to the path being built (which must be
 * the last thing written), then the query and fragment. */
static void parse_path(struct parts *u, const char *s, size_t n, int dots)
{
	size_t i = 0;

	if (!u->path.len)
		span_start(u, &u->path);
	for (;;) {
		size_t st = i;
		int c;

		while (i < n && !is_slash(s[i], 1) && s[i] != '?' && s[i] != '#')
			i++;
		c = i < n ? (unsigned char)s[i] : -1;
		if (dots && double_dot(s + st, i - st)) {
			path_pop(u);
			if (!is_slash(c, 1))
				putch(&u->w, '/');
		} else if (dots && single_dot(s + st, i - st)) {
			if (!is_slash(c, 1))
				putch(&u->w, '/');
		} else {
			putch(&u->w, '/');
			put_encoded(&u->w, s + st, i - st, SET_PATH);
		}
		if (c < 0 || c == '?' || c == '#')
			break;
		i++;
	}
	span_end(u, &u->path);
	if (i < n && s[i] == '?')
		parse_query(u, s + i + 1, n - i - 1);
	else if (i < n && s[i] == '#')
		parse_fragment(u, s + i + 1, n - i - 1);
}

/* The authority and what follows: s points after "//" (and any further
 * slashes). */
static int parse_authority(struct parts *u, const char *s, size_t n, int dots,
			   const char **reason)
{
	size_t e = 0, hs = 0, he, i;
	const char *at = NULL;
	int brackets = 0;

	while (e < n && !is_slash(s[e], 1) && s[e] != '?' && s[e] != '#')
		e++;
	for (i = 0; i < e; i++)
		if (s[i] == '@')
			at = s + i;
	if (at) {
		const char *colon = memchr(s, ':', (size_t)(at - s));
		size_t ul = colon ? (size_t)(colon - s) : (size_t)(at - s);

		span_start(u, &u->user);
		put_encoded(&u->w, s, ul, SET_USER);
		span_end(u, &u->user);
		span_start(u, &u->pass);
		if (colon)
			put_encoded(&u->w, colon + 1, (size_t)(at - colon - 1), SET_USER);
		span_end(u, &u->pass);
		hs = (size_t)(at - s) + 1;
		if (hs == e) {
			*reason = "user info without host";
			return -1;
		}
	}
	for (he = hs; he < e; he++) {
		if (s[he] == '[')
			brackets = 1;
		else if (s[he] == ']')
			brackets = 0;
		else if (s[he] == ':' && !brackets)
			break;
	}
	if (he == hs) {
		*reason = "no host";
		return -1;
	}
	span_start(u, &u->host);
	{
		char host[HOST_OUT_MAX];
		size_t hl;

		if (host_parse(s + hs, he - hs, host, sizeof(host), &hl, reason) < 0)
			return -1;
		put(&u->w, host, hl);
	}
	span_end(u, &u->host);
	u->port = -1;
	if (he < e) {
		long port = 0;

		for (i = he + 1; i < e; i++) {
			if (!isdigit((unsigned char)s[i])) {
				*reason = "bad port";
				return -1;
			}
			port = port * 10 + (s[i] - '0');
			if (port > 65535) {
				*reason = "port out of range";
				return -1;
			}
		}
		if (e > he + 1) {
			if (port == (u->https ? 443 : 80))
				u->default_port = 1;
			else
				u->port = port;
		}
	}
	if (e < n && is_slash(s[e], 1))
		e++;
	parse_path(u, s + e, n - e, dots);
	return 0;
}

static void copy_authority(struct parts *u, const struct parts *b)
{
	copy_span(u, &u->user, b, &b->user);
	copy_span(u, &u->pass, b, &b->pass);
	copy_span(u, &u->host, b, &b->host);
	u->port = b->port;
	u->default_port = b->default_port;
}

/* The relative state: s against base b (same scheme). */
static int parse_relative(struct parts *u, const struct parts *b, const char *s, size_t n,
			  int dots, const char **reason)
{
	u->https = b->https;
	if (n && is_slash(s[0], 1)) {
		if (n > 1 && is_slash(s[1], 1)) {
			while (n && is_slash(s[0], 1))
				s++, n--;
			return parse_authority(u, s, n, dots, reason);
		}
		copy_authority(u, b);
		parse_path(u, s + 1, n - 1, dots);
		return 0;
	}
	copy_authority(u, b);
	copy_span(u, &u->path, b, &b->path);
	if (n == 0 || s[0] == '#') {
		if (b->has_query) {
			u->has_query = 1;
			copy_span(u, &u->query, b, &b->query);
		}
		if (n)
			parse_fragment(u, s + 1, n - 1);
		return 0;
	}
	if (s[0] == '?') {
		parse_query(u, s + 1, n - 1);
		return 0;
	}
	path_pop(u);
	parse_path(u, s, n, dots);
	return 0;
}

/* Copies href without leading and trailing C0 controls and spaces and
 * without tabs and newlines; -1 if too long. */
static int clean(const char *s, size_t n, char *out, size_t *on)
{
	size_t k = 0;
	const char *end = s + n;

	while (s < end && (unsigned char)*s <= ' ')
		s++;
	while (end > s && (unsigned char)end[-1] <= ' ')
		end--;
	for (; s < end; s++) {
		if (*s == '\t' || *s == '\n' || *s == '\r')
			continue;
		if (k == URL_IN_MAX)
			return -1;
		out[k++] = *s;
	}
	*on = k;
	return 0;
}

static int parse(struct parts *u, char *store, const struct parts *b, const char *href,
		 size_t hn, int dots, const char **reason)
{
	char in[URL_IN_MAX];
	size_t n, i = 0;
	int r;

	memset(u, 0, sizeof(*u));
	u->port = -1;
	u->w.p = store;
	u->w.cap = URL_WORK;
	if (clean(href, hn, in, &n) < 0) {
		*reason = "too long";
		return -2;
	}
	if (n && isalpha((unsigned char)in[0]))
		while (i < n && (isalnum((unsigned char)in[i]) || strchr("+-.", in[i])))
			i++;
	if (i < n && in[i] == ':' && i > 0) {
		if (i == 4 && !strncasecmp(in, "http", 4))
			u->https = 0;
		else if (i == 5 && !strncasecmp(in, "https", 5))
			u->https = 1;
		else {
			*reason = "not http or https";
			return -1;
		}
		i++;
		if (b && b->https == u->https) {
			r = parse_relative(u, b, in + i, n - i, dots, reason);
		} else {
			while (i < n && is_slash(in[i], 1))
				i++;
			r = parse_authority(u, in + i, n - i, dots, reason);
		}
	} else if (!b) {
		*reason = n ? "not an absolute URL" : "empty";
		return -1;
	} else {
		r = parse_relative(u, b, in, n, dots, reason);
	}
	if (r == 0 && u->w.over) {
		*reason = "too long";
		return -2;
	}
	return r;
}

/* ---- serialising ---- */

static int is_unreserved(int c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Appends s: with url.normalize_escapes, %xx of unreserved characters
 * decoded and other escapes upper-cased ("%2E" only when dot segments are
 * resolved, so that decoding cannot make a new one). */
static void put_norm(struct wbuf *w, const char *s, size_t n, const struct url_rules *r)
{
	size_t i;

	if (!r || !r->normalize_escapes) {
		put(w, s, n);
		return;
	}
	for (i = 0; i < n; i++) {
		int h1, h2;

		if (s[i] == '%' && i + 2 < n && (h1 = hex_value((unsigned char)s[i + 1])) >= 0 &&
		    (h2 = hex_value((unsigned char)s[i + 2])) >= 0) {
			int c = h1 * 16 + h2;

			if (is_unreserved(c) && (c != '.' || r->dot_segments)) {
				putch(w, (char)c);
			} else {
				putch(w, '%');
				putch(w, hexdig[h1]);
				putch(w, hexdig[h2]);
			}
			i += 2;
			continue;
		}
		/* A stray '%' is written as an escape of itself, so that no
		 * later decoding can read it as the start of a new one. */
		if (s[i] == '%')
			put(w, "%25", 3);
		else
			putch(w, s[i]);
	}
}

/* Does name (n bytes, up to '=') match one of the comma-separated patterns
 * (ASCII case ignored, trailing '*' matches any rest)? */
static int name_listed(const char *name, size_t n, const char *list)
{
	while (*list) {
		size_t len = strcspn(list, ",");
		const char *p = list;
		size_t pl = len;

		while (pl && *p == ' ')
			p++, pl--;
		while (pl && p[pl - 1] == ' ')
			pl--;
		if (pl && p[pl - 1] == '*') {
			if (n >= pl - 1 && !strncasecmp(name, p, pl - 1))
				return 1;
		} else if (pl && n == pl && !strncasecmp(name, p, pl)) {
			return 1;
		}
		list += len;
		if (*list == ',')
			list++;
	}
	return 0;
}

static const char session_params[] = "phpsessid,sid,sessionid,jsessionid,aspsessionid*";

static int param_dropped(const char *p, size_t n, const struct url_rules *r)
{
	const char *eq = memchr(p, '=', n);
	size_t nl = eq ? (size_t)(eq - p) : n;

	if (n == 0)
		return 0;
	return name_listed(p, nl, r->strip_params) ||
	       (r->strip_session_ids && name_listed(p, nl, session_params));
}

struct param {
	const char *p;
	size_t n;
};

static int param_less(const struct param *a, const struct param *b)
{
	size_t m = a->n < b->n ? a->n : b->n;
	int c = memcmp(a->p, b->p, m);

	return c < 0 || (c == 0 && a->n < b->n);
}

/* "?" and the query with the dedup rules, or nothing when the rules leave
 * it empty. */
static void put_query(struct wbuf *w, const char *q, size_t n, const struct url_rules *r)
{
	struct param ps[128];
	size_t np = 0, i = 0, k;

	if (n == 0) {
		if (!r->drop_empty_query)
			putch(w, '?');
		return;
	}
	while (i <= n) {
		const char *amp = memchr(q + i, '&', n - i);
		size_t e = amp ? (size_t)(amp - q) : n;

		if (e == i || param_dropped(q + i, e - i, r))
			;   /* an empty parameter ("a&&b"), or one stripped */
		else if (np < sizeof(ps) / sizeof(ps[0])) {
			ps[np].p = q + i;
			ps[np++].n = e - i;
		} else {
			/* Too many parameters to sort: the rest as they are. */
			ps[np - 1].n = n - (size_t)(ps[np - 1].p - q);
			break;
		}
		i = e + 1;
	}
	if (r->sort_query)
		for (i = 1; i < np; i++)
			for (k = i; k > 0 && param_less(&ps[k], &ps[k - 1]); k--) {
				struct param t = ps[k];

				ps[k] = ps[k - 1];
				ps[k - 1] = t;
			}
	if (np == 0)
		return;
	putch(w, '?');
	for (i = 0; i < np; i++) {
		if (i)
			putch(w, '&');
		put_norm(w, ps[i].p, ps[i].n, r);
	}
}

/* 1 if the segment that ends at p[s] is "." or ".." (also escaped): its
 * session id stays, else removing it would make a new dot segment. */
static int dot_segment_before(const char *p, size_t s)
{
	size_t b = s, dots = 0, i;

	while (b > 0 && p[b - 1] != '/')
		b--;
	for (i = b; i < s; dots++) {
		if (p[i] == '.') {
			i++;
		} else if (s - i >= 3 && p[i] == '%' && p[i + 1] == '2' &&
			   (p[i + 2] == 'e' || p[i + 2] == 'E')) {
			i += 3;
		} else {
			return 0;
		}
	}
	return dots == 1 || dots == 2;
}

/* The path with ";jsessionid=..." parameters removed when asked. */
static void put_path(struct wbuf *w, const char *p, size_t n, const struct url_rules *r)
{
	size_t i = 0;

	while (r && r->strip_session_ids && i < n) {
		const char *semi = memchr(p + i, ';', n - i);
		size_t s, e;

		if (!semi)
			break;
		s = (size_t)(semi - p);
		if (n - s < 12 || strncasecmp(semi, ";jsessionid=", 12) ||
		    dot_segment_before(p, s)) {
			put_norm(w, p + i, s + 1 - i, r);
			i = s + 1;
			continue;
		}
		put_norm(w, p + i, s - i, r);
		for (e = s + 1; e < n && p[e] != '/' && p[e] != ';'; e++)
			;
		i = e;
	}
	put_norm(w, p + i, n - i, r);
}

/* Writes u as a URL; r NULL: the WHATWG href. */
static void serialise(struct wbuf *w, const struct parts *u, const struct url_rules *r)
{
	const char *p = u->w.p;
	size_t hl = u->host.len;

	put(w, u->https ? "https://" : "http://", u->https ? 8 : 7);
	if ((!r || !r->drop_userinfo) && (u->user.len || u->pass.len)) {
		put_norm(w, p + u->user.off, u->user.len, r);
		if (u->pass.len) {
			putch(w, ':');
			put_norm(w, p + u->pass.off, u->pass.len, r);
		}
		putch(w, '@');
	}
	while (r && r->drop_trailing_dot && hl > 1 && p[u->host.off + hl - 1] == '.')
		hl--;
	/* "9.." without its dots would be read as an IPv4 address. */
	if (hl < u->host.len && host_ends_in_number(p + u->host.off, hl))
		hl = u->host.len;
	put(w, p + u->host.off, hl);
	if (u->port >= 0) {
		char t[8];

		put(w, t, (size_t)snprintf(t, sizeof(t), ":%ld", u->port));
	} else if (r && !r->default_port && u->default_port) {
		put(w, u->https ? ":443" : ":80", u->https ? 4 : 3);
	}
	if (r)
		put_path(w, p + u->path.off, u->path.len, r);
	else
		put(w, p + u->path.off, u->path.len);
	if (u->has_query) {
		if (r) {
			put_query(w, p + u->query.off, u->query.len, r);
		} else {
			putch(w, '?');
			put(w, p + u->query.off, u->query.len);
		}
	}
	if (u->has_frag && (!r || !r->drop_fragment)) {
		putch(w, '#');
		put_norm(w, p + u->frag.off, u->frag.len, r);
	}
}

static enum cr_err run(const char *base, const char *href, size_t hn, char *out, size_t cap,
		       const char **reason, const struct url_rules *r)
{
	static _Thread_local char bstore[URL_WORK], ustore[URL_WORK];
	struct parts b, u;
	struct wbuf w;
	size_t max = r ? r->max_length : URL_MAX_LEN;
	int e;

	*reason = "invalid url";
	if (base && parse(&b, bstore, NULL, base, strlen(base), 1, reason) != 0) {
		*reason = "bad base";
		return CR_ERR_FORMAT;
	}
	e = parse(&u, ustore, base ? &b : NULL, href, hn, r ? r->dot_segments : 1, reason);
	if (e == -2)
		return CR_ERR_LIMIT;
	if (e)
		return CR_ERR_FORMAT;
	if (u.host.len >= URL_HOST_MAX) {
		*reason = "host too long";
		return CR_ERR_FORMAT;
	}
	/* A valid URL, but no server answers on port 0: a crawl would keep
	 * it unfetched for ever. Only the crawler's rules refuse it. */
	if (r && u.port == 0) {
		*reason = "port 0";
		return CR_ERR_FORMAT;
	}
	w.p = out;
	w.len = 0;
	w.cap = cap ? cap - 1 : 0;
	w.over = 0;
	serialise(&w, &u, r);
	if (w.over || w.len > max) {
		*reason = "too long";
		return CR_ERR_LIMIT;
	}
	out[w.len] = '\0';
	*reason = NULL;
	return CR_OK;
}

enum cr_err url_canon(const char *base, const char *href, char *out, size_t cap,
		      const char **reason)
{
	if (!rules_set)
		url_set_rules(NULL);
	return run(base, href, strlen(href), out, cap, reason, &rules);
}

enum cr_err url_resolve(const char *base, const char *href, char *out, size_t cap,
			const char **reason)
{
	return run(base, href, strlen(href), out, cap, reason, NULL);
}

enum cr_err url_resolve_n(const char *base, const char *href, size_t n, char *out,
			  size_t cap, const char **reason)
{
	return run(base, href, n, out, cap, reason, NULL);
}

/* ---- rules ---- */

void url_rules_default(struct url_rules *r)
{
	memset(r, 0, sizeof(*r));
	r->drop_fragment = 1;
	r->drop_userinfo = 1;
	r->default_port = 1;
	r->drop_trailing_dot = 1;
	r->dot_segments = 1;
	r->normalize_escapes = 1;
	r->drop_empty_query = 1;
	r->strip_session_ids = 1;
	r->sort_query = 0;
	r->max_length = URL_MAX_LEN;
	snprintf(r->strip_params, sizeof(r->strip_params), "%s", URL_STRIP_PARAMS_DEFAULT);
}

void url_rules_from_config(const struct config *c, struct url_rules *r)
{
	url_rules_default(r);
	r->drop_fragment = c->url_drop_fragment;
	r->drop_userinfo = c->url_drop_userinfo;
	r->default_port = c->url_default_port;
	r->drop_trailing_dot = c->url_drop_trailing_dot;
	r->dot_segments = c->url_dot_segments;
	r->normalize_escapes = c->url_normalize_escapes;
	r->drop_empty_query = c->url_drop_empty_query;
	r->strip_session_ids = c->url_strip_session_ids;
	r->sort_query = c->url_sort_query;
	r->max_length = (size_t)c->url_max_length;
	snprintf(r->strip_params, sizeof(r->strip_params), "%s", c->url_strip_params);
}

void url_set_rules(const struct url_rules *r)
{
	if (r)
		rules = *r;
	else
		url_rules_default(&rules);
	if (rules.max_length > URL_MAX_LEN)
		rules.max_length = URL_MAX_LEN;
	rules_set = 1;
}

void url_configure(const struct config *c)
{
	struct url_rules r;

	url_rules_from_config(c, &r);
	url_set_rules(&r);
}

/* ---- parts of a canonical URL ---- */

/* Start and length of the authority of "scheme://authority/...", without
 * user info. */
static const char *authority(const char *url, size_t *n)
{
	const char *a = strstr(url, "://"), *at;

	if (!a)
		return NULL;
	a += 3;
	*n = strcspn(a, "/?#");
	while ((at = memchr(a, '@', *n)) != NULL) {
		*n -= (size_t)(at + 1 - a);
		a = at + 1;
	}
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

int url_is_root(const char *url, size_t len)
{
	const char *p = len > 3 ? memmem(url, len, "://", 3) : NULL;
	const char *end = url + len;

	if (!p)
		return 0;
	p = memchr(p + 3, '/', (size_t)(end - p - 3));
	return p && p + 1 == end;
}

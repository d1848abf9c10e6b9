#include "util/json.h"
#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>

void json_counters(const struct json_counter *c, size_t n, struct buf *out)
{
	size_t i;

	buf_addc(out, '{');
	for (i = 0; i < n; i++)
		buf_addf(out, "%s\"%s\":%llu", i ? "," : "", c[i].name,
			 (unsigned long long)c[i].value);
	buf_addc(out, '}');
}

void json_str(struct buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	buf_addc(out, '"');
	while (i < n) {
		unsigned char c = p[i];
		size_t l;

		if (c == '"' || c == '\\') {
			buf_addc(out, '\\');
			buf_addc(out, (char)c);
			i++;
		} else if (c < 0x20) {
			buf_addf(out, "\\u%04x", c);
			i++;
		} else if ((l = utf8_seq_len(p + i, n - i)) == 0) {
			buf_adds(out, "\\ufffd");
			i++;
		} else {
			buf_add(out, p + i, l);
			i += l;
		}
	}
	buf_addc(out, '"');
}

/* ---- reading ---- */

struct json_rd {
	const char *p, *end;
	int depth;
};

#define JSON_DEPTH_MAX 64

static void skip_ws(struct json_rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

/* A string at r->p: *s and *len its raw bytes between the quotes. */
static int read_string(struct json_rd *r, const char **s, size_t *len)
{
	if (r->p >= r->end || *r->p != '"')
		return -1;
	*s = ++r->p;
	while (r->p < r->end && *r->p != '"') {
		if (*r->p == '\\' && ++r->p >= r->end)
			return -1;
		r->p++;
	}
	if (r->p >= r->end)
		return -1;
	*len = (size_t)(r->p++ - *s);
	return 0;
}

static int skip_value(struct json_rd *r);

/* The rest of an object or array after its opening bracket. */
static int skip_members(struct json_rd *r, char close, int keyed)
{
	const char *s;
	size_t n;

	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		skip_ws(r);
		if (keyed && (read_string(r, &s, &n) || (skip_ws(r), r->p >= r->end) ||
			      *r->p++ != ':'))
			return -1;
		if (skip_value(r))
			return -1;
		skip_ws(r);
		if (r->p >= r->end)
			return -1;
		if (*r->p++ == close)
			return 0;
		if (r->p[-1] != ',')
			return -1;
	}
}

static int skip_value(struct json_rd *r)
{
	const char *s;
	size_t n;
	int rc;

	skip_ws(r);
	if (r->p >= r->end)
		return -1;
	if (*r->p == '"')
		return read_string(r, &s, &n);
	if (*r->p == '{' || *r->p == '[') {
		char c = *r->p++;

		if (++r->depth > JSON_DEPTH_MAX)
			return -1;
		rc = skip_members(r, c == '{' ? '}' : ']', c == '{');
		r->depth--;
		return rc;
	}
	/* A number, true, false or null: up to the next delimiter. */
	s = r->p;
	while (r->p < r->end && !strchr(",}] \t\r\n", *r->p))
		r->p++;
	return r->p > s ? 0 : -1;
}

/* The span [*v, *end) of member key's value in the object text[0..n). */
static enum cr_err find_member(const char *text, size_t n, const char *key, const char **v,
			       const char **end)
{
	struct json_rd r = { text, text + n, 0 };
	size_t kl = strlen(key);

	skip_ws(&r);
	if (r.p >= r.end || *r.p++ != '{')
		return CR_ERR_FORMAT;
	skip_ws(&r);
	if (r.p < r.end && *r.p == '}')
		return CR_EOF;
	for (;;) {
		const char *k;
		size_t klen;

		skip_ws(&r);
		if (read_string(&r, &k, &klen) || (skip_ws(&r), r.p >= r.end) || *r.p++ != ':')
			return CR_ERR_FORMAT;
		skip_ws(&r);
		*v = r.p;
		if (skip_value(&r))
			return CR_ERR_FORMAT;
		if (klen == kl && !memcmp(k, key, kl)) {
			*end = r.p;
			return CR_OK;
		}
		skip_ws(&r);
		if (r.p >= r.end)
			return CR_ERR_FORMAT;
		if (*r.p == '}')
			return CR_EOF;
		if (*r.p++ != ',')
			return CR_ERR_FORMAT;
	}
}

enum cr_err json_get_value(const char *text, size_t n, const char *key, const char **v,
			   size_t *len)
{
	const char *end;
	enum cr_err e = find_member(text, n, key, v, &end);

	if (e == CR_OK)
		*len = (size_t)(end - *v);
	return e;
}

enum cr_err json_get_int(const char *text, size_t n, const char *key, int64_t *out)
{
	const char *v, *end;
	char num[32], *stop;
	long long x;
	enum cr_err e = find_member(text, n, key, &v, &end);

	if (e)
		return e;
	if (end == v || (size_t)(end - v) >= sizeof(num))
		return CR_ERR_FORMAT;
	memcpy(num, v, (size_t)(end - v));
	num[end - v] = '\0';
	x = strtoll(num, &stop, 10);
	if (*stop)
		return CR_ERR_FORMAT;
	*out = x;
	return CR_OK;
}

/* Appends the UTF-8 of code point cp (BMP) to out; the new length. */
static size_t put_utf8(char *out, size_t o, unsigned cp)
{
	if (cp < 0x80) {
		out[o++] = (char)cp;
	} else if (cp < 0x800) {
		out[o++] = (char)(0xc0 | cp >> 6);
		out[o++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[o++] = (char)(0xe0 | cp >> 12);
		out[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[o++] = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

enum cr_err json_get_str(const char *text, size_t n, const char *key, char *out, size_t cap)
{
	const char *v, *end, *p;
	size_t o = 0;
	enum cr_err e = find_member(text, n, key, &v, &end);

	if (e)
		return e;
	if (end - v < 2 || *v != '"')
		return CR_ERR_FORMAT;
	for (p = v + 1; p < end - 1; p++) {
		char c = *p;

		if (o + 4 >= cap)
			return CR_ERR_LIMIT;
		if (c != '\\') {
			out[o++] = c;
			continue;
		}
		c = *++p;
		if (c == 'u' && end - 1 - p > 4) {
			char hex[5] = { p[1], p[2], p[3], p[4], 0 }, *stop;
			unsigned long cp = strtoul(hex, &stop, 16);

			if (*stop)
				return CR_ERR_FORMAT;
			o = put_utf8(out, o, (unsigned)cp);
			p += 4;
			continue;
		}
		out[o++] = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' :
			   c == 'b' ? '\b' : c == 'f' ? '\f' : c;
	}
	out[o] = '\0';
	return CR_OK;
}

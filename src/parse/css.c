/*
 * css.c - css.h: a scanner over CSS's tokens as far as URLs need them
 * (CSS Syntax Level 3, 4.3: comments, strings, url(), escapes).
 */
#include "parse/css.h"
#include "util/buf.h"

#include <ctype.h>
#include <strings.h>
#include <string.h>

struct scan {
	const char *s;
	size_t n, i;
	struct buf v;
};

static int hexv(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* A backslash escape at s[i] (after the backslash) into v: a hex escape is
 * its character, as UTF-8; an escaped newline is nothing. */
static void escape(struct scan *c)
{
	unsigned long cp = 0;
	int k = 0;

	if (c->i >= c->n)
		return;
	while (k < 6 && c->i < c->n && isxdigit((unsigned char)c->s[c->i]))
		cp = cp * 16 + (unsigned long)hexv((unsigned char)c->s[c->i++]), k++;
	if (!k) {
		if (c->s[c->i] != '\n')
			buf_addc(&c->v, c->s[c->i]);
		c->i++;
		return;
	}
	if (c->i < c->n && isspace((unsigned char)c->s[c->i]))
		c->i++;
	if (!cp || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		buf_addc(&c->v, (char)cp);
	} else if (cp < 0x800) {
		buf_addc(&c->v, (char)(0xc0 | (cp >> 6)));
		buf_addc(&c->v, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(&c->v, (char)(0xe0 | (cp >> 12)));
		buf_addc(&c->v, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(&c->v, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(&c->v, (char)(0xf0 | (cp >> 18)));
		buf_addc(&c->v, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(&c->v, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(&c->v, (char)(0x80 | (cp & 0x3f)));
	}
}

/* A string whose opening quote is at s[i]: its value into v. */
static void string(struct scan *c)
{
	char q = c->s[c->i++];

	c->v.len = 0;
	while (c->i < c->n && c->s[c->i] != q) {
		char ch = c->s[c->i++];

		if (ch == '\n')
			return;   /* a bad string: ends at the line */
		if (ch == '\\')
			escape(c);
		else
			buf_addc(&c->v, ch);
	}
	c->i++;
}

static void skip_blanks(struct scan *c)
{
	while (c->i < c->n && isspace((unsigned char)c->s[c->i]))
		c->i++;
}

/* After "url(": a quoted string or an unquoted URL up to ")". 1 if a
 * value was read into v. */
static int url_value(struct scan *c)
{
	skip_blanks(c);
	if (c->i < c->n && (c->s[c->i] == '"' || c->s[c->i] == '\'')) {
		string(c);
		skip_blanks(c);
		if (c->i < c->n && c->s[c->i] == ')')
			c->i++;
		return 1;
	}
	c->v.len = 0;
	while (c->i < c->n && c->s[c->i] != ')') {
		char ch = c->s[c->i++];

		if (isspace((unsigned char)ch)) {
			skip_blanks(c);
			if (c->i < c->n && c->s[c->i] != ')')
				return 0;   /* a bad url: blanks inside */
			break;
		}
		if (ch == '\\')
			escape(c);
		else if (ch == '"' || ch == '\'' || ch == '(')
			return 0;
		else
			buf_addc(&c->v, ch);
	}
	if (c->i < c->n)
		c->i++;
	return 1;
}

/* A character that continues an identifier ("myurl(" is not "url("). */
static int name_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '-' || ch == '_';
}

static int usable(const struct buf *v)
{
	return v->len && !(v->len >= 5 && !strncasecmp((const char *)v->p, "data:", 5));
}

/* The bytes a token of interest starts with: a comment, a string, an
 * escape, url( and @import. */
static const unsigned char starts[256] = {
	['/'] = 1, ['"'] = 1, ['\''] = 1, ['\\'] = 1, ['u'] = 1, ['U'] = 1, ['@'] = 1,
};

size_t css_urls(const char *css, size_t len, size_t max,
		void (*fn)(void *arg, const char *url), void *arg)
{
	struct scan c = { css, len, 0, { 0 } };
	size_t found = 0;

	buf_init(&c.v);
	while (c.i < c.n && found < max) {
		const char *p;
		size_t left;
		int got = 0;

		/* Most bytes start nothing of interest: passed over at once. */
		while (c.i < c.n && !starts[(unsigned char)c.s[c.i]])
			c.i++;
		if (c.i >= c.n)
			break;
		p = c.s + c.i;
		left = c.n - c.i;

		if (left >= 2 && p[0] == '/' && p[1] == '*') {
			const char *e = memmem(p + 2, left - 2, "*/", 2);

			c.i = e ? (size_t)(e - c.s) + 2 : c.n;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			string(&c);   /* a string outside url() and @import: not a URL */
			continue;
		}
		if (*p == '\\') {
			c.i += 2;
			continue;
		}
		if (left >= 4 && !strncasecmp(p, "url(", 4) && (c.i == 0 || !name_char(p[-1]))) {
			c.i += 4;
			got = url_value(&c);
		} else if (left >= 7 && !strncasecmp(p, "@import", 7)) {
			c.i += 7;
			skip_blanks(&c);
			if (c.i < c.n && (c.s[c.i] == '"' || c.s[c.i] == '\''))
				string(&c), got = 1;
		} else {
			c.i++;
		}
		if (got && usable(&c.v)) {
			buf_addc(&c.v, '\0');
			fn(arg, (const char *)c.v.p);
			found++;
		}
	}
	buf_release(&c.v);
	return found;
}

#include "util/json.h"

void json_counters(const struct json_counter *c, size_t n, struct buf *out)
{
	size_t i;

	buf_addc(out, '{');
	for (i = 0; i < n; i++)
		buf_addf(out, "%s\"%s\":%llu", i ? "," : "", c[i].name,
			 (unsigned long long)c[i].value);
	buf_addc(out, '}');
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
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
		} else if ((l = utf8_len(p + i, n - i)) == 0) {
			buf_adds(out, "\\ufffd");
			i++;
		} else {
			buf_add(out, p + i, l);
			i += l;
		}
	}
	buf_addc(out, '"');
}

#include "util/utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
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

/* 1 if s[0..n) is the start of a sequence the end of the text cut: a lead
 * byte announcing more than n bytes, followed by continuation bytes only. */
static int cut_sequence(const unsigned char *s, size_t n)
{
	size_t want = (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		      (s[0] & 0xf8) == 0xf0 ? 4 : 0, i;

	if (want <= n)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return 1;
}

int utf8_valid(const void *p, size_t n, int cut_ok)
{
	const unsigned char *s = p, *end = s + n;
	size_t l;

	while (s < end) {
		if (*s < 0x80) {
			s++;
			continue;
		}
		if ((l = utf8_seq_len(s, (size_t)(end - s))) == 0)
			return cut_ok && cut_sequence(s, (size_t)(end - s));
		s += l;
	}
	return 1;
}

size_t utf8_whole(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = n;

	/* the last lead byte within 3 of the end, if a sequence starts there */
	while (i > 0 && n - i < 3 && (s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i > 0 && (s[i - 1] & 0xc0) == 0xc0 && cut_sequence(s + i - 1, n - i + 1))
		return i - 1;
	return n;
}

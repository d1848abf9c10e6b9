#include "url/host.h"
#include "util/hex.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <idn2.h>

/* An IPv4 number ("0x" hex, "0" octal, decimal); -1 if not one. */
static long long ipv4_number(const char *s, size_t n)
{
	unsigned long long v = 0;
	int radix = 10;
	size_t i;

	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
		radix = 16;
	} else if (n >= 2 && s[0] == '0') {
		s++;
		n--;
		radix = 8;
	}
	for (i = 0; i < n; i++) {
		int d = hex_value((unsigned char)s[i]);

		if (d < 0 || d >= radix)
			return -1;
		if (v < (1ULL << 40))
			v = v * (unsigned)radix + (unsigned)d;
	}
	return v > (1ULL << 40) ? (long long)(1ULL << 40) : (long long)v;
}

int host_ends_in_number(const char *s, size_t n)
{
	size_t start, i;

	if (n && s[n - 1] == '.')
		n--;
	for (start = n; start > 0 && s[start - 1] != '.'; start--)
		;
	if (start == n)
		return 0;
	for (i = start; i < n && isdigit((unsigned char)s[i]); i++)
		;
	return i == n || ipv4_number(s + start, n - start) >= 0;
}

/* Parses s as an IPv4 address into *v; 0 or -1. */
static int ipv4_parse(const char *s, size_t n, uint32_t *v)
{
	long long num[4];
	size_t parts = 0, i, start = 0;
	unsigned long long ip;

	if (n && s[n - 1] == '.')
		n--;
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (parts == 4)
			return -1;
		num[parts] = ipv4_number(s + start, i - start);
		if (num[parts] < 0)
			return -1;
		parts++;
		start = i + 1;
	}
	for (i = 0; i + 1 < parts; i++)
		if (num[i] > 255)
			return -1;
	if ((unsigned long long)num[parts - 1] >= 1ULL << (8 * (5 - parts)))
		return -1;
	ip = (unsigned long long)num[parts - 1];
	for (i = 0; i + 1 < parts; i++)
		ip += (unsigned long long)num[i] << (8 * (3 - i));
	*v = (uint32_t)ip;
	return 0;
}

/* The dotted IPv4 tail of an IPv6 address, from s[*i], into two pieces
 * from a[*piece]; 0 or -1. */
static int ipv6_v4_tail(const char *s, size_t n, size_t *i, uint16_t a[8], int *piece)
{
	int seen = 0;

	while (*i < n) {
		int v4 = -1;

		if (seen > 0) {
			if (s[*i] != '.' || seen >= 4)
				return -1;
			(*i)++;
		}
		if (*i >= n || !isdigit((unsigned char)s[*i]))
			return -1;
		while (*i < n && isdigit((unsigned char)s[*i])) {
			int d = s[*i] - '0';

			if (v4 == 0)
				return -1;
			v4 = v4 < 0 ? d : v4 * 10 + d;
			if (v4 > 255)
				return -1;
			(*i)++;
		}
		a[*piece] = (uint16_t)(a[*piece] * 0x100 + v4);
		seen++;
		if (seen == 2 || seen == 4)
			(*piece)++;
	}
	return seen == 4 ? 0 : -1;
}

/* The pieces after a "::" (at compress) moved to the end; 0 or -1 when
 * there was no "::" and fewer than eight pieces. */
static int ipv6_expand(uint16_t a[8], int piece, int compress)
{
	int swaps = piece - compress;

	if (compress < 0)
		return piece == 8 ? 0 : -1;
	piece = 7;
	while (piece != 0 && swaps > 0) {
		uint16_t t = a[piece];

		a[piece] = a[compress + swaps - 1];
		a[compress + swaps - 1] = t;
		piece--;
		swaps--;
	}
	return 0;
}

/* The standard's IPv6 parser; 0 or -1. */
static int ipv6_parse(const char *s, size_t n, uint16_t a[8])
{
	int piece = 0, compress = -1;
	size_t i = 0;

	memset(a, 0, 8 * sizeof(a[0]));
	if (n && s[0] == ':') {
		if (n < 2 || s[1] != ':')
			return -1;
		i = 2;
		compress = piece = 1;
	}
	while (i < n) {
		unsigned value = 0, len = 0;

		if (piece == 8)
			return -1;
		if (s[i] == ':') {
			if (compress >= 0)
				return -1;
			i++;
			compress = ++piece;
			continue;
		}
		while (len < 4 && i < n && hex_value((unsigned char)s[i]) >= 0) {
			value = value * 16 + (unsigned)hex_value((unsigned char)s[i]);
			i++;
			len++;
		}
		if (i < n && s[i] == '.') {
			if (len == 0 || piece > 6)
				return -1;
			i -= len;
			if (ipv6_v4_tail(s, n, &i, a, &piece) < 0)
				return -1;
			break;
		}
		if (i < n && s[i] == ':') {
			if (++i >= n)
				return -1;
		} else if (i < n) {
			return -1;
		}
		a[piece++] = (uint16_t)value;
	}
	return ipv6_expand(a, piece, compress);
}

#define IPV6_OUT 48   /* "[" 8 pieces of 4 and 7 ':' "]" and the NUL, with room */

/* "[...]" with the longest run of zero pieces (two or more) as "::";
 * out has room for IPV6_OUT bytes. */
static size_t ipv6_write(char *out, const uint16_t a[8])
{
	int i, best = -1, bestlen = 1, ignore0 = 0;
	size_t o = 0;

	for (i = 0; i < 8;) {
		int j = i;

		while (j < 8 && a[j] == 0)
			j++;
		if (j - i > bestlen) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	out[o++] = '[';
	for (i = 0; i < 8; i++) {
		if (ignore0 && a[i] == 0)
			continue;
		ignore0 = 0;
		if (best == i) {
			o += (size_t)snprintf(out + o, IPV6_OUT - o, "%s", i == 0 ? "::" : ":");
			ignore0 = 1;
			continue;
		}
		o += (size_t)snprintf(out + o, IPV6_OUT - o, "%x%s", a[i], i != 7 ? ":" : "");
	}
	out[o++] = ']';
	out[o] = '\0';
	return o;
}

static int forbidden_domain_char(unsigned char c)
{
	return c <= 0x20 || c == 0x7f || strchr("#%/:<>?@[\\]^|", c) != NULL;
}

/* s percent-decoded into d (cap bytes, NUL-terminated): its length, or -1
 * if it does not fit. *nonascii: a byte >= 0x80 or a NUL; *xn: an "xn--"
 * label. */
static long percent_decode(const char *s, size_t n, char *d, size_t cap, int *nonascii,
			   int *xn)
{
	size_t i, hn = 0;

	*nonascii = *xn = 0;
	for (i = 0; i < n; i++) {
		int h1, h2;
		unsigned char c = (unsigned char)s[i];

		if (hn + 1 >= cap)
			return -1;
		if (c == '%' && i + 2 < n && (h1 = hex_value((unsigned char)s[i + 1])) >= 0 &&
		    (h2 = hex_value((unsigned char)s[i + 2])) >= 0) {
			c = (unsigned char)(h1 * 16 + h2);
			i += 2;
		}
		if (c >= 0x80 || c == 0)
			*nonascii = 1;   /* a NUL: let libidn2 refuse it */
		d[hn++] = (char)c;
	}
	d[hn] = '\0';
	for (i = 0; i + 4 <= hn; i++)
		if ((i == 0 || d[i - 1] == '.') && !strncasecmp(d + i, "xn--", 4))
			*xn = 1;
	return (long)hn;
}

/* UTS #46 as the standard asks: non-transitional, then (as curl does)
 * transitional for what IDNA2008 disallows but UTS #46 maps, e.g. a
 * snowman. An ASCII host whose "xn--" labels libidn2 will not decode stays
 * as written: WHATWG keeps such labels (ignoreInvalidPunycode). *idn: what
 * libidn2 made (idn2_free), or NULL. -1 for a non-ASCII host it refused. */
static int idna(const char *d, size_t hn, int nonascii, char **idn)
{
	const uint8_t *in8 = (const uint8_t *)d;

	*idn = NULL;
	if (!memchr(d, '\0', hn) &&
	    (idn2_lookup_u8(in8, (uint8_t **)idn, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL) ==
		     IDN2_OK ||
	     (nonascii && idn2_lookup_u8(in8, (uint8_t **)idn,
					 IDN2_NFC_INPUT | IDN2_TRANSITIONAL) == IDN2_OK)))
		return 0;
	return nonascii ? -1 : 0;
}

/* A domain (h[0..hn), IDNA done) lower-cased into out, an IPv4 address in
 * its dotted form; 0 or -1. */
static int domain_out(const char *h, size_t hn, char *out, size_t cap, size_t *len,
		      const char **reason)
{
	size_t i;
	uint32_t v4;

	if (hn == 0) {
		*reason = "no host";
		return -1;
	}
	if (hn >= cap) {
		*reason = "host too long";
		return -1;
	}
	for (i = 0; i < hn; i++) {
		if (forbidden_domain_char((unsigned char)h[i])) {
			*reason = "bad character in host";
			return -1;
		}
		out[i] = (char)tolower((unsigned char)h[i]);
	}
	out[hn] = '\0';
	*len = hn;
	if (!host_ends_in_number(out, hn))
		return 0;
	if (ipv4_parse(out, hn, &v4) < 0) {
		*reason = "bad IPv4 address";
		return -1;
	}
	*len = (size_t)snprintf(out, cap, "%u.%u.%u.%u", v4 >> 24, (v4 >> 16) & 255,
				(v4 >> 8) & 255, v4 & 255);
	return 0;
}

int host_parse(const char *s, size_t n, char *out, size_t cap, size_t *len,
	       const char **reason)
{
	char d[HOST_OUT_MAX], *idn;
	int nonascii, xn, rc;
	long hn;

	if (n && s[0] == '[') {
		uint16_t a[8];

		if (s[n - 1] != ']' || ipv6_parse(s + 1, n - 2, a) < 0 || cap < IPV6_OUT) {
			*reason = "bad IPv6 address";
			return -1;
		}
		*len = ipv6_write(out, a);
		return 0;
	}
	hn = percent_decode(s, n, d, sizeof(d), &nonascii, &xn);
	if (hn < 0) {
		*reason = "host too long";
		return -1;
	}
	if ((nonascii || xn) && idna(d, (size_t)hn, nonascii, &idn) < 0) {
		*reason = "bad international host name";
		return -1;
	}
	if (!(nonascii || xn))
		idn = NULL;
	rc = idn ? domain_out(idn, strlen(idn), out, cap, len, reason)
		 : domain_out(d, (size_t)hn, out, cap, len, reason);
	idn2_free(idn);
	return rc;
}

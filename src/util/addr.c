#include "util/addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int v4_public(uint32_t a)
{
	static const struct { uint32_t net, mask; } bad[] = {
		{ 0x00000000, 0xff000000 },  /* 0/8 this network */
		{ 0x0a000000, 0xff000000 },  /* 10/8 */
		{ 0x64400000, 0xffc00000 },  /* 100.64/10 CGNAT */
		{ 0x7f000000, 0xff000000 },  /* 127/8 loopback */
		{ 0xa9fe0000, 0xffff0000 },  /* 169.254/16 link-local */
		{ 0xac100000, 0xfff00000 },  /* 172.16/12 */
		{ 0xc0000000, 0xffffff00 },  /* 192.0.0/24 IETF */
		{ 0xc0000200, 0xffffff00 },  /* 192.0.2/24 documentation */
		{ 0xc0a80000, 0xffff0000 },  /* 192.168/16 */
		{ 0xc6120000, 0xfffe0000 },  /* 198.18/15 benchmarking */
		{ 0xc6336400, 0xffffff00 },  /* 198.51.100/24 documentation */
		{ 0xcb007100, 0xffffff00 },  /* 203.0.113/24 documentation */
		{ 0xe0000000, 0xf0000000 },  /* 224/4 multicast */
		{ 0xf0000000, 0xf0000000 },  /* 240/4 reserved, broadcast */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if ((a & bad[i].mask) == bad[i].net)
			return 0;
	return 1;
}

/* The rest of the special-purpose registry (RFC 6890 and after). */
static int v6_public_more(const unsigned char *b)
{
	static const unsigned char siit[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
	static const unsigned char discard[8] = { 0x01, 0x00, 0, 0, 0, 0, 0, 0 };

	if (!memcmp(b, siit, 12))                    /* ::ffff:0:0/96 SIIT, embeds v4 */
		return v4_public((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 |
				 (uint32_t)b[14] << 8 | b[15]);
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0)   /* 2001::/32 Teredo */
		return v4_public((uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 |
				 (uint32_t)b[6] << 8 | b[7]) &&
		       v4_public(~((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 |
				   (uint32_t)b[14] << 8 | b[15]));
	if (!memcmp(b, discard, 8))                  /* 100::/64 discard-only */
		return 0;
	if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b)
		return 0;                            /* 64:ff9b:1::/48 local NAT64, the rest */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0x02 && b[4] == 0 &&
	    b[5] == 0)                               /* 2001:2::/48 benchmarking */
		return 0;
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 &&
	    ((b[3] & 0xf0) == 0x10 || (b[3] & 0xf0) == 0x20))   /* 2001:10::/28, 2001:20::/28 */
		return 0;
	if (b[0] == 0x3f && b[1] == 0xff && (b[2] & 0xf0) == 0)   /* 3fff::/20 documentation */
		return 0;
	if (b[0] == 0x5f && b[1] == 0x00)            /* 5f00::/16 SRv6 SIDs */
		return 0;
	return 1;
}

static int v6_public(const unsigned char *b)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const unsigned char zero[16];

	if (!memcmp(b, mapped, 12) || !memcmp(b, zero, 12))   /* mapped, compatible */
		return v4_public((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 |
				 (uint32_t)b[14] << 8 | b[15]);
	if ((b[0] & 0xfe) == 0xfc)                   /* fc00::/7 ULA */
		return 0;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)   /* fe80::/10 link-local */
		return 0;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)   /* fec0::/10 site-local */
		return 0;
	if (b[0] == 0xff)                            /* multicast */
		return 0;
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8)  /* 2001:db8::/32 */
		return 0;
	if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b &&
	    !memcmp(b + 4, zero, 8))                 /* 64:ff9b::/96 NAT64 */
		return v4_public((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 |
				 (uint32_t)b[14] << 8 | b[15]);
	if (b[0] == 0x20 && b[1] == 0x02)            /* 2002::/16 6to4 embeds v4 */
		return v4_public((uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 |
				 (uint32_t)b[4] << 8 | b[5]);
	return v6_public_more(b);
}

int addr_is_public(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_public(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6)
		return v6_public(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
	return 0;
}

int addr_is_public_str(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return v4_public(ntohl(a4.s_addr));
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return v6_public(a6.s6_addr);
	return 0;
}

int addr_list_parse(const char *spec, struct addr_list *out, char bad[64])
{
	const char *p = spec;

	out->n = 0;
	while (*p) {
		char item[64], *slash;
		size_t n = strcspn(p, ",");
		const char *s = p;
		int max, bits;

		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
		if (!n)
			continue;
		snprintf(bad, 64, "%.*s", (int)n, s);
		if (n >= sizeof(item) || out->n == ADDR_LIST_MAX)
			return -1;
		memcpy(item, s, n);
		item[n] = '\0';
		slash = strchr(item, '/');
		if (slash)
			*slash++ = '\0';
		if (inet_pton(AF_INET, item, out->r[out->n].net) == 1) {
			out->r[out->n].family = AF_INET;
			max = 32;
		} else if (inet_pton(AF_INET6, item, out->r[out->n].net) == 1) {
			out->r[out->n].family = AF_INET6;
			max = 128;
		} else {
			return -1;
		}
		bits = max;
		if (slash) {
			char *end;
			long b = strtol(slash, &end, 10);

			if (!*slash || *end || b < 0 || b > max)
				return -1;
			bits = (int)b;
		}
		out->r[out->n].bits = bits;
		out->n++;
	}
	bad[0] = '\0';
	return 0;
}

static int prefix_match(const unsigned char *a, const unsigned char *net, int bits)
{
	int full = bits / 8, rest = bits % 8;

	if (memcmp(a, net, (size_t)full))
		return 0;
	return !rest || ((a[full] ^ net[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

static int list_has(const struct addr_list *l, int family, const unsigned char *a)
{
	int i;

	for (i = 0; l && i < l->n; i++)
		if (l->r[i].family == family && prefix_match(a, l->r[i].net, l->r[i].bits))
			return 1;
	return 0;
}

int addr_list_has(const struct addr_list *l, const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return list_has(l, AF_INET,
				(const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6)
		return list_has(l, AF_INET6,
				((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
	return 0;
}

int addr_list_has_str(const struct addr_list *l, const char *addr)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, addr, a) == 1)
		return list_has(l, AF_INET, a);
	if (inet_pton(AF_INET6, addr, a) == 1)
		return list_has(l, AF_INET6, a);
	return 0;
}

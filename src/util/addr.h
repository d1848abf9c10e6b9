/*
 * addr.h - which addresses the crawler may connect to.
 *
 * Unless fetch.allow_private is set, only public unicast addresses are
 * fetched: loopback, private (RFC 1918), CGNAT, link-local, multicast,
 * documentation/benchmark ranges are refused, and in IPv6 besides those
 * (::1, ::, fe80::/10, fec0::/10, ff00::/8, 2001:db8::/32, 3fff::/20,
 * 2001:2::/48): ULA fc00::/7, discard-only 100::/64, ORCHID 2001:10::/28 and
 * 2001:20::/28, SRv6 5f00::/16, local-use NAT64 64:ff9b:1::/48, and every
 * form that carries an IPv4 address is judged by it - mapped ::ffff:0:0/96,
 * compatible ::/96, SIIT ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4
 * 2002::/16, Teredo 2001::/32 (server and client address). The check runs
 * on the address actually connected to (libcurl's open-socket callback), so
 * a DNS answer that changes between our lookup and the connect does not get
 * through. Pure.
 */
#ifndef CR_UTIL_ADDR_H
#define CR_UTIL_ADDR_H

#include <sys/socket.h>

/* 1 if sa (AF_INET or AF_INET6) is a public unicast address. */
int addr_is_public(const struct sockaddr *sa);
/* The same for a numeric address string; 0 if it does not parse. */
int addr_is_public_str(const char *addr);

/* Addresses allowed although not public (fetch.allow_addresses): up to
 * ADDR_LIST_MAX ranges, each an address and a prefix length. */
#define ADDR_LIST_MAX 32

struct addr_list {
	struct {
		int family;             /* AF_INET or AF_INET6 */
		unsigned char net[16];
		int bits;
	} r[ADDR_LIST_MAX];
	int n;
};

/* Parses "127.0.0.1, 10.0.0.0/8, fd00::/8"; -1 (and *bad the first bad
 * item, at most 63 bytes) on a bad item or too many. "" gives none. */
int addr_list_parse(const char *spec, struct addr_list *out, char bad[64]);
/* 1 if sa (or the numeric string addr) is in the list. */
int addr_list_has(const struct addr_list *l, const struct sockaddr *sa);
int addr_list_has_str(const struct addr_list *l, const char *addr);

#endif

/*
 * addr.h - which addresses the crawler may connect to.
 *
 * Unless fetch.allow_private is set, only public unicast addresses are
 * fetched: loopback, private (RFC 1918), CGNAT, link-local, multicast,
 * documentation/benchmark ranges, IPv6 ULA and IPv4-mapped forms of those are
 * refused. The check runs on the address actually connected to (libcurl's
 * open-socket callback), so a DNS answer that changes between our lookup and
 * the connect does not get through. Pure.
 */
#ifndef CR_FETCH_ADDR_H
#define CR_FETCH_ADDR_H

#include <sys/socket.h>

/* 1 if sa (AF_INET or AF_INET6) is a public unicast address. */
int addr_is_public(const struct sockaddr *sa);
/* The same for a numeric address string; 0 if it does not parse. */
int addr_is_public_str(const char *addr);

#endif

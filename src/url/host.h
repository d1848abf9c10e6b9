/*
 * host.h - the WHATWG host parser: a URL's host as written to its
 * serialised form - percent-decoded, IDNA-mapped by libidn2 (UTS #46,
 * non-transitional, then transitional for what IDNA2008 disallows),
 * lower-cased; an IPv4 address in any of its forms ("0x7f.1", "2130706433")
 * as four decimal numbers; an IPv6 address compressed and bracketed. Pure
 * but for libidn2's allocation; url.c's parser calls it for each host.
 */
#ifndef CR_URL_HOST_H
#define CR_URL_HOST_H

#include <stddef.h>


/* Room for any host the parser writes (with the NUL). */
#define HOST_OUT_MAX (256 * 4 + 8)   /* URL_HOST_MAX (url.h) bytes, each %xx */

/*
 * Parses s[0..n) into out (cap bytes; *len its length, NUL-terminated).
 * 0, or -1 and *reason (a static string: "bad IPv6 address", "host too
 * long", "bad international host name", "bad character in host", "no
 * host", "bad IPv4 address").
 */
int host_parse(const char *s, size_t n, char *out, size_t cap, size_t *len,
	       const char **reason);

/* The standard's "ends in a number": a host whose last label (a trailing
 * dot aside) is a number must be an IPv4 address. */
int host_ends_in_number(const char *s, size_t n);

#endif

/*
 * dns.h - asynchronous name resolution over c-ares, with our own cache.
 *
 * The fetcher asks for a host once per host queue; answers (and failures)
 * are cached for the record's TTL, at least 60 s and at most
 * dns.cache_ttl_s (failures: dns.negative_ttl_s), and carried to later
 * phases (dns_seed, dns_peek), so a host is resolved once per TTL however
 * many URLs and rounds it has. The resolved address is
 * handed to libcurl (CURLOPT_RESOLVE), which then never resolves by itself.
 * The sockets of c-ares join the fetcher's poll (dns_waitfds) - there is one
 * event loop per rank.
 *
 * An answer is one address of each family the family setting lets through
 * (dns.family): "2001:db8::1,192.0.2.1" - IPv6 first, as RFC 8305 has it;
 * libcurl races them (Happy Eyeballs) and says which one answered.
 */
#ifndef CR_FETCH_DNS_H
#define CR_FETCH_DNS_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct dns;

enum dns_result {
	DNS_OK = 0,
	DNS_NXDOMAIN = 1,     /* the name does not exist */
	DNS_NODATA = 2,       /* no address of a usable family */
	DNS_FAIL = 3,         /* server failure, refused, timeout */
};

/* Which addresses an answer holds (dns.family, in the order of its words). */
enum dns_family { DNS_FAMILY_AUTO = 0, DNS_FAMILY_IPV4 = 1, DNS_FAMILY_IPV6 = 2 };

/* The longest answer: an IPv6 and an IPv4 address with a comma between. */
#define DNS_ADDRS_MAX (46 + 16)

/* addr: the numeric addresses, comma-separated (IPv4 dotted, IPv6 without
 * brackets), at most DNS_ADDRS_MAX bytes with its NUL; borrowed for the
 * duration of the call; NULL unless result is DNS_OK. */
typedef void (*dns_done_fn)(void *arg, enum dns_result result, const char *addr);

/* servers: comma-separated "ip" or "ip:port", asked alone (/etc/hosts is
 * not read: every node resolves alike); "" for the system's resolver
 * configuration (resolv.conf, /etc/hosts). */
CR_WUR enum cr_err dns_new(const char *servers, enum dns_family family, long timeout_ms,
			   long ttl_s, long negative_ttl_s, struct dns **out);
void dns_free(struct dns **d);
/* Resolves host; done is called exactly once, possibly before dns_resolve
 * returns (cache hit, numeric host). */
void dns_resolve(struct dns *d, const char *host, int64_t now_us, dns_done_fn done,
		 void *arg);
/*
 * Answers persist across phases (the robots cache keeps each host's, with
 * its expiry): dns_seed puts an answer of an earlier phase into the cache,
 * valid until expires_us (the clock of dns_resolve's now_us); a host the
 * cache holds already is left as it is. dns_peek reads what the cache
 * holds for host: 1 and the result, the address ("" unless DNS_OK; cap
 * bytes at most) and the expiry; 0 when it holds no answer.
 */
void dns_seed(struct dns *d, const char *host, enum dns_result r, const char *addr,
	      int64_t expires_us);
int dns_peek(const struct dns *d, const char *host, enum dns_result *r, char *addr,
	     size_t cap, int64_t *expires_us);

/* The c-ares sockets to poll, at most max; returns how many were written. */
unsigned dns_waitfds(struct dns *d, struct pollfd *fds, unsigned max);
/* Handles readiness of the polled sockets (their revents) and c-ares
 * timeouts. */
void dns_process(struct dns *d, const struct pollfd *fds, unsigned n);
/* Milliseconds until c-ares needs dns_process for a timeout (-1: none pending). */
long dns_timeout_ms(struct dns *d);
/* Counters: queries sent, cache hits. */
void dns_counters(const struct dns *d, uint64_t *queries, uint64_t *hits);
const char *dns_result_name(enum dns_result r);
/* The reason a failed lookup gives its URLs ("dns: nxdomain"; "" for
 * DNS_OK): a static string. */
const char *dns_reason(enum dns_result r);

#endif

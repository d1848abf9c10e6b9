/*
 * netwatch.h - the sites' failure, or this node's? What a rank makes of
 * requests that got nothing back.
 *
 * A request that got nothing back - no connection, a timeout, a DNS query
 * unanswered - may be its site's failure or this node's: a cable, a switch
 * port, a firewall. Recorded as the site's, a node's outage would mark every
 * URL it tried as failed, to be retried only a crawl.retry_interval_s
 * later, while no server ever saw a request. So the fetcher holds such
 * outcomes (it does not write them yet), and netwatch judges:
 *
 *   - an answer of any server after them (a response, a refused connection,
 *     a TLS handshake) says the network works: the held outcomes are the
 *     sites' (netwatch_answer: write them);
 *   - once NETWATCH_HOSTS hosts have failed silently with no answer
 *     between, or NETWATCH_QUIET_US has passed since a silent failure with
 *     no answer, or when the loop ends after one (its outcomes held, or a
 *     robots.txt the phase would cache), the witnesses are probed: a TCP
 *     connection to one of them that opens, or is refused, says the network
 *     works; if none does, it is down: the held outcomes are dropped - their
 *     URLs stay due, as after a stop - and the fetch stops. The probe opens
 *     a connection and closes it; it asks nothing.
 *
 * The witnesses are servers other than those that went silent: the last
 * few that answered (at most NETWATCH_WITNESSES), but none at an address and
 * port a silent request went to - a site that goes dark must not testify to
 * itself (a one-site crawl, hosts sharing an address) - and the resolvers of
 * dns.servers. With none left nothing can tell, and the outcomes are the
 * sites': a missed outage costs what it always did, a false one would stop
 * a healthy crawl.
 *
 * Everything here but netwatch_probe is pure, with the clock passed in
 * (monotonic µs); netwatch_probe connects, and is the only call that
 * touches the network. Not collective.
 */
#ifndef CR_FETCH_NETWATCH_H
#define CR_FETCH_NETWATCH_H

#include <stddef.h>
#include <stdint.h>

/* Silent failures of this many hosts in a row ask for a probe ... */
#define NETWATCH_HOSTS 4
/* ... and so does one that no answer has followed for this long. */
#define NETWATCH_QUIET_US 5000000
/* Servers that answered last, kept as witnesses. */
#define NETWATCH_WITNESSES 3
/* Addresses and ports that went silent, kept to leave them out. */
#define NETWATCH_GONE 8
/* Resolvers of dns.servers kept as witnesses. */
#define NETWATCH_RESOLVERS 4
/* A probe waits this long for a connection, at most. */
#define NETWATCH_PROBE_MS 3000
/* A probe in the loop comes at most this often. */
#define NETWATCH_PROBE_GAP_US 10000000

struct netwatch_witness {
	char addr[48];       /* numeric IPv4 or IPv6 address */
	int port;
};

struct netwatch {
	uint64_t silent[NETWATCH_HOSTS];   /* hosts (hashes) failed silently since the
					      last answer, the first NETWATCH_HOSTS */
	unsigned nsilent;
	int64_t first_silent;              /* when the first of them failed (0: none) */
	struct netwatch_witness gone[NETWATCH_GONE];   /* where they went (the first) */
	unsigned ngone;
	struct netwatch_witness w[NETWATCH_WITNESSES];   /* answered last, newest first */
	unsigned nw;
	struct netwatch_witness dns[NETWATCH_RESOLVERS];   /* dns.servers */
	unsigned ndns;
	int64_t last_probe;                /* 0: none yet */
};

/* from (may be NULL): the witnesses of an earlier phase of the job and its
 * resolvers, kept, so that a node whose network fails between phases is
 * told from a site that fails. */
void netwatch_init(struct netwatch *nw, const struct netwatch *from);

/* The resolvers of servers (dns.servers: "ip", "ip:port", "[ipv6]:port",
 * comma-separated; port 53 when none) become witnesses. Returns how many. */
unsigned netwatch_resolvers(struct netwatch *nw, const char *servers);

/* A server at addr:port (from libcurl's answer; "" or port 0: unknown)
 * answered: it becomes a witness, and what the caller holds is the sites'
 * (it writes them now). */
void netwatch_answer(struct netwatch *nw, const char *addr, int port);

/* A request of host (any stable hash of its name) to addr:port ("" for a
 * DNS query) got nothing back at now; the caller holds its outcomes. */
void netwatch_silent(struct netwatch *nw, uint64_t host, const char *addr, int port,
		     int64_t now);

/* Adds w as a witness after those known (when there is room): another
 * rank's, for a rank that has none of its own yet. */
void netwatch_add_witness(struct netwatch *nw, const struct netwatch_witness *w);

/* The witnesses a probe asks now, in out (room for NETWATCH_WITNESSES +
 * NETWATCH_RESOLVERS): those that answered, but where a silent request
 * went, then the resolvers. Returns how many. */
unsigned netwatch_candidates(const struct netwatch *nw, struct netwatch_witness *out);

/* 1 when the loop should probe now: NETWATCH_HOSTS hosts failed silently
 * since the last answer, or one did NETWATCH_QUIET_US ago; a candidate is
 * left; and the last probe is at least NETWATCH_PROBE_GAP_US old. */
int netwatch_due(const struct netwatch *nw, int64_t now);

/* What the loop's end makes of the silent failures since the last answer:
 * NETWATCH_KEEP (none, or no candidate: the held outcomes are written),
 * NETWATCH_ASK (probe the candidates first: a phase that commits would
 * cache a robots.txt or DNS failure as the site's). */
enum netwatch_end { NETWATCH_KEEP, NETWATCH_ASK };
enum netwatch_end netwatch_at_end(const struct netwatch *nw);

/* A probe's result at now: 1 if it reached a witness (the held outcomes
 * are the sites': write them; the count starts again), 0 if not (the
 * network is down). */
int netwatch_probed(struct netwatch *nw, int reached, int64_t now);

/* Connects to every candidate at once (non-blocking), waits at most
 * timeout_ms: 1 if one connection opened or was refused, else 0. */
int netwatch_probe(const struct netwatch *nw, int timeout_ms);

/* "a:p, b:p" of the candidates into out (cap bytes), for a log line. */
void netwatch_witnesses(const struct netwatch *nw, char *out, size_t cap);

#endif

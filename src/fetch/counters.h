/*
 * counters.h - what the fetch phase counts, summed over ranks at its end
 * (names in fetch_counter_names, defined by the phase, phase.c). Apart from
 * fetch.h so that the rooms that count (outcome.c, progress.c, the loop)
 * need not include the phase's own header.
 */
#ifndef CR_FETCH_COUNTERS_H
#define CR_FETCH_COUNTERS_H

enum fetch_counter {
	FC_URLS,          /* in the fetch lists */
	FC_REQUESTS,      /* HTTP requests completed (robots.txt included) */
	FC_ROBOTS,        /* robots.txt requests */
	FC_ROBOTS_CACHED, /* origins whose robots.txt came from the cache */
	FC_FETCHED,
	FC_REDIRECT,
	FC_GONE,
	FC_ERROR,
	FC_DENIED,
	FC_BLOCKED,
	FC_DEFERRED,      /* Crawl-delay above politeness.max_crawl_delay_ms */
	FC_TRUNCATED,
	FC_NOT_REACHED,   /* left due: time limit, parked host */
	FC_ROBOTS_UNAVAILABLE,      /* origins whose robots.txt failed (5xx, 429, no answer) */
	FC_ROBOTS_WAIT,   /* URLs left due because their robots.txt failed */
	FC_BACKOFFS,      /* times a failing host was slowed down */
	FC_PARKED,        /* hosts parked for the round after repeated failures */
	FC_BYTES,         /* body bytes received */
	FC_DNS_QUERIES,
	FC_DNS_FAILED,
	FC_HOSTS,
	FC_LATENCY_US,    /* sum over requests */
	FC_TOO_LARGE,     /* bodies that decode to more than fetch.max_decoded_bytes */
	FC_TIMEOUT,       /* no whole answer within the time limits */
	FC_REVISITS,      /* exchanges archived as revisit records */
	FC_HELD,          /* hosts that left the round for a hold over fetch.max_hold_s */
	FC_FOLLOWED,      /* links that joined their host's queue in the round (frontier.h) */
	FC_TLS_FAILED,    /* pages whose server's certificate or handshake failed (tls.h) */
	FC_EMBEDS,        /* requisites that joined their host's queue in the round */
	FC_ROBOTS_EARLY,  /* robots.txt of hosts new to the crawl asked early (origins.h) */
	FC_EARLY_HINTS,   /* links to other ranks' hosts passed on for that (comm_hint_send) */
	FC_NETDOWN,       /* ranks that found their node's network down (fetch/netwatch.h) */
	FC_NET_PROBES,    /* probes of the servers that answered last */
	FC_COUNT_
};

extern const char *const fetch_counter_names[FC_COUNT_];

#endif

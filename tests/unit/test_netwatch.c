/*
 * test_netwatch.c - the sites' failure or this node's network's
 * (fetch/netwatch.h): a table of event sequences and what they ask for,
 * the witnesses kept (newest first, at most NETWATCH_WITNESSES, carried to
 * the next phase), and the probe against a listening socket, a closed port
 * and an address nothing answers on.
 */
#include "test.h"
#include "fetch/netwatch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define SEC 1000000LL

/* Event words: 'a' an answer (from 127.0.0.1:8000+k), 's' host k failed
 * silently, 'p' a probe that reached a witness, 'x' one that did not. */
struct ev {
	char kind;
	int k;
	int64_t at;
};

static void sequences(void)
{
	static const struct {
		struct ev ev[8];
		int due;          /* netwatch_due after the events, at the last time */
		int ask_at_end;   /* netwatch_at_end asks */
	} rows[] = {
		/* nothing answered yet: no witness, nothing can tell */
		{ { { 's', 1, 1 }, { 's', 2, 1 }, { 's', 3, 1 }, { 's', 4, 1 } }, 0, 0 },
		/* a witness, then four hosts silent: probe */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 's', 2, 1 }, { 's', 3, 1 }, { 's', 4, 2 } }, 1, 1 },
		/* three hosts only: not yet, but the loop's end asks */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 's', 2, 1 }, { 's', 3, 1 } }, 0, 1 },
		/* ... and so does the time since the first with no answer */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 's', 2, 5 }, { 's', 2, 6 } }, 1, 1 },
		{ { { 'a', 0, 0 }, { 's', 1, 2 }, { 's', 2, 6 } }, 0, 1 },
		/* one host failing again and again is one host */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 's', 1, 2 }, { 's', 1, 3 }, { 's', 1, 4 } }, 0, 1 },
		/* an answer between: the count starts again */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 's', 2, 1 }, { 'a', 1, 2 }, { 's', 3, 3 },
		    { 's', 4, 3 } }, 0, 1 },
		/* a probe that reached: starts again, and the next waits its gap */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 's', 2, 1 }, { 's', 3, 1 }, { 's', 4, 1 },
		    { 'p', 0, 2 }, { 's', 5, 3 }, { 's', 6, 3 } }, 0, 1 },
		/* ... and with nothing silent since, the end asks nothing */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 'p', 0, 2 } }, 0, 0 },
		/* an answer last: nothing to ask */
		{ { { 'a', 0, 0 }, { 's', 1, 1 }, { 'a', 2, 2 } }, 0, 0 },
	};
	size_t i, e;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct netwatch nw;
		int64_t last = 0;

		netwatch_init(&nw, NULL);
		for (e = 0; e < 8 && rows[i].ev[e].kind; e++) {
			const struct ev *v = &rows[i].ev[e];

			last = v->at * SEC;
			if (v->kind == 'a')
				netwatch_answer(&nw, "127.0.0.1", 8000 + v->k);
			else if (v->kind == 's')
				netwatch_silent(&nw, (uint64_t)v->k, "127.0.0.1", 9000 + v->k, last);
			else
				netwatch_probed(&nw, v->kind == 'p', last);
		}
		CHECK(netwatch_due(&nw, last) == rows[i].due, "row %zu: due %d", i,
		      netwatch_due(&nw, last));
		CHECK((netwatch_at_end(&nw) == NETWATCH_ASK) == rows[i].ask_at_end,
		      "row %zu: at end", i);
	}
}

/* A probe's gap: a second probe waits NETWATCH_PROBE_GAP_US. */
static void gap(void)
{
	struct netwatch nw;
	int k;

	netwatch_init(&nw, NULL);
	netwatch_answer(&nw, "127.0.0.1", 80);
	for (k = 1; k <= NETWATCH_HOSTS; k++)
		netwatch_silent(&nw, (uint64_t)k, "127.0.0.1", 81, 5 * SEC);
	CHECK(netwatch_due(&nw, 5 * SEC), "due after %d hosts", NETWATCH_HOSTS);
	CHECK(!netwatch_probed(&nw, 0, 5 * SEC), "a probe that reached nothing says so");
	CHECK(!netwatch_due(&nw, 5 * SEC + NETWATCH_PROBE_GAP_US - 1), "within the gap");
	CHECK(netwatch_due(&nw, 5 * SEC + NETWATCH_PROBE_GAP_US), "after the gap");
}

/* A site that goes dark does not testify to itself; the resolvers do. */
static void independent(void)
{
	struct netwatch nw;
	struct netwatch_witness c[NETWATCH_WITNESSES + NETWATCH_RESOLVERS];
	int k;

	netwatch_init(&nw, NULL);
	netwatch_answer(&nw, "192.0.2.1", 80);   /* the one server of the crawl ... */
	for (k = 1; k <= NETWATCH_HOSTS; k++)    /* ... goes dark, its hosts one by one */
		netwatch_silent(&nw, (uint64_t)k, "192.0.2.1", 80, 6 * SEC);
	CHECK(netwatch_candidates(&nw, c) == 0, "the silent server is no witness");
	CHECK(!netwatch_due(&nw, 6 * SEC), "no witness left: no probe");
	CHECK(netwatch_at_end(&nw) == NETWATCH_KEEP, "no witness left: the sites' failures");
	netwatch_answer(&nw, "192.0.2.1", 443);  /* its other port answers */
	netwatch_silent(&nw, 9, "192.0.2.1", 80, 7 * SEC);
	CHECK(netwatch_candidates(&nw, c) == 1 && c[0].port == 443, "another port testifies");
	CHECK(netwatch_resolvers(&nw, "127.0.0.1:5353") == 1, "one resolver");
	CHECK(netwatch_candidates(&nw, c) == 2 && !strcmp(c[1].addr, "127.0.0.1") &&
	      c[1].port == 5353, "the resolver testifies too");
	netwatch_init(&nw, NULL);
	netwatch_resolvers(&nw, "198.18.0.2:53");
	for (k = 1; k <= NETWATCH_HOSTS; k++)    /* DNS queries unanswered */
		netwatch_silent(&nw, (uint64_t)k, "", 0, 6 * SEC);
	CHECK(netwatch_due(&nw, 6 * SEC), "the resolver alone is asked");
}

static void resolvers(void)
{
	static const struct {
		const char *servers;
		unsigned n;
		const char *first;
		int port;
	} rows[] = {
		{ "", 0, "", 0 },
		{ "127.0.0.1", 1, "127.0.0.1", 53 },
		{ " 127.0.0.1:5353 , 192.0.2.9", 2, "127.0.0.1", 5353 },
		{ "[::1]:5300", 1, "::1", 5300 },
		{ "2001:db8::1", 1, "2001:db8::1", 53 },
		{ "1.2.3.4:0,[::1", 0, "", 0 },
		{ "a,b,c,d,e,f", NETWATCH_RESOLVERS, "a", 53 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct netwatch nw;
		unsigned n;

		netwatch_init(&nw, NULL);
		n = netwatch_resolvers(&nw, rows[i].servers);
		CHECK(n == rows[i].n, "resolvers row %zu: %u", i, n);
		if (n)
			CHECK(!strcmp(nw.dns[0].addr, rows[i].first) && nw.dns[0].port == rows[i].port,
			      "resolvers row %zu: %s:%d", i, nw.dns[0].addr, nw.dns[0].port);
	}
}

static void witnesses(void)
{
	struct netwatch nw, next;
	char s[200];
	const char *str = s;   /* CHECK_STR asks whether it is NULL */
	int k;

	netwatch_init(&nw, NULL);
	netwatch_witnesses(&nw, s, sizeof(s));
	CHECK(!s[0], "no witness: '%s'", s);
	netwatch_answer(&nw, "", 80);            /* unknown: not a witness */
	netwatch_answer(&nw, "192.0.2.1", 0);
	CHECK(nw.nw == 0, "unknown addresses kept: %u", nw.nw);
	for (k = 1; k <= 4; k++)
		netwatch_answer(&nw, "192.0.2.1", 8000 + k);
	netwatch_answer(&nw, "2001:db8::1", 443);
	netwatch_answer(&nw, "192.0.2.1", 8004);   /* again: moves first, once */
	netwatch_witnesses(&nw, s, sizeof(s));
	CHECK_STR(str, "192.0.2.1:8004, [2001:db8::1]:443, 192.0.2.1:8003");
	netwatch_silent(&nw, 1, "", 0, SEC);
	netwatch_init(&next, &nw);
	{
		struct netwatch_witness w = { "198.18.0.9", 80 };
		struct netwatch few;

		netwatch_add_witness(&next, &w);   /* full: not taken */
		netwatch_init(&few, NULL);
		netwatch_answer(&few, "198.18.0.1", 80);
		netwatch_add_witness(&few, &w);
		netwatch_add_witness(&few, &w);    /* once */
		netwatch_add_witness(&few, &next.w[0]);
		netwatch_add_witness(&few, &next.w[1]);   /* no room */
		netwatch_witnesses(&few, s, sizeof(s));
		CHECK_STR(str, "198.18.0.1:80, 198.18.0.9:80, 192.0.2.1:8004");
	}
	netwatch_witnesses(&next, s, sizeof(s));
	CHECK_STR(str, "192.0.2.1:8004, [2001:db8::1]:443, 192.0.2.1:8003");
	CHECK(next.nsilent == 0 && !next.first_silent, "a new phase counts afresh");
}

/* A port of loopback, listening (listen 1) or closed (listen 0): its fd. */
static int port_of(int listen_too, int *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (listen_too && listen(fd, 4) < 0) || getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static void probe(void)
{
	struct netwatch nw;
	int open_port = 0, closed_port = 0;
	int lfd = port_of(1, &open_port), cfd = port_of(0, &closed_port);

	CHECK(lfd >= 0 && cfd >= 0, "loopback sockets");
	netwatch_init(&nw, NULL);
	CHECK(!netwatch_probe(&nw, 100), "no witness: nothing reached");
	netwatch_answer(&nw, "127.0.0.1", open_port);
	CHECK(netwatch_probe(&nw, 1000), "a listening witness is reached");
	netwatch_init(&nw, NULL);
	netwatch_answer(&nw, "127.0.0.1", closed_port);
	CHECK(netwatch_probe(&nw, 1000), "a refused connection is an answer");
	/* 192.0.2.0/24 (TEST-NET-1) is routed nowhere here: unreachable at
	 * once, or nothing within the wait. */
	netwatch_init(&nw, NULL);
	netwatch_answer(&nw, "192.0.2.7", 9);
	CHECK(!netwatch_probe(&nw, 300), "an address nothing answers on is not reached");
	netwatch_answer(&nw, "127.0.0.1", open_port);
	CHECK(netwatch_probe(&nw, 1000), "one witness of two reached is enough");
	close(lfd);
	close(cfd);
}

int main(void)
{
	sequences();
	gap();
	independent();
	resolvers();
	witnesses();
	probe();
	TEST_DONE();
}

#include "fetch/netwatch.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void netwatch_init(struct netwatch *nw, const struct netwatch *from)
{
	memset(nw, 0, sizeof(*nw));
	if (from) {
		memcpy(nw->w, from->w, sizeof(nw->w));
		nw->nw = from->nw;
		memcpy(nw->dns, from->dns, sizeof(nw->dns));
		nw->ndns = from->ndns;
	}
}

static int same(const struct netwatch_witness *a, const char *addr, int port)
{
	return a->port == port && !strcmp(a->addr, addr);
}

/* One item of dns.servers into *w: 0, or -1 if it is not one. */
static int resolver(const char *item, size_t n, struct netwatch_witness *w)
{
	char s[64], *colon;
	const char *addr = s;
	long port = 53;

	if (n == 0 || n >= sizeof(s))
		return -1;
	memcpy(s, item, n);
	s[n] = '\0';
	if (s[0] == '[') {   /* [ipv6]:port */
		colon = strchr(s, ']');
		if (!colon)
			return -1;
		*colon = '\0';
		addr = s + 1;
		if (colon[1] == ':')
			port = strtol(colon + 2, NULL, 10);
	} else if ((colon = strchr(s, ':')) != NULL && !strchr(colon + 1, ':')) {
		*colon = '\0';   /* ipv4:port; a bare IPv6 address has several */
		port = strtol(colon + 1, NULL, 10);
	}
	if (port <= 0 || port > 65535 || strlen(addr) >= sizeof(w->addr))
		return -1;
	snprintf(w->addr, sizeof(w->addr), "%s", addr);
	w->port = (int)port;
	return 0;
}

unsigned netwatch_resolvers(struct netwatch *nw, const char *servers)
{
	const char *p = servers;

	nw->ndns = 0;
	while (p && *p && nw->ndns < NETWATCH_RESOLVERS) {
		size_t n = strcspn(p, ",");
		const char *q = p;

		while (n && isspace((unsigned char)*q)) {
			q++;
			n--;
		}
		while (n && isspace((unsigned char)q[n - 1]))
			n--;
		if (resolver(q, n, &nw->dns[nw->ndns]) == 0)
			nw->ndns++;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return nw->ndns;
}

/* Held outcomes are the sites': the count starts again. */
static void clear(struct netwatch *nw)
{
	nw->nsilent = 0;
	nw->ngone = 0;
	nw->first_silent = 0;
}

/* addr:port becomes the newest witness (once). */
static void witness(struct netwatch *nw, const char *addr, int port)
{
	unsigned i;

	if (!addr || !*addr || port <= 0 || strlen(addr) >= sizeof(nw->w[0].addr))
		return;
	for (i = 0; i < nw->nw; i++)
		if (same(&nw->w[i], addr, port))
			break;
	if (i == nw->nw && nw->nw < NETWATCH_WITNESSES)
		nw->nw++;
	if (i == nw->nw)
		i = nw->nw - 1;   /* full: the oldest goes */
	memmove(&nw->w[1], &nw->w[0], i * sizeof(nw->w[0]));
	snprintf(nw->w[0].addr, sizeof(nw->w[0].addr), "%s", addr);
	nw->w[0].port = port;
}

void netwatch_answer(struct netwatch *nw, const char *addr, int port)
{
	witness(nw, addr, port);
	clear(nw);
}

void netwatch_silent(struct netwatch *nw, uint64_t host, const char *addr, int port,
		     int64_t now)
{
	unsigned i;

	if (!nw->first_silent)
		nw->first_silent = now;
	if (addr && *addr && port > 0 && strlen(addr) < sizeof(nw->gone[0].addr)) {
		for (i = 0; i < nw->ngone && !same(&nw->gone[i], addr, port); i++)
			;
		if (i == nw->ngone && nw->ngone < NETWATCH_GONE) {
			snprintf(nw->gone[i].addr, sizeof(nw->gone[i].addr), "%s", addr);
			nw->gone[nw->ngone++].port = port;
		}
	}
	for (i = 0; i < nw->nsilent; i++)
		if (nw->silent[i] == host)
			return;
	if (nw->nsilent < NETWATCH_HOSTS)
		nw->silent[nw->nsilent++] = host;
}

void netwatch_add_witness(struct netwatch *nw, const struct netwatch_witness *w)
{
	unsigned i;

	if (!w->addr[0] || w->port <= 0 || nw->nw == NETWATCH_WITNESSES)
		return;
	for (i = 0; i < nw->nw; i++)
		if (same(&nw->w[i], w->addr, w->port))
			return;
	nw->w[nw->nw++] = *w;
}

unsigned netwatch_candidates(const struct netwatch *nw, struct netwatch_witness *out)
{
	unsigned i, g, n = 0;

	for (i = 0; i < nw->nw; i++) {
		for (g = 0; g < nw->ngone && !same(&nw->gone[g], nw->w[i].addr, nw->w[i].port);
		     g++)
			;
		if (g == nw->ngone)
			out[n++] = nw->w[i];
	}
	for (i = 0; i < nw->ndns; i++)
		out[n++] = nw->dns[i];
	return n;
}

static int any_candidate(const struct netwatch *nw)
{
	struct netwatch_witness c[NETWATCH_WITNESSES + NETWATCH_RESOLVERS];

	return netwatch_candidates(nw, c) > 0;
}

int netwatch_due(const struct netwatch *nw, int64_t now)
{
	int quiet = nw->nsilent && now - nw->first_silent >= NETWATCH_QUIET_US;

	return (nw->nsilent >= NETWATCH_HOSTS || quiet) && any_candidate(nw) &&
	       (!nw->last_probe || now - nw->last_probe >= NETWATCH_PROBE_GAP_US);
}

enum netwatch_end netwatch_at_end(const struct netwatch *nw)
{
	return nw->nsilent > 0 && any_candidate(nw) ? NETWATCH_ASK : NETWATCH_KEEP;
}

int netwatch_probed(struct netwatch *nw, int reached, int64_t now)
{
	nw->last_probe = now;
	if (reached)
		clear(nw);
	return reached;
}

void netwatch_witnesses(const struct netwatch *nw, char *out, size_t cap)
{
	struct netwatch_witness c[NETWATCH_WITNESSES + NETWATCH_RESOLVERS];
	unsigned i, n = netwatch_candidates(nw, c);
	size_t len = 0;

	if (cap)
		out[0] = '\0';
	for (i = 0; i < n && len < cap; i++) {
		int v6 = strchr(c[i].addr, ':') != NULL;
		int k = snprintf(out + len, cap - len, "%s%s%s%s:%d", i ? ", " : "", v6 ? "[" : "",
				 c[i].addr, v6 ? "]" : "", c[i].port);

		if (k < 0)
			break;
		len += (size_t)k;
	}
}

/* ---- the probe: the one call here that touches the network ---- */

/* A non-blocking connection to w started: its socket, or -1 (refused at
 * once: *reached set; or it cannot be tried). */
static int probe_start(const struct netwatch_witness *w, int *reached)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, w->addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)w->port);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, w->addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)w->port);
		len = sizeof(*in6);
	} else {
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, len) == 0 || errno == ECONNREFUSED) {
		*reached = 1;
		close(fd);
		return -1;
	}
	if (errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits for the started connections until one opens (or is refused),
 * all have failed, or timeout_ms: 1 if one reached its witness. */
static int probe_wait(struct pollfd *fds, unsigned n, int timeout_ms)
{
	struct timespec t0, t;
	unsigned i, open = n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (open) {
		long spent;

		clock_gettime(CLOCK_MONOTONIC, &t);
		spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= timeout_ms || poll(fds, n, (int)(timeout_ms - spent)) <= 0)
			return 0;
		for (i = 0; i < n; i++) {
			int err = 0;
			socklen_t el = sizeof(err);

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			if (getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
			    (err == 0 || err == ECONNREFUSED))
				return 1;
			fds[i].fd = -fds[i].fd - 1;   /* failed: poll skips it */
			open--;
		}
	}
	return 0;
}

int netwatch_probe(const struct netwatch *nw, int timeout_ms)
{
	struct netwatch_witness c[NETWATCH_WITNESSES + NETWATCH_RESOLVERS];
	struct pollfd fds[NETWATCH_WITNESSES + NETWATCH_RESOLVERS];
	unsigned i, n = 0, nc = netwatch_candidates(nw, c);
	int reached = 0;

	for (i = 0; i < nc && !reached; i++) {
		int fd = probe_start(&c[i], &reached);

		if (fd >= 0) {
			fds[n].fd = fd;
			fds[n].events = POLLOUT;
			fds[n].revents = 0;
			n++;
		}
	}
	if (!reached && n)
		reached = probe_wait(fds, n, timeout_ms);
	for (i = 0; i < n; i++)
		close(fds[i].fd < 0 ? -fds[i].fd - 1 : fds[i].fd);
	return reached;
}

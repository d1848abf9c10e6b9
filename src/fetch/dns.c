#include "fetch/dns.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/clock.h"

#include <ares.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct dns_waiter {
	dns_done_fn done;
	void *arg;
	struct dns_waiter *next;
};

struct dns_entry {
	char *name;               /* for a query that waits its turn */
	struct dns_entry *queue_next;
	int pending;
	enum dns_result result;
	char addr[DNS_ADDRS_MAX];
	int64_t expires_us;
	struct dns_waiter *waiters;
};

/*
 * At most DNS_MAX_INFLIGHT queries are sent at once: a fetcher starting
 * thousands of hosts at the same moment would otherwise overflow the
 * resolver's receive buffer, and each lost query costs a timeout.
 */
#define DNS_MAX_INFLIGHT 64

struct dns {
	ares_channel ch;
	struct hmap cache;
	int inflight;
	struct dns_entry *queue_head, *queue_tail;
	long ttl_s, negative_ttl_s;
	enum dns_family family;
	uint64_t queries, hits;
};

struct dns_query {
	struct dns *d;
	struct dns_entry *ent;
};

static int dns_lib_refs;

enum cr_err dns_new(const char *servers, enum dns_family family, long timeout_ms,
		    long ttl_s, long negative_ttl_s, struct dns **out)
{
	struct ares_options opt;
	struct dns *d;
	int rc;

	if (dns_lib_refs++ == 0 && ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
		return CR_ERR_LIB;
	d = calloc(1, sizeof(*d));
	if (!d) {
		if (--dns_lib_refs == 0)
			ares_library_cleanup();
		return CR_ERR_NOMEM;
	}
	memset(&opt, 0, sizeof(opt));
	opt.timeout = (int)timeout_ms;
	opt.tries = 3;
	/* With servers of its own, the job asks them alone: c-ares would read
	 * each node's /etc/hosts first ("fb"), and nodes whose hosts files
	 * differ would resolve a host differently. */
	opt.lookups = (char *)"b";
	rc = ares_init_options(&d->ch, &opt, ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES |
			       (servers && servers[0] ? ARES_OPT_LOOKUPS : 0));
	if (rc != ARES_SUCCESS) {
		log_err("dns", "c-ares init: %s", ares_strerror(rc));
		free(d);
		if (--dns_lib_refs == 0)
			ares_library_cleanup();
		return CR_ERR_LIB;
	}
	if (servers && servers[0]) {
		rc = ares_set_servers_ports_csv(d->ch, servers);
		if (rc != ARES_SUCCESS) {
			log_err("dns", "dns.servers '%s': %s", servers, ares_strerror(rc));
			ares_destroy(d->ch);
			free(d);
			if (--dns_lib_refs == 0)
				ares_library_cleanup();
			return CR_ERR_ARG;
		}
	}
	hmap_init(&d->cache);
	d->ttl_s = ttl_s;
	d->negative_ttl_s = negative_ttl_s;
	d->family = family;
	*out = d;
	return CR_OK;
}

void dns_free(struct dns **dp)
{
	struct dns *d = dp ? *dp : NULL;
	struct hmap_slot *s;
	size_t i = 0;

	if (!d)
		return;
	/* Cancel outstanding queries first: their callbacks see ARES_EDESTRUCTION. */
	ares_destroy(d->ch);
	while ((s = hmap_next(&d->cache, &i)) != NULL) {
		struct dns_entry *e = s->val;

		if (e)
			free(e->name);
		while (e && e->waiters) {
			struct dns_waiter *w = e->waiters;

			e->waiters = w->next;
			free(w);
		}
		free(e);
	}
	hmap_release(&d->cache);
	free(d);
	*dp = NULL;
	if (--dns_lib_refs == 0)
		ares_library_cleanup();
}

static void finish(struct dns_entry *e)
{
	struct dns_waiter *w = e->waiters;

	e->waiters = NULL;
	while (w) {
		struct dns_waiter *next = w->next;

		w->done(w->arg, e->result, e->result == DNS_OK ? e->addr : NULL);
		free(w);
		w = next;
	}
}

static void start_queued(struct dns *d);

/* The first address of each family the setting lets through into out
 * (DNS_ADDRS_MAX bytes), IPv6 first; the smallest TTL of those, or -1 when
 * none is usable. */
static int pick_addrs(enum dns_family family, const struct ares_addrinfo *res, char *out)
{
	const struct ares_addrinfo_node *n, *v4 = NULL, *v6 = NULL;
	size_t len = 0;
	int ttl = -1;

	for (n = res->nodes; n; n = n->ai_next) {
		if (n->ai_family == AF_INET && !v4 && family != DNS_FAMILY_IPV6)
			v4 = n;
		if (n->ai_family == AF_INET6 && !v6 && family != DNS_FAMILY_IPV4)
			v6 = n;
	}
	out[0] = '\0';
	/* A TTL of 2^31 s or more comes out negative: RFC 2181 reads it as 0. */
	if (v6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)v6->ai_addr)->sin6_addr, out,
			  INET6_ADDRSTRLEN);
		len = strlen(out);
		ttl = v6->ai_ttl > 0 ? v6->ai_ttl : 0;
	}
	if (v4) {
		int t = v4->ai_ttl > 0 ? v4->ai_ttl : 0;

		if (len)
			out[len++] = ',';
		inet_ntop(AF_INET, &((const struct sockaddr_in *)v4->ai_addr)->sin_addr, out + len,
			  INET_ADDRSTRLEN);
		if (ttl < 0 || t < ttl)
			ttl = t;
	}
	return ttl;
}

static void on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct dns_query *q = arg;
	struct dns_entry *e = q->ent;
	int ttl = -1;

	(void)timeouts;
	if (status == ARES_EDESTRUCTION) {
		ares_freeaddrinfo(res);
		free(q);
		return;
	}
	e->pending = 0;
	q->d->inflight--;
	if (status == ARES_SUCCESS && res && (ttl = pick_addrs(q->d->family, res, e->addr)) >= 0) {
		e->result = DNS_OK;
	} else if (status == ARES_ENOTFOUND) {
		e->result = DNS_NXDOMAIN;
	} else if (status == ARES_SUCCESS || status == ARES_ENODATA) {
		e->result = DNS_NODATA;
	} else {
		e->result = DNS_FAIL;
	}
	{
		long keep = e->result == DNS_OK ? q->d->ttl_s : q->d->negative_ttl_s;

		if (e->result == DNS_OK && ttl >= 0 && ttl < keep)
			keep = ttl < 60 ? 60 : ttl;
		e->expires_us = clock_mono_us() + (int64_t)keep * 1000000;
	}
	ares_freeaddrinfo(res);
	{
		struct dns *d = q->d;

		free(q);
		finish(e);
		start_queued(d);
	}
}

static void send_query(struct dns *d, struct dns_entry *e, const char *host)
{
	struct ares_addrinfo_hints hints;
	struct dns_query *q = malloc(sizeof(*q));

	if (!q) {
		e->pending = 0;
		e->result = DNS_FAIL;
		finish(e);
		return;
	}
	q->d = d;
	q->ent = e;
	d->queries++;
	d->inflight++;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = d->family == DNS_FAMILY_IPV4 ? AF_INET
			: d->family == DNS_FAMILY_IPV6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_flags = ARES_AI_NOSORT;
	ares_getaddrinfo(d->ch, host, NULL, &hints, on_answer, q);
}

/* Sends queued queries while there is room. */
static void start_queued(struct dns *d)
{
	while (d->queue_head && d->inflight < DNS_MAX_INFLIGHT) {
		struct dns_entry *e = d->queue_head;
		char *name = e->name;

		d->queue_head = e->queue_next;
		if (!d->queue_head)
			d->queue_tail = NULL;
		e->name = NULL;
		send_query(d, e, name);
		free(name);
	}
}

void dns_resolve(struct dns *d, const char *host, int64_t now_us, dns_done_fn done,
		 void *arg)
{
	struct dns_entry **slot, *e;
	struct dns_waiter *w;
	unsigned char tmp[sizeof(struct in6_addr)];
	char bare[256];
	size_t hl = strlen(host);

	/* Numeric hosts need no lookup ("[::1]" comes bracketed from URLs). */
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']' && hl - 2 < sizeof(bare)) {
		memcpy(bare, host + 1, hl - 2);
		bare[hl - 2] = '\0';
		if (inet_pton(AF_INET6, bare, tmp) == 1) {
			if (d->family == DNS_FAMILY_IPV4)
				done(arg, DNS_NODATA, NULL);
			else
				done(arg, DNS_OK, bare);
			return;
		}
	}
	if (inet_pton(AF_INET, host, tmp) == 1) {
		if (d->family == DNS_FAMILY_IPV6)
			done(arg, DNS_NODATA, NULL);
		else
			done(arg, DNS_OK, host);
		return;
	}
	slot = (struct dns_entry **)hmap_put(&d->cache, host, hl);
	e = *slot;
	if (e && !e->pending && e->expires_us > now_us) {
		d->hits++;
		done(arg, e->result, e->result == DNS_OK ? e->addr : NULL);
		return;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			done(arg, DNS_FAIL, NULL);
			return;
		}
		*slot = e;
	}
	w = malloc(sizeof(*w));
	if (!w) {
		done(arg, DNS_FAIL, NULL);
		return;
	}
	w->done = done;
	w->arg = arg;
	w->next = e->waiters;
	e->waiters = w;
	if (e->pending) {
		d->hits++;
		return;
	}
	e->pending = 1;
	if (d->inflight >= DNS_MAX_INFLIGHT) {
		e->name = strdup(host);
		if (!e->name) {
			e->pending = 0;
			e->result = DNS_FAIL;
			finish(e);
			return;
		}
		e->queue_next = NULL;
		if (d->queue_tail)
			d->queue_tail->queue_next = e;
		else
			d->queue_head = e;
		d->queue_tail = e;
		return;
	}
	send_query(d, e, host);
}

void dns_seed(struct dns *d, const char *host, enum dns_result r, const char *addr,
	      int64_t expires_us)
{
	struct dns_entry **slot, *e;

	if (r == DNS_OK && (!addr || strlen(addr) >= sizeof(e->addr)))
		return;
	slot = (struct dns_entry **)hmap_put(&d->cache, host, strlen(host));
	if (*slot)
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->result = r;
	if (r == DNS_OK)
		snprintf(e->addr, sizeof(e->addr), "%s", addr);
	e->expires_us = expires_us;
	*slot = e;
}

int dns_peek(const struct dns *d, const char *host, enum dns_result *r, char *addr,
	     size_t cap, int64_t *expires_us)
{
	const struct dns_entry *e = hmap_get(&d->cache, host, strlen(host));

	if (!e || e->pending || e->expires_us == 0)
		return 0;
	*r = e->result;
	snprintf(addr, cap, "%s", e->result == DNS_OK ? e->addr : "");
	*expires_us = e->expires_us;
	return 1;
}

unsigned dns_waitfds(struct dns *d, struct pollfd *fds, unsigned max)
{
	ares_socket_t socks[ARES_GETSOCK_MAXNUM];
	/* The bit tests are done unsigned: c-ares' own macros shift a signed 1
	 * into the sign bit for the last socket. */
	unsigned bits = (unsigned)ares_getsock(d->ch, socks, ARES_GETSOCK_MAXNUM);
	unsigned n = 0;
	int i;

	for (i = 0; i < ARES_GETSOCK_MAXNUM && n < max; i++) {
		short ev = 0;

		if (bits & (1u << i))
			ev |= POLLIN;
		if (bits & (1u << (i + ARES_GETSOCK_MAXNUM)))
			ev |= POLLOUT;
		if (!ev)
			continue;
		fds[n].fd = socks[i];
		fds[n].events = ev;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

void dns_process(struct dns *d, const struct pollfd *fds, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		ares_socket_t r = ARES_SOCKET_BAD, w = ARES_SOCKET_BAD;

		if (fds[i].revents & (POLLIN | POLLPRI | POLLERR | POLLHUP))
			r = fds[i].fd;
		if (fds[i].revents & POLLOUT)
			w = fds[i].fd;
		if (r != ARES_SOCKET_BAD || w != ARES_SOCKET_BAD)
			ares_process_fd(d->ch, r, w);
	}
	/* Lets c-ares handle its timeouts. */
	ares_process_fd(d->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

long dns_timeout_ms(struct dns *d)
{
	struct timeval tv, *t = ares_timeout(d->ch, NULL, &tv);

	if (!t)
		return -1;
	return (long)t->tv_sec * 1000 + t->tv_usec / 1000 + 1;
}

void dns_counters(const struct dns *d, uint64_t *queries, uint64_t *hits)
{
	*queries = d->queries;
	*hits = d->hits;
}

const char *dns_reason(enum dns_result r)
{
	switch (r) {
	case DNS_OK: return "";
	case DNS_NXDOMAIN: return "dns: nxdomain";
	case DNS_NODATA: return "dns: no address";
	case DNS_FAIL: return "dns: failure";
	}
	return "dns: failure";
}

const char *dns_result_name(enum dns_result r)
{
	switch (r) {
	case DNS_OK: return "ok";
	case DNS_NXDOMAIN: return "nxdomain";
	case DNS_NODATA: return "no address";
	case DNS_FAIL: return "failure";
	}
	return "failure";
}

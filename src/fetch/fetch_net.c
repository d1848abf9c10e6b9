/*
 * fetch_net.c - the fetch loop's requests that got nothing back: their
 * outcomes held until src/fetch/netwatch.h tells whose failure they are -
 * the sites' (written) or this node's network's (dropped: their URLs stay
 * due, and every rank stops as on a signal). See fetcher.h.
 */
#include "fetch/fetcher.h"
#include "comm/comm.h"
#include "crawldb/fetch_record.h"
#include "fetch/netwatch.h"
#include "fetch/outcome.h"
#include "util/clock.h"
#include "util/log.h"

#include <string.h>
#include <xxhash.h>

void fetch_hold(struct fetcher *f, uint32_t part, const struct fetch_record *fr)
{
	uint32_t head[2] = { part, 0 };
	size_t at = f->held.len;

	buf_add(&f->held, head, sizeof(head));
	fetch_record_pack(fr, &f->held);
	head[1] = (uint32_t)(f->held.len - at - sizeof(head));
	memcpy(f->held.p + at, head, sizeof(head));
	f->nheld++;
}

/* The held outcomes are the sites': written now; a new epoch begins. */
static void release_held(struct fetcher *f)
{
	size_t at = 0;

	while (at + 8 <= f->held.len) {
		uint32_t head[2];
		struct fetch_record fr;

		memcpy(head, f->held.p + at, sizeof(head));
		at += sizeof(head);
		if (fetch_record_unpack(f->held.p + at, head[1], &fr) != CR_OK) {
			fail(f, CR_ERR_FORMAT);
			break;
		}
		fail(f, segout_outcome(f->out, head[0], &fr, NULL, 0, SEGOUT_NONE));
		outcome_count(f->c, &fr);
		at += head[1];
	}
	f->held.len = 0;
	f->nheld = 0;
	f->net_epoch++;
}

void fetch_silent(struct fetcher *f, const struct host *h, const char *addr, int port)
{
	netwatch_silent(&f->net, XXH3_64bits(h->name, strlen(h->name)), addr, port,
			clock_mono_us());
}

/* This node's network is down: the held outcomes are dropped - their URLs
 * stay due - and the fetch stops as on a signal, every rank's. */
static void net_down(struct fetcher *f, int64_t now)
{
	char w[3 * 64];

	netwatch_witnesses(&f->net, w, sizeof(w));
	log_warn("fetch", "the network of this node (%s) looks down: %u hosts in a row got "
		 "nothing back, and other servers that answered before, or the resolvers (%s), "
		 "do not answer either; stopping the crawl: the %llu URLs those requests were "
		 "for stay due",
		 comm_node(f->j->rank), f->net.nsilent, w, (unsigned long long)f->nheld);
	f->c[FC_NOT_REACHED] += f->nheld;
	f->held.len = 0;
	f->nheld = 0;
	f->c[FC_NETDOWN] = 1;
	comm_notice_send();
	if (!f->drain_until)
		f->drain_until = now + 1;
	f->stopping = 1;
}

void fetch_net_judge(struct fetcher *f)
{
	int64_t now;
	int reached;

	f->c[FC_NET_PROBES]++;
	reached = netwatch_probe(&f->net, NETWATCH_PROBE_MS);
	now = clock_mono_us();
	if (netwatch_probed(&f->net, reached, now))
		release_held(f);
	else
		net_down(f, now);
}

void fetch_heard(struct fetcher *f, const struct http_result *r)
{
	netwatch_answer(&f->net, r->ip, r->port);
	if (f->nheld)
		release_held(f);
	else
		f->net_epoch++;
}

void fetch_net_end(struct fetcher *f)
{
	if (f->c[FC_NETDOWN]) {
		f->held.len = 0;   /* found down already: dropped */
		f->nheld = 0;
	} else if (netwatch_at_end(&f->net) == NETWATCH_ASK) {
		fetch_net_judge(f);
	} else if (f->nheld) {
		release_held(f);
	}
}

/*
 * fetch_robots.c - the fetch loop's robots.txt requests: asking an origin's
 * (a redirect to another host resolved first), taking its answer, and what
 * its URLs get while it is unreachable. See fetcher.h.
 */
#include "fetch/fetcher.h"
#include "crawldb/fetch_record.h"
#include "fetch/outcome.h"
#include "fetch/sched.h"
#include "robots/robots.h"
#include "url/url.h"
#include "util/clock.h"

#include <stdio.h>
#include <string.h>

/*
 * RFC 9309 2.3.1.4: an unreachable robots.txt (5xx, 429, no answer) means
 * "disallow all" for now. The URL is deferred - due again when its origin's
 * robots.txt is asked again, crawl.retry_interval_s after that answer - with
 * the answer named; unless no server we may trust answers: an error. The
 * outcome carries the answer's time, not now, so that a URL held by an
 * answer an earlier job cached is due with the robots.txt, not a whole
 * retry interval after it.
 */
void fetch_robots_hold(struct fetcher *f, struct host_item *it)
{
	char why[96];

	if (it->origin->refused) {
		fetch_emit_status_at(f, it, ST_ERROR, it->origin->refused, 0, 0);
		return;
	}
	if (it->origin->http_status > 0)
		snprintf(why, sizeof(why), "robots.txt unreachable: http %d",
			 it->origin->http_status);
	else if (it->origin->failure)
		snprintf(why, sizeof(why), "robots.txt unreachable: %s", it->origin->failure);
	else
		snprintf(why, sizeof(why), "robots.txt unreachable: no answer");
	f->c[FC_ROBOTS_WAIT]++;
	/* Nothing came back since the network last answered: held (netwatch.h). */
	fetch_emit_status_at(f, it, ST_DEFERRED, why, it->origin->fetched_at,
			     it->origin->silent && it->origin->silent == f->net_epoch);
}

/* o's host, if it waits for o's robots.txt, waits no more. */
static void release_host(struct fetcher *f, struct origin *o)
{
	struct host *h = o->host;

	if (h->waiting == o) {
		h->waiting = NULL;
		hosts_set(&f->hosts, h, HOST_READY);
	}
}

/*
 * o's robots.txt answered (archived: its exchange just went to the robots
 * series). An answer that settles o - the site's, not a silence netwatch
 * has yet to judge - is journaled with its exchange (journal.h, kind
 * JOURNAL_ROBOTS): a resumed fetch takes it rather than asking again, and
 * writes it to the robots cache though no URL of o is left, as this
 * attempt would have - generate plans the next round from that cache.
 */
static void journal_answer(struct fetcher *f, struct origin *o, int archived)
{
	int early = hmap_get(&f->early.map, o->key, strlen(o->key)) == o;
	struct buf b;

	if ((o->state != ORIGIN_READY && o->state != ORIGIN_UNAVAILABLE) || o->silent) {
		if (archived)
			segout_robots_done(f->out, o->part);
		return;
	}
	buf_init(&b);
	origins_answer_pack(o, early, clock_now_us(), &b);
	segout_robots_answer(f->out, o->part, archived, b.p, b.len);
	buf_release(&b);
}

/* Its robots.txt request ended without one: as an answer that never came
 * (RFC 9309 2.3.1.4, unreachable), why a static string; silent: nothing
 * came back at all (netwatch.h). */
static void robots_unasked(struct fetcher *f, struct origin *o, const char *why, int silent)
{
	origin_on_answer(o, &f->origins.pol, clock_now_us(), 0, NULL, 0, NULL);
	origin_on_failure(o, why);
	o->silent = silent ? f->net_epoch : 0;
	if (silent)
		fetch_silent(f, o->host, "", 0);
	f->c[FC_ROBOTS_UNAVAILABLE]++;
	journal_answer(f, o, 0);
	release_host(f, o);
}

/* The name of a robots.txt redirect's target answered: its request
 * starts, paced as the origin's host (whose robots.txt it is). */
static void on_hop_dns(void *arg, enum dns_result res, const char *addr)
{
	struct origin *o = arg;
	struct host *h = o->host;
	struct fetcher *f = h->ctx;
	char url[URL_MAX_LEN + 32], name[URL_HOST_MAX], a[DNS_ADDRS_MAX];
	struct host_settings s;
	const char *blocked;

	if (f->stopping || f->drain_until || f->failed) {
		/* a stop or the time limit came first: nothing new starts, and
		 * the chain is left cut (nothing is cached of it) */
		release_host(f, o);
		return;
	}
	if (res != DNS_OK) {
		f->c[FC_DNS_FAILED]++;
		robots_unasked(f, o, dns_reason(res), res == DNS_FAIL);
		return;
	}
	origin_robots_url(o, url, sizeof(url));
	if (url_host(url, name, sizeof(name)) != CR_OK) {
		robots_unasked(f, o, "bad redirect", 0);
		return;
	}
	/* the operator's rules by name, then the addresses, as for a host */
	if (f->rules && host_rules_by_name(f->rules, name, &s) && s.block) {
		robots_unasked(f, o, "blocked: operator", 0);
		return;
	}
	blocked = hosts_address_verdict(NULL, addr, f->j->cfg.allow_private, &f->allow, f->rules);
	if (blocked) {
		robots_unasked(f, o, !strcmp(blocked, "operator") ? "blocked: operator" :
				     "blocked: non-public address", 0);
		return;
	}
	snprintf(a, sizeof(a), "%s", addr);
	if (fetch_start(f, h, name, a, url, h->robots_kind, o, NULL))
		f->early_active += h->robots_kind == REQ_EARLY;
}

/*
 * Asks o's robots.txt; h is waiting for it. A redirect to another host
 * (http://example.com/robots.txt -> https://www.example.com/robots.txt)
 * has that host's name resolved by the crawler's resolver first
 * (dns.servers, dns.family), as every host's is - libcurl would use the
 * system's - and its name and address checked like any host's.
 */
void fetch_robots_start(struct fetcher *f, struct host *h, struct origin *o, int kind)
{
	char url[URL_MAX_LEN + 32], name[URL_HOST_MAX];

	origin_robots_url(o, url, sizeof(url));
	if (url_host(url, name, sizeof(name)) == CR_OK && strcmp(name, h->name)) {
		h->robots_kind = kind;
		f->c[FC_DNS_QUERIES]++;
		dns_resolve(f->dns, name, clock_mono_us(), on_hop_dns, o);
		return;
	}
	if (fetch_start(f, h, h->name, h->addr, url, kind, o, NULL))
		f->early_active += kind == REQ_EARLY;
}

/* Why a robots.txt request got no answer, in the words a page's outcome
 * uses (outcome.c): a static string, or NULL when there is none. */
static const char *robots_failure(const struct http_result *r)
{
	switch (r->transport) {
	case HTTP_ADDR_REFUSED:
		return "blocked: non-public address";
	case HTTP_TIMEOUT:
		return "timeout";
	case HTTP_HEAD_TOO_LARGE:
		return "header too large";
	default:
		return r->error[0] ? r->error : NULL;
	}
}

void fetch_robots_done(struct fetcher *f, struct origin *o, const struct http_result *r)
{
	struct host *h = o->host;
	struct outcome_in in;
	struct outcome_robots ro;
	const unsigned char *rb;
	size_t rl;
	struct buf dec;
	int archived = 0;

	f->c[FC_ROBOTS]++;
	if (r->head_len) {
		/* After redirects, the record is of the URL that answered. */
		struct warc_exchange wx;
		const char *name;
		uint64_t off;

		segout_exchange(r, r->url, r->transport == HTTP_CUT ? "length" : NULL, &wx);
		fail(f, segout_archive(f->out, o->part, SEGOUT_ROBOTS, &wx, &name, &off));
		archived = 1;
	}
	outcome_input(r, f->j->cfg.max_decoded_bytes, clock_now_us() / 1000000, &in);
	outcome_robots(&in, &ro);
	/* An early robots.txt holds its own host only: a group's hold would
	 * reach its members' cache entries, which generate reads, and which
	 * hosts are asked early depends on the rank count. */
	if (ro.retry_after_s >= 0)
		sched_hold(r->kind == REQ_EARLY ? &h->s : h->gate,
			   r->end_mono_us + ro.retry_after_s * 1000000);
	buf_init(&dec);
	outcome_robots_body(&in, (size_t)f->j->cfg.robots_max_bytes + 1, &dec, &rb, &rl);
	origin_on_answer(o, &f->origins.pol, r->start_wall_us, ro.status, rb, rl, ro.location);
	buf_release(&dec);
	if (!ro.status)
		origin_on_failure(o, robots_failure(r));
	o->silent = r->silent ? f->net_epoch : 0;   /* complete() told netwatch */
	if (o->state == ORIGIN_UNAVAILABLE)
		f->c[FC_ROBOTS_UNAVAILABLE]++;
	if (o->state == ORIGIN_READY)
		sched_crawl_delay(&h->pol, robots_crawl_delay_ms(o->rules));
	journal_answer(f, o, archived);
	release_host(f, o);
}

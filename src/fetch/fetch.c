/*
 * fetch.c - the fetch phase's event loop (fetch.h): wait, dispatch, repeat
 * over the host queues phase.c loaded; every decision is asked of a room
 * of its own - politeness of sched.h, a host's life of hosts.h, an
 * origin's robots.txt of robots/origin.h, what a response means of
 * outcome.h, which links join the round of frontier.h - and every byte
 * written goes through segout.h.
 */
#include "fetch/fetcher.h"
#include "comm/comm.h"
#include "crawldb/fetch_record.h"
#include "util/addr.h"
#include "fetch/dns.h"
#include "fetch/frontier.h"
#include "fetch/hosts.h"
#include "fetch/http.h"
#include "fetch/origins.h"
#include "fetch/outcome.h"
#include "fetch/segout.h"
#include "parse/parse.h"
#include "robots/robots.h"
#include "url/url.h"
#include "util/clock.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/stop.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define EXTRA_FDS 16
/* The loop looks at the clock, the stop flag and the progress file at
 * least this often. */
#define LOOP_WAIT_MAX_US 200000
/* How soon a hint from another rank is looked at (comm_hint_poll), at most. */
#define HINT_WAIT_MAX_US 20000
/* How long early robots.txt requests still open may end once the round's
 * own work is done, before they are cut off: an answer on its way is not
 * lost (cut off, it is asked again - twice at the server), and a slow
 * server does not hold the round. */
#define EARLY_GRACE_US 300000

const char *const fetch_counter_names[FC_COUNT_] = {
	"urls", "requests", "robots_requests", "robots_cached", "fetched",
	"redirect", "gone", "error", "denied", "blocked", "deferred", "truncated",
	"not_reached", "robots_unavailable", "robots_wait", "backoffs", "parked",
	"bytes", "dns_queries", "dns_failed", "hosts", "latency_us_sum", "too_large", "timeout",
	"revisits", "held", "followed", "tls_failed", "embeds", "robots_early",
	"early_hints", "netdown", "net_probes",
};


/* ---- outcomes ---- */

static void set_str(const char **s, size_t *n, const char *v)
{
	*s = v;
	*n = strlen(v);
}

/* ---- outcomes ---- */

/* An outcome without a request: denied, deferred, blocked, DNS failure. */
void fetch_emit_status_at(struct fetcher *f, struct host_item *it, int status,
			  const char *why, int64_t at, int held)
{
	struct fetch_record fr;

	memset(&fr, 0, sizeof(fr));
	fetchlist_record(it, &fr);
	fr.rec.status = (uint8_t)status;
	fr.rec.fetched_at = at > 0 ? at : clock_now_us();
	set_str(&fr.reason, &fr.reason_len, why);
	if (held) {
		fetch_hold(f, it->part, &fr);
		return;
	}
	fail(f, segout_outcome(f->out, it->part, &fr, NULL, 0, SEGOUT_NONE));
	outcome_count(f->c, &fr);
}

static void emit_status(struct fetcher *f, struct host_item *it, int status, const char *why)
{
	fetch_emit_status_at(f, it, status, why, 0, 0);
}

/* Every URL of h left gets status; held: they came of a silence. */
static void fail_all(struct fetcher *f, struct host *h, int status, const char *why, int held)
{
	for (; h->next < h->n; h->next++)
		if (!h->items[h->next]->early)
			fetch_emit_status_at(f, h->items[h->next], status, why, 0, held);
}

/* ---- starting requests ---- */

int fetch_start(struct fetcher *f, struct host *h, const char *name, const char *addr,
		const char *url, int kind, void *user, const struct http_request *cond)
{
	struct http_request rq = {
		.url = url, .host = name, .addr = addr, .user = user, .kind = kind,
		.plain = kind != REQ_PAGE,
	};
	int64_t now = clock_mono_us();

	if (cond) {
		rq.if_modified_since_s = cond->if_modified_since_s;
		rq.ims_is_last_modified = cond->ims_is_last_modified;
		rq.etag = cond->etag;
	}
	if (http_start(f->http, &rq) != CR_OK) {
		fail(f, CR_ERR_LIB);
		return 0;
	}
	sched_on_start(&h->s, now);
	if (h->gate != &h->s)
		sched_on_start(h->gate, now);
	return 1;
}

static int start(struct fetcher *f, struct host *h, const char *url, int kind, void *user,
		 const struct http_request *cond)
{
	return fetch_start(f, h, h->name, h->addr, url, kind, user, cond);
}

/* A refetch's conditions: the page's ETag and Last-Modified as the last
 * answer with content gave them, else the time of that answer - not of
 * the last attempt, which may have failed since (http_conditions says
 * which go together). */
static void start_page(struct fetcher *f, struct host *h, struct host_item *it)
{
	const struct crawl_record *r = &it->rec;
	struct http_request cond = { 0 };

	/* Fetched before: a 304 spares the body (a revisit record) - unless
	 * the page's links are wanted again (job.h whole_before_us). */
	if (!(f->revisits && r->fetched_at > 0 && r->digest) ||
	    r->fetched_at < f->j->whole_before_us) {
		start(f, h, it->url, REQ_PAGE, it, NULL);
		return;
	}
	cond.ims_is_last_modified = r->last_modified > 0;
	cond.if_modified_since_s = (r->last_modified > 0 ? r->last_modified :
				    r->visits.visited_at > 0 ? r->visits.visited_at :
				    r->fetched_at) / 1000000;
	cond.etag = r->etag_len ? r->etag : NULL;
	start(f, h, it->url, REQ_PAGE, it, &cond);
}

enum robots_word { ROBOTS_ALLOWS, ROBOTS_DEFERS, ROBOTS_DENIES };

/* What robots.txt says of a URL whose origin's rules are known: a
 * Crawl-delay past politeness.max_crawl_delay_ms defers it, else its rules
 * allow or deny it. Raises h's delay to the Crawl-delay. */
static enum robots_word robots_word_of(struct host *h, const struct host_item *it)
{
	const struct robots *rules = it->origin->rules;
	char path[URL_MAX_LEN + 1];

	if (sched_crawl_delay(&h->pol, robots_crawl_delay_ms(rules)))
		return ROBOTS_DEFERS;
	if (robots_url_path(it->url, path, sizeof(path)) == CR_OK && !robots_allowed(rules, path))
		return ROBOTS_DENIES;
	return ROBOTS_ALLOWS;
}

/* 1 if the URL may be fetched, else its outcome is written. */
static int allowed(struct fetcher *f, struct host *h, struct host_item *it)
{
	switch (robots_word_of(h, it)) {
	case ROBOTS_DEFERS:
		emit_status(f, it, ST_DEFERRED, "crawl-delay above politeness.max_crawl_delay_ms");
		return 0;
	case ROBOTS_DENIES:
		emit_status(f, it, ST_DENIED, "robots.txt");
		return 0;
	case ROBOTS_ALLOWS:
		break;
	}
	return 1;
}

/* The URLs next in h's queue that its origin's known rules deny get their
 * outcome now, not at the host's next turn a delay later: they make no
 * request, and a round whose plan does not count them (generate.h) should
 * not wait a delay for them. A deferred one waits for the turn. */
static void skip_denied(struct fetcher *f, struct host *h)
{
	while (h->next < h->n && !f->stopping) {
		struct host_item *it = h->items[h->next];

		if (it->early || it->origin->state != ORIGIN_READY ||
		    robots_word_of(h, it) != ROBOTS_DENIES)
			return;
		h->next++;
		emit_status(f, it, ST_DENIED, "robots.txt");
	}
}

static void on_dns(void *arg, enum dns_result res, const char *addr)
{
	struct host *h = arg;
	struct fetcher *f = h->ctx;
	const char *blocked;

	if (res != DNS_OK) {
		/* No answer may be the network's: its outcomes wait (netwatch.h). */
		f->c[FC_DNS_FAILED]++;
		fail_all(f, h, ST_ERROR, dns_reason(res), res == DNS_FAIL);
		if (res == DNS_FAIL)
			fetch_silent(f, h, "", 0);
	} else if ((blocked = hosts_address_verdict(h, addr, f->j->cfg.allow_private, &f->allow,
						     f->rules)) != NULL) {
		fail_all(f, h, ST_BLOCKED, blocked, 0);
	} else {
		snprintf(h->addr, sizeof(h->addr), "%s", addr);
		/* Before its first request, so no timing is lost by the move. */
		if (f->j->cfg.politeness_by == POLITE_BY_IP && !h->group)
			hosts_join_addr(&f->hosts, h, addr);
	}
	hosts_set(&f->hosts, h, HOST_READY);
}

/* The host's turn: start what politeness allows now. */
/* A new host's first turn: the operator's block, else its name asked. */
static void first_turn(struct fetcher *f, struct host *h, int64_t now)
{
	if (h->blocked) {
		/* The operator's block: no request at all, robots.txt included. */
		fail_all(f, h, ST_BLOCKED, "operator", 0);
		hosts_set(&f->hosts, h, HOST_READY);
		return;
	}
	hosts_set(&f->hosts, h, HOST_RESOLVING);
	f->c[FC_DNS_QUERIES]++;
	dns_resolve(f->dns, h->name, now, on_dns, h);
}

static void turn(struct fetcher *f, struct host *h, int64_t now)
{
	if (h->state == HOST_NEW) {
		first_turn(f, h, now);
		return;
	}
	/* A group's budget may have been used by another member since this
	 * host's turn was set: then it waits for the group. */
	while (h->next < h->n && !(h->group && sched_next_start(h->gate, &h->pol) > now)) {
		struct host_item *it = h->items[h->next];
		enum origin_action a = origin_on_need(it->origin);

		if (it->early && a != ORIGIN_ASK) {
			h->next++;   /* known by now: nothing to ask */
			continue;
		}
		switch (a) {
		case ORIGIN_ASK:
		case ORIGIN_WAIT:
			/* waiting first: a redirect's name may fail at once */
			h->waiting = it->origin;
			hosts_set(&f->hosts, h, HOST_ROBOTS);
			if (a == ORIGIN_ASK)
				fetch_robots_start(f, h, it->origin,
						   it->early ? REQ_EARLY : REQ_ROBOTS);
			return;
		case ORIGIN_HOLD:
			h->next++;
			fetch_robots_hold(f, it);
			continue;
		case ORIGIN_APPLY:
			h->next++;
			if (!allowed(f, h, it))
				continue;
			start_page(f, h, it);
			break;
		}
		break;
	}
	hosts_settle(&f->hosts, h, f->stopping);
}

/* ---- finished requests ---- */

/* Archives a page's exchange where the classifier says, as a revisit
 * record when it is one; fr gets the WARC file and offset. */
static enum segout_series archive_page(struct fetcher *f, const struct host_item *it,
				       const struct http_result *r, const struct outcome *oc,
				       struct fetch_record *fr)
{
	enum segout_series k = oc->archive == OUTCOME_ARCHIVE_DIAGNOSTICS ? SEGOUT_DIAGNOSTICS :
			       oc->archive != OUTCOME_ARCHIVE_PAGES ? SEGOUT_NONE :
			       it->rec.meta.kind == CRAWL_SITEMAP ? SEGOUT_SITEMAPS : SEGOUT_PAGES;
	enum outcome_revisit rv = f->revisits ?
		outcome_revisit(oc, it->rec.fetched_at, it->rec.digest) : OUTCOME_NEW;
	struct warc_exchange wx;

	segout_exchange(r, it->url, oc->truncated ? "length" : NULL, &wx);
	if (k == SEGOUT_NONE)
		return k;
	if (rv != OUTCOME_NEW) {
		wx.revisit_profile = rv == OUTCOME_NOT_MODIFIED ? WARC_PROFILE_NOT_MODIFIED
								: WARC_PROFILE_IDENTICAL;
		wx.refers_to_uri = it->url;
		wx.refers_to_date_us = it->rec.fetched_at;
		f->c[FC_REVISITS]++;
	}
	fail(f, segout_archive(f->out, it->part, k, &wx, &fr->warc, &fr->warc_offset));
	fr->warc_len = strlen(fr->warc);
	return fr->warc_len ? k : SEGOUT_NONE;
}

/* What politeness makes of a finished request of h. */
static void host_outcome(struct fetcher *f, struct host *h, const struct outcome *oc,
			 int64_t now)
{
	if (oc->retry_after_s >= 0)
		sched_hold(h->gate, now + oc->retry_after_s * 1000000);
	switch (sched_on_outcome(h->gate, &h->failures, oc->host_failed, &f->hosts.pol, now)) {
	case SCHED_GO:
		break;
	case SCHED_BACKOFF:
		f->c[FC_BACKOFFS]++;
		break;
	case SCHED_PARK:
		h->parked = 1;
		f->c[FC_PARKED]++;
		f->c[FC_NOT_REACHED] += h->n - h->next;
		h->next = h->n;
		log_debug("fetch", "host '%s' parked after %d failures", h->name, h->failures);
		break;
	}
}

/* The outcome of a page's response, and its fetch record (pointing into r
 * and oc). Pure given the clock. */
static void classify(const struct fetcher *f, const struct host_item *it,
		     const struct http_result *r, struct outcome *oc, struct fetch_record *fr)
{
	struct outcome_in in;

	outcome_input(r, f->j->cfg.max_decoded_bytes, clock_now_us() / 1000000, &in);
	outcome_classify(&in, oc);
	memset(fr, 0, sizeof(*fr));
	fetchlist_record(it, fr);
	fr->rec.status = oc->status;
	fr->rec.http_status = oc->http_status;
	fr->rec.fetched_at = r->start_wall_us;
	fr->rec.digest = oc->digest;
	fr->latency_us = r->end_mono_us - r->start_mono_us;
	fr->body_len = r->body_len;
	set_str(&fr->reason, &fr->reason_len, oc->reason);
	set_str(&fr->location, &fr->location_len, oc->location);
	set_str(&fr->content_type, &fr->content_type_len, oc->content_type);
	set_str(&fr->charset, &fr->charset_len, oc->charset);
	set_str(&fr->rec.etag, &fr->rec.etag_len, oc->etag);
	fr->rec.last_modified = oc->last_modified_s * 1000000;
}

/* A page's exchange archived, then its parse, text, links followed,
 * metadata and outcome; pdf: its PDF read apart (docs.h), taken over, or
 * NULL. */
static void page_finish(struct fetcher *f, struct host_item *it, const struct http_result *r,
			const struct outcome *oc, struct fetch_record *fr, struct pdf_doc *pdf)
{
	struct host *h = it->origin->host;
	enum segout_series k = archive_page(f, it, r, oc, fr);
	struct parse_kept kept;
	int parsed = 0;

	if (r->silent) {   /* the site's failure, or the network's: netwatch.h */
		fetch_hold(f, it->part, fr);
		return;
	}
	f->parsed.len = 0;
	memset(&kept, 0, sizeof(kept));
	if (f->parse || f->frontier.on)
		parsed = parse_page_read(f->j, fr, r->head, r->head_len, r->body, r->body_len,
					 &f->parsed, f->pc, &kept, pdf);
	if (kept.html)   /* what tells a change (update/merge.c) */
		fr->rec.text_digest = kept.page.text_digest;
	if (kept.is_pdf && kept.pdf.fate != PDF_OK)   /* fetched, but not read */
		set_str(&fr->reason, &fr->reason_len, pdf_fate_reason(kept.pdf.fate));
	if (k != SEGOUT_NONE)
		fail(f, segout_text(f->out, it->part, kept.html ? &kept.page : NULL, kept.flags));
	if (parsed)   /* also while stopping: journaled, queued on resume */
		f->c[FC_FOLLOWED] += frontier_page(&f->frontier, h, it, f->parsed.p,
						   f->parsed.len, f->limit, r->end_mono_us,
						   f->out);
	f->c[FC_EMBEDS] = f->frontier.embeds;
	parsed &= f->parse;   /* parsed for its links alone: the parse phase writes it */
	if (k != SEGOUT_NONE) {
		struct segout_meta m = { it->url, r->start_wall_us,
					 (r->end_mono_us - r->start_mono_us) / 1000,
					 (long)(h->pol.delay_us / 1000),
					 parsed ? f->parsed.p : NULL, parsed ? f->parsed.len : 0,
					 kept.is_pdf ? &kept.pdf : NULL };

		fail(f, segout_metadata(f->out, it->part, k, &m));
	}
	parse_kept_release(&kept);
	fail(f, segout_outcome(f->out, it->part, fr, parsed ? f->parsed.p : NULL,
			       parsed ? f->parsed.len : 0, k));
	outcome_count(f->c, fr);
}

void fetch_docs_poll(struct fetcher *f, int wait)
{
	struct docs_page *p;
	struct outcome oc;
	struct fetch_record fr;

	while (f->docs && (p = docs_next_done(f->docs, wait)) != NULL) {
		struct host *h = p->it->origin->host;

		if (f->failed) {   /* nothing more is written: fetched again */
			f->c[FC_NOT_REACHED]++;
			docs_page_free(p);
			continue;
		}
		classify(f, p->it, &p->r, &oc, &fr);
		page_finish(f, p->it, &p->r, &oc, &fr, &p->pdf);
		docs_page_free(p);
		/* Its links may have joined a host that had finished meanwhile:
		 * it takes turns again (as a hand-off's host does). */
		if (!f->stopping && !f->drain_until && h->next < h->n && !hosts_closed(h))
			hosts_reopen(&f->hosts, h);
	}
}

/* 1 if the page's PDF goes to the docs thread (docs.h). */
static int read_apart(struct fetcher *f, struct host_item *it, const struct http_result *r,
		      const struct fetch_record *fr)
{
	struct docs_page *p;

	if (r->silent || !(f->parse || f->frontier.on) ||
	    !parse_wants_pdf(f->j, fr, r->body, r->body_len))
		return 0;
	if (!f->docs && docs_open(f->j, &f->docs) != CR_OK)
		return 0;   /* read here, the loop waiting */
	if (!(p = docs_page_new(it, r)))
		return 0;
	docs_submit(f->docs, p);
	return 1;
}

static void page_done(struct fetcher *f, struct host_item *it, const struct http_result *r)
{
	struct outcome oc;
	struct fetch_record fr;

	classify(f, it, r, &oc, &fr);
	if (r->detail[0])
		log_debug("fetch", "%s: %s", it->url, r->detail);
	host_outcome(f, it->origin->host, &oc, r->end_mono_us);
	if (!read_apart(f, it, r, &fr))
		page_finish(f, it, r, &oc, &fr, NULL);
}

/* A request of h ended (or was cut off) at now: its politeness timing. */
static void host_on_end(struct host *h, int64_t now)
{
	sched_on_end(&h->s, now);
	if (h->gate != &h->s)
		sched_on_end(h->gate, now);
}

/* Past h's early items: nothing is left to ask for them. */
static void past_early(struct host *h)
{
	while (h->next < h->n && h->items[h->next]->early)
		h->next++;
}

/* An early robots.txt answered: past h's early item, unless a redirect is
 * to be followed (a request of its own, at the host's next turn). */
static void early_done(struct fetcher *f, struct host *h, const struct origin *o)
{
	f->early_active--;
	f->c[FC_ROBOTS_EARLY]++;
	if (o->state != ORIGIN_UNKNOWN)
		past_early(h);
}

static void complete(struct fetcher *f, const struct http_result *r)
{
	struct host *h = r->kind == REQ_PAGE ? ((struct host_item *)r->user)->origin->host
					     : ((struct origin *)r->user)->host;

	f->c[FC_REQUESTS] += r->head_len > 0;
	f->c[FC_BYTES] += r->body_len;
	f->c[FC_LATENCY_US] += (uint64_t)(r->end_mono_us - r->start_mono_us);
	host_on_end(h, r->end_mono_us);
	if (r->silent)
		fetch_silent(f, h, r->ip, r->port);
	else
		fetch_heard(f, r);
	if (r->kind == REQ_PAGE)
		page_done(f, r->user, r);
	else
		fetch_robots_done(f, r->user, r);
	if (r->kind == REQ_EARLY)
		early_done(f, h, r->user);
	skip_denied(f, h);
	hosts_settle_group(&f->hosts, h, f->stopping);
	http_release(f->http, r);
}

/* ---- the loop ---- */

/* "Stop soon" (util/stop.h), asked of this rank or of another (comm.h). */
static int stop_asked(void)
{
	if (stop_requested()) {
		comm_notice_send();
		return 1;
	}
	return comm_notice_heard();
}

/* A stop, its grace running out, the time limit. Returns 1 when the
 * grace of a stop has run out: the loop ends at once. */
int fetch_limits(struct fetcher *f, int64_t now)
{
	const struct config *cfg = &f->j->cfg;

	if (!f->drain_until && stop_asked()) {
		/* Open requests may finish within the grace; what finished is
		 * journaled when the loop ends. */
		log_info("fetch", "asked to stop: no new requests, %d open ones get %ld s",
			 http_active(f->http), cfg->stop_grace_s);
		f->drain_until = now + (int64_t)cfg->stop_grace_s * 1000000 + 1;
		f->c[FC_NOT_REACHED] += hosts_leave_rest(&f->hosts, f->stopping);
	}
	if (f->drain_until && now >= f->drain_until) {
		f->stopping = 1;
		return 1;
	}
	if (now >= f->limit && !f->stopping) {
		log_info("fetch", "fetch.time_limit_s reached: leaving the rest due");
		f->stopping = 1;
		f->c[FC_NOT_REACHED] += hosts_leave_rest(&f->hosts, f->stopping);
	}
	return 0;
}

/* Waits for the next host's turn, a socket, or LOOP_WAIT_MAX_US; in the
 * early requests' grace (until > 0) no turn comes, only its end. */
/* 1 while the PDFs being read apart fill their bound (docs.h): no request
 * starts until one is done, so that what waits stays bounded by the
 * requests already open. */
static int docs_busy(const struct fetcher *f)
{
	return f->docs && docs_full(f->docs);
}

static void wait_events(struct fetcher *f, int64_t now, int64_t until)
{
	struct pollfd fds[EXTRA_FDS];
	int64_t wait_us = LOOP_WAIT_MAX_US;
	long dt = dns_timeout_ms(f->dns);
	unsigned nfds;

	if (until)
		wait_us = until - now < wait_us ? until - now : wait_us;
	else if (http_active(f->http) < f->j->cfg.max_connections && !docs_busy(f) &&
		 hosts_next_time(&f->hosts) - now < wait_us)
		wait_us = hosts_next_time(&f->hosts) - now;
	if (dt >= 0 && dt * 1000 < wait_us)
		wait_us = dt * 1000;
	if (f->j->nranks > 1 && f->frontier.early_fn && wait_us > HINT_WAIT_MAX_US)
		wait_us = HINT_WAIT_MAX_US;
	if (wait_us < 0)
		wait_us = 0;
	nfds = dns_waitfds(f->dns, fds, EXTRA_FDS - 1);
	if (f->docs && docs_pending(f->docs)) {   /* a PDF read apart wakes the loop */
		fds[nfds].fd = docs_fd(f->docs);
		fds[nfds].events = POLLIN;
		fds[nfds++].revents = 0;
	}
	http_poll(f->http, fds, nfds, (int)((wait_us + 999) / 1000));
	dns_process(f->dns, fds, nfds);
}

/* A request still open when the loop ends. An early robots.txt is cut off
 * when the round's own work is done: its host's next request keeps a
 * delay from now, as the early robots cache carries (it may have reached
 * the server). */
static void on_abandon(void *arg, void *user, int kind)
{
	struct fetcher *f = arg;
	struct host *h;

	f->c[FC_NOT_REACHED] += kind == REQ_PAGE;
	if (kind != REQ_EARLY)
		return;
	f->early_active--;
	h = ((struct origin *)user)->host;
	host_on_end(h, clock_mono_us());
	/* Its host is done with the phase: nothing joins an early host
	 * (frontier_take), and the origin keeps no rules (origins.h). */
	h->waiting = NULL;
	past_early(h);
	hosts_set(&f->hosts, h, HOST_READY);
}

/* A link another rank found to a host of this one's (phase.c's
 * on_hint_out): its robots.txt may be asked now. */
static void on_hint_in(void *arg, const void *p, size_t n)
{
	struct fetcher *f = arg;

	if (!f->stopping && !f->drain_until)
		frontier_hint(&f->frontier, p, n);
}

/* 1 while the loop goes on: the round has work of its own (asked to stop:
 * only until the open requests end), or early robots.txt requests are
 * open within their grace, which *grace (0: none yet) marks the end of,
 * from when the round's own work ended. */
static int loop_busy(struct fetcher *f, int64_t now, int64_t *grace)
{
	if ((f->hosts.left > f->hosts.early_left && !f->drain_until) ||
	    http_active(f->http) > f->early_active || (f->docs && docs_pending(f->docs))) {
		*grace = 0;
		return 1;
	}
	if (!f->early_active || f->drain_until)
		return 0;
	if (!*grace)
		*grace = now + EARLY_GRACE_US;
	return now < *grace;
}

void fetch_loop(struct fetcher *f)
{
	const struct config *cfg = &f->j->cfg;
	const struct http_result *r;
	struct host *h;
	int64_t grace = 0, now = clock_mono_us();

	/* Links followed meanwhile a stop are journaled, not fetched. Early
	 * robots.txt files keep the loop only for their grace once the round
	 * has no work of its own, and no new request starts in it. */
	while (loop_busy(f, now, &grace) && !f->failed && !f->stopping) {
		if (fetch_limits(f, now))
			break;
		hosts_tick(&f->hosts, now);
		if (now >= f->next_sync) {
			fail(f, segout_sync_async(f->out));
			f->next_sync = now + (int64_t)cfg->sync_interval_ms * 1000;
		}
		while (!f->stopping && !f->drain_until && !grace &&   /* a stop: nothing new */
		       http_active(f->http) < cfg->max_connections && !docs_busy(f) &&
		       (h = hosts_due(&f->hosts, now)) != NULL)
			turn(f, h, now);
		wait_events(f, now, grace);
		http_run(f->http);
		while ((r = http_next_done(f->http)) != NULL)
			complete(f, r);
		fetch_docs_poll(f, 0);
		if (netwatch_due(&f->net, clock_mono_us()))
			fetch_net_judge(f);
		comm_hint_poll(on_hint_in, f);
		f->c[FC_EMBEDS] = f->frontier.embeds;   /* also those another rank handed in */
		progress_tick(&f->prog, f->c, &f->hosts, 0);
		now = clock_mono_us();
	}
	/* Time limit, stop or failure: of the PDFs read apart, those done are
	 * finished, the one being read waited for (twice parse.pdf_timeout_s
	 * at most), those waiting dropped - fetched again, as the URLs not
	 * reached; what is still open is abandoned and stays due. Outcomes
	 * still held are judged. */
	if (f->docs)
		f->c[FC_NOT_REACHED] += docs_cancel(f->docs);
	fetch_docs_poll(f, 1);
	http_abandon_all(f->http, on_abandon, f);
	fetch_net_end(f);
	progress_tick(&f->prog, f->c, &f->hosts, PROGRESS_FORCE);
}


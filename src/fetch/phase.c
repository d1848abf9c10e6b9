/*
 * phase.c - the fetch phase around its loop (fetch.h, fetcher.h): the
 * owned partitions' fetch lists, robots cache entries and what earlier
 * attempts finished are loaded into the queues; fetch.c's loop runs; the
 * ranks hand each other the requisites their pages showed on each other's
 * hosts (handoff.h) and the loop runs again for them; then every rank
 * commits its outputs and robots cache, or none does.
 */
#include "fetch/fetch.h"
#include "fetch/fetcher.h"
#include "comm/comm.h"
#include "crawldb/fetch_record.h"
#include "crawldb/layout.h"
#include "fetch/carry.h"
#include "fetch/fetchlist.h"
#include "fetch/handoff.h"
#include "fetch/journal.h"
#include "fetch/outcome.h"
#include "inputs/inputs.h"
#include "url/url.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/stop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading ---- */

/* How URLs join the phase's queues (fetchlist.h), counting from zero. */
static struct fetchlist_load list_load(struct fetcher *f)
{
	struct fetchlist_load l = { f->j, f->seg, &f->hosts, &f->origins, &f->done, f, f->rules,
				    0, 0 };

	return l;
}


/* A link to a host new to the crawl (frontier.h's early_fn): its
 * robots.txt may be asked now (fetchlist_early). */
static void on_early(void *arg, const char *url, size_t len, uint32_t p)
{
	struct fetcher *f = arg;
	struct fetchlist_load l = list_load(f);

	if (!f->stopping && !f->drain_until)
		fetchlist_early(&l, &f->early, url, len, p);
	/* At robots.early_max, or the cache's hosts too many to note: no
	 * more links are looked at for it this phase. */
	if (f->early.map.count >= (size_t)f->j->cfg.robots_early_max || f->origins.known_full)
		f->frontier.early_fn = NULL;
}

/* A link to a host of another rank's partition that may be new to the
 * crawl (frontier.h's hint_fn): passed on to that rank, which asks its
 * robots.txt early if its seen-set and robots cache say so - once per
 * host and phase, at most robots.early_max hosts. */
static void on_hint_out(void *arg, const char *url, size_t len, uint32_t p)
{
	struct fetcher *f = arg;
	char u[URL_MAX_LEN + 1], name[URL_HOST_MAX];

	if (f->stopping || f->drain_until || len > URL_MAX_LEN ||
	    f->hinted.count >= (size_t)f->j->cfg.robots_early_max)
		return;
	memcpy(u, url, len);
	u[len] = '\0';
	if (url_host(u, name, sizeof(name)) != CR_OK ||
	    hmap_get(&f->hinted, name, strlen(name)))
		return;
	*hmap_put(&f->hinted, name, strlen(name)) = f;
	f->c[FC_EARLY_HINTS]++;
	comm_hint_send(layout_owner(p, f->j->nranks), url, len);
}

/* A link an earlier attempt followed: queued again after the fetch lists. */
static void on_followed(void *arg, uint32_t p, const struct crawl_record *rec,
			const uint64_t *bands, unsigned nb, unsigned handoff)
{
	if (handoff)
		frontier_keep_handoff(&((struct fetcher *)arg)->frontier, rec, handoff);
	else
		frontier_keep(&((struct fetcher *)arg)->frontier, p, rec, bands, nb);
}

/* An outcome an earlier attempt committed: its URL is not fetched again. */
static void on_kept(void *arg, const struct fetch_record *fr)
{
	struct fetcher *f = arg;

	*hmap_put(&f->done, fr->rec.url, fr->rec.url_len) = f;
	outcome_count(f->c, fr);
}

/* A robots.txt answer an earlier attempt took: its origin's answer in this
 * phase too (not asked again), and in the robots cache it writes. */
static enum cr_err on_robots(void *arg, uint32_t p, const void *answer, size_t n)
{
	struct fetcher *f = arg;

	return origins_restore(&f->origins, &f->early, p, answer, n, clock_now_us());
}

/* The owned partitions' fetch lists, robots cache entries and what
 * earlier attempts at the segment finished. */
static enum cr_err load(struct fetcher *f, int64_t now)
{
	struct fetchlist_load l = list_load(f);
	const struct segout_keep keep = { on_kept, on_followed, on_robots, f };
	uint32_t p;
	enum cr_err e = CR_OK;

	for (p = 0; !e && p < f->j->dir.partitions; p++) {
		if (!layout_owns(p, f->j->rank, f->j->nranks))
			continue;
		e = segout_resume(f->out, p, &keep, &f->kept, &f->warc_cut);
		if (!e)
			e = fetchlist_read(&l, p);
		if (!e)
			e = origins_load(&f->origins, p, now);
	}
	origins_mark_loaded(&f->origins);   /* links queued again may be of new origins */
	if (!e)
		e = frontier_load(&f->frontier, &l);
	if (!e)
		e = origins_load_late(&f->origins, now, NULL, NULL);
	frontier_count_earlier(&f->hosts, &f->done);
	f->c[FC_URLS] += l.urls;
	f->c[FC_HOSTS] += l.new_hosts;
	if (!e && (f->kept || f->warc_cut))
		log_info("fetch", "segment %d: resuming an interrupted fetch: %llu finished URLs "
			 "kept, %llu uncommitted WARC bytes cut", f->seg,
			 (unsigned long long)f->kept, (unsigned long long)f->warc_cut);
	if (!e)
		f->c[FC_ROBOTS_CACHED] += carry_in(&f->origins, f->dns, clock_now_us(),
						   clock_mono_us(), f->j->config_since_us);
	return e;
}

/* ---- the phase ---- */

/* The servers that answered last in the job's earlier fetch phases
 * (netwatch.h's witnesses). */
static struct netwatch witnesses;

/* Collective: each rank's newest witness goes to every rank, which keeps
 * those of the ranks after it where it has room - a rank whose hosts have
 * not answered yet (its first of them failing as its network does) is
 * still told from a site that fails by servers that answered the others. */
static void share_witnesses(struct fetcher *f)
{
	struct netwatch_witness mine, *all;
	int r, n = f->j->nranks;

	memset(&mine, 0, sizeof(mine));
	if (f->net.nw)
		mine = f->net.w[0];
	all = calloc((size_t)n, sizeof(*all));
	if (!all)
		abort();   /* a few bytes a rank: the collective cannot be left */
	comm_allgather(&mine, sizeof(mine), all);
	for (r = 1; r < n; r++)
		netwatch_add_witness(&f->net, &all[(f->j->rank + r) % n]);
	free(all);
}

/* tls.ca_file's bytes into out: in a job, those rank 0 read (inputs/inputs.h). */
static enum cr_err ca_bytes(const char *path, struct buf *out)
{
	enum cr_err e = inputs_read(path, INPUTS_FILE_MAX, out);

	if (e)
		log_err("fetch", "tls.ca_file: cannot read '%s' on %s: %s", path, inputs_node(),
			e == CR_ERR_LIMIT ? "too large" : strerror(errno));
	return e ? CR_ERR_ARG : CR_OK;
}

/* Earlier attempts at the segment: their rank files settled (rank 0 cuts
 * and removes what no mark names, before any rank writes) and this
 * attempt's number agreed (journal.h). Collective, whatever happens. */
static enum cr_err prior_attempts(const struct job *j, int seg, struct journal_warcs *prior,
				  int *attempt)
{
	int max = -1;
	enum cr_err e = journal_warcs_scan(j, seg, j->rank == 0, prior, &max);
	int64_t m = max;

	comm_max_i64(&m, 1);
	*attempt = (int)m + 1;
	if (comm_agree(e == CR_OK))
		return CR_OK;
	journal_warcs_free(prior);
	return e ? e : CR_ERR_COMM;
}

static enum cr_err fetcher_init(struct fetcher *f, struct job *j, int seg, int attempt,
				struct journal_warcs *prior)
{
	const struct config *cfg = &j->cfg;
	struct sched_policy pol = {
		(int64_t)cfg->delay_ms * 1000, (int)cfg->max_in_flight,
		(int64_t)cfg->max_crawl_delay_ms * 1000, (int64_t)cfg->backoff_max_ms * 1000,
		(int)cfg->max_host_failures,
	};
	struct http_opts ho = {
		cfg->user_agent, cfg->accept_encoding, cfg->from, cfg->connect_timeout_s,
		cfg->timeout_s,
		cfg->low_speed_bytes, cfg->low_speed_time_s, cfg->max_body_bytes,
		cfg->max_header_bytes,
		cfg->max_in_flight, cfg->max_connections, cfg->allow_private, &f->allow,
		(enum http_version)cfg->http_version, cfg->tls_verify, NULL, 0,
	};
	char bad[64];
	struct buf ca;
	enum cr_err e;

	memset(f, 0, sizeof(*f));
	buf_init(&ca);
	f->j = j;
	f->seg = seg;
	f->parse = cfg->fetch_parse;
	f->limit = cfg->time_limit_s ? clock_mono_us() + cfg->time_limit_s * 1000000 : INT64_MAX;
	/* The parse phase reads bodies back from the WARC files, and a revisit
	 * has none: revisit records only when the fetcher parses. */
	f->revisits = cfg->warc_revisits && cfg->fetch_parse;
	hosts_init(&f->hosts, &pol);
	f->hosts.max_hold_us = (int64_t)cfg->max_hold_s * 1000000;
	origins_init(&f->origins, j);
	origins_init_early(&f->early, j, &f->origins);
	hmap_init(&f->done);
	hmap_init(&f->hinted);
	buf_init(&f->parsed);
	buf_init(&f->held);
	netwatch_init(&f->net, &witnesses);
	netwatch_resolvers(&f->net, cfg->dns_servers);
	f->net_epoch = 1;
	if (addr_list_parse(cfg->allow_addresses, &f->allow, bad) != 0) {
		log_err("fetch", "fetch.allow_addresses: bad address or range '%s'", bad);
		return CR_ERR_ARG;
	}
	/* Read by every fetch (rank 0 read it anew, round.c): the operator
	 * steers between rounds. libcurl's
	 * per-host cap lets a rule's max_in_flight through (sched.h keeps the
	 * other hosts to the phase's). */
	if (cfg->hosts_rules[0] && host_rules_load(cfg->hosts_rules, &f->rules) != CR_OK)
		return CR_ERR_ARG;
	if (host_rules_max_in_flight(f->rules) > ho.max_host_connections)
		ho.max_host_connections = host_rules_max_in_flight(f->rules);
	if (attempt < 0)
		return CR_ERR_IO;   /* the earlier attempts could not be read (said) */
	e = segout_open(j, seg, f->parse, attempt, prior, &f->out);
	if (!e && cfg->tls_ca_file[0])
		e = ca_bytes(cfg->tls_ca_file, &ca);
	ho.ca_pem = ca.len ? ca.p : NULL;
	ho.ca_pem_len = ca.len;
	if (!e)
		e = dns_new(cfg->dns_servers, (enum dns_family)cfg->dns_family,
			    cfg->dns_timeout_ms, cfg->dns_cache_ttl_s, cfg->dns_negative_ttl_s,
			    &f->dns);
	if (!e)
		e = http_client_new(&ho, &f->http);
	buf_release(&ca);
	return e;
}

static void fetcher_release(struct fetcher *f)
{
	netwatch_init(&witnesses, &f->net);
	docs_close(&f->docs);   /* the loop took every page back */
	http_client_free(&f->http);
	dns_free(&f->dns);
	segout_free(&f->out);
	hosts_release(&f->hosts);
	origins_release(&f->origins);
	origins_release(&f->early);
	frontier_release(&f->frontier);
	hmap_release(&f->done);
	hmap_release(&f->hinted);
	buf_release(&f->parsed);
	buf_release(&f->held);
	host_rules_free(&f->rules);
}

/* Requisites the ranks' pages showed on other ranks' hosts (handoff.h):
 * fetched by the loop again while any rank hands some over. Collective,
 * whatever e. */
static enum cr_err handoffs(struct fetcher *f, enum cr_err e)
{
	struct fetchlist_load l = list_load(f);
	int i, more = 1, go;
	enum cr_err he;

	for (i = 0; i < HANDOFF_ROUNDS_MAX && more; i++) {
		/* A rank done early waits here, passing a signal on. */
		comm_notice_wait(stop_requested);
		go = !e && !f->failed && !fetch_limits(f, clock_mono_us()) && !f->stopping &&
		     !f->drain_until;
		he = handoff_exchange(&f->frontier, go, &l, f->limit, f->out, &more);
		if (!he && go && more)   /* their origins bound by the robots cache too */
			he = carry_in_late(&f->origins, f->dns, clock_now_us(), clock_mono_us(),
					   f->j->config_since_us);
		e = e ? e : he;
		if (go && more && !e)
			fetch_loop(f);
	}
	f->c[FC_HOSTS] += l.new_hosts;
	f->c[FC_EMBEDS] = f->frontier.embeds;
	return e;
}

/* Collective: the phase commits on every rank or on none. A rank that
 * stopped or failed may have been handed requisites it did not take (they
 * are in their senders' journals alone), and one that took them has them
 * in its journal only once synced: so every rank syncs, and unless every
 * rank ended well, none commits - the next attempt resumes from all the
 * journals. */
static enum cr_err agree(struct fetcher *f, enum cr_err e)
{
	if (!e && !f->failed)
		fail(f, segout_sync(f->out));
	if (comm_agree(!e && !f->failed && !f->drain_until))
		return e;
	return e ? e : f->failed ? f->failed : CR_AGAIN;
}

/* After the loops, once every rank ended well (agree: a stopped fetch
 * synced its journals there and commits nothing): the outputs and the
 * robots cache are committed. */
static enum cr_err finish(struct fetcher *f)
{
	uint64_t q, hits;
	enum cr_err e = f->failed;

	if (!e)
		e = segout_commit(f->out);
	if (!e) {
		carry_out(&f->origins, f->dns, clock_now_us(), clock_mono_us());
		e = origins_write(&f->origins, f->seg, clock_now_us());
	}
	if (!e) {
		carry_out(&f->early, f->dns, clock_now_us(), clock_mono_us());
		e = origins_write(&f->early, f->seg, clock_now_us());
	}
	dns_counters(f->dns, &q, &hits);
	f->c[FC_DNS_QUERIES] = q;
	f->c[FC_HELD] = f->hosts.released;
	f->c[FC_NOT_REACHED] += f->hosts.released_urls;
	if (f->hosts.released)
		log_info("fetch", "%llu hosts asked for a pause over fetch.max_hold_s: their %llu "
			 "URLs left the round and wait for it",
			 (unsigned long long)f->hosts.released,
			 (unsigned long long)f->hosts.released_urls);
	return e;
}

enum cr_err fetch_run(struct job *j, int seg, int version, uint64_t *counters,
		      uint64_t *parse_counters)
{
	struct fetcher f;
	struct journal_warcs prior;
	int attempt = 0;
	enum cr_err e = prior_attempts(j, seg, &prior, &attempt);
	/* (set up whatever e: the collectives below need the fetcher) */
	uint64_t cut = prior.cut;
	enum cr_err ie = fetcher_init(&f, j, seg, e ? -1 : attempt, &prior);

	e = e ? e : ie;
	journal_warcs_free(&prior);   /* segout_open took it, or it is not needed */
	f.warc_cut += cut;

	share_witnesses(&f);   /* collective, whatever e */
	if (!e)
		e = frontier_init(&f.frontier, j, version, &f.done);
	if (!e && j->cfg.robots_early_max > 0) {
		f.frontier.early_fn = on_early;
		f.frontier.hint_fn = j->nranks > 1 ? on_hint_out : NULL;
		f.frontier.early_arg = &f;
	}
	if (!e)
		e = load(&f, clock_now_us());
	progress_init(&f.prog, j, seg, "fetch");
	f.prog.kept = f.kept;
	if (!e)
		fetch_loop(&f);
	e = handoffs(&f, e);
	e = agree(&f, e);
	progress_tick(&f.prog, f.c, NULL, PROGRESS_FINAL);
	progress_release(&f.prog);
	if (!e)
		e = finish(&f);
	memcpy(counters, f.c, sizeof(f.c));
	if (parse_counters)
		memcpy(parse_counters, f.pc, sizeof(f.pc));
	fetcher_release(&f);
	return e;
}

#include "generate/generate.h"
#include "generate/part.h"
#include "generate/refresh.h"
#include "generate/rescope.h"
#include "generate/seedcap.h"
#include "scope/decisions.h"
#include "robots/cache.h"
#include "robots/robots.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum cr_err count_duplicates(const char *path, struct hmap *hosts)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r);

	while (!e && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		char url[URL_MAX_LEN + 1], host[URL_HOST_MAX];
		void **slot;
		uint64_t v;

		if (crawl_record_unpack(data, n, &rec) || rec.url_len > URL_MAX_LEN) {
			e = CR_ERR_FORMAT;
			break;
		}
		if (rec.status != ST_FETCHED && rec.status != ST_DUPLICATE &&
		    rec.status != ST_TRUNCATED && rec.status != ST_TOO_LARGE)
			continue;
		memcpy(url, rec.url, rec.url_len);
		url[rec.url_len] = '\0';
		if (url_host(url, host, sizeof(host)) != CR_OK)
			continue;
		slot = hmap_put(hosts, host, strlen(host));
		v = (uint64_t)(uintptr_t)*slot + 1 + ((uint64_t)(rec.status == ST_DUPLICATE) << 32);
		*slot = (void *)(uintptr_t)v;
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

/* Keeps an origin's rules (owns them), unless the partition's are past
 * GEN_RULES_BYTES. */
static void keep_rules(struct gen_part *g, const struct robots_cache_entry *e,
		       struct robots *rules)
{
	struct gen_rules *k;
	void **slot;

	g->robots_bytes += e->body_len + GEN_RULES_ENTRY;
	if (g->robots_bytes > GEN_RULES_BYTES)
		g->robots_over = 1;
	if (g->robots_over || (k = malloc(sizeof(*k))) == NULL) {
		g->robots_over = 1;   /* without memory, as past the bound: none */
		robots_free(&rules);
		return;
	}
	slot = hmap_put(&g->robots, e->origin, strlen(e->origin));
	if (*slot) {
		free(k);
		robots_free(&rules);
		return;
	}
	k->rules = rules;
	k->answered_at = e->fetched_at;
	*slot = k;
}

static enum cr_err note_delay(void *arg, const struct robots_cache_entry *e)
{
	struct gen_part *g = arg;
	struct robots *rules;
	long cd;

	if (e->times.hold_until > g->now)
		*hmap_put(&g->holds, e->origin, strlen(e->origin)) =
			(void *)(uintptr_t)e->times.hold_until;
	if (e->http_status < 200 || e->http_status >= 300 ||
	    robots_parse_with(e->body, e->body_len, g->j->cfg.robots_agent,
			      ROBOTS_ESCAPES_DECODED, &rules) != CR_OK)
		return CR_OK;
	cd = robots_crawl_delay_ms(rules);
	if (cd > 0 && g->rules.round_ms > 0)
		*hmap_put(&g->delays, e->origin, strlen(e->origin)) = (void *)(uintptr_t)cd;
	/* Kept whatever their age: the fetch may ask again, but what a round
	 * plans must not depend on the clock (generate_robots_of). */
	keep_rules(g, e, rules);
	return CR_OK;
}

static void release_rules(struct hmap *m)
{
	struct hmap_slot *s;
	size_t i = 0;

	while ((s = hmap_next(m, &i)) != NULL) {
		struct gen_rules *k = s->val;

		robots_free(&k->rules);
		free(k);
	}
	hmap_release(m);
}

/*
 * What the robots.txt cache knows of the origins of partition p: holds a
 * host asked for that have not ended, each origin's rules (GEN_RULES_BYTES)
 * and - only when the round has a span (generate.round_s,
 * fetch.time_limit_s) - its Crawl-delay.
 */
static void load_crawl_delays(struct gen_part *g, uint32_t p)
{
	int ver = layout_robots_last(&g->j->dir);
	char path[PATH_MAX];

	if (ver == 0)
		return;
	layout_robots_part(&g->j->dir, ver, p, path, sizeof(path));
	if (robots_cache_scan(path, note_delay, g) != CR_OK)
		log_warn("generate", "cannot read the robots cache '%s'", path);
	if (g->robots_over) {
		release_rules(&g->robots);
		hmap_init(&g->robots);
	}
}

/* What url's origin's cached robots.txt (g->robots) says of it; *at gets
 * when it was answered. */
static enum generate_robots url_robots(const struct gen_part *g, const char *url, int64_t *at)
{
	const struct gen_rules *k;
	char path[URL_MAX_LEN + 1];
	int denies;

	if (!g->robots.count)
		return GEN_ROBOTS_NONE;
	k = hmap_get(&g->robots, url, (size_t)(url_path(url) - url));
	denies = k && robots_url_path(url, path, sizeof(path)) == CR_OK &&
		 !robots_allowed(k->rules, path);
	*at = denies ? k->answered_at : 0;
	return generate_robots_of(denies, *at, g->rules.robots_ttl_us, g->now);
}

/* What the partition knows of url's host (and origin) so far. */
static void host_of(const struct gen_part *g, char *url, const char *host,
		    struct generate_host *h)
{
	uint64_t v;
	size_t ol = (size_t)(url_path(url) - url);
	void *cd;

	v = (uint64_t)(uintptr_t)hmap_get(&g->per_host, host, strlen(host));
	h->selected = v & 0xffffffffu;
	h->denied_taken = v >> 32;
	v = (uint64_t)(uintptr_t)hmap_get(&g->dups, host, strlen(host));
	h->pages = v & 0xffffffffu;
	h->duplicates = v >> 32;
	cd = g->rules.round_ms > 0 ? hmap_get(&g->delays, url, ol) : NULL;
	h->crawl_delay_ms = cd ? (long)(uintptr_t)cd : -1;
	h->hold_until = g->holds.count ? (int64_t)(uintptr_t)hmap_get(&g->holds, url, ol) : 0;
	host_rules_by_name(g->hr, host, &h->op);
}

static const int verdict_counter[] = {
	[GEN_SELECT] = GC_SELECTED, [GEN_TOO_DEEP] = GC_TOO_DEEP, [GEN_NOT_DUE] = GC_NOT_DUE,
	[GEN_DEMOTED] = GC_DEMOTED, [GEN_HOST_CAPPED] = GC_HOST_CAPPED,
	[GEN_POLITENESS_CAPPED] = GC_POLITENESS_CAPPED, [GEN_HELD] = GC_HELD,
	[GEN_SEED_CAPPED] = GC_SEED_CAPPED, [GEN_DENIED] = GC_ROBOTS_DENIED,
};

int generate_judge(struct gen_part *g, const void *data, size_t n, struct crawl_record *rec,
		   char *host, struct generate_host *h, enum generate_verdict *v)
{
	char url[URL_MAX_LEN + 1];

	if (crawl_record_unpack(data, n, rec) || rec->url_len > URL_MAX_LEN)
		return -1;
	memcpy(url, rec->url, rec->url_len);
	url[rec->url_len] = '\0';
	memset(h, 0, sizeof(*h));
	h->seed_capped = g->cap && !seedcap_allows(g->cap, rec);
	h->rescope = g->rescope.count && hmap_get(&g->rescope, url, rec->url_len);
	if (url_host(url, host, URL_HOST_MAX) != CR_OK)
		host[0] = '\0';
	else
		host_of(g, url, host, h);
	*v = generate_select(rec, h, &g->rules, g->now);
	/* Only a URL its host's caps or hold would judge is matched against
	 * its rules: the others' verdicts do not depend on them. */
	/* A host whose Crawl-delay the fetch defers (sched.h) defers its URLs
	 * before their rules are read: not denied here either. */
	if (*v != GEN_TOO_DEEP && *v != GEN_NOT_DUE && *v != GEN_SEED_CAPPED && host[0] &&
	    !h->op.block && !(h->crawl_delay_ms > g->rules.max_crawl_delay_ms) &&
	    (h->robots = url_robots(g, url, &h->robots_at)) != GEN_ROBOTS_NONE)
		*v = generate_select(rec, h, &g->rules, g->now);
	return 0;
}

int generate_settled(enum generate_verdict v)
{
	return v == GEN_TOO_DEEP || v == GEN_NOT_DUE || v == GEN_HELD || v == GEN_SEED_CAPPED ||
	       v == GEN_DENIED;
}

/* Writes the outcome of rec, which its valid robots.txt (answered at)
 * denies, to the partition's denied/ file, opened at its first. */
static enum cr_err add_denied(struct gen_part *g, const struct crawl_record *rec, int64_t at)
{
	struct fetch_record fr;
	struct buf b;
	enum cr_err e = CR_OK;

	if (!g->denied) {
		char path[PATH_MAX];

		layout_segment_sub(&g->j->dir, g->seg, "denied", path, sizeof(path));
		e = fs_mkdirs(path);
		layout_segment_part(&g->j->dir, g->seg, "denied", g->p, path, sizeof(path));
		if (!e)
			e = recfile_writer_open(path, REC_KIND_FETCH, (int)g->j->cfg.zstd_level,
						&g->denied);
		if (e) {
			log_err("generate", "cannot write '%s'", path);
			return e;
		}
	}
	generate_denied_outcome(rec, at, &fr);
	buf_init(&b);
	fetch_record_pack(&fr, &b);
	e = recfile_writer_add(g->denied, b.p, b.len);
	buf_release(&b);
	return e;
}

int generate_account(struct gen_part *g, const struct crawl_record *rec, const char *host,
		     const struct generate_host *h, enum generate_verdict v)
{
	void **slot;

	if (!generate_settled(v)) {
		if (!host[0])
			return 0;
		slot = hmap_put(&g->per_host, host, strlen(host));
		if (!*slot) {
			g->c[GC_HOSTS]++;
			g->c[GC_DEMOTED_HOSTS] += generate_demoted(&g->rules, h);
		}
		if (v == GEN_SELECT)
			*slot = (void *)((uintptr_t)*slot +
					 (h->robots == GEN_ROBOTS_STALE ? (uintptr_t)1 << 32 : 1));
	}
	g->c[verdict_counter[v]]++;
	g->c[GC_RESCOPE_DUE] += generate_rescoped(rec, h, g->rules.config_since_us);
	if (v == GEN_NOT_DUE && crawl_record_status_retries(rec->status))
		g->c[GC_RETRY_LATER]++;
	if (v == GEN_SEED_CAPPED && g->dlog && !g->failed)
		g->failed = decisions_add(g->dlog, "per-seed-limit", rec->url, rec->url_len, "", 0);
	if (v == GEN_DENIED && !g->failed)
		g->failed = add_denied(g, rec, h->robots_at);
	return v == GEN_SELECT;
}

/* One CrawlDb record: selected (1) or not (0); -1 if damaged. */
static int consider(struct gen_part *g, const void *data, size_t n)
{
	struct crawl_record rec;
	struct generate_host h;
	char host[URL_HOST_MAX];
	enum generate_verdict v;

	if (generate_judge(g, data, n, &rec, host, &h, &v))
		return -1;
	g->c[GC_RECORDS]++;
	return generate_account(g, &rec, host, &h, v);
}

/* Streams the part's records through consider(), writing the selected:
 * CR_EOF at the end, else the error. */
static enum cr_err select_records(struct gen_part *g, struct recfile_reader *r, const char *in,
				  struct recfile_writer *w)
{
	const void *data;
	size_t n;
	enum cr_err e = CR_EOF;

	while (r && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		int sel = consider(g, data, n);

		if (sel < 0) {
			log_err("generate", "damaged record in '%s'", in);
			return CR_ERR_FORMAT;
		}
		if (sel && (e = recfile_writer_add(w, data, n)) != CR_OK)
			return e;
	}
	return e;
}

void generate_next_rank(struct gen_part *g)
{
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_next(g->ranks, &data, &n);

	g->rank_live = e == CR_OK && rank_record_unpack(data, n, &g->rank_cur) == CR_OK;
	if (!g->rank_live && e != CR_EOF)
		log_warn("generate", "a damaged rank record: the URLs after it go unranked");
}

/* With generate.order pagerank or hostrank: partition p's ranks, if any. */
static void open_ranks(struct gen_part *g, uint32_t p)
{
	char path[PATH_MAX];

	if (g->score.order != SCORE_ORDER_PAGERANK && g->score.order != SCORE_ORDER_HOSTRANK)
		return;
	rank_part_path(&g->j->dir, p, path, sizeof(path));
	if (!fs_exists(path) || recfile_reader_open(path, REC_KIND_RANK, &g->ranks) != CR_OK) {
		char first[PATH_MAX];

		/* once when there are none; for each part missing beside the rest */
		rank_part_path(&g->j->dir, 0, first, sizeof(first));
		if (p == 0 || fs_exists(first))
			log_warn("generate", "no ranks in '%s': run 'mpicrawl rank' (or set "
				 "rank.every_rounds); the URLs go by cash", path);
		g->ranks = NULL;
		return;
	}
	generate_next_rank(g);
}

/* Partition p's fetch list, or with a budget its candidates. */
static enum cr_err generate_partition(struct job *j, int seg, int ver, uint32_t p,
				      int64_t now, const struct host_rules *hr,
				      const struct seedcap *cap, struct budget *bud, uint64_t *c)
{
	char in[PATH_MAX], out[PATH_MAX];
	struct recfile_reader *r = NULL;
	struct recfile_writer *w;
	struct gen_part g;
	enum cr_err e;

	if (bud)
		ranked_tmp_path(j, p, out, sizeof(out));
	else
		layout_segment_part(&j->dir, seg, "fetchlist", p, out, sizeof(out));
	e = recfile_writer_open(out, bud ? REC_KIND_SORT : REC_KIND_FETCHLIST,
				(int)j->cfg.zstd_level, &w);
	if (e)
		return e;
	if (ver > 0) {
		layout_crawldb_part(&j->dir, ver, p, in, sizeof(in));
		e = recfile_reader_open(in, REC_KIND_CRAWLDB, &r);
		if (e) {
			log_err("generate", "cannot read CrawlDb part '%s'", in);
			recfile_writer_abort(&w);
			return e;
		}
	}
	memset(&g, 0, sizeof(g));
	g.j = j;
	g.now = now;
	g.seg = seg;
	g.p = p;
	g.c = c;
	g.hr = hr;
	g.cap = cap;
	g.budget = bud;
	generate_rules_from(&j->cfg, &g.rules);
	score_rules_from(&j->cfg, &g.score);
	refresh_rules_from(&j->cfg, &g.refresh);
	g.rules.round_ms = job_round_span_ms(j);
	g.rules.config_since_us = j->config_since_us;
	hmap_init(&g.per_host);
	hmap_init(&g.delays);
	hmap_init(&g.robots);
	hmap_init(&g.holds);
	hmap_init(&g.dups);
	hmap_init(&g.rescope);
	if (j->rescope)
		e = rescope_load(j, seg - 1, p, &g.rescope);
	load_crawl_delays(&g, p);
	open_ranks(&g, p);
	if (!e && cap && cap->n && j->cfg.log_decisions)
		e = decisions_open(&j->dir, seg, "generate", p, (int)j->cfg.zstd_level, &g.dlog);
	if (r && j->cfg.demote_min_pages > 0 && count_duplicates(in, &g.dups) != CR_OK)
		log_warn("generate", "cannot count the duplicates of '%s'", in);
	if (!e)
		e = bud || g.score.order != SCORE_ORDER_FIFO ? ranked_select(&g, r, in, w)
							      : select_records(&g, r, in, w);
	hmap_release(&g.per_host);
	hmap_release(&g.delays);
	release_rules(&g.robots);
	hmap_release(&g.holds);
	hmap_release(&g.dups);
	hmap_release(&g.rescope);
	recfile_reader_free(&g.ranks);
	recfile_reader_free(&r);
	if (e == CR_EOF && g.failed)
		e = g.failed;
	if (e == CR_EOF && g.dlog)
		e = decisions_commit(&g.dlog) ? CR_ERR_IO : CR_EOF;
	decisions_abort(&g.dlog);
	if (e == CR_EOF && g.denied && (e = recfile_writer_commit(&g.denied)) == CR_OK)
		e = CR_EOF;
	recfile_writer_abort(&g.denied);
	if (e != CR_EOF) {
		recfile_writer_abort(&w);
		return e;
	}
	return recfile_writer_commit(&w);
}

/* With generate.top_n: agrees the budget (collective) and writes the
 * fetch lists from the candidates; ok is this rank's state so far. */
static enum cr_err take_budget(struct job *j, int seg, struct budget *bud, int ok,
			       const struct seedcap_comm *mpi, uint64_t *c)
{
	enum cr_err e = budget_agree(bud, (uint64_t)j->cfg.top_n, j->cfg.recrawl_share, ok, mpi);
	uint32_t p;

	for (p = 0; p < j->dir.partitions; p++) {
		char tmp[PATH_MAX];

		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		if (!e)
			e = ranked_write(j, seg, p, bud, c);
		ranked_tmp_path(j, p, tmp, sizeof(tmp));
		unlink(tmp);   /* after a failure too */
	}
	return e;
}

enum cr_err generate_run(struct job *j, int seg, int ver, int64_t now,
			 const struct seedcap *cap, const struct seedcap_comm *mpi,
			 uint64_t *counters)
{
	char sub[PATH_MAX];
	struct host_rules *hr = NULL;
	struct budget bud, *b = NULL;
	uint32_t p;
	enum cr_err e = CR_OK;

	/* Read again by every round (rank 0 read it anew, round.c): an operator
	 * steers a campaign between rounds and jobs. */
	if (j->cfg.hosts_rules[0])
		e = host_rules_load(j->cfg.hosts_rules, &hr);
	layout_segment_sub(&j->dir, seg, "fetchlist", sub, sizeof(sub));
	if (!e)
		e = fs_mkdirs(sub);
	if (!e && j->cfg.top_n > 0 && (e = budget_open(&bud, j->tmpdir)) == CR_OK)
		b = &bud;
	for (p = 0; !e && p < j->dir.partitions; p++)
		if (layout_owns(p, j->rank, j->nranks))
			e = generate_partition(j, seg, ver, p, now, hr, cap, b, counters);
	host_rules_free(&hr);
	if (j->cfg.top_n > 0) {
		enum cr_err e2 = take_budget(j, seg, &bud, b && !e, mpi, counters);

		e = e ? e : e2;
		if (b)
			budget_close(b);
	}
	return e;
}

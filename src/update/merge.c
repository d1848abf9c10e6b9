#include "update/merge.h"
#include "generate/refresh.h"
#include "score/score.h"
#include "seen/seen.h"
#include "store/recfile.h"
#include "url/trap.h"
#include "url/url.h"
#include "util/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* 1 if a page answered again with content differs from its last copy:
 * by its text when both copies' text is known (a changed ad or date line
 * in the markup does not count), else by its body. */
static int content_changed(const struct crawl_record *old, const struct crawl_record *now)
{
	if (now->http_status == 304)
		return 0;
	if (old->text_digest && now->text_digest)
		return old->text_digest != now->text_digest;
	return old->digest != now->digest;
}

/* When the page of record r last brought content (or a 304): a record
 * from before version 7 has only its last fetch's time. */
static int64_t last_visit(const struct crawl_record *r)
{
	return r->visits.visited_at ? r->visits.visited_at : r->fetched_at;
}

/* 1 if a fetch (now) makes a visit of a page: it and the copy before it
 * (old) both had content, or it is a 304. */
static int visit_added(const struct crawl_record *old, const struct crawl_record *now)
{
	return old && now->status == ST_FETCHED && old->digest &&
	       now->fetched_at - last_visit(old) >= 1000000;
}

/* How long before fetch f its page had last changed, by its
 * Last-Modified, in seconds: 0 unless at least a minute (a server's "now"
 * says nothing) and under within_s (a change inside the visit's interval;
 * an older one contradicts the text that changed). */
static uint32_t lm_age(const struct crawl_record *f, int64_t within_s)
{
	int64_t s = f->last_modified > 0 ? (f->fetched_at - f->last_modified) / 1000000 : 0;

	return s >= 60 && s < within_s && s <= UINT32_MAX ? (uint32_t)s : 0;
}

/* What a fetch says of a page's change: a visit added to its history when
 * both it and the one before had content (or a 304), timed from that one;
 * ETag, Last-Modified and text digest as the answer has them (none kept
 * from an older body), or kept from before by a 304 or a failure; and the
 * age its Last-Modified gives a changed copy, or the first. */
static void note_change(const struct crawl_record *old, const struct fetch_record *f,
			struct crawl_record *out)
{
	int answered = f->rec.status == ST_FETCHED, changed;
	int64_t dt;

	int not_modified = answered && f->rec.http_status == 304;

	out->visits = old ? old->visits : (struct crawl_history){ 0 };
	if (answered)
		out->visits.visited_at = f->rec.fetched_at;
	if (old && (!answered || (not_modified && !f->rec.etag_len))) {
		out->etag = old->etag;
		out->etag_len = old->etag_len;
	}
	if (old && (!answered || (not_modified && !f->rec.last_modified)))
		out->last_modified = old->last_modified;
	if (old && (!answered || not_modified))
		out->text_digest = old->text_digest;
	if (!visit_added(old, &f->rec)) {
		if (answered && !not_modified && !out->visits.n && (!old || !old->digest))
			out->visits.first_age_s = lm_age(&f->rec, INT64_MAX);
		return;
	}
	dt = (f->rec.fetched_at - last_visit(old)) / 1000000;
	changed = content_changed(old, &f->rec);
	memmove(&out->visits.interval_s[1], &out->visits.interval_s[0],
		(CRAWL_HISTORY_MAX - 1) * sizeof(out->visits.interval_s[0]));
	memmove(&out->visits.lm_age_s[1], &out->visits.lm_age_s[0],
		(CRAWL_HISTORY_MAX - 1) * sizeof(out->visits.lm_age_s[0]));
	out->visits.interval_s[0] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
	out->visits.lm_age_s[0] = changed ? lm_age(&f->rec, dt) : 0;
	out->visits.changed = (uint8_t)(out->visits.changed << 1 | changed);
	if (out->visits.n < CRAWL_HISTORY_MAX)
		out->visits.n++;
	else
		out->visits.first_age_s = 0;   /* the first visit has left */
}

/* When a page fetched with content is due again (recrawl.policy,
 * generate/refresh.h), from its visits, out's, newest first. */
static double page_interval_s(const struct crawl_record *old, const struct crawl_record *out,
			      const struct config *cfg)
{
	struct refresh_rules r;
	struct refresh_visit v[CRAWL_HISTORY_MAX];
	struct refresh_page p;

	refresh_rules_from(cfg, &r);
	if (r.policy == REFRESH_FIXED)
		return r.fixed_s;
	refresh_page_of(&r, out, out->fetched_at, v, &p);
	p.scheduled_s = old ? old->visits.scheduled_s : 0;
	/* nutch reads visit 0 as this fetch's: only when it added one */
	if (r.policy == REFRESH_NUTCH && !visit_added(old, out))
		p.n = 0;
	return refresh_next_s(&r, &p);
}

void merge_apply(const struct crawl_record *old, const struct fetch_record *f,
		 const struct config *cfg, struct crawl_record *out)
{
	int64_t t = f->rec.fetched_at;

	*out = f->rec;
	/* The last fetch's reason: "" once a fetch succeeds. */
	out->reason = f->reason ? f->reason : "";
	out->reason_len = f->reason ? f->reason_len : 0;
	if (old) {
		out->url = old->url;
		out->url_len = old->url_len;
		out->depth = old->depth < f->rec.depth ? old->depth : f->rec.depth;
		out->meta = old->meta;   /* what sitemaps said: links change it, not fetches */
		out->seed = old->seed;
	}
	note_change(old, f, out);
	switch (out->status) {
	case ST_TIMEOUT:
	case ST_ERROR:
		out->retries = old ? (uint8_t)(old->retries + 1) : 1;
		if (out->retries > cfg->max_retries) {
			out->status = ST_GONE;
			out->next_fetch = t + (int64_t)cfg->refetch_interval_s * 1000000;
		} else {
			out->next_fetch = t + (int64_t)cfg->retry_interval_s * 1000000;
		}
		/* A failed fetch keeps the digest of the last good one. */
		if (old)
			out->digest = old->digest;
		break;
	case ST_DENIED:
		out->retries = 0;
		out->next_fetch = t + (int64_t)cfg->robots_ttl_s * 1000000;
		break;
	case ST_DEFERRED:
		/* Not the page's fault: tried again later, no retry counted. */
		out->retries = old ? old->retries : 0;
		out->next_fetch = t + (int64_t)cfg->retry_interval_s * 1000000;
		if (old)
			out->digest = old->digest;
		break;
	default:
		out->retries = 0;
		/* A sitemap is read again sooner than a page: its lastmod
		 * entries are what makes the pages it lists due. */
		out->next_fetch = t + (int64_t)(out->meta.kind == CRAWL_SITEMAP ?
						cfg->sitemaps_refetch_s : cfg->refetch_interval_s) *
					  1000000;
		if (out->status == ST_FETCHED && out->meta.kind == CRAWL_PAGE) {
			double s = page_interval_s(old, out, cfg);

			out->visits.scheduled_s = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
			out->next_fetch = t + (int64_t)(s * 1e6);
		}
		/* 304 Not Modified carries no body: the content is the old one. */
		if (out->http_status == 304 && old)
			out->digest = old->digest;
		break;
	}
}

/* "trap:RULE" for a rule of trap.h, "" for none. */
static const char *trap_reason(const char *rule)
{
	static const char *const rules[][2] = {
		{ "path", "trap:path" }, { "query", "trap:query" }, { "host", "trap:host" },
	};
	size_t i;

	for (i = 0; rule && i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rule, rules[i][0]))
			return rules[i][1];
	return rule ? "trap" : "";
}

/* A new URL from link l: added, too deep, or a trap. */
static enum merge_verdict new_url(const struct merge_in *in, const struct link_record *l,
				  const struct config *cfg, struct crawl_record *out)
{
	if (cfg->max_depth > 0 && l->depth > (uint32_t)cfg->max_depth)
		return MERGE_TOO_DEEP;
	memset(out, 0, sizeof(*out));
	out->url = l->url;
	out->url_len = l->url_len;
	out->depth = l->depth;
	out->hops = l->hops;
	out->status = ST_UNFETCHED;
	out->dup_of = out->reason = "";
	out->meta = l->meta;
	out->seed = l->seed;
	if (l->hops > cfg->max_redirects && l->meta.kind != CRAWL_EMBED)
		out->reason = "trap:redirects";   /* a requisite's hops count sheets */
	else if (in->trapped)
		out->reason = trap_reason(in->trapped(in->trap_arg, l));
	out->reason_len = strlen(out->reason);
	if (out->reason_len) {
		out->status = ST_TRAP;
		out->next_fetch = INT64_MAX;
		return MERGE_TRAP;
	}
	return MERGE_ADDED;
}

/* What a sitemap says of a known URL: its kind, priority, changefreq,
 * lastmod; a lastmod after the last fetch makes it due at once. */
static void take_meta(struct crawl_record *out, const struct link_record *l)
{
	if (l->meta.kind == CRAWL_SITEMAP)
		out->meta.kind = CRAWL_SITEMAP;
	/* A requisite that a page links to is a page from now on. */
	if (l->meta.kind == CRAWL_PAGE && out->meta.kind == CRAWL_EMBED)
		out->meta.kind = CRAWL_PAGE;
	out->meta.vouched |= l->meta.vouched;
	if (!(l->flags & LINK_ENTRY))
		return;
	if (l->meta.priority)
		out->meta.priority = l->meta.priority;
	if (l->meta.changefreq)
		out->meta.changefreq = l->meta.changefreq;
	if (l->meta.lastmod <= out->meta.lastmod)
		return;
	out->meta.lastmod = l->meta.lastmod;
	if (out->fetched_at && l->meta.lastmod > out->fetched_at &&
	    out->next_fetch > l->meta.lastmod && out->status != ST_TRAP)
		out->next_fetch = l->meta.lastmod;
}

enum merge_verdict merge_decide(const struct merge_in *in, const struct config *cfg,
				struct crawl_record *out)
{
	const struct link_record *l = in->link_refused ? NULL : in->link;

	enum merge_verdict v;

	if (!in->fetch && !in->old) {
		if (!l)
			return MERGE_REFUSED;
		v = new_url(in, l, cfg, out);
		out->cash = in->cash;
		return v;
	}
	if (in->fetch) {
		merge_apply(in->old, in->fetch, cfg, out);
		score_merge(in->old, score_spends(&in->fetch->rec) ? in->fetch->rec.cash : 0,
			    in->cash, out);
		if (in->dup_of && (out->status == ST_FETCHED || out->status == ST_TRUNCATED ||
				   out->status == ST_TOO_LARGE)) {
			out->status = ST_DUPLICATE;
			out->dup_of = in->dup_of;
			out->dup_of_len = strlen(in->dup_of);
		}
	} else {
		*out = *in->old;
		score_merge(in->old, 0, in->cash, out);
	}
	/* A known URL linked again from closer keeps the smaller depth. */
	if (l && l->depth < out->depth)
		out->depth = l->depth;
	if (l)
		take_meta(out, l);
	if (l && (!out->seed || (!in->old && in->fetch)))
		out->seed = l->seed;   /* the first seed known to reach it: for a URL
					  followed in the round, as its links say, not
					  which page came first */
	return in->fetch ? MERGE_UPDATED : MERGE_KEPT;
}

const char *merge_refusal(const struct crawl_record *rec)
{
#define REASON_IS(s) (rec->reason_len >= sizeof(s) - 1 && !memcmp(rec->reason, s, sizeof(s) - 1))
	if (rec->status == ST_DENIED)
		return "robots";
	if (rec->status != ST_BLOCKED)
		return NULL;
	if (REASON_IS("operator"))
		return "operator";
	if (REASON_IS("non-public address"))
		return "blocked:address";
	return REASON_IS("redirect to") ? "blocked:redirect" : "blocked";
#undef REASON_IS
}

/* One sorted stream of packed records, and its current record. */
struct stream {
	const void *p;
	size_t n;
	int live;
	struct recfile_reader *r;   /* or */
	struct xsort *x;
};

static enum cr_err advance(struct stream *s)
{
	enum cr_err e;

	if (s->r)
		e = recfile_reader_next(s->r, &s->p, &s->n);
	else if (s->x)
		e = xsort_next(s->x, &s->p, &s->n);
	else
		e = CR_EOF;
	s->live = e == CR_OK;
	return e == CR_EOF ? CR_OK : e;
}

/* 1 if s holds the URL of the packed record at p. */
static int at_url(const struct stream *s, const void *p, size_t n)
{
	return s->live && crawl_record_cmp(s->p, s->n, p, n) == 0;
}

/* The three streams of one partition's merge and the URL they are at. */
struct merge_streams {
	struct stream old, fetch, links;
	struct buf old_b, fetch_b, link_b;   /* this URL's records, copied */
	struct buf url_b;                    /* its first link, whose URL the rest share */
	struct crawl_record old_rec;
	struct fetch_record fetch_rec;
	struct link_record link_rec;
	int seeds;                           /* merge_extra.seeds */
};

/*
 * The links to the links stream's URL: the first that is more than cash
 * (the smallest depth: link_record_cmp) copied into in->link, and the cash
 * of all of them summed - in the links' order, a total one, so the sum is
 * the same on any rank count. Seeds are not links: a seed listed twice is
 * one seed, with the larger of its lines' cash. Advances past them.
 */
static enum cr_err gather_links(struct merge_streams *m, struct merge_in *in)
{
	struct link_record l;
	enum cr_err e = CR_OK;

	m->link_b.len = 0;
	m->url_b.len = 0;
	buf_add(&m->url_b, m->links.p, m->links.n);
	do {
		if (link_record_unpack(m->links.p, m->links.n, &l))
			return CR_ERR_FORMAT;
		if (!m->seeds)
			in->cash += l.cash;
		else if (l.cash > in->cash)
			in->cash = l.cash;
		if (!(l.flags & LINK_CASH) && !m->link_b.len)
			buf_add(&m->link_b, m->links.p, m->links.n);
		e = advance(&m->links);
	} while (!e && at_url(&m->links, m->url_b.p, m->url_b.len));
	if (!e && m->link_b.len &&
	    !(e = link_record_unpack(m->link_b.p, m->link_b.len, &m->link_rec)))
		in->link = &m->link_rec;
	return e;
}

/*
 * Gathers what the streams hold of their smallest URL into in (its
 * records copied, since the streams move on), and advances past it; the
 * links of the same URL from other pages are skipped (the first has the
 * smallest depth). CR_EOF when every stream is done.
 */
static enum cr_err gather(struct merge_streams *m, struct merge_in *in)
{
	const struct stream *min = NULL;
	struct stream *all[3] = { &m->old, &m->fetch, &m->links };
	struct buf *copy[3] = { &m->old_b, &m->fetch_b, &m->link_b };
	int take[3], i;
	enum cr_err e = CR_OK;

	for (i = 0; i < 3; i++)
		if (all[i]->live && (!min || crawl_record_cmp(all[i]->p, all[i]->n, min->p,
							      min->n) < 0))
			min = all[i];
	if (!min)
		return CR_EOF;
	/* Which streams hold this URL - decided before any advances. */
	for (i = 0; i < 3; i++)
		take[i] = all[i] == min || at_url(all[i], min->p, min->n);
	memset(in, 0, sizeof(*in));
	for (i = 0; i < 2 && !e; i++) {
		if (!take[i])
			continue;
		copy[i]->len = 0;
		buf_add(copy[i], all[i]->p, all[i]->n);
		e = advance(all[i]);
	}
	if (!e && take[2])
		e = gather_links(m, in);
	if (!e && take[0] && !(e = crawl_record_unpack(m->old_b.p, m->old_b.len, &m->old_rec)))
		in->old = &m->old_rec;
	if (!e && take[1] &&
	    !(e = fetch_record_unpack(m->fetch_b.p, m->fetch_b.len, &m->fetch_rec)))
		in->fetch = &m->fetch_rec;
	return e;
}

struct trap_query {
	const struct trap_state *trap;
	const struct config *cfg;
};

static const char *trapped(void *arg, const struct link_record *l)
{
	const struct trap_query *q = arg;

	return trap_check(q->trap, l->url, l->url_len, q->cfg);
}

/* 1 if url[0, n) is of another origin (scheme://authority) than the one
 * in last, which then holds url's. */
static int new_origin(struct buf *last, const char *url, size_t n)
{
	const char *sep = n > 3 ? memchr(url, ':', n) : NULL;
	size_t o = n;

	if (sep && (size_t)(sep - url) + 3 <= n && sep[1] == '/' && sep[2] == '/') {
		for (o = (size_t)(sep - url) + 3; o < n; o++)
			if (url[o] == '/' || url[o] == '?' || url[o] == '#')
				break;
	}
	if (last->len == o && (o == 0 || !memcmp(last->p, url, o)))
		return 0;
	last->len = 0;
	buf_add(last, url, o);
	return 1;
}

/* 1 if a name rule of r blocks the host of url (len bytes). */
static int operator_blocks(const struct host_rules *r, const char *url, size_t len)
{
	char u[URL_MAX_LEN + 1], host[URL_HOST_MAX];
	struct host_settings s;

	if (!r || len > URL_MAX_LEN)
		return 0;
	memcpy(u, url, len);
	u[len] = '\0';
	return url_host(u, host, sizeof(host)) == CR_OK && host_rules_by_name(r, host, &s) &&
	       s.block;
}

/* What verdict v of in (its record rec) counts in st and writes to the
 * decision log (x->dlog, if any); *drop: the record is not written. */
static enum cr_err note_decision(enum merge_verdict v, const struct merge_in *in,
				 const struct crawl_record *rec, const struct merge_extra *x,
				 struct merge_stats *st, int *drop)
{
	struct decisions *dlog = x ? x->dlog : NULL;
	const struct link_record *l = in->link;

	*drop = v == MERGE_REFUSED || v == MERGE_TOO_DEEP;
	switch (v) {
	case MERGE_REFUSED:
		return dlog && l ? decisions_add(dlog, "sitemap:cross-host", l->url, l->url_len,
						 l->from, l->from_len) : CR_OK;
	case MERGE_TOO_DEEP:
		st->too_deep++;
		return dlog ? decisions_add(dlog, "depth", l->url, l->url_len, l->from,
					    l->from_len) : CR_OK;
	case MERGE_TRAP:
		st->traps++;
		st->added++;
		return dlog ? decisions_add(dlog, rec->reason, rec->url, rec->url_len, l->from,
					    l->from_len) : CR_OK;
	case MERGE_ADDED:
		st->added++;
		return dlog && x->rules && l && rec->status != ST_TRAP &&
		       operator_blocks(x->rules, rec->url, rec->url_len)
		       ? decisions_add(dlog, "operator", rec->url, rec->url_len, l->from,
				       l->from_len) : CR_OK;
	case MERGE_UPDATED:
		st->updated++;
		return dlog && merge_refusal(rec) ? decisions_add(dlog, merge_refusal(rec),
								rec->url, rec->url_len, "", 0)
						  : CR_OK;
	case MERGE_KEPT:
		break;
	}
	return CR_OK;
}

/* Merges the streams into w. */
static enum cr_err merge_streams(struct merge_streams *m, struct recfile_writer *w,
				 const struct config *cfg, struct merge_stats *st,
				 struct buf *seen, const struct merge_extra *x,
				 struct trap_state *trap)
{
	const struct dedup_result *dups = x ? x->dups : NULL;
	struct trap_query q = { trap, cfg };
	struct buf out, origin;
	struct merge_in in;
	struct crawl_record rec;
	enum cr_err e;
	int drop;

	buf_init(&out);
	buf_init(&origin);
	while ((e = gather(m, &in)) == CR_OK) {
		in.dup_of = dups && in.fetch ? dedup_rep(dups, in.fetch->rec.url,
							 in.fetch->rec.url_len) : NULL;
		in.trapped = trapped;
		in.trap_arg = &q;
		in.link_refused = in.link && (in.link->flags & LINK_CROSS) &&
				  !(x && x->cross_ok && x->cross_ok(x->cross_arg, in.link));
		st->cross_refused += in.link_refused;
		if (x && x->seeds && in.old)
			in.cash = 0;
		e = note_decision(merge_decide(&in, cfg, &rec), &in, &rec, x, st, &drop);
		if (e)
			break;
		if (drop)
			continue;
		trap_note(trap, rec.url, rec.url_len);
		out.len = 0;
		crawl_record_pack(&rec, &out);
		e = recfile_writer_add(w, out.p, out.len);
		if (e)
			break;
		if (seen)
			seen_note(seen, rec.url, rec.url_len);
		st->records++;
		st->by_status[rec.status]++;
		if (new_origin(&origin, rec.url, rec.url_len))
			st->origins++;
	}
	buf_release(&origin);
	buf_release(&out);
	return e == CR_EOF ? CR_OK : e;
}

enum cr_err merge_partition(const struct crawl_dir *d, const struct config *cfg,
			    int old_version, int new_version, uint32_t p,
			    struct xsort *fetch, struct xsort *links,
			    struct merge_stats *st, struct buf *seen, const struct merge_extra *x)
{
	char in_path[PATH_MAX] = "", out_path[PATH_MAX];
	struct recfile_writer *w = NULL;
	struct merge_streams m;
	struct trap_state *trap = malloc(sizeof(*trap));
	enum cr_err e = trap ? CR_OK : CR_ERR_NOMEM;

	memset(&m, 0, sizeof(m));
	m.fetch.x = fetch;
	m.links.x = links;
	m.seeds = x && x->seeds;
	if (!e && old_version > 0) {
		layout_crawldb_part(d, old_version, p, in_path, sizeof(in_path));
		e = recfile_reader_open(in_path, REC_KIND_CRAWLDB, &m.old.r);
		if (e) {
			log_err("update", "cannot read CrawlDb part '%s'", in_path);
			e = e == CR_ERR_IO ? CR_ERR_STATE : e;
		}
	}
	layout_crawldb_part(d, new_version, p, out_path, sizeof(out_path));
	if (!e)
		e = recfile_writer_open(out_path, REC_KIND_CRAWLDB, (int)cfg->zstd_level, &w);
	if (!e) {
		trap_reset(trap);
		buf_init(&m.old_b);
		buf_init(&m.fetch_b);
		buf_init(&m.link_b);
		buf_init(&m.url_b);
		e = advance(&m.old);
		if (!e)
			e = advance(&m.fetch);
		if (!e)
			e = advance(&m.links);
		if (!e)
			e = merge_streams(&m, w, cfg, st, seen, x, trap);
		if (e == CR_ERR_FORMAT)
			log_err("update", "damaged record merging into '%s'", out_path);
		buf_release(&m.old_b);
		buf_release(&m.fetch_b);
		buf_release(&m.link_b);
		buf_release(&m.url_b);
	}
	recfile_reader_free(&m.old.r);
	free(trap);
	if (e) {
		recfile_writer_abort(&w);
		return e;
	}
	return recfile_writer_commit(&w);
}

#include "update/update.h"
#include "comm/comm.h"
#include "crawldb/crawl_record.h"
#include "crawldb/parse_record.h"
#include "seen/seen.h"
#include "store/recfile.h"
#include "update/merge.h"
#include "update/route.h"
#include "update/sitemaps.h"
#include "scope/decisions.h"
#include "scope/scope.h"
#include "score/score.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const update_counter_names[UC_COUNT_] = {
	"links_sent", "links_received", "seen_dropped", "duplicate_sources", "outcomes", "added",
	"too_deep", "traps", "scope_mode", "scope_rules", "scope_limit", "sitemap_cross_refused",
	"scope_seed", "seed_too_deep",
	"records", "origins",
	"status_unfetched", "status_fetched", "status_redirect", "status_gone",
	"status_error", "status_denied", "status_blocked", "status_deferred",
	"status_duplicate", "status_trap", "status_truncated", "status_too_large",
	"status_timeout",
	"dedup_pages", "dedup_band_entries", "dedup_candidates", "dedup_verified",
	"duplicates", "duplicates_of_earlier", "dedup_store_bytes",
};

/* Streams the links of this rank's parse parts, one partition after
 * another, then the sitemaps its robots.txt files name. */
struct link_source {
	struct job *j;
	int seg;
	uint32_t p;              /* next partition to open */
	struct recfile_reader *r;
	char path[PATH_MAX];
	struct parse_record cur; /* borrowed from r's last record */
	size_t pos, epos, mpos;  /* in its links, a sitemap's entries, its requisites */
	int have;
	const struct dedup_result *dups;   /* the round's duplicates */
	uint8_t hops;            /* of the current record's links */
	uint64_t dup_links;      /* duplicates whose links count a hop */
	struct scope *scope;     /* what may enter the CrawlDb */
	struct decisions **dlog; /* per partition; NULL: log.decisions off */
	uint32_t cur_p;          /* the partition r reads */
	uint64_t *c;             /* update_counter */
	struct hmap refused;     /* URLs of cur_p already logged as refused */
	struct buf robots;       /* varint(p), varint(n), n bytes of a link: sitemaps_from_robots */
	size_t robots_pos;
};

/* Refused URLs remembered per partition, so that the links of a host's
 * pages to one URL are logged once; past this many the memory starts anew. */
#define REFUSED_REMEMBERED 65536u

/* Routes one link, or logs and counts its refusal by the scope. */
static int offer_link(struct link_source *s, struct route *rt, const struct link_record *l)
{
	/* A requisite from any host (but where scope.rules refuse it), unless
	 * scope.embeds says in-scope. */
	static const int counter[] = {
		[SCOPE_OUT_RULES] = UC_SCOPE_RULES, [SCOPE_OUT_LIMIT] = UC_SCOPE_LIMIT,
		[SCOPE_OUT_SEED] = UC_SCOPE_SEED, [SCOPE_OUT_MODE] = UC_SCOPE_MODE,
		[SCOPE_OUT_DEPTH] = UC_SEED_DEPTH,
	};
	enum scope_verdict v = l->meta.kind == CRAWL_EMBED &&
			       s->j->cfg.scope_embeds == SCOPE_EMBEDS_ANY_HOST
			       ? scope_check_rules(s->scope, l->url, l->url_len)
			       : scope_check_link(s->scope, l);
	struct decisions *log = s->dlog ? s->dlog[s->cur_p] : NULL;

	if (v == SCOPE_IN) {
		route_add_link(rt, l);
		return 0;
	}
	s->c[counter[v]]++;
	if (!log || hmap_get(&s->refused, l->url, l->url_len))
		return 0;
	if (s->refused.count >= REFUSED_REMEMBERED) {
		hmap_release(&s->refused);
		hmap_init(&s->refused);
	}
	*hmap_put(&s->refused, l->url, l->url_len) = s;
	return decisions_add(log, scope_reason(v), l->url, l->url_len, l->from, l->from_len) !=
	       CR_OK ? -1 : 0;
}

/* The current parse record's next requisite (fetch.embeds): as deep as
 * its page (crawl.max_depth cuts pages, not what they show). */
static enum cr_err record_embed(struct link_source *s, struct link_record *l)
{
	enum cr_err e;

	if (!s->j->cfg.fetch_embeds)
		return CR_EOF;
	e = parse_record_embed(&s->cur, &s->mpos, &l->url, &l->url_len);
	if (e)
		return e;
	l->depth = s->cur.depth;
	l->seed = s->cur.seed;
	l->meta.kind = CRAWL_EMBED;
	/* hops count the stylesheets between it and its page (parse.c). */
	l->hops = (s->cur.flags & PARSE_SHEET) && s->cur.hops < 255 ? s->cur.hops + 1 : 0;
	if (s->dlog) {
		l->from = s->cur.url;
		l->from_len = s->cur.url_len;
	}
	return CR_OK;
}

/* The current parse record's next link, then its requisites: CR_OK,
 * CR_EOF at its end. A sitemap's entry carries what the sitemap said, and
 * its source (for the cross-host rule); an index's child sitemap is no hop
 * deeper. */
static enum cr_err record_link(struct link_source *s, struct link_record *l)
{
	struct parse_entry pe;
	enum cr_err e;

	memset(l, 0, sizeof(*l));
	e = parse_record_link(&s->cur, &s->pos, &l->url, &l->url_len);
	if (e == CR_EOF)
		return record_embed(s, l);
	if (e)
		return e;
	l->depth = s->cur.depth + 1;
	l->hops = s->hops;
	l->seed = s->cur.seed;
	l->cash = score_share(s->cur.cash, s->cur.nlinks);
	if (s->dlog || (s->cur.flags & PARSE_SITEMAP)) {
		l->from = s->cur.url;
		l->from_len = s->cur.url_len;
	}
	if (!(s->cur.flags & PARSE_SITEMAP))
		return CR_OK;
	if (parse_record_entry(&s->cur, &s->epos, &pe) != CR_OK)
		return CR_ERR_FORMAT;
	l->flags = pe.flags;
	l->meta = pe.meta;
	if (pe.meta.kind == CRAWL_SITEMAP)
		l->depth = s->cur.depth;
	return CR_OK;
}

/* The links the current page left out for a reason the decision log names
 * (past parse.max_links, too long). */
static int log_refused(struct link_source *s)
{
	static const char *const reasons[PARSE_REFUSALS_] = { "max-links", "too-long" };
	struct decisions *log = s->dlog ? s->dlog[s->cur_p] : NULL;
	size_t pos = 0, len;
	const char *url;
	int why;

	while (log && parse_record_refused(&s->cur, &pos, &why, &url, &len) == CR_OK)
		if (decisions_add(log, reasons[why], url, len, s->cur.url, s->cur.url_len))
			return -1;
	return 0;
}

/* The next record of the open parse part: 1 taken, 0 at its end, -1 on error. */
static int next_record(struct link_source *s)
{
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_next(s->r, &data, &n);

	if (e != CR_OK) {
		recfile_reader_free(&s->r);
		return e == CR_EOF ? 0 : -1;
	}
	if (parse_record_unpack(data, n, &s->cur) != CR_OK) {
		log_err("update", "damaged record in '%s'", s->path);
		return -1;
	}
	s->pos = s->epos = s->mpos = 0;
	s->have = 1;
	if (log_refused(s))
		return -1;
	/* The links of a redirect or of a near-duplicate count one hop more
	 * than the page; others start anew (a trap of look-alike pages ends so). */
	s->hops = 0;
	if ((s->cur.flags & PARSE_REDIRECT) || dedup_rep(s->dups, s->cur.url, s->cur.url_len)) {
		s->hops = s->cur.hops < 255 ? s->cur.hops + 1 : 255;
		s->dup_links += !(s->cur.flags & PARSE_REDIRECT);
	}
	return 1;
}

/* Opens the next owned parse part: 1 opened, 0 none left, -1 on error. */
static int next_part(struct link_source *s)
{
	while (s->p < s->j->dir.partitions && !layout_owns(s->p, s->j->rank, s->j->nranks))
		s->p++;
	if (s->p >= s->j->dir.partitions)
		return 0;
	layout_segment_part(&s->j->dir, s->seg, "parse", s->p, s->path, sizeof(s->path));
	s->cur_p = s->p++;
	hmap_release(&s->refused);
	hmap_init(&s->refused);
	if (recfile_reader_open(s->path, REC_KIND_PARSE, &s->r) != CR_OK) {
		log_err("update", "cannot read parse data '%s'", s->path);
		return -1;
	}
	return 1;
}

/* The next sitemap a robots.txt names: 1 routed, 0 none left, -1 on error. */
static int robots_link(struct link_source *s, struct route *rt)
{
	struct buf_reader rd;
	uint64_t p, n;
	struct link_record l;

	if (s->robots_pos >= s->robots.len)
		return 0;
	buf_reader_init(&rd, s->robots.p, s->robots.len);
	rd.off = s->robots_pos;
	if (buf_get_varint(&rd, &p) || buf_get_varint(&rd, &n) || n > rd.len - rd.off ||
	    link_record_unpack(rd.p + rd.off, (size_t)n, &l) != CR_OK)
		return -1;
	s->robots_pos = rd.off + (size_t)n;
	s->cur_p = (uint32_t)p;
	return offer_link(s, rt, &l) ? -1 : 1;
}

static int produce_links(void *arg, struct route *rt)
{
	struct link_source *s = arg;

	while (!route_full(rt)) {
		struct link_record l;
		enum cr_err e;
		int rc;

		if (s->have) {
			e = record_link(s, &l);
			if (e == CR_OK) {
				if (offer_link(s, rt, &l))
					return -1;
				continue;
			}
			if (e != CR_EOF)
				return -1;
			s->have = 0;
		}
		rc = s->r ? next_record(s) : 0;
		if (rc == 0)
			rc = next_part(s);
		if (rc == 0)
			rc = robots_link(s, rt);
		if (rc <= 0)
			return rc < 0 ? -1 : 1;
	}
	return 0;
}

/* The sitemaps the robots.txt files of this rank's partitions name. */
static enum cr_err robots_sitemaps(struct job *j, struct buf *out)
{
	struct buf one;
	enum cr_err e = CR_OK;
	uint32_t p;

	buf_init(&one);
	for (p = 0; !e && p < j->dir.partitions && j->cfg.sitemaps_enabled; p++) {
		struct buf_reader rd;
		uint64_t n;

		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		one.len = 0;
		e = sitemaps_from_robots(j, p, j->cfg.sitemaps_probe, &one);
		buf_reader_init(&rd, one.p, one.len);
		while (!e && rd.off < rd.len && !buf_get_varint(&rd, &n) && n <= rd.len - rd.off) {
			buf_put_varint(out, p);
			buf_put_varint(out, n);
			buf_add(out, rd.p + rd.off, (size_t)n);
			rd.off += (size_t)n;
		}
	}
	buf_release(&one);
	return e;
}

/* Adds the records of the outcome file at path to x, counting them; a
 * missing file is an error only when needed. */
static enum cr_err add_outcomes(const char *path, int needed, struct xsort *x, uint64_t *n_out)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e;

	if (!needed && !recfile_exists(path))
		return CR_OK;
	e = recfile_reader_open(path, REC_KIND_FETCH, &r);
	if (e) {
		log_err("update", "cannot read fetch outcomes '%s'", path);
		return e;
	}
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		e = xsort_add(x, data, n);
		if (e)
			break;
		(*n_out)++;
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

/* Partition p's outcomes, sorted: the fetch's, and those generate wrote
 * for URLs a cached robots.txt denies (denied/, when it found any). */
static enum cr_err sort_outcomes(struct job *j, int seg, uint32_t p, size_t budget,
				 struct xsort **out, uint64_t *n_out)
{
	char path[PATH_MAX];
	struct xsort *x;
	enum cr_err e = xsort_new(j->tmpdir, budget, crawl_record_cmp, &x);

	if (e)
		return e;
	layout_segment_part(&j->dir, seg, "fetch", p, path, sizeof(path));
	e = add_outcomes(path, 1, x, n_out);
	layout_segment_part(&j->dir, seg, "denied", p, path, sizeof(path));
	if (!e)
		e = add_outcomes(path, 0, x, n_out);
	if (!e)
		e = xsort_finish(x);
	if (e) {
		xsort_free(&x);
		return e;
	}
	*out = x;
	return CR_OK;
}

static int cross_ok(void *arg, const struct link_record *l)
{
	return sitemaps_cross_ok(arg, l);
}

/* Merges each partition this rank owns: its CrawlDb part, the round's
 * outcomes and the routed links into version ver + 1. */
static enum cr_err merge_owned(struct job *j, int seg, int ver, struct route *rt,
			       const struct dedup_result *dd, struct decisions **dlog,
			       uint64_t *c)
{
	/* One partition is merged at a time, while the other partitions'
	 * links wait in their sorts (half the budget, route.h): its fetch
	 * outcomes' sort and its links' merge an eighth each. */
	size_t budget = mem_budget(j->cfg.memory_budget_mb) / 8;
	struct hmap named;   /* this partition's robots.txt: the sitemaps each names */
	struct merge_extra x = { dd, NULL, cross_ok, &named, 0, NULL };
	struct host_rules *rules = NULL;
	enum cr_err e = CR_OK;
	uint32_t p;

	/* the decision log names links to hosts the operator blocks */
	if (dlog && j->cfg.hosts_rules[0] && (e = host_rules_load(j->cfg.hosts_rules, &rules)))
		return e;
	x.rules = rules;

	hmap_init(&named);
	for (p = 0; !e && p < j->dir.partitions; p++) {
		struct merge_stats st;
		struct xsort *fetch = NULL;
		int s;

		if (!rt->sorts[p])
			continue;
		e = xsort_finish_within(rt->sorts[p], budget);
		if (!e)
			e = sort_outcomes(j, seg, p, budget, &fetch, &c[UC_OUTCOMES]);
		if (e)
			break;
		memset(&st, 0, sizeof(st));
		x.dlog = dlog ? dlog[p] : NULL;
		hmap_release(&named);
		hmap_init(&named);
		e = sitemaps_named(j, p, &named);
		if (!e)
			e = merge_partition(&j->dir, &j->cfg, ver, ver + 1, p, fetch, rt->sorts[p],
					    &st, NULL, &x);
		/* the new part's filter, from the part as written */
		if (!e && j->cfg.seen_enabled)
			e = seen_build(&j->dir, &j->cfg, ver + 1, p, st.records);
		xsort_free(&fetch);
		/* The links' sort is done; free its memory before the next merge. */
		xsort_free(&rt->sorts[p]);
		rt->sorts[p] = NULL;
		c[UC_ADDED] += st.added;
		c[UC_TOO_DEEP] += st.too_deep;
		c[UC_TRAPS] += st.traps;
		c[UC_CROSS_REFUSED] += st.cross_refused;
		c[UC_RECORDS] += st.records;
		c[UC_ORIGINS] += st.origins;
		for (s = 0; s < ST_COUNT_; s++)
			c[UC_STATUS_FIRST + s] += st.by_status[s];
	}
	hmap_release(&named);
	host_rules_free(&rules);
	return e;
}

/* The scope links are checked against and, with log.decisions, the
 * phase's decision log. Collective: every rank agrees it has both. */
static enum cr_err open_scope(struct job *j, int seg, int ver, struct scope *scope,
			      struct decisions ***dlog)
{
	enum cr_err e = scope_open(scope, j, ver);

	*dlog = NULL;
	if (!e && j->cfg.log_decisions)
		e = decisions_open_owned(&j->dir, seg, "update", j->rank, j->nranks,
					 (int)j->cfg.zstd_level, dlog);
	if (comm_agree(e == CR_OK))
		return CR_OK;
	if (!e)
		scope_release(scope);
	decisions_abort_owned(&j->dir, dlog);
	return e ? e : CR_ERR_COMM;
}

enum cr_err update_run(struct job *j, int seg, int ver, uint64_t *c)
{
	struct link_source src;
	struct route rt;
	struct scope scope;
	struct decisions **dlog;
	char dir[PATH_MAX];
	enum cr_err e;
	struct dedup_result dd;

	memset(&src, 0, sizeof(src));
	src.j = j;
	src.seg = seg;
	src.c = c;
	hmap_init(&src.refused);
	e = open_scope(j, seg, ver, &scope, &dlog);
	if (e)
		return e;
	src.scope = &scope;
	src.dlog = dlog;
	e = route_init(&rt, &j->dir, &j->cfg, j->tmpdir, j->rank, j->nranks, ver);
	if (!comm_agree(e == CR_OK)) {
		if (!e)
			route_release(&rt);
		scope_release(&scope);
		decisions_abort_owned(&j->dir, &dlog);
		return e ? e : CR_ERR_COMM;
	}
	/* Duplicates first: their links count one hop more (trap.h). */
	layout_crawldb_dir(&j->dir, ver + 1, dir, sizeof(dir));
	e = fs_mkdirs(dir);
	dedup_init(&dd);
	if (comm_agree(e == CR_OK))
		e = dedup_run(j, seg, ver, &dd, c + UC_DEDUP_FIRST);
	else
		e = e ? e : CR_ERR_COMM;
	src.dups = &dd;
	buf_init(&src.robots);
	if (!e)
		e = robots_sitemaps(j, &src.robots);
	if (comm_agree(e == CR_OK))
		e = route_run(&rt, produce_links, &src);
	else
		e = e ? e : CR_ERR_COMM;
	route_forget_seen(&rt);   /* routed: their memory goes to the merges */
	recfile_reader_free(&src.r);
	hmap_release(&src.refused);
	buf_release(&src.robots);
	c[UC_LINKS_SENT] += rt.sent;
	c[UC_LINKS_RECEIVED] += rt.received;
	c[UC_SEEN_DROPPED] += rt.seen_dropped;
	c[UC_DUP_LINKS] += src.dup_links;
	if (!e)
		e = merge_owned(j, seg, ver, &rt, &dd, dlog, c);
	if (!e)
		e = decisions_commit_owned(&j->dir, &dlog);
	decisions_abort_owned(&j->dir, &dlog);
	route_release(&rt);
	scope_release(&scope);
	dedup_release(&dd);
	return e;
}

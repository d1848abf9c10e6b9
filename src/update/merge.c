#include "update/merge.h"
#include "seen/seen.h"
#include "store/recfile.h"
#include "update/trap.h"
#include "util/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void merge_apply(const struct crawl_record *old, const struct fetch_record *f,
		 const struct config *cfg, struct crawl_record *out)
{
	int64_t t = f->rec.fetched_at;

	*out = f->rec;
	if (old) {
		out->url = old->url;
		out->url_len = old->url_len;
		out->depth = old->depth < f->rec.depth ? old->depth : f->rec.depth;
	}
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
		out->next_fetch = t + (int64_t)cfg->refetch_interval_s * 1000000;
		/* 304 Not Modified carries no body: the content is the old one. */
		if (out->http_status == 304 && old)
			out->digest = old->digest;
		break;
	}
}

struct stream {
	const void *p;
	size_t n;
	int live;
};

static int url_cmp(const struct stream *a, const struct stream *b)
{
	return crawl_record_cmp(a->p, a->n, b->p, b->n);
}

static enum cr_err next_rec(struct recfile_reader *r, struct stream *s)
{
	enum cr_err e;

	if (!r) {
		s->live = 0;
		return CR_OK;
	}
	e = recfile_reader_next(r, &s->p, &s->n);
	s->live = e == CR_OK;
	return e == CR_EOF ? CR_OK : e;
}

static enum cr_err next_sorted(struct xsort *x, struct stream *s)
{
	enum cr_err e;

	if (!x) {
		s->live = 0;
		return CR_OK;
	}
	e = xsort_next(x, &s->p, &s->n);
	s->live = e == CR_OK;
	return e == CR_EOF ? CR_OK : e;
}

/*
 * Copies the current stream record (its bytes are borrowed until the stream
 * advances) so that the streams can move while the result is built.
 */
static void hold(struct buf *b, const struct stream *s)
{
	b->len = 0;
	buf_add(b, s->p, s->n);
}

enum cr_err merge_partition(const struct crawl_dir *d, const struct config *cfg,
			    int old_version, int new_version, uint32_t p,
			    struct xsort *fetch, struct xsort *links,
			    struct merge_stats *st, struct buf *seen,
			    const struct dedup_result *dups)
{
	char in_path[PATH_MAX], out_path[PATH_MAX];
	struct recfile_reader *rd = NULL;
	struct recfile_writer *w = NULL;
	struct stream so = { 0 }, sf = { 0 }, sl = { 0 };
	struct buf old_b, fetch_b, link_b, out;
	struct trap_state *trap = malloc(sizeof(*trap));
	enum cr_err e;

	if (!trap)
		return CR_ERR_NOMEM;
	trap_reset(trap);
	if (old_version > 0) {
		layout_crawldb_part(d, old_version, p, in_path, sizeof(in_path));
		e = recfile_reader_open(in_path, REC_KIND_CRAWLDB, &rd);
		if (e) {
			log_err("update", "cannot read CrawlDb part '%s'", in_path);
			free(trap);
			return e == CR_ERR_IO ? CR_ERR_STATE : e;
		}
	}
	layout_crawldb_part(d, new_version, p, out_path, sizeof(out_path));
	e = recfile_writer_open(out_path, REC_KIND_CRAWLDB, (int)cfg->zstd_level, &w);
	if (e) {
		recfile_reader_free(&rd);
		free(trap);
		return e;
	}
	buf_init(&old_b);
	buf_init(&fetch_b);
	buf_init(&link_b);
	buf_init(&out);
	e = next_rec(rd, &so);
	if (!e)
		e = next_sorted(fetch, &sf);
	if (!e)
		e = next_sorted(links, &sl);
	while (!e && (so.live || sf.live || sl.live)) {
		const struct stream *min = NULL;
		struct crawl_record old, rec;
		int have_old = 0, have_fetch = 0, have_link = 0;
		uint32_t link_depth = 0;

		if (so.live)
			min = &so;
		if (sf.live && (!min || url_cmp(&sf, min) < 0))
			min = &sf;
		if (sl.live && (!min || url_cmp(&sl, min) < 0))
			min = &sl;
		/* Which streams hold this URL - decided before any advances. */
		int take_o = so.live && (min == &so || url_cmp(&so, min) == 0);
		int take_f = sf.live && (min == &sf || url_cmp(&sf, min) == 0);
		int take_l = sl.live && (min == &sl || url_cmp(&sl, min) == 0);

		if (take_o) {
			hold(&old_b, &so);
			have_old = 1;
		}
		if (take_f) {
			hold(&fetch_b, &sf);
			have_fetch = 1;
		}
		if (have_old) {
			e = crawl_record_unpack(old_b.p, old_b.len, &old);
			if (e) {
				log_err("update", "damaged record in '%s'", in_path);
				break;
			}
			e = next_rec(rd, &so);
			if (e)
				break;
		}
		if (take_l) {
			struct link_record l;

			e = link_record_unpack(sl.p, sl.n, &l);
			if (e)
				break;
			link_depth = l.depth;
			have_link = 1;
			/* Skip the same URL from other pages: the first has the
			 * smallest depth. */
			if (!have_old && !have_fetch)
				hold(&old_b, &sl);
			hold(&link_b, &sl);
			for (;;) {
				struct stream prev = { link_b.p, link_b.len, 1 };

				e = next_sorted(links, &sl);
				if (e || !sl.live || url_cmp(&sl, &prev) != 0)
					break;
			}
			if (e)
				break;
		}
		if (have_fetch) {
			struct fetch_record f;

			e = fetch_record_unpack(fetch_b.p, fetch_b.len, &f);
			if (e)
				break;
			merge_apply(have_old ? &old : NULL, &f, cfg, &rec);
			if (dups && (rec.status == ST_FETCHED || rec.status == ST_TRUNCATED ||
				     rec.status == ST_TOO_LARGE)) {
				const char *rep = dedup_rep(dups, rec.url, rec.url_len);

				if (rep) {
					rec.status = ST_DUPLICATE;
					rec.dup_of = rep;
					rec.dup_of_len = strlen(rep);
				}
			}
			e = next_sorted(fetch, &sf);
			if (e)
				break;
			st->updated++;
		} else if (have_old) {
			rec = old;
		} else {
			struct link_record l;

			if (cfg->max_depth > 0 && link_depth > (uint32_t)cfg->max_depth) {
				st->too_deep++;
				continue;
			}
			e = link_record_unpack(old_b.p, old_b.len, &l);
			if (e)
				break;
			memset(&rec, 0, sizeof(rec));
			rec.url = l.url;
			rec.url_len = l.url_len;
			rec.depth = l.depth;
			rec.hops = l.hops;
			rec.status = ST_UNFETCHED;
			if (l.hops > cfg->max_redirects ||
			    trap_check(trap, l.url, l.url_len, cfg)) {
				rec.status = ST_TRAP;
				rec.next_fetch = INT64_MAX;
				st->traps++;
			}
			st->added++;
		}
		if (have_link && (have_old || have_fetch) && link_depth < rec.depth)
			rec.depth = link_depth;
		trap_note(trap, rec.url, rec.url_len);
		out.len = 0;
		crawl_record_pack(&rec, &out);
		e = recfile_writer_add(w, out.p, out.len);
		if (seen)
			seen_note(seen, rec.url, rec.url_len);
		st->records++;
		st->by_status[rec.status]++;
	}
	recfile_reader_free(&rd);
	free(trap);
	buf_release(&old_b);
	buf_release(&fetch_b);
	buf_release(&link_b);
	buf_release(&out);
	if (e) {
		recfile_writer_abort(&w);
		return e;
	}
	return recfile_writer_commit(&w);
}

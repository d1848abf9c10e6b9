/*
 * frontier.c - links followed inside the round; see frontier.h.
 */
#include "fetch/frontier.h"
#include "fetch/sched.h"
#include "crawldb/parse_record.h"
#include "util/minhash.h"
#include "score/score.h"
#include "seen/seen.h"
#include "url/url.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEEN_UNREAD = 0, SEEN_LOADED = 1, SEEN_NONE = 2 };

enum cr_err frontier_init(struct frontier *fr, const struct job *j, int version,
			  const struct hmap *done)
{
	memset(fr, 0, sizeof(*fr));
	fr->j = j;
	fr->version = version;
	fr->done = done;
	hmap_init(&fr->queued);
	hmap_init(&fr->handed);
	fr->handoff_round = 1;
	buf_init(&fr->kept);
	if ((j->cfg.follow_max <= 0 && !j->cfg.fetch_embeds) || !j->cfg.seen_enabled ||
	    version <= 0)
		return CR_OK;
	fr->seen = calloc(j->dir.partitions, sizeof(*fr->seen));
	fr->seen_state = calloc(j->dir.partitions, 1);
	if (!fr->seen || !fr->seen_state)
		return CR_ERR_NOMEM;
	if (scope_open(&fr->scope, j, version) != CR_OK) {
		log_warn("fetch", "the scope could not be read: no link is followed in this round");
		return CR_OK;
	}
	fr->on = 1;
	return CR_OK;
}

void frontier_keep(struct frontier *fr, uint32_t p, const struct crawl_record *rec,
		   const uint64_t *bands, unsigned nb)
{
	struct buf packed;
	unsigned i;

	buf_init(&packed);
	crawl_record_pack(rec, &packed);
	buf_put_u32le(&fr->kept, p);
	buf_put_u32le(&fr->kept, nb);
	for (i = 0; i < nb; i++)
		buf_put_u64le(&fr->kept, bands[i]);
	buf_put_str(&fr->kept, (const char *)packed.p, packed.len);
	buf_release(&packed);
}

/* A followed URL, just queued as it: the band keys of the page it was found
 * on go with it, and it is noted as queued. */
static void note_followed(struct frontier *fr, struct host_item *it, const uint64_t *bands,
			  unsigned nb)
{
	if (nb && (it->from_bands = malloc(nb * sizeof(*bands))) != NULL)
		memcpy(it->from_bands, bands, nb * sizeof(*bands));
	*hmap_put(&fr->queued, it->url, it->rec.url_len) = fr;
}

/* A link frontier_keep kept, from rd: its partition, its page's band keys
 * (*nb of them) and its record (borrowed from the buffer). */
struct kept_link {
	uint32_t p, nb;
	uint64_t bands[MINHASH_BANDS_MAX];
	struct crawl_record rec;
};

static enum cr_err next_kept(struct buf_reader *rd, struct kept_link *k)
{
	const char *packed;
	size_t n;
	uint32_t i;

	if (buf_get_u32le(rd, &k->p) || buf_get_u32le(rd, &k->nb) || k->nb > MINHASH_BANDS_MAX)
		return CR_ERR_FORMAT;
	for (i = 0; i < k->nb; i++)
		if (buf_get_u64le(rd, &k->bands[i]))
			return CR_ERR_FORMAT;
	if (buf_get_str(rd, &packed, &n) || crawl_record_unpack(packed, n, &k->rec) != CR_OK ||
	    k->rec.url_len > URL_MAX_LEN)
		return CR_ERR_FORMAT;
	return CR_OK;
}

/* Each host's links earlier attempts followed, finished or not, count
 * against its fetch.follow_max as they did then (requisites do not). */
static void count_followed(struct frontier *fr, struct host_table *t)
{
	struct buf_reader rd;
	struct kept_link k;
	char u[URL_MAX_LEN + 1], name[URL_HOST_MAX];
	struct host *h;

	buf_reader_init(&rd, fr->kept.p, fr->kept.len);
	while (rd.off < rd.len && next_kept(&rd, &k) == CR_OK) {
		if (k.rec.meta.kind == CRAWL_EMBED)
			continue;
		memcpy(u, k.rec.url, k.rec.url_len);
		u[k.rec.url_len] = '\0';
		if (url_host(u, name, sizeof(name)) == CR_OK &&
		    (h = hmap_get(&t->hosts, name, strlen(name))) != NULL)
			h->followed++;
	}
}

/* The kept links, queued again where not finished. */
static enum cr_err requeue(struct frontier *fr, struct fetchlist_load *l)
{
	struct buf_reader rd;
	uint64_t urls = l->urls;
	struct kept_link k;
	struct host_item *it;

	buf_reader_init(&rd, fr->kept.p, fr->kept.len);
	while (rd.off < rd.len) {
		if (next_kept(&rd, &k) != CR_OK)
			return CR_ERR_FORMAT;
		/* a root went next when it was followed: it goes next again */
		if ((it = fetchlist_add(l, &k.rec, k.p, score_is_root(&k.rec))) != NULL)
			note_followed(fr, it, k.bands, k.nb);
	}
	l->urls = urls;   /* the fetch lists' count: these were followed */
	count_followed(fr, l->hosts);
	return CR_OK;
}

enum cr_err frontier_load(struct frontier *fr, struct fetchlist_load *l)
{
	enum cr_err e = requeue(fr, l);

	if (e)
		log_err("fetch", "a followed link in a fetch journal of segment %d is damaged",
			l->seg);
	buf_release(&fr->kept);
	return e;
}

void frontier_release(struct frontier *fr)
{
	struct hmap_slot *sl;
	size_t i = 0;
	uint32_t p;

	if (fr->on)
		scope_release(&fr->scope);
	for (p = 0; fr->seen && p < fr->j->dir.partitions; p++)
		if (fr->seen_state[p] == SEEN_LOADED)
			bloom_release(&fr->seen[p]);
	free(fr->seen);
	free(fr->seen_state);
	hmap_release(&fr->queued);
	while ((sl = hmap_next(&fr->handed, &i)) != NULL)
		free(sl->val);
	hmap_release(&fr->handed);
	buf_release(&fr->kept);
	memset(fr, 0, sizeof(*fr));
}

/* Partition p's seen-set (a damaged one rebuilt from its CrawlDb part, as
 * update would), or NULL when it has none (then nothing of p is followed:
 * every link would look new). */
static const struct bloom *seen_of(struct frontier *fr, uint32_t p)
{
	if (fr->seen_state[p] == SEEN_UNREAD)
		fr->seen_state[p] = seen_load(&fr->j->dir, &fr->j->cfg, fr->version, p,
					      &fr->seen[p]) ? SEEN_LOADED : SEEN_NONE;
	return fr->seen_state[p] == SEEN_LOADED ? &fr->seen[p] : NULL;
}

/* The LSH band keys of a parse record's signature (as dedup makes them)
 * into keys; how many (0: the page has no signature). */
static unsigned page_bands(const struct frontier *fr, const struct parse_record *pr,
			   uint64_t *keys)
{
	uint32_t sig[PARSE_SIG_MAX];
	unsigned nb = (unsigned)fr->j->cfg.dedup_bands, rows, b, i;

	if (!pr->nsig || pr->nsig > PARSE_SIG_MAX || nb == 0 || nb > MINHASH_BANDS_MAX ||
	    pr->nsig % nb)
		return 0;
	for (i = 0; i < pr->nsig; i++)
		sig[i] = parse_record_sig(pr, i);
	rows = pr->nsig / nb;
	for (b = 0; b < nb; b++)
		keys[b] = minhash_band_key(sig, b, rows);
	return nb;
}

/* The record of a link of item it's page (u: its URL, NUL-terminated):
 * one hop deeper than its page, of its seed; a requisite (kind
 * CRAWL_EMBED) as deep as its page. */
static void link_of(const struct host_item *it, const char *u, size_t len, int kind,
		    double cash, struct crawl_record *r)
{
	memset(r, 0, sizeof(*r));
	r->cash = cash;
	r->status = ST_UNFETCHED;
	r->depth = it->rec.depth + (kind != CRAWL_EMBED);
	r->meta.kind = (uint8_t)kind;
	/* A requisite of a requisite (a stylesheet's): one sheet further. */
	if (kind == CRAWL_EMBED && it->rec.meta.kind == CRAWL_EMBED)
		r->hops = it->rec.hops < 255 ? it->rec.hops + 1 : 255;
	r->seed = it->rec.seed;
	r->dup_of = r->reason = "";
	r->url = u;
	r->url_len = len;
}

/* A followed link, or a requisite (kind CRAWL_EMBED) of the page's
 * origin; the page's band keys go with a link. */
static void follow_one(struct frontier *fr, struct host *h, const struct host_item *it,
		       const char *url, size_t len, const uint64_t *bands, unsigned nb,
		       struct segout *out, int kind, double cash)
{
	struct crawl_record rec;
	struct host_item *queued;
	char u[URL_MAX_LEN + 1];

	memcpy(u, url, len);
	u[len] = '\0';
	link_of(it, u, len, kind, cash, &rec);
	segout_followed(out, it->part, &rec, bands, nb);
	/* A site's root starts next (score_is_root); the rest keep their order. */
	queued = (score_is_root(&rec) ? hosts_add_next : hosts_add)(h, u, &rec, it->part,
								  it->origin);
	note_followed(fr, queued, bands, nb);
	if (kind == CRAWL_EMBED)
		fr->embeds++;
	else
		h->followed++;
}

/* Whether the canonical url is queued already or known to the CrawlDb. */
static void known(struct frontier *fr, const struct bloom *seen, struct follow_link *l)
{
	l->queued = hmap_get(&fr->queued, l->url, l->len) != NULL ||
		    (fr->done->count && hmap_get(fr->done, l->url, l->len) != NULL);
	l->seen = !l->queued && bloom_has(seen, l->url, l->len);
}

/* A requisite to hand over: its record, packed, and what orders copies. */
struct handed {
	unsigned round;        /* the hand-off it goes out in */
	int sent;              /* 1: went out; 2: over the cap, left to update */
	struct crawl_record order;   /* its hops, depth and seed (frontier_copy_cmp) */
	size_t n;
	unsigned char packed[];
};

int frontier_copy_cmp(const struct crawl_record *a, const struct crawl_record *b)
{
	if (a->hops != b->hops)
		return a->hops < b->hops ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->seed < b->seed ? -1 : a->seed > b->seed;
}

/* Keeps rec to hand over in round unless a copy that went out or comes
 * first is kept already; journaled through out (from page_part) when new. */
static void hand_over(struct frontier *fr, const struct crawl_record *rec, unsigned round,
		      struct segout *out, uint32_t page_part)
{
	void **slot = hmap_put(&fr->handed, rec->url, rec->url_len);
	struct handed *old = *slot, *h;
	struct buf packed;

	if (old && (old->sent || frontier_copy_cmp(rec, &old->order) >= 0))
		return;
	buf_init(&packed);
	crawl_record_pack(rec, &packed);
	h = malloc(sizeof(*h) + packed.len);
	if (!h) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	h->round = old ? old->round : round;
	h->sent = 0;
	memset(&h->order, 0, sizeof(h->order));
	h->order.hops = rec->hops;
	h->order.depth = rec->depth;
	h->order.seed = rec->seed;
	h->n = packed.len;
	memcpy(h->packed, packed.p, packed.len);
	buf_release(&packed);
	if (out)
		segout_handoff(out, page_part, rec, h->round);
	free(old);
	*slot = h;
}

void frontier_keep_handoff(struct frontier *fr, const struct crawl_record *rec,
			   unsigned round)
{
	if (fr->on)
		hand_over(fr, rec, round ? round : 1, NULL, 0);
}

uint64_t frontier_handoff_pending(const struct frontier *fr)
{
	struct hmap_slot *sl;
	size_t i = 0;
	uint64_t n = 0;

	while ((sl = hmap_next(&fr->handed, &i)) != NULL) {
		const struct handed *h = sl->val;

		n += !h->sent && h->round <= fr->handoff_round;
	}
	return n;
}

void frontier_handoff_pack(struct frontier *fr, struct buf *send)
{
	size_t cap = HANDOFF_BYTES_MAX / (size_t)fr->j->nranks;
	struct hmap_slot *sl;
	size_t i = 0;

	while ((sl = hmap_next(&fr->handed, &i)) != NULL) {
		struct handed *h = sl->val;
		int r;

		if (h->sent || h->round > fr->handoff_round)
			continue;
		r = layout_owner(layout_partition(&fr->j->dir, sl->key, sl->klen),
				 fr->j->nranks);
		if (send[r].len + h->n + 4 > cap) {
			h->sent = 2;
			continue;
		}
		buf_put_u32le(&send[r], (uint32_t)h->n);
		buf_add(&send[r], h->packed, h->n);
		h->sent = 1;
	}
	fr->handoff_round++;
}

/* A requisite of another origin that follow_handoff admits. */
static void handoff_one(struct frontier *fr, const struct host_item *it, struct follow_page *pg,
			const char *url, size_t len, struct segout *out)
{
	struct follow_link l = { url, len, 0, 0 };
	struct crawl_record rec;
	char u[URL_MAX_LEN + 1];

	if (len > URL_MAX_LEN || follow_handoff(pg, &l, &fr->scope, &fr->j->cfg) != FOLLOW_YES)
		return;
	memcpy(u, url, len);
	u[len] = '\0';
	link_of(it, u, len, CRAWL_EMBED, 0, &rec);
	hand_over(fr, &rec, fr->handoff_round, out, it->part);
}

/* The requisites of a parsed page or stylesheet that join h's queue. */
static uint64_t follow_embeds(struct frontier *fr, struct host *h, const struct host_item *it,
			      const struct parse_record *pr, struct follow_page *pg,
			      const struct bloom *seen, struct segout *out)
{
	const char *url;
	size_t pos = 0, len;
	uint64_t n = 0;

	while (parse_record_embed(pr, &pos, &url, &len) == CR_OK) {
		struct follow_link l = { url, len, 0, 0 };

		if (!follow_same_origin(pg->origin, pg->origin_len, url, len)) {
			handoff_one(fr, it, pg, url, len, out);
			continue;
		}
		known(fr, seen, &l);
		if (follow_embed(pg, &l, &fr->scope, &fr->j->cfg) != FOLLOW_YES)
			continue;
		follow_one(fr, h, it, url, len, NULL, 0, out, CRAWL_EMBED, 0);
		if (pg->room != UINT64_MAX)
			pg->room--;
		n++;
	}
	return n;
}

void frontier_count_earlier(struct host_table *t, const struct hmap *done)
{
	struct hmap_slot *sl;
	size_t i = 0;
	char name[URL_HOST_MAX];
	struct host *h;

	while ((sl = hmap_next(done, &i)) != NULL)
		if (url_host(sl->key, name, sizeof(name)) == CR_OK &&
		    (h = hmap_get(&t->hosts, name, strlen(name))) != NULL)
			h->earlier++;
}

uint64_t frontier_room(const struct host *h, int64_t limit, int64_t now, int64_t span_ms)
{
	uint64_t left, room = UINT64_MAX, queued = h->n - h->next;
	int64_t all;

	if (h->pol.delay_us <= 0)
		return UINT64_MAX;
	if (limit != INT64_MAX) {
		/* the spacing the scheduler keeps: the delay and its margin */
		left = now < limit ? (uint64_t)((limit - now) /
						(h->pol.delay_us + SCHED_MARGIN_US)) : 0;
		room = left > queued ? left - queued : 0;
	}
	all = sched_feasible(span_ms, (long)(h->pol.delay_us / 1000));
	if (all != INT64_MAX) {
		left = (uint64_t)all > h->n + h->earlier ? (uint64_t)all - h->n - h->earlier : 0;
		room = left < room ? left : room;
	}
	return room;
}

/* l's seen and queued, if this rank owns partition p and has its
 * seen-set; 0 if not. */
static int owned_known(struct frontier *fr, struct follow_link *l, uint32_t p)
{
	const struct bloom *seen;

	if (!layout_owns(p, fr->j->rank, fr->j->nranks) || !(seen = seen_of(fr, p)))
		return 0;
	known(fr, seen, l);
	return 1;
}

/* A link of another origin: to early_fn if its partition is this rank's
 * and follow_early admits it; to hint_fn if another rank's, and follow_early
 * admits it as far as this rank knows (that rank asks its seen-set). */
static void early_link(struct frontier *fr, const struct follow_page *pg, const char *url,
		       size_t len)
{
	struct follow_link l = { url, len, 0, 0 };
	uint32_t p;

	if (!fr->early_fn || len > URL_MAX_LEN)
		return;
	p = layout_partition(&fr->j->dir, url, len);
	if (!layout_owns(p, fr->j->rank, fr->j->nranks)) {
		if (fr->hint_fn && follow_early(pg, &l, &fr->scope, &fr->j->cfg) == FOLLOW_YES)
			fr->hint_fn(fr->early_arg, url, len, p);
	} else if (owned_known(fr, &l, p) &&
		   follow_early(pg, &l, &fr->scope, &fr->j->cfg) == FOLLOW_YES) {
		fr->early_fn(fr->early_arg, url, len, p);
	}
}

void frontier_hint(struct frontier *fr, const char *url, size_t len)
{
	struct follow_link l = { url, len, 0, 0 };
	uint32_t p;

	if (!fr->early_fn || len > URL_MAX_LEN)
		return;
	p = layout_partition(&fr->j->dir, url, len);
	if (owned_known(fr, &l, p) && !l.seen && !l.queued)
		fr->early_fn(fr->early_arg, url, len, p);
}

uint64_t frontier_page(struct frontier *fr, struct host *h, const struct host_item *it,
		       const void *parse, size_t parse_len, int64_t limit, int64_t now,
		       struct segout *out)
{
	uint64_t room = frontier_room(h, limit, now, job_round_span_ms(fr->j));
	struct parse_record pr;
	struct follow_page pg;
	const struct bloom *seen;
	const char *url;
	size_t pos = 0, len;
	uint64_t n = 0, bands[MINHASH_BANDS_MAX];
	unsigned nb;

	if (!fr->on || h->released || !(seen = seen_of(fr, it->part)) ||
	    parse_record_unpack(parse, parse_len, &pr) != CR_OK ||
	    (pr.flags & (PARSE_REDIRECT | PARSE_SITEMAP)))
		return 0;
	memset(&pg, 0, sizeof(pg));
	pg.origin = it->origin->key;
	pg.origin_len = strlen(it->origin->key);
	pg.depth = it->rec.depth;
	pg.seed = it->rec.seed;
	pg.hops = it->rec.hops;
	nb = page_bands(fr, &pr, bands);
	pg.near_copy = nb && it->from_bands && follow_near_copy(bands, it->from_bands, nb);
	while (parse_record_link(&pr, &pos, &url, &len) == CR_OK) {
		struct follow_link l = { url, len, 0, 0 };
		enum follow_verdict v;

		if (!follow_same_origin(pg.origin, pg.origin_len, url, len)) {
			early_link(fr, &pg, url, len);
			continue;
		}
		known(fr, seen, &l);
		pg.followed = h->followed;
		pg.room = room;
		v = follow_decide(&pg, &l, &fr->scope, &fr->j->cfg);
		if (v != FOLLOW_YES)
			continue;
		/* What its page pays it in update, spent now (score/score.h). */
		follow_one(fr, h, it, url, len, bands, nb, out, CRAWL_PAGE,
			   score_share(pr.cash, pr.nlinks));
		if (room != UINT64_MAX)
			room--;
		n++;
	}
	/* Requisites come after their page whatever the round's plan. */
	pg.room = frontier_room(h, limit, now, 0);
	follow_embeds(fr, h, it, &pr, &pg, seen, out);
	return n;
}

int frontier_take(struct frontier *fr, struct fetchlist_load *l, const void *packed, size_t n,
		  int64_t limit, int64_t now, struct segout *out)
{
	struct crawl_record rec;
	struct follow_link lk;
	const struct bloom *seen;
	char u[URL_MAX_LEN + 1], name[URL_HOST_MAX];
	struct host_item *it;
	struct host *h;
	uint64_t urls = l->urls;
	uint32_t p;

	if (!fr->on || crawl_record_unpack(packed, n, &rec) != CR_OK || rec.url_len > URL_MAX_LEN)
		return 0;
	memcpy(u, rec.url, rec.url_len);
	u[rec.url_len] = '\0';
	rec.url = u;
	p = layout_partition(&fr->j->dir, u, rec.url_len);
	if (!layout_owns(p, fr->j->rank, fr->j->nranks) || !(seen = seen_of(fr, p)) ||
	    url_host(u, name, sizeof(name)) != CR_OK)
		return 0;
	lk.url = u;
	lk.len = rec.url_len;
	known(fr, seen, &lk);
	h = hmap_get(&l->hosts->hosts, name, strlen(name));
	if (lk.queued || lk.seen || (h && (hosts_closed(h) || h->early)) ||
	    (h ? frontier_room(h, limit, now, 0) == 0 : now >= limit))
		return 0;
	it = fetchlist_add(l, &rec, p, 0);
	l->urls = urls;   /* counted as requisites, not as the fetch lists' */
	if (!it)
		return 0;
	segout_followed(out, p, &it->rec, NULL, 0);
	note_followed(fr, it, NULL, 0);
	hosts_reopen(l->hosts, it->origin->host);
	fr->embeds++;
	return 1;
}

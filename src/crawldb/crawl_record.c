#include "crawldb/crawl_record.h"

#include <float.h>
#include <string.h>

#define CRAWL_RECORD_V1 1
#define CRAWL_RECORD_V2 2   /* V1 and dup_of at the end */
#define CRAWL_RECORD_V3 3   /* V1, hops (u8), dup_of */
#define CRAWL_RECORD_V4 4   /* V3 and the last failure's reason at the end */
#define CRAWL_RECORD_V5 5   /* V4, crawl_meta and the seed at the end */
#define CRAWL_RECORD_V6 6   /* V5, OPIC cash and history (f64) at the end */
#define CRAWL_RECORD_V7 7   /* V6, ETag, Last-Modified, text digest, visits at the end */
#define CRAWL_RECORD_V8 8   /* V7, the first copy's and each visit's Last-Modified age */

static const char *const status_names[ST_COUNT_] = {
	"unfetched", "fetched", "redirect", "gone", "error", "denied", "blocked", "deferred",
	"duplicate", "trap", "truncated", "too_large", "timeout",
};

const char *crawl_record_status_name(int status)
{
	if (status < 0 || status >= ST_COUNT_)
		return "invalid";
	return status_names[status];
}

int crawl_record_status_retries(int status)
{
	return status == ST_ERROR || status == ST_TIMEOUT || status == ST_DEFERRED;
}

void crawl_record_put(const struct crawl_record *r, struct buf *out)
{
	buf_put_str(out, r->url, r->url_len);
	buf_put_u8(out, r->status);
	buf_put_varint(out, r->http_status);
	buf_put_varint(out, r->depth);
	buf_put_u8(out, r->retries);
	buf_put_svarint(out, r->fetched_at);
	buf_put_svarint(out, r->next_fetch);
	buf_put_u64le(out, r->digest);
}

enum cr_err crawl_record_get(struct buf_reader *rd, struct crawl_record *r)
{
	uint64_t http, depth;

	if (buf_get_str(rd, &r->url, &r->url_len) || buf_get_u8(rd, &r->status) ||
	    buf_get_varint(rd, &http) || buf_get_varint(rd, &depth) ||
	    buf_get_u8(rd, &r->retries) || buf_get_svarint(rd, &r->fetched_at) ||
	    buf_get_svarint(rd, &r->next_fetch) || buf_get_u64le(rd, &r->digest))
		return CR_ERR_FORMAT;
	if (r->status >= ST_COUNT_ || http > 999 || depth > UINT32_MAX || r->url_len == 0)
		return CR_ERR_FORMAT;
	r->http_status = (uint16_t)http;
	r->depth = (uint32_t)depth;
	return CR_OK;
}

int crawl_record_meta_same(const struct crawl_meta *a, const struct crawl_meta *b)
{
	return a->kind == b->kind && a->vouched == b->vouched && a->changefreq == b->changefreq &&
	       a->priority == b->priority && a->lastmod == b->lastmod;
}

void crawl_record_meta_put(const struct crawl_meta *m, struct buf *out)
{
	/* bit 0: a sitemap, bit 1: vouched, bit 2: a requisite */
	buf_put_u8(out, (uint8_t)((m->kind == CRAWL_SITEMAP ? 1 : 0) | (m->vouched ? 2 : 0) |
				  (m->kind == CRAWL_EMBED ? 4 : 0)));
	buf_put_u8(out, m->changefreq);
	buf_put_varint(out, m->priority);
	buf_put_svarint(out, m->lastmod);
}

enum cr_err crawl_record_meta_get(struct buf_reader *rd, struct crawl_meta *m)
{
	uint64_t pr;

	if (buf_get_u8(rd, &m->kind) || buf_get_u8(rd, &m->changefreq) ||
	    buf_get_varint(rd, &pr) || buf_get_svarint(rd, &m->lastmod) ||
	    m->kind > 7 || (m->kind & 5) == 5 || m->changefreq > 7 || pr > 1001 ||
	    m->lastmod < 0)
		return CR_ERR_FORMAT;
	m->vouched = (m->kind & 2) != 0;
	m->kind = (m->kind & 4) ? CRAWL_EMBED : (m->kind & 1) ? CRAWL_SITEMAP : CRAWL_PAGE;
	m->priority = (uint16_t)pr;
	return CR_OK;
}

void crawl_record_cash_put(double v, struct buf *out)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	buf_put_u64le(out, bits);
}

enum cr_err crawl_record_cash_get(struct buf_reader *rd, double *v)
{
	uint64_t bits;

	if (buf_get_u64le(rd, &bits))
		return CR_ERR_FORMAT;
	memcpy(v, &bits, sizeof(*v));
	/* Cash is finite and never negative: anything else is damage. */
	if (!(*v >= 0 && *v <= DBL_MAX))
		return CR_ERR_FORMAT;
	return CR_OK;
}

void crawl_record_change_put(const struct crawl_record *r, struct buf *out)
{
	buf_put_str(out, r->etag ? r->etag : "", r->etag ? r->etag_len : 0);
	buf_put_svarint(out, r->last_modified);
	buf_put_u64le(out, r->text_digest);
}

enum cr_err crawl_record_change_get(struct buf_reader *rd, struct crawl_record *r)
{
	size_t i;

	if (buf_get_str(rd, &r->etag, &r->etag_len) || r->etag_len > CRAWL_ETAG_MAX ||
	    buf_get_svarint(rd, &r->last_modified) || r->last_modified < 0 ||
	    buf_get_u64le(rd, &r->text_digest))
		return CR_ERR_FORMAT;
	for (i = 0; i < r->etag_len; i++)
		if ((unsigned char)r->etag[i] < 0x20 || r->etag[i] == 0x7f)
			return CR_ERR_FORMAT;   /* it goes into a request header */
	return CR_OK;
}

/* Version 8's ages, after version 7's visits. */
static enum cr_err get_ages(struct buf_reader *rd, struct crawl_history *h)
{
	uint64_t v;
	uint8_t i;

	if (buf_get_varint(rd, &v) || v > UINT32_MAX)
		return CR_ERR_FORMAT;
	h->first_age_s = (uint32_t)v;
	for (i = 0; i < h->n; i++) {
		if (buf_get_varint(rd, &v) || v > UINT32_MAX)
			return CR_ERR_FORMAT;
		h->lm_age_s[i] = (uint32_t)v;
	}
	return CR_OK;
}

static enum cr_err get_visits(struct buf_reader *rd, struct crawl_history *h)
{
	uint64_t v;
	uint8_t i;

	if (buf_get_u8(rd, &h->n) || buf_get_u8(rd, &h->changed) || h->n > CRAWL_HISTORY_MAX ||
	    buf_get_svarint(rd, &h->visited_at) || h->visited_at < 0 ||
	    buf_get_varint(rd, &v) || v > UINT32_MAX)
		return CR_ERR_FORMAT;
	h->scheduled_s = (uint32_t)v;
	for (i = 0; i < h->n; i++) {
		if (buf_get_varint(rd, &v) || v > UINT32_MAX)
			return CR_ERR_FORMAT;
		h->interval_s[i] = (uint32_t)v;
	}
	return CR_OK;
}

void crawl_record_pack(const struct crawl_record *r, struct buf *out)
{
	unsigned i;

	buf_put_u8(out, CRAWL_RECORD_V8);
	crawl_record_put(r, out);
	buf_put_u8(out, r->hops);
	buf_put_str(out, r->dup_of, r->dup_of_len);
	buf_put_str(out, r->reason, r->reason_len);
	crawl_record_meta_put(&r->meta, out);
	buf_put_varint(out, r->seed);
	crawl_record_cash_put(r->cash, out);
	crawl_record_cash_put(r->history, out);
	crawl_record_change_put(r, out);
	buf_put_u8(out, r->visits.n);
	buf_put_u8(out, r->visits.changed);
	buf_put_svarint(out, r->visits.visited_at);
	buf_put_varint(out, r->visits.scheduled_s);
	for (i = 0; i < r->visits.n && i < CRAWL_HISTORY_MAX; i++)
		buf_put_varint(out, r->visits.interval_s[i]);
	buf_put_varint(out, r->visits.first_age_s);
	for (i = 0; i < r->visits.n && i < CRAWL_HISTORY_MAX; i++)
		buf_put_varint(out, r->visits.lm_age_s[i]);
}

enum cr_err crawl_record_unpack(const void *p, size_t n, struct crawl_record *r)
{
	struct buf_reader rd;
	uint8_t v;
	struct crawl_record t;

	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &v) || v < CRAWL_RECORD_V1 || v > CRAWL_RECORD_V8 ||
	    crawl_record_get(&rd, &t))
		return CR_ERR_FORMAT;
	memset(&t.meta, 0, sizeof(t.meta));
	t.dup_of = t.reason = "";
	t.dup_of_len = t.reason_len = 0;
	t.hops = 0;
	if (v >= CRAWL_RECORD_V3 && buf_get_u8(&rd, &t.hops))
		return CR_ERR_FORMAT;
	if (v >= CRAWL_RECORD_V2 && buf_get_str(&rd, &t.dup_of, &t.dup_of_len))
		return CR_ERR_FORMAT;
	if (v >= CRAWL_RECORD_V4 && buf_get_str(&rd, &t.reason, &t.reason_len))
		return CR_ERR_FORMAT;
	t.seed = 0;
	if (v >= CRAWL_RECORD_V5 && (crawl_record_meta_get(&rd, &t.meta) ||
				     buf_get_varint(&rd, &t.seed)))
		return CR_ERR_FORMAT;
	t.cash = t.history = 0;
	if (v >= CRAWL_RECORD_V6 && (crawl_record_cash_get(&rd, &t.cash) ||
				     crawl_record_cash_get(&rd, &t.history)))
		return CR_ERR_FORMAT;
	t.etag = "";
	t.etag_len = 0;
	t.last_modified = 0;
	t.text_digest = 0;
	memset(&t.visits, 0, sizeof(t.visits));
	if (v >= CRAWL_RECORD_V7 &&
	    (crawl_record_change_get(&rd, &t) || get_visits(&rd, &t.visits)))
		return CR_ERR_FORMAT;
	if (v >= CRAWL_RECORD_V8 && get_ages(&rd, &t.visits))
		return CR_ERR_FORMAT;
	if (rd.off != rd.len)
		return CR_ERR_FORMAT;
	*r = t;
	return CR_OK;
}

/* The URL of a packed record that starts with a version byte and a string. */
static int url_of(const void *p, size_t n, const char **u, size_t *un)
{
	struct buf_reader rd;
	uint8_t v;

	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &v) || buf_get_str(&rd, u, un)) {
		*u = "";
		*un = 0;
		return -1;
	}
	return 0;
}

int crawl_record_cmp(const void *a, size_t an, const void *b, size_t bn)
{
	const char *ua, *ub;
	size_t la, lb;
	int c;

	url_of(a, an, &ua, &la);
	url_of(b, bn, &ub, &lb);
	c = memcmp(ua, ub, la < lb ? la : lb);
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

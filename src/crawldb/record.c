#include "crawldb/record.h"

#include <string.h>

#define CRAWL_RECORD_V1 1
#define CRAWL_RECORD_V2 2   /* V1 and dup_of at the end */
#define CRAWL_RECORD_V3 3   /* V1, hops (u8), dup_of */
#define FETCH_RECORD_V1 1
#define FETCH_RECORD_V2 2   /* V1 and hops (u8) at the end */
#define PARSE_RECORD_V1 1
#define PARSE_RECORD_V2 2   /* V1 and the flags at the end */
#define PARSE_RECORD_V3 3   /* V2 and the MinHash signature at the end */
#define PARSE_RECORD_V4 4   /* V3 and hops (u8) at the end */

static const char *const status_names[ST_COUNT_] = {
	"unfetched", "fetched", "redirect", "gone", "error", "denied", "blocked", "deferred",
	"duplicate", "trap", "truncated", "too_large", "timeout",
};

const char *crawl_status_name(int status)
{
	if (status < 0 || status >= ST_COUNT_)
		return "invalid";
	return status_names[status];
}

static void put_record(const struct crawl_record *r, struct buf *out)
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

static enum cr_err get_record(struct rd *rd, struct crawl_record *r)
{
	uint64_t http, depth;

	if (rd_str(rd, &r->url, &r->url_len) || rd_u8(rd, &r->status) ||
	    rd_varint(rd, &http) || rd_varint(rd, &depth) || rd_u8(rd, &r->retries) ||
	    rd_svarint(rd, &r->fetched_at) || rd_svarint(rd, &r->next_fetch) ||
	    rd_u64le(rd, &r->digest))
		return CR_ERR_FORMAT;
	if (r->status >= ST_COUNT_ || http > 999 || depth > UINT32_MAX || r->url_len == 0)
		return CR_ERR_FORMAT;
	r->http_status = (uint16_t)http;
	r->depth = (uint32_t)depth;
	return CR_OK;
}

void crawl_record_pack(const struct crawl_record *r, struct buf *out)
{
	buf_put_u8(out, CRAWL_RECORD_V3);
	put_record(r, out);
	buf_put_u8(out, r->hops);
	buf_put_str(out, r->dup_of, r->dup_of_len);
}

enum cr_err crawl_record_unpack(const void *p, size_t n, struct crawl_record *r)
{
	struct rd rd;
	uint8_t v;
	struct crawl_record t;

	rd_init(&rd, p, n);
	if (rd_u8(&rd, &v) || v < CRAWL_RECORD_V1 || v > CRAWL_RECORD_V3 ||
	    get_record(&rd, &t))
		return CR_ERR_FORMAT;
	t.dup_of = "";
	t.dup_of_len = 0;
	t.hops = 0;
	if (v == CRAWL_RECORD_V3 && rd_u8(&rd, &t.hops))
		return CR_ERR_FORMAT;
	if (v >= CRAWL_RECORD_V2 && rd_str(&rd, &t.dup_of, &t.dup_of_len))
		return CR_ERR_FORMAT;
	if (rd.off != rd.len)
		return CR_ERR_FORMAT;
	*r = t;
	return CR_OK;
}

/* The URL of a packed record that starts with a version byte and a string. */
static int url_of(const void *p, size_t n, const char **u, size_t *un)
{
	struct rd rd;
	uint8_t v;

	rd_init(&rd, p, n);
	if (rd_u8(&rd, &v) || rd_str(&rd, u, un)) {
		*u = "";
		*un = 0;
		return -1;
	}
	return 0;
}

static int cmp_urls(const void *a, size_t an, const void *b, size_t bn)
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

int crawl_record_cmp(const void *a, size_t an, const void *b, size_t bn)
{
	return cmp_urls(a, an, b, bn);
}

void fetch_record_pack(const struct fetch_record *f, struct buf *out)
{
	buf_put_u8(out, FETCH_RECORD_V2);
	put_record(&f->rec, out);
	buf_put_str(out, f->reason, f->reason_len);
	buf_put_str(out, f->location, f->location_len);
	buf_put_str(out, f->content_type, f->content_type_len);
	buf_put_str(out, f->charset, f->charset_len);
	buf_put_str(out, f->warc, f->warc_len);
	buf_put_varint(out, f->warc_offset);
	buf_put_varint(out, f->body_len);
	buf_put_svarint(out, f->latency_us);
	buf_put_u8(out, f->rec.hops);
}

enum cr_err fetch_record_unpack(const void *p, size_t n, struct fetch_record *f)
{
	struct rd rd;
	uint8_t v;
	struct fetch_record t;

	rd_init(&rd, p, n);
	if (rd_u8(&rd, &v) || (v != FETCH_RECORD_V1 && v != FETCH_RECORD_V2) ||
	    get_record(&rd, &t.rec) ||
	    rd_str(&rd, &t.reason, &t.reason_len) ||
	    rd_str(&rd, &t.location, &t.location_len) ||
	    rd_str(&rd, &t.content_type, &t.content_type_len) ||
	    rd_str(&rd, &t.charset, &t.charset_len) ||
	    rd_str(&rd, &t.warc, &t.warc_len) || rd_varint(&rd, &t.warc_offset) ||
	    rd_varint(&rd, &t.body_len) || rd_svarint(&rd, &t.latency_us))
		return CR_ERR_FORMAT;
	t.rec.hops = 0;
	if ((v == FETCH_RECORD_V2 && rd_u8(&rd, &t.rec.hops)) || rd.off != rd.len)
		return CR_ERR_FORMAT;
	t.rec.dup_of = "";
	t.rec.dup_of_len = 0;
	*f = t;
	return CR_OK;
}

void parse_record_pack(const struct parse_record *p, const char *const *links,
		       uint32_t nlinks, struct buf *out)
{
	uint32_t i;

	buf_put_u8(out, PARSE_RECORD_V4);
	buf_put_str(out, p->url, p->url_len);
	buf_put_varint(out, p->depth);
	buf_put_str(out, p->title, p->title_len);
	buf_put_u64le(out, p->text_digest);
	buf_put_varint(out, nlinks);
	for (i = 0; i < nlinks; i++)
		buf_put_str(out, links[i], strlen(links[i]));
	buf_put_varint(out, p->flags);
	buf_put_varint(out, p->nsig);
	for (i = 0; i < p->nsig; i++)
		buf_put_u32le(out, p->sig[i]);
	buf_put_u8(out, p->hops);
}

enum cr_err parse_record_unpack(const void *p, size_t n, struct parse_record *r)
{
	struct rd rd;
	uint8_t v;
	uint64_t depth, nl, i;
	struct parse_record t;

	rd_init(&rd, p, n);
	if (rd_u8(&rd, &v) || v < PARSE_RECORD_V1 || v > PARSE_RECORD_V4 ||
	    rd_str(&rd, &t.url, &t.url_len) ||
	    rd_varint(&rd, &depth) || rd_str(&rd, &t.title, &t.title_len) ||
	    rd_u64le(&rd, &t.text_digest) || rd_varint(&rd, &nl) ||
	    depth > UINT32_MAX || nl > UINT32_MAX)
		return CR_ERR_FORMAT;
	t.depth = (uint32_t)depth;
	t.nlinks = (uint32_t)nl;
	t.links = rd.p + rd.off;
	t.links_len = rd.len - rd.off;
	/* Check every link now, so that iterating cannot fail later. */
	for (i = 0; i < nl; i++) {
		const char *s;
		size_t sl;

		if (rd_str(&rd, &s, &sl))
			return CR_ERR_FORMAT;
	}
	t.links_len = rd.off - (size_t)(t.links - rd.p);
	t.flags = 0;
	t.nsig = 0;
	t.sig_bytes = NULL;
	if (v >= PARSE_RECORD_V2) {
		uint64_t fl;

		if (rd_varint(&rd, &fl) || fl > UINT32_MAX)
			return CR_ERR_FORMAT;
		t.flags = (uint32_t)fl;
	}
	if (v >= PARSE_RECORD_V3) {
		uint64_t ns;

		if (rd_varint(&rd, &ns) || ns > PARSE_SIG_MAX || (rd.len - rd.off) / 4 < ns)
			return CR_ERR_FORMAT;
		t.nsig = (uint32_t)ns;
		t.sig_bytes = rd.p + rd.off;
		rd.off += (size_t)ns * 4;
	}
	t.hops = 0;
	if (v >= PARSE_RECORD_V4 && rd_u8(&rd, &t.hops))
		return CR_ERR_FORMAT;
	if (rd.off != rd.len)
		return CR_ERR_FORMAT;
	*r = t;
	return CR_OK;
}

uint32_t parse_record_sig(const struct parse_record *r, uint32_t i)
{
	const unsigned char *b = r->sig_bytes + (size_t)i * 4;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

enum cr_err parse_record_link(const struct parse_record *r, size_t *pos,
			      const char **url, size_t *len)
{
	struct rd rd;

	rd_init(&rd, r->links, r->links_len);
	rd.off = *pos;
	if (rd.off >= rd.len)
		return CR_EOF;
	if (rd_str(&rd, url, len))
		return CR_ERR_FORMAT;
	*pos = rd.off;
	return CR_OK;
}

void link_record_pack(const struct link_record *l, struct buf *out)
{
	buf_put_u8(out, 2);
	buf_put_str(out, l->url, l->url_len);
	buf_put_varint(out, l->depth);
	buf_put_u8(out, l->hops);
}

enum cr_err link_record_unpack(const void *p, size_t n, struct link_record *l)
{
	struct rd rd;
	uint8_t v;
	uint64_t depth;
	struct link_record t;

	rd_init(&rd, p, n);
	t.hops = 0;
	if (rd_u8(&rd, &v) || (v != 1 && v != 2) || rd_str(&rd, &t.url, &t.url_len) ||
	    rd_varint(&rd, &depth) || depth > UINT32_MAX ||
	    (v == 2 && rd_u8(&rd, &t.hops)) || rd.off != rd.len || t.url_len == 0)
		return CR_ERR_FORMAT;
	t.depth = (uint32_t)depth;
	*l = t;
	return CR_OK;
}

int link_record_cmp(const void *a, size_t an, const void *b, size_t bn)
{
	int c = cmp_urls(a, an, b, bn);
	struct link_record la, lb;

	if (c)
		return c;
	/* Equal URLs: the smaller depth first, so the merge keeps it; then
	 * the fewer redirect hops. */
	if (link_record_unpack(a, an, &la) || link_record_unpack(b, bn, &lb))
		return 0;
	if (la.depth != lb.depth)
		return la.depth < lb.depth ? -1 : 1;
	return la.hops < lb.hops ? -1 : la.hops > lb.hops;
}

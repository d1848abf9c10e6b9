/*
 * test_record.c - the packed records of the crawl directory
 * (crawldb/crawl_record.h, fetch_record.h, parse_record.h, link_record.h):
 * round trips of crawl, fetch, parse (with its links) and link records over
 * tables of values, including the extremes of every field; the CrawlDb and
 * link orders; every truncation of a packed record and a few thousand
 * random byte strings unpack to CR_ERR_FORMAT (or CR_OK for the whole record
 * only), never a crash.
 */
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/link_record.h"
#include "crawldb/parse_record.h"
#include "test.h"
#include "util/buf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x12345678;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define S(s) s, sizeof(s) - 1

static int same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static int crawl_equal(const struct crawl_record *a, const struct crawl_record *b)
{
	return same(a->url, a->url_len, b->url, b->url_len) && a->status == b->status &&
	       a->http_status == b->http_status && a->depth == b->depth &&
	       a->retries == b->retries && a->fetched_at == b->fetched_at &&
	       a->next_fetch == b->next_fetch && a->digest == b->digest &&
	       same(a->dup_of ? a->dup_of : "", a->dup_of_len,
		    b->dup_of ? b->dup_of : "", b->dup_of_len) && a->hops == b->hops &&
	       same(a->reason ? a->reason : "", a->reason_len,
		    b->reason ? b->reason : "", b->reason_len) &&
	       crawl_record_meta_same(&a->meta, &b->meta) && a->seed == b->seed &&
	       a->cash == b->cash && a->history == b->history &&
	       same(a->etag ? a->etag : "", a->etag_len, b->etag ? b->etag : "", b->etag_len) &&
	       a->last_modified == b->last_modified && a->text_digest == b->text_digest &&
	       a->visits.n == b->visits.n && a->visits.visited_at == b->visits.visited_at &&
	       a->visits.scheduled_s == b->visits.scheduled_s &&
	       (a->visits.changed & ((1u << a->visits.n) - 1)) ==
		       (b->visits.changed & ((1u << b->visits.n) - 1)) &&
	       !memcmp(a->visits.interval_s, b->visits.interval_s,
		       a->visits.n * sizeof(a->visits.interval_s[0])) &&
	       !memcmp(a->visits.lm_age_s, b->visits.lm_age_s,
		       a->visits.n * sizeof(a->visits.lm_age_s[0])) &&
	       a->visits.first_age_s == b->visits.first_age_s;
}

/*
 * Unpacks every proper prefix of a packed record and a copy with a byte
 * appended: all must be CR_ERR_FORMAT. The prefixes are copied to a heap
 * block of their exact size so that a sanitizer sees any overread.
 */
typedef enum cr_err (*unpack_fn)(const void *p, size_t n, void *out);

static int all_prefixes_fail(const unsigned char *p, size_t n, unpack_fn fn, void *scratch)
{
	size_t k;
	int ok = 1;

	for (k = 0; k < n; k++) {
		unsigned char *c = malloc(k ? k : 1);

		if (!c)
			abort();
		memcpy(c, p, k);
		if (fn(c, k, scratch) != CR_ERR_FORMAT) {
			printf("# prefix of %zu of %zu bytes unpacked\n", k, n);
			ok = 0;
		}
		free(c);
	}
	{
		unsigned char *c = malloc(n + 1);

		if (!c)
			abort();
		memcpy(c, p, n);
		c[n] = 0;
		if (fn(c, n + 1, scratch) != CR_ERR_FORMAT) {
			printf("# record with a byte appended unpacked\n");
			ok = 0;
		}
		free(c);
	}
	return ok;
}

static enum cr_err crawl_unpack_v(const void *p, size_t n, void *out)
{
	return crawl_record_unpack(p, n, out);
}

static enum cr_err fetch_unpack_v(const void *p, size_t n, void *out)
{
	return fetch_record_unpack(p, n, out);
}

static enum cr_err parse_unpack_v(const void *p, size_t n, void *out)
{
	return parse_record_unpack(p, n, out);
}

static enum cr_err link_unpack_v(const void *p, size_t n, void *out)
{
	return link_record_unpack(p, n, out);
}

/* No kind, no sitemap news. */
#define M0 { 0, 0, 0, 0, 0 }
/* No ETag, Last-Modified, text digest or visits. */
#define NOCHANGE S(""), 0, 0, { 0, 0, 0, 0, { 0 }, { 0 }, 0 }

static const struct crawl_record crawl_cases[] = {
	{ S("http://a.example/"), ST_UNFETCHED, 0, 0, 0, 0, 0, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },
	{ S("http://a.example/x?q=1"), ST_FETCHED, 200, 3, 0, 1700000000000000LL,
	  1702592000000000LL, 0x0123456789abcdefULL, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },
	{ S("https://b.example:8443/p%20q#"), ST_REDIRECT, 301, 1, 0, 1, 2, 1, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },
	{ S("http://c.example/gone"), ST_GONE, 404, 7, 2, -1, -2, UINT64_MAX, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },
	{ S("http://c.example/err"), ST_ERROR, 503, UINT32_MAX, 255, INT64_MAX, INT64_MIN, 42,
	  S(""), 0, S("dns: nxdomain"), { CRAWL_SITEMAP, 1, 7, 1001, 1 },
	  UINT64_MAX, 0.125, 3.5, S("W/\"abc\""), 1700000000000000LL, 0xfeedULL,
	  { 3, 5, 1700000000000000LL, 86400, { 3600, 86400, UINT32_MAX }, { 120, 0, 7 }, 99 } },
	{ S("http://d.example/robots"), ST_DENIED, 999, 12, 0, INT64_MIN, INT64_MAX, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },
	{ S("http://10.0.0.1/"), ST_BLOCKED, 0, 0, 0, 0, 0, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },
	{ S("x"), ST_FETCHED, 304, 127, 128, 127, 128, 1ULL << 63, S(""), 0, S(""), M0, 0, 0, 0,
	  S("\"x\""), 1, 1, { 8, 255, 5, UINT32_MAX, { 1, 2, 3, 4, 5, 6, 7, 8 },
				  { 8, 7, 6, 5, 4, 3, 2, UINT32_MAX }, UINT32_MAX } },
	{ S("http://e.example/copy"), ST_DUPLICATE, 200, 2, 0, 5, 6, 7,
	  S("http://f.example/original"), 0, S(""), { 0, 0, 3, 801, 1709251200000000LL }, 77, 1e-300, 1e300, NOCHANGE },
	{ S("http://g.example/after-redirects"), ST_UNFETCHED, 0, 3, 0, 0, 0, 0, S(""), 5, S(""), { CRAWL_SITEMAP, 0, 0, 0, 0 }, 0, 0, 0, NOCHANGE },
};

static void test_crawl(void)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(crawl_cases) / sizeof(crawl_cases[0]); i++) {
		struct crawl_record r;
		enum cr_err e;

		buf_reset(&b);
		crawl_record_pack(&crawl_cases[i], &b);
		memset(&r, 0xa5, sizeof(r));
		e = crawl_record_unpack(b.p, b.len, &r);
		CHECK(e == CR_OK, "crawl %zu: unpack %s", i, error_str(e));
		CHECK(e == CR_OK && crawl_equal(&r, &crawl_cases[i]), "crawl %zu: round trip", i);
		CHECK(e != CR_OK || (r.url >= (const char *)b.p &&
				     r.url + r.url_len <= (const char *)b.p + b.len),
		      "crawl %zu: url borrowed from the packed bytes", i);
		CHECK(all_prefixes_fail(b.p, b.len, crawl_unpack_v, &r),
		      "crawl %zu: truncations and an extra byte are format errors", i);
	}
	/* Values the packer can write but the reader must refuse. */
	{
		static const struct crawl_record bad[] = {
			{ "", 0, ST_FETCHED, 200, 0, 0, 0, 0, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },       /* empty URL */
			{ S("http://a/"), ST_COUNT_, 200, 0, 0, 0, 0, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE }, /* status */
			{ S("http://a/"), 200, 200, 0, 0, 0, 0, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE },       /* status */
			{ S("http://a/"), ST_FETCHED, 1000, 0, 0, 0, 0, 0, S(""), 0, S(""), M0, 0, 0, 0, NOCHANGE }, /* http */
		};
		struct crawl_record r, keep;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			buf_reset(&b);
			crawl_record_pack(&bad[i], &b);
			memset(&r, 0x5a, sizeof(r));
			keep = r;
			CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_ERR_FORMAT,
			      "crawl bad %zu refused", i);
			CHECK(!memcmp(&r, &keep, sizeof(r)), "crawl bad %zu: out untouched", i);
		}
		/* A version byte other than 1 to 8. */
		buf_reset(&b);
		crawl_record_pack(&crawl_cases[1], &b);
		b.p[0] = 9;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "crawl version 9");
		/* An ETag with a control character, more than 8 visits: damage. */
		{
			struct crawl_record bad_etag = crawl_cases[1], many = crawl_cases[1];
			struct buf x;

			buf_init(&x);
			bad_etag.etag = "\"a\nb\"";
			bad_etag.etag_len = 5;
			crawl_record_pack(&bad_etag, &x);
			CHECK(crawl_record_unpack(x.p, x.len, &r) == CR_ERR_FORMAT,
			      "an ETag with a newline refused");
			buf_reset(&x);
			crawl_record_pack(&many, &x);
			x.p[x.len - 5] = CRAWL_HISTORY_MAX + 1;   /* n: changed, visited_at,
								     scheduled_s, first_age_s
								     follow */
			CHECK(crawl_record_unpack(x.p, x.len, &r) == CR_ERR_FORMAT,
			      "9 visits refused");
			buf_release(&x);
		}
		/* Version 7: without the ages (1 byte without visits). */
		b.len -= 1;
		b.p[0] = 7;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && crawl_equal(&r, &crawl_cases[1]),
		      "crawl version 7 read");
		/* Version 6: without ETag, Last-Modified, text digest and visits
		 * (14 bytes when they are empty). */
		b.len -= 14;
		b.p[0] = 6;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && crawl_equal(&r, &crawl_cases[1]),
		      "crawl version 6 read");
		/* Cash that is NaN, infinite or negative is damage. */
		{
			static const double bad_cash[] = { NAN, INFINITY, -1, -0.0 };
			size_t k;

			b.p[0] = 6;
			for (k = 0; k < sizeof(bad_cash) / sizeof(bad_cash[0]); k++) {
				memcpy(b.p + b.len - 16, &bad_cash[k], 8);
				CHECK((crawl_record_unpack(b.p, b.len, &r) == CR_ERR_FORMAT) ==
					      (k < 3), "crawl cash %zu", k);
			}
		}
		/* Version 5: without cash and history (16 bytes). */
		b.len -= 16;
		b.p[0] = 5;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && r.cash == 0 && r.history == 0 &&
		      crawl_equal(&r, &crawl_cases[1]), "crawl version 5 read");
		/* A meta out of range: kind bits 8, or a sitemap that is a
		 * requisite (5); 4 alone is a requisite. */
		b.p[0] = 5;
		b.p[b.len - 5] = 8;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "crawl kind 8");
		b.p[b.len - 5] = 5;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "crawl kind 5");
		b.p[b.len - 5] = 4;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && r.meta.kind == CRAWL_EMBED,
		      "crawl kind 4: a requisite");
		/* Version 4 (no meta, no seed), 3 (no reason), 2 (no hops) and 1
		 * (no dup_of either) are still read: drop the zero meta and seed
		 * (5 bytes), the empty reason, the hops byte, then the empty
		 * dup_of too. */
		b.p[0] = 4;
		b.len -= 5;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && r.meta.kind == CRAWL_PAGE &&
		      crawl_equal(&r, &crawl_cases[1]), "crawl version 4 read");
		b.p[0] = 3;
		b.len--;
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && r.reason_len == 0 &&
		      crawl_equal(&r, &crawl_cases[1]), "crawl version 3 read");
		b.p[0] = 2;
		memmove(b.p + b.len - 2, b.p + b.len - 1, 1);
		CHECK(crawl_record_unpack(b.p, b.len - 1, &r) == CR_OK && r.hops == 0 &&
		      crawl_equal(&r, &crawl_cases[1]), "crawl version 2 read");
		b.p[0] = 1;
		CHECK(crawl_record_unpack(b.p, b.len - 2, &r) == CR_OK && r.dup_of_len == 0 &&
		      crawl_equal(&r, &crawl_cases[1]), "crawl version 1 read");
		/* A depth over 32 bits. */
		buf_reset(&b);
		buf_put_u8(&b, 1);
		buf_put_str(&b, S("http://a/"));
		buf_put_u8(&b, ST_FETCHED);
		buf_put_varint(&b, 200);
		buf_put_varint(&b, (uint64_t)UINT32_MAX + 1);
		buf_put_u8(&b, 0);
		buf_put_svarint(&b, 0);
		buf_put_svarint(&b, 0);
		buf_put_u64le(&b, 0);
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "crawl depth 2^32");
		/* The same bytes with depth 2^32-1 are fine: the test builds the
		 * layout the packer writes. */
		buf_reset(&b);
		buf_put_u8(&b, 1);
		buf_put_str(&b, S("http://a/"));
		buf_put_u8(&b, ST_FETCHED);
		buf_put_varint(&b, 200);
		buf_put_varint(&b, UINT32_MAX);
		buf_put_u8(&b, 0);
		buf_put_svarint(&b, 0);
		buf_put_svarint(&b, 0);
		buf_put_u64le(&b, 0);
		CHECK(crawl_record_unpack(b.p, b.len, &r) == CR_OK && r.depth == UINT32_MAX,
		      "crawl depth 2^32-1");
	}
	buf_release(&b);
}

static void test_fetch(void)
{
	static const struct {
		int rec;
		const char *reason, *location, *ctype, *charset, *warc;
		uint64_t warc_offset, body_len;
		int64_t latency;
	} cases[] = {
		{ 1, "", "", "text/html", "utf-8", "seg-00001-r0000-00000.warc.gz", 1234,
		  5678, 91011 },
		{ 2, "", "https://b.example/next", "", "", "", 0, 0, 0 },
		{ 4, "dns: NXDOMAIN", "", "", "", "", 0, 0, -1 },
		{ 4, "timeout", "", "", "", "", UINT64_MAX, UINT64_MAX, INT64_MAX },
		{ 7, "truncated", "", "application/octet-stream", "", "w.warc.gz",
		  1ULL << 40, 10485760, INT64_MIN },
	};
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fetch_record f, g;
		enum cr_err e;

		memset(&f, 0, sizeof(f));
		f.rec = crawl_cases[cases[i].rec];
		f.rec.reason = "";   /* a fetch record has its own reason */
		f.rec.reason_len = 0;
		f.rec.history = 0;   /* the CrawlDb's alone */
		memset(&f.rec.visits, 0, sizeof(f.rec.visits));
		f.reason = cases[i].reason;
		f.reason_len = strlen(f.reason);
		f.location = cases[i].location;
		f.location_len = strlen(f.location);
		f.content_type = cases[i].ctype;
		f.content_type_len = strlen(f.content_type);
		f.charset = cases[i].charset;
		f.charset_len = strlen(f.charset);
		f.warc = cases[i].warc;
		f.warc_len = strlen(f.warc);
		f.warc_offset = cases[i].warc_offset;
		f.body_len = cases[i].body_len;
		f.latency_us = cases[i].latency;
		buf_reset(&b);
		fetch_record_pack(&f, &b);
		e = fetch_record_unpack(b.p, b.len, &g);
		CHECK(e == CR_OK, "fetch %zu: unpack %s", i, error_str(e));
		if (e)
			continue;
		CHECK(crawl_equal(&g.rec, &f.rec), "fetch %zu: record", i);
		CHECK(same(g.reason, g.reason_len, f.reason, f.reason_len), "fetch %zu: reason", i);
		CHECK(same(g.location, g.location_len, f.location, f.location_len),
		      "fetch %zu: location", i);
		CHECK(same(g.content_type, g.content_type_len, f.content_type,
			   f.content_type_len), "fetch %zu: content type", i);
		CHECK(same(g.charset, g.charset_len, f.charset, f.charset_len),
		      "fetch %zu: charset", i);
		CHECK(same(g.warc, g.warc_len, f.warc, f.warc_len), "fetch %zu: warc", i);
		CHECK(g.warc_offset == f.warc_offset && g.body_len == f.body_len &&
			      g.latency_us == f.latency_us, "fetch %zu: numbers", i);
		/* A fetch record sorts with the CrawlDb order by its URL. */
		{
			struct buf c;

			buf_init(&c);
			crawl_record_pack(&f.rec, &c);
			CHECK(crawl_record_cmp(b.p, b.len, c.p, c.len) == 0,
			      "fetch %zu: compares equal to its crawl record", i);
			/* A crawl record is not a fetch record. */
			CHECK(fetch_record_unpack(c.p, c.len, &g) == CR_ERR_FORMAT,
			      "fetch %zu: crawl record refused", i);
			buf_release(&c);
		}
		CHECK(all_prefixes_fail(b.p, b.len, fetch_unpack_v, &g),
		      "fetch %zu: truncations are format errors", i);
	}
	buf_release(&b);
}

static void test_parse(void)
{
	static const char *const links0[] = { NULL };
	static const char *const links1[] = { "http://a.example/1" };
	static const char *const links3[] = { "http://a.example/1", "",
					       "https://b.example/\xc3\xa9" };
	static const struct {
		const char *url, *title;
		uint32_t depth;
		uint64_t digest;
		const char *const *links;
		uint32_t nlinks;
	} cases[] = {
		{ "http://a.example/", "", 0, 0, links0, 0 },
		{ "http://a.example/", "A title", 1, 0xfeedULL, links1, 1 },
		{ "", "t", UINT32_MAX, UINT64_MAX, links3, 3 },
	};
	static const char *many[300];
	static char many_store[300][40];
	struct buf b;
	size_t i;

	for (i = 0; i < 300; i++) {
		snprintf(many_store[i], sizeof(many_store[i]), "http://m.example/%zu", i * 7919);
		many[i] = many_store[i];
	}
	buf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]) + 1; i++) {
		struct parse_record p, q;
		const char *const *links;
		uint32_t nlinks, k;
		size_t pos = 0;
		enum cr_err e;
		int ok = 1;

		memset(&p, 0, sizeof(p));
		if (i < sizeof(cases) / sizeof(cases[0])) {
			p.url = cases[i].url;
			p.title = cases[i].title;
			p.depth = cases[i].depth;
			p.text_digest = cases[i].digest;
			links = cases[i].links;
			nlinks = cases[i].nlinks;
		} else {
			p.url = "http://m.example/";
			p.title = "many links";
			p.depth = 5;
			links = many;
			nlinks = 300;
		}
		p.url_len = strlen(p.url);
		p.title_len = strlen(p.title);
		buf_reset(&b);
		parse_record_pack(&p, links, nlinks, &b);
		e = parse_record_unpack(b.p, b.len, &q);
		CHECK(e == CR_OK, "parse %zu: unpack %s", i, error_str(e));
		if (e)
			continue;
		CHECK(same(q.url, q.url_len, p.url, p.url_len) &&
			      same(q.title, q.title_len, p.title, p.title_len) &&
			      q.depth == p.depth && q.text_digest == p.text_digest &&
			      q.nlinks == nlinks, "parse %zu: fields", i);
		for (k = 0; k < nlinks; k++) {
			const char *u = NULL;
			size_t ul = 0;

			e = parse_record_link(&q, &pos, &u, &ul);
			if (e != CR_OK || !same(u, ul, links[k], strlen(links[k]))) {
				ok = 0;
				break;
			}
		}
		CHECK(ok, "parse %zu: links in order (stopped at %u)", i, k);
		CHECK(parse_record_link(&q, &pos, &(const char *){ NULL }, &(size_t){ 0 }) ==
			      CR_EOF, "parse %zu: links end", i);
		CHECK(parse_record_link(&q, &pos, &(const char *){ NULL }, &(size_t){ 0 }) ==
			      CR_EOF, "parse %zu: and stay ended", i);
		CHECK(all_prefixes_fail(b.p, b.len, parse_unpack_v, &q),
		      "parse %zu: truncations are format errors", i);
	}
	/* A link count larger than the links present. */
	{
		struct parse_record q;

		buf_reset(&b);
		buf_put_u8(&b, 1);
		buf_put_str(&b, S("http://a/"));
		buf_put_varint(&b, 0);
		buf_put_str(&b, S(""));
		buf_put_u64le(&b, 0);
		buf_put_varint(&b, 2);
		buf_put_str(&b, S("http://a/1"));
		CHECK(parse_record_unpack(b.p, b.len, &q) == CR_ERR_FORMAT,
		      "parse: nlinks 2, 1 link");
		buf_put_str(&b, S("http://a/2"));
		CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.nlinks == 2,
		      "parse: nlinks 2, 2 links");
		buf_put_varint(&b, UINT64_MAX);
		CHECK(parse_record_unpack(b.p, b.len, &q) == CR_ERR_FORMAT,
		      "parse: bytes after the links");
	}
	{
		/* Version 5: refused links, and a sitemap's entries. */
		static const char *const links[] = { "http://s/a", "http://s/b" };
		static const char *const refused[] = { "http://s/3", "http://s/xxxx" };
		static const uint8_t why[] = { PARSE_MAX_LINKS, PARSE_TOO_LONG };
		const struct parse_entry ents[] = { { LINK_ENTRY, { 0, 0, 3, 501, 77 } },
						    { LINK_ENTRY | LINK_CROSS, M0 } };
		struct parse_record p, q;
		struct parse_entry pe;
		size_t pos = 0;
		const char *u;
		size_t ul;
		int w;

		memset(&p, 0, sizeof(p));
		p.url = "http://s/map.xml";
		p.url_len = strlen(p.url);
		p.title = "";
		p.seed = 12345;
		p.cash = 0.75;
		p.nrefused = 2;
		p.refused_urls = refused;
		p.refused_why = why;
		buf_reset(&b);
		parse_record_pack_sitemap(&p, links, ents, 2, &b);
		CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.seed == 12345 &&
		      q.cash == 0.75 && (q.flags & PARSE_SITEMAP) && q.nrefused == 2,
		      "sitemap record");
		CHECK(parse_record_refused(&q, &pos, &w, &u, &ul) == CR_OK && w == PARSE_MAX_LINKS &&
		      same(u, ul, "http://s/3", 10), "first refused");
		CHECK(parse_record_refused(&q, &pos, &w, &u, &ul) == CR_OK && w == PARSE_TOO_LONG &&
		      parse_record_refused(&q, &pos, &w, &u, &ul) == CR_EOF, "second refused, end");
		pos = 0;
		CHECK(parse_record_entry(&q, &pos, &pe) == CR_OK && pe.flags == LINK_ENTRY &&
		      pe.meta.priority == 501 && pe.meta.lastmod == 77, "first entry");
		CHECK(parse_record_entry(&q, &pos, &pe) == CR_OK &&
		      pe.flags == (LINK_ENTRY | LINK_CROSS) &&
		      parse_record_entry(&q, &pos, &pe) == CR_EOF, "second entry, end");
		CHECK(all_prefixes_fail(b.p, b.len, parse_unpack_v, &q), "truncations fail");
	}
	buf_release(&b);
}

/* Version 6: a page's requisites after everything else; a record of
 * version 5 (no requisites) still reads. */
static void test_parse_embeds(void)
{
	static const char *const links[] = { "http://a.example/next" };
	static const char *const embeds[] = { "http://a.example/s.css", "http://cdn.example/i.png" };
	struct parse_record p, q;
	struct buf b;
	size_t pos = 0, ul;
	const char *u;
	uint32_t i;
	int ok = 1;

	memset(&p, 0, sizeof(p));
	p.url = "http://a.example/";
	p.url_len = strlen(p.url);
	p.title = "";
	p.nembeds = 2;
	p.embed_urls = embeds;
	buf_init(&b);
	parse_record_pack(&p, links, 1, &b);
	CHECK(b.p[0] == 8, "embeds: version 8 written");
	CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.nembeds == 2 && q.nlinks == 1,
	      "embeds: unpacked");
	for (i = 0; i < 2; i++)
		ok &= parse_record_embed(&q, &pos, &u, &ul) == CR_OK &&
		      same(u, ul, embeds[i], strlen(embeds[i]));
	CHECK(ok && parse_record_embed(&q, &pos, &u, &ul) == CR_EOF, "embeds: in order, then EOF");
	CHECK(all_prefixes_fail(b.p, b.len, parse_unpack_v, &q), "embeds: truncations fail");
	/* The same record as version 5 wrote it: without the requisites (nor
	 * the languages' count byte of version 7). */
	b.p[0] = 5;
	b.len -= 8 + 1 + 1 + 1 + strlen(embeds[0]) + 1 + strlen(embeds[1]);
	CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.nembeds == 0 &&
	      parse_record_embed(&q, &(size_t){ 0 }, &u, &ul) == CR_EOF, "embeds: version 5 reads");
	buf_release(&b);
}

/* Version 7: the page's languages after its requisites; version 6 reads
 * without them. */
static void test_parse_langs(void)
{
	struct parse_record p, q;
	struct buf b;

	memset(&p, 0, sizeof(p));
	p.url = "http://a.example/";
	p.url_len = strlen(p.url);
	p.title = "";
	p.nlangs = 2;
	p.lang_reliable = 1;
	memcpy(p.langs[0], "fra", 4);
	memcpy(p.langs[1], "eng", 4);
	p.lang_percent[0] = 70;
	p.lang_percent[1] = 29;
	buf_init(&b);
	parse_record_pack(&p, NULL, 0, &b);
	CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.nlangs == 2 && q.lang_reliable &&
	      !strcmp(q.langs[0], "fra") && !strcmp(q.langs[1], "eng") &&
	      q.lang_percent[0] == 70 && q.lang_percent[1] == 29, "languages round-trip");
	CHECK(all_prefixes_fail(b.p, b.len, parse_unpack_v, &q), "languages: truncations fail");
	b.p[0] = 7;
	b.len -= 8;   /* version 7: without the cash */
	CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.nlangs == 2 && q.cash == 0,
	      "version 7 reads, without cash");
	b.p[0] = 6;
	b.len -= 1 + 2 * (1 + 3 + 1);
	CHECK(parse_record_unpack(b.p, b.len, &q) == CR_OK && q.nlangs == 0,
	      "version 6 reads, without languages");
	b.p[0] = 7;
	b.p[b.len] = 4;   /* more languages than a record holds */
	CHECK(parse_record_unpack(b.p, b.len + 1, &q) != CR_OK, "4 languages: refused");
	buf_release(&b);
}

static void test_link(void)
{
	static const struct link_record cases[] = {
		{ S("http://a.example/"), 0, 0, S(""), 0, M0, 0, 0 },
		{ S("h"), 1, 1, S("http://a.example/"), LINK_ENTRY,
		  { 0, 0, 3, 801, 1700000000000000LL }, 5, 0 },
		{ S("https://b.example/a/b/c?d=e&f=g"), 127, 255, S(""), 0,
		  { CRAWL_SITEMAP, 0, 0, 0, 0 }, 0, 0.25 },
		{ S("https://b.example/"), 128, 0, S("https://b.example/a/b/c?d=e&f=g"),
		  LINK_ENTRY | LINK_CROSS, { CRAWL_SITEMAP, 1, 7, 1, 1 }, 1, 1e-12 },
		{ S("https://c.example/"), UINT32_MAX, 7, S(""), 0, M0, UINT64_MAX, 0 },
		{ S("https://c.example/s.css"), 3, 0, S(""), 0, { CRAWL_EMBED, 0, 0, 0, 0 }, 9, 0 },
		{ S("https://c.example/i.png"), 3, 0, S(""), 0, { CRAWL_EMBED, 1, 0, 0, 0 }, 9, 0 },
	};
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct link_record l;
		enum cr_err e;

		buf_reset(&b);
		link_record_pack(&cases[i], &b);
		e = link_record_unpack(b.p, b.len, &l);
		CHECK(e == CR_OK && same(l.url, l.url_len, cases[i].url, cases[i].url_len) &&
			      l.depth == cases[i].depth && l.hops == cases[i].hops &&
			      same(l.from, l.from_len, cases[i].from, cases[i].from_len) &&
			      l.flags == cases[i].flags && l.seed == cases[i].seed &&
			      l.cash == cases[i].cash &&
			      crawl_record_meta_same(&l.meta, &cases[i].meta),
		      "link %zu: round trip", i);
		CHECK(all_prefixes_fail(b.p, b.len, link_unpack_v, &l),
		      "link %zu: truncations are format errors", i);
	}
	{
		struct link_record empty = { .url = "", .depth = 1, .from = "" }, l;

		buf_reset(&b);
		link_record_pack(&empty, &b);
		CHECK(link_record_unpack(b.p, b.len, &l) == CR_ERR_FORMAT, "link: empty URL");
	}
	buf_release(&b);
}

/* Sign of a comparison. */
static int sgn(int c)
{
	return (c > 0) - (c < 0);
}

static void test_order(void)
{
	/* Pairs and the sign of cmp(a, b). */
	static const struct {
		const char *a;
		uint32_t ad;
		const char *b;
		uint32_t bd;
		int crawl_sign, link_sign;
	} cases[] = {
		{ "http://a/", 0, "http://a/", 0, 0, 0 },
		{ "http://a/", 0, "http://b/", 0, -1, -1 },
		{ "http://b/", 0, "http://a/", 9, 1, 1 },
		{ "http://a/", 1, "http://a/x", 0, -1, -1 },        /* prefix first */
		{ "http://a/x", 0, "http://a/", 1, 1, 1 },
		{ "http://a/", 3, "http://a/", 2, 0, 1 },           /* equal URL: depth */
		{ "http://a/", 2, "http://a/", 3, 0, -1 },
		{ "http://a/", 0, "http://a/", UINT32_MAX, 0, -1 },
		{ "http://a/\x7f", 0, "http://a/\x80", 0, -1, -1 }, /* bytes unsigned */
		{ "http://a/\xff", 0, "http://a/\x01", 0, 1, 1 },
		{ "HTTP://a/", 0, "http://a/", 0, -1, -1 },         /* bytewise, not folded */
	};
	struct buf a, b;
	size_t i;

	buf_init(&a);
	buf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct crawl_record ca = { 0 }, cb = { 0 };
		struct link_record la = { 0 }, lb = { 0 };
		int c;

		ca.url = la.url = cases[i].a;
		ca.url_len = la.url_len = strlen(cases[i].a);
		cb.url = lb.url = cases[i].b;
		cb.url_len = lb.url_len = strlen(cases[i].b);
		ca.depth = la.depth = cases[i].ad;
		cb.depth = lb.depth = cases[i].bd;
		/* Give the crawl records different other fields: only URLs count. */
		ca.status = ST_FETCHED;
		ca.digest = 99;
		cb.retries = 3;
		buf_reset(&a);
		buf_reset(&b);
		crawl_record_pack(&ca, &a);
		crawl_record_pack(&cb, &b);
		c = crawl_record_cmp(a.p, a.len, b.p, b.len);
		CHECK(sgn(c) == cases[i].crawl_sign, "order %zu: crawl cmp %d, want %d", i, c,
		      cases[i].crawl_sign);
		c = crawl_record_cmp(b.p, b.len, a.p, a.len);
		CHECK(sgn(c) == -cases[i].crawl_sign, "order %zu: crawl cmp reversed", i);
		buf_reset(&a);
		buf_reset(&b);
		link_record_pack(&la, &a);
		link_record_pack(&lb, &b);
		c = link_record_cmp(a.p, a.len, b.p, b.len);
		CHECK(sgn(c) == cases[i].link_sign, "order %zu: link cmp %d, want %d", i, c,
		      cases[i].link_sign);
		c = link_record_cmp(b.p, b.len, a.p, a.len);
		CHECK(sgn(c) == -cases[i].link_sign, "order %zu: link cmp reversed", i);
		/* A link and a crawl record of one URL are equal in CrawlDb order. */
		buf_reset(&b);
		crawl_record_pack(&ca, &b);
		CHECK(crawl_record_cmp(a.p, a.len, b.p, b.len) == 0,
		      "order %zu: a link and a crawl record of one URL", i);
		CHECK(crawl_record_cmp(b.p, b.len, b.p, b.len) == 0, "order %zu: self", i);
	}
	/* Garbage compares without crashing, and consistently. */
	{
		static const unsigned char junk[] = { 1, 0xff, 0xff, 0xff };

		CHECK(crawl_record_cmp(junk, sizeof(junk), junk, sizeof(junk)) == 0, "junk self");
		CHECK(crawl_record_cmp(junk, 0, junk, 0) == 0, "empty self");
		CHECK(link_record_cmp(junk, sizeof(junk), junk, 1) == 0, "junk link");
	}
	buf_release(&a);
	buf_release(&b);
}

static void test_random_bytes(void)
{
	size_t i;
	int ok = 1;

	for (i = 0; i < 20000; i++) {
		size_t n = rng() % 80, k;
		unsigned char *p = malloc(n ? n : 1);
		union {
			struct crawl_record c;
			struct fetch_record f;
			struct parse_record p;
			struct link_record l;
		} u;
		enum cr_err e[4];

		if (!p)
			abort();
		for (k = 0; k < n; k++)
			p[k] = (unsigned char)rng();
		/* Half of them start like a real record. */
		if (n && (i & 1))
			p[0] = 1;
		if (n > 1 && (i & 2))
			p[1] = (unsigned char)(rng() % (n - 1));
		e[0] = crawl_record_unpack(p, n, &u.c);
		e[1] = fetch_record_unpack(p, n, &u.f);
		e[2] = parse_record_unpack(p, n, &u.p);
		if (e[2] == CR_OK) {
			/* Unpacked links iterate to their count, then end. */
			size_t pos = 0, cnt = 0;
			const char *s;
			size_t sl;
			enum cr_err le;

			while ((le = parse_record_link(&u.p, &pos, &s, &sl)) == CR_OK &&
			       cnt <= u.p.nlinks)
				cnt++;
			if (le != CR_EOF || cnt != u.p.nlinks)
				ok = 0;
		}
		e[3] = link_record_unpack(p, n, &u.l);
		for (k = 0; k < 4; k++)
			if (e[k] != CR_OK && e[k] != CR_ERR_FORMAT)
				ok = 0;
		(void)crawl_record_cmp(p, n, p, n / 2);
		(void)link_record_cmp(p, n, p, n / 2);
		free(p);
	}
	CHECK(ok, "random bytes: only CR_OK or CR_ERR_FORMAT");
}

int main(void)
{
	size_t i;

	for (i = 0; i < ST_COUNT_; i++)
		CHECK(strcmp(crawl_record_status_name((int)i), "invalid") != 0, "status %zu named", i);
	CHECK_STR(crawl_record_status_name(ST_FETCHED), "fetched");
	CHECK_STR(crawl_record_status_name(ST_DENIED), "denied");
	CHECK_STR(crawl_record_status_name(ST_COUNT_), "invalid");
	CHECK_STR(crawl_record_status_name(-1), "invalid");
	test_crawl();
	test_fetch();
	test_parse();
	test_parse_embeds();
	test_parse_langs();
	test_link();
	test_order();
	test_random_bytes();
	TEST_DONE();
}

/*
 * crawl_record.h - one URL of the CrawlDb, its status, and how every record
 * of the crawl directory is packed.
 *
 * struct crawl_record is one URL of the CrawlDb (and of a fetch list); the
 * other records (fetch_record.h, parse_record.h, link_record.h) are packed
 * the same way and start, like it, with a version byte and the URL.
 * Packing is a versioned byte layout of varints and length-prefixed strings
 * (util/buf.h); unpacking checks every bound and returns CR_ERR_FORMAT for
 * bad bytes. Unpacked strings are
 * borrowed from the packed bytes (valid until those bytes go away) and are
 * not NUL-terminated: use the *_len fields.
 *
 * A page's fate is its status (enum crawl_status), never an error.
 */
#ifndef CR_CRAWLDB_CRAWL_RECORD_H
#define CR_CRAWLDB_CRAWL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

enum crawl_status {
	ST_UNFETCHED = 0,  /* known, never fetched */
	ST_FETCHED = 1,    /* 2xx (or 304): content stored */
	ST_REDIRECT = 2,   /* 3xx with a Location; the target entered as a link */
	ST_GONE = 3,       /* 4xx other than 429: not tried again */
	ST_ERROR = 4,      /* transient: 5xx, 429, timeout, connection or DNS failure */
	ST_DENIED = 5,     /* disallowed by robots.txt */
	ST_BLOCKED = 6,    /* refused by policy: non-public address, bad scheme */
	ST_DEFERRED = 7,   /* the host asks for more politeness than allowed (Crawl-delay) */
	ST_DUPLICATE = 8,  /* fetched; a near-duplicate of the page dup_of (dedup/) */
	ST_TRAP = 9,       /* a link into a URL space without end (url/trap.h): never fetched */
	ST_TRUNCATED = 10, /* 2xx, the body cut short: fetch.max_body_bytes, time, disconnect */
	ST_TOO_LARGE = 11, /* 2xx, the body decodes to more than fetch.max_decoded_bytes */
	ST_TIMEOUT = 12,   /* transient like error: no whole answer within the time limits */
	ST_COUNT_
};

/* "unfetched", "fetched", ... */
const char *crawl_record_status_name(int status);
/* 1 if a status waits to be tried again: a transient failure (error,
 * timeout) or a deferral. */
int crawl_record_status_retries(int status);

/* Whether a URL is a page or a sitemap, and what sitemaps said of it
 * (the frontier uses priority and changefreq; a lastmod later than the
 * last fetch makes a fetched page due again). A zeroed struct is a page
 * nothing said anything of. */
/* A page, a sitemap (read for its URLs), or a page's requisite (an image,
 * a stylesheet, a script: fetched for replay, never a page of the text
 * outputs or dedup; fetch.embeds). */
enum crawl_kind { CRAWL_PAGE = 0, CRAWL_SITEMAP = 1, CRAWL_EMBED = 2 };

struct crawl_meta {
	uint8_t kind;         /* enum crawl_kind */
	uint8_t vouched;      /* a sitemap its own site's robots.txt names (or an
				 index so named lists, or a seed): it may list any
				 URL of its site, not only of its directory */
	uint8_t changefreq;   /* enum sitemap_changefreq (parse/sitemap.h); 0: none */
	uint16_t priority;    /* thousandths plus one (1-1001); 0: none */
	int64_t lastmod;      /* µs since the epoch; 0: none */
};

/* 1 if a and b say the same (field by field: padding is not compared). */
int crawl_record_meta_same(const struct crawl_meta *a, const struct crawl_meta *b);
/* Appends m to out / reads it from rd (as every record that carries it). */
void crawl_record_meta_put(const struct crawl_meta *m, struct buf *out);
CR_WUR enum cr_err crawl_record_meta_get(struct buf_reader *rd, struct crawl_meta *m);

/* A page's last visits, newest first: for visit i, the seconds since the
 * visit before it (interval_s[i]) and whether the page had changed since
 * (bit i of changed): what generate/refresh.h estimates a change rate
 * from. */
#define CRAWL_HISTORY_MAX 8
struct crawl_history {
	uint8_t n;
	uint8_t changed;
	int64_t visited_at;      /* µs: the last fetch that brought content or a 304
				    (fetched_at is the last attempt, failed ones too) */
	uint32_t scheduled_s;    /* the interval the page was last set due after
				    (recrawl.policy); 0: none yet */
	uint32_t interval_s[CRAWL_HISTORY_MAX];
	/* How long before visit i the page had last changed, by the
	 * Last-Modified of the copy it brought, when that fell inside the
	 * visit's interval and at least a minute back; 0: unknown (no
	 * change, no header, or one that contradicts the text). */
	uint32_t lm_age_s[CRAWL_HISTORY_MAX];
	uint32_t first_age_s;    /* the same of the first copy, at the first
				    fetch; 0 once that visit has left the
				    history, or unknown */
};

#define CRAWL_ETAG_MAX 255   /* longer ETags are not kept */

struct crawl_record {
	const char *url;
	size_t url_len;
	uint8_t status;
	uint16_t http_status;
	uint32_t depth;
	uint8_t retries;
	int64_t fetched_at;   /* µs since the epoch, 0 if never */
	int64_t next_fetch;   /* µs: due from then on */
	uint64_t digest;      /* XXH3 of the body, 0 if none */
	const char *dup_of;   /* ST_DUPLICATE: the representative's URL, else "" */
	size_t dup_of_len;    /* (stored in the CrawlDb, not in fetch records) */
	uint8_t hops;         /* redirects that led here from a link (0: a link itself) */
	const char *reason;   /* why its last fetch failed ("dns: nxdomain",
				 "robots.txt", ...), else "" (CrawlDb only) */
	size_t reason_len;
	struct crawl_meta meta;   /* page or sitemap; what sitemaps said of it */
	uint64_t seed;        /* the seed it was first reached from (seeds_id of its
				 canonical URL); 0: none known */
	double cash;          /* OPIC cash (score/score.h): what its inlinks paid
				 since it last spent; in a fetch record, what the
				 fetch list held */
	double history;       /* OPIC: all the cash it has spent (CrawlDb only) */
	const char *etag;     /* the last answer's ETag, as sent (for If-None-Match), or "" */
	size_t etag_len;
	int64_t last_modified;   /* µs, the last answer's Last-Modified; 0: none */
	uint64_t text_digest; /* XXH3 of the page's text when parsed while fetching;
				 0: none (a change is then told by the body digest) */
	struct crawl_history visits;   /* (CrawlDb only) */
};

/* Appends an amount of OPIC cash (finite, not negative) to out / reads
 * one from rd (CR_ERR_FORMAT for NaN, infinite or negative bytes). */
void crawl_record_cash_put(double v, struct buf *out);
CR_WUR enum cr_err crawl_record_cash_get(struct buf_reader *rd, double *v);

/* Appends r's ETag, Last-Modified and text digest to out / reads them
 * from rd (as the CrawlDb and fetch records carry them; an ETag with a
 * control character or over CRAWL_ETAG_MAX bytes is damage). */
void crawl_record_change_put(const struct crawl_record *r, struct buf *out);
CR_WUR enum cr_err crawl_record_change_get(struct buf_reader *rd, struct crawl_record *r);

void crawl_record_pack(const struct crawl_record *r, struct buf *out);
CR_WUR enum cr_err crawl_record_unpack(const void *p, size_t n, struct crawl_record *r);
/* Orders packed records (a crawl, fetch, parse or link record: a version
 * byte, then the URL) by URL, bytewise: the CrawlDb sort order. */
int crawl_record_cmp(const void *a, size_t an, const void *b, size_t bn);

/* The fields a crawl record shares with a fetch record, without a version
 * byte: appended to out, or read from rd (strings borrowed from its bytes). */
void crawl_record_put(const struct crawl_record *r, struct buf *out);
CR_WUR enum cr_err crawl_record_get(struct buf_reader *rd, struct crawl_record *r);

#endif

/*
 * record.h - the records of the crawl directory and their packed form.
 *
 * struct crawl_record is one URL of the CrawlDb (and of a fetch list);
 * struct fetch_record is what fetching one URL came to; struct parse_record
 * is what parsing one page found. Packing is a versioned byte layout of
 * varints and length-prefixed strings (util/buf.h); unpacking checks every
 * bound and returns CR_ERR_FORMAT for bad bytes. Unpacked strings are
 * borrowed from the packed bytes (valid until those bytes go away) and are
 * not NUL-terminated: use the *_len fields.
 *
 * A page's fate is its status (enum crawl_status), never an error.
 */
#ifndef CR_CRAWLDB_RECORD_H
#define CR_CRAWLDB_RECORD_H

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
	ST_TRAP = 9,       /* a link into a URL space without end (update/trap.h): never fetched */
	ST_TRUNCATED = 10, /* 2xx, the body cut short: fetch.max_body_bytes, time, disconnect */
	ST_TOO_LARGE = 11, /* 2xx, the body decodes to more than fetch.max_decoded_bytes */
	ST_TIMEOUT = 12,   /* transient like error: no whole answer within the time limits */
	ST_COUNT_
};

/* "unfetched", "fetched", ... */
const char *crawl_status_name(int status);

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
};

void crawl_record_pack(const struct crawl_record *r, struct buf *out);
CR_WUR enum cr_err crawl_record_unpack(const void *p, size_t n, struct crawl_record *r);
/* Orders packed crawl records by URL (bytewise): the CrawlDb sort order. */
int crawl_record_cmp(const void *a, size_t an, const void *b, size_t bn);

struct fetch_record {
	struct crawl_record rec;   /* the URL's updated record */
	const char *reason;        /* why it failed ("timeout", "dns: ..."), or "" */
	size_t reason_len;
	const char *location;      /* canonical redirect target, or "" */
	size_t location_len;
	const char *content_type;  /* media type, lower-case, no parameters */
	size_t content_type_len;
	const char *charset;       /* from Content-Type, or "" */
	size_t charset_len;
	const char *warc;          /* WARC file name (in the segment's warc/) or "" */
	size_t warc_len;
	uint64_t warc_offset;      /* offset of the response record */
	uint64_t body_len;
	int64_t latency_us;        /* request start to last byte */
};

void fetch_record_pack(const struct fetch_record *f, struct buf *out);
CR_WUR enum cr_err fetch_record_unpack(const void *p, size_t n, struct fetch_record *f);

enum parse_flag {
	PARSE_NOINDEX = 1,    /* meta robots or X-Robots-Tag: noindex */
	PARSE_NOFOLLOW = 2,   /* meta robots or X-Robots-Tag: nofollow (no links kept) */
	PARSE_REDIRECT = 4,   /* a redirect: its one link is the Location */
};

struct parse_record {
	const char *url;
	size_t url_len;
	uint32_t depth;
	uint32_t flags;       /* enum parse_flag */
	const char *title;
	size_t title_len;
	uint64_t text_digest;
	uint32_t nlinks;
	const unsigned char *links;  /* nlinks packed strings; see parse_record_link */
	size_t links_len;
	uint32_t nsig;               /* MinHash values (0: no text) */
	const uint32_t *sig;         /* for packing: nsig values */
	const unsigned char *sig_bytes; /* unpacked: nsig little-endian u32; parse_record_sig */
	uint8_t hops;                /* the page's redirect hops (crawl_record.hops) */
};

#define PARSE_SIG_MAX 1024

/* Packs a parse record; links are nlinks canonical URLs. */
void parse_record_pack(const struct parse_record *p, const char *const *links,
		       uint32_t nlinks, struct buf *out);
CR_WUR enum cr_err parse_record_unpack(const void *p, size_t n, struct parse_record *r);
/* Value i of an unpacked record's signature. */
uint32_t parse_record_sig(const struct parse_record *r, uint32_t i);
/* Iterates the links of an unpacked parse record: *pos starts at 0. */
CR_WUR enum cr_err parse_record_link(const struct parse_record *r, size_t *pos,
				     const char **url, size_t *len);

/* A discovered link on its way to its owner in update. */
struct link_record {
	const char *url;
	size_t url_len;
	uint32_t depth;
	uint8_t hops;         /* redirects in a row that led to it */
};

void link_record_pack(const struct link_record *l, struct buf *out);
CR_WUR enum cr_err link_record_unpack(const void *p, size_t n, struct link_record *l);
int link_record_cmp(const void *a, size_t an, const void *b, size_t bn);

#endif

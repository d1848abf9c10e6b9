/*
 * outcome.h - what a finished request means: the pure decision between a
 * transfer's end and the crawl's record of it.
 *
 * A page's fate is data (crawldb/crawl_record.h's statuses), decided here
 * from plain inputs - how the transport ended (fetch/http.h), the status
 * line, the response head, the body and the caps - with the clock passed
 * in. Nothing here does I/O, allocates or knows libcurl; the fetcher acts
 * on the answer: archives the exchange in the WARC series it names, holds
 * the host for Retry-After, counts a failure toward back-off, parses.
 *
 *   2xx          fetched; truncated when the body cap cut it; too_large when
 *                its Content-Encoding decodes past max_decoded_bytes
 *   304          fetched (not modified: the content fetched before)
 *   3xx          redirect with the canonical Location; gone without a usable
 *                one; blocked when it points to another scheme
 *   429, 5xx     error (transient), with any Retry-After
 *   other 4xx    gone
 *   no response  blocked (address refused), too_large (head cap), timeout,
 *                or error with the transport's reason
 *
 * The robots.txt of an origin has its own answer (outcome_robots): the
 * status (0 when nothing usable came back), and a redirect's target.
 */
#ifndef CR_FETCH_OUTCOME_H
#define CR_FETCH_OUTCOME_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "fetch/http.h"
#include "url/url.h"

/* A finished request, as the classifier sees it; every pointer borrowed. */
struct outcome_in {
	enum http_transport transport;
	long http;                    /* status of the last response, 0 if none */
	const void *head;             /* response head */
	size_t head_len;
	const void *body;             /* as sent */
	size_t body_len;
	const char *url;              /* the URL asked: a Location resolves against it */
	const char *error;            /* the transport's reason, or "" */
	long max_decoded_bytes;       /* fetch.max_decoded_bytes */
	int64_t now_s;                /* seconds since the epoch, for Retry-After dates */
};

/* The classifier's input from a finished transfer (borrowed from r). */
void outcome_input(const struct http_result *r, long max_decoded_bytes, int64_t now_s,
		   struct outcome_in *in);

/* Where the exchange is archived: pages (2xx, 304), diagnostics (3xx, 4xx,
 * 5xx, as Common Crawl keeps them apart), or nowhere (no response). */
enum outcome_archive { OUTCOME_ARCHIVE_NONE, OUTCOME_ARCHIVE_PAGES,
		       OUTCOME_ARCHIVE_DIAGNOSTICS };

/* Retry-After holds honoured, at most (a later time is not a phase's business). */
#define OUTCOME_RETRY_AFTER_MAX_S 3600

struct outcome {
	uint8_t status;               /* enum crawl_status */
	uint16_t http_status;         /* 0 if none, or not a three-digit status */
	uint64_t digest;              /* XXH3 of the body (2xx), else 0 */
	enum outcome_archive archive;
	int truncated;                /* the body was cut at the cap: WARC-Truncated: length */
	int host_failed;              /* counts toward the host's back-off */
	int64_t retry_after_s;        /* hold the host this long; -1: no hold */
	char reason[256];             /* why, for a failure ("" otherwise) */
	char location[URL_MAX_LEN + 1];   /* canonical redirect target, or "" */
	char content_type[128];       /* media type, lower case, or "" */
	char charset[64];
	char etag[CRAWL_ETAG_MAX + 1];   /* 2xx or 304: its ETag as sent, or "" (none,
					    too long, a control character) */
	int64_t last_modified_s;      /* 2xx or 304: its Last-Modified; 0: none */
};

/* Decides what a page request came to. */
void outcome_classify(const struct outcome_in *in, struct outcome *out);

/*
 * Whether a page fetched again is archived as a revisit record: 304 as
 * server-not-modified, a whole 2xx whose body digest equals the last
 * capture's as identical-payload-digest. last_fetched_at and last_digest
 * come from the URL's CrawlDb record (0: never fetched, no digest).
 */
enum outcome_revisit { OUTCOME_NEW, OUTCOME_NOT_MODIFIED, OUTCOME_IDENTICAL };
enum outcome_revisit outcome_revisit(const struct outcome *o, int64_t last_fetched_at,
				     uint64_t last_digest);

/* What a robots.txt request came to (RFC 9309 2.3.1). */
struct outcome_robots {
	int status;                   /* HTTP status; 0: no usable answer */
	int64_t retry_after_s;        /* 429 and 503: hold the host; -1: none */
	char location[URL_MAX_LEN + 1];   /* 3xx: the canonical target, or "" */
};

void outcome_robots(const struct outcome_in *in, struct outcome_robots *out);

/* The robots.txt body to read: as sent, or, when the server coded it
 * anyway (it is asked for without Accept-Encoding), decoded into dec up to
 * max bytes. *body and *len point into in's body or into dec. */
void outcome_robots_body(const struct outcome_in *in, size_t max, struct buf *dec,
			 const unsigned char **body, size_t *len);

/* Counts an outcome into c (fetch.h's FC_COUNT_ counters): by its status,
 * and a tls: reason as tls_failed too. */
struct fetch_record;
void outcome_count(uint64_t *c, const struct fetch_record *fr);

#endif

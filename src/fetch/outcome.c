#include "fetch/outcome.h"
#include "crawldb/fetch_record.h"
#include "fetch/counters.h"
#include "http/head.h"
#include "parse/decode.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

/* Seconds a 429 or 503 asks the host to wait (capped), or -1. */
static int64_t retry_after(const struct outcome_in *in)
{
	size_t vl = 0;
	const char *v;
	int64_t secs;

	if (in->http != 429 && in->http != 503)
		return -1;
	v = http_head_field(in->head, in->head_len, "retry-after", &vl);
	if (!v)
		return -1;
	secs = http_head_retry_after_s(v, vl, in->now_s);
	if (secs < 0)
		return -1;
	return secs > OUTCOME_RETRY_AFTER_MAX_S ? OUTCOME_RETRY_AFTER_MAX_S : secs;
}

/*
 * A body with a Content-Encoding is decoded here only to learn whether it
 * stays under max_decoded_bytes (the WARC keeps it as sent; the parser
 * decodes again). 1 if it does not; a coding that cannot be undone is
 * noted in the reason, and the page stays fetched.
 */
static int decodes_too_large(const struct outcome_in *in, struct outcome *o)
{
	size_t enclen = 0;
	const char *enc = http_head_field(in->head, in->head_len, "content-encoding", &enclen);
	struct buf out;
	enum decode_result r;

	if (!enc)
		return 0;
	buf_init(&out);
	r = decode_body(enc, enclen, in->body, in->body_len, (size_t)in->max_decoded_bytes, &out);
	buf_release(&out);
	if (r == DECODE_TOO_LARGE) {
		snprintf(o->reason, sizeof(o->reason), "decodes to more than %ld bytes",
			 in->max_decoded_bytes);
		return 1;
	}
	if (r == DECODE_BAD || r == DECODE_UNSUPPORTED)
		snprintf(o->reason, sizeof(o->reason), "content-encoding not decoded: %.*s",
			 (int)(enclen < 64 ? enclen : 64), enc);
	return 0;
}

/* 1 if a Location resolves to a URL of another scheme than http(s). */
static int resolves_elsewhere(const char *base, const char *loc)
{
	char out[URL_MAX_LEN + 1];
	const char *why;
	size_t i = 0;

	if (url_resolve(base, loc, out, sizeof(out), &why) == CR_OK)
		return 0;
	/* url_resolve refuses other schemes: look for one ourselves. */
	while (loc[i] == ' ' || loc[i] == '\t')
		i++;
	if (!isalpha((unsigned char)loc[i]))
		return 0;
	while (isalnum((unsigned char)loc[i]) || loc[i] == '+' || loc[i] == '-' || loc[i] == '.')
		i++;
	return loc[i] == ':' && strncasecmp(loc, "http:", 5) && strncasecmp(loc, "https:", 6);
}

/* The canonical Location of a 3xx into loc (cap bytes); CR_OK, or the
 * reason it is not usable in why. */
static enum cr_err location_of(const struct outcome_in *in, char *loc, size_t cap,
			       char *raw, size_t rawcap, const char **why)
{
	size_t vl = 0;
	const char *v = http_head_field(in->head, in->head_len, "location", &vl);

	*why = NULL;
	raw[0] = '\0';
	if (v && vl >= rawcap)
		*why = "too long";
	if (!v || vl >= rawcap)
		return CR_ERR_FORMAT;
	memcpy(raw, v, vl);
	raw[vl] = '\0';
	return url_canon(in->url, raw, loc, cap, why);
}

static void classify_redirect(const struct outcome_in *in, struct outcome *o)
{
	char raw[URL_MAX_LEN + 1];
	const char *why;

	o->status = ST_GONE;
	if (location_of(in, o->location, sizeof(o->location), raw, sizeof(raw), &why) == CR_OK)
		return (void)(o->status = ST_REDIRECT);
	o->location[0] = '\0';
	if (!why)
		snprintf(o->reason, sizeof(o->reason), "redirect without location");
	else if (resolves_elsewhere(in->url, raw)) {
		/* file:, ftp:, ...: never followed. */
		o->status = ST_BLOCKED;
		snprintf(o->reason, sizeof(o->reason), "redirect to %s", why);
	} else {
		snprintf(o->reason, sizeof(o->reason), "bad redirect: %s", why);
	}
}

/* The ETag and Last-Modified of a 2xx or 304, for the next conditional
 * request. */
static void validators(const struct outcome_in *in, struct outcome *o)
{
	size_t n, i;
	const char *v = http_head_field(in->head, in->head_len, "etag", &n);
	char date[64];

	if (v && n <= CRAWL_ETAG_MAX) {
		for (i = 0; i < n && (unsigned char)v[i] >= 0x20 && v[i] != 0x7f; i++)
			;
		if (i == n) {
			memcpy(o->etag, v, n);
			o->etag[n] = '\0';
		}
	}
	v = http_head_field(in->head, in->head_len, "last-modified", &n);
	if (v && n < sizeof(date)) {
		memcpy(date, v, n);
		date[n] = '\0';
		int64_t t = http_date(date);

		/* a date past tomorrow is a wrong clock, or an attack on ours */
		o->last_modified_s = t > 0 && t <= in->now_s + 86400 ? t : 0;
	}
}

/* A response came back (a status line and a head). */
static void classify_response(const struct outcome_in *in, struct outcome *o)
{
	long http = in->http;

	http_head_content_type(in->head, in->head_len, o->content_type, sizeof(o->content_type),
			       o->charset, sizeof(o->charset));
	o->archive = (http >= 200 && http < 300) || http == 304 ? OUTCOME_ARCHIVE_PAGES
							       : OUTCOME_ARCHIVE_DIAGNOSTICS;
	if ((http >= 200 && http < 300) || http == 304)
		validators(in, o);
	if (http >= 200 && http < 300) {
		o->status = ST_FETCHED;
		o->digest = XXH3_64bits(in->body, in->body_len);
		if (decodes_too_large(in, o))
			o->status = ST_TOO_LARGE;
		if (in->transport == HTTP_CUT) {
			snprintf(o->reason, sizeof(o->reason), "truncated: length");
			o->status = ST_TRUNCATED;
		}
	} else if (http == 304) {
		/* Not modified: the content is the one fetched before (merge
		 * keeps its digest). */
		o->status = ST_FETCHED;
	} else if (http >= 300 && http < 400) {
		classify_redirect(in, o);
	} else if (http == 429 || http >= 500) {
		o->status = ST_ERROR;
		snprintf(o->reason, sizeof(o->reason), "http %ld", http);
		o->retry_after_s = retry_after(in);
	} else {
		o->status = ST_GONE;
	}
	/* Any archived body the cap cut is marked so in the WARC; only a 2xx
	 * page is kept as truncated. */
	o->truncated = in->transport == HTTP_CUT;
}

/* Nothing usable came back. */
static void classify_failure(const struct outcome_in *in, struct outcome *o)
{
	switch (in->transport) {
	case HTTP_ADDR_REFUSED:
		o->status = ST_BLOCKED;
		snprintf(o->reason, sizeof(o->reason), "non-public address");
		break;
	case HTTP_HEAD_TOO_LARGE:
		/* Our head cap, or libcurl's on one header line (100 KB). */
		o->status = ST_TOO_LARGE;
		snprintf(o->reason, sizeof(o->reason), "header too large");
		break;
	case HTTP_TIMEOUT:
		o->status = ST_TIMEOUT;
		snprintf(o->reason, sizeof(o->reason), "timeout");
		break;
	default:
		o->status = ST_ERROR;
		snprintf(o->reason, sizeof(o->reason), "%s",
			 in->error && in->error[0] ? in->error : "no response");
		break;
	}
}

void outcome_classify(const struct outcome_in *in, struct outcome *o)
{
	int responded = in->head_len > 0 && in->http > 0 &&
			(in->transport == HTTP_DONE || in->transport == HTTP_CUT);

	memset(o, 0, sizeof(*o));
	o->retry_after_s = -1;
	o->http_status = (uint16_t)(in->http > 0 && in->http < 1000 ? in->http : 0);
	if (responded)
		classify_response(in, o);
	else
		classify_failure(in, o);
	o->host_failed = o->status == ST_ERROR || o->status == ST_TIMEOUT;
}

enum outcome_revisit outcome_revisit(const struct outcome *o, int64_t last_fetched_at,
				     uint64_t last_digest)
{
	if (!last_fetched_at)
		return OUTCOME_NEW;
	if (o->http_status == 304)
		return OUTCOME_NOT_MODIFIED;
	if (o->http_status >= 200 && o->http_status < 300 && !o->truncated && last_digest &&
	    o->digest == last_digest)
		return OUTCOME_IDENTICAL;
	return OUTCOME_NEW;
}

void outcome_robots(const struct outcome_in *in, struct outcome_robots *o)
{
	char raw[URL_MAX_LEN + 1];
	const char *why;

	memset(o, 0, sizeof(*o));
	o->status = in->transport == HTTP_DONE || in->transport == HTTP_CUT ? (int)in->http : 0;
	o->retry_after_s = retry_after(in);
	if (o->status >= 300 && o->status < 400 &&
	    location_of(in, o->location, sizeof(o->location), raw, sizeof(raw), &why) != CR_OK)
		o->location[0] = '\0';
}

void outcome_robots_body(const struct outcome_in *in, size_t max, struct buf *dec,
			 const unsigned char **body, size_t *len)
{
	size_t enclen = 0;
	const char *enc = http_head_field(in->head, in->head_len, "content-encoding", &enclen);

	*body = in->body;
	*len = in->body_len;
	if (enc && decode_body(enc, enclen, in->body, in->body_len, max, dec) != DECODE_IDENTITY) {
		*body = dec->p;
		*len = dec->len;
	}
}

void outcome_input(const struct http_result *r, long max_decoded_bytes, int64_t now_s,
		   struct outcome_in *in)
{
	in->transport = r->transport;
	in->http = r->status;
	in->head = r->head;
	in->head_len = r->head_len;
	in->body = r->body;
	in->body_len = r->body_len;
	in->url = r->url;
	in->error = r->error;
	in->max_decoded_bytes = max_decoded_bytes;
	in->now_s = now_s;
}

void outcome_count(uint64_t *c, const struct fetch_record *fr)
{
	static const int counter[ST_COUNT_] = {
		[ST_FETCHED] = FC_FETCHED, [ST_REDIRECT] = FC_REDIRECT, [ST_GONE] = FC_GONE,
		[ST_DENIED] = FC_DENIED, [ST_BLOCKED] = FC_BLOCKED, [ST_DEFERRED] = FC_DEFERRED,
		[ST_TRUNCATED] = FC_TRUNCATED, [ST_TOO_LARGE] = FC_TOO_LARGE,
		[ST_TIMEOUT] = FC_TIMEOUT,
	};
	int st = fr->rec.status, k = st > 0 && st < ST_COUNT_ ? counter[st] : 0;

	c[k ? k : FC_ERROR]++;
	c[FC_TLS_FAILED] += fr->reason_len > 4 && !memcmp(fr->reason, "tls:", 4);
}

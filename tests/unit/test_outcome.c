/*
 * test_outcome.c - the fetcher's outcome classifier (fetch/outcome.h) over
 * a table of finished requests: every transport result, the status classes,
 * redirects good and bad, Retry-After in both forms and capped, the body
 * and decode caps; then revisits and robots.txt answers. No network.
 */
#include "fetch/outcome.h"
#include "test.h"

#include <zlib.h>

#define NOW 1700000000   /* seconds: Retry-After dates count from here */

struct row {
	const char *name;
	enum http_transport transport;
	long http;
	const char *head;      /* response head; "" none */
	const char *body;
	const char *error;
	int status;            /* expected */
	const char *reason;    /* expected prefix of the reason */
	const char *location;
	enum outcome_archive archive;
	int host_failed;
	int64_t retry_after;
	int truncated;
	const char *ctype;
};

static const struct row rows[] = {
	{ "200 html", HTTP_DONE, 200, "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n",
	  "<p>hi</p>", "", ST_FETCHED, "", "", OUTCOME_ARCHIVE_PAGES, 0, -1, 0, "text/html" },
	{ "204 empty", HTTP_DONE, 204, "HTTP/1.1 204 No Content\r\n\r\n", "", "", ST_FETCHED, "",
	  "", OUTCOME_ARCHIVE_PAGES, 0, -1, 0, "" },
	{ "200 cut at the body cap", HTTP_CUT, 200, "HTTP/1.1 200 OK\r\n\r\n", "xxxx", "",
	  ST_TRUNCATED, "truncated: length", "", OUTCOME_ARCHIVE_PAGES, 0, -1, 1, "" },
	{ "404 cut: gone, marked truncated in the WARC", HTTP_CUT, 404, "HTTP/1.1 404 NF\r\n\r\n",
	  "xx", "", ST_GONE, "", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 1, "" },
	{ "304", HTTP_DONE, 304, "HTTP/1.1 304 Not Modified\r\n\r\n", "", "", ST_FETCHED, "", "",
	  OUTCOME_ARCHIVE_PAGES, 0, -1, 0, "" },
	{ "301 relative", HTTP_DONE, 301, "HTTP/1.1 301 Moved\r\nLocation: ../b/c?x#f\r\n\r\n",
	  "", "", ST_REDIRECT, "", "http://a.test/b/c?x", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0,
	  "" },
	{ "302 absolute", HTTP_DONE, 302, "HTTP/1.1 302 Found\r\nlocation:  http://B.test/\r\n\r\n",
	  "", "", ST_REDIRECT, "", "http://b.test/", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0, "" },
	{ "301 without Location", HTTP_DONE, 301, "HTTP/1.1 301 Moved\r\n\r\n", "", "", ST_GONE,
	  "redirect without location", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0, "" },
	{ "302 to file:", HTTP_DONE, 302, "HTTP/1.1 302 F\r\nLocation: file:///etc/passwd\r\n\r\n",
	  "", "", ST_BLOCKED, "redirect to", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0, "" },
	{ "302 to a bad URL", HTTP_DONE, 302, "HTTP/1.1 302 F\r\nLocation: http://[::1\r\n\r\n",
	  "", "", ST_GONE, "bad redirect", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0, "" },
	{ "404", HTTP_DONE, 404, "HTTP/1.1 404 Not Found\r\n\r\n", "nope", "", ST_GONE, "", "",
	  OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0, "" },
	{ "410", HTTP_DONE, 410, "HTTP/1.1 410 Gone\r\n\r\n", "", "", ST_GONE, "", "",
	  OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0, "" },
	{ "429 with seconds", HTTP_DONE, 429, "HTTP/1.1 429 Slow\r\nRetry-After: 120\r\n\r\n", "",
	  "", ST_ERROR, "http 429", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 1, 120, 0, "" },
	{ "503 with a date", HTTP_DONE, 503,
	  "HTTP/1.1 503 Busy\r\nRetry-After: Tue, 14 Nov 2023 22:30:00 GMT\r\n\r\n", "", "",
	  ST_ERROR, "http 503", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 1, 1000, 0, "" },
	{ "503 asking for a day: capped", HTTP_DONE, 503,
	  "HTTP/1.1 503 Busy\r\nRetry-After: 86400\r\n\r\n", "", "", ST_ERROR, "http 503", "",
	  OUTCOME_ARCHIVE_DIAGNOSTICS, 1, OUTCOME_RETRY_AFTER_MAX_S, 0, "" },
	{ "500 ignores Retry-After", HTTP_DONE, 500,
	  "HTTP/1.1 500 Oops\r\nRetry-After: 5\r\n\r\n", "", "", ST_ERROR, "http 500", "",
	  OUTCOME_ARCHIVE_DIAGNOSTICS, 1, -1, 0, "" },
	{ "503 with a bad Retry-After", HTTP_DONE, 503,
	  "HTTP/1.1 503 Busy\r\nRetry-After: soon\r\n\r\n", "", "", ST_ERROR, "http 503", "",
	  OUTCOME_ARCHIVE_DIAGNOSTICS, 1, -1, 0, "" },
	{ "timeout", HTTP_TIMEOUT, 0, "", "", "Operation timed out after 10 ms", ST_TIMEOUT,
	  "timeout", "", OUTCOME_ARCHIVE_NONE, 1, -1, 0, "" },
	{ "timeout mid-body", HTTP_TIMEOUT, 200, "HTTP/1.1 200 OK\r\n\r\n", "part", "t/o",
	  ST_TIMEOUT, "timeout", "", OUTCOME_ARCHIVE_NONE, 1, -1, 0, "" },
	{ "refused address", HTTP_ADDR_REFUSED, 0, "", "", "Couldn't connect", ST_BLOCKED,
	  "non-public address", "", OUTCOME_ARCHIVE_NONE, 0, -1, 0, "" },
	{ "head too large", HTTP_HEAD_TOO_LARGE, 200, "HTTP/1.1 200 OK\r\n", "", "write error",
	  ST_TOO_LARGE, "header too large", "", OUTCOME_ARCHIVE_NONE, 0, -1, 0, "" },
	{ "connection refused", HTTP_FAILED, 0, "", "", "Connection refused", ST_ERROR,
	  "Connection refused", "", OUTCOME_ARCHIVE_NONE, 1, -1, 0, "" },
	{ "reset mid-body", HTTP_FAILED, 200, "HTTP/1.1 200 OK\r\n\r\n", "pa",
	  "Recv failure: Connection reset by peer", ST_ERROR, "Recv failure", "",
	  OUTCOME_ARCHIVE_NONE, 1, -1, 0, "" },
	{ "done without a head", HTTP_DONE, 0, "", "", "", ST_ERROR, "no response", "",
	  OUTCOME_ARCHIVE_NONE, 1, -1, 0, "" },
	{ "unknown coding: kept, noted", HTTP_DONE, 200,
	  "HTTP/1.1 200 OK\r\nContent-Encoding: snappy\r\n\r\n", "zz", "", ST_FETCHED,
	  "content-encoding not decoded: snappy", "", OUTCOME_ARCHIVE_PAGES, 0, -1, 0, "" },
};

static void check_row(const struct row *r)
{
	struct outcome_in in = { r->transport, r->http, r->head, strlen(r->head), r->body,
				 strlen(r->body), "http://a.test/x/y", r->error, 1 << 20, NOW };
	struct outcome o;

	outcome_classify(&in, &o);
	CHECK(o.status == r->status, "%s: status %s, want %s", r->name,
	      crawl_record_status_name(o.status), crawl_record_status_name(r->status));
	CHECK(!strncmp(o.reason, r->reason, strlen(r->reason)) && (r->reason[0] || !o.reason[0]),
	      "%s: reason '%s', want '%s'", r->name, o.reason, r->reason);
	CHECK(!strcmp(o.location, r->location), "%s: location '%s'", r->name, o.location);
	CHECK(o.archive == r->archive, "%s: archive %d", r->name, (int)o.archive);
	CHECK(o.host_failed == r->host_failed, "%s: host_failed %d", r->name, o.host_failed);
	CHECK(o.retry_after_s == r->retry_after, "%s: retry after %lld", r->name,
	      (long long)o.retry_after_s);
	CHECK(o.truncated == r->truncated, "%s: truncated %d", r->name, o.truncated);
	CHECK(!strcmp(o.content_type, r->ctype), "%s: type '%s'", r->name, o.content_type);
	CHECK((o.digest != 0) == (r->http >= 200 && r->http < 300 && r->status != ST_ERROR &&
				  r->status != ST_TIMEOUT && r->status != ST_TOO_LARGE),
	      "%s: digest only for 2xx", r->name);
}

/* A Location longer than a URL may be: said so, not "without location". */
static void long_location(void)
{
	static char head[URL_MAX_LEN + 200];
	struct row r = { "302 with a Location past URL_MAX_LEN", HTTP_DONE, 302, head, "", "", ST_GONE,
			 "bad redirect: too long", "", OUTCOME_ARCHIVE_DIAGNOSTICS, 0, -1, 0,
			 "" };
	size_t n = (size_t)snprintf(head, sizeof(head), "HTTP/1.1 302 F\r\nLocation: /");

	memset(head + n, 'a', URL_MAX_LEN + 10);
	memcpy(head + n + URL_MAX_LEN + 10, "\r\n\r\n", 5);
	check_row(&r);
}

/* A gzip body that inflates past the decode cap is too large; one under
 * it is fetched. */
static void decode_cap(void)
{
	static unsigned char zero[64 << 10], gz[4096];
	const char *head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n";
	z_stream z;
	struct outcome o;
	struct outcome_in in;

	memset(&z, 0, sizeof(z));
	deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY);
	z.next_in = zero;
	z.avail_in = sizeof(zero);
	z.next_out = gz;
	z.avail_out = sizeof(gz);
	deflate(&z, Z_FINISH);
	memset(&in, 0, sizeof(in));
	in.transport = HTTP_DONE;
	in.http = 200;
	in.head = head;
	in.head_len = strlen(head);
	in.body = gz;
	in.body_len = z.total_out;
	in.url = "http://a.test/";
	in.error = "";
	in.max_decoded_bytes = 1000;
	in.now_s = NOW;
	outcome_classify(&in, &o);
	CHECK(o.status == ST_TOO_LARGE && strstr(o.reason, "decodes to more than 1000"),
	      "gzip bomb: %s '%s'", crawl_record_status_name(o.status), o.reason);
	in.max_decoded_bytes = 1 << 20;
	outcome_classify(&in, &o);
	CHECK(o.status == ST_FETCHED && !o.reason[0], "gzip under the cap: %s",
	      crawl_record_status_name(o.status));
	deflateEnd(&z);
}

static void revisits(void)
{
	struct outcome o;

	memset(&o, 0, sizeof(o));
	o.http_status = 304;
	CHECK(outcome_revisit(&o, 0, 0) == OUTCOME_NEW, "never fetched: new");
	CHECK(outcome_revisit(&o, 5, 9) == OUTCOME_NOT_MODIFIED, "304: not modified");
	o.http_status = 200;
	o.digest = 9;
	CHECK(outcome_revisit(&o, 5, 9) == OUTCOME_IDENTICAL, "same digest: identical");
	CHECK(outcome_revisit(&o, 5, 8) == OUTCOME_NEW, "other digest: new");
	CHECK(outcome_revisit(&o, 5, 0) == OUTCOME_NEW, "no last digest: new");
	o.truncated = 1;
	CHECK(outcome_revisit(&o, 5, 9) == OUTCOME_NEW, "a cut body is never a revisit");
	o.truncated = 0;
	o.http_status = 404;
	CHECK(outcome_revisit(&o, 5, 9) == OUTCOME_NEW, "404: new");
}

static void robots_answers(void)
{
	static const struct {
		enum http_transport t;
		long http;
		const char *head;
		int status;
		const char *location;
		int64_t retry;
	} rr[] = {
		{ HTTP_DONE, 200, "HTTP/1.1 200 OK\r\n\r\n", 200, "", -1 },
		{ HTTP_CUT, 200, "HTTP/1.1 200 OK\r\n\r\n", 200, "", -1 },
		{ HTTP_DONE, 301, "HTTP/1.1 301 M\r\nLocation: https://a.test/robots.txt\r\n\r\n",
		  301, "https://a.test/robots.txt", -1 },
		{ HTTP_DONE, 302, "HTTP/1.1 302 M\r\nLocation: mailto:x@y\r\n\r\n", 302, "", -1 },
		{ HTTP_DONE, 503, "HTTP/1.1 503 B\r\nRetry-After: 30\r\n\r\n", 503, "", 30 },
		{ HTTP_DONE, 404, "HTTP/1.1 404 NF\r\n\r\n", 404, "", -1 },
		{ HTTP_TIMEOUT, 0, "", 0, "", -1 },
		{ HTTP_FAILED, 200, "HTTP/1.1 200 OK\r\n\r\n", 0, "", -1 },
		{ HTTP_HEAD_TOO_LARGE, 200, "HTTP/1.1 200 OK\r\n", 0, "", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(rr) / sizeof(rr[0]); i++) {
		struct outcome_in in = { rr[i].t, rr[i].http, rr[i].head, strlen(rr[i].head), "",
					 0, "http://a.test/robots.txt", "", 1 << 20, NOW };
		struct outcome_robots o;

		outcome_robots(&in, &o);
		CHECK(o.status == rr[i].status && !strcmp(o.location, rr[i].location) &&
		      o.retry_after_s == rr[i].retry,
		      "robots row %zu: status %d location '%s' retry %lld", i, o.status,
		      o.location, (long long)o.retry_after_s);
	}
}

/* ETag and Last-Modified of a 2xx or a 304, for the next request; none
 * from other answers, an ETag with a control character dropped. */
static void validators(void)
{
	static const struct {
		long http;
		const char *head, *etag;
		int64_t lm;
	} v[] = {
		{ 200, "HTTP/1.1 200 OK\r\nETag: \"abc\"\r\nLast-Modified: Sun, 06 Nov 1994 "
		  "08:49:37 GMT\r\n\r\n", "\"abc\"", 784111777 },
		{ 304, "HTTP/1.1 304 Not Modified\r\nEtag:  W/\"x\" \r\n\r\n", "W/\"x\"", 0 },
		{ 404, "HTTP/1.1 404 Not Found\r\nETag: \"n\"\r\n\r\n", "", 0 },
		{ 200, "HTTP/1.1 200 OK\r\nETag: \"a\x01b\"\r\nLast-Modified: never\r\n\r\n", "",
		  0 },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct outcome o;
		struct outcome_in in;

		memset(&in, 0, sizeof(in));
		in.transport = HTTP_DONE;
		in.http = v[i].http;
		in.head = v[i].head;
		in.head_len = strlen(v[i].head);
		in.body = (const unsigned char *)"";
		in.url = "http://a.test/";
		in.error = "";
		in.max_decoded_bytes = 1000;
		in.now_s = NOW;
		outcome_classify(&in, &o);
		CHECK(!strcmp(o.etag, v[i].etag) && o.last_modified_s == v[i].lm,
		      "validators %zu: etag '%s', last-modified %lld", i, o.etag,
		      (long long)o.last_modified_s);
	}
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(&rows[i]);
	long_location();
	decode_cap();
	revisits();
	robots_answers();
	validators();
	TEST_DONE();
}

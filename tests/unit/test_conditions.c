/*
 * test_conditions.c - a refetch's conditional headers (fetch/http.h,
 * http_conditions) over a table: ETag alone, a Last-Modified alone or
 * beside an ETag, a fetch time alone and never beside an ETag, no date,
 * dates at the edges. No network.
 */
#include "fetch/http.h"
#include "test.h"

struct row {
	const char *name;
	int64_t ims_s;
	int ims_is_last_modified;
	const char *etag;
	const char *want_inm;   /* "" none */
	const char *want_ims;
};

static const struct row rows[] = {
	{ "nothing known", 0, 0, NULL, "", "" },
	{ "an empty ETag is none", 0, 0, "", "", "" },
	{ "ETag alone", 0, 0, "\"abc\"", "If-None-Match: \"abc\"", "" },
	{ "a weak ETag as it was sent", 0, 0, "W/\"x-1\"", "If-None-Match: W/\"x-1\"", "" },
	{ "Last-Modified alone", 1700000000, 1, NULL, "",
	  "If-Modified-Since: Tue, 14 Nov 2023 22:13:20 GMT" },
	{ "a fetch time alone", 1700000000, 0, NULL, "",
	  "If-Modified-Since: Tue, 14 Nov 2023 22:13:20 GMT" },
	{ "ETag and Last-Modified: both", 784111777, 1, "\"e\"", "If-None-Match: \"e\"",
	  "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT" },
	{ "ETag and a fetch time: the ETag alone", 784111777, 0, "\"e\"",
	  "If-None-Match: \"e\"", "" },
	{ "a negative date is none", -5, 1, NULL, "", "" },
	{ "the epoch's first second", 1, 1, NULL, "",
	  "If-Modified-Since: Thu, 01 Jan 1970 00:00:01 GMT" },
};

static void table(void)
{
	char inm[HTTP_COND_MAX], ims[HTTP_COND_MAX];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct http_request rq;

		memset(&rq, 0, sizeof(rq));
		rq.if_modified_since_s = r->ims_s;
		rq.ims_is_last_modified = r->ims_is_last_modified;
		rq.etag = r->etag;
		http_conditions(&rq, inm, ims);
		CHECK(!strcmp(inm, r->want_inm), "%s: If-None-Match '%s', want '%s'", r->name,
		      inm, r->want_inm);
		CHECK(!strcmp(ims, r->want_ims), "%s: If-Modified-Since '%s', want '%s'", r->name,
		      ims, r->want_ims);
	}
}

/* An ETag as long as the CrawlDb keeps is sent whole; a longer one (which
 * the CrawlDb never holds) is cut, not overflowed. */
static void long_etag(void)
{
	char etag[CRAWL_ETAG_MAX + 40], inm[HTTP_COND_MAX], ims[HTTP_COND_MAX];
	struct http_request rq;

	memset(etag, 'a', sizeof(etag) - 1);
	etag[CRAWL_ETAG_MAX] = '\0';
	memset(&rq, 0, sizeof(rq));
	rq.etag = etag;
	http_conditions(&rq, inm, ims);
	CHECK(strlen(inm) == strlen("If-None-Match: ") + CRAWL_ETAG_MAX, "%zu bytes",
	      strlen(inm));
	etag[CRAWL_ETAG_MAX] = 'a';
	etag[sizeof(etag) - 1] = '\0';
	http_conditions(&rq, inm, ims);
	CHECK(strlen(inm) == strlen("If-None-Match: ") + CRAWL_ETAG_MAX, "cut: %zu bytes",
	      strlen(inm));
}

int main(void)
{
	table();
	long_etag();
	TEST_DONE();
}

/*
 * test_repair.c - check --repair's decisions (round/repair.h): which
 * CrawlDb version a lost CURRENT names again, which CrawlDb record a lost
 * capture makes due again and how, and where a record of a salvaged WARC
 * file went. No MPI, no files.
 */
#include "round/repair.h"
#include "test.h"

static void test_pick_version(void)
{
	static const struct {
		const char *name;
		struct repair_version v[4];
		size_t n;
		int want;
	} rows[] = {
		{ "no version", { { 0, 0 } }, 0, 0 },
		{ "the newest of two whole ones", { { 4, 1 }, { 5, 1 } }, 2, 5 },
		{ "in any order", { { 5, 1 }, { 4, 1 } }, 2, 5 },
		{ "an update cut before its commit (no _FROM) is passed over",
		  { { 4, 1 }, { 5, 1 }, { 6, 0 } }, 3, 5 },
		{ "a damaged newest: the one before", { { 4, 1 }, { 5, 0 } }, 2, 4 },
		{ "none whole", { { 4, 0 }, { 5, 0 } }, 2, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK(repair_pick_version(rows[i].v, rows[i].n) == rows[i].want, "%s: got %d",
		      rows[i].name, repair_pick_version(rows[i].v, rows[i].n));
}

static void test_forget_capture(void)
{
	struct crawl_record r;
	const int64_t at = 1795000000000000, now = 1796000000000000;

	memset(&r, 0, sizeof(r));
	r.status = ST_FETCHED;
	r.http_status = 200;
	r.fetched_at = at;
	r.next_fetch = at + 86400000000;
	r.digest = 42;
	r.text_digest = 43;
	r.etag = "\"v1\"";
	r.etag_len = 4;
	r.last_modified = at - 1000;
	r.depth = 3;
	r.cash = 0.5;
	CHECK(!repair_forget_capture(&r, at + 1, now) && r.status == ST_FETCHED &&
	      r.digest == 42, "a record of a later fetch stays");
	CHECK(!repair_forget_capture(&r, 0, now) && r.status == ST_FETCHED,
	      "no capture time: nothing");
	CHECK(repair_forget_capture(&r, at, now), "the lost capture's record");
	CHECK(r.status == ST_UNFETCHED && r.next_fetch == now && !r.fetched_at,
	      "unfetched, due now: status %d next %lld", r.status, (long long)r.next_fetch);
	CHECK(!r.digest && !r.text_digest && !r.etag_len && !r.last_modified,
	      "nothing left that makes the next fetch a 304 or a revisit");
	CHECK(r.depth == 3 && r.cash == 0.5, "its place in the crawl (depth, cash) stays");
	CHECK(!repair_forget_capture(&r, at, now), "a second repair finds nothing to do");
}

static void test_moved(void)
{
	static const struct repair_move mv[] = { { 0, 0 }, { 412, 412 }, { 3000, 1900 },
						 { 5200, 4100 } };
	uint64_t to = 7;

	CHECK(repair_moved(mv, 4, 412, &to) && to == 412, "a record before the damage: %llu",
	      (unsigned long long)to);
	CHECK(repair_moved(mv, 4, 5200, &to) && to == 4100, "a record after it: %llu",
	      (unsigned long long)to);
	to = 7;
	CHECK(!repair_moved(mv, 4, 1900, &to) && to == 7, "the damaged record: lost");
	CHECK(!repair_moved(mv, 4, 9000, &to), "past the last record: lost");
	CHECK(!repair_moved(mv, 0, 0, &to), "no record kept");
}

int main(void)
{
	test_pick_version();
	test_forget_capture();
	test_moved();
	TEST_DONE();
}

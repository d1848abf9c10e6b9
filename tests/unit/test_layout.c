#include "test.h"
#include "crawldb/layout.h"

#include <stdio.h>
#include <stdint.h>
#include <string.h>

static uint32_t part(const struct crawl_dir *d, const char *url)
{
	return layout_partition(d, url, strlen(url));
}

/* WARC file names: a rank's (PREFIX-SSSSS-rRRRR[-aK]-...) and an older
 * crawl's per partition (PREFIX-SSSSS-PPPPP[-rK]-...), both read back. */
static void warc_names(void)
{
	static const struct {
		const char *name;
		int ok, by_rank;
		uint32_t unit;
		int attempt;
	} t[] = {
		{ "TEST-00007-r0001-00000-h.warc.gz", 1, 1, 1, 0 },
		{ "TEST-00007-r0012-a2-00003-h-robots.warc.zst", 1, 1, 12, 2 },
		{ "TEST-00007-00012-00000-h.warc.gz", 1, 0, 12, 0 },
		{ "TEST-00007-00012-r3-00000-h.warc.gz", 1, 0, 12, 3 },
		{ "TEST-00007-00012.warc.gz", 1, 0, 12, 0 },
		{ "TEST-00008-r0001-00000-h.warc.gz", 0, 0, 0, 0 },   /* another segment */
		{ "OTHER-00007-r0001-00000-h.warc.gz", 0, 0, 0, 0 },  /* another prefix */
		{ "TEST-00007-r0001-00000-h.cdxj", 0, 0, 0, 0 },      /* not a WARC file */
		{ "TEST-00007-rx-00000-h.warc.gz", 0, 0, 0, 0 },
		{ "TEST-00007-99999999999-h.warc.gz", 0, 0, 0, 0 },
		{ "TEST-00007-r0001-ax-h.warc.gz", 1, 1, 1, 0 },      /* -ax: the host's */
		{ "TEST-00007-r0001-a2x-h.warc.gz", 0, 0, 0, 0 },
	};
	struct crawl_dir d = { "/nonexistent", 64, PARTITION_BY_HOST, "TEST" };
	char out[128];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t unit = 0;
		int by_rank = -1, attempt = -1;
		int ok = layout_warc_unit(&d, t[i].name, 7, &unit, &by_rank, &attempt);

		CHECK(ok == t[i].ok && (!ok || (by_rank == t[i].by_rank && unit == t[i].unit &&
						attempt == t[i].attempt)),
		      "%s: %d (rank %d, unit %u, attempt %d)", t[i].name, ok, by_rank, unit, attempt);
	}
	layout_warc_prefix(&d, 7, 12, 0, out, sizeof(out));
	CHECK(!strcmp(out, "TEST-00007-r0012"), "rank prefix '%s'", out);
	layout_warc_prefix(&d, 7, 12, 3, out, sizeof(out));
	CHECK(!strcmp(out, "TEST-00007-r0012-a3"), "rank prefix of attempt 3 '%s'", out);
	layout_warc_part_prefix(&d, 7, 12, out, sizeof(out));
	CHECK(!strcmp(out, "TEST-00007-00012"), "partition prefix '%s'", out);
}

int main(void)
{
	struct crawl_dir d = { "/nonexistent", 64, PARTITION_BY_HOST, "" };
	struct crawl_dir dom = { "/nonexistent", 64, PARTITION_BY_DOMAIN, "" };
	uint32_t counts[64] = { 0 }, p, min = UINT32_MAX, max = 0;
	int n, r, i;

	CHECK(part(&d, "http://a.example/x") == part(&d, "https://a.example:8443/y?z"),
	      "all URLs of a host share a partition (any scheme or port)");
	CHECK(part(&d, "http://a.example/") < 64, "partition in range");
	/* Fixed values: changing the partition function would orphan every
	 * existing crawl directory, so it must not change by accident. */
	CHECK(part(&d, "http://a.example/") == 8, "XXH3 of the host, mod 64: %u",
	      part(&d, "http://a.example/"));
	CHECK(part(&d, "http://h0000.sim.test:8080/") == 59, "with a port: %u",
	      part(&d, "http://h0000.sim.test:8080/"));
	CHECK(part(&dom, "http://a.example.co.uk/") == part(&dom, "http://b.x.example.co.uk/"),
	      "domain mode: subdomains of one registrable domain share a partition");
	for (i = 0; i < 6400; i++) {
		char url[64];

		snprintf(url, sizeof(url), "http://h%05d.example/", i);
		counts[part(&d, url)]++;
	}
	for (p = 0; p < 64; p++) {
		if (counts[p] < min)
			min = counts[p];
		if (counts[p] > max)
			max = counts[p];
	}
	CHECK(min > 50 && max < 150, "6400 hosts spread over 64 partitions (min %u, max %u)",
	      min, max);
	for (n = 1; n <= 7; n++) {
		int ok = 1;

		for (p = 0; p < 64; p++) {
			int owners = 0;

			for (r = 0; r < n; r++)
				owners += layout_owns(p, r, n);
			ok &= owners == 1;
		}
		CHECK(ok, "every partition has exactly one owner among %d ranks", n);
	}
	warc_names();
	TEST_DONE();
}

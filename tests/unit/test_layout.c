#include "test.h"
#include "crawldb/layout.h"

#include <stdio.h>
#include <stdint.h>

static uint32_t part(const struct crawl_dir *d, const char *url)
{
	return layout_partition(d, url, strlen(url));
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
	TEST_DONE();
}

#include "test.h"
#include "url/trap.h"

#include <stdlib.h>

static const char *check(struct trap_state *s, const char *url, const struct config *c)
{
	return trap_check(s, url, strlen(url), c);
}

int main(void)
{
	struct config c;
	struct trap_state *s = calloc(1, sizeof(*s));
	char url[600];
	int i, traps;

	config_defaults(&c);
	trap_reset(s);
	/* Paths. */
	CHECK(!check(s, "http://a.test/", &c), "root");
	CHECK(!check(s, "http://a.test/2024/01/01/x.html", &c), "a date repeats once");
	CHECK(!check(s, "http://a.test/a/a/a/", &c), "three times is allowed");
	CHECK_STR(check(s, "http://a.test/a/a/a/a/", &c), "path");
	CHECK_STR(check(s, "http://a.test/x/y/x/y/x/y/x/y", &c), "path");
	CHECK(!check(s, "http://a.test/a/a/a/?q=/a/a/a/a", &c), "the query is not the path");
	url[0] = '\0';
	snprintf(url, sizeof(url), "http://a.test");
	for (i = 0; i < 65; i++)
		snprintf(url + strlen(url), sizeof(url) - strlen(url), "/s%d", i);
	CHECK_STR(check(s, url, &c), "path");
	c.trap_max_segments = 0;
	c.trap_max_repeats = 0;
	CHECK(!check(s, url, &c), "rules off");
	CHECK(!check(s, "http://a.test/a/a/a/a/", &c), "rules off");

	/* Query variants of one path, counted in sorted order. */
	config_defaults(&c);
	c.trap_max_query_variants = 5;
	trap_reset(s);
	trap_note(s, "http://a.test/p/", 16);
	traps = 0;
	for (i = 0; i < 20; i++) {
		snprintf(url, sizeof(url), "http://a.test/p?sid=%04d", i);
		if (check(s, url, &c))
			traps++;
		trap_note(s, url, strlen(url));
	}
	CHECK(traps == 15, "20 variants, 5 kept: %d traps", traps);
	CHECK(!check(s, "http://a.test/q?sid=1", &c), "another path starts anew");

	/* URLs per host. */
	config_defaults(&c);
	c.max_urls_per_host = 10;
	trap_reset(s);
	traps = 0;
	for (i = 0; i < 12; i++) {
		snprintf(url, sizeof(url), "http://b.test/%04d.html", i);
		if (check(s, url, &c))
			traps++;
		trap_note(s, url, strlen(url));
	}
	CHECK(traps == 2, "12 URLs, 10 kept: %d traps", traps);
	CHECK(!check(s, "http://b.test.evil/x", &c), "another host starts anew");
	CHECK(!check(s, "http://c.test:8080/x", &c), "another authority starts anew");
	free(s);
	TEST_DONE();
}

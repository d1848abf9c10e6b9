/*
 * test_robots.c - robots.txt parsing and matching: our own table of cases,
 * then every case of the conformance files (google/robotstxt's tests stored
 * as JSON lines), read at run time from $CONFORMANCE_DIR or
 * ../shared/conformance. Cases marked google_specific describe Google's
 * extensions to RFC 9309; they are counted and reported, not failed.
 */
#include "robots/robots.h"
#include "test.h"
#include "util/buf.h"

#include <stdlib.h>

/* ---- our own cases ---------------------------------------------------- */

struct allow_case {
	const char *body;
	const char *agent;
	const char *path;
	int want;
};

static const struct allow_case allow_cases[] = {
	/* empty file, no groups, groups for others only: all allowed */
	{ "", "a", "/x", 1 },
	{ "# only a comment\n\n", "a", "/x", 1 },
	{ "User-agent: b\nDisallow: /\n", "a", "/x", 1 },
	/* a named group beats "*", whatever the order */
	{ "User-agent: *\nDisallow: /\nUser-agent: a\nDisallow: /p\n", "a", "/x", 1 },
	{ "User-agent: a\nDisallow: /p\nUser-agent: *\nDisallow: /\n", "a", "/x", 1 },
	{ "User-agent: a\nDisallow: /p\nUser-agent: *\nDisallow: /\n", "a", "/p", 0 },
	{ "User-agent: a\nDisallow: /p\nUser-agent: *\nDisallow: /\n", "z", "/x", 0 },
	/* a named group without rules allows everything */
	{ "User-agent: *\nDisallow: /\n\nUser-agent: a\n", "a", "/x", 1 },
	/* the agent is matched case-insensitively, as a whole token */
	{ "User-agent: FooBot\nDisallow: /\n", "foobot", "/x", 0 },
	{ "User-agent: FooBot\nDisallow: /\n", "Foo", "/x", 1 },
	{ "User-agent: Foo\nDisallow: /\n", "FooBot", "/x", 1 },
	{ "User-agent: FooBot/2.1 (+http://x/)\nDisallow: /\n", "foobot", "/x", 0 },
	{ "User-agent: *bot\nDisallow: /\n", "foobot", "/x", 1 },
	/* groups for the same agent are merged, so are "*" groups */
	{ "User-agent: a\nDisallow: /p\n\nUser-agent: b\nDisallow: /\n\n"
	  "User-agent: A\nDisallow: /q\n", "a", "/q", 0 },
	{ "User-agent: a\nDisallow: /p\n\nUser-agent: b\nDisallow: /\n\n"
	  "User-agent: A\nDisallow: /q\n", "a", "/p", 0 },
	{ "User-agent: a\nDisallow: /p\n\nUser-agent: b\nDisallow: /\n\n"
	  "User-agent: A\nDisallow: /q\n", "a", "/r", 1 },
	{ "User-agent: *\nDisallow: /p\nUser-agent: b\nDisallow: /\n"
	  "User-agent: *\nDisallow: /q\n", "a", "/q", 0 },
	{ "User-agent: *\nDisallow: /p\nUser-agent: b\nDisallow: /\n"
	  "User-agent: *\nDisallow: /q\n", "a", "/p", 0 },
	/* consecutive user-agent lines form one group, blank lines between */
	{ "User-agent: b\nUser-agent: a\nDisallow: /\n", "a", "/x", 0 },
	{ "User-agent: b\n\n\nUser-agent: a\nDisallow: /\n", "a", "/x", 0 },
	{ "User-agent: a\nDisallow: /p\nUser-agent: b\nDisallow: /\n", "a", "/x", 1 },
	/* Sitemap, Crawl-delay and unknown lines do not end a group */
	{ "User-agent: a\nSitemap: http://x/s.xml\nUser-agent: b\nDisallow: /\n",
	  "a", "/x", 0 },
	{ "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /\n", "a", "/x", 0 },
	{ "User-agent: a\nFoo: bar\nUser-agent: b\nDisallow: /\n", "a", "/x", 0 },
	/* rules before any user-agent line are ignored */
	{ "Disallow: /\nUser-agent: a\nAllow: /p\n", "a", "/x", 1 },
	{ "Disallow: /\n", "a", "/x", 1 },
	/* longest match wins, Allow wins a tie, order does not matter */
	{ "User-agent: a\nDisallow: /x/\nAllow: /x/y\n", "a", "/x/y", 1 },
	{ "User-agent: a\nAllow: /x/y\nDisallow: /x/\n", "a", "/x/z", 0 },
	{ "User-agent: a\nDisallow: /x/y\nAllow: /x/\n", "a", "/x/y", 0 },
	{ "User-agent: a\nDisallow: /x\nAllow: /x\n", "a", "/x", 1 },
	{ "User-agent: a\nAllow: /x\nDisallow: /x\n", "a", "/x", 1 },
	{ "User-agent: a\nDisallow: /\nAllow: /$\n", "a", "/", 1 },
	{ "User-agent: a\nDisallow: /\nAllow: /$\n", "a", "/a", 0 },
	/* an empty Disallow disallows nothing */
	{ "User-agent: a\nDisallow:\n", "a", "/x", 1 },
	{ "User-agent: a\nDisallow: \nDisallow: /p\n", "a", "/p", 0 },
	/* matching is case-sensitive and starts at the first byte */
	{ "User-agent: a\nDisallow: /X\n", "a", "/x", 1 },
	{ "User-agent: a\nDisallow: x\n", "a", "/x", 1 },
	/* wildcards */
	{ "User-agent: a\nDisallow: /*.gif$\n", "a", "/a/b.gif", 0 },
	{ "User-agent: a\nDisallow: /*.gif$\n", "a", "/a/b.gif?x", 1 },
	{ "User-agent: a\nDisallow: *.gif$\n", "a", "/b.gif", 0 },
	{ "User-agent: a\nDisallow: /a*b*c\n", "a", "/aXbYcZ", 0 },
	{ "User-agent: a\nDisallow: /a*b*c\n", "a", "/aXcYb", 1 },
	{ "User-agent: a\nDisallow: /a**c\n", "a", "/ac", 0 },
	{ "User-agent: a\nDisallow: /*\n", "a", "/", 0 },
	{ "User-agent: a\nDisallow: /a*c$\n", "a", "/abcbc", 0 },
	{ "User-agent: a\nDisallow: /a*c$\n", "a", "/abcb", 1 },
	{ "User-agent: a\nDisallow: /a*bc*bc$\n", "a", "/abcbc", 0 },
	{ "User-agent: a\nDisallow: /a*bc*bc$\n", "a", "/abc", 1 },
	{ "User-agent: a\nDisallow: /a*$\n", "a", "/abc", 0 },
	/* $ ends the pattern only at its end */
	{ "User-agent: a\nDisallow: /foo$\n", "a", "/foo", 0 },
	{ "User-agent: a\nDisallow: /foo$\n", "a", "/foo/", 1 },
	{ "User-agent: a\nDisallow: /foo$\n", "a", "/foo?x", 1 },
	{ "User-agent: a\nDisallow: /a$b\n", "a", "/a$b", 0 },
	{ "User-agent: a\nDisallow: /a$b\n", "a", "/a%24b", 0 },
	/* percent-encoding: case of hex, non-ASCII, encoded specials */
	{ "User-agent: a\nDisallow: /%aa\n", "a", "/%AA", 0 },
	{ "User-agent: a\nDisallow: /%AA\n", "a", "/%aa", 0 },
	{ "User-agent: a\nDisallow: /\xc3\xa1\n", "a", "/%c3%a1", 0 },
	{ "User-agent: a\nDisallow: /%C3%A1\n", "a", "/\xc3\xa1", 1 },
	{ "User-agent: a\nDisallow: /%62\n", "a", "/b", 1 },
	{ "User-agent: a\nDisallow: /b\n", "a", "/%62", 1 },
	{ "User-agent: a\nDisallow: /f-%2A.html\n", "a", "/f-*.html", 0 },
	{ "User-agent: a\nDisallow: /f-%2A.html\n", "a", "/f-x.html", 1 },
	{ "User-agent: a\nDisallow: /foo-%24\n", "a", "/foo-$", 0 },
	/* params and query take part in matching */
	{ "User-agent: a\nDisallow: /*?s=\n", "a", "/p?s=1", 0 },
	{ "User-agent: a\nDisallow: /p;jsessionid\n", "a", "/p;jsessionid=1", 0 },
	/* /robots.txt is always allowed */
	{ "User-agent: *\nDisallow: /\n", "a", "/robots.txt", 1 },
	{ "User-agent: *\nDisallow: /\n", "a", "/robots.txtx", 0 },
	/* syntax: case of names, white space, comments, missing colon */
	{ "uSeR-aGeNt: a\ndIsAlLoW: /\n", "a", "/x", 0 },
	{ "  \tUser-agent  :  a  \n\t Disallow\t:\t/p \t\n", "a", "/p", 0 },
	{ "User-agent: a # me\nDisallow: /p # not /x\n", "a", "/x", 1 },
	{ "User-agent: a # me\nDisallow: /p # not /x\n", "a", "/p", 0 },
	{ "User-agent: a\nDisallow: /p#q\n", "a", "/p", 0 },
	{ "User-agent a\nDisallow /\n", "a", "/x", 0 },
	{ "User-agent: a\nDisalow: /\n", "a", "/x", 0 },
	{ "User-agent: a\nDisallow /x y\n", "a", "/x", 1 },
	/* byte order mark, whole or cut short; not in the middle */
	{ "\xef\xbb\xbfUser-agent: a\nDisallow: /\n", "a", "/x", 0 },
	{ "\xef\xbbUser-agent: a\nDisallow: /\n", "a", "/x", 0 },
	{ "\xefUser-agent: a\nDisallow: /\n", "a", "/x", 0 },
	{ "\xef\x11\xbfUser-agent: a\nDisallow: /\n", "a", "/x", 1 },
	{ "User-agent: a\n\xef\xbb\xbf" "Disallow: /\n", "a", "/x", 1 },
	/* line endings: LF, CR, CRLF, mixed, none at the end */
	{ "User-agent: a\rDisallow: /p\rAllow: /p/q\r", "a", "/p/x", 0 },
	{ "User-agent: a\rDisallow: /p\rAllow: /p/q\r", "a", "/p/q", 1 },
	{ "User-agent: a\r\nDisallow: /p\r\n", "a", "/p", 0 },
	{ "User-agent: a\r\n\r\nDisallow: /p\n\rAllow: /p/q", "a", "/p/q", 1 },
	{ "User-agent: a\nDisallow: /p", "a", "/p", 0 },
	{ "User-agent: b\rUser-agent: a\r\rDisallow: /\r", "a", "/x", 0 },
};

/* The crawler's matching (ROBOTS_ESCAPES_DECODED): escapes of unreserved
 * characters decoded on both sides, the rest as in the table above. */
static const struct allow_case decoded_cases[] = {
	{ "User-agent: *\nDisallow: /%7Ejoe/\n", "a", "/~joe/secret.html", 0 },
	{ "User-agent: *\nDisallow: /%7ejoe/\n", "a", "/%7Ejoe/secret.html", 0 },
	{ "User-agent: *\nDisallow: /~joe/\n", "a", "/%7ejoe/secret.html", 0 },
	{ "User-agent: *\nDisallow: /~joe/\n", "a", "/~jim/", 1 },
	/* RFC 9309 2.2.2's table */
	{ "User-agent: a\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "a", "/foo/bar/baz", 1 },
	{ "User-agent: a\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "a",
	  "/foo/bar/%62%61%7A", 1 },
	{ "User-agent: a\nDisallow: /foo/bar/\xe3\x83\x84\n", "a", "/foo/bar/%E3%83%84", 0 },
	{ "User-agent: a\nDisallow: /foo/bar/%E3%83%84\n", "a", "/foo/bar/%e3%83%84", 0 },
	/* reserved characters stay escaped: %2F is not a path separator */
	{ "User-agent: a\nDisallow: /a%2Fb\n", "a", "/a/b", 1 },
	{ "User-agent: a\nDisallow: /a/b\n", "a", "/a%2fb", 1 },
	{ "User-agent: a\nDisallow: /a%2Fb\n", "a", "/a%2fb", 0 },
	/* an escaped * or $ is still the character, not the wildcard */
	{ "User-agent: a\nDisallow: /f-%2A.html\n", "a", "/f-x.html", 1 },
	{ "User-agent: a\nDisallow: /f-%2A.html\n", "a", "/f-*.html", 0 },
	/* decoding shortens the pattern: the longer rule still wins */
	{ "User-agent: a\nAllow: /%70/%71\nDisallow: /p/\n", "a", "/p/q", 1 },
	{ "User-agent: a\nDisallow: /p%2\n", "a", "/p%2", 0 },
};

/* Runs a table of cases with the escapes compared as esc says. */
static void run_allow_table(const struct allow_case *cases, size_t n,
			    enum robots_escapes esc, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct allow_case *c = &cases[i];
		struct robots *r = NULL;
		enum cr_err e;

		e = robots_parse_with(c->body, strlen(c->body), c->agent, esc, &r);
		CHECK(e == CR_OK, "%s case %zu: parse: %s", name, i, error_str(e));
		if (e != CR_OK)
			continue;
		CHECK(robots_allowed(r, c->path) == c->want,
		      "%s case %zu: agent '%s' path '%s': want %s", name, i, c->agent,
		      c->path, c->want ? "allow" : "deny");
		robots_free(&r);
		CHECK(r == NULL, "%s case %zu: free clears", name, i);
	}
}

static void test_allow_table(void)
{
	run_allow_table(allow_cases, sizeof(allow_cases) / sizeof(allow_cases[0]),
			ROBOTS_ESCAPES_KEPT, "kept");
	run_allow_table(decoded_cases, sizeof(decoded_cases) / sizeof(decoded_cases[0]),
			ROBOTS_ESCAPES_DECODED, "decoded");
}

struct delay_case {
	const char *body;
	const char *agent;
	long want;
};

static const struct delay_case delay_cases[] = {
	{ "", "a", -1 },
	{ "User-agent: a\nDisallow: /\n", "a", -1 },
	{ "User-agent: a\nCrawl-delay: 5\n", "a", 5000 },
	{ "User-agent: a\ncrawl-delay:2.5\n", "a", 2500 },
	{ "User-agent: a\nCrawl-delay: 0.25 # s\n", "a", 250 },
	{ "User-agent: a\nCrawl-delay: .5\n", "a", 500 },
	{ "User-agent: a\nCrawl-delay: 0\n", "a", 0 },
	{ "User-agent: a\nCrawl-delay: 1.2345\n", "a", 1234 },
	{ "User-agent: a\nCrawl-delay: 10s\n", "a", 10000 },
	{ "User-agent: a\nCrawl-delay: soon\n", "a", -1 },
	{ "User-agent: a\nCrawl-delay: -3\n", "a", -1 },
	{ "User-agent: a\nCrawl-delay: 99999999999999999999999\n", "a",
	  ROBOTS_MAX_CRAWL_DELAY_MS },
	/* the chosen group's delay only; the largest when merged */
	{ "User-agent: *\nCrawl-delay: 7\nUser-agent: a\nCrawl-delay: 3\n", "a", 3000 },
	{ "User-agent: *\nCrawl-delay: 7\nUser-agent: a\nCrawl-delay: 3\n", "b", 7000 },
	{ "User-agent: *\nCrawl-delay: 7\nUser-agent: a\nDisallow: /\n", "a", -1 },
	{ "User-agent: a\nCrawl-delay: 3\n\nUser-agent: a\nCrawl-delay: 4\n", "a", 4000 },
	{ "User-agent: b\nUser-agent: a\nCrawl-delay: 2\n", "a", 2000 },
	/* before any group: ignored */
	{ "Crawl-delay: 9\nUser-agent: a\nDisallow: /x\n", "a", -1 },
};

static void test_crawl_delay(void)
{
	size_t i;

	for (i = 0; i < sizeof(delay_cases) / sizeof(delay_cases[0]); i++) {
		const struct delay_case *c = &delay_cases[i];
		struct robots *r = NULL;
		long got;

		if (robots_parse(c->body, strlen(c->body), c->agent, &r) != CR_OK) {
			CHECK(0, "delay case %zu: parse failed", i);
			continue;
		}
		got = robots_crawl_delay_ms(r);
		CHECK(got == c->want, "delay case %zu: got %ld, want %ld", i, got,
		      c->want);
		robots_free(&r);
	}
}

static void test_sitemaps(void)
{
	static const char body[] =
		"Sitemap: http://x/a.xml\n"
		"User-agent: other\n"
		"Disallow: /\n"
		"sitemap:http://x/b.xml # comment\n"
		"User-agent: *\n"
		"Site-map: http://x/c.xml\n"
		"Sitemap:\n"
		"Disallow: /p\n";
	struct robots *r = NULL;
	struct buf b;
	size_t i;

	if (robots_parse(body, strlen(body), "a", &r) != CR_OK) {
		CHECK(0, "sitemaps: parse failed");
		return;
	}
	CHECK(robots_sitemap_count(r) == 3, "sitemap count %zu",
	      robots_sitemap_count(r));
	CHECK_STR(robots_sitemap(r, 0), "http://x/a.xml");
	CHECK_STR(robots_sitemap(r, 1), "http://x/b.xml");
	CHECK_STR(robots_sitemap(r, 2), "http://x/c.xml");
	CHECK(robots_sitemap(r, 3) == NULL, "sitemap out of range");
	/* the Sitemap line did not end the "*" group */
	CHECK(robots_allowed(r, "/p") == 0, "sitemap inside group");
	robots_free(&r);

	/* at most ROBOTS_MAX_SITEMAPS are kept */
	buf_init(&b);
	for (i = 0; i < ROBOTS_MAX_SITEMAPS + 10; i++)
		buf_addf(&b, "Sitemap: http://x/%zu.xml\n", i);
	if (robots_parse(b.p, b.len, "a", &r) == CR_OK) {
		CHECK(robots_sitemap_count(r) == ROBOTS_MAX_SITEMAPS,
		      "sitemap cap: %zu", robots_sitemap_count(r));
		CHECK_STR(robots_sitemap(r, ROBOTS_MAX_SITEMAPS - 1),
			  "http://x/1023.xml");
		robots_free(&r);
	} else {
		CHECK(0, "sitemap cap: parse failed");
	}
	buf_release(&b);
}

/* Pads b with comment lines up to exactly n bytes (n - b->len >= 2). */
static void pad_to(struct buf *b, size_t n)
{
	while (b->len + 100 < n) {
		buf_addc(b, '#');
		while (b->len % 80)
			buf_addc(b, 'x');
		buf_addc(b, '\n');
	}
	buf_addc(b, '#');
	while (b->len + 1 < n)
		buf_addc(b, 'y');
	buf_addc(b, '\n');
}

static void test_size_cap(void)
{
	struct robots *r = NULL;
	struct buf b;

	/* A rule after the cap is not read. */
	buf_init(&b);
	buf_adds(&b, "User-agent: *\nDisallow: /a\n");
	pad_to(&b, ROBOTS_MAX_BYTES);
	buf_adds(&b, "Disallow: /b\n");
	if (robots_parse(b.p, b.len, "x", &r) == CR_OK) {
		CHECK(robots_allowed(r, "/a") == 0, "cap: rule before the cap");
		CHECK(robots_allowed(r, "/b") == 1, "cap: rule after the cap");
		robots_free(&r);
	}

	/* A line cut by the cap is dropped: half an Allow allows too much. */
	buf_reset(&b);
	buf_adds(&b, "User-agent: *\nDisallow: /\n");
	pad_to(&b, ROBOTS_MAX_BYTES - 9);
	buf_adds(&b, "Allow: /a");
	buf_adds(&b, "bcdef\n");
	if (robots_parse(b.p, b.len, "x", &r) == CR_OK) {
		CHECK(robots_allowed(r, "/abcdef") == 0, "cap: cut line dropped");
		CHECK(robots_allowed(r, "/axyz") == 0, "cap: cut line not half-read");
		robots_free(&r);
	}

	/* A line that ends exactly at the cap is kept. */
	buf_reset(&b);
	buf_adds(&b, "User-agent: *\nDisallow: /\n");
	pad_to(&b, ROBOTS_MAX_BYTES - 9);
	buf_adds(&b, "Allow: /a\nAllow: /b\n");
	if (robots_parse(b.p, b.len, "x", &r) == CR_OK) {
		CHECK(robots_allowed(r, "/a") == 1, "cap: line ending at the cap");
		CHECK(robots_allowed(r, "/b") == 0, "cap: line after the cap");
		robots_free(&r);
	}

	/* Exactly ROBOTS_MAX_BYTES with no final newline: all read. */
	buf_reset(&b);
	buf_adds(&b, "User-agent: *\nDisallow: /\n");
	pad_to(&b, ROBOTS_MAX_BYTES - 9);
	buf_adds(&b, "Allow: /a");
	CHECK(b.len == ROBOTS_MAX_BYTES, "cap: body size %zu", b.len);
	if (robots_parse(b.p, b.len, "x", &r) == CR_OK) {
		CHECK(robots_allowed(r, "/a") == 1, "cap: last line without newline");
		robots_free(&r);
	}
	buf_release(&b);
}

/* Many "*"s against a long path: must not backtrack exponentially. */
static void test_many_stars(void)
{
	struct robots *r = NULL;
	struct buf body, path;
	size_t i;

	buf_init(&body);
	buf_init(&path);
	buf_adds(&body, "User-agent: *\nDisallow: /");
	for (i = 0; i < 2000; i++)
		buf_adds(&body, "*a");
	buf_adds(&body, "*b$\nDisallow: /");
	for (i = 0; i < 2000; i++)
		buf_adds(&body, "a*");
	buf_adds(&body, "c\n");
	buf_addc(&path, '/');
	for (i = 0; i < 50000; i++)
		buf_addc(&path, 'a');
	if (robots_parse(body.p, body.len, "x", &r) == CR_OK) {
		CHECK(robots_allowed(r, buf_cstr(&path)) == 1, "stars: no match");
		buf_addc(&path, 'b');
		CHECK(robots_allowed(r, buf_cstr(&path)) == 0, "stars: match");
		robots_free(&r);
	}
	buf_release(&body);
	buf_release(&path);
}

static void test_misc(void)
{
	struct robots *r = NULL;
	char out[32];
	const char *o = out; /* CHECK_STR wants a pointer */

	CHECK(robots_parse(NULL, 0, "a", &r) == CR_OK && r, "empty NULL body");
	CHECK(robots_allowed(r, "/") == 1 && robots_crawl_delay_ms(r) == -1 &&
	      robots_sitemap_count(r) == 0, "empty body: allow all");
	robots_free(&r);
	robots_free(&r);
	robots_free(NULL);
	CHECK(robots_parse(NULL, 1, "a", &r) == CR_ERR_ARG && !r, "NULL body");
	CHECK(robots_parse("", 0, NULL, &r) == CR_ERR_ARG && !r, "NULL agent");
	CHECK(robots_parse("", 0, "a", NULL) == CR_ERR_ARG, "NULL out");
	CHECK(robots_allowed(NULL, "/x") == 1, "NULL robots allows");

	r = robots_new_allow_all();
	CHECK(r && robots_allowed(r, "/x") == 1 && robots_allowed(r, "") == 1,
	      "allow all");
	robots_free(&r);
	r = robots_new_disallow_all();
	CHECK(r && robots_allowed(r, "/") == 0 && robots_allowed(r, "/x?y") == 0 &&
	      robots_allowed(r, "") == 0 && robots_allowed(r, "*") == 0,
	      "disallow all");
	CHECK(r && robots_allowed(r, "/robots.txt") == 1, "disallow all: robots.txt");
	CHECK(r && robots_crawl_delay_ms(r) == -1, "disallow all: no delay");
	robots_free(&r);

	/* url_path: fits exactly, one byte short, fragment, default "/" */
	CHECK(robots_url_path("http://h/abc?d#e", out, 7) == CR_OK, "url_path fits");
	CHECK_STR(o, "/abc?d");
	memcpy(out, "keep", 5);
	CHECK(robots_url_path("http://h/abc?d", out, 6) == CR_ERR_LIMIT,
	      "url_path too small");
	CHECK_STR(o, "keep");
	CHECK(robots_url_path("http://h", out, 1) == CR_ERR_LIMIT, "url_path cap 1");
	CHECK(robots_url_path("http://h", out, 2) == CR_OK, "url_path cap 2");
	CHECK_STR(o, "/");
	CHECK(robots_url_path("HTTPS://h:80/p;q?r", out, sizeof(out)) == CR_OK,
	      "url_path params");
	CHECK_STR(o, "/p;q?r");
	CHECK(robots_url_path("http://h?q#f", out, sizeof(out)) == CR_OK,
	      "url_path query only");
	CHECK_STR(o, "/?q");

	CHECK(robots_escape_pattern("/\xe3\x83\x84%e3", out, sizeof(out)) == CR_OK,
	      "escape");
	CHECK_STR(o, "/%E3%83%84%E3");
	CHECK(robots_escape_pattern("/a$b$", out, sizeof(out)) == CR_OK, "escape $");
	CHECK_STR(o, "/a%24b$");
	CHECK(robots_escape_pattern("/%zz%a", out, sizeof(out)) == CR_OK,
	      "escape bad %%");
	CHECK_STR(o, "/%zz%a");
	CHECK(robots_escape_pattern("\xff", out, 3) == CR_ERR_LIMIT, "escape cap");

	CHECK(robots_agent_valid("mpicrawl") == 1, "agent valid");
	CHECK(robots_agent_valid("mpi_crawl-X") == 1, "agent valid 2");
	CHECK(robots_agent_valid("mpicrawl/1.0") == 0, "agent with version");
	CHECK(robots_agent_valid("") == 0 && robots_agent_valid(NULL) == 0,
	      "agent empty");
}

/* ---- conformance ------------------------------------------------------- */

/*
 * A small JSON reader, enough for one object per line: find a key of an
 * object, decode a string (all escapes, \u surrogate pairs to UTF-8), read a
 * boolean. Anything malformed makes the case fail, never crash.
 */
static const char *j_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *j_skip_string(const char *s)
{
	if (*s != '"')
		return NULL;
	for (s++; *s; s++) {
		if (*s == '\\') {
			if (!*++s)
				return NULL;
		} else if (*s == '"') {
			return s + 1;
		}
	}
	return NULL;
}

static const char *j_skip(const char *s)
{
	int depth = 0;

	s = j_ws(s);
	for (;;) {
		if (!*s)
			return NULL;
		if (*s == '"') {
			s = j_skip_string(s);
			if (!s)
				return NULL;
		} else if (*s == '{' || *s == '[') {
			depth++;
			s++;
		} else if (*s == '}' || *s == ']') {
			if (!depth)
				return s;
			depth--;
			s++;
		} else if (*s == ',' && !depth) {
			return s;
		} else {
			s++;
		}
		if (!depth) {
			s = j_ws(s);
			if (*s == ',' || *s == '}' || *s == ']')
				return s;
		}
	}
}

static int j_hex4(const char *s, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static void j_utf8(struct buf *out, unsigned cp)
{
	if (cp < 0x80) {
		buf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		buf_addc(out, (char)(0xC0 | cp >> 6));
		buf_addc(out, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		buf_addc(out, (char)(0xE0 | cp >> 12));
		buf_addc(out, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_addc(out, (char)(0x80 | (cp & 0x3F)));
	} else {
		buf_addc(out, (char)(0xF0 | cp >> 18));
		buf_addc(out, (char)(0x80 | (cp >> 12 & 0x3F)));
		buf_addc(out, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_addc(out, (char)(0x80 | (cp & 0x3F)));
	}
}

/* Decodes the JSON string at s into out (replacing its contents). */
static int j_string(const char *s, struct buf *out)
{
	buf_reset(out);
	if (!s || *s != '"')
		return -1;
	for (s++; *s != '"'; s++) {
		unsigned cp, lo;

		if (!*s || (unsigned char)*s < 0x20)
			return -1;
		if (*s != '\\') {
			buf_addc(out, *s);
			continue;
		}
		switch (*++s) {
		case '"': buf_addc(out, '"'); break;
		case '\\': buf_addc(out, '\\'); break;
		case '/': buf_addc(out, '/'); break;
		case 'b': buf_addc(out, '\b'); break;
		case 'f': buf_addc(out, '\f'); break;
		case 'n': buf_addc(out, '\n'); break;
		case 'r': buf_addc(out, '\r'); break;
		case 't': buf_addc(out, '\t'); break;
		case 'u':
			if (j_hex4(s + 1, &cp))
				return -1;
			s += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (s[1] != '\\' || s[2] != 'u' || j_hex4(s + 3, &lo) ||
				    lo < 0xDC00 || lo > 0xDFFF)
					return -1;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				s += 6;
			} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
				return -1;
			}
			j_utf8(out, cp);
			break;
		default:
			return -1;
		}
	}
	buf_cstr(out);
	return 0;
}

/* The value of key in the object at obj, or NULL. */
static const char *j_get(const char *obj, const char *key)
{
	struct buf k;
	const char *s = j_ws(obj);
	const char *found = NULL;

	if (*s != '{')
		return NULL;
	buf_init(&k);
	s = j_ws(s + 1);
	while (*s == '"') {
		const char *v;

		if (j_string(s, &k))
			break;
		s = j_ws(j_skip_string(s));
		if (*s != ':')
			break;
		v = j_ws(s + 1);
		if (!strcmp((const char *)k.p, key)) {
			found = v;
			break;
		}
		s = j_skip(v);
		if (!s || *s != ',')
			break;
		s = j_ws(s + 1);
	}
	buf_release(&k);
	return found;
}

/* 1 true, 0 false, -1 neither. */
static int j_bool(const char *v)
{
	if (v && !strncmp(v, "true", 4))
		return 1;
	if (v && !strncmp(v, "false", 5))
		return 0;
	return -1;
}

static int j_get_string(const char *obj, const char *key, struct buf *out)
{
	return j_string(j_get(obj, key), out);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b;
	char tmp[65536];
	size_t n;

	if (!f)
		return NULL;
	buf_init(&b);
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	buf_cstr(&b);
	*len = b.len;
	return (char *)b.p;
}

/* Calls fn on each line of dir/name, NUL-terminated in place. */
static int for_each_line(const char *dir, const char *name,
			 void (*fn)(const char *line, void *arg), void *arg)
{
	char path[4096];
	char *text, *line, *nl;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = read_file(path, &len);
	CHECK(text != NULL, "cannot read %s (set CONFORMANCE_DIR)", path);
	if (!text)
		return -1;
	for (line = text; line < text + len; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = text + len;
		*nl = '\0';
		if (*j_ws(line))
			fn(line, arg);
	}
	free(text);
	return 0;
}

struct case_stats {
	int cases, plain, plain_pass, google, google_pass, bad;
	enum robots_escapes esc;
	char differ[256];   /* DECODED: the ids of the plain cases that differ */
};

static void run_allow_case(const char *line, void *arg)
{
	struct case_stats *st = arg;
	struct buf id, body, agent, url;
	struct robots *r = NULL;
	char *path = NULL;
	int want = j_bool(j_get(line, "allowed"));
	int google = j_bool(j_get(line, "google_specific"));
	int got = -1;

	buf_init(&id);
	buf_init(&body);
	buf_init(&agent);
	buf_init(&url);
	st->cases++;
	if (j_get_string(line, "id", &id) || j_get_string(line, "robots", &body) ||
	    j_get_string(line, "agent", &agent) || j_get_string(line, "url", &url) ||
	    want < 0 || google < 0) {
		st->bad++;
		CHECK(0, "robots_cases line %d does not parse", st->cases);
		goto out;
	}
	path = malloc(url.len + 2);
	if (!path || robots_url_path((const char *)url.p, path, url.len + 2) != CR_OK ||
	    robots_parse_with(body.p, body.len, (const char *)agent.p, st->esc, &r) != CR_OK) {
		CHECK(0, "%s: url_path or parse failed", (const char *)id.p);
		goto out;
	}
	got = robots_allowed(r, path);
	if (google) {
		st->google++;
		if (got == want)
			st->google_pass++;
		else if (st->esc == ROBOTS_ESCAPES_KEPT)
			printf("google_specific %s differs: want %s (agent '%s', "
			       "url %.60s%s)\n", (const char *)id.p,
			       want ? "allow" : "deny", (const char *)agent.p,
			       (const char *)url.p, url.len > 60 ? "..." : "");
	} else if (st->esc == ROBOTS_ESCAPES_DECODED) {
		/* the crawler's matching: differences listed, judged by the caller */
		st->plain++;
		if (got == want)
			st->plain_pass++;
		else
			snprintf(st->differ + strlen(st->differ), sizeof(st->differ) -
				 strlen(st->differ), "%s%s", st->differ[0] ? " " : "",
				 (const char *)id.p);
	} else {
		st->plain++;
		if (got == want)
			st->plain_pass++;
		CHECK(got == want, "%s: agent '%s' url '%.80s': want %s",
		      (const char *)id.p, (const char *)agent.p,
		      (const char *)url.p, want ? "allow" : "deny");
	}
out:
	robots_free(&r);
	free(path);
	buf_release(&id);
	buf_release(&body);
	buf_release(&agent);
	buf_release(&url);
}

struct other_stats {
	int agent, url_path, escape, sitemap, skipped;
};

static int hex_decode(const char *hex, struct buf *out)
{
	buf_reset(out);
	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;
		char t[5] = { '0', '0', hex[0], hex[1], 0 };

		if (j_hex4(t, &v))
			return -1;
		buf_addc(out, (char)v);
	}
	return hex[0] ? -1 : 0;
}

static void run_other_case(const char *line, void *arg)
{
	struct other_stats *st = arg;
	struct buf id, type, in, want;
	const char *exp = j_get(line, "expected");

	buf_init(&id);
	buf_init(&type);
	buf_init(&in);
	buf_init(&want);
	if (j_get_string(line, "id", &id) || j_get_string(line, "type", &type)) {
		CHECK(0, "robots_other: a line does not parse");
		goto out;
	}
	if (!strcmp((const char *)type.p, "is_valid_user_agent")) {
		int null_in = j_bool(j_get(line, "input_is_null_string_view")) == 1;
		int w = j_bool(exp);

		if (j_get_string(line, "input", &in) || w < 0) {
			CHECK(0, "%s: does not parse", (const char *)id.p);
			goto out;
		}
		st->agent++;
		CHECK(robots_agent_valid(null_in ? NULL : (const char *)in.p) == w,
		      "%s: agent_valid('%s') want %d", (const char *)id.p,
		      (const char *)in.p, w);
	} else if (!strcmp((const char *)type.p, "get_path_params_query") ||
		   !strcmp((const char *)type.p, "escape_pattern")) {
		int is_path = type.p[0] == 'g';
		char *out;
		enum cr_err e;

		if (j_get_string(line, "input", &in) || j_string(exp, &want)) {
			CHECK(0, "%s: does not parse", (const char *)id.p);
			goto out;
		}
		out = malloc(in.len * 3 + 2);
		if (!out)
			goto out;
		if (is_path) {
			st->url_path++;
			e = robots_url_path((const char *)in.p, out, in.len * 3 + 2);
		} else {
			st->escape++;
			e = robots_escape_pattern((const char *)in.p, out,
						  in.len * 3 + 2);
		}
		CHECK(e == CR_OK && !strcmp(out, (const char *)want.p),
		      "%s: '%s' -> '%s', want '%s'", (const char *)id.p,
		      (const char *)in.p, e == CR_OK ? out : error_str(e),
		      (const char *)want.p);
		free(out);
	} else if (!strcmp((const char *)type.p, "parse_stats") && exp &&
		   j_get(exp, "sitemap")) {
		/* Only the Sitemap value is visible through our API. */
		struct robots *r = NULL;
		struct buf body, all;
		size_t i;
		int bad;

		buf_init(&body);
		buf_init(&all);
		bad = j_get_string(line, "robots_hex", &in) ||
		      hex_decode((const char *)in.p, &body) ||
		      j_get_string(exp, "sitemap", &want) ||
		      robots_parse(body.p, body.len, "foo", &r) != CR_OK;
		buf_release(&body);
		if (bad) {
			CHECK(0, "%s: does not parse", (const char *)id.p);
			buf_release(&all);
			goto out;
		}
		for (i = 0; i < robots_sitemap_count(r); i++)
			buf_adds(&all, robots_sitemap(r, i));
		st->sitemap++;
		CHECK(!strcmp(buf_cstr(&all), (const char *)want.p),
		      "%s: sitemaps '%s', want '%s'", (const char *)id.p,
		      (const char *)all.p, (const char *)want.p);
		buf_release(&all);
		robots_free(&r);
	} else {
		/* parse statistics and per-line reports: no such API here */
		st->skipped++;
	}
out:
	buf_release(&id);
	buf_release(&type);
	buf_release(&in);
	buf_release(&want);
}

static void test_conformance(void)
{
	const char *dir = getenv("CONFORMANCE_DIR");
	struct case_stats cs = { 0 }, dec = { 0 };
	struct other_stats os = { 0, 0, 0, 0, 0 };

	/* the reader itself, on escapes the data files may hold */
	{
		struct buf b;

		buf_init(&b);
		CHECK(j_string("\"a\\u00e1\\ud83d\\ude00\\n\\/\\\"\\t\"", &b) == 0 &&
		      b.len == 11 &&
		      !memcmp(b.p, "a\xc3\xa1\xf0\x9f\x98\x80\n/\"\t", 11),
		      "json string decoder");
		CHECK(j_string("\"\\ud83d\"", &b) == -1, "json lone surrogate");
		CHECK(j_bool(j_get("{\"a\": [1, {\"b\": \"}\"}], \"c\": true}",
				   "c")) == 1, "json skips nested values");
		buf_release(&b);
	}
	if (!dir || !*dir)
		dir = "../shared/conformance";
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/robots_cases.jsonl", dir);
		if (access(path, R_OK) != 0) {
			SKIP(2, "the robots.txt conformance suite is not at %s: set "
			     "CONFORMANCE_DIR to its folder to run it", dir);
			return;
		}
	}
	if (for_each_line(dir, "robots_cases.jsonl", run_allow_case, &cs) == 0) {
		CHECK(cs.cases > 0 && cs.plain > 0 && cs.bad == 0,
		      "robots_cases: %d cases read", cs.cases);
		printf("robots conformance: %d/%d pass (google_specific: false)\n",
		       cs.plain_pass, cs.plain);
		printf("robots google_specific: %d/%d pass\n", cs.google_pass,
		       cs.google);
	}
	/* The crawler decodes unreserved escapes on both sides (RFC 9309 2.2.2):
	 * robots-067 alone wants them kept - the rule /foo/bar/%62%61%7A must
	 * not match /foo/bar/baz, where the RFC's table says it does. */
	dec.esc = ROBOTS_ESCAPES_DECODED;
	if (for_each_line(dir, "robots_cases.jsonl", run_allow_case, &dec) == 0) {
		printf("robots conformance, unreserved escapes decoded: %d/%d pass; differ: %s\n",
		       dec.plain_pass, dec.plain, dec.differ[0] ? dec.differ : "none");
		CHECK(!strcmp(dec.differ, "robots-067"),
		      "decoded escapes differ from the suite in robots-067 only, not '%s'",
		      dec.differ);
	}
	if (for_each_line(dir, "robots_other.jsonl", run_other_case, &os) == 0) {
		CHECK(os.agent > 0 && os.url_path > 0 && os.escape > 0,
		      "robots_other: cases of each type read");
		printf("robots other: %d is_valid_user_agent, %d get_path_params_query, "
		       "%d escape_pattern, %d sitemap checked; %d parse_stats/"
		       "parse_report skipped\n", os.agent, os.url_path, os.escape,
		       os.sitemap, os.skipped);
	}
}

int main(void)
{
	test_allow_table();
	test_crawl_delay();
	test_sitemaps();
	test_size_cap();
	test_many_stars();
	test_misc();
	test_conformance();
	TEST_DONE();
}

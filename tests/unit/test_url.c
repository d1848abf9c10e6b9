#include "test.h"
#include "url/url.h"

static const struct {
	const char *base, *href, *want; /* want NULL: must fail */
} cases[] = {
	{ NULL, "http://Example.COM/a/../b/./c", "http://example.com/b/c" },
	{ NULL, "HTTP://EXAMPLE.com:80/", "http://example.com/" },
	{ NULL, "https://example.com:443/x#frag", "https://example.com/x" },
	{ NULL, "https://example.com:8443/x?", "https://example.com:8443/x" },
	{ NULL, "http://example.com", "http://example.com/" },
	{ NULL, "http://user:pw@example.com/p", "http://example.com/p" },
	{ NULL, "http://example.com./p", "http://example.com/p" },
	{ NULL, "http://example.com/%7euser/%2f%41", "http://example.com/~user/%2FA" },
	{ NULL, "  http://example.com/a\tb\n ", "http://example.com/ab" },
	{ "http://h.test:8080/p/x.html", "y.html", "http://h.test:8080/p/y.html" },
	{ "http://h.test:8080/p/x.html", "../q/y.html", "http://h.test:8080/q/y.html" },
	{ "http://h.test:8080/p/x.html", "/a?b=1#c", "http://h.test:8080/a?b=1" },
	{ "http://h.test:8080/p/x.html", "#only", "http://h.test:8080/p/x.html" },
	{ "http://h.test:8080/p/x.html", "//other.test/z", "http://other.test/z" },
	{ "http://h.test/p/x.html", "?q=2", "http://h.test/p/x.html?q=2" },
	{ "http://h.test/p/x.html", "a b.html", "http://h.test/p/a%20b.html" },
	{ "http://h.test/", "mailto:x@y.z", NULL },
	{ "http://h.test/", "javascript:void(0)", NULL },
	{ "http://h.test/", "ftp://h.test/file", NULL },
	{ NULL, "file:///etc/passwd", NULL },
	{ NULL, "relative/only", NULL },
	{ NULL, "", NULL },
	{ NULL, "http://", NULL },
};

int main(void)
{
	size_t i;
	char out[URL_MAX_LEN + 1], host[URL_HOST_MAX];
	const char *reason;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum cr_err e = url_canon(cases[i].base, cases[i].href, out,
					  sizeof(out), &reason);
		if (cases[i].want)
			CHECK(e == CR_OK && !strcmp(out, cases[i].want),
			      "case %zu '%s': got '%s' (%s), want '%s'", i, cases[i].href,
			      e == CR_OK ? out : "-", e == CR_OK ? "ok" : reason,
			      cases[i].want);
		else
			CHECK(e != CR_OK, "case %zu '%s' should fail, got '%s'", i,
			      cases[i].href, out);
	}
	CHECK(url_resolve("http://h.test/a", "b#frag", out, sizeof(out), &reason) == CR_OK &&
	      !strcmp(out, "http://h.test/b#frag"), "resolve keeps fragment: %s", out);
	CHECK(url_host("http://h.test:8080/x", host, sizeof(host)) == CR_OK &&
	      !strcmp(host, "h.test"), "host");
	CHECK(url_host("http://[::1]:8080/x", host, sizeof(host)) == CR_OK &&
	      !strcmp(host, "[::1]"), "ipv6 host %s", host);
	CHECK(url_authority("http://h.test:8080/x", host, sizeof(host)) == CR_OK &&
	      !strcmp(host, "h.test:8080"), "authority");
	CHECK_STR(url_path("http://h.test:8080/x?y=1"), "/x?y=1");
	CHECK_STR(url_path("http://h.test"), "/");
	{
		char longurl[URL_MAX_LEN + 100];
		memset(longurl, 'a', sizeof(longurl));
		memcpy(longurl, "http://h.test/", 14);
		longurl[sizeof(longurl) - 1] = 0;
		CHECK(url_canon(NULL, longurl, out, sizeof(out), &reason) == CR_ERR_LIMIT,
		      "over-long url is a limit");
	}
	TEST_DONE();
}

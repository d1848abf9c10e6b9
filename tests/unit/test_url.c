#include "test.h"
#include "config/config.h"
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
	/* WHATWG forms */
	{ NULL, "http://bücher.example/", "http://xn--bcher-kva.example/" },
	{ NULL, "http://B%C3%BCcher.Example/", "http://xn--bcher-kva.example/" },
	{ NULL, "http:\\\\h.test\\a\\b", "http://h.test/a/b" },
	{ NULL, "http:h.test/a", "http://h.test/a" },
	{ "https://h.test/d/e", "https:x", "https://h.test/d/x" },
	{ "http://h.test/d/e", "https:x", "https://x/" },
	{ NULL, "http://0x7f.1/", "http://127.0.0.1/" },
	{ NULL, "http://0300.0250.0.1/", "http://192.168.0.1/" },
	{ NULL, "http://3232235521/", "http://192.168.0.1/" },
	{ NULL, "http://1.2.3.256/", NULL },
	{ NULL, "http://[0:0:0:0:0:0:0:1]:8080/", "http://[::1]:8080/" },
	{ NULL, "http://h.test:65536/", NULL },
	{ NULL, "http://h.test:8x/", NULL },
	{ NULL, "http://a<b/", NULL },
	{ NULL, "http://ho%2Fst/", NULL },
	{ NULL, "http://h.test/a/%2e%2E/b", "http://h.test/b" },
	{ NULL, "http://h.test/\"q\"?'x'", "http://h.test/%22q%22?%27x%27" },
	/* tracking and session parameters */
	{ NULL, "http://h.test/?utm_source=a&x=1&UTM_Medium=b&fbclid=c",
	  "http://h.test/?x=1" },
	{ NULL, "http://h.test/a?gclid=1&msclkid=2", "http://h.test/a" },
	{ NULL, "http://h.test/a;jsessionid=0A1B?x=1", "http://h.test/a?x=1" },
	{ NULL, "http://h.test/a;JSESSIONID=0A1B;v=2/b", "http://h.test/a;v=2/b" },
	{ NULL, "http://h.test/?PHPSESSID=1&sid=2&SessionId=3&jsessionid=4&k=v",
	  "http://h.test/?k=v" },
	{ NULL, "http://h.test/?ASPSESSIONIDQQ=1", "http://h.test/" },
	{ NULL, "http://h.test/?side=1&sidx=2", "http://h.test/?side=1&sidx=2" },
};

/* Each rule with its default and switched. */
static void rules_on_off(void)
{
	static const struct {
		const char *set, *href, *want;
	} rc[] = {
		{ "url.drop_fragment=false", "http://h.test/a#F%7e", "http://h.test/a#F~" },
		{ "url.drop_userinfo=false", "http://u:p@h.test/", "http://u:p@h.test/" },
		{ "url.default_port=false", "https://h.test:443/", "https://h.test:443/" },
		{ "url.default_port=false", "http://h.test/", "http://h.test/" },
		{ "url.drop_trailing_dot=false", "http://h.test./", "http://h.test./" },
		{ "url.dot_segments=false", "http://h.test/a/./b/../c/%2e",
		  "http://h.test/a/./b/../c/%2E" },
		{ "url.normalize_escapes=false", "http://h.test/%7e%2f", "http://h.test/%7e%2f" },
		{ "url.drop_empty_query=false", "http://h.test/a?", "http://h.test/a?" },
		{ "url.drop_empty_query=false", "http://h.test/a?utm_id=1", "http://h.test/a" },
		{ "url.strip_params=", "http://h.test/?utm_source=a", "http://h.test/?utm_source=a" },
		{ "url.strip_params=ref,x*", "http://h.test/?REF=1&xy=2&utm_a=3&y=4",
		  "http://h.test/?utm_a=3&y=4" },
		{ "url.strip_session_ids=false", "http://h.test/a;jsessionid=1?sid=2",
		  "http://h.test/a;jsessionid=1?sid=2" },
		{ "url.sort_query=true", "http://h.test/?b=2&a=9&a=1&c",
		  "http://h.test/?a=1&a=9&b=2&c" },
		{ "url.max_length=20", "http://h.test/abcdef", "http://h.test/abcdef" },
		{ "url.max_length=20", "http://h.test/abcdefg", NULL },
	};
	struct config c;
	struct url_rules r, d;
	char out[URL_MAX_LEN + 1];
	const char *reason;
	size_t i;

	config_defaults(&c);
	url_rules_from_config(&c, &r);
	url_rules_default(&d);
	CHECK(!memcmp(&r, &d, sizeof(r)), "config defaults are url_rules_default");
	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++) {
		enum cr_err e;

		config_defaults(&c);
		CHECK(config_set_kv(&c, rc[i].set) == CR_OK, "set %s", rc[i].set);
		url_configure(&c);
		e = url_canon(NULL, rc[i].href, out, sizeof(out), &reason);
		if (rc[i].want)
			CHECK(e == CR_OK && !strcmp(out, rc[i].want), "%s '%s': got '%s', want '%s'",
			      rc[i].set, rc[i].href, e == CR_OK ? out : reason, rc[i].want);
		else
			CHECK(e == CR_ERR_LIMIT, "%s '%s' should be too long", rc[i].set,
			      rc[i].href);
	}
	url_set_rules(NULL);
	/* resolution ignores the rules */
	CHECK(url_resolve(NULL, "http://u@h.test:80/a/../b?#f", out, sizeof(out), &reason) ==
	      CR_OK && !strcmp(out, "http://u@h.test/b?#f"), "resolve: %s", out);
	CHECK(url_resolve_n(NULL, "http://h.test/a\0b", 17, out, sizeof(out), &reason) ==
	      CR_OK && !strcmp(out, "http://h.test/a%00b"), "resolve_n NUL: %s", out);
}

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
	/* Port 0 is a valid URL (resolved as is), but not one to crawl. */
	CHECK(url_canon(NULL, "http://h.test:0/", out, sizeof(out), &reason) == CR_ERR_FORMAT &&
	      !strcmp(reason, "port 0"), "port 0 refused");
	CHECK(url_resolve(NULL, "http://h.test:0/", out, sizeof(out), &reason) == CR_OK &&
	      !strcmp(out, "http://h.test:0/"), "port 0 resolved: %s", out);
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
		static const struct { const char *u; int root; } roots[] = {
			{ "http://h.test/", 1 }, { "https://h.test:8443/", 1 },
			{ "http://[::1]:80/", 1 }, { "http://h.test/?q=1", 0 },
			{ "http://h.test/a", 0 }, { "http://h.test//", 0 },
			{ "http://h.test", 0 }, { "h.test/", 0 }, { "", 0 },
		};
		for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++)
			CHECK(url_is_root(roots[r].u, strlen(roots[r].u)) == roots[r].root,
			      "url_is_root(%s)", roots[r].u);
		CHECK(url_is_root("http://h.test/a", 14), "url_is_root reads len bytes");
	}
	{
		char longurl[URL_MAX_LEN + 100];
		memset(longurl, 'a', sizeof(longurl));
		memcpy(longurl, "http://h.test/", 14);
		longurl[sizeof(longurl) - 1] = 0;
		CHECK(url_canon(NULL, longurl, out, sizeof(out), &reason) == CR_ERR_LIMIT,
		      "over-long url is a limit");
	}
	{
		/* just at and just over url.max_length */
		char u[URL_MAX_LEN + 2];
		size_t n = URL_MAX_LEN;

		memset(u, 'a', n);
		memcpy(u, "http://h.test/", 14);
		u[n] = 0;
		CHECK(url_canon(NULL, u, out, sizeof(out), &reason) == CR_OK, "2048 bytes fit");
		u[n] = 'a';
		u[n + 1] = 0;
		CHECK(url_canon(NULL, u, out, sizeof(out), &reason) == CR_ERR_LIMIT &&
		      !strcmp(reason, "too long"), "2049 bytes are too long");
	}
	rules_on_off();
	TEST_DONE();
}

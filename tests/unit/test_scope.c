#include "test.h"
#include "scope/host_rules.h"
#include "scope/rules.h"
#include "scope/scope.h"
#include "scope/seeds.h"
#include "url/surt.h"
#include "crawldb/link_record.h"
#include "url/url.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void surt_forms(void)
{
	static const char *const cases[][2] = {
		{ "http://www.example.org/docs/a.html", "http://(org,example,www,)/docs/a.html" },
		{ "https://example.org:8443/", "http://(org,example,:8443)/" },
		{ "http://127.0.0.1:8080/x?y=1", "http://(127.0.0.1:8080)/x?y=1" },
		{ "http://[::1]:81/", "http://([::1]:81)/" },
		{ "http://example.org", "http://(org,example,)/" },
		{ "http://a.b.c.d.e/", "http://(e,d,c,b,a,)/" },
	};
	char out[256];
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(surt_from_url(cases[i][0], strlen(cases[i][0]), out, sizeof(out)) == CR_OK,
		      "%s", cases[i][0]);
		CHECK(!strcmp(out, cases[i][1]), "got %s", out);
	}
	CHECK(surt_from_url("nohost", 6, out, sizeof(out)) == CR_ERR_FORMAT, "no scheme");
	CHECK(surt_from_url("http://a.test/x", 15, out, 10) == CR_ERR_LIMIT, "too small");
	CHECK(surt_prefix("(org,example,", out, sizeof(out), &why) == CR_OK, "bare");
	CHECK(!strcmp(out, "http://(org,example,"), "got %s", out);
	CHECK(surt_prefix("HTTPS://(ORG,Example,)/Docs/", out, sizeof(out), &why) == CR_OK, "https");
	CHECK(!strcmp(out, "http://(org,example,)/Docs/"), "got %s", out);
	CHECK(surt_prefix("ftp://(org,example,", out, sizeof(out), &why) == CR_OK, "other scheme");
	CHECK(!strcmp(out, "ftp://(org,example,"), "got %s", out);
	CHECK(surt_prefix("^http://x", out, sizeof(out), &why) == CR_ERR_FORMAT, "a regex");
	CHECK(!surt_is_prefix("http://(a|b)\\.org/"), "a regex with a group is not a SURT");
	CHECK(!surt_is_prefix("(a+)+b"), "nor is one that starts with a group");
	CHECK(surt_is_prefix("http://(org,"), "a domain prefix");
}

/* The verdict of rules text on url. */
static enum rule_verdict verdict(const char *rules, const char *url, unsigned *line)
{
	struct scope_rules *r = NULL;
	char err[256], surt[URL_MAX_LEN + 64];
	enum rule_verdict v;

	if (scope_rules_parse(rules, strlen(rules), "t", &r, err, sizeof(err)) != CR_OK) {
		printf("# parse failed: %s\n", err);
		return (enum rule_verdict)-1;
	}
	if (surt_from_url(url, strlen(url), surt, sizeof(surt)) != CR_OK)
		surt[0] = '\0';
	v = scope_rules_match(r, url, strlen(url), surt[0] ? surt : NULL, line);
	scope_rules_free(&r);
	return v;
}

/* Heritrix's conventions: a SURT prefix ending in ',' covers the domain and
 * its subdomains; one ending in ')/path' one host's path; https is http. */
static void surt_rules(void)
{
	static const struct {
		const char *rules, *url;
		enum rule_verdict want;
		unsigned line;
	} cases[] = {
		{ "+http://(org,example,\n", "http://example.org/", RULE_ACCEPT, 1 },
		{ "+http://(org,example,\n", "http://www.example.org/x", RULE_ACCEPT, 1 },
		{ "+http://(org,example,\n", "https://sub.example.org/", RULE_ACCEPT, 1 },
		{ "+http://(org,example,\n", "http://notexample.org/", RULE_NONE, 0 },
		{ "+http://(org,example,\n", "http://example.organic.com/", RULE_NONE, 0 },
		{ "+http://(org,example,)/docs/\n", "http://example.org/docs/x", RULE_ACCEPT, 1 },
		{ "+http://(org,example,)/docs/\n", "http://www.example.org/docs/", RULE_NONE, 0 },
		{ "+http://(org,example,)/docs/\n", "http://example.org/doc", RULE_NONE, 0 },
		{ "+http://(org,example,)/docs/\n", "http://example.org:81/docs/", RULE_NONE, 0 },
		{ "-http://(org,example,)/private/\n+http://(org,example,\n",
		  "http://example.org/private/1", RULE_REFUSE, 1 },
		{ "-http://(org,example,)/private/\n+http://(org,example,\n",
		  "http://example.org/public/1", RULE_ACCEPT, 2 },
		{ "# comment\n\n(org,example,\n", "http://a.example.org/", RULE_ACCEPT, 3 },
		{ "-http://(com,\n", "http://shop.example.com/", RULE_REFUSE, 1 },
		{ "+http://(127.0.0.1:8080)/\n", "http://127.0.0.1:8080/x", RULE_ACCEPT, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned line = 99;
		enum rule_verdict v = verdict(cases[i].rules, cases[i].url, &line);

		CHECK(v == cases[i].want && line == cases[i].line,
		      "case %zu %s: verdict %d line %u, want %d line %u", i, cases[i].url, v,
		      line, cases[i].want, cases[i].line);
	}
}

/* Nutch's regex-urlfilter: patterns searched anywhere, first match wins. */
static void regex_rules(void)
{
	static const char nutch[] =
		"# skip file: ftp: and mailto: urls\n"
		"-^(file|ftp|mailto):\n"
		"-\\.(gif|GIF|jpg|JPG|png|PNG|ico|ICO|css|CSS|zip|ZIP|gz|GZ|exe|EXE|js|JS)$\n"
		"-[?*!@=]\n"
		"-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n"
		"+^https?://([a-z0-9-]+\\.)*example\\.org/\n";
	static const struct {
		const char *url;
		enum rule_verdict want;
		unsigned line;
	} cases[] = {
		{ "http://example.org/a.png", RULE_REFUSE, 3 },
		{ "http://example.org/p?x=1", RULE_REFUSE, 4 },
		{ "http://example.org/a/b/a/c/a/d", RULE_REFUSE, 5 },
		{ "http://example.org/page.html", RULE_ACCEPT, 6 },
		{ "https://www.example.org/", RULE_ACCEPT, 6 },
		{ "http://example.com/page.html", RULE_NONE, 0 },
	};
	size_t i;
	unsigned line;
	struct timespec t0, t1;
	char url[300];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum rule_verdict v = verdict(nutch, cases[i].url, &line);

		CHECK(v == cases[i].want && line == cases[i].line, "%s: verdict %d line %u",
		      cases[i].url, v, line);
	}
	/* A pattern that backtracks without end stops at the match limit. */
	snprintf(url, sizeof(url), "http://a.test/%0200d!", 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(verdict("-(0|00)+$\n", url, &line) == RULE_LIMIT, "catastrophic pattern: limit");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) < 2, "the limit is reached quickly");
}

static void parse_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "+ok\n+[\n", "t:2: bad regex" },
		{ "example.org\n", "t:1: a rule starts with" },
		{ "+\n", "t:1: a rule without a pattern" },
		{ "+a\n-b\nc\0d\n", "t:3: not a text file" },
	};
	struct scope_rules *r = NULL;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].text);

		if (i == 3)
			n = 13;
		err[0] = '\0';
		CHECK(scope_rules_parse(cases[i].text, n, "t", &r, err, sizeof(err)) == CR_ERR_ARG &&
		      !strncmp(err, cases[i].want, strlen(cases[i].want)),
		      "case %zu: '%s'", i, err);
		CHECK(r == NULL, "nothing on error");
	}
	CHECK(scope_rules_parse("", 0, "t", &r, err, sizeof(err)) == CR_OK &&
	      scope_rules_count(r) == 0, "an empty file is no rules");
	scope_rules_free(&r);
}

static void modes(void)
{
	static const char *const seeds[] = { "http://www.example.org/", "http://news.example.co.uk/" };
	static const struct {
		int mode;
		const char *url, *want;
	} cases[] = {
		{ SCOPE_SEEDS_DOMAINS, "http://example.org/", NULL },
		{ SCOPE_SEEDS_DOMAINS, "http://blog.example.org/x", NULL },
		{ SCOPE_SEEDS_DOMAINS, "https://example.co.uk/x", NULL },
		{ SCOPE_SEEDS_DOMAINS, "http://other.co.uk/", "scope:mode" },
		{ SCOPE_SEEDS_DOMAINS, "http://example.com/", "scope:mode" },
		{ SCOPE_SEEDS_HOSTS, "http://www.example.org:8080/x", NULL },
		{ SCOPE_SEEDS_HOSTS, "https://www.example.org/", NULL },
		{ SCOPE_SEEDS_HOSTS, "http://example.org/", "scope:mode" },
		{ SCOPE_ANY, "http://anything.test/", NULL },
	};
	struct scope s;
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got;

		scope_init(&s, cases[i].mode);
		for (k = 0; k < 2; k++)
			CHECK(scope_add_seed(&s, seeds[k], strlen(seeds[k]), NULL) == CR_OK, "seed");
		got = scope_reason(scope_check(&s, cases[i].url, strlen(cases[i].url)));
		CHECK(cases[i].want ? got && !strcmp(got, cases[i].want) : !got, "%s: got %s",
		      cases[i].url, got ? got : "in scope");
		scope_release(&s);
	}
	/* Rules first: a '-' refuses inside the seeds' domain, a '+' accepts
	 * outside it. */
	scope_init(&s, SCOPE_SEEDS_DOMAINS);
	CHECK(scope_add_seed(&s, seeds[0], strlen(seeds[0]), NULL) == CR_OK, "seed");
	{
		static const char rules[] =
			"-http://(org,example,www,)/private/\n+http://(com,partner,\n";
		char err[128];

		CHECK(scope_rules_parse(rules, strlen(rules), "t", &s.rules, err, sizeof(err)) ==
		      CR_OK, "rules");
	}
	CHECK_STR(scope_reason(scope_check(&s, "http://www.example.org/private/x", 32)), "scope:rules");
	CHECK(!scope_check(&s, "http://shop.partner.com/", 24), "a + rule outside the seeds");
	CHECK_STR(scope_reason(scope_check(&s, "http://other.com/", 17)), "scope:mode");
	CHECK(!scope_check_rules(&s, "http://other.com/", 17), "no rule refuses it");
	scope_release(&s);
	/* No recorded seed: the mode has nothing to compare with. */
	scope_init(&s, SCOPE_SEEDS_HOSTS);
	CHECK(!scope_check(&s, "http://any.test/", 16), "no seeds: any");
	scope_release(&s);
	CHECK_STR(scope_domain("a.b.example.co.uk"), "example.co.uk");
	CHECK_STR(scope_domain("127.0.0.1"), "127.0.0.1");
	CHECK_STR(scope_domain("h0001.sim.test"), "sim.test");
}

/* A link is judged by the settings of the seed it was reached from. */
static void per_seed(void)
{
	static const char *const a = "http://www.a.example/", *const b = "http://b.example/";
	struct seed_settings sa = { -1, 2, SCOPE_SEEDS_HOSTS, 0, 1 };
	static const struct {
		const char *url;
		int from_a;
		uint32_t depth;
		const char *want;
	} cases[] = {
		{ "http://www.a.example/x", 1, 2, NULL },
		{ "http://www.a.example/x", 1, 3, "depth" },
		{ "http://blog.a.example/x", 1, 1, "scope:seed" },       /* a: its host only */
		{ "http://blog.a.example/x", 0, 1, NULL },               /* b: scope.mode (domains) */
		{ "http://www.b.example/x", 0, 9, NULL },
		{ "http://c.example/x", 0, 1, "scope:mode" },
		{ "http://www.a.example/private/x", 1, 1, "scope:rules" }, /* rules before seeds */
	};
	struct scope s;
	char err[128];
	size_t i;

	scope_init(&s, SCOPE_SEEDS_DOMAINS);
	CHECK(scope_add_seed(&s, a, strlen(a), &sa) == CR_OK &&
	      scope_add_seed(&s, b, strlen(b), NULL) == CR_OK, "seeds");
	CHECK(scope_rules_parse("-http://(example,a,www,)/private/\n", 34, "t", &s.rules, err,
				sizeof(err)) == CR_OK, "rules: %s", err);
	CHECK(scope_seed_of(&s, seeds_id(a, strlen(a))) &&
	      scope_seed_of(&s, seeds_id(a, strlen(a)))->set.max_depth == 2, "seed a found");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct link_record l = { .url = cases[i].url, .url_len = strlen(cases[i].url),
					 .depth = cases[i].depth };
		const char *got;

		l.seed = cases[i].from_a ? seeds_id(a, strlen(a)) : seeds_id(b, strlen(b));
		got = scope_reason(scope_check_link(&s, &l));
		CHECK(cases[i].want ? got && !strcmp(got, cases[i].want) : !got, "%s (%s): %s",
		      cases[i].url, cases[i].from_a ? "a" : "b", got ? got : "in scope");
	}
	scope_release(&s);
}

static void seed_lines(void)
{
	static const struct {
		const char *line;
		int first, want;
		const char *url, *settings;
	} rows[] = {
		{ "\xef\xbb\xbf  http://a.test/\tmax_pages=5\r\n", 1, 1, "http://a.test/",
		  "max_pages=5" },
		{ "  # comment\n", 0, 0, NULL, NULL },
		{ "http://a.test/   \n", 0, 1, "http://a.test/", "" },
		{ "http://a.test/ # a note\n", 0, 1, "http://a.test/", "" },
		{ "http://a.test/#frag\n", 0, 1, "http://a.test/#frag", "" },
		{ "http://a.test/\tmax_pages=5 # a note\n", 0, 1, "http://a.test/",
		  "max_pages=5" },
		{ "http://a.test/\t# only a note\n", 0, 1, "http://a.test/", "" },
		/* text after a blank is a comment or an error, never the URL's */
		{ "http://a.test/a b\n", 0, -1, NULL, NULL },
		{ "http://a.test/ note\n", 0, -1, NULL, NULL },
	};
	char line[128], *url, *settings;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int got;

		snprintf(line, sizeof(line), "%s", rows[i].line);
		url = settings = NULL;
		why = NULL;
		got = seeds_split(line, strlen(line), rows[i].first, &url, &settings, &why);
		CHECK(got == rows[i].want, "seed line %zu: %d", i, got);
		if (got == 1)
			CHECK(!strcmp(url, rows[i].url) && !strcmp(settings, rows[i].settings),
			      "seed line %zu: '%s' '%s'", i, url, settings);
		if (got < 0)
			CHECK(why && strstr(why, "text after the URL"), "seed line %zu: why", i);
	}
	memcpy(line, "http://a.test/x\0evil\n", 21);
	CHECK(seeds_split(line, 21, 0, &url, &settings, &why) == -1 && strstr(why, "NUL"),
	      "a NUL byte: no seed");
	CHECK(seeds_check_settings("") == NULL, "no settings");
	CHECK(seeds_check_settings("bogus=1") != NULL, "an unknown setting");
	{
		static const struct {
			const char *text;
			int ok;
			long max_pages, max_depth;
			int scope, sitemap;
		} cases[] = {
			{ "max_pages=500", 1, 500, -1, -1, 0 },
			{ "max_pages=500\tmax_depth=3\tscope=host", 1, 500, 3, SCOPE_SEEDS_HOSTS, 0 },
			{ " scope=domain \t max_depth=0 ", 1, -1, 0, SCOPE_SEEDS_DOMAINS, 0 },
			{ "scope=any\tkind=sitemap", 1, -1, -1, SCOPE_ANY, 1 },
			{ "max_pages=0", 0, 0, 0, 0, 0 },
			{ "max_pages=-3", 0, 0, 0, 0, 0 },
			{ "max_pages=lots", 0, 0, 0, 0, 0 },
			{ "scope=site", 0, 0, 0, 0, 0 },
			{ "max_depth", 0, 0, 0, 0, 0 },
			{ "kind=feed", 0, 0, 0, 0, 0 },
		};
		size_t k;

		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			struct seed_settings ss;
			const char *bad = seeds_parse_settings(cases[k].text, &ss);

			CHECK(cases[k].ok ? !bad && ss.max_pages == cases[k].max_pages &&
					    ss.max_depth == cases[k].max_depth &&
					    ss.scope == cases[k].scope && ss.sitemap == cases[k].sitemap
					  : bad != NULL, "settings '%s': %s", cases[k].text,
			      bad ? bad : "ok");
		}
	}
}

/* The one seed-file reader: what each line becomes, and a rank's share. */
static void seed_reader(void)
{
	static const char file[] =
		"\xef\xbb\xbfhttps://A.example/x  # the first line, a BOM\n"
		"\n"
		"# a comment\n"
		"sitemap:https://b.example/sm.xml\tscore=2\n"
		"https://c.example/ trailing words\n"
		"https://d.example/\tmax_pages=0\n"
		"ftp://e.example/\n"
		"https://f.example/\tkind=sitemap\tmax_depth=3\n";
	static const struct {
		uint64_t lineno;
		const char *url;   /* NULL: no seed */
		int bad_line, sitemap;
		const char *settings;
	} want[] = {
		{ 1, "https://a.example/x", 0, 0, "" },
		{ 4, "https://b.example/sm.xml", 0, 1, "score=2\tkind=sitemap" },
		{ 5, NULL, 1, 0, "" },
		{ 6, NULL, 0, 0, "max_pages=0" },
		{ 7, NULL, 0, 0, "" },
		{ 8, "https://f.example/", 0, 1, "kind=sitemap\tmax_depth=3" },
	};
	char path[] = "/tmp/mpicrawl-seeds-XXXXXX";
	int fd = mkstemp(path);
	struct seeds_reader rd;
	struct seed_line l;
	size_t i, k;

	CHECK(fd >= 0 && write(fd, file, sizeof(file) - 1) == (ssize_t)sizeof(file) - 1,
	      "write %s", path);
	close(fd);
	CHECK(seeds_reader_open(&rd, path, 1, 0) == CR_OK, "open");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK(seeds_reader_next(&rd, &l) == CR_OK, "line %zu read", i);
		CHECK(l.lineno == want[i].lineno, "row %zu: line %llu", i,
		      (unsigned long long)l.lineno);
		CHECK(want[i].url ? !l.why && !strcmp(l.url, want[i].url) : l.why != NULL,
		      "row %zu: %s %s", i, l.why ? l.why : "seed", l.why ? "" : l.url);
		CHECK(l.bad_line == want[i].bad_line, "row %zu: bad line %d", i, l.bad_line);
		CHECK(l.set.sitemap == want[i].sitemap && !strcmp(l.settings, want[i].settings),
		      "row %zu: sitemap %d settings '%s'", i, l.set.sitemap, l.settings);
	}
	CHECK(seeds_reader_next(&rd, &l) == CR_EOF && rd.lineno == 8, "the end, 8 lines");
	seeds_reader_close(&rd);
	/* Three ranks' shares: every line once, lines 1, 4 and 7 to rank 0. */
	for (k = 0; k < 3; k++) {
		int n = 0;

		CHECK(seeds_reader_open(&rd, path, 3, k) == CR_OK, "open share %zu", k);
		while (seeds_reader_next(&rd, &l) == CR_OK) {
			CHECK((l.lineno - 1) % 3 == k, "share %zu got line %llu", k,
			      (unsigned long long)l.lineno);
			n++;
		}
		CHECK(n == (k == 0 ? 3 : k == 1 ? 2 : 1), "share %zu: %d lines", k, n);
		seeds_reader_close(&rd);
	}
	CHECK(seeds_reader_open(&rd, "/nonexistent/seeds", 1, 0) == CR_ERR_IO, "no file");
	unlink(path);
}

static void host_rule_table(void)
{
	static const char text[] =
		"# the operator's word\n"
		"partner.example.org  max_in_flight=4 delay_ms=250\n"
		"*.ads.example block\n"
		"slow.ads.example delay_ms=9000   # a later, narrower rule: the first wins\n"
		"big.example.net max_per_host=100000\n"
		"203.0.113.0/24 block\n"
		"198.51.100.7 delay_ms=2000\n"
		"2001:db8::/32 block\n";
	static const struct {
		const char *host, *addr;
		int name_hit, block;
		long delay, inflight, per_host;
		unsigned line;
	} cases[] = {
		{ "partner.example.org", NULL, 1, 0, 250, 4, -1, 2 },
		{ "www.partner.example.org", NULL, 0, 0, -1, -1, -1, 0 },
		{ "ads.example", NULL, 1, 1, -1, -1, -1, 3 },
		{ "x.y.ads.example", NULL, 1, 1, -1, -1, -1, 3 },
		{ "slow.ads.example", NULL, 1, 1, -1, -1, -1, 3 },
		{ "notads.example", NULL, 0, 0, -1, -1, -1, 0 },
		{ "big.example.net", NULL, 1, 0, -1, -1, 100000, 5 },
		{ NULL, "203.0.113.9", 1, 1, -1, -1, -1, 6 },
		{ NULL, "203.0.114.9", 0, 0, -1, -1, -1, 0 },
		{ NULL, "198.51.100.7", 1, 0, 2000, -1, -1, 7 },
		{ NULL, "2001:db8::1", 1, 1, -1, -1, -1, 8 },
	};
	struct host_rules *r = NULL;
	char err[256];
	size_t i;

	CHECK(host_rules_parse(text, strlen(text), "h", &r, err, sizeof(err)) == CR_OK,
	      "parse: %s", err);
	CHECK(host_rules_max_in_flight(r) == 4, "the highest max_in_flight");
	for (i = 0; r && i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct host_settings s;
		int hit = cases[i].host ? host_rules_by_name(r, cases[i].host, &s)
					: host_rules_by_addr(r, cases[i].addr, &s);

		CHECK(hit == cases[i].name_hit && s.block == cases[i].block &&
		      s.delay_ms == cases[i].delay && s.max_in_flight == cases[i].inflight &&
		      s.max_per_host == cases[i].per_host && s.line == cases[i].line,
		      "%s: hit %d block %d delay %ld inflight %ld per_host %ld line %u",
		      cases[i].host ? cases[i].host : cases[i].addr, hit, s.block, s.delay_ms,
		      s.max_in_flight, s.max_per_host, s.line);
	}
	host_rules_free(&r);
	{
		static const struct {
			const char *text, *want;
		} bad[] = {
			{ "a.example\n", "h:1: a pattern without an action" },
			{ "a.example slow\n", "h:1: an unknown action" },
			{ "a.example delay_ms=-1\n", "h:1: a value out of range" },
			{ "ok.example block\na..example block\n", "h:2: a bad host name" },
			{ "10.0.0.0/99 block\n", "h:1: a bad address or CIDR range" },
			{ "*. block\n", "h:1: a bad domain after" },
		};

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			err[0] = '\0';
			CHECK(host_rules_parse(bad[i].text, strlen(bad[i].text), "h", &r, err,
					       sizeof(err)) == CR_ERR_ARG &&
			      !strncmp(err, bad[i].want, strlen(bad[i].want)) && !r,
			      "bad %zu: '%s'", i, err);
		}
	}
}

int main(void)
{
	surt_forms();
	surt_rules();
	regex_rules();
	parse_errors();
	modes();
	seed_lines();
	seed_reader();
	per_seed();
	host_rule_table();
	TEST_DONE();
}

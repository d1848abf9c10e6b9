#include "parse/sitemap.h"
#include "test.h"

#include <stdlib.h>

#define MAXE 64

struct got {
	struct sitemap_entry e[MAXE];
	size_t n;
};

static int keep(void *arg, const struct sitemap_entry *e)
{
	struct got *g = arg;

	if (g->n < MAXE)
		g->e[g->n] = *e;
	g->n++;
	return 0;
}

static void parse(const char *body, int cut, struct got *g, struct sitemap_stats *st)
{
	memset(g, 0, sizeof(*g));
	sitemap_parse(body, strlen(body), cut, "https://example.org/maps/sitemap.xml", keep, g, st);
}

static void times(void)
{
	static const struct {
		const char *s;
		int64_t want;
	} cases[] = {
		{ "2024-03-01", 1709251200LL * 1000000 },
		{ "2024-03", 1709251200LL * 1000000 },
		{ "2024", 1704067200LL * 1000000 },
		{ "2024-03-01T10:00Z", (1709251200LL + 36000) * 1000000 },
		{ "2024-03-01T10:00:30+02:00", (1709251200LL + 36030 - 7200) * 1000000 },
		{ "2024-03-01T10:00:30.5-01:30", (1709251200LL + 36030 + 5400) * 1000000 + 500000 },
		{ " 2024-03-01 ", 1709251200LL * 1000000 },
		{ "2024-13-01", -1 },
		{ "2024-03-01T10:00", -1 },     /* a time needs its zone */
		{ "yesterday", -1 },
		{ "2024-03-01junk", -1 },
		{ "", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(sitemap_w3c_time(cases[i].s) == cases[i].want, "'%s': %lld", cases[i].s,
		      (long long)sitemap_w3c_time(cases[i].s));
	CHECK(sitemap_changefreq(" Daily ") == CHANGEFREQ_DAILY, "daily");
	CHECK(sitemap_changefreq("never") == CHANGEFREQ_NEVER, "never");
	CHECK(sitemap_changefreq("fortnightly") == CHANGEFREQ_NONE, "unknown");
	CHECK(sitemap_priority("0.8") == 800 && sitemap_priority("1.0") == 1000 &&
	      sitemap_priority("0") == 0, "priorities");
	CHECK(sitemap_priority("1.5") == -1 && sitemap_priority("high") == -1 &&
	      sitemap_priority("-0.1") == -1, "bad priorities");
}

static void urlset(void)
{
	struct got g;
	struct sitemap_stats st;

	parse("\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
	      " <url><loc> https://example.org/a?x=1&amp;y=2 </loc>"
	      "<lastmod>2024-03-01</lastmod><changefreq>weekly</changefreq>"
	      "<priority>0.8</priority></url>\n"
	      " <url><loc><![CDATA[https://example.org/b]]></loc></url>\n"
	      " <url><loc>http://</loc><news>a control\x01byte</news></url>\n"
	      " <url><loc></loc></url>\n"
	      " <url><loc>/maps/c.html</loc><priority>2</priority><lastmod>bad</lastmod></url>\n"
	      "</urlset>\n", 0, &g, &st);
	CHECK(st.kind == SITEMAP_URLSET && st.entries == 3 && st.invalid == 2 && !st.malformed,
	      "urlset: kind %d, %llu entries, %llu invalid", st.kind,
	      (unsigned long long)st.entries, (unsigned long long)st.invalid);
	CHECK(g.n == 3 && !strcmp(g.e[0].url, "https://example.org/a?x=1&y=2") &&
	      g.e[0].lastmod == 1709251200LL * 1000000 && g.e[0].changefreq == CHANGEFREQ_WEEKLY &&
	      g.e[0].priority == 800 && !g.e[0].is_sitemap, "first entry: %s", g.e[0].url);
	CHECK(!strcmp(g.e[1].url, "https://example.org/b") && g.e[1].lastmod == 0 &&
	      g.e[1].priority == -1 && g.e[1].changefreq == CHANGEFREQ_NONE, "CDATA: %s",
	      g.e[1].url);
	CHECK(!strcmp(g.e[2].url, "https://example.org/maps/c.html") && g.e[2].priority == -1 &&
	      g.e[2].lastmod == 0, "relative, bad fields: %s", g.e[2].url);
}

static void other_kinds(void)
{
	struct got g;
	struct sitemap_stats st;

	parse("<sitemapindex><sitemap><loc>https://example.org/s1.xml.gz</loc>"
	      "<lastmod>2024-01-01</lastmod></sitemap><sitemap><loc>https://other.example/s2.xml"
	      "</loc></sitemap></sitemapindex>", 0, &g, &st);
	CHECK(st.kind == SITEMAP_INDEX && g.n == 2 && g.e[0].is_sitemap && g.e[1].is_sitemap &&
	      !strcmp(g.e[1].url, "https://other.example/s2.xml"), "index");
	parse("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><link>https://example.org/"
	      "</link><item><title>t</title><link>https://example.org/news/1</link>"
	      "<pubDate>Fri, 01 Mar 2024 00:00:00 GMT</pubDate></item></channel></rss>", 0, &g,
	      &st);
	CHECK(st.kind == SITEMAP_RSS && g.n == 1 && !strcmp(g.e[0].url,
	      "https://example.org/news/1") && g.e[0].lastmod == 1709251200LL * 1000000,
	      "rss: %zu entries, %s", g.n, g.n ? g.e[0].url : "");
	parse("<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"https://example.org/\"/>"
	      "<entry><link rel=\"edit\" href=\"https://example.org/edit/1\"/>"
	      "<link href=\"https://example.org/post/1\"/><updated>2024-03-01T00:00:00Z</updated>"
	      "</entry></feed>", 0, &g, &st);
	CHECK(st.kind == SITEMAP_ATOM && g.n == 1 && !strcmp(g.e[0].url,
	      "https://example.org/post/1") && g.e[0].lastmod == 1709251200LL * 1000000, "atom");
	parse("https://example.org/t1\n\n  https://example.org/t2  \r\nnot://a url\nhttps://exa",
	      1, &g, &st);
	CHECK(st.kind == SITEMAP_TEXT && g.n == 2 && st.invalid == 1 && st.dropped == 1,
	      "text: %zu, invalid %llu, dropped %llu", g.n, (unsigned long long)st.invalid,
	      (unsigned long long)st.dropped);
	parse("<!DOCTYPE html><html><body><a href=\"/x\">x</a></body></html>", 0, &g, &st);
	CHECK(st.kind == SITEMAP_NONE && g.n == 0, "an HTML page is no sitemap");
	parse("", 0, &g, &st);
	CHECK(st.kind == SITEMAP_NONE && g.n == 0, "empty");
}

static void hostile(void)
{
	struct got g;
	struct sitemap_stats st;
	struct buf b;
	unsigned i;

	/* Broken off: the entries before the break are kept. */
	parse("<urlset><url><loc>https://example.org/1</loc></url><url><loc>https://exam", 0, &g,
	      &st);
	CHECK(g.n == 1 && st.malformed, "broken XML: %zu kept, malformed %d", g.n, st.malformed);
	parse("<urlset><url><loc>https://example.org/1</loc></url><url><loc>https://exam", 1, &g,
	      &st);
	CHECK(g.n == 1 && !st.malformed, "cut at the cap: not the site's fault");
	/* An external entity is never read, and no network is used. */
	parse("<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY x SYSTEM \"file:///etc/passwd\">"
	      "]><urlset><url><loc>https://example.org/&x;</loc></url></urlset>", 0, &g, &st);
	CHECK(g.n <= 1 && (g.n == 0 || !strstr(g.e[0].url, "root")), "no external entity");
	/* The protocol's cap: 50,000 entries, the rest dropped. */
	buf_init(&b);
	buf_adds(&b, "<urlset>");
	for (i = 0; i < SITEMAP_MAX_URLS + 7; i++)
		buf_addf(&b, "<url><loc>https://example.org/p/%u</loc></url>\n", i);
	buf_adds(&b, "</urlset>");
	memset(&g, 0, sizeof(g));
	sitemap_parse((const char *)b.p, b.len, 0, "https://example.org/s.xml", keep, &g, &st);
	CHECK(st.entries == SITEMAP_MAX_URLS && st.dropped == 7 && g.n == SITEMAP_MAX_URLS,
	      "cap: %llu entries, %llu dropped", (unsigned long long)st.entries,
	      (unsigned long long)st.dropped);
	buf_release(&b);
}

int main(void)
{
	times();
	urlset();
	other_kinds();
	hostile();
	TEST_DONE();
}

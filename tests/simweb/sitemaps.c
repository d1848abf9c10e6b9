#include "sitemaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int sitemaps_robots(const struct web *w, unsigned h, struct web_sb *sb)
{
	if (!w->sitemaps)
		return 0;
	if (h % 4 == 0)
		web_sb_printf(sb, "# robots.txt for %s\nUser-agent: *\nDisallow: /gen/\n",
			      WEB_HN(w, h));
	web_sb_printf(sb, "\nSitemap: http://%s:%u/sitemaps/index.xml\n", WEB_HN(w, h), w->port);
	return 1;
}

int sitemaps_disallowed(const struct web *w, unsigned h, const char *path)
{
	return w->sitemaps && h % 4 == 0 && !strncmp(path, "/gen/", 5);
}

static void xml_head(struct web_response *r, struct web_sb *sb, const char *root)
{
	r->type = "application/xml";
	web_sb_printf(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<%s xmlns=\"http://www."
		      "sitemaps.org/schemas/sitemap/0.9\">\n", root);
}

static void index_xml(const struct web *w, unsigned h, struct web_response *r,
		      struct web_sb *sb)
{
	static const char *const maps[] = { "a.xml", "b.xml.gz", "cross.xml", "big.xml" };
	size_t i;

	xml_head(r, sb, "sitemapindex");
	for (i = 0; i < (h == 0 ? 4u : 3u); i++)
		web_sb_printf(sb, " <sitemap><loc>http://%s:%u/sitemaps/%s</loc></sitemap>\n",
			      WEB_HN(w, h), w->port, maps[i]);
	web_sb_printf(sb, "</sitemapindex>\n");
}

static void a_xml(const struct web *w, unsigned h, struct web_response *r, struct web_sb *sb)
{
	unsigned k;

	xml_head(r, sb, "urlset");
	for (k = 0; k < 2; k++)
		web_sb_printf(sb, " <url><loc>http://%s:%u/s/%u.html</loc><lastmod>2024-01-0%u"
			      "</lastmod><changefreq>weekly</changefreq><priority>0.%u</priority>"
			      "</url>\n", WEB_HN(w, h), w->port, k, k + 1, k + 5);
	web_sb_printf(sb, " <url><loc>http://%s:%u/p/0.html</loc></url>\n</urlset>\n",
		      WEB_HN(w, h), w->port);
}

static void cross_xml(const struct web *w, unsigned h, struct web_response *r,
		      struct web_sb *sb)
{
	unsigned k, next = (h + 1) % w->hosts;

	xml_head(r, sb, "urlset");
	for (k = 0; next != h && k < 2; k++)
		web_sb_printf(sb, " <url><loc>http://%s:%u/x/%u.html</loc></url>\n",
			      WEB_HN(w, next), w->port, k);
	web_sb_printf(sb, "</urlset>\n");
}

/* A body built in memory (big.xml, b.xml.gz): r->big. */
static void big_body(struct web_response *r, char *p, size_t n)
{
	r->big = p;
	r->len = n;
}

static void big_xml(const struct web *w, unsigned h, struct web_response *r)
{
	size_t cap = (size_t)SITEMAPS_BIG * 96 + 256;
	char *p = malloc(cap);
	struct web_sb sb = { p, 0, cap };
	unsigned k;

	if (!p) {
		r->status = 500;
		return;
	}
	xml_head(r, &sb, "urlset");
	for (k = 0; k < SITEMAPS_BIG; k++)
		web_sb_printf(&sb, "<url><loc>http://%s:%u/gen/%u.html</loc></url>\n",
			      WEB_HN(w, h), w->port, k);
	web_sb_printf(&sb, "</urlset>\n");
	big_body(r, p, sb.len);
}

/* /sitemaps/b.xml.gz: a gzip file (zlib's gzip wrapper). */
static void b_gz(const struct web *w, unsigned h, struct web_response *r)
{
	char xml[512];
	struct web_sb sb = { xml, 0, sizeof(xml) };
	z_stream z;
	char *out = malloc(1024);

	memset(&z, 0, sizeof(z));
	web_sb_printf(&sb, "<urlset><url><loc>http://%s:%u/s/2.html</loc></url></urlset>\n",
		      WEB_HN(w, h), w->port);
	if (!out || deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		r->status = 500;
		return;
	}
	z.next_in = (unsigned char *)xml;
	z.avail_in = (unsigned)sb.len;
	z.next_out = (unsigned char *)out;
	z.avail_out = 1024;
	deflate(&z, Z_FINISH);
	r->type = "application/gzip";
	big_body(r, out, z.total_out);
	deflateEnd(&z);
}

static void page(const struct web *w, unsigned h, char kind, unsigned k,
		 struct web_response *r, struct web_sb *sb)
{
	web_sb_printf(sb, "<!DOCTYPE html>\n<html><head><title>%s page %u of %s</title></head>"
		      "<body><p>Only a sitemap lists this page: %s %s %s %s.</p></body></html>\n",
		      kind == 's' ? "hidden" : "cross", k, WEB_HN(w, h),
		      web_word((uint64_t)h * 7919 + k * 31 + 1), web_word((uint64_t)h * 104729 + k),
		      web_word((uint64_t)h + k * 977 + 5), web_word((uint64_t)h * 13 + k * 17 + 3));
	r->status = 200;
}

int sitemaps_respond(const struct web *w, unsigned h, const char *path,
		     struct web_response *r)
{
	struct web_sb sb = { r->body, 0, sizeof(r->body) };
	unsigned k;
	char tail;

	if (!w->sitemaps)
		return 0;
	if (!strcmp(path, "/sitemaps/index.xml"))
		index_xml(w, h, r, &sb);
	else if (!strcmp(path, "/sitemaps/a.xml"))
		a_xml(w, h, r, &sb);
	else if (!strcmp(path, "/sitemaps/cross.xml"))
		cross_xml(w, h, r, &sb);
	else if (!strcmp(path, "/sitemaps/b.xml.gz"))
		b_gz(w, h, r);
	else if (!strcmp(path, "/sitemaps/big.xml") && h == 0)
		big_xml(w, h, r);
	else if (sscanf(path, "/s/%u.htm%c", &k, &tail) == 2 && tail == 'l' &&
		 k < SITEMAPS_HIDDEN && !strchr(path + 3, '?'))
		page(w, h, 's', k, r, &sb);
	else if (sscanf(path, "/x/%u.htm%c", &k, &tail) == 2 && tail == 'l' && k < 2 &&
		 !strchr(path + 3, '?'))
		page(w, h, 'x', k, r, &sb);
	else
		return 0;
	if (!r->big)
		r->len = sb.len;
	return 1;
}

int sitemaps_truth(const struct web *w, unsigned h, char **out, size_t *n, size_t cap)
{
	static const char *const fixed[] = { "/sitemaps/index.xml", "/sitemaps/a.xml",
					     "/sitemaps/b.xml.gz", "/sitemaps/cross.xml" };
	char line[64];
	size_t i;

	if (!w->sitemaps)
		return 0;
	for (i = 0; i < 4 + (h == 0) + SITEMAPS_HIDDEN; i++) {
		if (i < 4)
			snprintf(line, sizeof(line), "%s\t200", fixed[i]);
		else if (i < 4 + (h == 0))
			snprintf(line, sizeof(line), "/sitemaps/big.xml\t200");
		else
			snprintf(line, sizeof(line), "/s/%zu.html\t200", i - 4 - (h == 0));
		if (*n >= cap || !(out[*n] = strdup(line)))
			return -1;
		(*n)++;
	}
	return 0;
}

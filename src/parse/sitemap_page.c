#include "parse/sitemap_page.h"
#include "crawldb/link_record.h"
#include "parse/decode.h"
#include "parse/sitemap.h"
#include "store/recfile.h"
#include "url/url.h"

#include <stdlib.h>
#include <string.h>

int sitemap_page_owns(const char *sitemap_url, const char *url, int vouched)
{
	const char *sp = url_path(sitemap_url), *slash = strchr(sp, '?');
	size_t dir;

	/* The folder: the path up to its last '/' (before any query), or
	 * for a vouched sitemap its site's root. */
	slash = slash ? slash : sp + strlen(sp);
	while (slash > sp && slash[-1] != '/')
		slash--;
	if (vouched)
		slash = sp + 1;
	dir = (size_t)(slash - sitemap_url);
	return !strncmp(sitemap_url, url, dir) && url_path(url) - url == sp - sitemap_url;
}

/* The entries gathered while reading, within a record's byte budget. */
struct gather {
	const char *self;
	int vouched;
	char **links;
	struct parse_entry *entries;
	uint32_t n, cap;
	size_t bytes;
	uint64_t over;   /* entries past the record's byte budget */
};

static int take(void *arg, const struct sitemap_entry *e)
{
	struct gather *g = arg;
	struct parse_entry *pe;

	if (g->bytes + strlen(e->url) + 32 > REC_MAX_BYTES / 2) {
		g->over++;
		return 0;
	}
	if (g->n == g->cap) {
		uint32_t nc = g->cap ? g->cap * 2 : 64;
		char **l = realloc(g->links, nc * sizeof(*l));
		struct parse_entry *en = l ? realloc(g->entries, nc * sizeof(*en)) : NULL;

		if (l)
			g->links = l;
		if (!en)
			return 1;
		g->entries = en;
		g->cap = nc;
	}
	if (!(g->links[g->n] = strdup(e->url)))
		return 1;
	pe = &g->entries[g->n++];
	memset(pe, 0, sizeof(*pe));
	pe->flags = LINK_ENTRY;
	if (!sitemap_page_owns(g->self, e->url, g->vouched))
		pe->flags |= LINK_CROSS;
	pe->meta.kind = e->is_sitemap ? CRAWL_SITEMAP : CRAWL_PAGE;
	/* An index speaks for the sitemaps it lists on its own site. */
	pe->meta.vouched = e->is_sitemap && g->vouched && !(pe->flags & LINK_CROSS);
	pe->meta.changefreq = (uint8_t)e->changefreq;
	pe->meta.priority = (uint16_t)(e->priority >= 0 ? e->priority + 1 : 0);
	pe->meta.lastmod = e->lastmod;
	g->bytes += strlen(e->url) + 32;
	return 0;
}

void sitemap_page_parse(struct parse_record *pr, int vouched, const unsigned char *body,
			size_t blen, struct buf *out, struct sitemap_page_counts *n)
{
	struct gather g;
	struct sitemap_stats st;
	struct buf unz;
	int cut = 0;
	uint32_t i;

	memset(&g, 0, sizeof(g));
	g.self = pr->url;
	g.vouched = vouched;
	buf_init(&unz);
	if (blen >= 2 && body[0] == 0x1f && body[1] == 0x8b) {
		/* A .xml.gz sent as it is: the file's own gzip. */
		enum decode_result d = decode_body("gzip", 4, body, blen, SITEMAP_MAX_BYTES, &unz);

		cut = d == DECODE_TOO_LARGE || d == DECODE_BAD;
		body = unz.p;
		blen = unz.len;
	}
	sitemap_parse((const char *)body, blen, cut, pr->url, take, &g, &st);
	buf_release(&unz);
	parse_record_pack_sitemap(pr, (const char *const *)g.links, g.entries, g.n, out);
	n->entries = g.n;
	n->dropped = st.dropped + (st.entries - g.n);
	n->invalid = st.invalid;
	n->malformed = st.malformed || st.kind == SITEMAP_NONE;
	for (i = 0; i < g.n; i++)
		free(g.links[i]);
	free(g.links);
	free(g.entries);
}

#include "update/sitemaps.h"
#include "robots/cache.h"
#include "robots/robots.h"
#include "url/url.h"
#include "util/log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* What a scan of the robots cache does with each named sitemap. */
struct scan {
	const struct job *j;
	int probe;
	struct buf *out;      /* links, or */
	struct hmap *set;     /* the named set */
	struct buf scratch;
};

static void add_link(struct scan *s, const char *sitemap, const char *robots_url,
		     const char *origin)
{
	struct link_record l = { .url = sitemap, .url_len = strlen(sitemap), .from = robots_url,
				 .from_len = strlen(robots_url) };

	l.meta.kind = CRAWL_SITEMAP;
	/* Named by its own site's robots.txt: it speaks for the whole site. */
	l.meta.vouched = !strncmp(sitemap, origin, strlen(origin)) &&
			 sitemap[strlen(origin)] == '/';
	s->scratch.len = 0;
	link_record_pack(&l, &s->scratch);
	buf_put_varint(s->out, s->scratch.len);
	buf_add(s->out, s->scratch.p, s->scratch.len);
}

static void add_named(struct scan *s, const char *origin, const char *sitemap)
{
	s->scratch.len = 0;
	buf_addf(&s->scratch, "%s\t%s", origin, sitemap);
	*hmap_put(s->set, (const char *)s->scratch.p, s->scratch.len) = s;
}

static enum cr_err each_origin(void *arg, const struct robots_cache_entry *e)
{
	struct scan *s = arg;
	struct robots *r;
	char robots_url[700], url[URL_MAX_LEN + 1];
	const char *why;
	size_t i;

	if (e->http_status < 200 || e->http_status >= 300 ||
	    robots_parse_with(e->body, e->body_len, s->j->cfg.robots_agent,
			      ROBOTS_ESCAPES_DECODED, &r) != CR_OK)
		return CR_OK;
	snprintf(robots_url, sizeof(robots_url), "%s/robots.txt", e->origin);
	for (i = 0; i < robots_sitemap_count(r); i++) {
		if (url_canon(robots_url, robots_sitemap(r, i), url, sizeof(url), &why) != CR_OK)
			continue;
		if (s->set)
			add_named(s, e->origin, url);
		else
			add_link(s, url, robots_url, e->origin);
	}
	robots_free(&r);
	if (s->out && s->probe) {
		snprintf(url, sizeof(url), "%s/sitemap.xml", e->origin);
		add_link(s, url, robots_url, e->origin);
	}
	return CR_OK;
}

static enum cr_err scan_cache(struct scan *s, uint32_t p)
{
	int ver = layout_robots_last(&s->j->dir);
	char path[PATH_MAX];
	enum cr_err e;

	if (ver == 0)
		return CR_OK;
	buf_init(&s->scratch);
	layout_robots_part(&s->j->dir, ver, p, path, sizeof(path));
	e = robots_cache_scan(path, each_origin, s);
	buf_release(&s->scratch);
	return e;
}

enum cr_err sitemaps_from_robots(const struct job *j, uint32_t p, int probe, struct buf *out)
{
	struct scan s = { j, probe, out, NULL, { 0 } };

	return scan_cache(&s, p);
}

enum cr_err sitemaps_named(const struct job *j, uint32_t p, struct hmap *set)
{
	struct scan s = { j, 0, NULL, set, { 0 } };

	return scan_cache(&s, p);
}

int sitemaps_cross_ok(const struct hmap *set, const struct link_record *l)
{
	char key[2 * URL_MAX_LEN + 8];
	size_t ol;
	const char *path;
	char u[URL_MAX_LEN + 1];

	if (!set || l->url_len > URL_MAX_LEN || l->from_len > URL_MAX_LEN)
		return 0;
	memcpy(u, l->url, l->url_len);
	u[l->url_len] = '\0';
	path = url_path(u);
	ol = (size_t)(path - u);
	memcpy(key, u, ol);
	key[ol] = '\t';
	memcpy(key + ol + 1, l->from, l->from_len);
	return hmap_get(set, key, ol + 1 + l->from_len) != NULL;
}

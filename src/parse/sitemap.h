/*
 * sitemap.h - reading a sitemap (sitemaps.org protocol 0.9) and the feeds
 * and lists sites offer in its place:
 *
 *   <urlset>          url: loc, lastmod, changefreq, priority
 *   <sitemapindex>    sitemap: loc, lastmod - each a sitemap to fetch
 *   RSS 2.0 <rss>     item: link, pubDate
 *   Atom <feed>       entry: link href (rel alternate or none), updated
 *   plain text        one URL a line
 *
 * Element names are matched without their namespace, so the many sitemaps
 * written with a wrong or missing namespace are read too. XML goes through
 * libxml2's streaming reader (xmlTextReader): a 50 MB sitemap is read in
 * one pass and never held as a tree; no network access, no external
 * entities, no DTD loading.
 *
 * The protocol's caps hold: at most SITEMAP_MAX_URLS entries are handed
 * out, the rest counted as dropped; the caller passes at most
 * SITEMAP_MAX_BYTES of decoded body (a gzip sitemap is decoded by the
 * caller's bounded decoder) and says whether it cut it. Entry URLs are
 * resolved against the sitemap's own URL and canonicalised (url_canon); a
 * bad one is counted, not handed out.
 *
 * Pure: no I/O, no clock.
 */
#ifndef CR_PARSE_SITEMAP_H
#define CR_PARSE_SITEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "url/url.h"
#include "util/error.h"

#define SITEMAP_MAX_URLS 50000u
#define SITEMAP_MAX_BYTES (50u << 20)

enum sitemap_kind {
	SITEMAP_NONE = 0,   /* no entry: not a sitemap, or an empty one */
	SITEMAP_URLSET,
	SITEMAP_INDEX,
	SITEMAP_RSS,
	SITEMAP_ATOM,
	SITEMAP_TEXT,
};

/* changefreq, in the protocol's order (0: not given). */
enum sitemap_changefreq {
	CHANGEFREQ_NONE = 0, CHANGEFREQ_ALWAYS, CHANGEFREQ_HOURLY, CHANGEFREQ_DAILY,
	CHANGEFREQ_WEEKLY, CHANGEFREQ_MONTHLY, CHANGEFREQ_YEARLY, CHANGEFREQ_NEVER,
};

struct sitemap_entry {
	char url[URL_MAX_LEN + 1];   /* canonical */
	int64_t lastmod;             /* µs since the epoch; 0: not given or bad */
	int priority;                /* thousandths, 0-1000; -1: not given or bad */
	int changefreq;              /* enum sitemap_changefreq */
	int is_sitemap;              /* an index's child: a sitemap to fetch */
};

struct sitemap_stats {
	enum sitemap_kind kind;
	uint64_t entries;      /* handed out */
	uint64_t invalid;      /* entries without a usable URL */
	uint64_t dropped;      /* past SITEMAP_MAX_URLS, or past a cut body */
	int malformed;         /* the XML broke off: entries up to there were kept */
};

/* Called for each entry, in document order; a non-zero return stops. */
typedef int (*sitemap_entry_fn)(void *arg, const struct sitemap_entry *e);

/*
 * Reads body[0..len) (decoded; cut says it was cut at the byte cap, so its
 * last entry may be partial and is dropped) of the sitemap at base.
 */
void sitemap_parse(const char *body, size_t len, int cut, const char *base,
		   sitemap_entry_fn fn, void *arg, struct sitemap_stats *st);

/* A W3C datetime (YYYY, YYYY-MM, YYYY-MM-DD, or with Thh:mm[:ss[.f]] and
 * Z or ±hh:mm) in µs since the epoch, or -1. */
int64_t sitemap_w3c_time(const char *s);
/* "daily" -> CHANGEFREQ_DAILY (any case, blanks around), else NONE. */
int sitemap_changefreq(const char *s);
/* CHANGEFREQ_DAILY -> "daily"; "" for NONE or out of range. */
const char *sitemap_changefreq_name(int cf);
/* "0.8" -> 800; -1 outside [0, 1] or not a number. */
int sitemap_priority(const char *s);

#endif

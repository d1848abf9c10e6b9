/*
 * sitemaps.h - simweb's sitemaps (--sitemaps): every host names a sitemap
 * index in its robots.txt, and lists pages no page links to.
 *
 * On host h of N:
 *   robots.txt            "Sitemap: http://h.D:P/sitemaps/index.xml" (host
 *                         index mod 4 == 0, otherwise 404, serves
 *                         "User-agent: *", "Disallow: /gen/" and the line)
 *   /sitemaps/index.xml   a sitemap index: a.xml, b.xml.gz, cross.xml, and
 *                         on h0000 big.xml
 *   /sitemaps/a.xml       /s/0.html and /s/1.html (lastmod, priority), and
 *                         /p/0.html (also linked)
 *   /sitemaps/b.xml.gz    a gzip file: /s/2.html
 *   /sitemaps/cross.xml   /x/0.html and /x/1.html of the next host: another
 *                         host's URLs its robots.txt does not vouch for, so
 *                         a crawler must not take them (N > 1)
 *   /sitemaps/big.xml     (h0000) 50,010 URLs /gen/K.html: 10 over the
 *                         protocol's cap; /gen/ is disallowed, so a crawler
 *                         records them without a request
 *   /s/K.html, K < 3      pages found only in the sitemaps (no links)
 *   /x/K.html, K < 2      pages found only in a refused sitemap entry
 *
 * The truth of a host the crawl reaches gains its robots.txt-named
 * sitemaps and /s/ pages. Pure, like web.h.
 */
#ifndef SIMWEB_SITEMAPS_H
#define SIMWEB_SITEMAPS_H

#include <stddef.h>

#include "web.h"

#define SITEMAPS_HIDDEN 3u
#define SITEMAPS_BIG 50010u

/* Writes robots.txt for host h when --sitemaps: 1 if it did. */
int sitemaps_robots(const struct web *w, unsigned h, struct web_sb *sb);
/* 1 if path of host h is disallowed by what sitemaps_robots adds. */
int sitemaps_disallowed(const struct web *w, unsigned h, const char *path);
/* Answers path of host h if it is one of the sitemaps' paths: 1 if so
 * (r filled; r->big may be set, the caller's to free). */
int sitemaps_respond(const struct web *w, unsigned h, const char *path,
		     struct web_response *r);
/* The truth lines ("PATH\tSTATUS", malloc'd) of host h: appended to
 * out[*n], at most cap in all. -1 when memory ran out. */
int sitemaps_truth(const struct web *w, unsigned h, char **out, size_t *n, size_t cap);

#endif

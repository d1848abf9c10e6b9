/*
 * seeds.h - the seed lines of an inject, and the crawl directory's record
 * of every seed ever injected (seeds/NNNNN.zst, one file per inject, named
 * by the CrawlDb version it made), which the scope is built from.
 *
 * A seed line is a URL, optionally followed by settings, each after a tab:
 *   https://example.org/<TAB>key=value<TAB>key=value
 *   sitemap:https://example.org/sitemap.xml     (a sitemap, read for URLs)
 * '#' starts a comment line. The URL is canonicalised (url_canon) like any
 * link.
 */
#ifndef CR_SCOPE_SEEDS_H
#define CR_SCOPE_SEEDS_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/layout.h"
#include "util/error.h"

struct scope;

/*
 * Splits a seed line in place: *url the URL (leading blanks, a first
 * line's byte order mark and the line end cut), *settings what follows its
 * first tab ("" if nothing). Returns 0 for a blank or comment line, else 1.
 */
int seeds_split(char *line, int first_line, char **url, char **settings);

/* 1 if a seed URL is written "sitemap:URL" (a sitemap to read, not a
 * page): *url then points past the prefix. */
int seeds_sitemap(char **url);

/* NULL if every tab-separated key=value of settings is one a seed may
 * carry, else why not. */
const char *seeds_check_settings(const char *settings);

/*
 * Writes seeds/NNNNN.zst (version: the CrawlDb version the inject makes)
 * from the seed file at path: every line whose URL is valid and in scope
 * by s's rules, canonical, with its settings. One rank calls it.
 */
CR_WUR enum cr_err seeds_write(const struct crawl_dir *d, int version, const char *path,
			       struct scope *s, int zstd_level);

/* One record of a seeds file: its URL and settings, borrowed from p.
 * CR_ERR_FORMAT for bad bytes. */
CR_WUR enum cr_err seeds_record_unpack(const void *p, size_t n, const char **url, size_t *ulen,
				       const char **settings, size_t *slen);

/* Adds the seeds of every seeds/NNNNN.zst with NNNNN <= version to s. A
 * damaged file is an error naming it. */
CR_WUR enum cr_err seeds_load_scope(const struct crawl_dir *d, int version, struct scope *s);

#endif

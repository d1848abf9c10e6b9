/*
 * seeds.h - the seed lines of an inject, and the crawl directory's record
 * of every seed ever injected (seeds/NNNNN.zst, one file per inject, named
 * by the CrawlDb version it made), which the scope is built from.
 *
 * A seed line is a URL, optionally followed by settings, each after a tab:
 *   https://example.org/<TAB>key=value<TAB>key=value
 *   sitemap:https://example.org/sitemap.xml     (a sitemap, read for URLs;
 *   https://example.org/sitemap.xml<TAB>kind=sitemap   says the same)
 * Settings: max_pages=N, max_depth=N, scope=host|domain|any, kind=sitemap.
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
 * first tab ("" if nothing). A '#' after a blank starts a comment, on a
 * line of its own or after the URL or the settings. n is the line's length
 * as read. Returns 0 for a blank or comment line, 1 for a seed, -1 for a
 * line that is no seed, *why (a static string) saying why: it holds a NUL
 * byte (it would be cut there), or text follows the URL after a blank
 * that is not a comment - never part of the URL.
 */
int seeds_split(char *line, size_t n, int first_line, char **url, char **settings,
		const char **why);

/* The id of the seed with canonical URL url[0..len) (crawl_record.seed):
 * XXH3-64 of the URL, never 0. */
uint64_t seeds_id(const char *url, size_t len);

/* 1 if a seed URL is written "sitemap:URL" (a sitemap to read, not a
 * page): *url then points past the prefix. */
int seeds_sitemap(char **url);

/* What a seed line may set for everything reached from that seed; -1:
 * not set (the job's setting holds). */
struct seed_settings {
	long max_pages;   /* max_pages=N: pages fetched, at most (1 and up) */
	long max_depth;   /* max_depth=N: links from the seed, at most */
	int scope;        /* scope=host|domain|any: enum scope_mode, in place of
			     scope.mode for its links */
	int sitemap;      /* kind=sitemap: the seed is a sitemap (as "sitemap:URL") */
	double score;     /* score=X: its cash is score.seed_cash times X (default 1) */
};

/* Reads tab-separated key=value settings into *out: NULL, or why they are
 * bad (an unknown key, a bad value). */
const char *seeds_parse_settings(const char *settings, struct seed_settings *out);
/* NULL if settings parse, else why not. */
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

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
 *
 * One reader (struct seeds_reader) turns a seed file into seeds for every
 * caller: inject's ranks (each its share of the lines), the check before a
 * job starts, and the record written into the crawl directory. Nothing here
 * knows the scope: it is built from the record (seeds_load) by scope.c.
 */
#ifndef CR_SCOPE_SEEDS_H
#define CR_SCOPE_SEEDS_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "crawldb/layout.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/error.h"

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

/* One line of a seed file that is not blank or a comment. */
struct seed_line {
	uint64_t lineno;            /* 1-based, in the file */
	const char *why;            /* NULL: a seed; else why not (a static string) */
	int bad_line;               /* why concerns the line itself (seeds_split) */
	const char *text;           /* the URL as written; borrowed until the next read */
	char url[URL_MAX_LEN + 1];  /* canonical (when why is NULL) */
	const char *settings;       /* as recorded ("sitemap:URL" adds kind=sitemap);
				       borrowed until the next read */
	struct seed_settings set;   /* parsed; all unset when why is not NULL */
};

struct seeds_reader {
	FILE *fp;
	char *line;
	size_t cap;
	uint64_t lineno;            /* lines read so far */
	uint64_t stride, offset;    /* lines whose (lineno - 1) % stride is not offset
				       are skipped unread: a rank's share */
	struct buf settings;
};

/* Opens path for reading, every line (stride 1, offset 0) or a share.
 * CR_ERR_IO (errno set) if it cannot be opened. */
CR_WUR enum cr_err seeds_reader_open(struct seeds_reader *r, const char *path, uint64_t stride,
				     uint64_t offset);
/* The next line of the share that is no blank or comment line: CR_OK with
 * *l filled (a seed, or why not), CR_EOF at the end, CR_ERR_IO. */
CR_WUR enum cr_err seeds_reader_next(struct seeds_reader *r, struct seed_line *l);
void seeds_reader_close(struct seeds_reader *r);

/*
 * Writes seeds/NNNNN.zst (version: the CrawlDb version the inject makes)
 * from the seed file at path: every seed whose canonical URL keep (NULL:
 * all) returns 1 for, with its settings. One rank calls it.
 */
CR_WUR enum cr_err seeds_write(const struct crawl_dir *d, int version, const char *path,
			       int (*keep)(void *arg, const char *url), void *arg,
			       int zstd_level);

/* One record of a seeds file: its URL and settings, borrowed from p.
 * CR_ERR_FORMAT for bad bytes. */
CR_WUR enum cr_err seeds_record_unpack(const void *p, size_t n, const char **url, size_t *ulen,
				       const char **settings, size_t *slen);

/* Calls fn with each recorded seed of every seeds/NNNNN.zst with NNNNN <=
 * version (url and set borrowed during the call); an error of fn ends it.
 * A damaged file is an error naming it. */
typedef enum cr_err (*seeds_fn)(void *arg, const char *url, size_t ulen,
				 const struct seed_settings *set);
CR_WUR enum cr_err seeds_load(const struct crawl_dir *d, int version, seeds_fn fn, void *arg);

#endif

/*
 * link_record.h - a discovered link on its way to the rank that owns its
 * partition (update/route.h), and the order the merge reads links in.
 */
#ifndef CR_CRAWLDB_LINK_RECORD_H
#define CR_CRAWLDB_LINK_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "util/buf.h"
#include "util/error.h"

/* A discovered link on its way to its owner in update. */
struct link_record {
	const char *url;
	size_t url_len;
	uint32_t depth;
	uint8_t hops;         /* redirects in a row that led to it */
	const char *from;     /* the page it was found on, for the decision log
				 (scope/decisions.h) and a sitemap's entries; "" when
				 not kept */
	size_t from_len;
	uint8_t flags;        /* enum link_flag */
	struct crawl_meta meta;   /* the kind of URL it points at; a sitemap
				     entry's lastmod, priority, changefreq */
	uint64_t seed;        /* the seed its source was reached from; 0: none */
	double cash;          /* OPIC cash its source pays it (score/score.h) */
};

enum link_flag {
	LINK_ENTRY = 1,   /* listed by the sitemap `from`: its meta is news even for a
			     URL the CrawlDb holds, so the seen-set lets it through */
	LINK_CROSS = 2,   /* ... outside the sitemap's own directory: admitted only if
			     its host's robots.txt names the sitemap */
	LINK_CASH = 4,    /* to a URL the seen-set knows: it brings cash and nothing
			     else (update/route.c); never a new URL */
};

void link_record_pack(const struct link_record *l, struct buf *out);
CR_WUR enum cr_err link_record_unpack(const void *p, size_t n, struct link_record *l);
int link_record_cmp(const void *a, size_t an, const void *b, size_t bn);

#endif

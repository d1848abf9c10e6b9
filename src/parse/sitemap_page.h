/*
 * sitemap_page.h - a fetched sitemap into its parse record: its entries as
 * links, each with what the sitemap said of it (parse_entry), flagged as
 * the cross-host rule needs.
 *
 * An entry inside the sitemap's own directory (same scheme, host and port,
 * a path under the sitemap's folder) - or anywhere on its site when the
 * sitemap is vouched for (crawl_meta.vouched: its site's robots.txt names
 * it, or names the index that lists it, or it is a seed) - is the
 * sitemap's to list; any other is flagged LINK_CROSS and admitted only if
 * its host's robots.txt names the sitemap (update/sitemaps.h). A gzip file (.xml.gz, no
 * Content-Encoding) is decoded with the bounded decoder, to at most
 * SITEMAP_MAX_BYTES.
 */
#ifndef CR_PARSE_SITEMAP_PAGE_H
#define CR_PARSE_SITEMAP_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/parse_record.h"
#include "util/buf.h"

/* 1 if entry url lies in the directory of the sitemap at sitemap_url
 * (vouched: anywhere on its site - scheme, host and port). */
int sitemap_page_owns(const char *sitemap_url, const char *url, int vouched);

/* What one sitemap held (parse.h's counters add them up). */
struct sitemap_page_counts {
	uint64_t entries;    /* URLs kept */
	uint64_t dropped;    /* past the protocol's caps */
	uint64_t invalid;    /* entries without a usable URL */
	int malformed;       /* not a sitemap, or it broke off */
};

/*
 * Appends pr (url, depth, hops set by the caller) as a sitemap's record
 * with the entries of body[0..blen) (Content-Encoding already undone);
 * *n says what it held.
 */
void sitemap_page_parse(struct parse_record *pr, int vouched, const unsigned char *body,
			size_t blen, struct buf *out, struct sitemap_page_counts *n);

#endif

/*
 * sitemaps.h - the sitemaps update learns of from robots.txt, and the
 * robots.txt half of the sitemap protocol's cross-host rule.
 *
 * Each round's update reads the robots.txt cache of the partitions it owns
 * (robots/NNNNN, the latest): every Sitemap line of a robots.txt (a 2xx
 * answer) becomes a link to a sitemap (crawl_meta.kind CRAWL_SITEMAP,
 * depth 0, from the robots.txt URL), and with sitemaps.probe the origin's
 * /sitemap.xml too. Known ones are dropped by the seen-set as any link.
 *
 * A sitemap may list URLs outside its own directory only for hosts whose
 * robots.txt names it (sitemaps.org, "Sitemaps & Cross Submits"): such an
 * entry comes flagged LINK_CROSS, and the merge of its host's partition -
 * the rank that also holds that host's robots.txt - asks sitemaps_cross_ok.
 */
#ifndef CR_UPDATE_SITEMAPS_H
#define CR_UPDATE_SITEMAPS_H

#include <stdint.h>

#include "crawldb/job.h"
#include "crawldb/link_record.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hmap.h"

/* Appends to out, each as varint(length) and a packed link record, the
 * sitemaps partition p's robots.txt files name (and /sitemap.xml of each
 * origin with probe). */
CR_WUR enum cr_err sitemaps_from_robots(const struct job *j, uint32_t p, int probe,
					struct buf *out);

/* Fills set with "ORIGIN<TAB>SITEMAP" for every sitemap a robots.txt of
 * partition p names (canonical URLs). */
CR_WUR enum cr_err sitemaps_named(const struct job *j, uint32_t p, struct hmap *set);

/* 1 if the robots.txt of the origin of l's URL names the sitemap l->from. */
int sitemaps_cross_ok(const struct hmap *set, const struct link_record *l);

#endif

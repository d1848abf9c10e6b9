/*
 * wacz.h - a crawl packed as one WACZ file (Webrecorder's Web Archive
 * Collection Zipped, 1.1.1), the package ReplayWeb.page and other archive
 * tools open whole:
 *
 *   archive/NAME             every WARC file of the segments, as written
 *   indexes/index.cdxj       their CDXJ lines (segments/N/cdxj/), merged
 *                            in bytewise order (an external sort: memory
 *                            stays bounded however large the crawl)
 *   pages/pages.jsonl        the segments' pages lists (segments/N/pages/)
 *   datapackage.json         every file above with its size and sha256
 *   datapackage-digest.json  the sha256 of datapackage.json
 *
 * Entries are stored, not compressed, so that a reader takes a record by
 * its offset; ZIP64 where a file or the package passes 4 GiB. libzip
 * writes the ZIP (this is the one file that speaks to it). The package is
 * written to OUT.tmp.PID and renamed: a failed run leaves no half file.
 * Only segments whose index step is done are packed.
 *
 * Several crawls can go into one package: their WARC files side by side in
 * archive/ (crawl-unique names: warc.prefix), their CDXJ lines merged into
 * one index, their pages lists into one. Two files of the same name (crawls
 * made before warc.prefix, or given the same one) cannot both be stored:
 * that is an error, not a capture lost.
 */
#ifndef CR_INDEX_WACZ_H
#define CR_INDEX_WACZ_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/layout.h"
#include "util/error.h"

struct wacz_counts {
	uint64_t segments, warcs, cdxj_lines, pages, bytes;
};

/* A crawl to pack: segs, the segments (nsegs of them), or NULL for every
 * indexed one. Borrowed. */
struct wacz_crawl {
	const struct crawl_dir *d;
	const int *segs;
	size_t nsegs;
};

/* Packs ncrawls crawls into out; title: the package's title (NULL: the
 * crawl directories' names). Errors are logged with the file they concern. */
CR_WUR enum cr_err wacz_write(const struct wacz_crawl *crawls, size_t ncrawls,
			      const char *title, const char *out, struct wacz_counts *n);

#endif

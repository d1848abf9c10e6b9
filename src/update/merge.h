/*
 * merge.h - writing the next CrawlDb version of one partition.
 *
 * Three sorted streams meet: the committed CrawlDb part, the fetch outcomes
 * of the round and the routed links. The result is the next version of the
 * part, sorted by URL, each URL once. merge_decide is the pure decision for
 * one URL: what its record becomes from what the streams hold of it - its
 * old record, its fetch outcome (merge_apply: status, retries, when it is due
 * again), a link to it (admitted, too deep, or a trap), the near-duplicate
 * verdict. merge_partition only reads the streams and writes the result.
 */
#ifndef CR_UPDATE_MERGE_H
#define CR_UPDATE_MERGE_H

#include <stdint.h>

#include "config/config.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/layout.h"
#include "crawldb/link_record.h"
#include "dedup/dedup.h"
#include "scope/decisions.h"
#include "scope/host_rules.h"
#include "store/xsort.h"
#include "util/error.h"

struct merge_stats {
	uint64_t records;     /* in the new part */
	uint64_t origins;     /* distinct scheme://authority among them: a part is in URL
				 order, so an origin's URLs are one run */
	uint64_t added;       /* new URLs from links */
	uint64_t updated;     /* URLs with a fetch outcome */
	uint64_t too_deep;    /* links dropped by crawl.max_depth */
	uint64_t traps;       /* new URLs given status trap (trap.h) */
	uint64_t cross_refused;   /* sitemap entries of another host, not admitted */
	uint64_t by_status[ST_COUNT_];
};

/* Pure: the record of a URL after the fetch outcome f (old may be NULL). */
void merge_apply(const struct crawl_record *old, const struct fetch_record *f,
		 const struct config *cfg, struct crawl_record *out);

/* What the merge knows of one URL; any may be NULL, not all. */
struct merge_in {
	const struct crawl_record *old;     /* its record in the CrawlDb */
	const struct fetch_record *fetch;   /* its fetch outcome this round */
	const struct link_record *link;     /* the link to it of smallest depth,
					       NULL when links brought cash alone */
	const char *dup_of;                 /* dedup's representative, if a near-duplicate */
	/* The trap rule a new URL breaks (trap.h: "path", "query", "host"), or
	 * NULL; trapped itself NULL: no rule is checked. */
	const char *(*trapped)(void *arg, const struct link_record *l);
	void *trap_arg;
	/* The link is a sitemap entry outside its sitemap's directory whose
	 * host's robots.txt does not name the sitemap: it admits nothing. */
	int link_refused;
	double cash;                        /* the OPIC cash all its links bring */
};

enum merge_verdict {
	MERGE_KEPT,       /* unchanged (its depth may have shrunk) */
	MERGE_UPDATED,    /* a fetch outcome applied */
	MERGE_ADDED,      /* a new URL from a link */
	MERGE_TRAP,       /* a new URL, given status trap: never fetched; its
			     reason "trap:RULE" (trap:redirects past fetch.max_redirects) */
	MERGE_TOO_DEEP,   /* a new URL past crawl.max_depth: not written */
	MERGE_REFUSED,    /* a new URL only a refused sitemap entry names, or
			     only cash reaches (the seen-set's false positive):
			     not written */
};

/* The decision-log reason (scope/decisions.h) of a record whose fetch
 * outcome refused it, or NULL: "robots" (denied by robots.txt), "operator"
 * (an operator's host rule), "blocked:address" (a non-public address),
 * "blocked:redirect" (a redirect to a scheme never followed). Pure. */
const char *merge_refusal(const struct crawl_record *rec);

/* Pure (but for the trapped callback): out gets the URL's new record,
 * strings borrowed from in. A sitemap entry's link brings its metadata
 * (crawl_meta): a later lastmod than the last fetch makes a fetched URL due
 * at once. */
enum merge_verdict merge_decide(const struct merge_in *in, const struct config *cfg,
				struct crawl_record *out);

/* What merge_partition needs besides the streams; any may be NULL. */
struct merge_extra {
	const struct dedup_result *dups;    /* the round's near-duplicates */
	struct decisions *dlog;             /* the decision log */
	/* 1 if the robots.txt of the link's host names its sitemap (l->from):
	 * asked of LINK_CROSS links; NULL: none is admitted. */
	int (*cross_ok)(void *arg, const struct link_record *l);
	void *cross_arg;
	/* 1: the links are seeds (inject): a known URL keeps its record as it
	 * is, its cash included; only a new one takes the seed's cash. */
	int seeds;
	/* The operator's host rules (hosts.rules), or NULL: a new URL whose
	 * host a name rule blocks is written to dlog ("operator") when its
	 * link comes, not only when a later round's fetch refuses it - the
	 * links of a crawl's last round are never fetched. */
	const struct host_rules *rules;
};

/*
 * Writes crawldb version new_version of partition p from version
 * old_version (0: none), fetch (sorted fetch records, or NULL) and links
 * (sorted link records, or NULL). The part is committed by rename; the
 * version becomes current only when the caller commits CURRENT. If seen is
 * not NULL, the key hash of every URL written is appended to it (seen.h).
 * A fetched page that x->dups names gets status duplicate and the
 * representative's URL. Links too deep, trapped or refused, and fetch
 * outcomes that refused a URL, and new URLs x->rules blocks, are written to
 * x->dlog. x may be NULL.
 */
CR_WUR enum cr_err merge_partition(const struct crawl_dir *d, const struct config *cfg,
				   int old_version, int new_version, uint32_t p,
				   struct xsort *fetch, struct xsort *links,
				   struct merge_stats *st, struct buf *seen,
				   const struct merge_extra *x);

#endif

/*
 * fetchlist.h - a partition's fetch list (segments/N/fetchlist/part-P.zst,
 * written by generate) read into the fetcher's host queues (hosts.h), each
 * URL tied to the origin whose robots.txt rules it (origins.h). Hosts join
 * their politeness group by registrable domain here when politeness.by =
 * domain (by ip, they join when their address is known).
 */
#ifndef CR_FETCH_FETCHLIST_H
#define CR_FETCH_FETCHLIST_H

#include <stdint.h>

#include "crawldb/job.h"
#include "fetch/hosts.h"
#include "fetch/origins.h"
#include "util/hmap.h"

struct fetchlist_load {
	const struct job *j;
	int seg;
	struct host_table *hosts;
	struct origin_table *origins;
	const struct hmap *done;  /* URLs an earlier attempt finished: skipped */
	void *host_ctx;           /* set as each new host's ctx */
	const struct host_rules *rules;   /* hosts.rules, or NULL */
	uint64_t urls;            /* URLs read (the finished ones included) */
	uint64_t new_hosts;
};

/* One URL into its host's queue (the host, its group and its origin made
 * when new), as the fetch list's - or, with next, as the next to start
 * (hosts_add_next) - : the new item, or NULL when an earlier attempt
 * finished it (its origin is made all the same, without a host) or it has
 * no host. rec's strings are borrowed for the call (the URL is copied). */
struct host_item *fetchlist_add(struct fetchlist_load *l, const struct crawl_record *rec,
				uint32_t p, int next);

/*
 * A link to a host new to the crawl (follow_early admitted it; p: its
 * partition, owned): unless its host or its origin (of either table) is in
 * the phase already, the robots
 * cache holds an entry of it (origins_host_known), an operator rule blocks
 * it, or early holds robots.early_max origins, its host joins the phase
 * for its origin's robots.txt alone - an early item in its queue, the
 * origin in early (origins.h). Returns 1 if it did.
 */
int fetchlist_early(struct fetchlist_load *l, struct origin_table *early, const char *url,
		    size_t len, uint32_t p);

/* Loads partition p; CR_ERR_FORMAT (logged) for a damaged fetch list. */
CR_WUR enum cr_err fetchlist_read(struct fetchlist_load *l, uint32_t p);

/* The fields of a fetch record that come from its URL's record (the
 * item's); the strings it has of its own set to "". */
struct fetch_record;
void fetchlist_record(const struct host_item *it, struct fetch_record *fr);

#endif

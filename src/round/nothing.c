/*
 * nothing.c - a crawl that fetched nothing, or found nothing due, says why
 * (nothing.h).
 */
#include "round/nothing.h"
#include "comm/comm.h"
#include "crawldb/crawl_record.h"
#include "scope/decisions.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records read at most when counting why nothing was fetched. */
#define EXPLAIN_MAX_RECORDS 1000000
#define EXPLAIN_TOP 8

struct why {
	const char *key;      /* "status\treason", in the hmap */
	uint64_t n;
};

static int by_count(const void *a, const void *b)
{
	const struct why *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->key, y->key);
}

/* What a user does about a reason. */
static const char *hint(const char *status, const char *reason)
{
	if (!strcmp(status, "blocked") && strstr(reason, "non-public"))
		return " (a private or loopback address: set fetch.allow_private=true, or list "
		       "it in fetch.allow_addresses, to crawl it)";
	if (!strncmp(reason, "dns:", 4))
		return " (the name did not resolve: check it, and dns.servers)";
	if (!strcmp(status, "denied"))
		return " (robots.txt disallows them for robots.agent)";
	if (!strcmp(status, "unfetched"))
		return " (no outcome yet: the time limit or a stop came first; they are tried "
		       "again in a later round)";
	if (!strcmp(reason, "tls:untrusted"))
		return " (the server's certificate is not from a CA this machine trusts: name "
		       "the CA with tls.ca_file)";
	if (!strcmp(reason, "tls:ca-file"))
		return " (tls.ca_file could not be read as a CA bundle: check its path and format)";
	if (!strncmp(reason, "tls:", 4))
		return " (the server's certificate or TLS handshake failed verification; "
		       "nothing of such a server is archived)";
	if (!strcmp(status, "deferred") && !strncmp(reason, "robots.txt", 10))
		return " (nothing is fetched from a site whose robots.txt fails, RFC 9309; it "
		       "is asked again after crawl.retry_interval_s, which may be set shorter)";
	return "";
}

/* Counts the current CrawlDb's URLs by status and reason (rank 0), until
 * the first page with content (*with_content set: there is nothing to
 * explain). */
static uint64_t count_why(struct job *j, struct hmap *m, int *with_content)
{
	char path[PATH_MAX];
	uint64_t seen = 0;
	uint32_t p;
	int ver;

	if (layout_crawldb_current(&j->dir, &ver) != CR_OK || ver == 0)
		return 0;
	for (p = 0; p < j->dir.partitions && seen < EXPLAIN_MAX_RECORDS && !*with_content; p++) {
		struct recfile_reader *r;
		const void *data;
		size_t n;

		layout_crawldb_part(&j->dir, ver, p, path, sizeof(path));
		if (recfile_reader_open(path, REC_KIND_CRAWLDB, &r) != CR_OK)
			continue;
		while (seen < EXPLAIN_MAX_RECORDS && !*with_content &&
		       recfile_reader_next(r, &data, &n) == CR_OK) {
			struct crawl_record c;
			char key[320];
			int k;

			if (crawl_record_unpack(data, n, &c) != CR_OK)
				break;
			seen++;
			*with_content = c.status == ST_FETCHED || c.status == ST_DUPLICATE ||
					c.status == ST_TRUNCATED || c.status == ST_TOO_LARGE;
			k = snprintf(key, sizeof(key), "%s\t%.*s",
				     crawl_record_status_name(c.status),
				     (int)(c.reason_len < 256 ? c.reason_len : 256), c.reason);
			(*(uintptr_t *)hmap_put(m, key, (size_t)k))++;
		}
		recfile_reader_free(&r);
	}
	return seen;
}

/* When the crawl has no page with content, one line per reason why. */
void round_explain_nothing_fetched(struct job *j)
{
	struct hmap m;
	struct hmap_slot *s;
	struct why *w;
	uint64_t seen;
	int content = 0;
	size_t i = 0, n = 0, k;

	if (j->rank != 0)
		return;
	hmap_init(&m);
	seen = count_why(j, &m, &content);
	w = content || !seen ? NULL : calloc(m.count + 1, sizeof(*w));
	while (w && (s = hmap_next(&m, &i)) != NULL) {
		w[n].key = s->key;
		w[n++].n = (uintptr_t)s->val;
	}
	if (w) {
		qsort(w, n, sizeof(*w), by_count);
		log_info("crawl", "nothing was fetched: the CrawlDb's %llu URLs are",
			 (unsigned long long)seen);
		for (k = 0; k < n && k < EXPLAIN_TOP; k++) {
			char status[32];
			const char *tab = strchr(w[k].key, '\t');

			snprintf(status, sizeof(status), "%.*s", (int)(tab - w[k].key), w[k].key);
			log_info("crawl", "  %llu %s%s%s%s", (unsigned long long)w[k].n, status,
				 tab[1] ? ": " : "", tab + 1, hint(status, tab + 1));
		}
	}
	free(w);
	hmap_release(&m);
}

int round_nothing_generated(const struct round_generated *g)
{
	return !g->selected && !g->denied;
}

void round_nothing_due(struct job *j, const struct round_generated *g)
{
	uint64_t held = g->held, retry = g->retry;

	if (j->rank == 0) {
		char dir[PATH_MAX];

		/* what the last generate held back keeps its decision lines */
		if (g->seed_capped && g->seg > 1 &&
		    decisions_keep_held(&j->dir, g->seg, g->seg - 1))
			log_info("crawl", "%llu URLs held back by their seed's max_pages "
				 "(readdb --seeds), their decision lines in segment %d "
				 "(decisions/held-*)", (unsigned long long)g->seed_capped,
				 g->seg - 1);
		layout_segment_dir(&j->dir, g->seg, dir, sizeof(dir));
		if (fs_remove_tree(dir) != CR_OK)
			log_warn("crawl", "cannot remove empty segment '%s'", dir);
		if (held)
			log_info("crawl", "nothing can be fetched now: %llu URLs wait for hosts "
				 "that asked for a pause; run again later to continue",
				 (unsigned long long)held);
		else if (retry)
			log_info("crawl", "nothing is due: the crawl is complete for now; "
				 "%llu URLs wait to be tried again (errors and deferrals, "
				 "after crawl.retry_interval_s): run again later for them",
				 (unsigned long long)retry);
		else
			log_info("crawl", "nothing is due: the crawl is complete");
	}
	round_explain_nothing_fetched(j);
	comm_barrier();
}

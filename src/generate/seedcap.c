#include "generate/seedcap.h"
#include "generate/select.h"
#include "scope/scope.h"
#include "scope/seeds.h"
#include "store/recfile.h"
#include "util/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

uint64_t seedcap_key(const struct crawl_record *r)
{
	uint64_t d = r->depth < 0xffff ? r->depth : 0xffff;

	return (d << 48 | XXH3_64bits(r->url, r->url_len) >> 16) & ~(uint64_t)1;
}

void seedcap_bounds(size_t n, const uint64_t *budget,
		    void (*count)(void *arg, const uint64_t *bound, uint64_t *out), void *arg,
		    uint64_t *bound)
{
	uint64_t *try = calloc(n ? n : 1, sizeof(*try)), *got = calloc(n ? n : 1, sizeof(*got));
	size_t k;
	int b;

	memset(bound, 0, n * sizeof(*bound));
	if (!try || !got) {   /* take nothing rather than more than allowed */
		free(try);
		free(got);
		return;
	}
	for (b = 63; b >= 0; b--) {
		for (k = 0; k < n; k++)
			try[k] = bound[k] | (uint64_t)1 << b;
		count(arg, try, got);
		for (k = 0; k < n; k++)
			if (got[k] <= budget[k])
				bound[k] = try[k];
	}
	free(try);
	free(got);
}

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Keys of k below bound on this rank (sorted: a binary search). */
static uint64_t below(const struct seedcap_keys *ks, uint64_t bound)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid] < bound)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void count_all(void *arg, const uint64_t *bound, uint64_t *out)
{
	const struct seedcap *c = arg;
	size_t k;

	for (k = 0; k < c->n; k++)
		out[k] = below(&c->keys[k], bound[k]);
	c->mpi->sum(out, c->n);   /* collective */
}

/* The seed index of r, or -1 when its seed has no max_pages. */
static long index_of(const struct seedcap *c, const struct crawl_record *r)
{
	uintptr_t v = r->seed && c->n ? (uintptr_t)hmap_get(&c->index, (const char *)&r->seed,
							  sizeof(r->seed)) : 0;

	return v ? (long)v - 1 : -1;
}

static enum cr_err add_key(struct seedcap_keys *ks, uint64_t key)
{
	if (ks->n == ks->cap) {
		size_t nc = ks->cap ? ks->cap * 2 : 64;
		uint64_t *v = realloc(ks->v, nc * sizeof(*v));

		if (!v)
			return CR_ERR_NOMEM;
		ks->v = v;
		ks->cap = nc;
	}
	ks->v[ks->n++] = key;
	return CR_OK;
}

/* One CrawlDb part: pages fetched, and due never-fetched candidates. */
static enum cr_err scan_part(struct seedcap *c, const struct job *j, const char *path,
			     int64_t now)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r);

	while (!e && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		long k;

		if (crawl_record_unpack(data, n, &rec) != CR_OK) {
			e = CR_ERR_FORMAT;
			break;
		}
		if ((k = index_of(c, &rec)) < 0)
			continue;
		if (rec.http_status)
			c->fetched[k]++;   /* a page: a request the server answered */
		else if (generate_due(&rec, now, j->cfg.max_depth) ||
			 generate_rejudged(&rec, j->config_since_us))
			e = add_key(&c->keys[k], seedcap_key(&rec));
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

/* The limited seeds of the crawl, indexed. */
static enum cr_err index_seeds(struct seedcap *c, const struct job *j, int ver)
{
	struct scope s;
	enum cr_err e;
	size_t i;

	scope_init(&s, SCOPE_ANY);
	s.settings_only = 1;
	e = scope_add_seeds(&s, &j->dir, ver);
	for (i = 0; !e && i < s.nlist; i++)
		if (s.list[i]->set.max_pages > 0)
			c->n++;
	c->limit = calloc(c->n + 1, sizeof(*c->limit));
	c->fetched = calloc(c->n + 1, sizeof(*c->fetched));
	c->bound = calloc(c->n + 1, sizeof(*c->bound));
	c->keys = calloc(c->n + 1, sizeof(*c->keys));
	if (!e && (!c->limit || !c->fetched || !c->bound || !c->keys))
		e = CR_ERR_NOMEM;
	c->n = 0;
	for (i = 0; !e && i < s.nlist; i++) {
		if (s.list[i]->set.max_pages <= 0)
			continue;
		c->limit[c->n] = (uint64_t)s.list[i]->set.max_pages;
		*hmap_put(&c->index, (const char *)&s.list[i]->id, sizeof(uint64_t)) =
			(void *)(uintptr_t)(c->n + 1);
		c->n++;
	}
	scope_release(&s);
	return e;
}

enum cr_err seedcap_prepare(struct seedcap *c, const struct job *j, int ver, int64_t now,
			    const struct seedcap_comm *mpi)
{
	char path[PATH_MAX];
	uint64_t *budget;
	uint32_t p;
	size_t k;
	enum cr_err e;

	memset(c, 0, sizeof(*c));
	c->mpi = mpi;
	hmap_init(&c->index);
	e = index_seeds(c, j, ver);
	if (!mpi->agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	if (c->n == 0)
		return CR_OK;
	for (p = 0; !e && ver > 0 && p < j->dir.partitions; p++) {
		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		layout_crawldb_part(&j->dir, ver, p, path, sizeof(path));
		e = scan_part(c, j, path, now);
	}
	if (!mpi->agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	mpi->sum(c->fetched, c->n);
	budget = calloc(c->n, sizeof(*budget));
	if (!mpi->agree(budget != NULL)) {
		free(budget);
		return CR_ERR_NOMEM;
	}
	for (k = 0; k < c->n; k++) {
		qsort(c->keys[k].v, c->keys[k].n, sizeof(uint64_t), key_cmp);
		budget[k] = c->fetched[k] < c->limit[k] ? c->limit[k] - c->fetched[k] : 0;
	}
	seedcap_bounds(c->n, budget, count_all, c, c->bound);
	free(budget);
	return CR_OK;
}

int seedcap_allows(const struct seedcap *c, const struct crawl_record *r)
{
	long k = r->fetched_at ? -1 : index_of(c, r);

	return k < 0 || seedcap_key(r) < c->bound[k];
}

void seedcap_release(struct seedcap *c)
{
	size_t k;

	for (k = 0; c->keys && k < c->n; k++)
		free(c->keys[k].v);
	free(c->keys);
	free(c->limit);
	free(c->fetched);
	free(c->bound);
	hmap_release(&c->index);
	memset(c, 0, sizeof(*c));
}

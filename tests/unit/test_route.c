/*
 * test_route.c - route_run (update/route.h) on 1 to 4 simulated ranks
 * (comm_sim.h), in a temporary crawl directory. Every rank produces links
 * drawn from a pool of URLs (the same URL from several ranks, at several
 * depths; sitemap entries; links that bring cash) in batches of
 * update.exchange_batch_kb; afterwards each rank holds a sort for exactly
 * the partitions it owns, and each yields exactly the links posted to that
 * partition by any rank, sorted as link_record_cmp says. With seen-sets:
 * a link to a URL the filter of its partition holds is dropped (counted),
 * or kept as its cash alone when it brings some, unless it is a sitemap's
 * entry; a partition without a filter sorts every link. Errors: a producer
 * that fails, a link posted to a rank that does not own it, bytes that are
 * no link - the rank that saw it says what, the others CR_ERR_COMM.
 */
#include "comm_sim.h"
#include "crawldb/link_record.h"
#include "seen/seen.h"
#include "test.h"
#include "update/route.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#define RANKS 4
#define HOSTS 40
#define PATHS 5

enum route_fault { FAULT_NONE, FAULT_PRODUCER, FAULT_MISROUTE, FAULT_GARBAGE };

struct route_case {
	const char *name;
	int nranks;
	uint32_t partitions;
	int nlinks[RANKS];
	int seen;                 /* filters of version 1 (not for partition 3) */
	int fault_rank;
	enum route_fault fault;
	enum cr_err want[RANKS];  /* with a fault */
};

struct producer {
	int rank, next, n;
	enum route_fault fault;
};

static char root[64];
static struct crawl_dir dir;
static struct config cfg;
static const struct route_case *cur;
static struct route routes[RANKS];
static enum cr_err init_ret[RANKS], run_ret[RANKS];

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void pool_url(unsigned k, char *out, size_t cap)
{
	snprintf(out, cap, "http://h%u.example/p%u", k % HOSTS, k / HOSTS % PATHS);
}

/* The URLs the seen-sets of version 1 hold: path p0 and p1. */
static int known(unsigned k)
{
	return k / HOSTS % PATHS < 2;
}

/* Link i of rank r (url and from point into the caller's buffers). */
static void link_of(int r, int i, char *url, char *from, size_t cap, struct link_record *l)
{
	uint64_t h = mix((uint64_t)r << 32 | (uint64_t)i);

	pool_url((unsigned)(h % (HOSTS * PATHS)), url, cap);
	snprintf(from, cap, "http://src%d.example/%d", r, i);
	memset(l, 0, sizeof(*l));
	l->url = url;
	l->url_len = strlen(url);
	l->from = from;
	l->from_len = strlen(from);
	l->depth = (uint32_t)(h >> 20) % 4;
	l->hops = (uint8_t)((h >> 24) % 2);
	if (i % 11 == 3) {
		l->flags = LINK_ENTRY;
		l->meta.priority = 501;
	}
	if (i % 7 == 0)
		l->cash = 0.25 * (1 + i % 3);
	l->seed = (uint64_t)r + 1;
}

static int produce(void *ctx, struct route *r)
{
	struct producer *pr = ctx;
	char url[128], from[128];
	struct link_record l;

	while (!route_full(r)) {
		if (pr->next == pr->n)
			return 1;
		if (pr->fault == FAULT_PRODUCER && pr->next == pr->n / 2)
			return -1;
		link_of(pr->rank, pr->next, url, from, sizeof(url), &l);
		if (pr->fault == FAULT_MISROUTE && pr->next == pr->n / 2) {
			/* past route_add: to the rank after its owner */
			uint32_t p = layout_partition(r->dir, l.url, l.url_len);
			struct buf b;

			buf_init(&b);
			link_record_pack(&l, &b);
			comm_stream_post(r->stream, (layout_owner(p, r->nranks) + 1) % r->nranks,
					 b.p, b.len);
			buf_release(&b);
		} else if (pr->fault == FAULT_GARBAGE && pr->next == pr->n / 2) {
			comm_stream_post(r->stream, 0, "\xff\xff\xff", 3);
		} else if (pr->next % 2) {
			route_add(r, l.url, l.url_len, l.depth, l.hops, l.from, l.from_len);
		} else {
			route_add_link(r, &l);
		}
		pr->next++;
	}
	return 0;
}

static void rank_main(void *arg)
{
	int me = comm_rank();
	struct producer pr = { me, 0, cur->nlinks[me], FAULT_NONE };
	char tmp[PATH_MAX];

	(void)arg;
	if (cur->fault && cur->fault_rank == me)
		pr.fault = cur->fault;
	snprintf(tmp, sizeof(tmp), "%s/tmp/r%d", root, me);
	init_ret[me] = fs_mkdirs(tmp);
	if (!init_ret[me])
		init_ret[me] = route_init(&routes[me], &dir, &cfg, tmp, me, comm_size(),
					  cur->seen ? 1 : 0);
	/* route_run is collective: every rank calls it. */
	if (comm_agree(init_ret[me] == CR_OK))
		run_ret[me] = route_run(&routes[me], produce, &pr);
}

/* The links produced route_add's way carry no flags, meta, cash or seed. */
static void as_produced(int r, int i, struct link_record *l)
{
	if (i % 2) {
		l->flags = 0;
		memset(&l->meta, 0, sizeof(l->meta));
		l->cash = 0;
		l->seed = 0;
	}
	(void)r;
}

static int cmp_packed(const void *a, const void *b)
{
	const struct buf *x = a, *y = b;

	return link_record_cmp(x->p, x->len, y->p, y->len);
}

/* What partition p should yield, in order, and how many links the
 * seen-sets drop there. */
static size_t expected(uint32_t p, struct buf **out, uint64_t *dropped)
{
	char url[128], from[128];
	struct link_record l;
	size_t n = 0, cap = 64;
	int r, i;

	*out = calloc(cap, sizeof(**out));
	for (r = 0; r < cur->nranks; r++)
		for (i = 0; i < cur->nlinks[r]; i++) {
			unsigned k;

			link_of(r, i, url, from, sizeof(url), &l);
			as_produced(r, i, &l);
			if (layout_partition(&dir, l.url, l.url_len) != p)
				continue;
			k = (unsigned)(mix((uint64_t)r << 32 | (uint64_t)i) % (HOSTS * PATHS));
			if (cur->seen && p != 3 && known(k) && !(l.flags & LINK_ENTRY)) {
				struct link_record c = { .url = l.url, .url_len = l.url_len,
							 .flags = LINK_CASH, .cash = l.cash };

				++*dropped;
				if (!(l.cash > 0))
					continue;
				l = c;
			}
			if (n == cap)
				*out = realloc(*out, (cap *= 2) * sizeof(**out));
			buf_init(&(*out)[n]);
			link_record_pack(&l, &(*out)[n++]);
		}
	qsort(*out, n, sizeof(**out), cmp_packed);
	return n;
}

/* Partition p of rank r yields what it should. */
static void check_partition(int r, uint32_t p)
{
	struct xsort *x = routes[r].sorts[p];
	struct buf *want;
	uint64_t dropped = 0;
	size_t n = expected(p, &want, &dropped), got = 0, bad = 0, i;
	const void *data;
	size_t len;
	enum cr_err e = xsort_finish(x);

	while (!e && (e = xsort_next(x, &data, &len)) == CR_OK) {
		if (got >= n || len != want[got].len || memcmp(data, want[got].p, len))
			bad++;
		got++;
	}
	CHECK(e == CR_EOF && got == n && !bad, "%s: partition %u on rank %d: %zu links (%zu "
	      "not as expected), want %zu (%s)", cur->name, p, r, got, bad, n, error_str(e));
	for (i = 0; i < n; i++)
		buf_release(&want[i]);
	free(want);
}

static void check_routed(const struct route_case *c)
{
	uint64_t sent = 0, received = 0, dropped = 0, want_dropped = 0;
	int r;
	uint32_t p;

	for (r = 0; r < c->nranks; r++) {
		const struct route *rt = &routes[r];

		CHECK(init_ret[r] == CR_OK && run_ret[r] == CR_OK, "%s: rank %d: init %s, run %s",
		      c->name, r, error_str(init_ret[r]), error_str(run_ret[r]));
		if (init_ret[r] || run_ret[r])
			return;
		CHECK(rt->sent == (uint64_t)c->nlinks[r], "%s: rank %d sent %llu of %d", c->name,
		      r, (unsigned long long)rt->sent, c->nlinks[r]);
		sent += rt->sent;
		received += rt->received;
		dropped += rt->seen_dropped;
		for (p = 0; p < c->partitions; p++) {
			CHECK(!rt->sorts[p] == !layout_owns(p, r, c->nranks), "%s: rank %d: a sort "
			      "for partition %u is %s", c->name, r, p,
			      rt->sorts[p] ? "there, not owned" : "missing");
			if (rt->sorts[p])
				check_partition(r, p);
		}
	}
	for (p = 0; p < c->partitions; p++) {
		struct buf *w;
		size_t n = expected(p, &w, &want_dropped);

		while (n)
			buf_release(&w[--n]);
		free(w);
	}
	CHECK(received == sent, "%s: %llu links received, %llu sent", c->name,
	      (unsigned long long)received, (unsigned long long)sent);
	CHECK(dropped == want_dropped && (!c->seen || dropped > 0), "%s: the seen-sets dropped "
	      "%llu, want %llu", c->name, (unsigned long long)dropped,
	      (unsigned long long)want_dropped);
}

/* Seen-sets of CrawlDb version 1 for every partition but 3, holding the
 * known URLs of the pool. */
static void write_seen(void)
{
	char path[PATH_MAX], url[128];
	struct buf hashes;
	uint32_t p;
	unsigned k;

	layout_crawldb_dir(&dir, 1, path, sizeof(path));
	CHECK(fs_mkdirs(path) == CR_OK, "mkdir %s", path);
	buf_init(&hashes);
	for (p = 0; p < dir.partitions; p++) {
		if (p == 3)
			continue;
		hashes.len = 0;
		for (k = 0; k < HOSTS * PATHS; k++) {
			pool_url(k, url, sizeof(url));
			if (known(k) && layout_partition(&dir, url, strlen(url)) == p)
				seen_note(&hashes, url, strlen(url));
		}
		CHECK(seen_write(&dir, &cfg, 1, p, &hashes) == CR_OK, "seen-set %u", p);
	}
	buf_release(&hashes);
}

/* The rank FAULT_MISROUTE's link goes to: the one after its owner. */
static int misrouted_to(const struct route_case *c)
{
	char url[128], from[128];
	struct link_record l;
	int i = c->nlinks[c->fault_rank] / 2;

	link_of(c->fault_rank, i, url, from, sizeof(url), &l);
	return (layout_owner(layout_partition(&dir, l.url, l.url_len), c->nranks) + 1) %
	       c->nranks;
}

static void run_case(const struct route_case *c)
{
	int r, saved;

	cur = c;
	memset(routes, 0, sizeof(routes));
	memset(init_ret, 0, sizeof(init_ret));
	memset(run_ret, 0, sizeof(run_ret));
	dir.partitions = c->partitions;
	if (c->seen)
		write_seen();
	saved = test_quiet_on();   /* "no seen-set" for partition 3; the faults */
	CHECK(comm_sim_run(c->nranks, rank_main, NULL) == 0, "%s: run", c->name);
	test_quiet_off(saved);
	if (!c->fault)
		check_routed(c);
	for (r = 0; c->fault && r < c->nranks; r++) {
		enum cr_err want = c->want[r];

		if (c->fault == FAULT_MISROUTE)
			want = r == misrouted_to(c) ? CR_ERR_FORMAT : CR_ERR_COMM;
		CHECK(run_ret[r] == want, "%s: rank %d returned %s, want %s", c->name, r,
		      error_str(run_ret[r]), error_str(want));
	}
	for (r = 0; r < c->nranks; r++)
		if (routes[r].sorts)
			route_release(&routes[r]);
	CHECK(fs_remove_tree(root) == CR_OK && mkdir(root, 0700) == 0, "a fresh directory");
}

static void test_cases(void)
{
	static const struct route_case rows[] = {
		{ .name = "1 rank", .nranks = 1, .partitions = 7, .nlinks = { 900 } },
		{ .name = "2 ranks", .nranks = 2, .partitions = 7, .nlinks = { 700, 500 } },
		{ .name = "3 ranks, one without links", .nranks = 3, .partitions = 7,
		  .nlinks = { 600, 0, 1500 } },
		{ .name = "4 ranks", .nranks = 4, .partitions = 7,
		  .nlinks = { 400, 300, 20, 800 } },
		{ .name = "4 ranks, 2 partitions: two ranks own none", .nranks = 4,
		  .partitions = 2, .nlinks = { 300, 300, 300, 300 } },
		{ .name = "2 ranks, seen-sets", .nranks = 2, .partitions = 7, .seen = 1,
		  .nlinks = { 800, 800 } },
		{ .name = "3 ranks, seen-sets", .nranks = 3, .partitions = 5, .seen = 1,
		  .nlinks = { 500, 900, 100 } },
		{ .name = "the producer fails", .nranks = 3, .partitions = 7,
		  .nlinks = { 400, 400, 400 }, .fault_rank = 1, .fault = FAULT_PRODUCER,
		  .want = { CR_ERR_COMM, CR_ERR_IO, CR_ERR_COMM } },
		{ .name = "a link reaches a rank that does not own it", .nranks = 2,
		  .partitions = 7, .nlinks = { 400, 400 }, .fault_rank = 0,
		  .fault = FAULT_MISROUTE },
		{ .name = "bytes that are no link", .nranks = 3, .partitions = 7,
		  .nlinks = { 400, 400, 400 }, .fault_rank = 2, .fault = FAULT_GARBAGE,
		  .want = { CR_ERR_FORMAT, CR_ERR_COMM, CR_ERR_COMM } },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_case(&rows[i]);
}

int main(void)
{
	alarm(60);
	snprintf(root, sizeof(root), "/tmp/test_route.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	memset(&dir, 0, sizeof(dir));
	snprintf(dir.root, sizeof(dir.root), "%s", root);
	dir.partition_by = PARTITION_BY_HOST;
	config_defaults(&cfg);
	cfg.memory_budget_mb = 16;
	cfg.exchange_batch_kb = 1;     /* many rounds */
	cfg.seen_enabled = 1;
	cfg.seen_expected_urls = 1000;
	test_cases();
	CHECK(fs_remove_tree(root) == CR_OK, "remove %s", root);
	TEST_DONE();
}

/*
 * test_merge.c - the update merge (update/merge.h). merge_apply over a
 * table of (old record, fetch outcome, config) -> new record: retries and
 * GONE after crawl.max_retries, DENIED due again after robots.cache_ttl_s,
 * next_fetch from the refetch and retry intervals, the smaller depth, the
 * old digest kept on ERROR. Then merge_partition end to end in a temporary
 * crawl directory: CrawlDb version 1 plus sorted fetch outcomes and links
 * (duplicates at several depths, links to known URLs, links past
 * crawl.max_depth, a bulk of generated links checked against a model) gives
 * version 2 sorted, each URL once, with the right statuses, depths and
 * counts. Also: a merge from nothing (version 0), a missing old version and
 * a damaged old part.
 */
#include "generate/refresh.h"
#include "store/recfile.h"
#include "test.h"
#include "update/merge.h"
#include "util/buf.h"
#include "util/fs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define T0 1600000000000000LL   /* µs: when the old records were fetched */
#define T1 1700000000000000LL   /* µs: this round */
#define SEC 1000000LL

static char tmp_dir[256];

static uint64_t rng_state = 99;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct fetch_record fetch_of(const char *url, int status, int http, uint32_t depth,
				    int64_t at, uint64_t digest)
{
	struct fetch_record f;

	memset(&f, 0, sizeof(f));
	f.rec.url = url;
	f.rec.url_len = strlen(url);
	f.rec.status = (uint8_t)status;
	f.rec.http_status = (uint16_t)http;
	f.rec.depth = depth;
	f.rec.fetched_at = at;
	f.rec.next_fetch = at;   /* the fetcher's value; merge decides */
	f.rec.digest = digest;
	f.reason = "";
	f.location = "";
	f.content_type = "";
	f.charset = "";
	f.warc = "";
	return f;
}

/* ---- merge_apply ------------------------------------------------------ */

static void test_apply(void)
{
	struct config def, cfg0, cfg_short;
	static const struct {
		const char *name;
		int cfg;               /* 0 defaults, 1 max_retries 0, 2 short times */
		int has_old;
		int old_status, old_depth, old_retries;
		uint64_t old_digest;
		int f_status, f_http, f_depth;
		uint64_t f_digest;
		int want_status, want_retries, want_depth;
		int64_t want_due;      /* seconds after T1 */
		uint64_t want_digest;
	} cases[] = {
		{ "new page fetched", 0, 0, 0, 0, 0, 0, ST_FETCHED, 200, 2, 11,
		  ST_FETCHED, 0, 2, 2592000, 11 },
		{ "refetched: shallower old depth kept", 0, 1, ST_FETCHED, 1, 0, 10, ST_FETCHED,
		  200, 5, 11, ST_FETCHED, 0, 1, 2592000, 11 },
		{ "fetched from a shallower page", 0, 1, ST_UNFETCHED, 7, 0, 0, ST_FETCHED, 200, 3,
		  11, ST_FETCHED, 0, 3, 2592000, 11 },
		{ "success clears retries", 0, 1, ST_ERROR, 2, 2, 10, ST_FETCHED, 304, 2, 10,
		  ST_FETCHED, 0, 2, 2592000, 10 },
		{ "first error", 0, 0, 0, 0, 0, 0, ST_ERROR, 503, 1, 0, ST_ERROR, 1, 1, 86400, 0 },
		{ "error keeps old digest", 0, 1, ST_FETCHED, 1, 0, 0xabcULL, ST_ERROR, 0, 1,
		  0xdefULL, ST_ERROR, 1, 1, 86400, 0xabcULL },
		{ "second error", 0, 1, ST_ERROR, 1, 1, 7, ST_ERROR, 429, 1, 0, ST_ERROR, 2, 1,
		  86400, 7 },
		{ "error number max_retries", 0, 1, ST_ERROR, 1, 2, 7, ST_ERROR, 500, 1, 0,
		  ST_ERROR, 3, 1, 86400, 7 },
		{ "error past max_retries: gone", 0, 1, ST_ERROR, 1, 3, 7, ST_ERROR, 500, 1, 0,
		  ST_GONE, 4, 1, 2592000, 7 },
		{ "max_retries 0: first error is gone", 1, 0, 0, 0, 0, 0, ST_ERROR, 0, 0, 0,
		  ST_GONE, 1, 0, 2592000, 0 },
		{ "denied: robots ttl", 0, 1, ST_UNFETCHED, 4, 0, 0, ST_DENIED, 0, 6, 0,
		  ST_DENIED, 0, 4, 86400, 0 },
		{ "denied clears retries", 0, 1, ST_ERROR, 4, 2, 3, ST_DENIED, 0, 4, 0, ST_DENIED,
		  0, 4, 86400, 0 },
		{ "gone 404", 0, 1, ST_FETCHED, 0, 0, 5, ST_GONE, 404, 0, 0, ST_GONE, 0, 0,
		  2592000, 0 },
		{ "redirect", 0, 0, 0, 0, 0, 0, ST_REDIRECT, 301, 3, 0, ST_REDIRECT, 0, 3,
		  2592000, 0 },
		{ "blocked", 0, 0, 0, 0, 0, 0, ST_BLOCKED, 0, 3, 0, ST_BLOCKED, 0, 3, 2592000, 0 },
		{ "short: fetched", 2, 1, ST_UNFETCHED, 0, 0, 0, ST_FETCHED, 200, 0, 1, ST_FETCHED,
		  0, 0, 100, 1 },
		{ "short: error", 2, 1, ST_UNFETCHED, 0, 0, 0, ST_ERROR, 0, 0, 0, ST_ERROR, 1, 0,
		  10, 0 },
		{ "short: denied", 2, 1, ST_UNFETCHED, 0, 0, 0, ST_DENIED, 0, 0, 0, ST_DENIED, 0, 0,
		  60, 0 },
		{ "short: gone after 2", 2, 1, ST_ERROR, 0, 2, 0, ST_ERROR, 0, 0, 0, ST_GONE, 3, 0,
		  100, 0 },
	};
	size_t i;

	config_defaults(&def);
	cfg0 = def;
	cfg0.max_retries = 0;
	cfg_short = def;
	cfg_short.refetch_interval_s = 100;
	cfg_short.retry_interval_s = 10;
	cfg_short.robots_ttl_s = 60;
	cfg_short.max_retries = 2;
	CHECK(def.max_retries == 3 && def.retry_interval_s == 86400 &&
		      def.refetch_interval_s == 2592000 && def.robots_ttl_s == 86400,
	      "defaults the table assumes");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct config *c = cases[i].cfg == 0 ? &def
					: cases[i].cfg == 1 ? &cfg0 : &cfg_short;
		static const char old_url[] = "http://old.example/page";
		struct crawl_record old, out;
		struct fetch_record f = fetch_of("http://old.example/page", cases[i].f_status,
						 cases[i].f_http, (uint32_t)cases[i].f_depth,
						 T1, cases[i].f_digest);

		memset(&old, 0, sizeof(old));
		old.url = old_url;
		old.url_len = strlen(old_url);
		old.status = (uint8_t)cases[i].old_status;
		old.depth = (uint32_t)cases[i].old_depth;
		old.retries = (uint8_t)cases[i].old_retries;
		old.digest = cases[i].old_digest;
		old.fetched_at = T0;
		old.next_fetch = T0 + 5 * SEC;
		memset(&out, 0x5a, sizeof(out));
		merge_apply(cases[i].has_old ? &old : NULL, &f, c, &out);
		CHECK(out.status == cases[i].want_status, "%s: status %s, want %s",
		      cases[i].name, crawl_record_status_name(out.status),
		      crawl_record_status_name(cases[i].want_status));
		CHECK(out.retries == cases[i].want_retries, "%s: retries %d, want %d",
		      cases[i].name, out.retries, cases[i].want_retries);
		CHECK(out.depth == (uint32_t)cases[i].want_depth, "%s: depth %u, want %d",
		      cases[i].name, out.depth, cases[i].want_depth);
		CHECK(out.next_fetch == T1 + cases[i].want_due * SEC,
		      "%s: due %+lld s, want %+lld s", cases[i].name,
		      (long long)((out.next_fetch - T1) / SEC), (long long)cases[i].want_due);
		CHECK(out.digest == cases[i].want_digest, "%s: digest %llx, want %llx",
		      cases[i].name, (unsigned long long)out.digest,
		      (unsigned long long)cases[i].want_digest);
		CHECK(out.fetched_at == T1 && out.http_status == cases[i].f_http,
		      "%s: fetched_at and http status from the fetch", cases[i].name);
		CHECK(out.url_len == old.url_len && !memcmp(out.url, old_url, old.url_len),
		      "%s: url", cases[i].name);
	}
}

/* A trap rule for merge_decide: the URL's last byte names it. */
static const char *trap_by_name(void *arg, const struct link_record *l)
{
	(void)arg;
	switch (l->url[l->url_len - 1]) {
	case 'p': return "path";
	case 'q': return "query";
	case 'h': return "host";
	default: return NULL;
	}
}

/* A new URL from a link: added, too deep, or a trap with its reason. */
static void test_new_links(void)
{
	static const struct {
		const char *url;
		uint32_t depth;
		uint8_t hops;
		enum merge_verdict want;
		const char *reason;
	} cases[] = {
		{ "http://a.test/x", 1, 0, MERGE_ADDED, "" },
		{ "http://a.test/x", 4, 0, MERGE_TOO_DEEP, "" },
		{ "http://a.test/x", 1, 6, MERGE_TRAP, "trap:redirects" },
		{ "http://a.test/p", 1, 0, MERGE_TRAP, "trap:path" },
		{ "http://a.test/q", 1, 0, MERGE_TRAP, "trap:query" },
		{ "http://a.test/h", 1, 0, MERGE_TRAP, "trap:host" },
	};
	struct config cfg;
	size_t i;

	config_defaults(&cfg);
	cfg.max_depth = 3;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct link_record l = { .url = cases[i].url, .url_len = strlen(cases[i].url),
					 .depth = cases[i].depth, .hops = cases[i].hops,
					 .from = "http://a.test/", .from_len = 14 };
		struct merge_in in = { NULL, NULL, &l, NULL, trap_by_name, NULL, 0, 0 };
		struct crawl_record out;
		enum merge_verdict v = merge_decide(&in, &cfg, &out);

		CHECK(v == cases[i].want, "case %zu: verdict %d, want %d", i, v, cases[i].want);
		if (v == MERGE_TOO_DEEP)
			continue;
		CHECK(out.reason_len == strlen(cases[i].reason) &&
		      !memcmp(out.reason, cases[i].reason, out.reason_len) &&
		      (v != MERGE_TRAP || (out.status == ST_TRAP && out.next_fetch == INT64_MAX)),
		      "case %zu: reason '%.*s', status %d", i, (int)out.reason_len, out.reason,
		      out.status);
	}
}

/* Which fetch outcomes the decision log names, and with which reason. */
static void test_refusal(void)
{
	static const struct {
		int status;
		const char *reason, *want;
	} cases[] = {
		{ ST_DENIED, "robots.txt", "robots" },
		{ ST_BLOCKED, "operator", "operator" },
		{ ST_BLOCKED, "non-public address", "blocked:address" },
		{ ST_BLOCKED, "redirect to not http or https", "blocked:redirect" },
		{ ST_BLOCKED, "", "blocked" },
		{ ST_FETCHED, "", NULL },
		{ ST_ERROR, "dns: nxdomain", NULL },
		{ ST_DEFERRED, "crawl-delay above politeness.max_crawl_delay_ms", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct crawl_record r;
		const char *got;

		memset(&r, 0, sizeof(r));
		r.status = (uint8_t)cases[i].status;
		r.reason = cases[i].reason;
		r.reason_len = strlen(cases[i].reason);
		got = merge_refusal(&r);
		CHECK(cases[i].want ? got && !strcmp(got, cases[i].want) : !got, "case %zu: %s",
		      i, got ? got : "(none)");
	}
}

/* ---- merge_partition -------------------------------------------------- */

struct want {
	const char *url;
	int status;
	uint32_t depth;
	int retries;
	int64_t next_fetch;
	uint64_t digest;
};

/* The old CrawlDb (version 1): sorted by URL. */
static const struct want old_db[] = {
	{ "http://a.example/", ST_FETCHED, 0, 0, T0 + 10 * SEC, 1 },
	{ "http://a.example/err", ST_ERROR, 1, 3, T0, 7 },
	{ "http://a.example/keep", ST_FETCHED, 2, 0, 12345, 9 },
	{ "http://a.example/linked", ST_UNFETCHED, 4, 0, 0, 0 },
	{ "http://a.example/linked-deeper", ST_UNFETCHED, 1, 0, 0, 0 },
	{ "http://a.example/retry", ST_ERROR, 2, 1, T0, 5 },
	{ "http://b.example/", ST_UNFETCHED, 1, 0, 0, 0 },
	{ "http://c.example/deep", ST_UNFETCHED, 9, 0, 0, 0 },
	{ "http://z.example/last-old", ST_GONE, 0, 0, T0 + 20 * SEC, 3 },
};

/* What version 2 must hold (besides the generated g.example links). */
static const struct want new_db[] = {
	{ "http://a.example/", ST_FETCHED, 0, 0, T1 + 2592000 * SEC, 11 },
	{ "http://a.example/err", ST_GONE, 1, 4, T1 + 2592000 * SEC, 7 },
	{ "http://a.example/keep", ST_FETCHED, 2, 0, 12345, 9 },
	{ "http://a.example/linked", ST_UNFETCHED, 2, 0, 0, 0 },
	{ "http://a.example/linked-deeper", ST_UNFETCHED, 1, 0, 0, 0 },
	{ "http://a.example/retry", ST_ERROR, 2, 2, T1 + 86400 * SEC, 5 },
	{ "http://b.example/", ST_FETCHED, 0, 0, T1 + 2592000 * SEC, 22 },
	{ "http://c.example/deep", ST_UNFETCHED, 9, 0, 0, 0 },
	{ "http://d.example/denied", ST_DENIED, 2, 0, T1 + 86400 * SEC, 0 },
	{ "http://e.example/new", ST_UNFETCHED, 2, 0, 0, 0 },
	{ "http://e.example/new2", ST_UNFETCHED, 3, 0, 0, 0 },
	{ "http://f.example/mixed-depth", ST_UNFETCHED, 3, 0, 0, 0 },
	{ "http://new.example/fetched-only", ST_FETCHED, 2, 0, T1 + 2592000 * SEC, 33 },
	{ "http://z.example/last-old", ST_GONE, 0, 0, T0 + 20 * SEC, 3 },
};

static const struct {
	const char *url;
	int status, http;
	uint32_t depth;
	uint64_t digest;
} fetches[] = {
	{ "http://new.example/fetched-only", ST_FETCHED, 200, 2, 33 },
	{ "http://a.example/retry", ST_ERROR, 503, 2, 0 },
	{ "http://a.example/", ST_FETCHED, 200, 3, 11 },
	{ "http://d.example/denied", ST_DENIED, 0, 2, 0 },
	{ "http://b.example/", ST_FETCHED, 200, 1, 22 },
	{ "http://a.example/err", ST_ERROR, 503, 1, 0 },
};

static const struct {
	const char *url;
	uint32_t depth;
} links[] = {
	{ "http://e.example/new", 5 },
	{ "http://a.example/linked", 3 },
	{ "http://f.example/too-deep", 6 },
	{ "http://a.example/", 1 },
	{ "http://e.example/new", 2 },
	{ "http://a.example/linked", 2 },
	{ "http://f.example/mixed-depth", 7 },
	{ "http://c.example/deep", 10 },
	{ "http://e.example/new2", 3 },
	{ "http://a.example/linked-deeper", 3 },
	{ "http://f.example/too-deep", 4 },
	{ "http://b.example/", 0 },
	{ "http://e.example/new", 4 },
	{ "http://new.example/fetched-only", 7 },
	{ "http://f.example/mixed-depth", 3 },
	{ "http://a.example/linked", 2 },
};

#define MAX_DEPTH 3
#define GEN_URLS 700
#define GEN_LINKS 3000

static void crawl_dir_at(struct crawl_dir *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->root, sizeof(d->root), "%s/%s", tmp_dir, name);
	d->partitions = 1;
	d->partition_by = PARTITION_BY_HOST;
}

static enum cr_err make_version_dir(const struct crawl_dir *d, int v)
{
	char dir[PATH_MAX];

	layout_crawldb_dir(d, v, dir, sizeof(dir));
	return fs_mkdirs(dir);
}

static enum cr_err write_old(const struct crawl_dir *d, const struct want *w, size_t n,
			     const struct config *cfg)
{
	char path[PATH_MAX];
	struct recfile_writer *wr;
	struct buf b;
	enum cr_err e;
	size_t i;

	layout_crawldb_part(d, 1, 0, path, sizeof(path));
	e = recfile_writer_open(path, REC_KIND_CRAWLDB, (int)cfg->zstd_level, &wr);
	if (e)
		return e;
	buf_init(&b);
	for (i = 0; i < n && !e; i++) {
		struct crawl_record r;

		memset(&r, 0, sizeof(r));
		r.url = w[i].url;
		r.url_len = strlen(w[i].url);
		r.status = (uint8_t)w[i].status;
		r.depth = w[i].depth;
		r.retries = (uint8_t)w[i].retries;
		r.fetched_at = w[i].status == ST_UNFETCHED ? 0 : T0;
		r.next_fetch = w[i].next_fetch;
		r.digest = w[i].digest;
		buf_reset(&b);
		crawl_record_pack(&r, &b);
		e = recfile_writer_add(wr, b.p, b.len);
	}
	buf_release(&b);
	if (e) {
		recfile_writer_abort(&wr);
		return e;
	}
	return recfile_writer_commit(&wr);
}

static void gen_url(char *out, size_t cap, unsigned k)
{
	snprintf(out, cap, "http://g.example/%04u", k);
}

static void test_partition(void)
{
	struct config cfg;
	struct crawl_dir d;
	struct xsort *fx = NULL, *lx = NULL;
	struct merge_stats st;
	char sortdir[PATH_MAX], path[PATH_MAX];
	uint32_t gen_min[GEN_URLS];
	size_t i, gen_added = 0, gen_too_deep = 0, nread = 0;
	struct buf b, prev;
	struct recfile_reader *rd = NULL;
	enum cr_err e;
	int sorted = 1, ok_gen = 1, bad_rec = 0;
	size_t seen[sizeof(new_db) / sizeof(new_db[0])] = { 0 };

	config_defaults(&cfg);
	cfg.max_depth = MAX_DEPTH;
	crawl_dir_at(&d, "crawl");
	snprintf(sortdir, sizeof(sortdir), "%s/sort", tmp_dir);
	CHECK(fs_mkdirs(sortdir) == CR_OK, "mkdir sort");
	CHECK(make_version_dir(&d, 1) == CR_OK && make_version_dir(&d, 2) == CR_OK,
	      "mkdir crawldb versions");
	for (i = 1; i < sizeof(old_db) / sizeof(old_db[0]); i++)
		CHECK(strcmp(old_db[i - 1].url, old_db[i].url) < 0, "old_db sorted at %zu", i);
	e = write_old(&d, old_db, sizeof(old_db) / sizeof(old_db[0]), &cfg);
	CHECK(e == CR_OK, "write version 1: %s", error_str(e));

	buf_init(&b);
	buf_init(&prev);
	/* Fetch outcomes, through an external sort as update does. */
	CHECK(xsort_new(sortdir, 1u << 20, crawl_record_cmp, &fx) == CR_OK, "fetch sort");
	for (i = 0; fx && i < sizeof(fetches) / sizeof(fetches[0]); i++) {
		struct fetch_record f = fetch_of(fetches[i].url, fetches[i].status,
						 fetches[i].http, fetches[i].depth, T1,
						 fetches[i].digest);

		buf_reset(&b);
		fetch_record_pack(&f, &b);
		CHECK(xsort_add(fx, b.p, b.len) == CR_OK, "add fetch %zu", i);
	}
	/* Links, the hand-picked ones and generated ones with duplicates. */
	CHECK(xsort_new(sortdir, 1u << 20, link_record_cmp, &lx) == CR_OK, "link sort");
	for (i = 0; i < GEN_URLS; i++)
		gen_min[i] = UINT32_MAX;
	for (i = 0; lx && i < sizeof(links) / sizeof(links[0]) + GEN_LINKS; i++) {
		struct link_record l;
		char u[64];

		memset(&l, 0, sizeof(l));   /* flags, kind, meta: none */
		if (i < sizeof(links) / sizeof(links[0])) {
			l.url = links[i].url;
			l.depth = links[i].depth;
		} else {
			unsigned k = (unsigned)(rng() % GEN_URLS);

			gen_url(u, sizeof(u), k);
			l.url = u;
			l.depth = (uint32_t)(rng() % 7);
			if (l.depth < gen_min[k])
				gen_min[k] = l.depth;
		}
		l.url_len = strlen(l.url);
		buf_reset(&b);
		link_record_pack(&l, &b);
		if (xsort_add(lx, b.p, b.len) != CR_OK)
			CHECK(0, "add link %zu", i);
	}
	for (i = 0; i < GEN_URLS; i++) {
		if (gen_min[i] == UINT32_MAX)
			continue;
		if (gen_min[i] > MAX_DEPTH)
			gen_too_deep++;
		else
			gen_added++;
	}
	CHECK(gen_too_deep > 0 && gen_added > 0, "the model has both kinds");
	if (!fx || !lx || xsort_finish(fx) != CR_OK || xsort_finish(lx) != CR_OK) {
		CHECK(0, "sorts ready");
		goto out;
	}

	memset(&st, 0, sizeof(st));
	e = merge_partition(&d, &cfg, 1, 2, 0, fx, lx, &st, NULL, NULL);
	CHECK(e == CR_OK, "merge_partition: %s", error_str(e));
	CHECK(st.updated == 6, "updated %llu, want 6", (unsigned long long)st.updated);
	CHECK(st.added == 3 + gen_added, "added %llu, want %zu",
	      (unsigned long long)st.added, 3 + gen_added);
	CHECK(st.too_deep == 1 + gen_too_deep, "too_deep %llu, want %zu",
	      (unsigned long long)st.too_deep, 1 + gen_too_deep);
	CHECK(st.records == 14 + gen_added, "records %llu, want %zu",
	      (unsigned long long)st.records, 14 + gen_added);
	CHECK(st.by_status[ST_FETCHED] == 4 && st.by_status[ST_GONE] == 2 &&
		      st.by_status[ST_ERROR] == 1 && st.by_status[ST_DENIED] == 1 &&
		      st.by_status[ST_REDIRECT] == 0 && st.by_status[ST_BLOCKED] == 0 &&
		      st.by_status[ST_UNFETCHED] == 6 + gen_added,
	      "by_status %llu %llu %llu %llu %llu", (unsigned long long)st.by_status[0],
	      (unsigned long long)st.by_status[1], (unsigned long long)st.by_status[3],
	      (unsigned long long)st.by_status[4], (unsigned long long)st.by_status[5]);

	/* Read version 2 back. */
	layout_crawldb_part(&d, 2, 0, path, sizeof(path));
	e = recfile_reader_open(path, REC_KIND_CRAWLDB, &rd);
	CHECK(e == CR_OK, "open version 2: %s", error_str(e));
	while (rd) {
		const void *p;
		size_t n, k;
		struct crawl_record r;
		char u[128];

		e = recfile_reader_next(rd, &p, &n);
		if (e != CR_OK)
			break;
		nread++;
		if (crawl_record_unpack(p, n, &r) != CR_OK || r.url_len >= sizeof(u)) {
			bad_rec++;
			continue;
		}
		if (prev.len && crawl_record_cmp(prev.p, prev.len, p, n) >= 0)
			sorted = 0;
		buf_reset(&prev);
		buf_add(&prev, p, n);
		memcpy(u, r.url, r.url_len);
		u[r.url_len] = '\0';
		if (!strncmp(u, "http://g.example/", 17)) {
			unsigned gk = (unsigned)strtoul(u + 17, NULL, 10);

			if (gk >= GEN_URLS || gen_min[gk] > MAX_DEPTH || r.depth != gen_min[gk] ||
			    r.status != ST_UNFETCHED || r.retries || r.next_fetch ||
			    r.fetched_at || r.digest)
				ok_gen = 0;
			continue;
		}
		for (k = 0; k < sizeof(new_db) / sizeof(new_db[0]); k++)
			if (!strcmp(new_db[k].url, u))
				break;
		if (k == sizeof(new_db) / sizeof(new_db[0])) {
			CHECK(0, "unexpected URL %s in version 2", u);
			continue;
		}
		seen[k]++;
		CHECK(r.status == new_db[k].status, "%s: status %s, want %s", u,
		      crawl_record_status_name(r.status), crawl_record_status_name(new_db[k].status));
		CHECK(r.depth == new_db[k].depth, "%s: depth %u, want %u", u, r.depth,
		      new_db[k].depth);
		CHECK(r.retries == new_db[k].retries, "%s: retries %d, want %d", u, r.retries,
		      new_db[k].retries);
		CHECK(r.next_fetch == new_db[k].next_fetch, "%s: next_fetch %lld, want %lld", u,
		      (long long)r.next_fetch, (long long)new_db[k].next_fetch);
		CHECK(r.digest == new_db[k].digest, "%s: digest %llu, want %llu", u,
		      (unsigned long long)r.digest, (unsigned long long)new_db[k].digest);
	}
	CHECK(e == CR_EOF, "version 2 ends cleanly: %s", error_str(e));
	recfile_reader_free(&rd);
	CHECK(bad_rec == 0, "%d records do not unpack", bad_rec);
	CHECK(sorted, "version 2 strictly sorted (each URL once)");
	CHECK(ok_gen, "generated links: present iff min depth <= %d, with that depth",
	      MAX_DEPTH);
	CHECK(nread == st.records, "%zu records read, stats say %llu", nread,
	      (unsigned long long)st.records);
	for (i = 0; i < sizeof(new_db) / sizeof(new_db[0]); i++)
		CHECK(seen[i] == 1, "%s seen %zu times", new_db[i].url, seen[i]);
	/* Version 1 is untouched; no temporary file left in version 2. */
	layout_crawldb_part(&d, 1, 0, path, sizeof(path));
	CHECK(fs_exists(path), "version 1 still there");
out:
	xsort_free(&fx);
	xsort_free(&lx);
	buf_release(&b);
	buf_release(&prev);
}

/* Version 1 from links alone (no old part, no fetch list), as inject does. */
static void test_from_nothing(void)
{
	static const struct link_record in[] = {
		{ .url = "http://b/", .url_len = 9, .depth = 0, .from = "" }, { .url = "http://a/", .url_len = 9, .depth = 0, .from = "" },
		{ .url = "http://b/", .url_len = 9, .depth = 0, .from = "" },
		{ .url = "http://c/", .url_len = 9, .depth = 5, .from = "" },
	};
	struct config cfg;
	struct crawl_dir d;
	struct xsort *lx = NULL;
	struct merge_stats st;
	char sortdir[PATH_MAX], path[PATH_MAX];
	struct recfile_reader *rd = NULL;
	struct buf b;
	size_t i;
	enum cr_err e;

	config_defaults(&cfg);   /* max_depth 0: no limit */
	crawl_dir_at(&d, "fresh");
	snprintf(sortdir, sizeof(sortdir), "%s/sort", tmp_dir);
	CHECK(make_version_dir(&d, 1) == CR_OK, "mkdir fresh");
	buf_init(&b);
	CHECK(xsort_new(sortdir, 1u << 20, link_record_cmp, &lx) == CR_OK, "fresh sort");
	for (i = 0; lx && i < sizeof(in) / sizeof(in[0]); i++) {
		buf_reset(&b);
		link_record_pack(&in[i], &b);
		CHECK(xsort_add(lx, b.p, b.len) == CR_OK, "fresh add");
	}
	CHECK(lx && xsort_finish(lx) == CR_OK, "fresh finish");
	memset(&st, 0, sizeof(st));
	e = lx ? merge_partition(&d, &cfg, 0, 1, 0, NULL, lx, &st, NULL, NULL) : CR_ERR_STATE;
	CHECK(e == CR_OK, "merge from nothing: %s", error_str(e));
	CHECK(st.records == 3 && st.added == 3 && st.updated == 0 && st.too_deep == 0 &&
		      st.by_status[ST_UNFETCHED] == 3, "fresh stats");
	layout_crawldb_part(&d, 1, 0, path, sizeof(path));
	if (recfile_reader_open(path, REC_KIND_CRAWLDB, &rd) == CR_OK) {
		static const char *const want[] = { "http://a/", "http://b/", "http://c/" };
		static const uint32_t want_depth[] = { 0, 0, 5 };
		const void *p;
		size_t n, k = 0;
		int ok = 1;

		while ((e = recfile_reader_next(rd, &p, &n)) == CR_OK) {
			struct crawl_record r;

			if (k >= 3 || crawl_record_unpack(p, n, &r) != CR_OK ||
			    r.url_len != strlen(want[k]) || memcmp(r.url, want[k], r.url_len) ||
			    r.depth != want_depth[k] || r.status != ST_UNFETCHED)
				ok = 0;
			k++;
		}
		CHECK(ok && k == 3 && e == CR_EOF, "fresh version 1 content");
		recfile_reader_free(&rd);
	} else {
		CHECK(0, "open fresh version 1");
	}
	xsort_free(&lx);

	/* An empty merge writes an empty part. */
	CHECK(make_version_dir(&d, 2) == CR_OK, "mkdir fresh 2");
	memset(&st, 0, sizeof(st));
	e = merge_partition(&d, &cfg, 0, 2, 0, NULL, NULL, &st, NULL, NULL);
	CHECK(e == CR_OK && st.records == 0, "empty merge");
	layout_crawldb_part(&d, 2, 0, path, sizeof(path));
	CHECK(fs_exists(path), "empty part written");

	/* The old version is missing: a state error, and nothing written. */
	CHECK(make_version_dir(&d, 4) == CR_OK, "mkdir fresh 4");
	memset(&st, 0, sizeof(st));
	e = merge_partition(&d, &cfg, 3, 4, 0, NULL, NULL, &st, NULL, NULL);
	CHECK(e == CR_ERR_STATE, "missing old version: %s", error_str(e));
	layout_crawldb_part(&d, 4, 0, path, sizeof(path));
	CHECK(!fs_exists(path), "nothing written for a missing old version");

	/* A damaged record in the old part: a format error, nothing committed. */
	{
		struct recfile_writer *w;

		CHECK(make_version_dir(&d, 5) == CR_OK, "mkdir fresh 5");
		layout_crawldb_part(&d, 4, 0, path, sizeof(path));
		CHECK(recfile_writer_open(path, REC_KIND_CRAWLDB, 1, &w) == CR_OK, "open damaged");
		buf_reset(&b);
		buf_put_u8(&b, 1);
		buf_put_str(&b, "http://x/", 9);
		CHECK(recfile_writer_add(w, b.p, b.len) == CR_OK, "add damaged");
		CHECK(recfile_writer_commit(&w) == CR_OK, "commit damaged");
		memset(&st, 0, sizeof(st));
		e = merge_partition(&d, &cfg, 4, 5, 0, NULL, NULL, &st, NULL, NULL);
		CHECK(e == CR_ERR_FORMAT, "damaged old record: %s", error_str(e));
		layout_crawldb_part(&d, 5, 0, path, sizeof(path));
		CHECK(!fs_exists(path), "nothing committed after a damaged record");
	}
	buf_release(&b);
}

/* A sort of links (cash, LINK_CASH flags) finished, or NULL. */
static struct xsort *link_sort(const struct link_record *in, size_t n)
{
	char sortdir[PATH_MAX];
	struct xsort *lx = NULL;
	struct buf b;
	size_t i;

	snprintf(sortdir, sizeof(sortdir), "%s/sort", tmp_dir);
	if (fs_mkdirs(sortdir) || xsort_new(sortdir, 1u << 20, link_record_cmp, &lx))
		return NULL;
	buf_init(&b);
	for (i = 0; i < n; i++) {
		buf_reset(&b);
		link_record_pack(&in[i], &b);
		if (xsort_add(lx, b.p, b.len))
			break;
	}
	buf_release(&b);
	if (i < n || xsort_finish(lx)) {
		xsort_free(&lx);
		return NULL;
	}
	return lx;
}

/* Part 0 of version v: each URL's cash and history into got (in order). */
static size_t read_cash(const struct crawl_dir *d, int v, double got[][2], size_t cap)
{
	char path[PATH_MAX];
	struct recfile_reader *rd;
	const void *p;
	size_t n, k = 0;

	layout_crawldb_part(d, v, 0, path, sizeof(path));
	if (recfile_reader_open(path, REC_KIND_CRAWLDB, &rd) != CR_OK)
		return 0;
	while (k < cap && recfile_reader_next(rd, &p, &n) == CR_OK) {
		struct crawl_record r;

		if (crawl_record_unpack(p, n, &r) != CR_OK)
			break;
		got[k][0] = r.cash;
		got[k][1] = r.history;
		k++;
	}
	recfile_reader_free(&rd);
	return k;
}

/* OPIC in the merge: every link's cash summed, cash-only links adding to
 * known URLs and creating none, a fetch spending what its list held. */
static void test_cash(void)
{
	static const struct link_record v1[] = {
		{ .url = "http://a/", .url_len = 9, .from = "", .cash = 1 },
		{ .url = "http://b/", .url_len = 9, .depth = 2, .from = "", .cash = 0.25 },
		{ .url = "http://b/", .url_len = 9, .flags = LINK_CASH, .cash = 0.5 },
		{ .url = "http://b/", .url_len = 9, .depth = 1, .from = "", .cash = 0.125 },
		{ .url = "http://c/", .url_len = 9, .flags = LINK_CASH, .cash = 0.75 },
	};
	static const struct link_record v2[] = {
		{ .url = "http://a/", .url_len = 9, .flags = LINK_CASH, .cash = 0.3 },
		{ .url = "http://b/", .url_len = 9, .flags = LINK_CASH, .cash = 0.1 },
	};
	struct config cfg;
	struct crawl_dir d;
	struct xsort *lx, *fx = NULL;
	struct merge_stats st;
	double got[4][2];
	char sortdir[PATH_MAX];
	struct fetch_record f = fetch_of("http://a/", ST_FETCHED, 200, 0, T1, 7);
	struct buf b;

	config_defaults(&cfg);
	crawl_dir_at(&d, "cash");
	CHECK(make_version_dir(&d, 1) == CR_OK && make_version_dir(&d, 2) == CR_OK, "mkdir cash");
	lx = link_sort(v1, sizeof(v1) / sizeof(v1[0]));
	memset(&st, 0, sizeof(st));
	CHECK(lx && merge_partition(&d, &cfg, 0, 1, 0, NULL, lx, &st, NULL, NULL) == CR_OK &&
	      st.records == 2, "cash: version 1 (cash alone makes no record)");
	xsort_free(&lx);
	CHECK(read_cash(&d, 1, got, 4) == 2 && got[0][0] == 1 && got[1][0] == 0.875 &&
	      got[0][1] == 0 && got[1][1] == 0, "cash: every link's cash summed");
	/* a is fetched (its list held 1) and paid 0.3; b is paid 0.1. */
	snprintf(sortdir, sizeof(sortdir), "%s/sort", tmp_dir);
	buf_init(&b);
	f.rec.cash = 1;
	fetch_record_pack(&f, &b);
	CHECK(xsort_new(sortdir, 1u << 20, crawl_record_cmp, &fx) == CR_OK &&
	      xsort_add(fx, b.p, b.len) == CR_OK && xsort_finish(fx) == CR_OK, "cash: fetch");
	buf_release(&b);
	lx = link_sort(v2, sizeof(v2) / sizeof(v2[0]));
	memset(&st, 0, sizeof(st));
	CHECK(lx && fx && merge_partition(&d, &cfg, 1, 2, 0, fx, lx, &st, NULL, NULL) == CR_OK &&
	      st.records == 2 && st.updated == 1, "cash: version 2");
	xsort_free(&lx);
	xsort_free(&fx);
	CHECK(read_cash(&d, 2, got, 4) == 2 && fabs(got[0][0] - 0.3) < 1e-15 &&
	      got[0][1] == 1 && fabs(got[1][0] - 0.975) < 1e-15 && got[1][1] == 0,
	      "cash: the fetch spent 1 into history; cash alone adds");
}

/* Last-Modified ages: the first copy's, a changed visit's when it falls
 * inside the visit's interval and a minute back or more; the first
 * copy's forgotten when its visit leaves the history. */
static void test_change_ages(void)
{
	const int64_t h = 3600LL * 1000000;
	struct config cfg;
	struct crawl_record prev, out;
	struct fetch_record f;

	config_defaults(&cfg);
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 100 * h, 1);
	f.rec.last_modified = 90 * h;
	merge_apply(NULL, &f, &cfg, &out);
	CHECK(out.visits.n == 0 && out.visits.first_age_s == 36000, "first copy 10 h old");
	prev = out;
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 124 * h, 2);
	f.rec.last_modified = 122 * h;
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == 1 && (out.visits.changed & 1) && out.visits.lm_age_s[0] == 7200 &&
	      out.visits.first_age_s == 36000, "changed 2 h before the visit");
	prev = out;
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 148 * h, 3);
	f.rec.last_modified = 100 * h;   /* before the visit before: not its text's */
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == 2 && out.visits.lm_age_s[0] == 0 && out.visits.lm_age_s[1] == 7200,
	      "a Last-Modified older than the visit before: unknown");
	prev = out;
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 172 * h, 4);
	f.rec.last_modified = 172 * h - 30 * 1000000;   /* the server's "now" */
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.lm_age_s[0] == 0, "half a minute back: no evidence");
	prev = out;
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 196 * h, 4);
	f.rec.last_modified = 180 * h;
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.lm_age_s[0] == 0 && !(out.visits.changed & 1),
	      "unchanged: no age, the interval counts");
	prev = out;
	prev.visits.n = CRAWL_HISTORY_MAX;
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 220 * h, 5);
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == CRAWL_HISTORY_MAX && out.visits.first_age_s == 0,
	      "a full history forgets the first copy");
}

/* What fetches say of a page's change: the visits kept, newest first, by
 * text digest when known, else by body; ETag, Last-Modified and the text
 * digest kept from before when an answer does not bring them. */
static void test_change(void)
{
	const int64_t h = 3600LL * 1000000;
	struct config cfg;
	struct crawl_record old, out, prev;
	struct fetch_record f;

	config_defaults(&cfg);
	memset(&old, 0, sizeof(old));
	old.url = "http://a/";
	old.url_len = 9;
	old.status = ST_FETCHED;
	old.http_status = 200;
	old.fetched_at = 100 * h;
	old.digest = 11;
	old.text_digest = 21;
	old.etag = "\"v1\"";
	old.etag_len = 4;
	old.dup_of = old.reason = "";
	/* 2 h later, another body (an ad changed) but the same text */
	f = fetch_of("http://a/", ST_FETCHED, 200, 0, 102 * h, 12);
	f.rec.text_digest = 21;
	f.rec.etag = "\"v2\"";
	f.rec.etag_len = 4;
	merge_apply(&old, &f, &cfg, &out);
	CHECK(out.visits.n == 1 && out.visits.interval_s[0] == 7200 && out.visits.changed == 0 &&
	      out.etag_len == 4 && !memcmp(out.etag, "\"v2\"", 4),
	      "same text, another body: no change; the new ETag kept");
	/* then new text, 24 h later */
	prev = out;
	f = fetch_of("http://a/", ST_FETCHED, 200, 0, 126 * h, 13);
	f.rec.text_digest = 22;
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == 2 && out.visits.interval_s[0] == 86400 &&
	      out.visits.interval_s[1] == 7200 && out.visits.changed == 1 && out.etag_len == 0,
	      "new text: changed, newest first; an answer without an ETag: none kept (the "
	      "old one was the old body's)");
	/* a 304 an hour later: unchanged, the text digest kept, its ETag taken */
	prev = out;
	f = fetch_of("http://a/", ST_FETCHED, 304, 0, 127 * h, 0);
	f.rec.etag = "\"v3\"";
	f.rec.etag_len = 4;
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == 3 && out.visits.changed == 2 && out.text_digest == 22 &&
	      out.digest == 13, "304: a visit without change; digests kept");
	/* a failure: no visit, everything kept */
	prev = out;
	f = fetch_of("http://a/", ST_ERROR, 503, 0, 128 * h, 0);
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == 3 && out.text_digest == 22 && out.etag_len == 4,
	      "an error: no visit");
	/* without text digests, the body tells; the visit counts from the 304,
	 * not from the failure */
	prev = out;
	prev.text_digest = 0;
	f = fetch_of("http://a/", ST_FETCHED, 200, 0, 129 * h, 14);
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == 4 && (out.visits.changed & 1) && out.visits.interval_s[0] == 7200,
	      "no text digest: a new body changed; 2 h since the last visit, not 1 h since the "
	      "failure");
	/* nine visits: the oldest goes */
	prev = out;
	prev.visits.n = CRAWL_HISTORY_MAX;
	f = fetch_of("http://a/", ST_FETCHED, 200, 0, 130 * h, 14);
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.visits.n == CRAWL_HISTORY_MAX && out.visits.interval_s[0] == 3600,
	      "at most 8 visits");
	/* recrawl.policy=nutch: changed, due a fifth sooner than last time */
	cfg.recrawl_policy = REFRESH_NUTCH;
	prev = out;
	prev.visits.scheduled_s = 36000;   /* it was due 10 h after */
	prev.text_digest = 31;
	f = fetch_of("http://a/", ST_FETCHED, 200, 0, 140 * h, 15);
	f.rec.text_digest = 32;
	merge_apply(&prev, &f, &cfg, &out);
	CHECK(out.next_fetch == 140 * h + 8 * h, "nutch: changed, 8 h after 10 h");
	cfg.recrawl_policy = REFRESH_FIXED;
	/* the first fetch: nothing to compare */
	f = fetch_of("http://b/", ST_FETCHED, 200, 0, 130 * h, 14);
	merge_apply(NULL, &f, &cfg, &out);
	CHECK(out.visits.n == 0, "a first fetch is no visit yet");
	test_change_ages();
}

int main(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/mpicrawl-merge-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_apply();
	test_new_links();
	test_refusal();
	test_partition();
	test_from_nothing();
	test_cash();
	test_change();
	CHECK(fs_remove_tree(tmp_dir) == CR_OK, "remove temp dir");
	TEST_DONE();
}

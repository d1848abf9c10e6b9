/*
 * mkcorpus.c - writes the binary seeds of the fuzz corpora with the
 * project's own writers: packed records, robots cache records, record files
 * of several kinds, and a small WARC file as .warc.gz, plain .warc and
 * .warc.zst. Run once by tests/fuzz/mkcorpus.sh; the output is committed.
 *   mkcorpus CORPUS_DIR
 */
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/link_record.h"
#include "crawldb/parse_record.h"
#include "index/stage.h"
#include "robots/cache.h"
#include "status/progfile.h"
#include "store/recfile.h"
#include "util/buf.h"
#include "util/fs.h"
#include "warc/warc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static const char *root;

static void put(const char *target, const char *name, const void *p, size_t n)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
	if (fs_write_atomic(path, p, n) != CR_OK) {
		fprintf(stderr, "mkcorpus: cannot write %s\n", path);
		exit(1);
	}
}

static void put_buf(const char *target, const char *name, struct buf *b)
{
	put(target, name, b->p, b->len);
	b->len = 0;
}

static void copy_file(const char *from, const char *target, const char *name)
{
	struct buf b;

	buf_init(&b);
	if (fs_read_all(from, 1u << 20, &b) != CR_OK)
		exit(1);
	put_buf(target, name, &b);
	buf_release(&b);
}

static const struct crawl_record crawl = {
	.url = "https://example.com/a/b?x=1", .url_len = 27, .status = ST_FETCHED,
	.http_status = 200, .depth = 3, .retries = 1, .fetched_at = 1700000000000000,
	.next_fetch = 1700086400000000, .digest = 0x1234567890abcdefULL,
	.dup_of = "", .dup_of_len = 0,
};

static void records(struct buf *b)
{
	struct fetch_record f;
	struct parse_record p;
	struct link_record l = { .url = "http://example.org/", .url_len = 19, .depth = 4,
				  .from = "http://example.org/a", .from_len = 20, .flags = LINK_ENTRY,
				  .meta = { CRAWL_SITEMAP, 1, 3, 801, 1709251200000000 } };
	const char *links[] = { "http://example.org/", "https://example.com/c", "http://x.test/%7E" };

	static const uint32_t sig[4] = { 1, 0xdeadbeef, 77, 0xffffffff };
	struct crawl_record dup = crawl;

	crawl_record_pack(&crawl, b);
	put_buf("fuzz_record", "crawl", b);
	dup.status = ST_DUPLICATE;
	dup.dup_of = "https://example.com/original";
	dup.dup_of_len = strlen(dup.dup_of);
	crawl_record_pack(&dup, b);
	put_buf("fuzz_record", "crawl-duplicate", b);
	memset(&f, 0, sizeof(f));
	f.rec = crawl;
	f.rec.status = ST_REDIRECT;
	f.rec.http_status = 301;
	f.reason = "";
	f.location = "https://example.com/new";
	f.location_len = strlen(f.location);
	f.content_type = "text/html";
	f.content_type_len = 9;
	f.charset = "utf-8";
	f.charset_len = 5;
	f.warc = "r0000-00000.warc.gz";
	f.warc_len = strlen(f.warc);
	f.warc_offset = 1234;
	f.body_len = 5678;
	f.latency_us = 91011;
	fetch_record_pack(&f, b);
	put_buf("fuzz_record", "fetch", b);
	memset(&p, 0, sizeof(p));
	p.url = crawl.url;
	p.url_len = crawl.url_len;
	p.depth = 2;
	p.flags = PARSE_NOINDEX;
	p.title = "A title";
	p.title_len = 7;
	p.text_digest = 42;
	parse_record_pack(&p, links, 3, b);
	put_buf("fuzz_record", "parse-nosig", b);
	p.nsig = 4;
	p.sig = sig;
	parse_record_pack(&p, links, 3, b);
	put_buf("fuzz_record", "parse", b);
	p.nsig = 0;
	parse_record_pack(&p, links, 0, b);
	put_buf("fuzz_record", "parse-nolinks", b);
	link_record_pack(&l, b);
	put_buf("fuzz_record", "link", b);
}

static void robots_cache(struct buf *b)
{
	static const char body[] = "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n";
	struct robots_cache_times t = { 1700000001000000, 1700000060000000 };

	robots_cache_pack(b, "https://example.com", 1700000000000000, 200, body,
			  sizeof(body) - 1, &t);
	put_buf("fuzz_robots_cache", "times", b);
	robots_cache_pack(b, "http://example.org:8080", 1700000000000000, 404, "", 0, NULL);
	put_buf("fuzz_robots_cache", "404-no-times", b);
	robots_cache_pack(b, "http://down.test", 1700000000000000, 0, "", 0, NULL);
	put_buf("fuzz_robots_cache", "no-answer", b);
	t.dns.expires = 1700000300000000;
	snprintf(t.dns.addr, sizeof(t.dns.addr), "192.0.2.7");
	robots_cache_pack(b, "https://example.com", 1700000000000000, 200, body,
			  sizeof(body) - 1, &t);
	put_buf("fuzz_robots_cache", "dns", b);
	t.dns.result = 1;
	t.dns.addr[0] = '\0';
	robots_cache_pack(b, "http://nx.test", 0, 0, "", 0, &t);
	put_buf("fuzz_robots_cache", "dns-nxdomain", b);
}

/* Progress files (status/progfile.h): a rank fetching, with its slowest
 * hosts; one done; one cut short. */
static void progfile(struct buf *b)
{
	static const char *const names[3] = {
		"slow.example.org", "xn--bcher-kva.example", "[2001:db8::1]",
	};
	struct progfile p;
	int i;

	memset(&p, 0, sizeof(p));
	p.rank = 1;
	p.ranks = 4;
	p.seg = 12;
	snprintf(p.phase, sizeof(p.phase), "fetch");
	p.time_us = 1795815113859562LL;
	p.elapsed_us = 61000000;
	p.fetchlist = 400;
	p.urls = 450;
	p.done = 210;
	p.kept = 30;
	p.requests = 190;
	p.bytes = 9000000;
	p.recent_requests = 40;
	p.recent_us = 15000000;
	p.fail[PF_ERROR] = 4;
	p.fail[PF_TLS] = 1;
	p.fail[PF_GONE] = 7;
	p.hosts_active = 25;
	p.hosts_parked = 1;
	p.hosts_held = 2;
	for (i = 0; i < 3; i++)
		progfile_top_add(p.top, &p.ntop, PROGFILE_TOP, names[i], (uint64_t)(40 - 10 * i),
				 80000 - 30000 * i);
	progfile_encode(&p, b);
	put("fuzz_progfile", "cut", b->p, 200);
	put_buf("fuzz_progfile", "running", b);
	p.final = 1;
	p.ntop = 0;
	p.done = p.urls;
	progfile_encode(&p, b);
	put_buf("fuzz_progfile", "done", b);
}

/* A staged file of the index step (index/stage.h): a WARC file, its CDXJ
 * lines, a page, a page that did not parse. */
static void staged(const char *tmp, struct buf *b)
{
	const char *links[] = { "http://example.com/b" };
	const char *anchors[] = { "b" };
	struct index_stage_page pg = { "http://example.com/a", 20, 1700000000000000,
				       "<urn:uuid:1>", 12, 0, "t", 1, "text", 4, 1, links,
				       anchors, NULL, 0 };
	struct recfile_writer *w;

	if (recfile_writer_open(tmp, REC_KIND_STAGE, 3, &w) != CR_OK)
		exit(1);
	b->len = 0;
	index_stage_pack_file(b, "mpicrawl-00001-00000-00000.warc.gz");
	if (recfile_writer_add(w, b->p, b->len) != CR_OK)
		exit(1);
	b->len = 0;
	index_stage_pack_cdxj(b, "com,example)/a 20231114221320 {}", 32);
	if (recfile_writer_add(w, b->p, b->len) != CR_OK)
		exit(1);
	b->len = 0;
	index_stage_pack_page(b, &pg);
	if (recfile_writer_add(w, b->p, b->len) != CR_OK)
		exit(1);
	b->len = 0;
	index_stage_pack_failed(b);
	if (recfile_writer_add(w, b->p, b->len) != CR_OK || recfile_writer_commit(&w) != CR_OK)
		exit(1);
	b->len = 0;
	copy_file(tmp, "fuzz_recfile", "staged");
}

static void recfile(const char *tmp, struct buf *b, enum rec_kind kind, const char *name,
		    int nrec)
{
	struct recfile_writer *w;
	int i;

	if (recfile_writer_open(tmp, kind, 3, &w) != CR_OK)
		exit(1);
	for (i = 0; i < nrec; i++) {
		struct crawl_record c = crawl;
		struct link_record l = { .url = "http://example.org/", .url_len = 19,
					  .depth = (uint32_t)i, .from = "" };

		b->len = 0;
		if (kind == REC_KIND_LINK) {
			link_record_pack(&l, b);
		} else if (kind == REC_KIND_RUNS) {
			/* A manifest's run (dedup/runs.h): number, size, big-endian. */
			static const unsigned char run[12] = { 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 1, 0 };

			buf_add(b, run, sizeof(run));
			b->p[3] = (unsigned char)(b->p[3] + i);
		} else {
			c.depth = (uint32_t)i;
			crawl_record_pack(&c, b);
		}
		if (recfile_writer_add(w, b->p, b->len) != CR_OK)
			exit(1);
	}
	b->len = 0;
	if (recfile_writer_commit(&w) != CR_OK)
		exit(1);
	copy_file(tmp, "fuzz_recfile", name);
}

static void warc(const char *tmp, struct buf *b)
{
	static const char req[] = "GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n";
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
				   "Transfer-Encoding: chunked\r\n\r\n";
	static const char head2[] = "HTTP/1.1 301 Moved\r\nLocation: /b\r\n\r\n";
	static const char body[] = "<html><title>t</title><a href=/b>b</a></html>";
	struct warc_writer *w;
	struct warc_reader *r;
	struct warc_record rec;
	struct warc_exchange x;
	uint64_t off, len;
	struct buf plain, zst;
	char path[4096 + 16];

	snprintf(path, sizeof(path), "%s.warc.gz", tmp);
	if (warc_writer_open(path, "mpicrawl-fuzz/1.0", &w) != CR_OK)
		exit(1);
	memset(&x, 0, sizeof(x));
	x.target_uri = "http://example.com/a";
	x.date_us = 1700000000000000;
	x.ip = "192.0.2.1";
	x.request = req;
	x.request_len = sizeof(req) - 1;
	x.resp_head = head;
	x.resp_head_len = sizeof(head) - 1;
	x.body = body;
	x.body_len = sizeof(body) - 1;
	if (warc_write_exchange(w, &x, &off, &len) != CR_OK)
		exit(1);
	x.target_uri = "http://example.com/old";
	x.resp_head = head2;
	x.resp_head_len = sizeof(head2) - 1;
	x.body_len = 0;
	x.truncated = "length";
	if (warc_write_exchange(w, &x, &off, &len) != CR_OK || warc_writer_close(&w) != CR_OK)
		exit(1);
	copy_file(path, "fuzz_warc", "small.warc.gz");
	/* The same records as a plain file and as a zstd frame per record. */
	buf_init(&plain);
	buf_init(&zst);
	if (warc_reader_open(path, 0, &r) != CR_OK)
		exit(1);
	while (warc_reader_next(r, &rec) == CR_OK) {
		size_t start = plain.len, bound;

		buf_add(&plain, rec.head, rec.head_len);
		buf_add(&plain, rec.block, rec.block_len);
		buf_add(&plain, "\r\n\r\n", 4);
		bound = ZSTD_compressBound(plain.len - start);
		buf_reserve(&zst, bound);
		len = ZSTD_compress(zst.p + zst.len, bound, plain.p + start, plain.len - start, 3);
		if (ZSTD_isError(len))
			exit(1);
		zst.len += len;
	}
	warc_reader_free(&r);
	remove(path);
	put_buf("fuzz_warc", "small.warc", &plain);
	put_buf("fuzz_warc", "small.warc.zst", &zst);
	/* The parse_page seeds: one response block as the WARC holds it. */
	buf_add(b, head, sizeof(head) - 1);
	buf_add(b, body, sizeof(body) - 1);
	put_buf("fuzz_parse_page", "chunked-utf8", b);
	buf_release(&plain);
	buf_release(&zst);
}

int main(int argc, char **argv)
{
	struct buf b;
	char tmp[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: mkcorpus CORPUS_DIR\n");
		return 2;
	}
	root = argv[1];
	snprintf(tmp, sizeof(tmp), "%s/.mkcorpus-tmp", root);
	buf_init(&b);
	records(&b);
	robots_cache(&b);
	progfile(&b);
	recfile(tmp, &b, REC_KIND_CRAWLDB, "crawldb-3", 3);
	recfile(tmp, &b, REC_KIND_LINK, "link-2", 2);
	recfile(tmp, &b, REC_KIND_FETCHLIST, "fetchlist-empty", 0);
	recfile(tmp, &b, REC_KIND_RUNS, "runs-2", 2);
	staged(tmp, &b);
	remove(tmp);
	warc(tmp, &b);
	buf_release(&b);
	return 0;
}

/*
 * mkseg.c - a synthetic fetch and parse of a generated segment, for the
 * scale benchmark (bench/run.sh, benchmark B).
 *
 *   mkseg parts DIR SEG STRIPE NSTRIPES HOSTS PAGES LINKS
 *   mkseg mark DIR SEG
 *
 * "parts" reads the fetch list parts of segment SEG whose partition p has
 * p % NSTRIPES == STRIPE, and writes for every fetch list URL a fetch outcome
 * (fetched, HTTP 200, fetched now, no WARC) to segments/SEG/fetch/part-p.zst
 * and a parse record with LINKS outlinks to segments/SEG/parse/part-p.zst -
 * what `mpicrawl fetch` and `mpicrawl parse` would have left, without the
 * network. Running it as NSTRIPES processes side by side uses every core.
 * "mark" then writes _SUCCESS.fetch and _SUCCESS.parse, so that
 * `mpicrawl update` accepts the segment.
 *
 * Outlinks are a pure function of the page's URL, which the benchmark
 * generates as http://hNNNNNN.bench.test/p/K.html (HOSTS hosts, PAGES pages
 * each). Even-numbered links point at existing pages of other hosts (update
 * merges them into known records); odd-numbered ones point at new pages
 * /n/K.html (K < 2 * PAGES) of a neighbouring host, so that some are
 * discovered by several pages and update must both add and deduplicate.
 * A URL of another shape gets links to new pages of its own host.
 */
#include "config/config.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/layout.h"
#include "crawldb/parse_record.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define MKSEG_MAX_LINKS 1000

struct mkseg_shape {
	unsigned long hosts, pages, links;
};

static unsigned long parse_ulong(const char *what, const char *s, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v > max) {
		fprintf(stderr, "mkseg: bad %s '%s' (0 to %lu)\n", what, s, max);
		exit(2);
	}
	return v;
}

/* The outlinks of one page, written into links[] (storage in text). */
static void mkseg_links(const struct mkseg_shape *sh, const char *url, size_t url_len,
			char text[][URL_MAX_LEN + 1], const char **links)
{
	char src[URL_MAX_LEN + 1], host[URL_HOST_MAX];
	unsigned long h, k, j;
	int n = 0;

	memcpy(src, url, url_len);
	src[url_len] = '\0';
	if (sscanf(src, "http://h%lu.bench.test/p/%lu.html%n", &h, &k, &n) != 2 ||
	    (size_t)n != url_len || sh->hosts == 0 || sh->pages == 0) {
		if (url_host(src, host, sizeof(host)) != CR_OK)
			snprintf(host, sizeof(host), "unknown.bench.test");
		for (j = 0; j < sh->links; j++) {
			snprintf(text[j], URL_MAX_LEN + 1, "http://%s/n/%llu.html", host,
				 (unsigned long long)(XXH3_64bits(url, url_len) % 1000 + j));
			links[j] = text[j];
		}
		return;
	}
	for (j = 0; j < sh->links; j++) {
		if (j % 2 == 0)
			snprintf(text[j], URL_MAX_LEN + 1, "http://h%06lu.bench.test/p/%lu.html",
				 (h + 7919 * (j + 1)) % sh->hosts, (k * 31 + j) % sh->pages);
		else
			snprintf(text[j], URL_MAX_LEN + 1, "http://h%06lu.bench.test/n/%lu.html",
				 (h + j) % sh->hosts, (k * 7 + j) % (2 * sh->pages));
		links[j] = text[j];
	}
}

static enum cr_err mkseg_partition(const struct crawl_dir *d, int seg, uint32_t p,
				   const struct mkseg_shape *sh, int64_t now,
				   uint64_t *urls, uint64_t *nlinks)
{
	static char text[MKSEG_MAX_LINKS][URL_MAX_LEN + 1];
	const char *links[MKSEG_MAX_LINKS];
	char in[PATH_MAX], fpath[PATH_MAX], ppath[PATH_MAX];
	struct recfile_reader *r = NULL;
	struct recfile_writer *fw = NULL, *pw = NULL;
	struct buf out;
	const void *data;
	size_t n;
	enum cr_err e;

	layout_segment_part(d, seg, "fetchlist", p, in, sizeof(in));
	layout_segment_part(d, seg, "fetch", p, fpath, sizeof(fpath));
	layout_segment_part(d, seg, "parse", p, ppath, sizeof(ppath));
	e = recfile_reader_open(in, REC_KIND_FETCHLIST, &r);
	if (e) {
		fprintf(stderr, "mkseg: cannot read fetch list '%s': %s\n", in, error_str(e));
		return e;
	}
	e = recfile_writer_open(fpath, REC_KIND_FETCH, 3, &fw);
	if (!e)
		e = recfile_writer_open(ppath, REC_KIND_PARSE, 3, &pw);
	buf_init(&out);
	while (!e && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct fetch_record f;
		struct parse_record pr;

		memset(&f, 0, sizeof(f));
		e = crawl_record_unpack(data, n, &f.rec);
		if (e) {
			fprintf(stderr, "mkseg: damaged record in '%s'\n", in);
			break;
		}
		f.rec.status = ST_FETCHED;
		f.rec.http_status = 200;
		f.rec.retries = 0;
		f.rec.fetched_at = now;
		f.rec.digest = XXH3_64bits(f.rec.url, f.rec.url_len);
		f.reason = f.location = f.charset = f.warc = "";
		f.content_type = "text/html";
		f.content_type_len = strlen(f.content_type);
		f.body_len = 2048;
		f.latency_us = 1000;
		out.len = 0;
		fetch_record_pack(&f, &out);
		e = recfile_writer_add(fw, out.p, out.len);
		if (e)
			break;

		memset(&pr, 0, sizeof(pr));
		pr.url = f.rec.url;
		pr.url_len = f.rec.url_len;
		pr.depth = f.rec.depth;
		pr.title = "";
		pr.text_digest = f.rec.digest;
		mkseg_links(sh, f.rec.url, f.rec.url_len, text, links);
		out.len = 0;
		parse_record_pack(&pr, links, (uint32_t)sh->links, &out);
		e = recfile_writer_add(pw, out.p, out.len);
		(*urls)++;
		*nlinks += sh->links;
	}
	buf_release(&out);
	recfile_reader_free(&r);
	if (e != CR_EOF) {
		recfile_writer_abort(&fw);
		recfile_writer_abort(&pw);
		return e ? e : CR_ERR_FORMAT;
	}
	e = recfile_writer_commit(&fw);
	if (e) {
		recfile_writer_abort(&pw);
		return e;
	}
	return recfile_writer_commit(&pw);
}

static int mkseg_open(const char *root, struct crawl_dir *d)
{
	struct config cfg;
	enum cr_err e;

	config_defaults(&cfg);
	e = layout_open(root, &cfg, 0, d);
	if (e) {
		fprintf(stderr, "mkseg: '%s' is not a crawl directory: %s\n", root, error_str(e));
		return 1;
	}
	return 0;
}

static int cmd_parts(char **argv)
{
	struct crawl_dir d;
	struct mkseg_shape sh;
	char dir[PATH_MAX - 64], sub[PATH_MAX];
	unsigned long stripe, nstripes;
	uint64_t urls = 0, nlinks = 0;
	int64_t now = clock_now_us();
	uint32_t p;
	int seg;
	enum cr_err e = CR_OK;

	seg = (int)parse_ulong("segment", argv[1], 99999);
	stripe = parse_ulong("stripe", argv[2], 65535);
	nstripes = parse_ulong("stripe count", argv[3], 65536);
	sh.hosts = parse_ulong("host count", argv[4], 1000000000);
	sh.pages = parse_ulong("page count", argv[5], 1000000000);
	sh.links = parse_ulong("link count", argv[6], MKSEG_MAX_LINKS);
	if (nstripes == 0 || stripe >= nstripes) {
		fprintf(stderr, "mkseg: stripe must be below the stripe count\n");
		return 2;
	}
	if (mkseg_open(argv[0], &d))
		return 1;
	if (!layout_phase_done(&d, seg, "generate")) {
		fprintf(stderr, "mkseg: segment %d has no completed generate phase\n", seg);
		return 1;
	}
	layout_segment_dir(&d, seg, dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/fetch", dir);
	e = fs_mkdirs(sub);
	snprintf(sub, sizeof(sub), "%s/parse", dir);
	if (!e)
		e = fs_mkdirs(sub);
	for (p = stripe; !e && p < d.partitions; p += (uint32_t)nstripes)
		e = mkseg_partition(&d, seg, p, &sh, now, &urls, &nlinks);
	if (e) {
		fprintf(stderr, "mkseg: stripe %lu failed: %s\n", stripe, error_str(e));
		return 1;
	}
	printf("mkseg: stripe %lu/%lu: %llu outcomes, %llu links\n", stripe, nstripes,
	       (unsigned long long)urls, (unsigned long long)nlinks);
	return 0;
}

static int cmd_mark(char **argv)
{
	struct crawl_dir d;
	int seg = (int)parse_ulong("segment", argv[1], 99999);

	if (mkseg_open(argv[0], &d))
		return 1;
	if (layout_phase_mark(&d, seg, "fetch", "{\"synthetic\":true}\n") != CR_OK ||
	    layout_phase_mark(&d, seg, "parse", "{\"synthetic\":true}\n") != CR_OK) {
		fprintf(stderr, "mkseg: cannot mark segment %d\n", seg);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 9 && !strcmp(argv[1], "parts"))
		return cmd_parts(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "mark"))
		return cmd_mark(argv + 2);
	fputs("usage: mkseg parts DIR SEG STRIPE NSTRIPES HOSTS PAGES LINKS\n"
	      "       mkseg mark DIR SEG\n", stderr);
	return 2;
}

#include "generate/generate.h"
#include "robots/cache.h"
#include "robots/robots.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *const generate_counter_names[GC_COUNT_] = {
	"records", "selected", "not_due", "host_capped", "politeness_capped", "too_deep",
	"hosts",
	"demoted", "demoted_hosts",
};

int64_t generate_feasible(long time_limit_s, long delay_ms)
{
	if (time_limit_s <= 0 || delay_ms <= 0)
		return INT64_MAX;
	/* One request (the robots.txt, or the first page) at the start, then
	 * one per delay until the limit. */
	return (int64_t)time_limit_s * 1000 / delay_ms + 1;
}

/*
 * The Crawl-delay (ms, capped as the fetcher caps it) of each origin of
 * partition p known to the robots.txt cache. Only needed, and only loaded,
 * when fetch.time_limit_s bounds the fetch phase.
 */
static void load_crawl_delays(struct job *j, uint32_t p, struct hmap *delays)
{
	int ver = layout_robots_last(&j->dir);
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *data;
	size_t n;

	if (ver == 0 || j->cfg.time_limit_s <= 0)
		return;
	layout_robots_part(&j->dir, ver, p, path, sizeof(path));
	if (!fs_exists(path) || recfile_reader_open(path, REC_KIND_ROBOTS, &r) != CR_OK)
		return;
	while (recfile_reader_next(r, &data, &n) == CR_OK) {
		char key[600];
		const char *body;
		size_t bl;
		int64_t at;
		int st;
		struct robots *rules;
		struct robots_cache_times tm;
		long cd;

		if (robots_cache_unpack(data, n, key, sizeof(key), &at, &st, &body, &bl, &tm) ||
		    st < 200 || st >= 300 ||
		    robots_parse(body, bl, j->cfg.robots_agent, &rules) != CR_OK)
			continue;
		cd = robots_crawl_delay_ms(rules);
		robots_free(&rules);
		if (cd > 0)
			*hmap_put(delays, key, strlen(key)) = (void *)(uintptr_t)cd;
	}
	recfile_reader_free(&r);
}

int generate_due(const struct crawl_record *r, int64_t now, long max_depth)
{
	if (max_depth > 0 && r->depth > (uint32_t)max_depth)
		return 0;
	if (r->status == ST_TRAP)
		return 0;
	/* New URLs have next_fetch 0; fetched ones the time merge set. */
	return r->next_fetch <= now;
}

/* Per host of a CrawlDb part: pages with content (low 32 bits) and how many
 * of them are duplicates (high 32 bits). */
static enum cr_err count_duplicates(const char *path, struct hmap *hosts)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r);

	while (!e && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		char url[URL_MAX_LEN + 1], host[URL_HOST_MAX];
		void **slot;
		uint64_t v;

		if (crawl_record_unpack(data, n, &rec) || rec.url_len > URL_MAX_LEN) {
			e = CR_ERR_FORMAT;
			break;
		}
		if (rec.status != ST_FETCHED && rec.status != ST_DUPLICATE &&
		    rec.status != ST_TRUNCATED && rec.status != ST_TOO_LARGE)
			continue;
		memcpy(url, rec.url, rec.url_len);
		url[rec.url_len] = '\0';
		if (url_host(url, host, sizeof(host)) != CR_OK)
			continue;
		slot = hmap_put(hosts, host, strlen(host));
		v = (uint64_t)(uintptr_t)*slot + 1 + ((uint64_t)(rec.status == ST_DUPLICATE) << 32);
		*slot = (void *)(uintptr_t)v;
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

/* 1 if the host's pages so far are mostly near-duplicates (trap.demote_*). */
static int demoted(const struct config *cfg, const struct hmap *dups, const char *host)
{
	uint64_t v = (uint64_t)(uintptr_t)hmap_get(dups, host, strlen(host));
	uint64_t pages = v & 0xffffffffu, dup = v >> 32;

	return cfg->demote_min_pages > 0 && pages >= (uint64_t)cfg->demote_min_pages &&
	       (double)dup >= cfg->demote_share * (double)pages;
}

static enum cr_err generate_partition(struct job *j, int seg, int ver, uint32_t p,
				      int64_t now, uint64_t *c)
{
	char in[PATH_MAX], out[PATH_MAX];
	struct recfile_reader *r = NULL;
	struct recfile_writer *w;
	struct hmap per_host, delays, dups;
	const void *data;
	size_t n;
	enum cr_err e = CR_EOF;

	layout_segment_part(&j->dir, seg, "fetchlist", p, out, sizeof(out));
	e = recfile_writer_open(out, REC_KIND_FETCHLIST, (int)j->cfg.zstd_level, &w);
	if (e)
		return e;
	if (ver > 0) {
		layout_crawldb_part(&j->dir, ver, p, in, sizeof(in));
		e = recfile_reader_open(in, REC_KIND_CRAWLDB, &r);
		if (e) {
			log_err("generate", "cannot read CrawlDb part '%s'", in);
			recfile_writer_abort(&w);
			return e;
		}
	}
	hmap_init(&per_host);
	hmap_init(&delays);
	hmap_init(&dups);
	load_crawl_delays(j, p, &delays);
	if (r && j->cfg.demote_min_pages > 0 && count_duplicates(in, &dups) != CR_OK)
		log_warn("generate", "cannot count the duplicates of '%s'", in);
	e = CR_EOF;
	while (r && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		char url[URL_MAX_LEN + 1], host[URL_HOST_MAX];
		void **slot;

		if (crawl_record_unpack(data, n, &rec) || rec.url_len > URL_MAX_LEN) {
			log_err("generate", "damaged record in '%s'", in);
			e = CR_ERR_FORMAT;
			break;
		}
		c[GC_RECORDS]++;
		if (j->cfg.max_depth > 0 && rec.depth > (uint32_t)j->cfg.max_depth) {
			c[GC_TOO_DEEP]++;
			continue;
		}
		if (!generate_due(&rec, now, 0)) {
			c[GC_NOT_DUE]++;
			continue;
		}
		memcpy(url, rec.url, rec.url_len);
		url[rec.url_len] = '\0';
		if (url_host(url, host, sizeof(host)) != CR_OK)
			continue;
		slot = hmap_put(&per_host, host, strlen(host));
		if (!*slot) {
			c[GC_HOSTS]++;
			c[GC_DEMOTED_HOSTS] += demoted(&j->cfg, &dups, host);
		}
		if ((uintptr_t)*slot >= (uintptr_t)j->cfg.demoted_per_round &&
		    demoted(&j->cfg, &dups, host)) {
			c[GC_DEMOTED]++;
			continue;
		}
		if (j->cfg.max_per_host > 0 &&
		    (uintptr_t)*slot >= (uintptr_t)j->cfg.max_per_host) {
			c[GC_HOST_CAPPED]++;
			continue;
		}
		if (j->cfg.time_limit_s > 0) {
			long d = j->cfg.delay_ms;
			size_t ol = (size_t)(url_path(url) - url);
			uintptr_t cd;

			url[ol] = '\0';   /* the origin */
			cd = (uintptr_t)hmap_get(&delays, url, ol);
			if ((long)cd > d && (long)cd <= j->cfg.max_crawl_delay_ms)
				d = (long)cd;
			if ((int64_t)(uintptr_t)*slot >=
			    generate_feasible(j->cfg.time_limit_s, d)) {
				c[GC_POLITENESS_CAPPED]++;
				continue;
			}
		}
		*slot = (void *)((uintptr_t)*slot + 1);
		e = recfile_writer_add(w, data, n);
		if (e)
			break;
		c[GC_SELECTED]++;
	}
	hmap_release(&per_host);
	hmap_release(&delays);
	hmap_release(&dups);
	recfile_reader_free(&r);
	if (e != CR_EOF) {
		recfile_writer_abort(&w);
		return e;
	}
	return recfile_writer_commit(&w);
}

enum cr_err generate_run(struct job *j, int seg, int ver, int64_t now, uint64_t *counters)
{
	char sub[PATH_MAX];
	uint32_t p;
	enum cr_err e;

	layout_segment_sub(&j->dir, seg, "fetchlist", sub, sizeof(sub));
	e = fs_mkdirs(sub);
	for (p = 0; !e && p < j->dir.partitions; p++)
		if (layout_owns(p, j->rank, j->nranks))
			e = generate_partition(j, seg, ver, p, now, counters);
	return e;
}

#include "generate/generate.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *const generate_counter_names[GC_COUNT_] = {
	"records", "selected", "not_due", "host_capped", "too_deep", "hosts",
};

int generate_due(const struct crawl_record *r, int64_t now, long max_depth)
{
	if (max_depth > 0 && r->depth > (uint32_t)max_depth)
		return 0;
	if (r->status == ST_UNFETCHED)
		return r->next_fetch <= now;
	return r->next_fetch <= now;
}

static enum cr_err generate_partition(struct job *j, int seg, int ver, uint32_t p,
				      int64_t now, uint64_t *c)
{
	char in[PATH_MAX], out[PATH_MAX];
	struct rec_reader *r = NULL;
	struct rec_writer *w;
	struct hmap per_host;
	const void *data;
	size_t n;
	enum cr_err e = CR_EOF;

	layout_segment_part(&j->dir, seg, "fetchlist", p, out, sizeof(out));
	e = rec_writer_open(out, REC_KIND_FETCHLIST, (int)j->cfg.zstd_level, &w);
	if (e)
		return e;
	if (ver > 0) {
		layout_crawldb_part(&j->dir, ver, p, in, sizeof(in));
		e = rec_reader_open(in, REC_KIND_CRAWLDB, &r);
		if (e) {
			log_err("generate", "cannot read CrawlDb part '%s'", in);
			rec_writer_abort(&w);
			return e;
		}
	}
	hmap_init(&per_host);
	e = CR_EOF;
	while (r && (e = rec_reader_next(r, &data, &n)) == CR_OK) {
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
		if (!*slot)
			c[GC_HOSTS]++;
		if (j->cfg.max_per_host > 0 &&
		    (uintptr_t)*slot >= (uintptr_t)j->cfg.max_per_host) {
			c[GC_HOST_CAPPED]++;
			continue;
		}
		*slot = (void *)((uintptr_t)*slot + 1);
		e = rec_writer_add(w, data, n);
		if (e)
			break;
		c[GC_SELECTED]++;
	}
	hmap_release(&per_host);
	rec_reader_free(&r);
	if (e != CR_EOF) {
		rec_writer_abort(&w);
		return e;
	}
	return rec_writer_commit(&w);
}

enum cr_err generate_run(struct job *j, int seg, int ver, int64_t now, uint64_t *counters)
{
	char dir[PATH_MAX - 64];
	char sub[PATH_MAX];
	uint32_t p;
	enum cr_err e;

	layout_segment_dir(&j->dir, seg, dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/fetchlist", dir);
	e = fs_mkdirs(sub);
	for (p = 0; !e && p < j->dir.partitions; p++)
		if (layout_owns(p, j->rank, j->nranks))
			e = generate_partition(j, seg, ver, p, now, counters);
	return e;
}

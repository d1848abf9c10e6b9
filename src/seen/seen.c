#include "seen/seen.h"
#include "crawldb/crawl_record.h"
#include "store/recfile.h"
#include "util/log.h"

#include <limits.h>
#include <string.h>

int seen_load(const struct crawl_dir *d, const struct config *cfg, int ver, uint32_t p,
	      struct bloom *out)
{
	char path[PATH_MAX];
	enum cr_err e;

	memset(out, 0, sizeof(*out));
	if (ver <= 0)
		return 0;
	layout_seen_part(d, ver, p, path, sizeof(path));
	e = bloom_load(out, path);
	if (e == CR_OK)
		return 1;
	if (e == CR_ERR_IO) {
		log_info("update", "no seen-set '%s': every link of partition %u is sorted",
			 path, p);
		return 0;
	}
	log_warn("update", "seen-set '%s' is damaged (%s): rebuilt from its CrawlDb part", path,
		 error_str(e));
	if (seen_rebuild(d, cfg, ver, p) != CR_OK || bloom_load(out, path) != CR_OK) {
		log_warn("update", "seen-set '%s' could not be rebuilt: every link of partition "
			 "%u is sorted", path, p);
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return 1;
}

/* Calls add(b, url) for each URL of partition p's part of version ver, or
 * only counts them (b NULL). */
static enum cr_err each_url(const struct crawl_dir *d, int ver, uint32_t p, struct bloom *b,
			    uint64_t *count)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e;

	*count = 0;
	layout_crawldb_part(d, ver, p, path, sizeof(path));
	e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r);
	if (e)
		return e;
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record c;

		if ((e = crawl_record_unpack(data, n, &c)) != CR_OK)
			break;
		if (b)
			bloom_add_hash(b, bloom_hash(c.url, c.url_len));
		(*count)++;
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

/* An empty filter for a part of n URLs: sized for max(seen.expected_urls /
 * partitions, n) at seen.fp_rate. */
static enum cr_err filter_init(const struct crawl_dir *d, const struct config *cfg,
			       uint64_t n, struct bloom *b)
{
	uint64_t want = (uint64_t)cfg->seen_expected_urls / d->partitions;

	return bloom_init(b, want < n ? n : want, cfg->seen_fp_rate, 0);
}

enum cr_err seen_build(const struct crawl_dir *d, const struct config *cfg, int ver,
		       uint32_t p, uint64_t n)
{
	char path[PATH_MAX];
	struct bloom b;
	uint64_t added;
	enum cr_err e = filter_init(d, cfg, n, &b);

	if (e)
		return e;
	e = each_url(d, ver, p, &b, &added);
	if (!e) {
		layout_seen_part(d, ver, p, path, sizeof(path));
		e = bloom_save(&b, path);
	}
	bloom_release(&b);
	return e;
}

enum cr_err seen_rebuild(const struct crawl_dir *d, const struct config *cfg, int ver,
			 uint32_t p)
{
	uint64_t n;
	enum cr_err e = each_url(d, ver, p, NULL, &n);

	return e ? e : seen_build(d, cfg, ver, p, n);
}

void seen_note(struct buf *hashes, const char *url, size_t len)
{
	struct bloom_hash h = bloom_hash(url, len);

	buf_add(hashes, &h, sizeof(h));
}

enum cr_err seen_write(const struct crawl_dir *d, const struct config *cfg, int ver,
		       uint32_t p, const struct buf *hashes)
{
	char path[PATH_MAX];
	struct bloom b;
	size_t n = hashes->len / sizeof(struct bloom_hash), i;
	enum cr_err e = filter_init(d, cfg, n, &b);

	if (e)
		return e;
	for (i = 0; i < n; i++) {
		struct bloom_hash h;

		memcpy(&h, hashes->p + i * sizeof(h), sizeof(h));
		bloom_add_hash(&b, h);
	}
	layout_seen_part(d, ver, p, path, sizeof(path));
	e = bloom_save(&b, path);
	bloom_release(&b);
	return e;
}

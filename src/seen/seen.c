#include "seen/seen.h"
#include "util/log.h"

#include <limits.h>
#include <string.h>

int seen_load(const struct crawl_dir *d, int ver, uint32_t p, struct bloom *out)
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
	if (e == CR_ERR_IO)
		log_info("update", "no seen-set '%s': every link of partition %u is sorted",
			 path, p);
	else
		log_warn("update", "seen-set '%s' is damaged (%s): ignored, every link of "
			 "partition %u is sorted", path, error_str(e), p);
	return 0;
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
	uint64_t want = (uint64_t)cfg->seen_expected_urls / d->partitions;
	enum cr_err e;

	if (want < n)
		want = n;
	e = bloom_init(&b, want, cfg->seen_fp_rate, 0);
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

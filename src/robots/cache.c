#include "robots/cache.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/log.h"

#include <string.h>

void robots_cache_pack(struct buf *out, const char *origin, int64_t fetched_at,
		       int http_status, const void *body, size_t body_len,
		       const struct robots_cache_times *t)
{
	buf_put_str(out, origin, strlen(origin));
	buf_put_svarint(out, fetched_at);
	buf_put_varint(out, (uint64_t)http_status);
	buf_put_str(out, body, body_len);
	buf_put_svarint(out, t ? t->last_end : 0);
	buf_put_svarint(out, t ? t->hold_until : 0);
	if (t && t->dns.expires > 0) {
		buf_put_svarint(out, t->dns.expires);
		buf_put_u8(out, (uint8_t)t->dns.result);
		buf_put_str(out, t->dns.addr, strlen(t->dns.addr));
		buf_put_svarint(out, t->dns.at);
	}
}

enum cr_err robots_cache_unpack(const void *data, size_t n, char *key, size_t kcap,
				int64_t *fetched_at, int *http_status,
				const char **body, size_t *body_len, struct robots_cache_times *t)
{
	struct buf_reader rd;
	const char *k, *b;
	size_t kl, bl;
	int64_t at;
	uint64_t st;

	buf_reader_init(&rd, data, n);
	if (buf_get_str(&rd, &k, &kl) || buf_get_svarint(&rd, &at) || buf_get_varint(&rd, &st) ||
	    buf_get_str(&rd, &b, &bl) || kl >= kcap || st > 999)
		return CR_ERR_FORMAT;
	memset(t, 0, sizeof(*t));
	if (rd.off < rd.len &&
	    (buf_get_svarint(&rd, &t->last_end) || buf_get_svarint(&rd, &t->hold_until)))
		return CR_ERR_FORMAT;
	if (rd.off < rd.len) {
		const char *a;
		size_t al;
		uint8_t res;

		if (buf_get_svarint(&rd, &t->dns.expires) || buf_get_u8(&rd, &res) || res > 3 ||
		    buf_get_str(&rd, &a, &al) || al >= sizeof(t->dns.addr))
			return CR_ERR_FORMAT;
		t->dns.result = res;
		memcpy(t->dns.addr, a, al);
		t->dns.addr[al] = '\0';
		if (rd.off < rd.len && buf_get_svarint(&rd, &t->dns.at))
			return CR_ERR_FORMAT;
	}
	if (rd.off != rd.len)
		return CR_ERR_FORMAT;
	memcpy(key, k, kl);
	key[kl] = '\0';
	*fetched_at = at;
	*http_status = (int)st;
	*body = b;
	*body_len = bl;
	return CR_OK;
}

enum cr_err robots_cache_scan(const char *path, robots_cache_fn fn, void *arg)
{
	struct recfile_reader *r;
	struct robots_cache_entry c;
	enum cr_err e;

	if (!recfile_exists(path))
		return CR_OK;
	e = recfile_reader_open(path, REC_KIND_ROBOTS, &r);
	if (e == CR_ERR_FORMAT) {
		log_warn("robots", "damaged robots cache '%s' ignored", path);
		return CR_OK;
	}
	if (e)
		return e;
	while ((e = recfile_reader_next(r, &c.data, &c.n)) == CR_OK) {
		e = robots_cache_unpack(c.data, c.n, c.origin, sizeof(c.origin), &c.fetched_at,
					&c.http_status, &c.body, &c.body_len, &c.times);
		if (!e)
			e = fn(arg, &c);
		if (e)
			break;
	}
	recfile_reader_free(&r);
	if (e == CR_ERR_FORMAT) {
		log_warn("robots", "damaged robots cache '%s': its later entries dropped", path);
		return CR_OK;
	}
	return e == CR_EOF ? CR_OK : e;
}

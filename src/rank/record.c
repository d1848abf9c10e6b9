/*
 * record.c - rank records; see record.h.
 */
#include "rank/record.h"

#include <stdio.h>
#include <string.h>

#define RANK_RECORD_V1 1

void rank_record_pack(const struct rank_record *r, struct buf *out)
{
	double v[3] = { r->page, r->host, r->harmonic };
	uint64_t bits;
	int i;

	buf_put_u8(out, RANK_RECORD_V1);
	buf_put_str(out, r->url, r->url_len);
	for (i = 0; i < 3; i++) {
		memcpy(&bits, &v[i], 8);
		buf_put_u64le(out, bits);
	}
}

enum cr_err rank_record_unpack(const void *p, size_t n, struct rank_record *r)
{
	struct buf_reader rd;
	struct rank_record t;
	uint64_t bits[3];
	uint8_t v;
	int i;

	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &v) || v != RANK_RECORD_V1 || buf_get_str(&rd, &t.url, &t.url_len) ||
	    t.url_len == 0)
		return CR_ERR_FORMAT;
	for (i = 0; i < 3; i++)
		if (buf_get_u64le(&rd, &bits[i]))
			return CR_ERR_FORMAT;
	memcpy(&t.page, &bits[0], 8);
	memcpy(&t.host, &bits[1], 8);
	memcpy(&t.harmonic, &bits[2], 8);
	if (rd.off != rd.len || !(t.page >= 0 && t.page < 1e300) ||
	    !(t.host >= 0 && t.host < 1e300) ||
	    !(t.harmonic >= 0 && t.harmonic <= 1))
		return CR_ERR_FORMAT;
	*r = t;
	return CR_OK;
}

void rank_part_path(const struct crawl_dir *d, uint32_t p, char *out, size_t cap)
{
	char name[32];

	snprintf(name, sizeof(name), "rank/part-%05u.zst", (unsigned)p);
	layout_top(d->root, name, out, cap);
}


#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
}

void buf_release(struct buf *b)
{
	if (!b)
		return;
	free(b->p);
	buf_init(b);
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	size_t cap;
	unsigned char *np;

	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	b->p = np;
	b->cap = cap;
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	/* Most strings fit the stack buffer: one formatting pass. */
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *buf_cstr(struct buf *b)
{
	buf_reserve(b, 0);
	b->p[b->len] = '\0';
	return (const char *)b->p;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
}

void buf_put_u8(struct buf *b, uint8_t v)
{
	buf_add(b, &v, 1);
}

void buf_put_u32le(struct buf *b, uint32_t v)
{
	unsigned char t[4];
	int i;

	for (i = 0; i < 4; i++)
		t[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, t, 4);
}

void buf_put_u64le(struct buf *b, uint64_t v)
{
	unsigned char t[8];
	int i;

	for (i = 0; i < 8; i++)
		t[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, t, 8);
}

void buf_put_varint(struct buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	while (v >= 0x80) {
		t[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (unsigned char)v;
	buf_add(b, t, n);
}

void buf_put_svarint(struct buf *b, int64_t v)
{
	buf_put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void buf_put_str(struct buf *b, const char *s, size_t n)
{
	buf_put_varint(b, n);
	buf_add(b, s, n);
}

void buf_reader_init(struct buf_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->off = 0;
}

enum cr_err buf_get_u8(struct buf_reader *r, uint8_t *v)
{
	if (r->len - r->off < 1)
		return CR_ERR_FORMAT;
	*v = r->p[r->off++];
	return CR_OK;
}

uint32_t buf_load_u32le(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t buf_load_u64le(const unsigned char *p)
{
	return (uint64_t)buf_load_u32le(p) | (uint64_t)buf_load_u32le(p + 4) << 32;
}

enum cr_err buf_get_u32le(struct buf_reader *r, uint32_t *v)
{
	if (r->len - r->off < 4)
		return CR_ERR_FORMAT;
	*v = buf_load_u32le(r->p + r->off);
	r->off += 4;
	return CR_OK;
}

enum cr_err buf_get_u64le(struct buf_reader *r, uint64_t *v)
{
	if (r->len - r->off < 8)
		return CR_ERR_FORMAT;
	*v = buf_load_u64le(r->p + r->off);
	r->off += 8;
	return CR_OK;
}

enum cr_err buf_get_varint(struct buf_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	int shift = 0;

	while (r->off < r->len && shift < 64) {
		unsigned char c = r->p[r->off++];

		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return CR_OK;
		}
		shift += 7;
	}
	return CR_ERR_FORMAT;
}

enum cr_err buf_get_svarint(struct buf_reader *r, int64_t *v)
{
	uint64_t u;
	enum cr_err e = buf_get_varint(r, &u);

	if (e)
		return e;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return CR_OK;
}

enum cr_err buf_get_str(struct buf_reader *r, const char **s, size_t *n)
{
	uint64_t len;
	enum cr_err e = buf_get_varint(r, &len);

	if (e)
		return e;
	if (len > r->len - r->off)
		return CR_ERR_FORMAT;
	*s = (const char *)r->p + r->off;
	*n = (size_t)len;
	r->off += (size_t)len;
	return CR_OK;
}

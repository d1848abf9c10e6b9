/*
 * buf.h - a growable byte buffer and a bounded reader over bytes.
 *
 * struct buf owns its bytes (buf_init / buf_release). Appends abort the
 * process on allocation failure: memory exhaustion is not a condition a
 * crawl stage can recover from, and every size that input controls is
 * capped before it reaches a buffer.
 *
 * struct buf_reader reads packed values (varints, length-prefixed strings) from a
 * borrowed byte range and never reads past its end: every getter returns
 * CR_ERR_FORMAT instead.
 */
#ifndef CR_UTIL_BUF_H
#define CR_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/error.h"

struct buf {
	unsigned char *p;
	size_t len;
	size_t cap;
};

void buf_init(struct buf *b);
void buf_release(struct buf *b);
/* Grows b to hold len + extra + 1 bytes; buf_reserve's slow path. */
void buf_grow(struct buf *b, size_t extra);

/* The appends run per word and per byte in the parsers: inline, with the
 * growth out of line. */
static inline void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 > b->cap)
		buf_grow(b, extra);
}

static inline void buf_add(struct buf *b, const void *data, size_t n)
{
	if (!n)
		return;
	buf_reserve(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static inline void buf_addc(struct buf *b, char c)
{
	buf_reserve(b, 1);
	b->p[b->len++] = (unsigned char)c;
}
void buf_adds(struct buf *b, const char *s);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Make p a NUL-terminated string (the NUL is not counted in len). */
const char *buf_cstr(struct buf *b);
void buf_reset(struct buf *b);

void buf_put_u8(struct buf *b, uint8_t v);
void buf_put_u32le(struct buf *b, uint32_t v);
void buf_put_u64le(struct buf *b, uint64_t v);
void buf_put_varint(struct buf *b, uint64_t v);
/* Zig-zag signed varint. */
void buf_put_svarint(struct buf *b, int64_t v);
/* varint length, then the bytes; s may be NULL for an empty string. */
void buf_put_str(struct buf *b, const char *s, size_t n);

struct buf_reader {
	const unsigned char *p;
	size_t len;
	size_t off;
};

void buf_reader_init(struct buf_reader *r, const void *p, size_t len);
CR_WUR enum cr_err buf_get_u8(struct buf_reader *r, uint8_t *v);
CR_WUR enum cr_err buf_get_u32le(struct buf_reader *r, uint32_t *v);
CR_WUR enum cr_err buf_get_u64le(struct buf_reader *r, uint64_t *v);
CR_WUR enum cr_err buf_get_varint(struct buf_reader *r, uint64_t *v);
CR_WUR enum cr_err buf_get_svarint(struct buf_reader *r, int64_t *v);
/* A string borrowed from the reader's bytes (not NUL-terminated). */
CR_WUR enum cr_err buf_get_str(struct buf_reader *r, const char **s, size_t *n);

uint32_t buf_load_u32le(const unsigned char *p);
uint64_t buf_load_u64le(const unsigned char *p);

#endif

/*
 * reader.c - the WARC reader (warc.h): plain, gzip or zstd files record by
 * record, decompressing only as far as the record at hand needs.
 */
#define ZLIB_CONST
#include "warc/warc.h"
#include "warc/shared.h"
#include "util/fs.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#define WARC_INBUF (256 * 1024)        /* reader's compressed input buffer */
#define WARC_CHUNK (64 * 1024)         /* least bytes decoded per step */
#define WARC_ZSTD_WINDOWLOG_MAX 27     /* 128 MiB: zstd's own default cap */

/* ---- reader ---- */

enum warc_comp { WARC_PLAIN, WARC_GZIP, WARC_ZSTD };

struct warc_reader {
	int fd;
	char *path;
	enum warc_comp comp;
	size_t max_block;
	uint64_t fsize;
	enum cr_err err;        /* sticky error, returned until a seek */
	enum cr_err pending;    /* error found after a record was complete */
	const char *why;        /* reason for the log line */
	char whybuf[160];
	uint64_t rec_off;       /* offset of the record being read */

	/* compressed input: in[0..in_len) are the file's bytes from in_off */
	unsigned char *in;
	size_t in_pos, in_len;
	uint64_t in_off;

	/* decoded bytes: win.p[pos..win.len) are not consumed yet; for plain
	 * files win.p[0] is the file's byte at dbase */
	struct buf win;
	size_t pos;
	uint64_t dbase;

	/* the current gzip member / zstd frame */
	int in_unit;
	uint64_t unit_start, unit_end;
	int shared, shared_warned;

	z_stream zs;
	int zs_live;
	ZSTD_DCtx *zd;
};

static size_t r_avail(const struct warc_reader *r)
{
	return r->win.len - r->pos;
}

static enum cr_err r_why(struct warc_reader *r, enum cr_err e, const char *why)
{
	r->why = why;
	return e;
}

static enum cr_err r_ioerr(struct warc_reader *r)
{
	snprintf(r->whybuf, sizeof(r->whybuf), "read: %s", strerror(errno));
	return r_why(r, CR_ERR_IO, r->whybuf);
}

/* Ensures need compressed bytes at in[in_pos..]; CR_EOF if the file ends first. */
static enum cr_err in_fill(struct warc_reader *r, size_t need)
{
	while (r->in_len - r->in_pos < need) {
		ssize_t n;

		if (r->in_pos > 0) {
			memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
			r->in_off += r->in_pos;
			r->in_len -= r->in_pos;
			r->in_pos = 0;
		}
		n = fs_pread(r->fd, r->in + r->in_len, WARC_INBUF - r->in_len,
			     r->in_off + r->in_len);
		if (n < 0)
			return r_ioerr(r);
		if (n == 0)
			return CR_EOF;
		r->in_len += (size_t)n;
	}
	return CR_OK;
}

static size_t r_chunk(size_t room)
{
	if (room < WARC_CHUNK)
		return WARC_CHUNK;
	return room > (1u << 30) ? (1u << 30) : room;
}

static enum cr_err dec_plain(struct warc_reader *r, size_t room)
{
	size_t chunk = r_chunk(room);

	buf_reserve(&r->win, chunk);
	for (;;) {
		ssize_t n = fs_pread(r->fd, r->win.p + r->win.len, chunk,
				     r->dbase + r->win.len);
		if (n < 0)
			return r_ioerr(r);
		if (n == 0)
			return CR_EOF;
		r->win.len += (size_t)n;
		return CR_OK;
	}
}

/* Skips zstd skippable frames (extensions, the dictionary) before a frame. */
static enum cr_err zstd_skip(struct warc_reader *r)
{
	for (;;) {
		enum cr_err e = in_fill(r, 8);
		size_t have = r->in_len - r->in_pos;
		uint64_t target;

		if (e != CR_OK && e != CR_EOF)
			return e;
		if (have < 4 ||
		    (buf_load_u32le(r->in + r->in_pos) & ZSTD_SKIP_MASK) != ZSTD_SKIP_MAGIC)
			return CR_OK;
		if (have < 8)
			return r_why(r, CR_ERR_FORMAT, "zstd skippable frame cut short");
		target = r->in_off + r->in_pos + 8 + buf_load_u32le(r->in + r->in_pos + 4);
		if (target > r->fsize)
			return r_why(r, CR_ERR_FORMAT, "zstd skippable frame cut short");
		if (target <= r->in_off + r->in_len) {
			r->in_pos = (size_t)(target - r->in_off);
		} else {
			r->in_off = target;
			r->in_pos = r->in_len = 0;
		}
	}
}

/*
 * Decodes some bytes of the current gzip member / zstd frame into win,
 * starting the next one first if none is open and may_start is set.
 * CR_EOF: no unit open and none may start, or the file ends between units.
 */
static enum cr_err dec_unit(struct warc_reader *r, size_t room, int may_start)
{
	size_t chunk = r_chunk(room), in0, out0;
	enum cr_err e;
	int eof, ended = 0;

	if (!r->in_unit) {
		if (!may_start)
			return CR_EOF;
		if (r->comp == WARC_ZSTD && (e = zstd_skip(r)) != CR_OK)
			return e;
		e = in_fill(r, 1);
		if (e != CR_OK)
			return e;
		if (r->comp == WARC_GZIP) {
			if (inflateReset(&r->zs) != Z_OK)
				return r_why(r, CR_ERR_LIB, "inflateReset failed");
		} else {
			ZSTD_DCtx_reset(r->zd, ZSTD_reset_session_only);
		}
		r->in_unit = 1;
		r->unit_start = r->in_off + r->in_pos;
	}
	e = in_fill(r, 1);
	if (e != CR_OK && e != CR_EOF)
		return e;
	eof = e == CR_EOF;
	buf_reserve(&r->win, chunk);
	in0 = r->in_pos;
	out0 = r->win.len;
	if (r->comp == WARC_GZIP) {
		int ret;
		r->zs.next_in = r->in + r->in_pos;
		r->zs.avail_in = (uInt)(r->in_len - r->in_pos);
		r->zs.next_out = r->win.p + r->win.len;
		r->zs.avail_out = (uInt)chunk;
		ret = inflate(&r->zs, Z_NO_FLUSH);
		r->in_pos = r->in_len - r->zs.avail_in;
		r->win.len += chunk - r->zs.avail_out;
		if (ret == Z_STREAM_END) {
			ended = 1;
		} else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			snprintf(r->whybuf, sizeof(r->whybuf), "gzip: %s",
				 r->zs.msg ? r->zs.msg : "bad data");
			return r_why(r, CR_ERR_FORMAT, r->whybuf);
		}
	} else {
		ZSTD_inBuffer ib = { r->in + r->in_pos, r->in_len - r->in_pos, 0 };
		ZSTD_outBuffer ob = { r->win.p + r->win.len, chunk, 0 };
		size_t ret = ZSTD_decompressStream(r->zd, &ob, &ib);
		if (ZSTD_isError(ret)) {
			snprintf(r->whybuf, sizeof(r->whybuf), "zstd: %s",
				 ZSTD_getErrorName(ret));
			return r_why(r, CR_ERR_FORMAT, r->whybuf);
		}
		r->in_pos += ib.pos;
		r->win.len += ob.pos;
		ended = ret == 0;
	}
	if (ended) {
		r->in_unit = 0;
		r->unit_end = r->in_off + r->in_pos;
	} else if (r->in_pos == in0 && r->win.len == out0) {
		return r_why(r, CR_ERR_FORMAT, eof ? (r->comp == WARC_GZIP ?
			     "gzip member cut short" : "zstd frame cut short") :
			     "decoder made no progress");
	}
	return CR_OK;
}

/*
 * Decodes until want bytes are available or the input ends (the caller
 * checks r_avail). cross: may go on into the next gzip member / zstd frame.
 */
static enum cr_err pull(struct warc_reader *r, size_t want, int cross)
{
	while (r_avail(r) < want) {
		size_t room = want - r_avail(r);
		enum cr_err e = r->comp == WARC_PLAIN ? dec_plain(r, room)
						      : dec_unit(r, room, cross);
		if (e == CR_EOF)
			return CR_OK;
		if (e != CR_OK)
			return e;
	}
	return CR_OK;
}

static enum cr_err r_fail(struct warc_reader *r, enum cr_err e)
{
	log_err("warc", "%s: record at offset %llu: %s", r->path,
		(unsigned long long)r->rec_off, r->why ? r->why : error_str(e));
	r->err = e;
	return e;
}

static enum cr_err r_format(struct warc_reader *r, const char *why)
{
	return r_fail(r, r_why(r, CR_ERR_FORMAT, why));
}

static enum cr_err r_limit(struct warc_reader *r, const char *why)
{
	return r_fail(r, r_why(r, CR_ERR_LIMIT, why));
}

static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!s[0])
		return 0;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 19)
			return 0;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 1;
}

static int version_ok(const unsigned char *p, size_t n)
{
	size_t i = 5, d1 = 0, d2 = 0;

	if (n < 5 || memcmp(p, "WARC/", 5) != 0)
		return 0;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++, d1++;
	if (i >= n || p[i++] != '.')
		return 0;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++, d2++;
	return d1 && d2 && i + 1 < n && p[i] == '\r' && p[i + 1] == '\n';
}

/* Reads the WARC head at the window's position, up to its blank line:
 * *hl its length, *clen the Content-Length of its block. */
static enum cr_err r_head(struct warc_reader *r, size_t *hl, uint64_t *clen)
{
	size_t scan = 0;
	const unsigned char *p, *end;
	char val[32];
	enum cr_err e;

	for (;;) {
		size_t a = r_avail(r), from = scan > 3 ? scan - 3 : 0;

		p = r->win.p + r->pos;
		if (memcmp(p, "WARC/", a < 5 ? a : 5) != 0)
			return r_format(r, "no WARC/ version line");
		end = memmem(p + from, a - from, "\r\n\r\n", 4);
		if (end) {
			*hl = (size_t)(end - p) + 4;
			break;
		}
		if (a >= WARC_HEAD_MAX)
			return r_limit(r, "WARC head over WARC_HEAD_MAX");
		scan = a;
		if ((e = pull(r, a + 1, 1)) != CR_OK)
			return r_fail(r, e);
		if (r_avail(r) == a)
			return r_format(r, "file ends inside a WARC head");
	}
	if (*hl > WARC_HEAD_MAX)
		return r_limit(r, "WARC head over WARC_HEAD_MAX");
	if (!version_ok(p, *hl))
		return r_format(r, "bad WARC version line");
	if (!warc_head_field((const char *)p, *hl, "Content-Length", val, sizeof(val)) ||
	    !parse_u64(val, clen))
		return r_format(r, "missing or bad Content-Length");
	if (*clen > r->max_block || *clen > SIZE_MAX - *hl - 4) {
		snprintf(r->whybuf, sizeof(r->whybuf), "block of %llu bytes over the cap of %zu",
			 (unsigned long long)*clen, r->max_block);
		return r_limit(r, r->whybuf);
	}
	return CR_OK;
}

/* *length: the length of a compressed record's member or frame, read to
 * its end (0 when the member holds more records). */
static enum cr_err r_unit_length(struct warc_reader *r, uint64_t start, int in_shared,
				 uint64_t *length)
{
	enum cr_err e;

	/* Finish the member: its trailer (gzip CRC) belongs to this record. */
	if (r_avail(r) == 0 && r->in_unit && (e = pull(r, 1, 0)) != CR_OK)
		return r_fail(r, e);
	if (r_avail(r) > 0 || in_shared) {
		if (!r->shared_warned) {
			const char *unit = r->comp == WARC_GZIP ? "gzip member" : "zstd frame";

			log_warn("warc", "%s: %s at offset %llu holds more than one record; "
				 "records report that %s's offset", r->path, unit,
				 (unsigned long long)start, unit);
			r->shared_warned = 1;
		}
		r->shared = 1;
		/* Peek for the member's end, to report its length. */
		if (r->in_unit && (e = pull(r, WARC_PEEK_MAX, 0)) != CR_OK)
			r->pending = e;   /* reported by the next call */
	}
	*length = r->in_unit ? 0 : r->unit_end - start;
	return CR_OK;
}

enum cr_err warc_reader_next(struct warc_reader *r, struct warc_record *rec)
{
	size_t hl = 0, need;
	uint64_t clen, start, length;
	const unsigned char *p;
	int in_shared;
	enum cr_err e;

	if (r->err != CR_OK)
		return r->err;
	if (r->pending != CR_OK)
		return r_fail(r, r->pending);
	if (r->pos > 0) {
		memmove(r->win.p, r->win.p + r->pos, r_avail(r));
		r->win.len -= r->pos;
		if (r->comp == WARC_PLAIN)
			r->dbase += r->pos;
		r->pos = 0;
	}
	r->why = NULL;
	in_shared = r->comp != WARC_PLAIN && (r_avail(r) > 0 || r->in_unit);
	start = r->comp == WARC_PLAIN ? r->dbase : in_shared ? r->unit_start
							     : r->in_off + r->in_pos;
	r->rec_off = start;
	if ((e = pull(r, 1, 1)) != CR_OK)
		return r_fail(r, e);
	if (r_avail(r) == 0)
		return CR_EOF;
	if (r->comp != WARC_PLAIN && !in_shared)
		r->rec_off = start = r->unit_start;

	if ((e = r_head(r, &hl, &clen)) != CR_OK)
		return e;

	/* the block and the record end */
	need = hl + (size_t)clen + 4;
	if ((e = pull(r, need, 1)) != CR_OK)
		return r_fail(r, e);
	if (r_avail(r) < need)
		return r_format(r, "file ends inside a record");
	p = r->win.p + r->pos;
	if (memcmp(p + need - 4, "\r\n\r\n", 4) != 0)
		return r_format(r, "no CRLF CRLF after the block");
	r->pos += need;

	length = need - 4;
	if (r->comp != WARC_PLAIN && (e = r_unit_length(r, start, in_shared, &length)) != CR_OK)
		return e;
	p = r->win.p + r->pos - need;
	rec->offset = start;
	rec->length = length;
	rec->head = (const char *)p;
	rec->head_len = hl;
	rec->block = p + hl;
	rec->block_len = (size_t)clen;
	return CR_OK;
}

enum cr_err warc_reader_seek(struct warc_reader *r, uint64_t offset)
{
	if (offset > r->fsize)
		return CR_ERR_ARG;
	r->err = CR_OK;
	r->pending = CR_OK;
	r->win.len = 0;
	r->pos = 0;
	r->dbase = offset;
	r->in_off = offset;
	r->in_pos = r->in_len = 0;
	r->in_unit = 0;
	r->rec_off = offset;
	return CR_OK;
}

uint64_t warc_reader_offset(const struct warc_reader *r)
{
	return r->rec_off;
}

int warc_reader_shared_units(const struct warc_reader *r)
{
	return r->shared;
}

void warc_reader_free(struct warc_reader **rp)
{
	struct warc_reader *r;

	if (!rp || !*rp)
		return;
	r = *rp;
	*rp = NULL;
	if (r->zs_live)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->zd);
	if (r->fd >= 0)
		close(r->fd);
	buf_release(&r->win);
	free(r->in);
	free(r->path);
	free(r);
}

static enum cr_err r_pread_all(struct warc_reader *r, void *dst, size_t n,
			       uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = fs_pread(r->fd, (char *)dst + got, n - got, off + got);
		if (k < 0)
			return r_ioerr(r);
		if (k == 0)
			return r_why(r, CR_ERR_FORMAT, "zstd dictionary frame cut short");
		got += (size_t)k;
	}
	return CR_OK;
}

/* The dictionary frame at offset 0: raw or zstd-compressed dictionary. */
static enum cr_err zstd_load_dict(struct warc_reader *r)
{
	unsigned char hdr[8];
	unsigned char *raw = NULL, *dict = NULL;
	size_t n, dlen;
	enum cr_err e;

	if ((e = r_pread_all(r, hdr, 8, 0)) != CR_OK)
		return e;
	n = buf_load_u32le(hdr + 4);
	if (n > WARC_DICT_MAX)
		return r_why(r, CR_ERR_LIMIT, "zstd dictionary over 8 MiB");
	if (!(raw = malloc(n ? n : 1)))
		return CR_ERR_NOMEM;
	if ((e = r_pread_all(r, raw, n, 8)) != CR_OK)
		goto out;
	dict = raw;
	dlen = n;
	if (n >= 4 && buf_load_u32le(raw) == ZSTD_FRAME_MAGIC) {
		unsigned long long fcs = ZSTD_getFrameContentSize(raw, n);
		size_t got;
		if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR ||
		    fcs > WARC_DICT_MAX) {
			e = r_why(r, CR_ERR_FORMAT, "zstd dictionary without a size");
			goto out;
		}
		if (!(dict = malloc(fcs ? (size_t)fcs : 1))) {
			e = CR_ERR_NOMEM;
			goto out;
		}
		got = ZSTD_decompress(dict, (size_t)fcs, raw, n);
		if (ZSTD_isError(got) || got != fcs) {
			e = r_why(r, CR_ERR_FORMAT, "zstd dictionary corrupt");
			goto out;
		}
		dlen = (size_t)fcs;
	}
	if (ZSTD_isError(ZSTD_DCtx_loadDictionary(r->zd, dict, dlen)))
		e = r_why(r, CR_ERR_FORMAT, "zstd dictionary does not load");
out:
	if (dict != raw)
		free(dict);
	free(raw);
	return e;
}

enum cr_err warc_reader_open(const char *path, size_t max_block,
			     struct warc_reader **out)
{
	struct warc_reader *r;
	unsigned char m[5];
	struct stat st;
	ssize_t n;
	enum cr_err e = CR_OK;

	if (!path || !out)
		return CR_ERR_ARG;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return CR_ERR_NOMEM;
	}
	buf_init(&r->win);
	r->max_block = max_block ? max_block : WARC_BLOCK_MAX_DEFAULT;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st) != 0) {
		log_err("warc", "open %s: %s", path, strerror(errno));
		warc_reader_free(&r);
		return CR_ERR_IO;
	}
	r->fsize = (uint64_t)st.st_size;
	n = fs_pread(r->fd, m, sizeof(m), 0);
	if (n < 0) {
		log_err("warc", "read %s: %s", path, strerror(errno));
		warc_reader_free(&r);
		return CR_ERR_IO;
	}
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
		r->comp = WARC_GZIP;
	} else if (n >= 4 && (buf_load_u32le(m) == ZSTD_FRAME_MAGIC ||
			      buf_load_u32le(m) == ZSTD_DICT_MAGIC)) {
		r->comp = WARC_ZSTD;
	} else if (n == 0 || (n == 5 && memcmp(m, "WARC/", 5) == 0)) {
		r->comp = WARC_PLAIN;
	} else {
		log_err("warc", "%s: not a WARC file (no WARC/, gzip or zstd)", path);
		warc_reader_free(&r);
		return CR_ERR_FORMAT;
	}
	if (r->comp != WARC_PLAIN && !(r->in = malloc(WARC_INBUF)))
		e = CR_ERR_NOMEM;
	if (e == CR_OK && r->comp == WARC_GZIP) {
		if (inflateInit2(&r->zs, 15 + 16) != Z_OK)
			e = r_why(r, CR_ERR_LIB, "inflateInit2 failed");
		else
			r->zs_live = 1;
	}
	if (e == CR_OK && r->comp == WARC_ZSTD) {
		if (!(r->zd = ZSTD_createDCtx()))
			e = CR_ERR_NOMEM;
		else if (ZSTD_isError(ZSTD_DCtx_setParameter(r->zd, ZSTD_d_windowLogMax,
							     WARC_ZSTD_WINDOWLOG_MAX)))
			e = r_why(r, CR_ERR_LIB, "zstd windowLogMax refused");
		else if (buf_load_u32le(m) == ZSTD_DICT_MAGIC)
			e = zstd_load_dict(r);
	}
	if (e != CR_OK) {
		log_err("warc", "%s: %s", path, r->why ? r->why : error_str(e));
		warc_reader_free(&r);
		return e;
	}
	*out = r;
	return CR_OK;
}

/*
 * writer.c - the WARC writer (warc.h): records into gzip members or zstd
 * frames, files one at a time or a series rolled at max_bytes.
 */
#define ZLIB_CONST
#include "warc/warc.h"
#include "warc/shared.h"
#include "inputs/inputs.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#define WARC_WBUF (1024 * 1024)        /* writer's output buffer */
#define WARC_GZIP_LEVEL 6

/* ---- writer ---- */

struct warc_writer {
	int fd;
	char *path;
	enum cr_err err;        /* sticky: the first failure */
	uint64_t flushed;       /* bytes handed to write(2) */
	unsigned char *obuf;    /* compressed bytes not yet written */
	size_t olen;
	struct buf rec;         /* scratch: a record's WARC head */
	struct buf http;        /* scratch: the stored HTTP response head */
	enum warc_compression comp;
	struct libdeflate_compressor *ld;   /* gzip: one member a record */
	struct buf gin, gout;   /* a record gathered, and compressed */
	ZSTD_CCtx *zc;
	unsigned char *dict;    /* zstd dictionary, written first in each file */
	size_t dict_len;
	char warcinfo_id[48];
	char last_id[48];       /* of the last response or revisit written */
	char last_pd[40];       /* its WARC-Payload-Digest ("sha1:..."), or "" */
	/* a series (warc_writer_open_series): dir/prefix-SSSSS suffix ext */
	char *dir, *prefix, *suffix, *software;
	char *info;             /* more warcinfo fields, or NULL */
	unsigned serial;
	uint64_t max_bytes;     /* rotate once a file holds this many bytes */
	uint64_t records;       /* records in the current file */
	char name[256];         /* the current file's base name */
};

static enum cr_err w_fail(struct warc_writer *w, const char *what, enum cr_err e)
{
	if (w->err == CR_OK) {
		if (e == CR_ERR_IO)
			log_err("warc", "%s %s: %s", what, w->path, strerror(errno));
		else
			log_err("warc", "%s %s failed", what, w->path);
		w->err = e;
	}
	return w->err;
}

static enum cr_err w_flush(struct warc_writer *w)
{
	size_t off = 0;

	while (off < w->olen) {
		ssize_t n = write(w->fd, w->obuf + off, w->olen - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return w_fail(w, "write", CR_ERR_IO);
		}
		off += (size_t)n;
	}
	w->flushed += off;
	w->olen = 0;
	return CR_OK;
}

/* Appends n bytes to the output buffer, flushing it as it fills. */
static enum cr_err w_out(struct warc_writer *w, const unsigned char *p, size_t n)
{
	while (n > 0) {
		size_t room = WARC_WBUF - w->olen, k = n < room ? n : room;

		memcpy(w->obuf + w->olen, p, k);
		w->olen += k;
		p += k;
		n -= k;
		if (w->olen == WARC_WBUF && w_flush(w) != CR_OK)
			return w->err;
	}
	return CR_OK;
}

/* One record as one gzip member: libdeflate compresses the whole record at
 * once (the parts gathered first), faster than zlib's stream at the same
 * level. */
static enum cr_err w_gzip(struct warc_writer *w, const struct warc_part *parts, size_t n)
{
	size_t i, bound, got;
	enum cr_err e;

	w->gin.len = 0;
	for (i = 0; i < n; i++)
		buf_add(&w->gin, parts[i].p, parts[i].n);
	buf_add(&w->gin, "\r\n\r\n", 4);
	bound = libdeflate_gzip_compress_bound(w->ld, w->gin.len);
	w->gout.len = 0;
	buf_reserve(&w->gout, bound);
	got = libdeflate_gzip_compress(w->ld, w->gin.p, w->gin.len, w->gout.p, bound);
	if (got == 0)
		return w_fail(w, "gzip compression for", CR_ERR_LIB);
	e = w_out(w, w->gout.p, got);
	/* The buffers do not keep a large record's size for the rest. */
	if (w->gin.cap > (size_t)WARC_WBUF * 4) {
		buf_release(&w->gin);
		buf_release(&w->gout);
	}
	return e;
}

/* One record as one zstd frame, with its content size and checksum. */
static enum cr_err w_zstd(struct warc_writer *w, const struct warc_part *parts, size_t n)
{
	static const char end[] = "\r\n\r\n";
	size_t total = 4, i;

	for (i = 0; i < n; i++)
		total += parts[i].n;
	if (ZSTD_isError(ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w->zc, total)))
		return w_fail(w, "zstd reset for", CR_ERR_LIB);
	for (i = 0; i <= n; i++) {
		int last = i == n;
		ZSTD_inBuffer in = { last ? end : parts[i].p, last ? 4 : parts[i].n, 0 };
		size_t r;

		do {
			ZSTD_outBuffer out;

			if (w->olen == WARC_WBUF && w_flush(w) != CR_OK)
				return w->err;
			out.dst = w->obuf + w->olen;
			out.size = WARC_WBUF - w->olen;
			out.pos = 0;
			r = ZSTD_compressStream2(w->zc, &out, &in,
						 last ? ZSTD_e_end : ZSTD_e_continue);
			w->olen += out.pos;
			if (ZSTD_isError(r))
				return w_fail(w, "zstd compression for", CR_ERR_LIB);
		} while (last ? r != 0 : in.pos < in.size);
	}
	return CR_OK;
}

/* One record as one gzip member (zstd frame): parts, then CRLF CRLF. */
static enum cr_err w_member(struct warc_writer *w, const struct warc_part *parts, size_t n,
			    uint64_t *off, uint64_t *len)
{
	uint64_t start = w->flushed + w->olen;
	enum cr_err e;

	if (w->comp == WARC_COMP_ZSTD) {
		if ((e = w_zstd(w, parts, n)) != CR_OK)
			return e;
	} else if ((e = w_gzip(w, parts, n)) != CR_OK) {
		return e;
	}
	w->records++;
	*off = start;
	*len = w->flushed + w->olen - start;
	return CR_OK;
}

static enum cr_err w_uuid(struct warc_writer *w, char out[48])
{
	unsigned char b[16];
	size_t got = 0;
	uint64_t ms;
	int i;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return w_fail(w, "getrandom for", CR_ERR_IO);
		got += (size_t)n;
	}
	/* UUIDv7 (RFC 9562): 48 bits of Unix milliseconds first, so record IDs
	 * sort in time order, then the version, random bits and the variant. */
	ms = (uint64_t)(clock_now_us() / 1000);
	for (i = 0; i < 6; i++)
		b[i] = (unsigned char)(ms >> (40 - 8 * i));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x70);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 48,
		 "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x>",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
	return CR_OK;
}

void warc_format_date(int64_t us, char out[WARC_DATE_MAX])
{
	int64_t s = us / 1000000, f = us % 1000000;
	time_t t;
	struct tm tm;

	if (f < 0) {
		f += 1000000;
		s--;
	}
	t = (time_t)s;
	if (!gmtime_r(&t, &tm)) {
		snprintf(out, WARC_DATE_MAX, "1970-01-01T00:00:00Z");
		return;
	}
	snprintf(out, WARC_DATE_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)f);
}

/* A value safe to put on a header line: no controls, no spaces. */
static int w_token_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c >= 0x7f || i >= 64)
			return 0;
	}
	return i > 0;
}

/* Text for a header line: controls become spaces. */
static void w_add_text(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		buf_addc(b, (c < ' ' || c == 0x7f) ? ' ' : (char)c);
	}
}

void warc_format_uri(const char *s, struct buf *b)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c == 0x7f)
			buf_addf(b, "%%%02X", c);
		else
			buf_addc(b, (char)c);
	}
}

/* The offset of the value of header line l (n bytes) if it is called
 * name (lower case), else 0. */
static size_t w_field_is(const unsigned char *l, size_t n, const char *name)
{
	size_t k = strlen(name);

	if (n < k || !warc_ieq((const char *)l, name, k))
		return 0;
	while (k < n && warc_is_ws(l[k]))
		k++;
	return k < n && l[k] == ':' ? k + 1 : 0;
}

static int w_chunked_te(const unsigned char *l, size_t n)
{
	size_t k = w_field_is(l, n, "transfer-encoding"), i;

	for (i = k; k && i + 7 <= n; i++)
		if (warc_ieq((const char *)l + i, "chunked", 7))
			return 1;
	return 0;
}

/* 1 if the response head p[0..n) says Transfer-Encoding: chunked. */
static int w_head_chunked(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const unsigned char *nl = memchr(p + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - p) + 1 : n;

		if (end - i <= 2 && (end - i == 1 || p[i] == '\r'))
			return 0;   /* the blank line */
		if (i && w_chunked_te(p + i, end - i))
			return 1;
		i = end;
	}
	return 0;
}

/* The length of the HTTP version that ends (request) or starts (status)
 * a first line of n bytes at l, when it is one readers do not take (not
 * HTTP/1.0 or HTTP/1.1: "HTTP/2"), else 0; *at gets its offset. */
static size_t w_odd_version(const unsigned char *l, size_t n, int request, size_t *at)
{
	size_t i, e;

	while (n && (l[n - 1] == '\n' || l[n - 1] == '\r'))
		n--;
	if (request) {
		for (i = n; i && l[i - 1] != ' '; i--)
			;
		e = n;
	} else {
		i = 0;
		for (e = 0; e < n && l[e] != ' '; e++)
			;
	}
	*at = i;
	if (e - i < 6 || memcmp(l + i, "HTTP/", 5) ||
	    (e - i == 8 && (!memcmp(l + i + 5, "1.1", 3) || !memcmp(l + i + 5, "1.0", 3))))
		return 0;
	return e - i;
}

/* A head as stored: an HTTP version readers do not take written as
 * HTTP/1.1 (WARC-Protocol keeps the real one); in a response head,
 * Transfer-Encoding chunked renamed, and with it a Content-Length (the
 * body is stored de-chunked: a length sent beside chunked, which RFC 9112
 * says to ignore, would not describe it). */
static void w_store_head(struct buf *h, const unsigned char *p, size_t n, int request)
{
	size_t i = 0, at, vl;
	int first = 1, chunked = !request && w_head_chunked(p, n);

	while (i < n) {
		const unsigned char *nl = memchr(p + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - p) + 1 : n;
		size_t ll = end - i;

		if (ll == 1 || (ll == 2 && p[i] == '\r')) {
			buf_add(h, p + i, n - i);   /* blank line: the rest verbatim */
			return;
		}
		if (first && (vl = w_odd_version(p + i, ll, request, &at)) != 0) {
			buf_add(h, p + i, at);
			buf_adds(h, "HTTP/1.1");
			buf_add(h, p + i + at + vl, ll - at - vl);
		} else {
			if (!first && chunked && (w_chunked_te(p + i, ll) ||
						  w_field_is(p + i, ll, "content-length")))
				buf_adds(h, "X-Crawler-");
			buf_add(h, p + i, ll);
		}
		first = 0;
		i = end;
	}
}

/* WARC-Protocol (HTTP, then TLS) and WARC-Cipher-Suite of an exchange. */
static void w_protocol_fields(struct buf *rec, const struct warc_exchange *x)
{
	if (x->protocol && w_token_ok(x->protocol))
		buf_addf(rec, "WARC-Protocol: %s\r\n", x->protocol);
	if (x->tls && w_token_ok(x->tls))
		buf_addf(rec, "WARC-Protocol: %s\r\n", x->tls);
	if (x->cipher && w_token_ok(x->cipher))
		buf_addf(rec, "WARC-Cipher-Suite: %s\r\n", x->cipher);
}

static enum cr_err w_warcinfo(struct warc_writer *w, const char *software)
{
	char id[48], date[80], host[256], bd[33];
	struct buf body;
	struct warc_part p[2];
	uint64_t off, len;
	enum cr_err e;

	if ((e = w_uuid(w, id)) != CR_OK)
		return e;
	memcpy(w->warcinfo_id, id, sizeof(id));
	warc_format_date(clock_now_us(), date);
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';

	buf_init(&body);
	buf_adds(&body, "software: ");
	w_add_text(&body, software ? software : "mpicrawl");
	buf_adds(&body, "\r\nformat: WARC File Format 1.1\r\n"
		 "conformsTo: https://iipc.github.io/warc-specifications/"
		 "specifications/warc-format/warc-1.1/\r\nhostname: ");
	w_add_text(&body, host);
	buf_adds(&body, "\r\n");
	if (w->info)
		buf_adds(&body, w->info);
	p[0].p = body.p;
	p[0].n = body.len;
	if (!warc_sha1_parts(p, 1, bd)) {
		buf_release(&body);
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	}

	buf_reset(&w->rec);
	buf_addf(&w->rec, "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: %s\r\n"
		 "WARC-Date: %s\r\nWARC-Filename: ", id, date);
	w_add_text(&w->rec, w->name);
	buf_addf(&w->rec, "\r\nWARC-Block-Digest: sha1:%s\r\n"
		 "Content-Type: application/warc-fields\r\nContent-Length: %zu\r\n\r\n",
		 bd, body.len);
	p[0].p = w->rec.p;
	p[0].n = w->rec.len;
	p[1].p = body.p;
	p[1].n = body.len;
	e = w_member(w, p, 2, &off, &len);
	buf_release(&body);
	return e;
}

static void w_free(struct warc_writer *w)
{
	libdeflate_free_compressor(w->ld);
	buf_release(&w->gin);
	buf_release(&w->gout);
	ZSTD_freeCCtx(w->zc);
	buf_release(&w->rec);
	buf_release(&w->http);
	free(w->obuf);
	free(w->path);
	free(w->dict);
	free(w->dir);
	free(w->prefix);
	free(w->suffix);
	free(w->software);
	free(w->info);
	free(w);
}

static void w_u32le(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* Opens w->path and starts it: the dictionary frame, then the warcinfo. */
static enum cr_err w_start_file(struct warc_writer *w)
{
	w->fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		log_err("warc", "open %s: %s", w->path, strerror(errno));
		return CR_ERR_IO;
	}
	w->flushed = 0;
	w->olen = 0;
	w->records = 0;
	if (w->comp == WARC_COMP_ZSTD && w->dict) {
		/* warc-zstd: a skippable frame 0x184D2A5D holding the dictionary */
		w_u32le(w->obuf, ZSTD_DICT_MAGIC);
		w_u32le(w->obuf + 4, (uint32_t)w->dict_len);
		memcpy(w->obuf + 8, w->dict, w->dict_len);
		w->olen = 8 + w->dict_len;
	}
	return w_warcinfo(w, w->software);
}

/* Flushes, fsyncs and closes the current file. */
static enum cr_err w_end_file(struct warc_writer *w)
{
	enum cr_err e = w->err;

	if (e == CR_OK)
		e = w_flush(w);
	if (e == CR_OK && fsync(w->fd) != 0)
		e = w_fail(w, "fsync", CR_ERR_IO);
	if (close(w->fd) != 0 && e == CR_OK)
		e = w_fail(w, "close", CR_ERR_IO);
	w->fd = -1;
	return e;
}

/* Names the file of w->serial: dir/prefix-SSSSS suffix .warc.gz|.warc.zst */
static enum cr_err w_series_path(struct warc_writer *w)
{
	size_t n;
	int k;

	k = snprintf(w->name, sizeof(w->name), "%s-%05u%s%s", w->prefix, w->serial,
		     w->suffix, w->comp == WARC_COMP_ZSTD ? ".warc.zst" : ".warc.gz");
	if (k < 0 || (size_t)k >= sizeof(w->name))
		return CR_ERR_ARG;
	free(w->path);
	n = strlen(w->dir) + strlen(w->name) + 2;
	if (!(w->path = malloc(n)))
		return CR_ERR_NOMEM;
	snprintf(w->path, n, "%s/%s", w->dir, w->name);
	return CR_OK;
}

/* Before a record: a series whose file is full goes on in the next file. */
static enum cr_err w_rotate(struct warc_writer *w)
{
	enum cr_err e;

	if (!w->dir || !w->max_bytes || w->records < 2 ||
	    w->flushed + w->olen < w->max_bytes)
		return CR_OK;
	if ((e = w_end_file(w)) != CR_OK)
		return e;
	w->serial++;
	if ((e = w_series_path(w)) != CR_OK || (e = w_start_file(w)) != CR_OK) {
		w->err = e;
		return e;
	}
	return CR_OK;
}

static enum cr_err w_new_opts(const struct warc_writer_opts *o, const char *software,
			      struct warc_writer **out);

static enum cr_err w_new(const struct warc_writer_opts *opts, const char *software,
			 struct warc_writer **out)
{
	struct warc_writer_opts def = { WARC_COMP_GZIP, 0, 0, NULL, 0, NULL, NULL, NULL };
	struct warc_writer_opts o1;
	const struct warc_writer_opts *o = opts ? opts : &def;
	struct buf dict;
	enum cr_err e;

	buf_init(&dict);
	if (o->comp == WARC_COMP_ZSTD && !o->zstd_dict && o->zstd_dict_path) {
		/* In a job, the bytes rank 0 read (inputs/inputs.h). */
		e = inputs_read(o->zstd_dict_path, WARC_DICT_MAX + 1, &dict);
		if (e != CR_OK) {
			log_err("warc", "cannot read the zstd dictionary '%s' on %s",
				o->zstd_dict_path, inputs_node());
			buf_release(&dict);
			return e;
		}
		o1 = *o;
		o1.zstd_dict = dict.p;
		o1.zstd_dict_len = dict.len;
		o = &o1;
	}
	e = w_new_opts(o, software, out);
	buf_release(&dict);
	return e;
}

static enum cr_err w_new_opts(const struct warc_writer_opts *o, const char *software,
			      struct warc_writer **out)
{
	struct warc_writer *w;
	int level;

	level = o->level;
	if (o->comp == WARC_COMP_GZIP) {
		if (level == 0)
			level = WARC_GZIP_LEVEL;
		if (level < 1 || level > 9)
			return CR_ERR_ARG;
	} else if (o->comp == WARC_COMP_ZSTD) {
		if (level == 0)
			level = 3;
		if (level < 1 || level > 19)   /* 19: windows of at most 8 MiB */
			return CR_ERR_ARG;
		if (o->zstd_dict && (o->zstd_dict_len < 8 || o->zstd_dict_len > WARC_DICT_MAX ||
				     buf_load_u32le(o->zstd_dict) != ZSTD_DICTIONARY_MAGIC)) {
			log_err("warc", "the zstd dictionary is not one (zstd --train makes one)");
			return CR_ERR_FORMAT;
		}
	} else {
		return CR_ERR_ARG;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return CR_ERR_NOMEM;
	w->fd = -1;
	w->comp = o->comp;
	buf_init(&w->rec);
	buf_init(&w->http);
	if (!(w->obuf = malloc(WARC_WBUF + WARC_DICT_MAX + 8)) ||
	    !(w->software = strdup(software ? software : "mpicrawl")) ||
	    (o->info && !(w->info = strdup(o->info)))) {
		w_free(w);
		return CR_ERR_NOMEM;
	}
	if (w->comp == WARC_COMP_GZIP) {
		if (!(w->ld = libdeflate_alloc_compressor(level))) {
			log_err("warc", "libdeflate_alloc_compressor failed");
			w_free(w);
			return CR_ERR_LIB;
		}
	} else {
		if (!(w->zc = ZSTD_createCCtx()) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_contentSizeFlag, 1))) {
			log_err("warc", "zstd compressor set-up failed");
			w_free(w);
			return CR_ERR_LIB;
		}
		if (o->zstd_dict) {
			if (!(w->dict = malloc(o->zstd_dict_len))) {
				w_free(w);
				return CR_ERR_NOMEM;
			}
			memcpy(w->dict, o->zstd_dict, o->zstd_dict_len);
			w->dict_len = o->zstd_dict_len;
			if (ZSTD_isError(ZSTD_CCtx_loadDictionary(w->zc, w->dict, w->dict_len))) {
				log_err("warc", "the zstd dictionary does not load");
				w_free(w);
				return CR_ERR_FORMAT;
			}
		}
	}
	*out = w;
	return CR_OK;
}

enum cr_err warc_writer_open(const char *path, const char *software,
			     struct warc_writer **out)
{
	return warc_writer_open_level(path, software, WARC_GZIP_LEVEL, out);
}

enum cr_err warc_writer_open_level(const char *path, const char *software, int level,
				   struct warc_writer **out)
{
	struct warc_writer_opts o = { WARC_COMP_GZIP, level, 0, NULL, 0, NULL, NULL, NULL };

	if (level < 1 || level > 9)
		return CR_ERR_ARG;
	return warc_writer_open_opts(path, software, &o, out);
}

enum cr_err warc_writer_open_opts(const char *path, const char *software,
				  const struct warc_writer_opts *o,
				  struct warc_writer **out)
{
	const char *base;
	struct warc_writer *w;
	enum cr_err e;

	if (!path || !out)
		return CR_ERR_ARG;
	if ((e = w_new(o, software, &w)) != CR_OK)
		return e;
	base = o && o->filename ? o->filename : strrchr(path, '/');
	snprintf(w->name, sizeof(w->name), "%s", base ? base + (base[0] == '/') : path);
	if (!(w->path = strdup(path))) {
		w_free(w);
		return CR_ERR_NOMEM;
	}
	if ((e = w_start_file(w)) != CR_OK) {
		if (w->fd >= 0)
			close(w->fd);
		w_free(w);
		return e;
	}
	*out = w;
	return CR_OK;
}

enum cr_err warc_writer_open_series(const char *dir, const char *prefix, const char *suffix,
				    const char *software, const struct warc_writer_opts *o,
				    struct warc_writer **out)
{
	struct warc_writer *w;
	enum cr_err e;

	if (!dir || !prefix || !out)
		return CR_ERR_ARG;
	if ((e = w_new(o, software, &w)) != CR_OK)
		return e;
	w->max_bytes = o ? o->max_bytes : 0;
	if (!(w->dir = strdup(dir)) || !(w->prefix = strdup(prefix)) ||
	    !(w->suffix = strdup(suffix ? suffix : ""))) {
		w_free(w);
		return CR_ERR_NOMEM;
	}
	if ((e = w_series_path(w)) != CR_OK || (e = w_start_file(w)) != CR_OK) {
		if (w->fd >= 0)
			close(w->fd);
		w_free(w);
		return e;
	}
	*out = w;
	return CR_OK;
}

const char *warc_writer_name(const struct warc_writer *w)
{
	return w->name;
}

uint64_t warc_writer_offset(const struct warc_writer *w)
{
	return w->flushed + w->olen;
}

enum cr_err warc_writer_flush(struct warc_writer *w, int *fd)
{
	enum cr_err e;

	*fd = -1;
	if (!w)
		return CR_OK;
	e = w->err;
	if (e == CR_OK)
		e = w_flush(w);
	if (e == CR_OK)
		*fd = w->fd;
	return e;
}

enum cr_err warc_writer_sync(struct warc_writer *w)
{
	int fd;
	enum cr_err e = warc_writer_flush(w, &fd);

	if (e == CR_OK && fd >= 0 && fsync(fd) != 0)
		e = w_fail(w, "fsync", CR_ERR_IO);
	return e;
}

/* The revisit fields of a response record's header. */
static void w_revisit_fields(struct buf *rec, const struct warc_exchange *x)
{
	char rd[80];

	buf_addf(rec, "WARC-Profile: %s\r\n", x->revisit_profile);
	if (x->refers_to_uri && x->refers_to_uri[0]) {
		buf_adds(rec, "WARC-Refers-To-Target-URI: ");
		warc_format_uri(x->refers_to_uri, rec);
		buf_adds(rec, "\r\n");
	}
	if (x->refers_to_date_us > 0) {
		warc_format_date(x->refers_to_date_us, rd);
		buf_addf(rec, "WARC-Refers-To-Date: %s\r\n", rd);
	}
}

/* The response (or revisit: its block is the head alone) of an exchange. */
static enum cr_err w_response(struct warc_writer *w, const struct warc_exchange *x,
			      const char *id, const char *date, uint64_t *off, uint64_t *len)
{
	char bd[33], pd[33];
	struct warc_part p[3];

	buf_reset(&w->http);
	w_store_head(&w->http, x->resp_head, x->resp_head_len, 0);
	p[0].p = w->http.p;
	p[0].n = w->http.len;
	p[1].p = x->body;
	p[1].n = x->body_len;
	if (!warc_sha1_parts(p + 1, 1, pd))
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	if (x->revisit_profile)
		p[1].n = 0;
	if (!warc_sha1_parts(p, 2, bd))
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	buf_reset(&w->rec);
	buf_addf(&w->rec, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\n"
		 "WARC-Date: %s\r\nWARC-Target-URI: ",
		 x->revisit_profile ? "revisit" : "response", id, date);
	warc_format_uri(x->target_uri, &w->rec);
	buf_adds(&w->rec, "\r\n");
	if (x->ip && w_token_ok(x->ip))
		buf_addf(&w->rec, "WARC-IP-Address: %s\r\n", x->ip);
	w_protocol_fields(&w->rec, x);
	buf_addf(&w->rec, "WARC-Warcinfo-ID: %s\r\n", w->warcinfo_id);
	if (x->revisit_profile)
		w_revisit_fields(&w->rec, x);
	else if (x->truncated && w_token_ok(x->truncated))
		buf_addf(&w->rec, "WARC-Truncated: %s\r\n", x->truncated);
	buf_addf(&w->rec, "WARC-Block-Digest: sha1:%s\r\n", bd);
	/* A 304 has no payload; an identical-payload revisit names the
	 * payload it did not store (WARC 1.1 6.7.2), an empty one too. */
	w->last_pd[0] = '\0';
	if (!x->revisit_profile || x->body_len ||
	    !strcmp(x->revisit_profile, WARC_PROFILE_IDENTICAL)) {
		buf_addf(&w->rec, "WARC-Payload-Digest: sha1:%s\r\n", pd);
		snprintf(w->last_pd, sizeof(w->last_pd), "sha1:%s", pd);
	}
	buf_addf(&w->rec, "Content-Type: application/http;msgtype=response\r\n"
		 "Content-Length: %zu\r\n\r\n", w->http.len + p[1].n);
	p[2] = p[1];
	p[1] = p[0];
	p[0].p = w->rec.p;
	p[0].n = w->rec.len;
	return w_member(w, p, 3, off, len);
}

/* The request of an exchange, concurrent to its response resp_id. */
static enum cr_err w_request(struct warc_writer *w, const struct warc_exchange *x,
			     const char *id, const char *resp_id, const char *date)
{
	char bd[33], pd[33];
	struct warc_part p[2];
	uint64_t off, len;
	size_t qhl = 0;
	int qst, have_pd;

	buf_reset(&w->http);
	w_store_head(&w->http, x->request, x->request_len, 1);
	p[0].p = w->http.p;
	p[0].n = w->http.len;
	if (!warc_sha1_parts(p, 1, bd))
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	have_pd = w->http.len &&
		  warc_http_split(w->http.p, w->http.len, &qst, &qhl) == CR_OK;
	if (have_pd) {
		p[1].p = w->http.p + qhl;
		p[1].n = w->http.len - qhl;
		if (!warc_sha1_parts(p + 1, 1, pd))
			return w_fail(w, "sha1 for", CR_ERR_LIB);
	}
	buf_reset(&w->rec);
	buf_addf(&w->rec, "WARC/1.1\r\nWARC-Type: request\r\nWARC-Record-ID: %s\r\n"
		 "WARC-Date: %s\r\nWARC-Target-URI: ", id, date);
	warc_format_uri(x->target_uri, &w->rec);
	buf_addf(&w->rec, "\r\nWARC-Concurrent-To: %s\r\n", resp_id);
	w_protocol_fields(&w->rec, x);
	buf_addf(&w->rec, "WARC-Warcinfo-ID: %s\r\nWARC-Block-Digest: sha1:%s\r\n",
		 w->warcinfo_id, bd);
	if (have_pd)
		buf_addf(&w->rec, "WARC-Payload-Digest: sha1:%s\r\n", pd);
	buf_addf(&w->rec, "Content-Type: application/http;msgtype=request\r\n"
		 "Content-Length: %zu\r\n\r\n", w->http.len);
	p[1].p = w->http.p;
	p[1].n = w->http.len;
	p[0].p = w->rec.p;
	p[0].n = w->rec.len;
	return w_member(w, p, 2, &off, &len);
}

enum cr_err warc_write_exchange(struct warc_writer *w, const struct warc_exchange *x,
				uint64_t *resp_offset, uint64_t *resp_length)
{
	char resp_id[48], req_id[48], date[80];
	uint64_t ro, rl;
	enum cr_err e;

	if (!w || !x || !x->target_uri || !x->target_uri[0] ||
	    (!x->request && x->request_len) || (!x->resp_head && x->resp_head_len) ||
	    (!x->body && x->body_len))
		return CR_ERR_ARG;
	if (w->err != CR_OK)
		return w->err;
	if ((e = w_rotate(w)) != CR_OK)
		return e;
	if ((e = w_uuid(w, resp_id)) != CR_OK || (e = w_uuid(w, req_id)) != CR_OK)
		return e;
	warc_format_date(x->date_us, date);
	if ((e = w_response(w, x, resp_id, date, &ro, &rl)) != CR_OK ||
	    (e = w_request(w, x, req_id, resp_id, date)) != CR_OK)
		return e;
	memcpy(w->last_id, resp_id, sizeof(w->last_id));
	if (resp_offset)
		*resp_offset = ro;
	if (resp_length)
		*resp_length = rl;
	return CR_OK;
}

const char *warc_writer_last_id(const struct warc_writer *w)
{
	return w && w->last_id[0] ? w->last_id : NULL;
}

const char *warc_writer_last_payload_digest(const struct warc_writer *w)
{
	return w ? w->last_pd : "";
}

enum cr_err warc_write_record(struct warc_writer *w, const struct warc_record_out *r,
			      uint64_t *off, uint64_t *len)
{
	char id[48], date[80], bd[33];
	struct warc_part p[2];
	uint64_t o, l;
	size_t fl = r && r->fields ? strlen(r->fields) : 0;
	enum cr_err e;

	if (!w || !r || !r->type || !w_token_ok(r->type) || (!r->block && r->block_len) ||
	    (fl && (r->fields[fl - 1] != '\n' || memmem(r->fields, fl, "\r\n\r\n", 4))))
		return CR_ERR_ARG;
	if (w->err != CR_OK)
		return w->err;
	if ((e = w_rotate(w)) != CR_OK || (e = w_uuid(w, id)) != CR_OK)
		return e;
	warc_format_date(r->date_us, date);
	p[0].p = r->block;
	p[0].n = r->block_len;
	if (!warc_sha1_parts(p, 1, bd))
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	buf_reset(&w->rec);
	buf_addf(&w->rec, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\n"
		 "WARC-Date: %s\r\n", r->type, id, date);
	if (r->target_uri && r->target_uri[0]) {
		buf_adds(&w->rec, "WARC-Target-URI: ");
		warc_format_uri(r->target_uri, &w->rec);
		buf_adds(&w->rec, "\r\n");
	}
	if (r->refers_to && w_token_ok(r->refers_to))
		buf_addf(&w->rec, "WARC-Refers-To: %s\r\n", r->refers_to);
	buf_addf(&w->rec, "WARC-Warcinfo-ID: %s\r\n", w->warcinfo_id);
	if (fl)
		buf_add(&w->rec, r->fields, fl);
	buf_addf(&w->rec, "WARC-Block-Digest: sha1:%s\r\n", bd);
	if (r->content_type && r->content_type[0]) {
		buf_adds(&w->rec, "Content-Type: ");
		w_add_text(&w->rec, r->content_type);
		buf_adds(&w->rec, "\r\n");
	}
	buf_addf(&w->rec, "Content-Length: %zu\r\n\r\n", r->block_len);
	p[1] = p[0];
	p[0].p = w->rec.p;
	p[0].n = w->rec.len;
	if ((e = w_member(w, p, 2, &o, &l)) != CR_OK)
		return e;
	if (off)
		*off = o;
	if (len)
		*len = l;
	return CR_OK;
}

enum cr_err warc_writer_close(struct warc_writer **wp)
{
	struct warc_writer *w;
	enum cr_err e;

	if (!wp || !*wp)
		return CR_OK;
	w = *wp;
	*wp = NULL;
	e = w_end_file(w);
	w_free(w);
	return e;
}

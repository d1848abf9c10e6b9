/*
 * warc.c - WARC 1.1 writer and reader; see warc.h.
 *
 * zlib, zstd and OpenSSL's digests are used here only.
 */
#define ZLIB_CONST
#include "warc/warc.h"
#include "inputs/inputs.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#define WARC_WBUF (1024 * 1024)        /* writer's output buffer */
#define WARC_INBUF (256 * 1024)        /* reader's compressed input buffer */
#define WARC_CHUNK (64 * 1024)         /* least bytes decoded per step */
#define WARC_DICT_MAX (8 * 1024 * 1024) /* zstd dictionary, as warc-zstd requires */
#define WARC_ZSTD_WINDOWLOG_MAX 27     /* 128 MiB: zstd's own default cap */
#define WARC_GZIP_LEVEL 6

#define ZSTD_FRAME_MAGIC 0xFD2FB528u
#define ZSTD_DICT_MAGIC 0x184D2A5Du
#define ZSTD_SKIP_MASK 0xFFFFFFF0u
#define ZSTD_SKIP_MAGIC 0x184D2A50u
#define ZSTD_DICTIONARY_MAGIC 0xEC30A437u /* 37 A4 30 EC: a zstd dictionary */

/* ---- small text helpers ---- */

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static int ieq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return 0;
	return 1;
}

static int is_ws(int c)
{
	return c == ' ' || c == '\t';
}

/* ---- digests ---- */

static const char b32_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static void enc_b32(const unsigned char *p, size_t n, char *out)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		acc = (acc << 8) | p[i];
		bits += 8;
		while (bits >= 5) {
			out[o++] = b32_alpha[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits > 0)
		out[o++] = b32_alpha[(acc << (5 - bits)) & 31];
	out[o] = '\0';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int b32val(int c)
{
	c = lower(c);
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= '2' && c <= '7')
		return c - '2' + 26;
	return -1;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Each decoder: 1 if s[0..n) is exactly want bytes in its encoding. */
static int dec_hex(const char *s, size_t n, unsigned char *out, size_t want)
{
	size_t i;

	if (n != 2 * want)
		return 0;
	for (i = 0; i < want; i++) {
		int h = hexval((unsigned char)s[2 * i]);
		int l = hexval((unsigned char)s[2 * i + 1]);
		if (h < 0 || l < 0)
			return 0;
		out[i] = (unsigned char)(h << 4 | l);
	}
	return 1;
}

static int dec_radix(const char *s, size_t n, unsigned char *out, size_t want,
		     int shift, int (*val)(int))
{
	uint32_t acc = 0;
	int bits = 0;
	size_t i, o = 0;

	while (n > 0 && s[n - 1] == '=')
		n--;
	if (n != (want * 8 + (size_t)shift - 1) / (size_t)shift)
		return 0;
	for (i = 0; i < n; i++) {
		int v = val((unsigned char)s[i]);
		if (v < 0)
			return 0;
		acc = (acc << shift) | (uint32_t)v;
		bits += shift;
		if (bits >= 8) {
			if (o < want)
				out[o] = (unsigned char)(acc >> (bits - 8));
			o++;
			bits -= 8;
		}
	}
	return o == want;
}

static const EVP_MD *digest_md(const char *name, size_t n)
{
	static const struct {
		const char *name;
		const EVP_MD *(*md)(void);
	} algs[] = {
		{ "md5", EVP_md5 }, { "sha1", EVP_sha1 }, { "sha224", EVP_sha224 },
		{ "sha256", EVP_sha256 }, { "sha384", EVP_sha384 },
		{ "sha512", EVP_sha512 },
	};
	char norm[16];
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (name[i] == '-')
			continue;
		if (k + 1 >= sizeof(norm))
			return NULL;
		norm[k++] = (char)lower((unsigned char)name[i]);
	}
	norm[k] = '\0';
	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcmp(norm, algs[i].name) == 0)
			return algs[i].md();
	return NULL;
}

int warc_digest_check(const char *labelled, const void *data, size_t len)
{
	unsigned char want[EVP_MAX_MD_SIZE], got[EVP_MAX_MD_SIZE];
	const char *colon, *v;
	const EVP_MD *md;
	unsigned int dlen = 0;
	size_t vlen;

	while (is_ws((unsigned char)*labelled))
		labelled++;
	colon = strchr(labelled, ':');
	if (!colon)
		return -1;
	md = digest_md(labelled, (size_t)(colon - labelled));
	if (!md)
		return -1;
	v = colon + 1;
	while (is_ws((unsigned char)*v))
		v++;
	vlen = strlen(v);
	while (vlen > 0 && is_ws((unsigned char)v[vlen - 1]))
		vlen--;
	if (!EVP_Digest(data, len, got, &dlen, md, NULL))
		return -1;
	if ((dec_hex(v, vlen, want, dlen) ||
	     dec_radix(v, vlen, want, dlen, 5, b32val)) &&
	    memcmp(want, got, dlen) == 0)
		return 1;
	if (dec_radix(v, vlen, want, dlen, 6, b64val) && memcmp(want, got, dlen) == 0)
		return 1;
	return 0;
}

struct part {
	const void *p;
	size_t n;
};

static int sha1_parts(const struct part *parts, size_t n, char out[33])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t i;
	int ok;

	if (!c)
		return 0;
	ok = EVP_DigestInit_ex(c, EVP_sha1(), NULL);
	for (i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(c, parts[i].p, parts[i].n);
	if (ok)
		ok = EVP_DigestFinal_ex(c, md, &mdlen);
	EVP_MD_CTX_free(c);
	if (ok)
		enc_b32(md, mdlen, out);
	return ok;
}

void warc_sha1_base32(const void *data, size_t len, char out[33])
{
	struct part p = { data, len };

	if (!sha1_parts(&p, 1, out))
		out[0] = '\0';
}

/* ---- header fields and HTTP blocks ---- */

/* Appends s[0..n) to out at *o, keeping room for the NUL. */
static void out_add(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
	if (*o + 1 >= cap)
		return;
	if (n > cap - 1 - *o)
		n = cap - 1 - *o;
	memcpy(out + *o, s, n);
	*o += n;
}

static size_t line_len(const char *h, size_t i, size_t n, size_t *next)
{
	const char *nl = memchr(h + i, '\n', n - i);
	size_t e = nl ? (size_t)(nl - h) : n;

	*next = nl ? e + 1 : n;
	if (e > i && h[e - 1] == '\r')
		e--;
	return e - i;
}

static int head_field(const char *h, size_t n, const char *name, char *out, size_t cap)
{
	size_t nlen = strlen(name), i, next, o = 0;

	if (cap)
		out[0] = '\0';
	line_len(h, 0, n, &i); /* the version line */
	while (i < n) {
		size_t ll = line_len(h, i, n, &next);
		const char *l = h + i, *colon;
		size_t k;

		if (ll == 0)
			break;
		colon = is_ws((unsigned char)l[0]) ? NULL : memchr(l, ':', ll);
		k = colon ? (size_t)(colon - l) : 0;
		while (k > 0 && is_ws((unsigned char)l[k - 1]))
			k--;
		if (colon && k == nlen && ieq(l, name, nlen)) {
			size_t vs = (size_t)(colon - l) + 1;
			for (;;) {
				while (vs < ll && is_ws((unsigned char)l[vs]))
					vs++;
				out_add(out, cap, &o, l + vs, ll - vs);
				i = next;
				if (i >= n || !is_ws((unsigned char)h[i]))
					break;
				ll = line_len(h, i, n, &next);
				l = h + i;
				vs = 0;
				out_add(out, cap, &o, " ", 1);
			}
			while (o > 0 && is_ws((unsigned char)out[o - 1]))
				o--;
			if (cap)
				out[o] = '\0';
			return 1;
		}
		i = next;
	}
	return 0;
}

int warc_record_field(const struct warc_record *rec, const char *name, char *out,
		      size_t cap)
{
	return head_field(rec->head, rec->head_len, name, out, cap);
}

int warc_record_truncated(const struct warc_record *rec)
{
	char v[32];

	return head_field(rec->head, rec->head_len, "WARC-Truncated", v, sizeof(v));
}

enum cr_err warc_http_split(const unsigned char *block, size_t len, int *status,
			    size_t *head_len)
{
	const char *b = (const char *)block;
	size_t i = 0, next, first = 0, hl = 0;
	int st = 0;

	for (;;) {
		size_t ll;
		if (i >= len || !memchr(b + i, '\n', len - i))
			return CR_ERR_FORMAT;
		ll = line_len(b, i, len, &next);
		if (ll == 0) {
			if (i == 0)
				return CR_ERR_FORMAT;
			hl = next;
			break;
		}
		if (i == 0)
			first = ll;
		i = next;
	}
	if (first >= 5 && memcmp(b, "HTTP/", 5) == 0) {
		const char *sp = memchr(b, ' ', first);
		size_t k;
		if (!sp)
			return CR_ERR_FORMAT;
		k = (size_t)(sp - b) + 1;
		if (k + 3 > first)
			return CR_ERR_FORMAT;
		for (i = 0; i < 3; i++) {
			if (b[k + i] < '0' || b[k + i] > '9')
				return CR_ERR_FORMAT;
			st = st * 10 + (b[k + i] - '0');
		}
		if (k + 3 < first && b[k + 3] != ' ')
			return CR_ERR_FORMAT;
	}
	*status = st;
	*head_len = hl;
	return CR_OK;
}

enum cr_err warc_record_payload(const struct warc_record *rec, const unsigned char **p,
				size_t *len)
{
	char type[32], ct[64];
	size_t k = 0, hl;
	int st;

	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	warc_record_field(rec, "Content-Type", ct, sizeof(ct));
	if ((strcmp(type, "response") == 0 || strcmp(type, "request") == 0 ||
	     strcmp(type, "revisit") == 0) &&
	    strlen(ct) >= 16 && ieq(ct, "application/http", 16)) {
		if (warc_http_split(rec->block, rec->block_len, &st, &hl) != CR_OK)
			return CR_ERR_FORMAT;
		k = hl;
	}
	*p = rec->block + k;
	*len = rec->block_len - k;
	return CR_OK;
}

int warc_check_block_digest(const struct warc_record *rec)
{
	char d[256];

	if (!warc_record_field(rec, "WARC-Block-Digest", d, sizeof(d)))
		return -1;
	return warc_digest_check(d, rec->block, rec->block_len);
}

int warc_check_payload_digest(const struct warc_record *rec)
{
	char d[256], type[32];
	const unsigned char *p;
	size_t n;

	if (!warc_record_field(rec, "WARC-Payload-Digest", d, sizeof(d)))
		return -1;
	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	if (strcmp(type, "revisit") == 0)
		return -1;
	if (warc_record_payload(rec, &p, &n) != CR_OK)
		return -1;
	return warc_digest_check(d, p, n);
}

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
static enum cr_err w_gzip(struct warc_writer *w, const struct part *parts, size_t n)
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
static enum cr_err w_zstd(struct warc_writer *w, const struct part *parts, size_t n)
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
static enum cr_err w_member(struct warc_writer *w, const struct part *parts, size_t n,
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

	if (n < k || !ieq((const char *)l, name, k))
		return 0;
	while (k < n && is_ws(l[k]))
		k++;
	return k < n && l[k] == ':' ? k + 1 : 0;
}

static int w_chunked_te(const unsigned char *l, size_t n)
{
	size_t k = w_field_is(l, n, "transfer-encoding"), i;

	for (i = k; k && i + 7 <= n; i++)
		if (ieq((const char *)l + i, "chunked", 7))
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
	struct part p[2];
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
	if (!sha1_parts(p, 1, bd)) {
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
	struct part p[3];

	buf_reset(&w->http);
	w_store_head(&w->http, x->resp_head, x->resp_head_len, 0);
	p[0].p = w->http.p;
	p[0].n = w->http.len;
	p[1].p = x->body;
	p[1].n = x->body_len;
	if (!sha1_parts(p + 1, 1, pd))
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	if (x->revisit_profile)
		p[1].n = 0;
	if (!sha1_parts(p, 2, bd))
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
	struct part p[2];
	uint64_t off, len;
	size_t qhl = 0;
	int qst, have_pd;

	buf_reset(&w->http);
	w_store_head(&w->http, x->request, x->request_len, 1);
	p[0].p = w->http.p;
	p[0].n = w->http.len;
	if (!sha1_parts(p, 1, bd))
		return w_fail(w, "sha1 for", CR_ERR_LIB);
	have_pd = w->http.len &&
		  warc_http_split(w->http.p, w->http.len, &qst, &qhl) == CR_OK;
	if (have_pd) {
		p[1].p = w->http.p + qhl;
		p[1].n = w->http.len - qhl;
		if (!sha1_parts(p + 1, 1, pd))
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
	struct part p[2];
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
	if (!sha1_parts(p, 1, bd))
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
		n = pread(r->fd, r->in + r->in_len, WARC_INBUF - r->in_len,
			  (off_t)(r->in_off + r->in_len));
		if (n < 0 && errno == EINTR)
			continue;
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
		ssize_t n = pread(r->fd, r->win.p + r->win.len, chunk,
				  (off_t)(r->dbase + r->win.len));
		if (n < 0 && errno == EINTR)
			continue;
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
	if (!head_field((const char *)p, *hl, "Content-Length", val, sizeof(val)) ||
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
		ssize_t k = pread(r->fd, (char *)dst + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
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
	do
		n = pread(r->fd, m, sizeof(m), 0);
	while (n < 0 && errno == EINTR);
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

int64_t warc_parse_date(const char *s)
{
	struct tm tm;
	long us = 0, scale = 100000;
	const char *p;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	p = strchr(s, '.');
	if (p)
		for (p++; *p >= '0' && *p <= '9' && scale > 0; p++, scale /= 10)
			us += (*p - '0') * scale;
	return (int64_t)timegm(&tm) * 1000000 + us;
}

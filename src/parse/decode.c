#include "parse/decode.h"

#include <brotli/decode.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

/* The coding named by enc, blanks around it ignored; "" for none. */
static int coding_is(const char *enc, size_t n, const char *name)
{
	while (n && (*enc == ' ' || *enc == '\t')) {
		enc++;
		n--;
	}
	while (n && (enc[n - 1] == ' ' || enc[n - 1] == '\t'))
		n--;
	return n == strlen(name) && !strncasecmp(enc, name, n);
}

/* Inflates with zlib; window_bits 15 + 32 detects gzip or zlib, -15 is raw. */
static enum decode_result inflate_body(const unsigned char *body, size_t blen, size_t max,
				       int window_bits, struct buf *out)
{
	z_stream z;
	unsigned char chunk[65536];
	enum decode_result r = DECODE_OK;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, window_bits) != Z_OK)
		return DECODE_BAD;
	z.next_in = (unsigned char *)body;
	z.avail_in = blen > (1u << 30) ? (1u << 30) : (uInt)blen;
	for (;;) {
		size_t got;

		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		rc = inflate(&z, Z_NO_FLUSH);
		got = sizeof(chunk) - z.avail_out;
		if (out->len + got > max) {
			buf_add(out, chunk, max - out->len);
			r = DECODE_TOO_LARGE;
			break;
		}
		buf_add(out, chunk, got);
		/* RFC 1952: a gzip body may hold several members, one after
		 * the other (as zlib's gzread and browsers read them). */
		if (rc == Z_STREAM_END && window_bits > 0 && z.avail_in >= 2 &&
		    z.next_in[0] == 0x1f && z.next_in[1] == 0x8b && inflateReset(&z) == Z_OK)
			continue;
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && !(rc == Z_BUF_ERROR && got)) {
			/* Z_BUF_ERROR without progress: the input ended early. */
			r = DECODE_BAD;
			break;
		}
	}
	inflateEnd(&z);
	return r;
}

static enum decode_result unzstd_body(const unsigned char *body, size_t blen, size_t max,
				      struct buf *out)
{
	ZSTD_DStream *d = ZSTD_createDStream();
	ZSTD_inBuffer in = { body, blen, 0 };
	unsigned char chunk[65536];
	enum decode_result r = DECODE_OK;

	if (!d)
		return DECODE_BAD;
	/* A frame may declare a huge window: refuse more than 8 MiB of it. */
	ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 23);
	for (;;) {
		ZSTD_outBuffer o = { chunk, sizeof(chunk), 0 };
		size_t rc = ZSTD_decompressStream(d, &o, &in);

		if (ZSTD_isError(rc)) {
			r = DECODE_BAD;
			break;
		}
		if (out->len + o.pos > max) {
			buf_add(out, chunk, max - out->len);
			r = DECODE_TOO_LARGE;
			break;
		}
		buf_add(out, chunk, o.pos);
		if (rc == 0 && in.pos == in.size)
			break;
		if (o.pos == 0 && in.pos == in.size) {
			r = DECODE_BAD;   /* the input ended inside a frame */
			break;
		}
	}
	ZSTD_freeDStream(d);
	return r;
}

/* brotli (RFC 7932) with libbrotli's streaming decoder, up to max bytes. */
static enum decode_result unbrotli_body(const unsigned char *body, size_t blen, size_t max,
					struct buf *out)
{
	BrotliDecoderState *d = BrotliDecoderCreateInstance(NULL, NULL, NULL);
	const uint8_t *next_in = body;
	size_t avail_in = blen;
	unsigned char chunk[65536];
	enum decode_result r = DECODE_BAD;

	if (!d)
		return DECODE_BAD;
	for (;;) {
		uint8_t *next_out = chunk;
		size_t avail_out = sizeof(chunk), got;
		BrotliDecoderResult br;

		br = BrotliDecoderDecompressStream(d, &avail_in, &next_in, &avail_out, &next_out,
						   NULL);
		got = sizeof(chunk) - avail_out;
		if (out->len + got > max) {
			buf_add(out, chunk, max - out->len);
			r = DECODE_TOO_LARGE;
			break;
		}
		buf_add(out, chunk, got);
		if (br == BROTLI_DECODER_RESULT_SUCCESS) {
			r = avail_in == 0 ? DECODE_OK : DECODE_BAD;   /* bytes after the stream */
			break;
		}
		/* An error, or the input ended inside the stream. */
		if (br != BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
			break;
	}
	BrotliDecoderDestroyInstance(d);
	return r;
}

enum decode_result decode_body(const char *enc, size_t enclen, const unsigned char *body,
			       size_t blen, size_t max, struct buf *out)
{
	enum decode_result r;

	if (!enc || coding_is(enc, enclen, "") || coding_is(enc, enclen, "identity"))
		return DECODE_IDENTITY;
	if (coding_is(enc, enclen, "gzip") || coding_is(enc, enclen, "x-gzip"))
		return inflate_body(body, blen, max, 15 + 32, out);
	if (coding_is(enc, enclen, "deflate")) {
		/* Servers send zlib-wrapped or raw deflate under this name. */
		r = inflate_body(body, blen, max, 15 + 32, out);
		if (r == DECODE_BAD && out->len == 0)
			r = inflate_body(body, blen, max, -15, out);
		return r;
	}
	if (coding_is(enc, enclen, "zstd"))
		return unzstd_body(body, blen, max, out);
	if (coding_is(enc, enclen, "br"))
		return unbrotli_body(body, blen, max, out);
	return DECODE_UNSUPPORTED;
}

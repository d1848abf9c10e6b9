#include "parse/decode.h"
#include "test.h"

#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

/* gzip (window_bits 31), zlib (15) or raw deflate (-15) of n bytes of c. */
static void deflated(struct buf *out, int window_bits, size_t n, int c)
{
	z_stream z;
	unsigned char in[65536], chunk[65536];
	size_t left = n;
	int flush;

	memset(&z, 0, sizeof(z));
	memset(in, c, sizeof(in));
	deflateInit2(&z, 9, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY);
	do {
		size_t take = left < sizeof(in) ? left : sizeof(in);

		left -= take;
		z.next_in = in;
		z.avail_in = (uInt)take;
		flush = left ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			deflate(&z, flush);
			buf_add(out, chunk, sizeof(chunk) - z.avail_out);
		} while (z.avail_out == 0);
	} while (left);
	deflateEnd(&z);
}

int main(void)
{
	struct buf body, out;
	const char *html = "<html><title>t</title><p>words</p></html>";
	size_t i;
	int ok;

	buf_init(&body);
	buf_init(&out);
	CHECK(decode_body(NULL, 0, (const unsigned char *)html, strlen(html), 100, &out) ==
	      DECODE_IDENTITY, "no coding");
	CHECK(decode_body(" identity ", 10, (const unsigned char *)html, strlen(html), 100,
			  &out) == DECODE_IDENTITY, "identity");
	CHECK(decode_body("compress", 8, (const unsigned char *)html, strlen(html), 100, &out) ==
	      DECODE_UNSUPPORTED, "compress is not decoded");
	CHECK(decode_body("gzip, gzip", 10, (const unsigned char *)html, strlen(html), 100,
			  &out) == DECODE_UNSUPPORTED, "two codings are not decoded");

	/* gzip, zlib and raw deflate of 100 KB. */
	{
		static const int bits[] = { 31, 15, -15 };
		static const char *const names[] = { "gzip", "deflate", "deflate" };

		for (i = 0; i < 3; i++) {
			body.len = out.len = 0;
			deflated(&body, bits[i], 100000, 'a');
			ok = decode_body(names[i], strlen(names[i]), body.p, body.len, 1 << 20,
					 &out) == DECODE_OK && out.len == 100000 &&
			     out.p[0] == 'a' && out.p[99999] == 'a';
			CHECK(ok, "%s (window bits %d): %zu bytes", names[i], bits[i], out.len);
		}
	}

	/* Two gzip members, one after the other: both read (RFC 1952). A zlib
	 * stream followed by another is not gzip: its first alone. */
	body.len = out.len = 0;
	deflated(&body, 31, 1000, 'a');
	deflated(&body, 31, 500, 'b');
	CHECK(decode_body("gzip", 4, body.p, body.len, 1 << 20, &out) == DECODE_OK &&
	      out.len == 1500 && out.p[999] == 'a' && out.p[1000] == 'b',
	      "two gzip members: %zu bytes", out.len);
	body.len = out.len = 0;
	deflated(&body, 15, 1000, 'a');
	deflated(&body, 15, 500, 'b');
	CHECK(decode_body("deflate", 7, body.p, body.len, 1 << 20, &out) == DECODE_OK &&
	      out.len == 1000, "two zlib streams: the first, %zu bytes", out.len);

	/* A bomb: 40 MB of zeros in about 40 KB, stopped at 1 MB. */
	body.len = out.len = 0;
	deflated(&body, 31, (size_t)40 << 20, 0);
	printf("# gzip bomb: %zu bytes on the wire for 40 MiB\n", body.len);
	CHECK(decode_body("x-gzip", 6, body.p, body.len, 1 << 20, &out) == DECODE_TOO_LARGE &&
	      out.len == 1u << 20, "gzip bomb stopped at the cap: %zu", out.len);

	/* Corrupt and cut gzip. */
	out.len = 0;
	body.p[body.len / 2] ^= 0x55;
	{
		enum decode_result r = decode_body("gzip", 4, body.p, body.len, (size_t)60 << 20,
						   &out);
		CHECK(r == DECODE_BAD || r == DECODE_OK, "corrupt gzip ends (%d)", (int)r);
	}
	body.len = out.len = 0;
	deflated(&body, 31, 100000, 'b');
	CHECK(decode_body("gzip", 4, body.p, body.len / 2, 1 << 20, &out) == DECODE_BAD,
	      "cut gzip is bad");

	/* zstd, and a zstd bomb. */
	{
		size_t n = (size_t)64 << 20;
		unsigned char *zeros = calloc(1, n);
		size_t cap = ZSTD_compressBound(n);

		body.len = out.len = 0;
		buf_reserve(&body, cap);
		body.len = ZSTD_compress(body.p, cap, zeros, n, 19);
		printf("# zstd bomb: %zu bytes on the wire for 64 MiB\n", body.len);
		CHECK(!ZSTD_isError(body.len), "zstd compress");
		CHECK(decode_body("zstd", 4, body.p, body.len, 1 << 20, &out) == DECODE_TOO_LARGE &&
		      out.len == 1u << 20, "zstd bomb stopped at the cap");
		out.len = 0;
		CHECK(decode_body("zstd", 4, body.p, body.len, n, &out) == DECODE_OK &&
		      out.len == n, "zstd within the cap");
		out.len = 0;
		CHECK(decode_body("zstd", 4, body.p, body.len - 3, n, &out) == DECODE_BAD,
		      "cut zstd is bad");
		free(zeros);
	}
	/* brotli (RFC 7932), made with the brotli command: a page, and 64 MiB
	 * of zeros in 54 bytes. */
	{
		static const unsigned char page[] = {
			0x1f, 0x28, 0x00, 0xf8, 0x8d, 0xd4, 0x62, 0x4d, 0x1c, 0x0f, 0x84, 0x0c,
			0x39, 0x96, 0x2f, 0xa4, 0xb2, 0xf2, 0x05, 0x0d, 0x0e, 0x36, 0xe0, 0x40,
			0x03, 0xf6, 0xb0, 0x45, 0x6f, 0x06, 0x42, 0x90, 0x81, 0x0a, 0xa7, 0xaf,
			0x71, 0x87, 0x9c, 0x41, 0x02,
		};
		static const unsigned char bomb[] = {
			0xcf, 0xff, 0xff, 0x7f, 0xf8, 0x27, 0x00, 0xe2, 0xb1, 0x40, 0x20, 0xf7,
			0xfe, 0x9f, 0xff, 0xff, 0xff, 0xf0, 0x4f, 0x00, 0xc4, 0x61, 0x01, 0x80,
			0xee, 0xfd, 0x3f, 0xff, 0xff, 0xff, 0xe1, 0x9f, 0x00, 0x88, 0xc3, 0x22,
			0x00, 0xdd, 0xfb, 0x7f, 0xfe, 0xff, 0xff, 0xc3, 0x3f, 0x01, 0x10, 0x87,
			0x05, 0x00, 0xba, 0xf7, 0xff, 0x03,
		};

		out.len = 0;
		CHECK(decode_body(" BR ", 4, page, sizeof(page), 1000, &out) == DECODE_OK &&
		      out.len == strlen(html) && !memcmp(out.p, html, out.len), "brotli page");
		out.len = 0;
		CHECK(decode_body("br", 2, bomb, sizeof(bomb), 1 << 20, &out) == DECODE_TOO_LARGE &&
		      out.len == 1u << 20, "brotli bomb stopped at the cap");
		out.len = 0;
		CHECK(decode_body("br", 2, bomb, sizeof(bomb), 64u << 20, &out) == DECODE_OK &&
		      out.len == 64u << 20, "64 MiB of brotli within the cap");
		out.len = 0;
		CHECK(decode_body("br", 2, page, sizeof(page) - 5, 1000, &out) == DECODE_BAD,
		      "cut brotli is bad");
		out.len = 0;
		CHECK(decode_body("br", 2, (const unsigned char *)html, strlen(html), 1000, &out) ==
		      DECODE_BAD, "plain text sent as brotli is bad");
	}
	buf_release(&body);
	buf_release(&out);
	TEST_DONE();
}

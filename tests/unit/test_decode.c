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
	CHECK(decode_body("br", 2, (const unsigned char *)html, strlen(html), 100, &out) ==
	      DECODE_UNSUPPORTED, "brotli is not decoded");
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
	buf_release(&body);
	buf_release(&out);
	TEST_DONE();
}

#include "test.h"
#include "util/buf.h"

#include <stdint.h>

int main(void)
{
	static const int64_t sv[] = { 0, 1, -1, 63, -64, 1234567, -1234567,
				      INT64_MAX, INT64_MIN };
	static const uint64_t uv[] = { 0, 1, 127, 128, 300, 1ULL << 35, UINT64_MAX };
	struct buf b;
	struct buf_reader r;
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(uv) / sizeof(uv[0]); i++)
		buf_put_varint(&b, uv[i]);
	for (i = 0; i < sizeof(sv) / sizeof(sv[0]); i++)
		buf_put_svarint(&b, sv[i]);
	buf_put_str(&b, "hello", 5);
	buf_put_u32le(&b, 0xdeadbeef);
	buf_reader_init(&r, b.p, b.len);
	for (i = 0; i < sizeof(uv) / sizeof(uv[0]); i++) {
		uint64_t v = 0;
		CHECK(buf_get_varint(&r, &v) == CR_OK && v == uv[i], "varint %zu", i);
	}
	for (i = 0; i < sizeof(sv) / sizeof(sv[0]); i++) {
		int64_t v = 0;
		CHECK(buf_get_svarint(&r, &v) == CR_OK && v == sv[i], "svarint %zu", i);
	}
	{
		const char *s;
		size_t n;
		uint32_t u = 0;
		CHECK(buf_get_str(&r, &s, &n) == CR_OK && n == 5 && !memcmp(s, "hello", 5), "str");
		CHECK(buf_get_u32le(&r, &u) == CR_OK && u == 0xdeadbeef, "u32");
		CHECK(buf_get_u32le(&r, &u) == CR_ERR_FORMAT, "read past end fails");
	}
	/* A truncated varint and a string longer than its buffer are format errors. */
	{
		unsigned char bad[] = { 0x80, 0x80 };
		unsigned char badstr[] = { 0x05, 'a', 'b' };
		uint64_t v;
		const char *s;
		size_t n;
		buf_reader_init(&r, bad, sizeof(bad));
		CHECK(buf_get_varint(&r, &v) == CR_ERR_FORMAT, "truncated varint");
		buf_reader_init(&r, badstr, sizeof(badstr));
		CHECK(buf_get_str(&r, &s, &n) == CR_ERR_FORMAT, "overlong string");
	}
	buf_release(&b);
	TEST_DONE();
}

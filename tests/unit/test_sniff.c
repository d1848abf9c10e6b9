#include "test.h"
#include "index/sniff.h"

/* The WHATWG table: HTML by its first tag after blanks (either case, then
 * a space or '>'), XML, the signatures, text against binary. */
static void test_table(void)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *want;
	} cases[] = {
		{ "<!DOCTYPE html><html>", 21, "text/html" },
		{ " \r\n\t<HTML lang=en>", 18, "text/html" },
		{ "<p>Hello</p>", 12, "text/html" },
		{ "<!-- a comment -->", 18, "text/html" },
		{ "<a href=x>", 10, "text/html" },
		{ "<abbr>x</abbr>", 14, "text/plain" },      /* <a then a letter: no tag of the table */
		{ "<htmlx>", 7, "text/plain" },
		{ "<?xml version=\"1.0\"?><rss>", 26, "text/xml" },
		{ "%PDF-1.7\n", 9, "application/pdf" },
		{ "%!PS-Adobe-3.0", 14, "application/postscript" },
		{ "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "image/png" },
		{ "GIF89a\x01\x00", 8, "image/gif" },
		{ "\xff\xd8\xff\xe0\0\x10JFIF", 10, "image/jpeg" },
		{ "RIFF\x24\0\0\0WEBPVP8 ", 16, "image/webp" },
		{ "RIFF\x24\0\0\0WAVEfmt ", 16, "audio/wave" },
		{ "wOF2\0\1\0\0", 8, "font/woff2" },
		{ "\x1f\x8b\x08\0\0\0\0\0", 8, "application/x-gzip" },
		{ "\xef\xbb\xbfplain text", 13, "text/plain" },
		{ "body { color: red }\n", 20, "text/plain" },
		{ "{\"a\": 1}", 8, "text/plain" },
		{ "\x7f" "ELF\x02\x01\x01\0", 8, "application/octet-stream" },
		{ "", 0, "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = sniff_table((const unsigned char *)cases[i].bytes, cases[i].n);

		CHECK(!strcmp(got, cases[i].want), "case %zu: %s, want %s", i, got, cases[i].want);
	}
}

/* The whole step: the content coding undone first, libmagic for the binary
 * the table does not name. */
static void test_mime(void)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n";
	static const char plain[] = "HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n";
	/* "<html>hi</html>" gzipped */
	static const unsigned char gz[] = {
		0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xb3, 0xc9, 0x28, 0xc9,
		0xcd, 0xb1, 0xcb, 0xc8, 0xb4, 0xd1, 0x07, 0x33, 0x00, 0x90, 0xdd, 0x5e, 0xb5, 0x0f,
		0x00, 0x00, 0x00,
	};
	static const unsigned char mp4[32] = { 0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'm', 'p', '4',
					       '2', 0, 0, 0, 0, 'i', 's', 'o', 'm', 'm', 'p',
					       '4', '2' };
	char out[128];
	const char *o = out;

	sniff_mime(head, sizeof(head) - 1, gz, sizeof(gz), out, sizeof(out));
	CHECK_STR(o, "text/html");
	sniff_mime(plain, sizeof(plain) - 1, mp4, sizeof(mp4), out, sizeof(out));
	CHECK_STR(o, "video/mp4");
	sniff_mime(plain, sizeof(plain) - 1, mp4, 0, out, sizeof(out));
	CHECK_STR(o, "");
	sniff_mime(head, sizeof(head) - 1, "not gzip", 8, out, sizeof(out));
	CHECK(out[0] == '\0' || !strcmp(out, "text/plain"), "undecodable: '%s'", out);
}

int main(void)
{
	test_table();
	test_mime();
	TEST_DONE();
}

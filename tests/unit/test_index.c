/*
 * test_index.c - the SURT keys of CDXJ lines (as warcio.js and pywb make
 * them) and the language guess of extracted text.
 */
#include "test.h"
#include "index/index.h"

#include <string.h>

static void test_surt(void)
{
	static const struct {
		const char *url, *want;
	} cases[] = {
		{ "http://www.Example.com:80/A/b?z=1&a=2#f", "com,example)/a/b?a=2&z=1" },
		{ "https://h0001.sim.test:4549/p/1.html?v=1", "test,sim,h0001:4549)/p/1.html?v=1" },
		{ "http://example.com", "com,example)/" },
		{ "http://example.com/", "com,example)/" },
		{ "https://www2.x.org:443/", "org,x)/" },
		{ "https://x.org:80/", "org,x:80)/" },
		{ "http://wwwx.org/", "org,wwwx)/" },
		{ "http://example.com/?b&a", "com,example)/?a&b" },
		{ "metadata://gnu.org/x", "metadata://gnu.org/x" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b;

		buf_init(&b);
		index_surt(cases[i].url, &b);
		CHECK_STR(buf_cstr(&b), cases[i].want);
		buf_release(&b);
	}
}

static void test_language(void)
{
	static const char en[] = "The cat sat on the mat and it was happy that the dog "
				 "was not in the house with the other animals of the farm.";
	static const char de[] = "Der Hund ist nicht in dem Haus, und die Katze ist auf "
				 "dem Tisch; das ist eine Geschichte von einer Katze mit Hut.";
	static const char none[] = "orchard quill yarrow garden boat parcel cherry canyon";
	const char *l;

	l = index_language(en, strlen(en));
	CHECK(l && !strcmp(l, "eng"), "english: %s", l ? l : "(none)");
	l = index_language(de, strlen(de));
	CHECK(l && !strcmp(l, "deu"), "german: %s", l ? l : "(none)");
	CHECK(index_language(none, strlen(none)) == NULL, "no function words: no language");
	CHECK(index_language("", 0) == NULL, "empty text: no language");
}

int main(void)
{
	test_surt();
	test_language();
	TEST_DONE();
}

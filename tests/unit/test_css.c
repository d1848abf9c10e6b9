/* css.h: the URLs a stylesheet loads, and what only looks like one. */
#include "test.h"
#include "parse/css.h"
#include "util/buf.h"

#include <string.h>

static void collect(void *arg, const char *url)
{
	struct buf *b = arg;

	buf_adds(b, url);
	buf_addc(b, '|');
}

int main(void)
{
	static const struct {
		const char *css, *want;
	} cases[] = {
		{ "body { background: url(/img/bg.png) }", "/img/bg.png|" },
		{ "a{b:url( 'x y.png' )}c{d:URL(\"q.gif\")}", "x y.png|q.gif|" },
		{ "@import url(base.css); @import \"print.css\" print;", "base.css|print.css|" },
		{ "@IMPORT 'a.css';", "a.css|" },
		{ "/* url(no.png) */ x{y:url(yes.png)}", "yes.png|" },
		{ "/* unterminated url(no.png)", "" },
		{ "a::after{content:\"url(no.png)\"} b{c:url(yes.png)}", "yes.png|" },
		{ "x{y:url(data:image/png;base64,AAAA)}", "" },
		{ "x{y:url()} z{w:url('')}", "" },
		{ "x{y:url(a\\)b.png)}", "a)b.png|" },
		{ "x{y:url(\\31 .png)}", "1.png|" },
		{ "x{y:url(\\e9.png)}", "\xc3\xa9.png|" },
		{ "x{y:url(bad url.png)} z{w:url(ok.png)}", "ok.png|" },
		{ "x{y:myurl(no.png)} z{w:url(ok.png)}", "ok.png|" },
		{ "@font-face{src:url(f.woff2) format('woff2'),url(f.woff) format('woff')}",
		  "f.woff2|f.woff|" },
		{ "x{y:image-set(url(a.png) 1x, url(b.png) 2x)}", "a.png|b.png|" },
		{ "x{y:url(", "" },
		{ "x{y:url('unterminated", "unterminated|" },
		{ "", "" },
	};
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b.len = 0;
		css_urls(cases[i].css, strlen(cases[i].css), 100, collect, &b);
		buf_addc(&b, '\0');
		CHECK(!strcmp((const char *)b.p, cases[i].want), "case %zu: '%s', want '%s'", i,
		      (const char *)b.p, cases[i].want);
	}
	b.len = 0;
	CHECK(css_urls("a{b:url(1)}c{d:url(2)}e{f:url(3)}", 33, 2, collect, &b) == 2,
	      "max: two URLs at most");
	buf_release(&b);
	TEST_DONE();
}

#include "test.h"
#include "parse/html.h"
#include "util/utf8.h"
#include "url/url.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int has(const struct html_page *p, const char *url)
{
	uint32_t i;

	for (i = 0; i < p->nlinks; i++)
		if (!strcmp(p->links[i], url))
			return 1;
	return 0;
}

/* A page's requisites: every kind of element that loads one, srcset
 * candidates, CSS in style attributes and <style>, <base> applied, each
 * once, none of them a link; nofollow does not hide them. */
static void test_embeds(void)
{
	static const char d[] =
		"<html><head><base href=\"http://cdn.test/s/\">"
		"<meta name=robots content=nofollow>"
		"<link rel=stylesheet href=a.css><link rel=\"shortcut icon\" href=/fav.ico>"
		"<link rel=alternate href=/feed><link rel=preload href=f.woff2 as=font>"
		"<script src=app.js></script><script>var x = 'url(no.png)';</script>"
		"<style>@import 'b.css'; body{background:url(bg.png)}</style></head>"
		"<body background=body.gif><img src=i.png srcset=\"i.png, i2.png 2x,"
		"i3.png 3x\"><picture><source srcset=\"p.webp 100w,p2.webp 200w\">"
		"</picture><video poster=v.jpg><source src=v.mp4><track src=t.vtt></video>"
		"<input type=image src=go.png><input type=text src=no.png>"
		"<object data=o.svg></object><embed src=e.swf>"
		"<div style=\"background-image:url('d.png')\">x</div>"
		"<img src=\"data:image/png;base64,AAAA\"><img src=i.png>"
		"<a href=/page>a page</a></body></html>";
	static const char *const want[] = {
		"http://cdn.test/s/a.css", "http://cdn.test/fav.ico", "http://cdn.test/s/f.woff2",
		"http://cdn.test/s/app.js", "http://cdn.test/s/b.css", "http://cdn.test/s/bg.png",
		"http://cdn.test/s/body.gif", "http://cdn.test/s/i.png", "http://cdn.test/s/i2.png",
		"http://cdn.test/s/i3.png", "http://cdn.test/s/p.webp",
		"http://cdn.test/s/p2.webp", "http://cdn.test/s/v.jpg", "http://cdn.test/s/v.mp4",
		"http://cdn.test/s/t.vtt", "http://cdn.test/s/go.png", "http://cdn.test/s/o.svg",
		"http://cdn.test/s/e.swf", "http://cdn.test/s/d.png",
	};
	struct html_page p;
	uint32_t i;
	int same = 1;

	CHECK(html_extract(d, sizeof(d) - 1, NULL, "http://h.test/x", "mpicrawl", 100, &p) ==
	      CR_OK, "embeds: parsed");
	CHECK(p.nembeds == sizeof(want) / sizeof(want[0]), "embeds: %u found", p.nembeds);
	for (i = 0; i < p.nembeds && i < sizeof(want) / sizeof(want[0]); i++)
		if (strcmp(p.embeds[i], want[i])) {
			printf("# embed %u: %s, want %s\n", i, p.embeds[i], want[i]);
			same = 0;
		}
	CHECK(same, "embeds: in document order, resolved against <base>");
	CHECK(p.nlinks == 0 && p.nofollow == 2, "embeds: no links (nofollow page), %u nofollow",
	      p.nofollow);
	html_page_release(&p);
	CHECK(html_extract(d, sizeof(d) - 1, NULL, "http://h.test/x", "mpicrawl", 3, &p) ==
	      CR_OK && p.nembeds == 3, "embeds: at most max_links");
	html_page_release(&p);
}

/* The text's lines: one per block, br and pre line; cells, images and
 * controls separate words, inline elements join them; scripts, styles,
 * templates and noscript dropped, entities decoded. */
static void test_lines(void)
{
	static const struct {
		const char *what, *html, *want;
	} cases[] = {
		{ "paragraphs", "<p>one  two</p><p>three</p>", "one two\nthree" },
		{ "words never glued where blocks meet", "<div>Chunked response</div>second chunk",
		  "Chunked response\nsecond chunk" },
		{ "headings and list items", "<h1>Title</h1><ul><li>a b<li>c</ul>after",
		  "Title\na b\nc\nafter" },
		{ "br ends a line, not two", "one<br>two<br><br>three", "one\ntwo\nthree" },
		{ "table: a line per row, cells apart",
		  "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>",
		  "a b\nc d" },
		{ "inline elements join", "<p><b>bold</b>face and <span>x</span><i>y</i></p>",
		  "boldface and xy" },
		{ "an image between words", "left<img src=i.png>right", "left right" },
		{ "pre keeps its lines", "<pre>line 1\n  line  2\n\nline 3</pre>after",
		  "line 1\nline 2\nline 3\nafter" },
		{ "scripts, styles, templates, noscript dropped",
		  "<p>a<script>var x;</script>b</p><style>p{}</style><template>t</template>"
		  "<noscript>n</noscript><p>c</p>", "ab\nc" },
		{ "entities decoded, UTF-8, a no-break space a blank", "<p>caf&eacute; &amp; &#x20AC;&nbsp;5</p>",
		  "caf\xc3\xa9 & \xe2\x82\xac 5" },
		{ "no empty line, none at the ends", "<div><p></p><p> x </p><div></div></div>",
		  "x" },
	};
	struct html_page p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(html_extract(cases[i].html, strlen(cases[i].html), "utf-8", "http://h.test/",
				   "x", 10, &p) == CR_OK, "%s: parses", cases[i].what);
		CHECK(!strcmp(buf_cstr(&p.text), cases[i].want), "%s: '%s', want '%s'",
		      cases[i].what, buf_cstr(&p.text), cases[i].want);
		html_page_release(&p);
	}
}

/* A NUL byte inside a tag: the page is read on (libxml2 stopped there, the
 * rest of the links and the text lost); in UTF-16 NULs are characters. */
static void test_nul(void)
{
#define DOC(x, t) { x, sizeof(x) - 1, t }
	static const struct { const char *d; size_t n; const char *text; } docs[] = {
		DOC("<html><body><a href='/x\0y'>a</a><a href='/z'>b</a></body></html>", "ab"),
		DOC("<html><body><img alt='x\0y'><a href='/xy'>a</a><a href=/z>b</a></body></html>",
		    "ab"),
		DOC("<html><body><di\0v><a href='/xy'>a</a></di\0v><a href=/z>b</a></body></html>",
		    "a\nb"),   /* a div: a line of its own */
	};
#undef DOC
	static const char w16[] = "\xff\xfe<\0p\0>\0h\0i\0<\0/\0p\0>\0";
	struct html_page p;

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		CHECK(html_extract(docs[i].d, docs[i].n, NULL, "http://h.test/", "mpicrawl", 10, &p) ==
		      CR_OK && p.nlinks == 2 && !strcmp(p.links[0], "http://h.test/xy") &&
		      !strcmp(p.links[1], "http://h.test/z") &&
		      p.text.len == strlen(docs[i].text) &&
		      !memcmp(p.text.p, docs[i].text, p.text.len),
		      "NUL in a tag (%zu): %u links, text '%.*s'", i,
		      p.nlinks, (int)p.text.len, (const char *)p.text.p);
		html_page_release(&p);
	}
	CHECK(html_extract(w16, sizeof(w16) - 1, NULL, "http://h.test/", "mpicrawl", 10, &p) ==
	      CR_OK && p.text.len == 2 && !memcmp(p.text.p, "hi", 2),
	      "UTF-16 with a BOM: its NUL bytes kept (%.*s)", (int)p.text.len,
	      (const char *)p.text.p);
	html_page_release(&p);
}

/* libxml2's own complaints ("encoding error : input conversion failed")
 * never reach stderr: pages in a charset whose bytes do not convert, with
 * fd 2 on a file that must stay empty. */
static void test_quiet(void)
{
	static const struct { const char *cs, *doc; } docs[] = {
		{ "euc-jp", "<html><body><p>\xff\xfe\xfd\x8e\x20 bad</p></body></html>" },
		{ "shift_jis", "<html><body><p>\x81\x20\xa0\xfd bad</p></body></html>" },
		{ "utf-16le", "<\0p\0>\0\x00\xd8\x41\0" },
		{ "iso-2022-jp", "<html><body>\x1b$B\x7f\x7f\x1b(B<p>x</p></body></html>" },
		{ NULL, "<html><head><meta charset=euc-kr></head><body>\xff\xff\xc8</body></html>" },
	};
	char path[] = "/tmp/test_html.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct html_page p;
	struct stat st;

	CHECK(fd >= 0 && saved >= 0, "a file for stderr");
	fflush(stderr);
	dup2(fd, 2);
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		if (html_extract(docs[i].doc, strlen(docs[i].doc) + (docs[i].cs &&
				 !strcmp(docs[i].cs, "utf-16le") ? 8 : 0), docs[i].cs,
				 "http://h.test/", "x", 10, &p) == CR_OK)
			html_page_release(&p);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "libxml2 wrote %lld bytes to stderr",
	      (long long)st.st_size);
	close(fd);
	unlink(path);
}

/* <link rel> kinds that name another page are links; requisites, search
 * and other kinds are not. */
static void test_link_rels(void)
{
	static const char d[] =
		"<html><head><link rel=next href=p3.html><link rel=\"prev\" href=p1.html>"
		"<link rel=Up href=../index.html><link rel=\"index nofollow\" href=genindex.html>"
		"<link rel=search href=search.html><link rel=stylesheet href=s.css>"
		"<link rel=edit href=edit.html><link rel=preload href=f.woff2 as=font>"
		"</head><body>x</body></html>";
	struct html_page p;

	CHECK(html_extract(d, sizeof(d) - 1, NULL, "http://h.test/doc/p2.html", "x", 20, &p) ==
		      CR_OK && p.nlinks == 4 && has(&p, "http://h.test/doc/p3.html") &&
		      has(&p, "http://h.test/doc/p1.html") && has(&p, "http://h.test/index.html") &&
		      has(&p, "http://h.test/doc/genindex.html"),
	      "link rels: next, prev, up, index are links, %u found", p.nlinks);
	html_page_release(&p);
}

/* <meta http-equiv=refresh>: its URL is a link, read as the HTML
 * standard's declarative refresh (time, separator, "url=", quotes). */
static void test_refresh(void)
{
	static const struct { const char *content, *want; } cases[] = {
		{ "0; url=next.html", "http://h.test/d/next.html" },
		{ "5;URL='/q?a=1'", "http://h.test/q?a=1" },
		{ " 3 , url = \"other.html\" x", "http://h.test/d/other.html" },
		{ "1.5 http://o.test/", "http://o.test/" },
		{ "0;url=sp.html  ", "http://h.test/d/sp.html" },
		{ "30", NULL },          /* reloads itself */
		{ "url=x.html", NULL },  /* no time: not a refresh */
		{ "0url=/x", NULL },     /* the time runs into the URL: neither */
		{ "5abc", NULL },
		{ "0; url=", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char d[256];
		struct html_page p;

		snprintf(d, sizeof(d), "<html><head><meta http-equiv=Refresh content=\"%s\">"
			 "</head><body>x</body></html>", cases[i].content);
		if (strchr(cases[i].content, '"'))
			snprintf(d, sizeof(d), "<html><head><meta http-equiv=refresh content='%s'>"
				 "</head><body>x</body></html>", cases[i].content);
		CHECK(html_extract(d, strlen(d), NULL, "http://h.test/d/p", "x", 10, &p) == CR_OK &&
		      (cases[i].want ? p.nlinks == 1 && has(&p, cases[i].want) : p.nlinks == 0),
		      "refresh '%s': %u links, first '%s'", cases[i].content, p.nlinks,
		      p.nlinks ? p.links[0] : "");
		html_page_release(&p);
	}
}

int main(void)
{
	static const char doc1[] =
		"<html><head><title> A  page\n title </title>"
		"<base href=\"/dir/sub/\">"
		"<link rel=\"canonical\" href=\"http://h.test/canon\">"
		"<link rel=\"stylesheet\" href=\"/style.css\">"
		"<link rel=\"Alternate\" hreflang=de href=\"de.html\">"
		"</head><body><p>Hello <b>world</b></p>"
		"<a href=\"x.html\">x</a> <a href=\"../y.html#f\">y</a>"
		"<a href=\"x.html#again\">dup</a>"
		"<a href=\"HTTP://H.TEST:80/Z\">z</a>"
		"<a href=\"mailto:a@b.c\">m</a><a href=\"javascript:void(0)\">j</a>"
		"<a href=\"/nf\" rel=\"nofollow\">nf</a>"
		"<area href=\"/area\"><iframe src=\"/frame\"></iframe><frame src=\"f2\">"
		"<script>var s = '<a href=\"/inscript\">';</script>"
		"</body></html>";
	static const char doc2[] =
		"<html><head><meta name=\"robots\" content=\"noindex, nofollow\"></head>"
		"<body><a href=\"/a\">a</a></body></html>";
	static const char doc3[] = "<html><body><p>Hello\n world</p></body></html>";
	static const char doc4[] = "<html><body><p>Hello world</p></body></html>";
	struct html_page p, q;
	char *deep;
	size_t i;

	CHECK(html_extract(doc1, sizeof(doc1) - 1, NULL, "http://h.test/p/page.html",
			   "mpicrawl", 100, &p) == CR_OK, "parse doc1");
	CHECK(!strcmp((const char *)buf_cstr(&p.title), "A page title"), "title '%s'",
	      (const char *)p.title.p);
	CHECK(has(&p, "http://h.test/dir/sub/x.html"), "relative to base");
	CHECK(has(&p, "http://h.test/dir/y.html"), "dot-dot with fragment");
	CHECK(has(&p, "http://h.test/Z"), "upper-case scheme and host, default port");
	CHECK(has(&p, "http://h.test/canon"), "link rel=canonical");
	CHECK(has(&p, "http://h.test/dir/sub/de.html"), "link rel=alternate");
	CHECK(!has(&p, "http://h.test/style.css"), "stylesheet is not a link");
	CHECK(has(&p, "http://h.test/area") && has(&p, "http://h.test/frame") &&
	      has(&p, "http://h.test/dir/sub/f2"), "area, iframe, frame");
	CHECK(!has(&p, "http://h.test/nf") && p.nofollow == 1, "rel=nofollow");
	CHECK(!has(&p, "http://h.test/inscript"), "no links from scripts");
	CHECK(p.nlinks == 8, "8 links (duplicate once), got %u", p.nlinks);
	CHECK(p.dropped == 2, "mailto and javascript dropped: %u", p.dropped);
	for (i = 0; i < p.nlinks; i++) {
		const char *want = !strcmp(p.links[i], "http://h.test/dir/sub/x.html") ? "x" :
				   !strcmp(p.links[i], "http://h.test/dir/y.html") ? "y" :
				   !strcmp(p.links[i], "http://h.test/Z") ? "z" : "";

		CHECK(!strcmp(p.anchors[i], want), "anchor of %s: '%s', want '%s'", p.links[i],
		      p.anchors[i], want);
	}
	html_page_release(&p);
	{
		static const char d[] = "<p><a href=\"/a\"> Read\n  <b>more</b> here </a>"
					"<a href=\"/b\">open <a href=\"/c\">c</a>";

		CHECK(html_extract(d, sizeof(d) - 1, NULL, "http://h.test/", "mpicrawl", 10, &p) ==
		      CR_OK && p.nlinks == 3 && !strcmp(p.anchors[0], "Read more here") &&
		      !strcmp(p.anchors[1], "open") && !strcmp(p.anchors[2], "c"),
		      "anchor text: '%s' '%s' '%s'", p.nlinks > 0 ? p.anchors[0] : "-",
		      p.nlinks > 1 ? p.anchors[1] : "-", p.nlinks > 2 ? p.anchors[2] : "-");
		html_page_release(&p);
	}

	{
		/* Links left out for the decision log: past max_links, too long. */
		struct buf d;
		unsigned x;

		buf_init(&d);
		buf_adds(&d, "<a href=\"/1\">1</a><a href=\"/2\">2</a><a href=\"/3\">3</a>"
			 "<a href=\"/4\">4</a><a href=\"/");
		for (x = 0; x < URL_MAX_LEN + 10; x++)
			buf_addc(&d, 'x');
		buf_adds(&d, "\">long</a>");
		CHECK(html_extract(d.p, d.len, NULL, "http://h.test/", "mpicrawl", 2, &p) == CR_OK &&
		      p.nlinks == 2 && p.nrefused == 3 && p.refused_why[0] == HTML_MAX_LINKS &&
		      !strcmp(p.refused[0], "http://h.test/3") && p.refused_why[2] == HTML_TOO_LONG,
		      "refused past max_links: %u", p.nrefused);
		html_page_release(&p);
		CHECK(html_extract(d.p, d.len, NULL, "http://h.test/", "mpicrawl", 10, &p) == CR_OK &&
		      p.nlinks == 4 && p.nrefused == 1 && p.refused_why[0] == HTML_TOO_LONG &&
		      strlen(p.refused[0]) == URL_MAX_LEN, "refused too long: %u", p.nrefused);
		html_page_release(&p);
		buf_release(&d);
	}
	CHECK(html_extract(doc2, sizeof(doc2) - 1, "utf-8", "http://h.test/", "mpicrawl",
			   100, &p) == CR_OK, "parse doc2");
	CHECK(p.meta_nofollow && p.meta_noindex && p.nlinks == 0 && p.nofollow == 1,
	      "meta robots nofollow");
	html_page_release(&p);

	CHECK(html_extract(doc3, sizeof(doc3) - 1, NULL, "http://h.test/", "x", 10, &p) == CR_OK &&
	      html_extract(doc4, sizeof(doc4) - 1, NULL, "http://h.test/", "x", 10, &q) == CR_OK &&
	      p.text_digest == q.text_digest, "text digest ignores whitespace changes");
	html_page_release(&p);
	html_page_release(&q);

	/* Encodings: the header's charset, or <meta charset> without one. */
	{
		static const char latin1[] = "<html><head><title>caf\xe9</title></head>"
					     "<body><a href=\"/x\">x</a></body></html>";
		static const char meta[] = "<html><head><meta charset=\"iso-8859-1\">"
					   "<title>caf\xe9</title></head><body></body></html>";

		CHECK(html_extract(latin1, sizeof(latin1) - 1, "iso-8859-1", "http://h.test/",
				   "x", 10, &p) == CR_OK, "latin-1 page");
		CHECK(!strcmp(buf_cstr(&p.title), "caf\xc3\xa9"), "title from latin-1 to UTF-8: '%s'",
		      buf_cstr(&p.title));
		CHECK(p.nlinks == 1, "link of a latin-1 page");
		html_page_release(&p);
		CHECK(html_extract(meta, sizeof(meta) - 1, NULL, "http://h.test/", "x", 10, &p) ==
		      CR_OK && !strcmp(buf_cstr(&p.title), "caf\xc3\xa9"),
		      "meta charset detected: '%s'", buf_cstr(&p.title));
		html_page_release(&p);
	}
	/* The charset a page was read in, which the CDXJ names when HTTP named
	 * none (issue 34 item 10): HTTP's, a <meta>'s, a BOM's, the sniffed one. */
	{
		static const struct {
			const char *body, *http, *want;
		} cases[] = {
			{ "<html><head><meta charset=\"Shift_JIS\"></head><p>x</p>", NULL,
			  "Shift_JIS" },
			{ "<meta http-equiv=\"Content-Type\" content=\"text/html; "
			  "charset=koi8-r\"><p>x</p>", "", "koi8-r" },
			{ "<meta charset=\"iso-8859-1\"><p>x</p>", NULL, "iso-8859-1" },
			{ "<meta charset=\"koi8-r\"><p>x</p>", "UTF-8", "UTF-8" },
			{ "\xef\xbb\xbf<p>caf\xc3\xa9</p>", NULL, "UTF-8" },
			{ "<p>caf\xc3\xa9</p>", NULL, "UTF-8" },
			{ "<p>caf\xe9</p>", NULL, "windows-1252" },
			{ "\xff\xfe<\0p\0>\0x\0", NULL, "UTF-16LE" },
		};
		size_t k, n;

		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			n = cases[k].body[0] == '\xff' ? 10 : strlen(cases[k].body);
			CHECK(html_extract(cases[k].body, n, cases[k].http, "http://h.test/", "x", 10,
					   &p) == CR_OK && !strcmp(p.charset, cases[k].want),
			      "case %zu: read in '%s', want '%s'", k, p.charset, cases[k].want);
			html_page_release(&p);
		}
		CHECK(html_extract("", 0, NULL, "http://h.test/", "x", 10, &p) == CR_OK &&
		      !p.charset[0], "an empty page: no charset");
		html_page_release(&p);
	}
	/* ISO-8859-1, by header or <meta>, read as windows-1252 (WHATWG): 0x93
	 * and 0x94 are curly quotes, 0x80 the euro sign, not C1 controls. */
	{
		static const char w1252[] = "<html><head><title>t</title></head>"
					    "<body><p>\x93quoted\x94 \x80 5</p></body></html>";
		static const char w1252m[] = "<html><head><meta charset=\"iso-8859-1\">"
					     "<title>t</title></head>"
					     "<body><p>\x93quoted\x94 \x80 5</p></body></html>";
		static const char want[] = "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac 5";

		CHECK(html_extract(w1252, sizeof(w1252) - 1, "ISO-8859-1", "http://h.test/", "x",
				   10, &p) == CR_OK && !strcmp(buf_cstr(&p.text), want),
		      "header ISO-8859-1 as windows-1252: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
		CHECK(html_extract(w1252m, sizeof(w1252m) - 1, NULL, "http://h.test/", "x", 10,
				   &p) == CR_OK && !strcmp(buf_cstr(&p.text), want),
		      "meta iso-8859-1 as windows-1252: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
	}
	/* No charset anywhere (nginx's default Content-Type): well-formed UTF-8
	 * is UTF-8, anything else windows-1252 - never ISO-8859-1's C1 controls. */
	{
		static const char w1252[] = "<html><head><title>t</title></head><body>"
					    "<p>\x93quoted\x94 \x80 caf\xe9</p></body></html>";
		static const char utf8[] = "<html><head><title>t</title></head><body><p>"
					   "Gr\xc3\xbc\xc3\x9f" "e \xe2\x80\x9cq\xe2\x80\x9d"
					   "</p></body></html>";
		/* a lone lead byte before the end: not UTF-8 */
		static const char tail[] = "<html><body><p>Gr\xc3\xbc\xc3</p></body></html>";
		/* a body cut inside its last character (fetch.max_body_bytes) */
		static const char cut[] = "<p>\xe6\x97\xa5\xe6\x9c\xac \xe6\x97";

		CHECK(html_extract(w1252, sizeof(w1252) - 1, NULL, "http://h.test/", "x", 10,
				   &p) == CR_OK &&
		      !strcmp(buf_cstr(&p.text),
			      "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac caf\xc3\xa9"),
		      "undeclared windows-1252: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
		CHECK(html_extract(utf8, sizeof(utf8) - 1, NULL, "http://h.test/", "x", 10, &p) ==
			      CR_OK && !strcmp(buf_cstr(&p.text), "Gr\xc3\xbc\xc3\x9f"
					       "e \xe2\x80\x9cq\xe2\x80\x9d"),
		      "undeclared UTF-8: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
		CHECK(html_extract(tail, sizeof(tail) - 1, NULL, "http://h.test/", "x", 10, &p) ==
			      CR_OK && !strcmp(buf_cstr(&p.text), "Gr\xc3\x83\xc2\xbc\xc3\x83"),
		      "undeclared, not UTF-8 to its end: windows-1252: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
		CHECK(html_extract(cut, sizeof(cut) - 1, NULL, "http://h.test/", "x", 10, &p) ==
			      CR_OK && !strcmp(buf_cstr(&p.text), "\xe6\x97\xa5\xe6\x9c\xac"),
		      "undeclared UTF-8 cut in a character: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
		CHECK(utf8_whole("a\xe6\x97", 3) == 1 && utf8_whole("a\xe6\x97\xa5", 4) == 4 &&
		      utf8_whole("a\xc3", 2) == 1 && utf8_whole("ab", 2) == 2 &&
		      utf8_whole("\xf0\x9f\x98", 3) == 0, "utf8_whole");
		CHECK(utf8_valid("a\xc3\xa9", 3, 0) && !utf8_valid("a\xc3", 2, 0) &&
		      utf8_valid("a\xc3", 2, 1) && utf8_valid("a\xe2\x80", 3, 1) &&
		      !utf8_valid("a\xe2\x41", 3, 1) && !utf8_valid("\xc0\xaf", 2, 0) &&
		      !utf8_valid("\xed\xa0\x80", 3, 0) && !utf8_valid("\xf4\x90\x80\x80", 4, 0) &&
		      utf8_valid("", 0, 0), "utf8_valid");
	}
	/* A <meta charset> past the first 1024 bytes (after a long script) still
	 * names the page's encoding: no UTF-8 / windows-1252 guess over it. */
	{
		char d[2048];
		int n = snprintf(d, sizeof(d), "<html><head><script>%0*d</script>"
				 "<meta charset=windows-1251></head><body><p>\xcf\xf0\xe8"
				 "\xe2\xe5\xf2</p></body></html>", 1200, 0);

		CHECK(html_extract(d, (size_t)n, NULL, "http://h.test/", "x", 10, &p) == CR_OK &&
		      !strcmp(buf_cstr(&p.text), "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5"
						 "\xd1\x82"),
		      "a late <meta charset>: '%s'", buf_cstr(&p.text));
		html_page_release(&p);
	}
	/* A <base> after the links still applies to them (the whole document). */
	{
		static const char late[] = "<a href=\"x\">x</a><base href=\"http://other.test/d/\">";

		CHECK(html_extract(late, sizeof(late) - 1, NULL, "http://h.test/", "x", 10, &p) ==
		      CR_OK && p.nlinks == 1 && !strcmp(p.links[0], "http://other.test/d/x"),
		      "late base: %s", p.nlinks ? p.links[0] : "-");
		html_page_release(&p);
	}
	/* What follows </html> is read on, as browsers do (sqlite3-doc's pages
	 * put a link there: tests/e2e/real_pages.sh); libxml2's push parser
	 * stopped at </html>. */
	{
		static const char after[] =
			"<html><body><a href=\"/in\">in</a></body></html>\n"
			"<p><small><a href=\"/after\">after the end</a></small></p>\n";

		CHECK(html_extract(after, sizeof(after) - 1, NULL, "http://h.test/", "x", 10, &p) ==
		      CR_OK && p.nlinks == 2 && has(&p, "http://h.test/in") &&
		      has(&p, "http://h.test/after"), "a link after </html>: %u links", p.nlinks);
		CHECK(strstr((const char *)buf_cstr(&p.text), "after the end") != NULL,
		      "the text after </html> is read too");
		html_page_release(&p);
	}
	/* 100 000 nested elements and a link cap. */
	deep = malloc(100000 * 5 + 64);
	for (i = 0; i < 100000; i++)
		memcpy(deep + i * 5, "<div>", 5);
	strcpy(deep + 100000 * 5, "<a href=/deep>x</a>");
	CHECK(html_extract(deep, strlen(deep), NULL, "http://h.test/", "x", 1, &p) == CR_OK,
	      "deep nesting parses");
	html_page_release(&p);
	free(deep);
	CHECK(html_extract(doc1, sizeof(doc1) - 1, NULL, "http://h.test/p/page.html",
			   "mpicrawl", 3, &p) == CR_OK && p.nlinks == 3, "max_links");
	html_page_release(&p);
	{
		enum cr_err e = html_extract("\xff\xfe\x00<<<", 6, "no-such-charset",
					     "http://h.test/", "x", 10, &p);
		CHECK(e == CR_OK || e == CR_ERR_FORMAT, "garbage gives a status, not a crash");
	}
	html_page_release(&p);
	test_embeds();
	test_refresh();
	test_link_rels();
	test_lines();
	test_nul();
	test_quiet();
	TEST_DONE();
}

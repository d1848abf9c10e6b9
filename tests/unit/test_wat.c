#include "test.h"
#include "index/wat.h"
#include "parse/html.h"
#include "parse/htmlmeta.h"
#include "util/json.h"

#include <stdlib.h>

/* The items of a page's markup as WAT lists them: "kind path url" lines. */
static void items(const struct htmlmeta *m, struct buf *out)
{
	uint32_t i;
	unsigned k;

	for (i = 0; i < m->nitems; i++) {
		const struct htmlmeta_item *it = htmlmeta_item(m, i);
		const char *n, *v;

		buf_addf(out, "%u", it->kind);
		for (k = 0; k < it->npairs; k++) {
			htmlmeta_pair(m, it, k, &n, &v);
			buf_addf(out, " %s=%s", n, v);
		}
		if (it->has_text)
			buf_addf(out, " text=%.*s", (int)it->text_len,
				 (const char *)m->texts.p + it->text_off);
		buf_addc(out, '\n');
	}
}

/* What the collector keeps: metas of each kind, links and scripts of the
 * head apart from the body's, URLs as written, an anchor's text with its
 * words apart, an input only of type image, base. */
static void test_meta(void)
{
	static const char d[] =
		"<html><head><meta charset=utf-8><title>T</title>"
		"<meta name=description content=' About  it '><meta property=og:title content=OG>"
		"<meta http-equiv=refresh content='5; url=/x'><meta name=empty>"
		"<base href=/b/><link rel=stylesheet href=s.css type=text/css>"
		"<script src=h.js></script></head><body>"
		"<a href=\"../p/1.html\" rel=nofollow title=One>first <b>one</b>link</a>"
		"<img src=i.png alt=pic><script src=b.js></script>"
		"<input type=text src=no.png><input type=image src=go.png>"
		"<form action=/find method=get></form><iframe src=//f.test/></iframe>"
		"<link rel=canonical href=http://h.test/c><a href=#top>top</a></body></html>";
	static const char want[] =
		"0 charset=utf-8\n"
		"0 name=description content=About  it\n"
		"0 property=og:title content=OG\n"
		"0 http-equiv=refresh content=5; url=/x\n"
		"1 path=LINK@/href url=s.css rel=stylesheet type=text/css\n"
		"2 path=SCRIPT@/src url=h.js\n"
		"3 path=A@/href url=../p/1.html rel=nofollow title=One text=first onelink\n"
		"3 path=IMG@/src url=i.png alt=pic\n"
		"3 path=SCRIPT@/src url=b.js\n"
		"3 path=INPUT@/src url=go.png type=image\n"
		"3 path=FORM@/action url=/find method=get\n"
		"3 path=IFRAME@/src url=//f.test/\n"
		"1 path=LINK@/href url=http://h.test/c rel=canonical\n"
		"3 path=A@/href url=#top text=top\n";
	struct html_page p;
	struct htmlmeta m;
	struct buf got;

	htmlmeta_init(&m);
	buf_init(&got);
	CHECK(html_extract_meta(d, sizeof(d) - 1, NULL, "http://h.test/a/", "x", 10, &p, &m) ==
	      CR_OK, "extract");
	items(&m, &got);
	CHECK_STR(buf_cstr(&got), want);
	CHECK_STR(m.base, "/b/");
	CHECK(m.dropped == 0, "dropped %u", m.dropped);
	html_page_release(&p);
	htmlmeta_release(&m);
	buf_release(&got);
}

static int has(const struct buf *b, const char *s)
{
	return strstr((const char *)b->p, s) != NULL;
}

static void json_of(const char *head, const char *block, const struct html_page *pg,
		    const struct htmlmeta *m, struct buf *out)
{
	struct warc_record r = { 1000, 300, head, strlen(head), (const unsigned char *)block,
				 strlen(block) };
	struct wat_source s = { "x.warc.gz", WAT_GZIP, &r, pg, m, NULL };

	out->len = 0;
	wat_json(&s, out);
	buf_cstr(out);
}

/* The JSON of each record type: Common Crawl's names, numbers as strings,
 * a repeated header as a list, HTML metadata on an HTML response. */
static void test_json(void)
{
	static const char rh[] = "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: "
				 "http://h.test/\r\nWARC-Protocol: h2\r\nWARC-Protocol: tls/1.3\r\n"
				 "Content-Type: application/http;msgtype=response\r\n\r\n";
	static const char rb[] = "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n"
				 "Set-Cookie: a=1\r\nX-Long: one\r\n two\r\nset-cookie: b=2\r\n\r\n"
				 "<title>T</title><a href=/x>x</a>";
	static const char qh[] = "WARC/1.1\r\nWARC-Type: request\r\nContent-Type: "
				 "application/http;msgtype=request\r\n\r\n";
	static const char qb[] = "GET /a?b HTTP/1.1\r\nHost: h.test\r\n\r\n";
	static const char ih[] = "WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Type: "
				 "application/warc-fields\r\n\r\n";
	static const char mh[] = "WARC/1.1\r\nWARC-Type: metadata\r\nContent-Type: "
				 "application/warc-fields\r\n\r\n";
	static const char fb[] = "software: s\r\nseed: a\r\nseed: b\r\n";
	struct html_page p;
	struct htmlmeta m;
	struct buf o;

	buf_init(&o);
	htmlmeta_init(&m);
	CHECK(html_extract_meta(rb + 104, strlen(rb + 104), NULL, "http://h.test/", "x", 10, &p,
				&m) == CR_OK, "extract");
	json_of(rh, rb, &p, &m, &o);
	CHECK(has(&o, "\"Container\":{\"Filename\":\"x.warc.gz\",\"Compressed\":true,\"Offset\":"
		      "\"1000\",\"Gzip-Metadata\":{\"Deflate-Length\":\"282\""), "%s", o.p);
	CHECK(has(&o, "\"WARC-Protocol\":[\"h2\",\"tls/1.3\"]"), "%s", o.p);
	CHECK(has(&o, "\"Response-Message\":{\"Version\":\"HTTP/1.1\",\"Status\":\"404\","
		      "\"Reason\":\"Not Found\"}"), "%s", o.p);
	CHECK(has(&o, "\"Set-Cookie\":[\"a=1\",\"b=2\"],\"X-Long\":\"one two\"}"), "%s", o.p);
	CHECK(has(&o, "\"HTML-Metadata\":{\"Head\":{\"Title\":\"T\"},\"Links\":[{\"path\":"
		      "\"A@/href\",\"url\":\"/x\",\"text\":\"x\"}]}"), "%s", o.p);
	CHECK(has(&o, "\"Entity-Length\":\"32\""), "%s", o.p);
	html_page_release(&p);
	htmlmeta_release(&m);
	json_of(qh, qb, NULL, NULL, &o);
	CHECK(has(&o, "\"Request-Message\":{\"Method\":\"GET\",\"Path\":\"/a?b\","
		      "\"Version\":\"HTTP/1.1\"},\"Headers-Length\":\"35\",\"Headers\":"
		      "{\"Host\":\"h.test\"}"), "%s", o.p);
	json_of(ih, fb, NULL, NULL, &o);
	CHECK(has(&o, "\"WARC-Info-Metadata\":{\"software\":\"s\",\"seed\":[\"a\",\"b\"]}"),
	      "%s", o.p);
	json_of(mh, fb, NULL, NULL, &o);
	CHECK(has(&o, "\"Metadata-Records\":[{\"Name\":\"software\",\"Value\":\"s\"},"
		      "{\"Name\":\"seed\",\"Value\":\"a\"},{\"Name\":\"seed\",\"Value\":\"b\"}]"),
	      "%s", o.p);
	buf_release(&o);
}

static void test_names(void)
{
	char b[300];
	const char *n = b;

	wat_name("mpicrawl-00001-00002-00000.warc.gz", b, sizeof(b));
	CHECK_STR(n, "mpicrawl-00001-00002-00000.warc.wat.gz");
	wat_name("a-robots.warc.zst", b, sizeof(b));
	CHECK_STR(n, "a-robots.warc.wat.gz");
}

int main(void)
{
	test_meta();
	test_json();
	test_names();
	TEST_DONE();
}

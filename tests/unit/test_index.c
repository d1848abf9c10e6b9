/*
 * test_index.c - the SURT keys of CDXJ lines (as warcio.js and pywb make
 * them), the language guess of extracted text, and the records the fetcher
 * stages for the index step (index/stage.h).
 */
#include "test.h"
#include "url/surt.h"
#include "parse/lang.h"
#include "index/index.h"
#include "index/stage.h"
#include "config/config.h"

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
		surt_key(cases[i].url, &b);
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
	static const char fr[] = "Le chat est sur la table et le chien dort dans la maison "
				 "parce qu'il fait froid dehors pendant tout l'hiver.";
	struct lang_result l;

	lang_detect(en, strlen(en), &l);
	CHECK(l.n >= 1 && !strcmp(l.code[0], "eng"), "english: %s", l.n ? l.code[0] : "-");
	lang_detect(de, strlen(de), &l);
	CHECK(l.n >= 1 && !strcmp(l.code[0], "deu"), "german: %s", l.n ? l.code[0] : "-");
	lang_detect(fr, strlen(fr), &l);
	CHECK(l.n >= 1 && !strcmp(l.code[0], "fra") && l.percent[0] > 50, "french: %s %u",
	      l.n ? l.code[0] : "-", l.n ? l.percent[0] : 0);
	lang_detect("", 0, &l);
	CHECK(l.n == 0, "empty text: no language");
	lang_detect("ab\xff\xfe", 4, &l);
	CHECK(l.n == 0, "bytes that are not UTF-8: no language, no crash");
	CHECK(!strcmp(lang_iso3("en"), "eng") && !strcmp(lang_iso3("iw"), "heb") &&
	      !strcmp(lang_iso3("zh-Hant"), "zho") && !strcmp(lang_iso3("haw"), "haw") &&
	      !lang_iso3("un") && !lang_iso3("xxx") && !lang_iso3("xx-Latn"),
	      "CLD2 codes to ISO 639-3");
}

static void test_stage_names(void)
{
	static const struct {
		const char *name, *key;
		int is_response, status;
		const char *mime;
		int text;
	} cases[] = {
		{ "mpicrawl-00003-00002-00000.warc.gz", "mpicrawl-00003-00002", 1, 200,
		  "text/html", 1 },
		{ "mpicrawl-00003-00002-r1-00007-robots.warc.gz", "mpicrawl-00003-00002-r1-robots",
		  1, 200, "text/html", 0 },
		{ "mpicrawl-00003-00002-00001-diagnostics.warc.zst",
		  "mpicrawl-00003-00002-diagnostics", 1, 200, "text/html", 0 },
		{ "mpicrawl-00003-00002-00000-sitemaps.warc.gz", "mpicrawl-00003-00002-sitemaps",
		  1, 200, "text/html", 0 },
		{ "mpicrawl-00003-00002-r2-00000.warc.zst", "mpicrawl-00003-00002-r2", 0, 200,
		  "text/html", 0 },
		{ "mpicrawl-00003-00002-00000.warc.gz", "mpicrawl-00003-00002", 1, 404,
		  "text/html", 0 },
		{ "mpicrawl-00003-00002-00000.warc.gz", "mpicrawl-00003-00002", 1, 200,
		  "Application/XHTML+xml", 1 },
		{ "mpicrawl-00003-00002-00000.warc.gz", "mpicrawl-00003-00002", 1, 204,
		  "text/plain", 1 },   /* plain text and PDFs have text (parse/doc.h) */
		{ "mpicrawl-00003-00002-00000.warc.gz", "mpicrawl-00003-00002", 1, 200,
		  "application/pdf", 1 },
		{ "mpicrawl-00003-00002-00000.warc.gz", "mpicrawl-00003-00002", 1, 200,
		  "image/png", 0 },
		/* names with the host after the serial, any warc.prefix */
		{ "c-20261125-ab12cd-00003-00002-00000-node1.warc.gz", "c-20261125-ab12cd-00003-00002",
		  1, 200, "text/html", 1 },
		{ "my-robots-00003-00002-r1-00007-h0_1-robots.warc.gz", "my-robots-00003-00002-r1-robots",
		  1, 200, "text/html", 0 },
		{ "my-robots-00003-00002-00000-vm.warc.zst", "my-robots-00003-00002", 1, 200,
		  "text/html", 1 },
		{ "other-00003-00002-00000.warc.gz", "other-00003-00002", 1, 200, "text/html", 1 },
		{ "mpicrawl.warc.gz", NULL, 1, 200, "text/html", 1 },
		{ "mpicrawl-00003-00002-00000.cdxj", NULL, 1, 200, "text/html", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char key[256];
		int ok = index_stage_key(cases[i].name, key, sizeof(key));

		if (cases[i].key)
			CHECK(ok && !strcmp(key, cases[i].key), "%s: key '%s'", cases[i].name,
			      ok ? key : "(none)");
		else
			CHECK(!ok, "%s: not one of ours", cases[i].name);
		CHECK(index_wants_text(cases[i].name, cases[i].is_response, cases[i].status,
				       cases[i].mime) == cases[i].text, "%s %d %s: text",
		      cases[i].name, cases[i].status, cases[i].mime);
	}
	/* what a PDF is asked as, read or not (parse.pdf) */
	CHECK_STR(index_text_mime("application/octet-stream", "application/pdf", 1),
		  "application/pdf");
	CHECK_STR(index_text_mime("text/html", "", 1), "text/html");
	CHECK_STR(index_text_mime("application/pdf", "", 0), "");
	CHECK_STR(index_text_mime("application/octet-stream", "application/pdf", 0), "");
	CHECK_STR(index_text_mime("text/plain", "", 0), "text/plain");
}

static void test_stage_records(void)
{
	const char *links[] = { "http://a.test/1", "http://a.test/2" };
	const char *anchors[] = { "one", "" };
	struct index_stage_page pg = { "http://a.test/", 14, 1795000000123456, "<urn:uuid:x>",
				       12, 1, "T", 1, "body text", 9, 2, links, anchors, NULL,
				       0, { 0 }, NULL, 0, "UTF-8", 5 };
	struct index_stage_rec r;
	const char *u, *a;
	size_t pos = 0, un, an;
	struct buf b;

	buf_init(&b);
	pg.lang.n = 2;
	pg.lang.reliable = 1;
	memcpy(pg.lang.code[0], "eng", 4);
	memcpy(pg.lang.code[1], "deu", 4);
	pg.lang.percent[0] = 80;
	pg.lang.percent[1] = 19;
	index_stage_pack_page(&b, &pg);
	CHECK(index_stage_unpack(b.p, b.len, &r) == CR_OK && r.kind == STAGE_PAGE &&
	      r.page.date_us == pg.date_us && r.page.noindex && r.page.nlinks == 2 &&
	      r.page.text_len == 9 && !memcmp(r.page.text, "body text", 9) &&
	      r.page.id_len == 12, "a page round-trips");
	CHECK(r.page.lang.n == 2 && r.page.lang.reliable && !strcmp(r.page.lang.code[1], "deu") &&
	      r.page.lang.percent[0] == 80 && r.page.lang.percent[1] == 19,
	      "its languages round-trip");
	CHECK(index_stage_link(&r.page, &pos, &u, &un, &a, &an) == CR_OK && un == 15 &&
	      !memcmp(u, links[0], 15) && an == 3 &&
	      index_stage_link(&r.page, &pos, &u, &un, &a, &an) == CR_OK && an == 0 &&
	      index_stage_link(&r.page, &pos, &u, &un, &a, &an) == CR_EOF, "its links");
	CHECK(r.page.charset_len == 5 && !memcmp(r.page.charset, "UTF-8", 5),
	      "its charset round-trips");
	CHECK(index_stage_unpack(b.p, b.len - 1, &r) != CR_OK, "a cut page is refused");
	b.len = 0;
	pg.charset = NULL;
	index_stage_pack_page(&b, &pg);
	CHECK(index_stage_unpack(b.p, b.len - 1, &r) == CR_OK && !r.page.charset_len,
	      "a page staged before the charset was (no field at its end) is read");
	b.len = 0;
	index_stage_pack_file(&b, "mpicrawl-00001-00000-00000.warc.gz");
	CHECK(index_stage_unpack(b.p, b.len, &r) == CR_OK && r.kind == STAGE_FILE && r.n == 34,
	      "a file record");
	b.len = 0;
	index_stage_pack_cdxj(&b, "k 1 {}", 6);
	CHECK(index_stage_unpack(b.p, b.len, &r) == CR_OK && r.kind == STAGE_CDXJ && r.n == 6,
	      "a CDXJ record");
	b.len = 0;
	index_stage_pack_failed(&b);
	buf_addc(&b, 'x');
	CHECK(index_stage_unpack(b.p, b.len, &r) != CR_OK, "bytes after a record are refused");
	b.p[0] = 'Q';
	CHECK(index_stage_unpack(b.p, 1, &r) != CR_OK, "an unknown kind is refused");
	buf_release(&b);
}

static void test_cdxj_facts(void)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; charset=utf-8\r\n\r\n";
	char mime[64];
	int status;
	size_t hl;
	struct buf b;

	CHECK(index_record_facts("response", "application/http;msgtype=response",
				 (const unsigned char *)head, strlen(head), mime, sizeof(mime),
				 &status, &hl) && status == 200 && !strcmp(mime, "Text/HTML") &&
	      hl == strlen(head), "a response: %d %s", status, mime);
	CHECK(index_record_facts("revisit", "application/http;msgtype=response",
				 (const unsigned char *)head, strlen(head), mime, sizeof(mime),
				 &status, &hl) && status == 200 && !strcmp(mime, "warc/revisit"),
	      "a revisit: %s", mime);
	CHECK(!index_record_facts("resource", "text/plain", (const unsigned char *)"x", 1, mime,
				  sizeof(mime), &status, &hl) && status == 0 &&
	      !strcmp(mime, "text/plain"), "a resource");
	buf_init(&b);
	index_cdxj_line(&b, "http://a.test/x", "2026-11-24T14:42:01.509123Z", "text/html", 200,
			"sha1:ABC", 10, 20, "f.warc.gz", NULL);
	CHECK_STR(buf_cstr(&b), "test,a)/x 20261124144201 {\"url\":\"http://a.test/x\","
		  "\"mime\":\"text/html\",\"status\":\"200\",\"digest\":\"ABC\","
		  "\"length\":\"10\",\"offset\":\"20\",\"filename\":\"f.warc.gz\"}");
	/* Common Crawl's fields: the charset, a redirect's target resolved, why
	 * a body was cut; the file's path from the crawl directory. */
	{
		static const char h301[] = "HTTP/1.1 301 Moved\r\nContent-Type: text/html; "
					   "charset=ISO-8859-1\r\nLocation: ../y?q=1\r\n\r\n";
		struct index_cdxj_extra ex;
		char fname[64];

		index_cdxj_extras("http://a.test/d/x", h301, sizeof(h301) - 1, 301, "length", &ex);
		CHECK(!strcmp(ex.charset, "iso-8859-1") && !strcmp(ex.redirect, "http://a.test/y?q=1") &&
		      !strcmp(ex.truncated, "length"), "extras: '%s' '%s' '%s'", ex.charset,
		      ex.redirect, ex.truncated);
		index_cdxj_extras("http://a.test/d/x", h301, sizeof(h301) - 1, 200, NULL, &ex);
		CHECK(!ex.redirect[0] && !ex.truncated[0], "no redirect for a 200");
		index_cdxj_filename(3, "f.warc.gz", fname, sizeof(fname));
		b.len = 0;
		index_cdxj_extras("http://a.test/d/x", h301, sizeof(h301) - 1, 301, NULL, &ex);
		index_cdxj_line(&b, "http://a.test/d/x", "2026-11-24T14:42:01Z", "text/html", 301,
				"", 10, 20, fname, &ex);
		CHECK_STR(buf_cstr(&b), "test,a)/d/x 20261124144201 {\"url\":\"http://a.test/d/x\","
			  "\"mime\":\"text/html\",\"status\":\"301\",\"length\":\"10\","
			  "\"offset\":\"20\",\"filename\":\"segments/00003/warc/f.warc.gz\","
			  "\"charset\":\"iso-8859-1\",\"redirect\":\"http://a.test/y?q=1\"}");
	}
	buf_release(&b);
}

/* What an index run again removes from cdxj/ and wat/: the outputs of WARC
 * files that are gone, and every WAT file once index.wat is off (issue 34
 * items 5 and 11b). */
static void test_output_stale(void)
{
	static const struct {
		const char *sub, *file;
		int wat_on, stale;
	} cases[] = {
		{ "cdxj", "c-00001-00000-00000-h.warc.gz.cdxj", 1, 0 },
		{ "cdxj", "c-00001-00000-00001-h.warc.gz.cdxj", 1, 1 },   /* WARC gone */
		{ "cdxj", "c-00001-00000-00000-h-robots.warc.gz.cdxj", 0, 0 },
		{ "cdxj", "c-00001-00000-00000-h.warc.gz.cdxj.tmp.42", 1, 0 },
		{ "wat", "c-00001-00000-00000-h.warc.wat.gz", 1, 0 },
		{ "wat", "c-00001-00000-00000-h.warc.wat.gz", 0, 1 },     /* index.wat off */
		{ "wat", "c-00001-00000-00001-h.warc.wat.gz", 1, 1 },     /* WARC gone */
		{ "wat", "c-00001-00000-00002-h.warc.wat.gz", 1, 0 },     /* of a .warc.zst */
		{ "text", "c-00001-00000.warc.wet.gz", 0, 0 },
	};
	static char *names[] = { "c-00001-00000-00000-h.warc.gz",
				 "c-00001-00000-00000-h-robots.warc.gz",
				 "c-00001-00000-00002-h.warc.zst" };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(index_output_stale(cases[i].sub, cases[i].file, names, 3,
					 cases[i].wat_on) == cases[i].stale,
		      "%s/%s (index.wat %d): want stale %d", cases[i].sub, cases[i].file,
		      cases[i].wat_on, cases[i].stale);
	CHECK(index_output_stale("cdxj", "c-00001-00000-00000-h.warc.gz.cdxj", NULL, 0, 1),
	      "no WARC file left: its CDXJ is stale");
}

int main(void)
{
	test_output_stale();
	test_surt();
	test_language();
	test_stage_names();
	test_stage_records();
	test_cdxj_facts();
	TEST_DONE();
}

#include "test.h"
#include "parse/doc.h"
#include "parse/pdf.h"
#include "parse/pdfworker.h"
#include "url/url.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct pdf_limits lim = { 10, 1000, 4 };

/* A request's head read back; one past a cap or not ours refused. */
static void test_request(void)
{
	struct pdfworker_request q = { { 5, 100000, 7 }, 30, 12345 }, r;
	struct buf b;

	buf_init(&b);
	pdfworker_request_pack(&q, &b);
	CHECK(b.len == PDFWORKER_REQUEST_HEAD, "head %zu bytes", b.len);
	CHECK(pdfworker_request_unpack(b.p, b.len, &r) == CR_OK, "read back");
	CHECK(r.lim.max_pages == 5 && r.lim.max_text == 100000 && r.lim.max_links == 7 &&
	      r.timeout_s == 30 && r.len == 12345, "fields");
	CHECK(pdfworker_request_unpack(b.p, b.len - 1, &r) == CR_ERR_FORMAT, "short");
	b.p[0] = 'X';
	CHECK(pdfworker_request_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "magic");
	b.len = 0;
	q.len = PDFWORKER_MAX_INPUT + 1;
	pdfworker_request_pack(&q, &b);
	CHECK(pdfworker_request_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "len over the cap");
	b.len = 0;
	q.len = 1;
	q.lim.max_pages = 0;
	pdfworker_request_pack(&q, &b);
	CHECK(pdfworker_request_unpack(b.p, b.len, &r) == CR_ERR_FORMAT, "no page");
	buf_release(&b);
}

static void sample(struct pdf_doc *d)
{
	pdf_doc_init(d);
	d->fate = PDF_OK;
	d->field[PDF_TITLE] = strdup("A \xc3\xa9tude");
	d->field[PDF_PRODUCER] = strdup("pdfTeX");
	d->created = 1660000000;
	d->pages = 3;
	d->pages_read = 3;
	snprintf(d->version, sizeof(d->version), "1.5");
	pdf_doc_add_text(d, "one\ntwo", 7, lim.max_text);
	CHECK(pdf_doc_add_link(d, "https://a.test/x", 16, " The\n x\x01 page ", 15, lim.max_links),
	      "link");
	CHECK(pdf_doc_add_link(d, "rel/y", 5, "", 0, lim.max_links), "link");
}

/* A reply packed and read back; damaged ones refused. */
static void test_reply(void)
{
	struct pdf_doc d, e;
	struct buf b;
	uint64_t len;
	size_t i;

	sample(&d);
	buf_init(&b);
	pdfworker_reply_pack(&d, &b);
	CHECK(pdfworker_reply_head(b.p, b.len, &lim, &len) == CR_OK &&
	      len == b.len - PDFWORKER_REPLY_HEAD, "head: %llu", (unsigned long long)len);
	pdf_doc_init(&e);
	CHECK(pdfworker_reply_unpack(b.p + PDFWORKER_REPLY_HEAD, (size_t)len, &lim, &e) == CR_OK,
	      "read back");
	CHECK_STR(e.field[PDF_TITLE], "A \xc3\xa9tude");
	CHECK_STR(e.field[PDF_PRODUCER], "pdfTeX");
	CHECK(!e.field[PDF_AUTHOR], "no author");
	CHECK(e.pages == 3 && e.created == 1660000000 && !strcmp(e.version, "1.5"), "numbers");
	CHECK(e.text.len == 7 && !memcmp(e.text.p, "one\ntwo", 7), "text");
	CHECK(e.nlinks == 2 && !strcmp(e.links[1], "rel/y"), "links");
	CHECK(e.nlinks == 2 && !strcmp(e.anchors[0], "The x page") && !e.anchors[1][0],
	      "anchors: '%s'", e.nlinks ? e.anchors[0] : "");
	pdf_doc_release(&e);
	/* every cut short is refused, never read past */
	for (i = 0; i < len; i++) {
		pdf_doc_init(&e);
		CHECK(pdfworker_reply_unpack(b.p + PDFWORKER_REPLY_HEAD, i, &lim, &e) ==
		      CR_ERR_FORMAT, "cut at %zu", i);
		pdf_doc_release(&e);
	}
	/* a byte left over */
	buf_addc(&b, 0);
	pdf_doc_init(&e);
	CHECK(pdfworker_reply_unpack(b.p + PDFWORKER_REPLY_HEAD, (size_t)len + 1, &lim, &e) ==
	      CR_ERR_FORMAT, "left over");
	pdf_doc_release(&e);
	/* a head announcing more than the caps allow */
	b.p[11] = 0x40;
	CHECK(pdfworker_reply_head(b.p, b.len, &lim, &len) == CR_ERR_FORMAT, "over the cap");
	/* invalid UTF-8 in the text; a version that is not one */
	b.len = 0;
	d.text.p[1] = 0xff;
	pdfworker_reply_pack(&d, &b);
	pdf_doc_init(&e);
	CHECK(pdfworker_reply_unpack(b.p + 12, b.len - 12, &lim, &e) == CR_ERR_FORMAT, "utf-8");
	pdf_doc_release(&e);
	d.text.p[1] = 'n';
	snprintf(d.version, sizeof(d.version), "1\r\nX");
	b.len = 0;
	pdfworker_reply_pack(&d, &b);
	pdf_doc_init(&e);
	CHECK(pdfworker_reply_unpack(b.p + 12, b.len - 12, &lim, &e) == CR_ERR_FORMAT, "version");
	pdf_doc_release(&e);
	/* more links than asked for */
	snprintf(d.version, sizeof(d.version), "1.4");
	pdf_doc_add_link(&d, "a", 1, "", 0, 10);
	pdf_doc_add_link(&d, "b", 1, "", 0, 10);
	pdf_doc_add_link(&d, "c", 1, "", 0, 10);
	b.len = 0;
	pdfworker_reply_pack(&d, &b);
	pdf_doc_init(&e);
	CHECK(pdfworker_reply_unpack(b.p + 12, b.len - 12, &lim, &e) == CR_ERR_FORMAT, "links");
	pdf_doc_release(&e);
	pdf_doc_release(&d);
	buf_release(&b);
}

/* A worker's death, by its wait status. */
static void test_death(void)
{
	int xcpu = SIGXCPU, segv = SIGSEGV, abrt = SIGABRT;

	/* wait statuses of a signal s: s; of an exit code c: c << 8 */
	CHECK(pdfworker_death(xcpu, 0, 0, 1 << 30) == PDF_TIMEOUT, "SIGXCPU");
	CHECK(pdfworker_death(SIGKILL, 1, 0, 1 << 30) == PDF_TIMEOUT, "killed at the deadline");
	CHECK(pdfworker_death(segv, 0, 40 << 20, 1 << 30) == PDF_CRASH, "SIGSEGV");
	CHECK(pdfworker_death(abrt, 0, 900 << 20, 1 << 30) == PDF_MEMORY, "SIGABRT, near the limit");
	CHECK(pdfworker_death(3 << 8, 0, 0, 1 << 30) == PDF_CRASH, "exit 3");
	CHECK_STR(pdf_fate_reason(PDF_TIMEOUT), "pdf:timeout");
	CHECK_STR(pdf_fate_reason(PDF_OK), "");
	CHECK_STR(pdf_fate_reason((enum pdf_fate)99), "pdf:crash");
}

static void test_kind(void)
{
	CHECK(doc_kind("application/pdf", "x", 1) == DOC_PDF, "by type");
	CHECK(doc_kind("application/octet-stream", "%PDF-1.4", 8) == DOC_PDF, "by signature");
	CHECK(doc_kind("text/html", "%PDF-1.4", 8) == DOC_PDF, "the signature wins");
	CHECK(doc_kind("", "<p>", 3) == DOC_HTML, "none: HTML");
	CHECK(doc_kind("TEXT/PLAIN", "a", 1) == DOC_TEXT, "plain");
	CHECK(doc_kind("image/png", "%PDF", 4) == DOC_OTHER, "other");
}

static void text_is(const char *in, size_t max, const char *want, int cut)
{
	struct pdf_doc d;

	pdf_doc_init(&d);
	pdf_doc_add_text(&d, in, strlen(in), max);
	CHECK(d.text.len == strlen(want) && (!d.text.len || !memcmp(d.text.p, want, d.text.len)) &&
	      d.text_cut == cut, "'%s' -> '%.*s' (cut %d)", in, (int)d.text.len,
	      (const char *)d.text.p, d.text_cut);
	pdf_doc_release(&d);
}

static void test_text(void)
{
	text_is("  a   b \n\n\f c\r\n", 100, "a b\nc", 0);
	text_is("improv-\ning it", 100, "improving it", 0);
	text_is("CRC-\nBased", 100, "CRC-\nBased", 0);
	text_is("a\x01" "b\xff" "c", 100, "a b c", 0);
	text_is("\xc3\xa9\xc3\xa9\xc3\xa9", 6, "\xc3\xa9\xc3\xa9", 1);
	text_is("", 100, "", 0);
}

static void test_page(void)
{
	struct html_page p;
	struct pdf_doc d;
	struct url_rules rules;
	uint32_t i;

	url_rules_default(&rules);
	url_set_rules(&rules);
	pdf_doc_init(&d);
	d.field[PDF_TITLE] = strdup("  The\n title ");
	pdf_doc_add_text(&d, "Some text here.", 15, 100);
	pdf_doc_add_link(&d, "docs/b.html", 11, "Part B", 6, 10);
	pdf_doc_add_link(&d, "mailto:x@a.test", 15, "", 0, 10);
	pdf_doc_add_link(&d, "https://a.test/docs/b.html#top", 30, "again", 5, 10);
	pdf_doc_add_link(&d, "HTTP://A.test/c", 15, "", 0, 10);
	doc_pdf_page(&d, "https://a.test/paper.pdf", 5, &p);
	CHECK_STR((const char *)p.title.p, "The title");
	CHECK(p.nlinks == 2, "links: %u", p.nlinks);
	CHECK(p.nlinks == 2 && !strcmp(p.anchors[0], "Part B") && !p.anchors[1][0],
	      "anchor texts, the first of a repeated link's");
	for (i = 0; i < p.nlinks; i++)
		CHECK(p.anchors[i] != NULL, "an anchor text each");
	CHECK(p.nlinks == 2 && !strcmp(p.links[0], "https://a.test/docs/b.html") &&
	      !strcmp(p.links[1], "http://a.test/c"), "canonical, once each");
	CHECK(p.dropped == 1, "mailto dropped");
	CHECK(p.nlines == 1 && p.boiler && !p.boiler[0], "one line, no boilerplate");
	html_page_release(&p);
	pdf_doc_release(&d);
	doc_text_page("caf\xe9\n\n  na\xefve  ", 14, 100, &p);
	CHECK_STR((const char *)p.text.p, "caf\xc3\xa9\nna\xc3\xafve");
	CHECK(p.title.len == 0 && p.nlinks == 0 && p.nlines == 2, "plain");
	html_page_release(&p);
}

/* The metadata record's lines and the WAT's object. */
static void test_fields(void)
{
	struct pdf_doc d;
	struct buf b;

	sample(&d);
	buf_init(&b);
	doc_pdf_fields(&d, &b);
	CHECK(strstr(buf_cstr(&b), "pdf-title: A \xc3\xa9tude\r\n") &&
	      strstr(buf_cstr(&b), "pdf-pages: 3\r\n") &&
	      strstr(buf_cstr(&b), "pdf-created: 2022-08-08T23:06:40") &&
	      strstr(buf_cstr(&b), "pdf-encrypted: false\r\n"), "fields: %s", buf_cstr(&b));
	b.len = 0;
	doc_pdf_json(&d, &b);
	CHECK(strstr(buf_cstr(&b), "{\"Title\":\"A \xc3\xa9tude\"") &&
	      strstr(buf_cstr(&b), "\"Links\":[{\"url\":\"https://a.test/x\",\"text\":\"The x page\"},"
			     "{\"url\":\"rel/y\"}]}"),
	      "json: %s", buf_cstr(&b));
	b.len = 0;
	d.fate = PDF_TIMEOUT;
	doc_pdf_fields(&d, &b);
	CHECK_STR(buf_cstr(&b), "pdf-error: pdf:timeout\r\n");
	pdf_doc_release(&d);
	buf_release(&b);
}

/* The worker itself: this program run again as "pdf-worker". */
static void test_worker(void)
{
	static const char tiny[] =
		"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
		"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
		"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R "
		"/Resources << /Font << /F1 5 0 R >> >> >> endobj\n"
		"4 0 obj << /Length 44 >> stream\nBT /F1 12 Tf 20 200 Td (Hello worker) Tj ET\n"
		"endstream endobj\n"
		"5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n"
		"trailer << /Root 1 0 R >>\n%%EOF\n";
	struct pdfworker_opts o = { { 10, 10000, 10 }, 5, 1 << 20 };
	struct pdf_doc d;
	uint64_t started, lost;

	pdf_doc_init(&d);
	pdfworker_parse(&o, tiny, 2 << 20, &d);
	CHECK(d.fate == PDF_TOO_LARGE, "over parse.pdf_max_bytes: %d", d.fate);
	pdfworker_counts(&started, &lost);
	CHECK(started == 0, "no worker for a PDF too large");
	pdf_doc_release(&d);
	pdf_doc_init(&d);
	pdfworker_parse(&o, tiny, sizeof(tiny) - 1, &d);
	CHECK(d.fate == PDF_OK && d.pages == 1 && strstr(buf_cstr(&d.text), "Hello worker"),
	      "read: fate %d, %u pages, '%s'", d.fate, d.pages, buf_cstr(&d.text));
	pdf_doc_release(&d);
	pdf_doc_init(&d);
	pdfworker_parse(&o, "%PDF-1.4 not at all", 19, &d);
	CHECK(d.fate == PDF_MALFORMED, "malformed: %d", d.fate);
	pdf_doc_release(&d);
	pdfworker_counts(&started, &lost);
	CHECK(started == 1 && lost == 0, "one worker for both: %llu, %llu",
	      (unsigned long long)started, (unsigned long long)lost);
	pdfworker_stop();
}

/*
 * Workers that go wrong, for test_lost: this program, run as the worker,
 * does what TEST_PDF_WORKER says instead of answering - dies of SIGSEGV
 * once it has the request's head, hangs, or answers garbage.
 */
static int bad_worker(const char *how)
{
	char head[PDFWORKER_REQUEST_HEAD];

	if (read(0, head, sizeof(head)) <= 0)
		return 1;
	if (!strcmp(how, "crash"))
		raise(SIGSEGV);
	if (!strcmp(how, "hang"))
		sleep(60);
	if (write(1, "MPDR\xff\xff\xff\xff\xff\xff\xff\x7f", 12) != 12)
		return 1;
	sleep(60);
	return 1;
}

/* A worker that crashed, hung or answered garbage costs its document, with
 * the reason, and the next document gets a new worker. */
static void test_lost(void)
{
	static const char tiny[] = "%PDF-1.4\ntrailer << >>\n%%EOF\n";
	static const struct {
		const char *how;
		enum pdf_fate want;
	} cases[] = {
		{ "crash", PDF_CRASH }, { "hang", PDF_TIMEOUT }, { "garbage", PDF_CRASH },
	};
	struct pdfworker_opts o = { { 10, 10000, 10 }, 1, 1 << 20 };
	uint64_t started0, lost0, started, lost;
	struct pdf_doc d;
	size_t i;

	pdfworker_counts(&started0, &lost0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("TEST_PDF_WORKER", cases[i].how, 1);
		pdf_doc_init(&d);
		pdfworker_parse(&o, tiny, sizeof(tiny) - 1, &d);
		CHECK(d.fate == cases[i].want, "%s: %s", cases[i].how, pdf_fate_reason(d.fate));
		pdf_doc_release(&d);
	}
	unsetenv("TEST_PDF_WORKER");
	pdf_doc_init(&d);
	pdfworker_parse(&o, tiny, sizeof(tiny) - 1, &d);
	CHECK(d.fate == PDF_MALFORMED, "a good worker again: %s", pdf_fate_reason(d.fate));
	pdf_doc_release(&d);
	pdfworker_counts(&started, &lost);
	CHECK(started - started0 == 4 && lost - lost0 == 3, "started %llu, lost %llu",
	      (unsigned long long)(started - started0), (unsigned long long)(lost - lost0));
	pdfworker_stop();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], PDFWORKER_COMMAND))
		return getenv("TEST_PDF_WORKER") ? bad_worker(getenv("TEST_PDF_WORKER")) :
		       pdfworker_main(argc - 1, argv + 1);
	test_request();
	test_reply();
	test_death();
	test_kind();
	test_text();
	test_page();
	test_fields();
	test_worker();
	test_lost();
	TEST_DONE();
}

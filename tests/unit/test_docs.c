/*
 * test_docs - PDFs read apart from the fetcher's loop (src/fetch/docs.h):
 * submitting never waits for the worker, the pages come back in order and
 * wake the loop's poll, at most DOCS_PENDING are held, and closing reads
 * what is pending. The worker is this program (as test_pdf runs it); a
 * "slow" one takes a second per document.
 */
#include "crawldb/fetch_record.h"
#include "fetch/http.h"
#include "fetch/docs.h"
#include "parse/parse.h"
#include "parse/pdfworker.h"
#include "test.h"
#include "util/clock.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A worker that waits 0.3 s, then reads the document as the real one. */
static int slow_worker(int argc, char **argv)
{
	usleep(300000);
	return pdfworker_main(argc, argv);
}

static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n";
static const char body[] = "%PDF-1.4\ntrailer << >>\n%%EOF\n";

static struct docs_page *page(int n)
{
	struct http_result r;
	char url[64];

	snprintf(url, sizeof(url), "http://pdf.test/%d.pdf", n);
	memset(&r, 0, sizeof(r));
	r.status = 200;
	r.req = (const unsigned char *)"GET / HTTP/1.1\r\n\r\n";
	r.req_len = 18;
	r.head = (const unsigned char *)head;
	r.head_len = sizeof(head) - 1;
	r.body = (const unsigned char *)body;
	r.body_len = sizeof(body) - 1;
	r.error = r.detail = r.ip = r.tls = r.cipher = "";
	r.protocol = "http/1.1";
	r.url = url;   /* copied: gone when this returns */
	r.start_wall_us = n;
	return docs_page_new(NULL, &r);
}

/* The number in the URL of a page taken back. */
static int number_of(const struct docs_page *p)
{
	int n = -1;

	sscanf(p->r.url, "http://pdf.test/%d.pdf", &n);
	return n;
}

static int readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) == 1;
}

static void test_wants(const struct job *j)
{
	struct fetch_record fr;

	memset(&fr, 0, sizeof(fr));
	fr.rec.status = ST_FETCHED;
	fr.content_type = "application/pdf";
	fr.content_type_len = 15;
	CHECK(parse_wants_pdf(j, &fr, (const unsigned char *)body, 10), "a PDF by its type");
	fr.content_type = "application/octet-stream";
	fr.content_type_len = 24;
	CHECK(parse_wants_pdf(j, &fr, (const unsigned char *)body, 10), "a PDF by its bytes");
	CHECK(!parse_wants_pdf(j, &fr, (const unsigned char *)"<html>", 6), "not a PDF");
	fr.rec.meta.kind = CRAWL_SITEMAP;
	CHECK(!parse_wants_pdf(j, &fr, (const unsigned char *)body, 10), "a sitemap is read as one");
	fr.rec.meta.kind = CRAWL_PAGE;
	fr.rec.status = ST_GONE;
	fr.content_type = "application/pdf";
	fr.content_type_len = 15;
	CHECK(!parse_wants_pdf(j, &fr, (const unsigned char *)body, 10), "a 404 is read as none");
	fr.rec.status = ST_FETCHED;
	CHECK(!parse_wants_pdf(j, &fr, (const unsigned char *)body, 0), "no bytes (a 304's): none");
}

/* A PDF of no bytes is an answer, not a lost worker. */
static void test_empty(void)
{
	struct pdfworker_opts o = { { 10, 10000, 10 }, 5, 1 << 20 };
	uint64_t started0, lost0, started, lost;
	struct pdf_doc d;

	pdfworker_counts(&started0, &lost0);
	pdf_doc_init(&d);
	pdfworker_parse(&o, "", 0, &d);
	pdfworker_counts(&started, &lost);
	CHECK(d.fate == PDF_MALFORMED && lost == lost0, "an empty PDF: %s, %llu workers lost",
	      pdf_fate_reason(d.fate), (unsigned long long)(lost - lost0));
	pdf_doc_release(&d);
}

static void test_apart(const struct job *j)
{
	struct docs *d;
	struct docs_page *p;
	int64_t t0;
	int i, n;

	CHECK(docs_open(j, &d) == CR_OK, "open");
	t0 = clock_mono_us();
	for (i = 0; i < DOCS_PENDING; i++) {
		CHECK(!docs_full(d), "room for page %d", i);
		docs_submit(d, page(i));
	}
	CHECK(clock_mono_us() - t0 < 300000, "submitting waits for no worker: %lld us",
	      (long long)(clock_mono_us() - t0));
	CHECK(docs_full(d) && docs_pending(d) == DOCS_PENDING, "full at %d", DOCS_PENDING);
	CHECK(docs_next_done(d, 0) == NULL, "nothing done at once (the worker takes 0.3 s)");
	CHECK(!readable(docs_fd(d), 0), "the descriptor says nothing yet");
	CHECK(readable(docs_fd(d), 5000), "the descriptor wakes a poll when one is done");
	for (i = 0; i < DOCS_PENDING; i++) {
		p = docs_next_done(d, 1);
		CHECK(p != NULL, "page %d back", i);
		if (!p)
			break;
		n = number_of(p);
		CHECK(n == i, "in order: %d", n);
		CHECK(p->pdf.read && p->pdf.fate == PDF_MALFORMED, "read by the worker: %s",
		      pdf_fate_reason(p->pdf.fate));
		CHECK(p->r.body_len == sizeof(body) - 1 && !memcmp(p->r.body, body, p->r.body_len) &&
		      p->r.head_len == sizeof(head) - 1 && !memcmp(p->r.head, head, p->r.head_len) &&
		      !strcmp(p->r.protocol, "http/1.1") && p->r.start_wall_us == i,
		      "its response copied whole");
		docs_page_free(p);
	}
	CHECK(docs_pending(d) == 0 && docs_next_done(d, 1) == NULL, "none left, no wait");
	CHECK(!readable(docs_fd(d), 0), "the descriptor quiet again");
	/* one large PDF fills the bound by its bytes */
	{
		struct http_result r;
		unsigned char *big = calloc(1, DOCS_BYTES);

		memset(&r, 0, sizeof(r));
		r.head = (const unsigned char *)head;
		r.head_len = sizeof(head) - 1;
		r.body = big;
		r.body_len = DOCS_BYTES;
		r.error = r.detail = r.ip = r.tls = r.cipher = r.protocol = r.url = "";
		memcpy(big, "%PDF-1.4\n", 9);
		docs_submit(d, docs_page_new(NULL, &r));
		free(big);
		CHECK(docs_full(d) && docs_pending(d) == 1, "full by bytes with one page");
		p = docs_next_done(d, 1);
		CHECK(p && p->pdf.fate == PDF_TOO_LARGE, "over parse.pdf_max_bytes: %s",
		      p ? pdf_fate_reason(p->pdf.fate) : "none");
		docs_page_free(p);
		CHECK(!docs_full(d), "room again");
	}
	/* a stop drops what waits; the one being read stays */
	pdfworker_stop();   /* the next worker is slow again */
	for (i = 0; i < 5; i++)
		docs_submit(d, page(20 + i));
	usleep(100000);   /* the thread took the first */
	n = (int)docs_cancel(d);
	CHECK(n == 4 && docs_pending(d) == 1, "cancel: %d dropped, %zu pending", n,
	      docs_pending(d));
	p = docs_next_done(d, 1);
	CHECK(p && number_of(p) == 20, "the one being read comes back: %d", p ? number_of(p) : -1);
	docs_page_free(p);
	CHECK(docs_next_done(d, 1) == NULL, "none else");
	/* closing with pages pending reads them first, then frees them (a new,
	 * slow, worker: the thread is idle, so it may be stopped here) */
	pdfworker_stop();
	docs_submit(d, page(7));
	docs_submit(d, page(8));
	t0 = clock_mono_us();
	docs_close(&d);
	CHECK(d == NULL && clock_mono_us() - t0 >= 300000, "close waited for the pending");
	pdfworker_stop();
}

int main(int argc, char **argv)
{
	struct job j;

	if (argc > 1 && !strcmp(argv[1], PDFWORKER_COMMAND))
		return slow_worker(argc - 1, argv + 1);
	memset(&j, 0, sizeof(j));
	config_defaults(&j.cfg);
	test_wants(&j);
	test_empty();
	test_apart(&j);
	TEST_DONE();
}

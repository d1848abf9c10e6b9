/*
 * pdfcost.c - what reading a PDF costs beside an HTML page (issue 37;
 * docs/PERFORMANCE.md, "PDFs"), one core, CPU time:
 *
 *   pdfcost pdf FILE...    per PDF: poppler's reading in this process
 *                          (pdf_extract, what the worker runs, with the
 *                          defaults' caps), then the rank's side (the page
 *                          made of it: links, languages, digest); the
 *                          same through a real worker (pdfworker_parse:
 *                          the bytes over its socket and back)
 *   pdfcost html FILE...   per HTML page: html_extract, what parse_html
 *                          runs on a page without Content-Encoding
 *   pdfcost start          a worker's start and first tiny PDF, 20 times
 *
 * Each measurement is repeated until it has run for 1 s. Prints one line
 * per file: "name bytes pages cpu_ms_extract cpu_ms_page cpu_ms_worker".
 * Build: as bench/run.sh builds micro (build_tool pdfcost).
 */
#include "parse/doc.h"
#include "parse/html.h"
#include "parse/pdf.h"
#include "parse/pdfworker.h"
#include "url/url.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(b, tmp, n);
	fclose(f);
	return 0;
}

static const struct pdf_limits lim = { 2000, 20971520, 5000 };

static void one_pdf(const char *path)
{
	struct pdfworker_opts o = { lim, 30, 33554432 };
	double t0, t1, extract, page, worker;
	struct buf b;
	unsigned n, pages = 0;

	buf_init(&b);
	if (slurp(path, &b))
		return;
	for (n = 0, t0 = cpu(); !n || cpu() - t0 < 1.0; n++) {
		struct pdf_doc d;

		pdf_doc_init(&d);
		pdf_extract(b.p, b.len, &lim, &d);
		pages = d.pages_read;
		pdf_doc_release(&d);
	}
	extract = (cpu() - t0) / n;
	{
		struct pdf_doc d;

		pdf_doc_init(&d);
		pdf_extract(b.p, b.len, &lim, &d);
		for (n = 0, t0 = cpu(); !n || cpu() - t0 < 1.0; n++) {
			struct html_page p;

			doc_pdf_page(&d, "https://a.test/x.pdf", 5000, &p);
			html_page_release(&p);
		}
		page = (cpu() - t0) / n;
		pdf_doc_release(&d);
	}
	/* through the worker: its CPU is another process's, so wall time on
	 * an idle core */
	for (n = 0, t1 = wall(); !n || wall() - t1 < 1.0; n++) {
		struct pdf_doc d;

		pdf_doc_init(&d);
		pdfworker_parse(&o, b.p, b.len, &d);
		pdf_doc_release(&d);
	}
	worker = (wall() - t1) / n;
	printf("%s %zu %u %.3f %.3f %.3f\n", path, b.len, pages, extract * 1000, page * 1000,
	       worker * 1000);
	buf_release(&b);
}

static void one_html(const char *path)
{
	struct buf b;
	double t0;
	unsigned n;

	buf_init(&b);
	if (slurp(path, &b))
		return;
	for (n = 0, t0 = cpu(); !n || cpu() - t0 < 0.2; n++) {
		struct html_page p;

		if (html_extract(b.p, b.len, NULL, "https://a.test/x.html", "mpicrawl", 5000, &p) ==
		    CR_OK)
			html_page_release(&p);
	}
	printf("%s %zu 1 %.3f\n", path, b.len, (cpu() - t0) / n * 1000);
	buf_release(&b);
}

int main(int argc, char **argv)
{
	struct url_rules r;
	int i;

	if (argc > 1 && !strcmp(argv[1], PDFWORKER_COMMAND))
		return pdfworker_main(argc - 1, argv + 1);
	url_rules_default(&r);
	url_set_rules(&r);
	if (argc > 1 && !strcmp(argv[1], "start")) {
		static const char tiny[] = "%PDF-1.4\ntrailer << >>\n%%EOF\n";
		struct pdfworker_opts o = { lim, 30, 33554432 };
		double t0 = wall();

		for (i = 0; i < 20; i++) {
			struct pdf_doc d;

			pdf_doc_init(&d);
			pdfworker_parse(&o, tiny, sizeof(tiny) - 1, &d);
			pdf_doc_release(&d);
			pdfworker_stop();
		}
		printf("start %.3f ms\n", (wall() - t0) / 20 * 1000);
		return 0;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[1], "pdf"))
			one_pdf(argv[i]);
		else
			one_html(argv[i]);
	}
	pdfworker_stop();
	return 0;
}

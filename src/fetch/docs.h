/*
 * docs.h - the PDFs the fetcher reads out of its loop. A PDF is read by the
 * rank's worker process (parse/pdfworker.h), which may take up to
 * parse.pdf_timeout_s; the loop must not wait that long - every other
 * transfer of the rank, and politeness's timing, would wait with it. So a
 * fetched PDF goes to a thread of its own here, which asks the worker,
 * while the loop goes on; the loop takes the answer back when the thread's
 * descriptor (docs_fd) is readable and finishes the page then: its
 * exchange archived (so that its text follows it in the WARC series and
 * the staged index, as every page's does), parse record, text, links
 * followed, outcome. What politeness makes of the response was decided
 * when it came.
 *
 * Bounds: once DOCS_PENDING PDFs, or DOCS_BYTES of them, wait or are read
 * (docs_full), the loop starts no request until one is done; the PDFs of
 * requests already open still come here (their head and body copied), so
 * what waits is bounded by those and fetch.max_connections - what the open
 * transfers held anyway - whatever the web serves, and the loop never
 * waits for a PDF.
 * A page whose PDF is pending has nothing archived or journaled yet: a job
 * killed meanwhile fetches it again on resume.
 *
 * Life: docs_open (the thread starts), docs_submit..., docs_next_done...,
 * docs_close once nothing is pending. One loop thread calls all of these;
 * nothing here is collective.
 */
#ifndef CR_FETCH_DOCS_H
#define CR_FETCH_DOCS_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "fetch/http.h"
#include "parse/pdf.h"
#include "util/buf.h"
#include "util/error.h"

#define DOCS_PENDING 64
#define DOCS_BYTES (64u << 20)

struct host_item;

/* A page whose PDF is read apart: its response, copied. */
struct docs_page {
	struct host_item *it;      /* borrowed: the host table outlives the loop */
	struct http_result r;      /* the response; its bytes and strings in store */
	struct buf store;
	struct pdf_doc pdf;        /* the worker's answer, once done */
	struct docs_page *next;
};

struct docs;

/* Starts the thread. j is borrowed until docs_close. */
CR_WUR enum cr_err docs_open(const struct job *j, struct docs **out);
/* Joins the thread; what is still pending is read first. NULL-safe. */
void docs_close(struct docs **d);

/* A page of the response r whose PDF is to be read: copies r (r->user is
 * kept as it is). NULL when out of memory. */
struct docs_page *docs_page_new(struct host_item *it, const struct http_result *r);
void docs_page_free(struct docs_page *p);

/* Hands p to the thread (takes ownership). */
void docs_submit(struct docs *d, struct docs_page *p);
/* 1 when DOCS_PENDING pages, or DOCS_BYTES of theirs, are pending. */
int docs_full(const struct docs *d);
size_t docs_pending(const struct docs *d);
/* Drops the pages not yet begun (freed, with no outcome: fetched again);
 * returns how many. The one being read, and those done, stay. */
size_t docs_cancel(struct docs *d);
/* A descriptor readable while a page is done (for the loop's poll). */
int docs_fd(const struct docs *d);
/* A page whose PDF was read (the caller owns it), in the order they were
 * submitted; NULL when none is done - or, with wait, none is pending (else
 * it waits for the next). */
struct docs_page *docs_next_done(struct docs *d, int wait);

#endif

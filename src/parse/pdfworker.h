/*
 * pdfworker.h - PDFs parsed out of the rank's process.
 *
 * A PDF is hostile input read by a large C++ library (pdf.h). A rank never
 * reads one itself: it hands the bytes to its PDF worker, a process of its
 * own - the mpicrawl binary run again (exec, never a bare fork of an MPI
 * process) as "mpicrawl pdf-worker MEM_BYTES" - and waits for the answer.
 * The worker runs under limits set on itself before it reads anything:
 * RLIMIT_AS (MEM_BYTES of address space), RLIMIT_FSIZE 0 (it writes no
 * file), RLIMIT_CORE 0, and per document RLIMIT_CPU (its CPU time so far
 * plus parse.pdf_timeout_s: SIGXCPU ends it); the rank adds a wall-clock
 * deadline of twice that plus a second, and kills the worker past it. Every
 * descriptor but its socket and stderr (/dev/null) is closed, so it holds
 * none of the rank's sockets or files. (An AddressSanitizer build's worker
 * goes without RLIMIT_AS: ASan reserves terabytes for its shadow.)
 *
 * A worker that aborts with its address space at a quarter of its limit or more
 * (an allocation refused: poppler's "Out of memory", operator new's
 * std::bad_alloc) answers pdf:memory from its SIGABRT handler, then dies.
 *
 * A crash, hang or memory blow-up thus costs one document, whose fate says
 * why (pdf:crash, pdf:timeout, pdf:memory), never the rank: the worker is
 * started again for the next PDF. One worker per process, started at the
 * first PDF; pdfworker_stop (also at exit) ends it.
 *
 * The protocol, over one Unix stream socket (the worker's stdin and
 * stdout), little-endian:
 *
 *   request  "MPDQ" u32 version(1) u32 max_pages u32 max_links
 *            u64 max_text u32 timeout_s u32 reserved u64 len, len bytes
 *   reply    "MPDR" u64 len, len bytes: pdfworker_reply_pack
 *
 * The packing of both sides is pure and checked against its caps on
 * reading (a worker that went astray answers garbage, a fate of its own:
 * pdf:crash); tests/fuzz/fuzz_pdfworker.c drives it.
 */
#ifndef CR_PARSE_PDFWORKER_H
#define CR_PARSE_PDFWORKER_H

#include <stddef.h>
#include <stdint.h>

#include "parse/pdf.h"
#include "util/buf.h"
#include "util/error.h"

/* The hidden subcommand that runs the worker (cli/main.c). */
#define PDFWORKER_COMMAND "pdf-worker"
#define PDFWORKER_REQUEST_HEAD 40
#define PDFWORKER_REPLY_HEAD 12
/* The largest document a worker takes, whatever parse.pdf_max_bytes says. */
#define PDFWORKER_MAX_INPUT (1ull << 31)
/* A worker's address space: poppler's own needs (about 100 MiB mapped
 * before it reads a byte) and the document's, several times over. */
#define PDFWORKER_MEM_BASE (512ull << 20)

/* What one request asks. */
struct pdfworker_request {
	struct pdf_limits lim;
	uint32_t timeout_s;     /* CPU seconds the document may take */
	uint64_t len;           /* bytes of PDF that follow */
};

/* The request's head, PDFWORKER_REQUEST_HEAD bytes, appended to out. */
void pdfworker_request_pack(const struct pdfworker_request *r, struct buf *out);
/* Reads a request's head (n bytes, at least PDFWORKER_REQUEST_HEAD).
 * CR_ERR_FORMAT if it is not one, or asks past the caps (len over
 * PDFWORKER_MAX_INPUT, no page, no text). Pure. */
CR_WUR enum cr_err pdfworker_request_unpack(const void *p, size_t n,
					    struct pdfworker_request *r);

/* The reply to d, head and body, appended to out. */
void pdfworker_reply_pack(const struct pdf_doc *d, struct buf *out);
/* The body length a reply's head announces (n >= PDFWORKER_REPLY_HEAD);
 * CR_ERR_FORMAT if it is not a reply's head or announces more than
 * pdfworker_reply_cap(lim). Pure. */
CR_WUR enum cr_err pdfworker_reply_head(const void *p, size_t n, const struct pdf_limits *lim,
					uint64_t *len);
/* The most bytes a reply within lim's caps has. */
uint64_t pdfworker_reply_cap(const struct pdf_limits *lim);
/* Reads a reply's body into d (initialised by the caller; on failure it
 * may hold part of it: release it). CR_ERR_FORMAT if it is damaged, has
 * bytes left over, or passes lim's caps. Pure. */
CR_WUR enum cr_err pdfworker_reply_unpack(const void *p, size_t n, const struct pdf_limits *lim,
					  struct pdf_doc *d);

/* The fate of a worker that died (a wait status) before it answered: a
 * timeout (SIGXCPU, or killed by us at the deadline: killed), memory (a
 * signal, its peak resident set at least a quarter of mem_bytes), else a
 * crash.
 * Pure. */
enum pdf_fate pdfworker_death(int wstatus, int killed, uint64_t maxrss_bytes,
			      uint64_t mem_bytes);

/* How the rank's worker is asked. */
struct pdfworker_opts {
	struct pdf_limits lim;
	uint32_t timeout_s;
	uint64_t max_bytes;     /* parse.pdf_max_bytes: a larger PDF is PDF_TOO_LARGE */
};

/*
 * Parses data[0..len) (borrowed for the call) in the worker into out
 * (initialised by the caller): out->fate says what became of it. Starts
 * the worker if there is none; a worker that failed is ended and reaped
 * here, and the next call starts another. Blocks its caller until the
 * answer or the deadline (the fetcher calls it from a thread of its own,
 * fetch/docs.h, so that its loop goes on). Not thread-safe: one caller at
 * a time per process.
 */
void pdfworker_parse(const struct pdfworker_opts *o, const void *data, size_t len,
		     struct pdf_doc *out);
/* Workers started and workers that died or were killed since the process
 * began (the parse counters). */
void pdfworker_counts(uint64_t *started, uint64_t *lost);
/* Ends the worker, if any: closes its socket and reaps it. */
void pdfworker_stop(void);

/*
 * The worker: "mpicrawl pdf-worker MEM_BYTES" (argv[0] "pdf-worker").
 * Sets its limits, then answers requests on stdin/stdout until the socket
 * closes. Returns the process's exit code.
 */
int pdfworker_main(int argc, char **argv);

#endif

/*
 * progfile.h - a rank's progress file (segments/N/progress/rRRRR), the
 * live state of its fetch phase: what `mpicrawl status`, rank 0's
 * progress line and DIR/metrics.prom are made from.
 *
 * Lines of text, "key value ...", so that an operator can read one with
 * cat; the last line is "end" and the XXH64 of every byte before it, so
 * that a file cut short or damaged is told from a whole one. Each rank
 * rewrites its own file about once a second, through a temporary name and
 * a rename (never edited in place): a reader sees one whole version or
 * the one before. docs/FORMATS.md, "Progress files", is the reference.
 *
 * Encoding and decoding are pure: no I/O, no clock.
 */
#ifndef CR_STATUS_PROGFILE_H
#define CR_STATUS_PROGFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

#define PROGFILE_VERSION 1
/* The slowest hosts a file names, at most. */
#define PROGFILE_TOP 10
/* A host name as written: DNS names are shorter. */
#define PROGFILE_HOST_MAX 256
/* A whole file, at most: larger is damaged. */
#define PROGFILE_BYTES_MAX 16384

/* What the rank's outcomes and requests failed of, by class. error counts
 * every outcome of status error: dns and tls are among them. */
enum progfile_fail {
	PF_ERROR,        /* status error: 5xx, 429, connection, DNS, TLS */
	PF_TIMEOUT,
	PF_DNS,          /* DNS queries that failed */
	PF_TLS,          /* pages whose certificate or handshake failed */
	PF_GONE,         /* 4xx */
	PF_DENIED,       /* robots.txt */
	PF_BLOCKED,      /* non-public address, operator rule */
	PF_DEFERRED,     /* robots.txt unreachable, Crawl-delay too long */
	PF_TOO_LARGE,
	PF_TRUNCATED,
	PF_COUNT_
};

extern const char *const progfile_fail_names[PF_COUNT_];

struct progfile_host {
	char name[PROGFILE_HOST_MAX];
	uint64_t queue;           /* URLs not started yet */
	int64_t need_ms;          /* what politeness still needs for them, at least */
};

struct progfile {
	int rank, ranks;          /* the writer, of the job's ranks */
	int seg;
	char phase[16];           /* "fetch" */
	int final;                /* the rank's loop has ended (written last) */
	int64_t time_us;          /* wall clock of the write, µs */
	int64_t elapsed_us;       /* since the rank's phase began */
	uint64_t fetchlist;       /* URLs of its fetch lists (finished ones included) */
	uint64_t urls;            /* ... and those that joined in the round */
	uint64_t done;            /* URLs with an outcome */
	uint64_t kept;            /* ... of them, finished by an earlier attempt
				     (a resumed fetch: not done at this rate) */
	uint64_t requests;        /* HTTP requests completed, robots.txt included */
	uint64_t bytes;           /* body bytes received */
	uint64_t recent_requests; /* requests over the last recent_us */
	int64_t recent_us;
	uint64_t fail[PF_COUNT_];
	uint64_t hosts_active, hosts_parked, hosts_held;
	int ntop;                 /* slowest hosts, slowest first */
	struct progfile_host top[PROGFILE_TOP];
};

/* Appends p's file to out. */
void progfile_encode(const struct progfile *p, struct buf *out);
/* Reads a file's bytes into *p. CR_ERR_FORMAT: not a whole progress file
 * (cut short, damaged, another format); *why (may be NULL) then says
 * what, as a static string. Unknown keys are skipped (later versions). */
CR_WUR enum cr_err progfile_decode(const void *data, size_t n, struct progfile *p,
				   const char **why);

/* Adds a host to top (ntop entries, slowest first, at most k): kept if it
 * needs more time than the least kept one (ties: the longer queue, then
 * the name). Pure. */
void progfile_top_add(struct progfile_host *top, int *ntop, int k, const char *name,
		      uint64_t queue, int64_t need_ms);

#endif

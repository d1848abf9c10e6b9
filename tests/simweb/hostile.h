/*
 * hostile.h - simweb's hostile quarter (--hostile): hosts xNNNN.D whose
 * answers attack a crawler (slow drips, stalls, endless and lying bodies,
 * compression bombs, redirect loops and escapes, link traps, parser and
 * header bombs, resets, flapping errors) and the names whose DNS fails.
 *
 * Like web.h, a pure model: every byte is a function of the web's options,
 * the path and, for the flapping page, how many times it was asked before;
 * nothing here touches sockets or the clock. The server sends what
 * hostile_respond describes (bytes at once, then shared segments, paced or
 * not, then an end: keep, close or reset). The large bodies are built once by
 * hostile_new and shared by every connection, so a connection costs no more
 * memory than a normal one. README.md's "Hostile quarter" is the contract.
 */
#ifndef SIMWEB_HOSTILE_H
#define SIMWEB_HOSTILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "web.h"

#define HOSTILE_BUF_MAX 8192u      /* what is sent at once: head and a small body */
#define HOSTILE_SEGS 6u            /* shared segments after it */
#define HOSTILE_REDIRECTS_MAX 100u /* --max-redirects: 1 .. this */
#define HOSTILE_COUNTERS 1u        /* answers that depend on earlier requests */

enum hostile_end {
	HOSTILE_KEEP,    /* the response is complete: the connection goes on */
	HOSTILE_CLOSE,   /* FIN after the last byte (and the hold) */
	HOSTILE_RESET,   /* RST after the last byte and the hold (SO_LINGER 0) */
};

/* len bytes at p, times times in a row; p is owned by struct hostile. */
struct hostile_seg {
	const char *p;
	size_t len;
	uint64_t times;
};

struct hostile_response {
	int status;                       /* for the request log */
	size_t len;
	char buf[HOSTILE_BUF_MAX];        /* sent first, at once */
	struct hostile_seg seg[HOSTILE_SEGS];
	unsigned nseg;
	unsigned drip_ms;                 /* > 0: from byte drip_from of the response on
					     (buf, then the segments), one byte every drip_ms */
	size_t drip_from;
	unsigned hold_ms;                 /* after the last byte, wait this long */
	enum hostile_end end;
};

struct hostile;

/* Builds the shared bodies (about 7 MB) for w. Returns NULL when out of memory. */
struct hostile *hostile_new(const struct web *w);
void hostile_free(struct hostile *q);

/* Is host (lower case, no port) a host of the quarter? Writes its index. */
int hostile_find_host(const struct web *w, const char *host, unsigned *idx);

/*
 * The counter (in [0, HOSTILE_COUNTERS)) the server keeps for requests of
 * path on quarter host idx, or -1 when the answer does not depend on them.
 */
long hostile_counter(unsigned idx, const char *path);

/*
 * The answer to GET or HEAD (answered alike) of path on quarter host idx,
 * when attempt requests of its counter were answered before. q is borrowed;
 * r's segments point into q and stay valid until hostile_free(q).
 */
void hostile_respond(const struct hostile *q, const struct web *w, unsigned idx,
		     const char *path, unsigned long attempt, struct hostile_response *r);

/* Writes the quarter's links (one paragraph) for h0000's home page into out. */
size_t hostile_home_links(const struct web *w, char *out, size_t cap);

/*
 * The truth lines of the quarter, "URL\thostile\tEXPECTED", sorted bytewise:
 * *lines gets a malloc'd array of malloc'd strings (without newlines) the
 * caller frees. Returns 0, or -1 out of memory.
 */
int hostile_truth(const struct web *w, char ***lines, size_t *n);

#endif

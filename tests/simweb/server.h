/*
 * server.h - simweb's HTTP/1.1 server: one epoll loop on one thread.
 *
 * Serves the web of a struct web on a loopback socket with keep-alive and
 * pipelining (requests on one connection are answered strictly in order, one
 * at a time), and writes one request-log line per response once its last
 * byte has been handed to the kernel. Owns its sockets and the log file.
 *
 * With --clock-file the server runs on a simulated clock, so a crawl of
 * weeks of a --changing web (changing.h) takes minutes: its now is the real
 * time plus the offset in seconds the file holds (one integer; missing,
 * unreadable or bad: 0). The file is stat'ed once per request, when the
 * request starts, and re-read when its mtime, size or inode changed (write
 * it to a temporary name and rename it). Every time of the log, the Date
 * header and the version a --changing page is served at are on this clock.
 */
#ifndef SIMWEB_SERVER_H
#define SIMWEB_SERVER_H

#include "web.h"

#define SRV_CONN_MAX 4096       /* open connections; more are closed on accept */
#define SRV_REQ_MAX 16384       /* request head + body bytes buffered */
#define SRV_TARGET_MAX 2048     /* request-target length */
#define SRV_HOST_MAX 255        /* Host header value length */
#define SRV_BODY_IN_MAX 4096    /* request body we skip over */
#define SRV_IDLE_MS 30000       /* connections without progress are closed */

struct srv_opts {
	const char *bind;        /* numeric IPv4 or IPv6 address */
	unsigned port;           /* 0: any free port */
	const char *port_file;   /* NULL or where to write the bound port */
	const char *log_path;    /* NULL or the request log (appended to) */
	const char *clock_file;  /* NULL or --clock-file: the simulated clock */
};

/*
 * Binds, sets w->port to the bound port, writes the port file and serves
 * until SIGTERM or SIGINT. w is borrowed for the whole call. Returns 0 after a
 * clean stop (the log flushed), -1 after a one-line message on stderr.
 */
int srv_run(struct web *w, const struct srv_opts *o);

#endif

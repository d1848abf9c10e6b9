/*
 * http.h - HTTP transfers over libcurl's multi interface: the only file of
 * the program that includes <curl/curl.h>.
 *
 * A struct http_client runs the transfers of one fetch phase. The fetcher
 * starts a request when politeness lets it (http_start), waits for sockets
 * - its own (c-ares') beside libcurl's - in http_poll, lets libcurl work in
 * http_run, and takes each finished transfer from http_next_done. What a
 * transfer brought back is plain data (struct http_result: our transport
 * result, never a CURLcode; the bytes of the request head, the last
 * response head and the body), so that what it *means* is decided by the
 * pure classifier in outcome.h, testable without libcurl.
 *
 * What this layer enforces, whatever the server does: the body cap (the
 * rest is not read: HTTP_CUT), the response head cap, the time limits, the
 * protocols (http and https only), the address policy on the socket
 * actually connected to (addr.h: HTTP_ADDR_REFUSED), and the address our
 * DNS resolved (CURLOPT_RESOLVE: libcurl never resolves a host we resolved).
 * Redirects are never followed here: each hop is a request of its own.
 *
 * HTTPS verifies the server's certificate and name against the system's
 * trust store or tls.ca_file; a refusal is a failure with a reason of
 * tls.h's ("tls:expired", ...), a failed handshake "tls:handshake". TLS
 * sessions are shared by the client's transfers, so a host's next
 * connection resumes the last one's. HTTP/2 is negotiated by ALPN
 * (http.version auto); a host's requests then share one connection, as
 * many streams as the fetcher starts (politeness bounds them).
 *
 * Nothing here is collective. One client per thread.
 */
#ifndef CR_FETCH_HTTP_H
#define CR_FETCH_HTTP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "util/addr.h"
#include "util/error.h"

/* http.version, in the order of its words. */
enum http_version { HTTP_VERSION_AUTO = 0, HTTP_VERSION_1_1 = 1, HTTP_VERSION_2 = 2 };

/* What every request of a phase shares (from the config, fetch.* keys). */
struct http_opts {
	const char *user_agent;
	const char *accept_encoding;   /* http.accept_encoding; "" or NULL: none sent */
	const char *from;              /* http.from; "" or NULL: none sent */
	long connect_timeout_s, timeout_s;
	long low_speed_bytes, low_speed_time_s;
	long max_body_bytes;       /* the rest of a body is not read */
	long max_header_bytes;     /* of the response head */
	long max_host_connections, max_connections;
	int allow_private;         /* fetch.allow_private */
	const struct addr_list *allow;   /* fetch.allow_addresses; borrowed */
	enum http_version version;       /* http.version */
	int tls_verify;                  /* tls.verify */
	const void *ca_pem;              /* tls.ca_file's bytes (PEM), copied; NULL: */
	size_t ca_pem_len;               /* the system's store */
};

struct http_request {
	const char *url;
	const char *host;          /* the host name our DNS resolved ... */
	const char *addr;          /* ... to these numeric addresses (dns.h's answer) */
	int64_t if_modified_since_s;   /* seconds since the epoch; 0: none */
	int ims_is_last_modified;  /* 1: that date is the last answer's Last-Modified
				      (sent beside an ETag); 0: the time of the last
				      fetch that brought the copy */
	void *user;                /* handed back with the result */
	int kind;                  /* the caller's, handed back too */
	int plain;                 /* no Accept-Encoding (a robots.txt) */
	const char *etag;          /* If-None-Match: the last answer's ETag; NULL:
				      none (http_conditions says which go together) */
};

/*
 * A refetch's conditions, as header lines ("" when not sent), pure:
 *
 *  - If-None-Match with the last answer's ETag, when it had one;
 *  - If-Modified-Since with rq->if_modified_since_s as an IMF-fixdate:
 *    the last answer's Last-Modified (to the second), or without one the
 *    time of the last fetch that brought the copy. RFC 9110 13.2.2 has a
 *    server that checks the ETag ignore the date, but nginx requires every
 *    condition sent to hold and compares the date with its file's exactly
 *    (if_modified_since exact, its default): beside an ETag only a
 *    Last-Modified is sent, never a time of the crawler's clock.
 */
#define HTTP_COND_MAX (CRAWL_ETAG_MAX + 32)
void http_conditions(const struct http_request *rq, char inm[HTTP_COND_MAX],
		     char ims[HTTP_COND_MAX]);

/* How a transfer ended, whatever the HTTP status said. */
enum http_transport {
	HTTP_DONE,            /* a whole response (of any status) */
	HTTP_CUT,             /* the body reached max_body_bytes: the rest was not read */
	HTTP_TIMEOUT,         /* connect, whole-transfer or low-speed limit */
	HTTP_HEAD_TOO_LARGE,  /* max_header_bytes, or libcurl's 100 KB per header line */
	HTTP_ADDR_REFUSED,    /* the address connected to is not allowed (addr.h) */
	HTTP_FAILED,          /* refused, reset, unreadable response, ... (see error) */
};

/* A finished transfer; every pointer is borrowed until http_release. */
struct http_result {
	enum http_transport transport;
	long status;               /* of the last response; 0 if none */
	const unsigned char *req;  /* the request head sent */
	size_t req_len;
	const unsigned char *head; /* the last response head, status line to blank line */
	size_t head_len;
	const unsigned char *body; /* as sent (no Content-Encoding undone) */
	size_t body_len;
	const char *error;         /* why it failed, or "": the same on every run */
	const char *detail;        /* the same with its particulars (times, ports), or "" */
	const char *ip;            /* the address that answered, or "" */
	int port;                  /* ... and its port, or 0 */
	int silent;                /* the server went silent: no connection (but a
				      refused one), or a timeout - the site's failure
				      or the network's (fetch/netwatch.h) */
	const char *protocol;      /* "http/1.1", "http/1.0", "h2", "h2c", or "" (none) */
	const char *tls;           /* "tls/1.3", ... (tls.h), or "" (plain http) */
	const char *cipher;        /* the TLS cipher suite's IANA name, or "" */
	const char *url;           /* the URL asked */
	int64_t start_wall_us, start_mono_us, end_mono_us;
	void *user;
	int kind;
};

struct http_client;

/* o is copied (allow stays borrowed). */
CR_WUR enum cr_err http_client_new(const struct http_opts *o, struct http_client **out);
/* Abandons open transfers; frees *c; accepts NULL. */
void http_client_free(struct http_client **c);

/* Starts rq now (strings copied). CR_ERR_LIB if libcurl refuses it. */
CR_WUR enum cr_err http_start(struct http_client *c, const struct http_request *rq);
/* Transfers started and not yet handed back by http_next_done. */
int http_active(const struct http_client *c);

/* Waits at most timeout_ms for libcurl's sockets or the n extra ones
 * (their revents are set). */
void http_poll(struct http_client *c, struct pollfd *extra, unsigned n, int timeout_ms);
/* Lets libcurl read and write what is ready. */
void http_run(struct http_client *c);
/* The next finished transfer, or NULL; borrowed until http_release. */
const struct http_result *http_next_done(struct http_client *c);
void http_release(struct http_client *c, const struct http_result *r);
/*
 * Abandons every open transfer (a time limit, a stop): calls fn with each
 * one's user and kind first. They are not handed back by http_next_done.
 */
void http_abandon_all(struct http_client *c, void (*fn)(void *arg, void *user, int kind),
		      void *arg);

#endif

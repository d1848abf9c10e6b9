/*
 * http.c - http.h over libcurl: easy handles in one multi handle, their
 * callbacks, and the translation of libcurl's results into ours.
 */
#include "fetch/http.h"
#include "crawldb/crawl_record.h"
#include "fetch/tls.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <curl/curl.h>

/* The request head we keep for the WARC (ours: a few hundred bytes). */
#define REQ_HEAD_MAX (256u << 10)
/* Bodies larger than this are not kept in a spare transfer's buffer. */
#define SPARE_BODY_MAX (1u << 20)
#define EXTRA_FDS_MAX 16
/* libcurl's receive buffer per transfer (CURLOPT_BUFFERSIZE). */
#define HTTP_RECV_BUFFER (64L << 10)

struct xfer {
	CURL *easy;
	struct http_client *c;
	struct http_result res;
	struct buf req, head, body;
	char *url;
	int cut, head_too_big, addr_refused;
	char errbuf[CURL_ERROR_SIZE];
	char tls[16], cipher[80];
	struct curl_slist *resolve;
	struct curl_slist *hdrs;    /* the request's own headers (If-Modified-Since), or NULL */
	struct xfer *prev, *next;   /* open transfers, or the spares */
};

struct http_client {
	struct http_opts o;
	struct curl_slist *headers; /* of page requests: From, Accept-Encoding; or NULL */
	struct curl_slist *plain_headers;   /* of robots.txt requests: From, or NULL */
	CURLM *multi;
	CURLSH *share;              /* TLS sessions (sessions(), not owned) */
	struct buf ca;              /* the trusted CAs, PEM (o.ca_pem); empty: the system's */
	struct xfer *open;          /* started, not finished */
	struct xfer *spare;         /* released, kept for reuse */
	int active;                 /* started and not handed back */
};

static void unlink_open(struct http_client *c, struct xfer *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		c->open = x->next;
	if (x->next)
		x->next->prev = x->prev;
	x->prev = x->next = NULL;
}

/* ---- callbacks ---- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb, max = (size_t)x->c->o.max_body_bytes;

	if (x->body.len + n > max) {
		buf_add(&x->body, data, max - x->body.len);
		x->cut = 1;
		return 0;   /* ends the transfer: the cap is a status, not an error */
	}
	buf_add(&x->body, data, n);
	return n;
}

/* The TLS version and cipher suite of the connection: asked while the
 * transfer has it (libcurl lets go of it when the transfer ends). */
static void tls_info(struct xfer *x)
{
	struct curl_tlssessioninfo *ti = NULL;

	x->tls[0] = x->cipher[0] = '\0';
	if (curl_easy_getinfo(x->easy, CURLINFO_TLS_SSL_PTR, &ti) == CURLE_OK && ti &&
	    ti->backend == CURLSSLBACKEND_OPENSSL)
		tls_describe(ti->internals, x->tls, sizeof(x->tls), x->cipher, sizeof(x->cipher));
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;

	/* A new status line starts a new response (after 1xx). */
	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {
		x->head.len = 0;
		tls_info(x);
	}
	if (x->head.len + n > (size_t)x->c->o.max_header_bytes) {
		x->head_too_big = 1;
		return 0;
	}
	buf_add(&x->head, data, n);
	return n;
}

static int on_debug(CURL *easy, curl_infotype type, char *data, size_t n, void *arg)
{
	struct xfer *x = arg;

	(void)easy;
	if (type == CURLINFO_HEADER_OUT) {
		x->req.len = 0;
		buf_add(&x->req, data, n < REQ_HEAD_MAX ? n : REQ_HEAD_MAX);
	}
	return 0;
}

/* The address actually connected to is checked here, after any DNS. */
static curl_socket_t on_opensocket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct xfer *x = arg;
	const struct http_opts *o = &x->c->o;

	(void)purpose;
	if (!o->allow_private && !addr_is_public(&a->addr) &&
	    !(o->allow && addr_list_has(o->allow, &a->addr))) {
		x->addr_refused = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

/* ---- transfers ---- */

static struct xfer *xfer_get(struct http_client *c)
{
	struct xfer *x = c->spare;

	if (x) {
		c->spare = x->next;
		curl_easy_reset(x->easy);
		x->req.len = x->head.len = x->body.len = 0;
		x->cut = x->head_too_big = x->addr_refused = 0;
		x->errbuf[0] = x->tls[0] = x->cipher[0] = '\0';
		x->prev = x->next = NULL;
		return x;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->easy = curl_easy_init();
	if (!x->easy) {
		free(x);
		return NULL;
	}
	x->c = c;
	buf_init(&x->req);
	buf_init(&x->head);
	buf_init(&x->body);
	return x;
}

static void xfer_destroy(struct xfer *x)
{
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->resolve);
	curl_slist_free_all(x->hdrs);
	buf_release(&x->req);
	buf_release(&x->head);
	buf_release(&x->body);
	free(x->url);
	free(x);
}

/* Back to the spares: the easy handle and buffers are reused. */
static void xfer_put(struct http_client *c, struct xfer *x)
{
	curl_slist_free_all(x->resolve);
	x->resolve = NULL;
	curl_slist_free_all(x->hdrs);
	x->hdrs = NULL;
	free(x->url);
	x->url = NULL;
	if (x->body.cap > SPARE_BODY_MAX)
		buf_release(&x->body);
	x->next = c->spare;
	c->spare = x;
}

/* addrs (dns.h's answer) as CURLOPT_RESOLVE wants them: IPv6 bracketed. */
static void resolve_addrs(const char *addrs, char *out, size_t cap)
{
	size_t o = 0;

	out[0] = '\0';
	while (*addrs && o < cap) {
		size_t n = strcspn(addrs, ",");
		int v6 = memchr(addrs, ':', n) != NULL;

		o += (size_t)snprintf(out + o, cap - o, "%s%s%.*s%s", o ? "," : "",
				      v6 ? "[" : "", (int)n, addrs, v6 ? "]" : "");
		addrs += n + (addrs[n] == ',');
	}
}

/* "host:port:addrs" entries for CURLOPT_RESOLVE: the URL's port, and the
 * other of 80 and 443, so that a robots.txt hop from http to https on the
 * same host (a request of its own) also uses our addresses. */
static struct curl_slist *resolve_list(const char *url, const char *host, const char *addr)
{
	char entry[URL_HOST_MAX + 256], auth[URL_HOST_MAX + 8], addrs[160];
	struct curl_slist *l, *l2;
	const char *colon;
	long p = !strncmp(url, "https:", 6) ? 443 : 80;

	if (url_authority(url, auth, sizeof(auth)) == CR_OK &&
	    (colon = strrchr(auth, ':')) != NULL && !strchr(colon, ']'))
		p = strtol(colon + 1, NULL, 10);
	resolve_addrs(addr, addrs, sizeof(addrs));
	snprintf(entry, sizeof(entry), "%s:%ld:%s", host, p, addrs);
	l = curl_slist_append(NULL, entry);
	if (!l)
		return NULL;
	snprintf(entry, sizeof(entry), "%s:%d:%s", host, p == 443 ? 80 : 443, addrs);
	l2 = curl_slist_append(l, entry);
	if (!l2)
		curl_slist_free_all(l);
	return l2;
}

static void set_options(struct xfer *x, const struct http_request *rq)
{
	const struct http_opts *o = &x->c->o;
	CURL *e = x->easy;

	curl_easy_setopt(e, CURLOPT_URL, rq->url);
	curl_easy_setopt(e, CURLOPT_RESOLVE, x->resolve);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_USERAGENT, o->user_agent);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, o->connect_timeout_s);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, o->timeout_s);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, o->low_speed_bytes);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, o->low_speed_time_s);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(e, CURLOPT_DEBUGDATA, x);
	curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, on_opensocket);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
			 o->version == HTTP_VERSION_1_1 ? (long)CURL_HTTP_VERSION_1_1
			 : o->version == HTTP_VERSION_2 ? (long)CURL_HTTP_VERSION_2_0
			 : (long)CURL_HTTP_VERSION_2TLS);
	/* A second request to a host waits to learn whether the first's
	 * connection multiplexes (h2) rather than opening another. */
	curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	/* libcurl 7.88.1 over HTTP/2 with its 16 KiB receive buffer now and
	 * then holds a stream's last bytes until the low-speed limit ends the
	 * transfer (docs/REAL_PAGES.md); with 64 KiB it was never seen. */
	curl_easy_setopt(e, CURLOPT_BUFFERSIZE, HTTP_RECV_BUFFER);
	curl_easy_setopt(e, CURLOPT_SHARE, x->c->share);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, o->tls_verify ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, o->tls_verify ? 2L : 0L);
	/* The bytes, not the file's name: in a job only rank 0's node may have
	 * the file (inputs/inputs.h). */
	if (x->c->ca.len) {
		struct curl_blob ca = { x->c->ca.p, x->c->ca.len, CURL_BLOB_NOCOPY };

		curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
	}
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->hdrs ? x->hdrs
				     : rq->plain ? x->c->plain_headers : x->c->headers);
}

void http_conditions(const struct http_request *rq, char inm[HTTP_COND_MAX],
		     char ims[HTTP_COND_MAX])
{
	time_t t = (time_t)rq->if_modified_since_s;
	int have_etag = rq->etag && rq->etag[0];
	struct tm tm;

	inm[0] = ims[0] = '\0';
	if (have_etag)
		snprintf(inm, HTTP_COND_MAX, "If-None-Match: %.*s", (int)CRAWL_ETAG_MAX, rq->etag);
	if (rq->if_modified_since_s > 0 && (!have_etag || rq->ims_is_last_modified) &&
	    (!gmtime_r(&t, &tm) ||
	     !strftime(ims, HTTP_COND_MAX, "If-Modified-Since: %a, %d %b %Y %H:%M:%S GMT", &tm)))
		ims[0] = '\0';
}

/* l with line appended; on failure, l is freed and NULL returned. */
static struct curl_slist *append_or_free(struct curl_slist *l, const char *line)
{
	struct curl_slist *n = curl_slist_append(l, line);

	if (!n)
		curl_slist_free_all(l);
	return n;
}

/*
 * The headers of a request that has conditions (http_conditions): the
 * client's, then those. Sent as headers of ours, not CURLOPT_TIMECONDITION:
 * libcurl answers a 200 whose Last-Modified is older than the condition as
 * a 304 it makes up, dropping the body the server sent - and the WARC would
 * keep a "server-not-modified" revisit of a 200. NULL: no conditions, or out
 * of memory (then none is sent).
 */
static struct curl_slist *request_headers(const struct http_client *c,
					  const struct http_request *rq)
{
	struct curl_slist *l = NULL, *h;
	char inm[HTTP_COND_MAX], ims[HTTP_COND_MAX];

	http_conditions(rq, inm, ims);
	if (!inm[0] && !ims[0])
		return NULL;
	for (h = rq->plain ? c->plain_headers : c->headers; h; h = h->next)
		if (!(l = append_or_free(l, h->data)))
			return NULL;
	if (inm[0] && !(l = append_or_free(l, inm)))
		return NULL;
	if (ims[0] && !(l = append_or_free(l, ims)))
		return NULL;
	return l;
}

enum cr_err http_start(struct http_client *c, const struct http_request *rq)
{
	struct xfer *x = xfer_get(c);
	int literal;

	if (!x)
		return CR_ERR_NOMEM;
	x->url = strdup(rq->url);
	/* An IPv6 literal needs no name resolved (and libcurl 7.88 cannot
	 * parse a "[::1]:port:addr" entry: it would fail the request). */
	literal = rq->host[0] == '[';
	x->resolve = literal ? NULL : resolve_list(rq->url, rq->host, rq->addr);
	x->hdrs = request_headers(c, rq);
	if (!x->url || (!x->resolve && !literal)) {
		xfer_put(c, x);
		return CR_ERR_NOMEM;
	}
	memset(&x->res, 0, sizeof(x->res));
	x->res.user = rq->user;
	x->res.kind = rq->kind;
	set_options(x, rq);
	x->res.start_wall_us = clock_now_us();
	x->res.start_mono_us = clock_mono_us();
	if (curl_multi_add_handle(c->multi, x->easy) != CURLM_OK) {
		xfer_put(c, x);
		return CR_ERR_LIB;
	}
	c->active++;
	x->next = c->open;
	if (c->open)
		c->open->prev = x;
	c->open = x;
	return CR_OK;
}

int http_active(const struct http_client *c)
{
	return c->active;
}

/* The HTTP version that answered, as WARC-Protocol names it. */
static const char *protocol_name(CURL *e, int tls)
{
	long v = 0;

	curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &v);
	switch (v) {
	case CURL_HTTP_VERSION_1_0: return "http/1.0";
	case CURL_HTTP_VERSION_1_1: return "http/1.1";
	case CURL_HTTP_VERSION_2_0: return tls ? "h2" : "h2c";
	case CURL_HTTP_VERSION_3:   return "h3";
	default:                    return "";
	}
}

/* Our reason for a TLS failure, or NULL when rc is not one. */
static const char *tls_reason(CURL *e, CURLcode rc)
{
	long v = 0;

	switch (rc) {
	case CURLE_PEER_FAILED_VERIFICATION:
		curl_easy_getinfo(e, CURLINFO_SSL_VERIFYRESULT, &v);
		return tls_verify_reason(v);
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ENGINE_INITFAILED:
		return "tls:handshake";
	case CURLE_SSL_CACERT_BADFILE:
		return "tls:ca-file";
	default:
		return NULL;
	}
}

/* The server went silent: no connection (a refused one is an answer), or
 * a timeout - before its first byte or after some, when a network fails
 * mid-transfer. */
static int silent(struct xfer *x, CURLcode rc)
{
	long err = 0;

	if (x->addr_refused)
		return 0;   /* our own refusal, not a silence */
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return 1;
	if (rc != CURLE_COULDNT_CONNECT || x->head.len)
		return 0;
	return curl_easy_getinfo(x->easy, CURLINFO_OS_ERRNO, &err) != CURLE_OK ||
	       err != ECONNREFUSED;
}

/* libcurl's result of a finished transfer, in our words. */
static void fill_result(struct xfer *x, CURLcode rc)
{
	struct http_result *r = &x->res;
	char *ip = NULL;
	const char *why;
	long port = 0;

	r->end_mono_us = clock_mono_us();
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &r->status);
	if (curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip) != CURLE_OK || !ip)
		ip = "";
	r->ip = ip;
	if (curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_PORT, &port) != CURLE_OK)
		port = 0;
	r->port = (int)port;
	r->silent = silent(x, rc);
	r->url = x->url;
	r->error = "";
	r->tls = x->tls;
	r->cipher = x->cipher;
	r->protocol = r->status > 0 ? protocol_name(x->easy, !strncmp(x->url, "https:", 6)) : "";
	if (x->cut)
		r->transport = HTTP_CUT;
	else if (x->addr_refused)
		r->transport = HTTP_ADDR_REFUSED;
	else if (x->head_too_big || rc == CURLE_OUT_OF_MEMORY)
		r->transport = HTTP_HEAD_TOO_LARGE;
	else if (rc == CURLE_OK)
		r->transport = HTTP_DONE;
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		r->transport = HTTP_TIMEOUT;
	else
		r->transport = HTTP_FAILED;
	/* The reason a page keeps is libcurl's name of the failure (or ours,
	 * for TLS), the same on every run; its message (with times and
	 * ports) is detail. */
	if (rc != CURLE_OK && r->transport != HTTP_CUT) {
		why = tls_reason(x->easy, rc);
		r->error = why ? why : curl_easy_strerror(rc);
		r->detail = x->errbuf[0] ? x->errbuf : r->error;
	} else {
		r->detail = "";
	}
	r->req = x->req.p;
	r->req_len = x->req.len;
	r->head = x->head.p;
	r->head_len = x->head.len;
	r->body = x->body.p;
	r->body_len = x->body.len;
}

const struct http_result *http_next_done(struct http_client *c)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(c->multi, &left)) != NULL) {
		struct xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		fill_result(x, m->data.result);
		curl_multi_remove_handle(c->multi, x->easy);
		unlink_open(c, x);
		c->active--;
		return &x->res;
	}
	return NULL;
}

void http_release(struct http_client *c, const struct http_result *r)
{
	struct xfer *x = (struct xfer *)((char *)r - offsetof(struct xfer, res));

	xfer_put(c, x);
}

void http_abandon_all(struct http_client *c, void (*fn)(void *arg, void *user, int kind),
		      void *arg)
{
	while (c->open) {
		struct xfer *x = c->open;

		if (fn)
			fn(arg, x->res.user, x->res.kind);
		curl_multi_remove_handle(c->multi, x->easy);
		unlink_open(c, x);
		c->active--;
		xfer_put(c, x);
	}
}

void http_poll(struct http_client *c, struct pollfd *extra, unsigned n, int timeout_ms)
{
	struct curl_waitfd w[EXTRA_FDS_MAX];
	unsigned i;

	if (n > EXTRA_FDS_MAX)
		n = EXTRA_FDS_MAX;
	for (i = 0; i < n; i++) {
		w[i].fd = extra[i].fd;
		w[i].events = (short)(((extra[i].events & POLLIN) ? CURL_WAIT_POLLIN : 0) |
				      ((extra[i].events & POLLOUT) ? CURL_WAIT_POLLOUT : 0));
		w[i].revents = 0;
	}
	curl_multi_poll(c->multi, w, n, timeout_ms, NULL);
	for (i = 0; i < n; i++)
		extra[i].revents = (short)(((w[i].revents & CURL_WAIT_POLLIN) ? POLLIN : 0) |
					   ((w[i].revents & CURL_WAIT_POLLPRI) ? POLLPRI : 0) |
					   ((w[i].revents & CURL_WAIT_POLLOUT) ? POLLOUT : 0));
}

void http_run(struct http_client *c)
{
	int running;

	curl_multi_perform(c->multi, &running);
}

/* ---- the client ---- */

/* TLS sessions, resumed across connections - and across fetch phases: a
 * crawl's rounds run in one process, so a host's connection of the next
 * round resumes the session of this one (an abbreviated handshake) while
 * the server keeps it. Made on first use, kept until the process ends. */
static CURLSH *sessions(void)
{
	static CURLSH *share;

	if (!share && (share = curl_share_init()) != NULL &&
	    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
		curl_share_cleanup(share);
		share = NULL;
	}
	return share;
}

/* The headers of every request: From (http.from), on robots.txt's too;
 * Accept-Encoding on the others. Asked for by a header of our own, not
 * CURLOPT_ACCEPT_ENCODING: libcurl then leaves the body as sent, which is
 * what the WARC keeps; the parser undoes the coding (parse/decode.h). */
static enum cr_err client_headers(struct http_client *c, const struct http_opts *o)
{
	char h[512];
	struct curl_slist *n;

	if (o->from && o->from[0]) {
		snprintf(h, sizeof(h), "From: %s", o->from);
		if (!(n = curl_slist_append(c->plain_headers, h)))
			return CR_ERR_NOMEM;
		c->plain_headers = n;
		if (!(n = curl_slist_append(c->headers, h)))
			return CR_ERR_NOMEM;
		c->headers = n;
	}
	if (o->accept_encoding && o->accept_encoding[0]) {
		snprintf(h, sizeof(h), "Accept-Encoding: %s", o->accept_encoding);
		if (!(n = curl_slist_append(c->headers, h)))
			return CR_ERR_NOMEM;
		c->headers = n;
	}
	return CR_OK;
}

enum cr_err http_client_new(const struct http_opts *o, struct http_client **out)
{
	struct http_client *c = calloc(1, sizeof(*c));

	if (!c)
		return CR_ERR_NOMEM;
	c->o = *o;
	buf_init(&c->ca);
	if (o->ca_pem)
		buf_add(&c->ca, o->ca_pem, o->ca_pem_len);
	c->multi = curl_multi_init();
	c->share = sessions();
	if (!c->multi || !c->share) {
		if (c->multi)
			curl_multi_cleanup(c->multi);
		buf_release(&c->ca);
		free(c);
		return CR_ERR_LIB;
	}
	if (!o->tls_verify)
		log_warn("http", "tls.verify = false: server certificates and names are not "
			 "checked; an HTTPS page may come from anyone");
	if (client_headers(c, o) != CR_OK) {
		curl_slist_free_all(c->headers);
		curl_slist_free_all(c->plain_headers);
		curl_multi_cleanup(c->multi);
		buf_release(&c->ca);
		free(c);
		return CR_ERR_NOMEM;
	}
	curl_multi_setopt(c->multi, CURLMOPT_MAX_HOST_CONNECTIONS, o->max_host_connections);
	curl_multi_setopt(c->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, o->max_connections);
	/* The fetcher starts no more than a host's in-flight cap at once; a
	 * multiplexed connection never carries more. */
	curl_multi_setopt(c->multi, CURLMOPT_MAX_CONCURRENT_STREAMS,
			  o->max_host_connections > 0 ? o->max_host_connections : 1L);
	*out = c;
	return CR_OK;
}

void http_client_free(struct http_client **cp)
{
	struct http_client *c = *cp;

	if (!c)
		return;
	http_abandon_all(c, NULL, NULL);
	while (c->spare) {
		struct xfer *x = c->spare;

		c->spare = x->next;
		xfer_destroy(x);
	}
	curl_multi_cleanup(c->multi);
	curl_slist_free_all(c->headers);
	curl_slist_free_all(c->plain_headers);
	buf_release(&c->ca);
	free(c);
	*cp = NULL;
}

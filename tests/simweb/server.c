/*
 * server.c - the epoll loop, HTTP/1.1 framing and the request log.
 *
 * A connection is in one of three states: reading (EPOLLIN, no response in
 * flight), waiting (a response queued but not due yet: --latency-ms and the
 * slow hosts of --politeness, on the timers of the epoll loop; or never due:
 * the robots.txt that is never answered; only the peer's close is watched)
 * or writing (EPOLLOUT, one response in flight). Pipelined requests
 * wait in the read buffer until the response before them is sent, which
 * keeps responses in order, bounds the write buffer to one response, and
 * gives each request a clean start time for the log: the read of its first
 * byte, or the end of the previous response when it was already waiting.
 *
 * A response of the hostile quarter (--hostile) is sent from its own plan:
 * wbuf, then segments of shared bytes, at once or one byte per drip period
 * (a timer, as for the delays), then a hold (a timer), then its end: keep
 * the connection, close it or reset it. A burst cap keeps one fast reader of
 * a big body from holding the loop, and a connection in a drip or a hold is
 * closed as soon as its peer closes, so none of it blocks other connections
 * or costs more memory than a normal response.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "changing.h"
#include "hostile.h"
#include "server.h"

#define SRV_RESP_MAX (WEB_BODY_MAX + 1024)
#define SRV_EVENTS 64
#define SRV_TICK_MS 100
#define SRV_NEVER LLONG_MAX
#define SRV_BURST (1u << 20)    /* hostile bytes sent to one connection per turn */
#define SRV_OFFSET_MAX 3155760000LL   /* --clock-file offsets: 100 years either way */

_Static_assert(HOSTILE_BUF_MAX <= WEB_BODY_MAX + 1024, "a hostile head fits wbuf");

struct srv_conn {
	int fd;
	unsigned long long id;
	struct srv_conn *prev, *next;
	uint32_t events;        /* current epoll interest */
	int eof;                /* the peer sent FIN */
	int closing;            /* close once the response in flight is sent */
	long long t_first;      /* us when the next request's first byte was read; 0: none yet */
	long long t_active;     /* monotonic ms of the last progress, for the idle timeout */
	long long due_us;       /* monotonic us when the queued response may go; 0: now;
				   SRV_NEVER: never (the request is not answered) */
	size_t rlen, wlen, woff;
	char *xbody;            /* body bytes sent after wbuf (a big body), owned */
	size_t xlen, xoff;
	/* a hostile response in flight: wbuf, then seg[], paced, held, ended */
	int hostile;
	int reset;              /* close with RST (SO_LINGER 0), not FIN */
	int held;               /* the hold after the last byte has begun */
	enum hostile_end hend;
	struct hostile_seg seg[HOSTILE_SEGS];
	unsigned nseg, iseg;
	uint64_t seg_off;       /* bytes of seg[iseg], all repeats, sent */
	uint64_t hsent;         /* bytes of the response sent */
	size_t drip_from;
	unsigned drip_ms, hold_ms;
	/* the response in flight, for its log line */
	long long t_start;
	long long last_modified;   /* unix s of its Last-Modified header; < 0: none */
	int status;
	int disallowed;
	char host[SRV_HOST_MAX + 1];
	char path[SRV_TARGET_MAX + 1];
	char rbuf[SRV_REQ_MAX];
	char wbuf[SRV_RESP_MAX];
};

struct srv {
	struct web *w;
	int lfd, ep;
	int accept_paused;      /* out of fds: listener muted until the next tick */
	FILE *log;
	int log_dirty;
	unsigned long long next_id;
	unsigned nconns;
	struct srv_conn *conns;
	unsigned nwaiting;      /* connections with due_us set */
	unsigned char *counts;  /* requests seen per web_counter(), saturating */
	struct hostile *hq;     /* --hostile: the quarter's shared bodies */
	unsigned long hcounts[HOSTILE_COUNTERS];   /* requests per hostile_counter() */
	struct hostile_response hresp;
	char head[SRV_REQ_MAX + 1];   /* scratch copy of one request head */
	struct web_response resp;
};

static volatile sig_atomic_t srv_stop;

static void srv_on_signal(int sig)
{
	(void)sig;
	srv_stop = 1;
}

/*
 * --clock-file: the simulated clock is the real one plus the file's offset.
 * One server per process, on one thread: the state is the file's.
 */
static struct {
	const char *path;       /* NULL: no offset, ever */
	long long offset_us;
	int seen;               /* the last stat succeeded: its fields are below */
	struct timespec mtim;
	off_t size;
	ino_t ino;
} srv_clock;

/* The server's now: every time of the log and of a page's version. */
static long long srv_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + srv_clock.offset_us;
}

/* The offset in the clock file: one integer of seconds; 0 when unreadable or bad. */
static long long srv_clock_read(const char *path)
{
	char buf[64], *end;
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	long long v;

	if (f)
		fclose(f);
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (end == buf || *end || errno || v > SRV_OFFSET_MAX || v < -SRV_OFFSET_MAX)
		return 0;
	return v * 1000000;
}

/* Re-reads the clock file when it changed (mtime, size or inode). */
static void srv_clock_poll(void)
{
	struct stat st;

	if (!srv_clock.path)
		return;
	if (stat(srv_clock.path, &st) < 0) {
		srv_clock.seen = 0;
		srv_clock.offset_us = 0;
		return;
	}
	if (srv_clock.seen && st.st_mtim.tv_sec == srv_clock.mtim.tv_sec &&
	    st.st_mtim.tv_nsec == srv_clock.mtim.tv_nsec && st.st_size == srv_clock.size &&
	    st.st_ino == srv_clock.ino)
		return;
	srv_clock.seen = 1;
	srv_clock.mtim = st.st_mtim;
	srv_clock.size = st.st_size;
	srv_clock.ino = st.st_ino;
	srv_clock.offset_us = srv_clock_read(srv_clock.path);
}

/* A request's t_start: the one time per request the clock file is looked at. */
static long long srv_start_us(void)
{
	srv_clock_poll();
	return srv_now_us();
}

static long long srv_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long srv_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static const char *srv_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 301: return "Moved Permanently";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Unknown";
	}
}

/*
 * Puts one complete response into c->wbuf; bodies are capped by the model,
 * except big, a malloc'd body that c takes over and sends after wbuf.
 */
static void srv_queue(struct srv_conn *c, int status, const char *type, const char *location,
		      unsigned retry_after, const char *body, char *big, size_t len,
		      int head_only)
{
	char date[64], retry[48] = "", modified[80] = "";
	struct tm tm;
	time_t now = (time_t)(srv_now_us() / 1000000);
	int n;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (retry_after)
		snprintf(retry, sizeof(retry), "Retry-After: %u\r\n", retry_after);
	if (c->last_modified >= 0) {
		time_t lm = (time_t)c->last_modified;

		gmtime_r(&lm, &tm);
		strftime(modified, sizeof(modified),
			 "Last-Modified: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
	}
	n = snprintf(c->wbuf, sizeof(c->wbuf),
		     "HTTP/1.1 %d %s\r\nServer: simweb\r\nDate: %s\r\n"
		     "Content-Type: %s\r\nContent-Length: %zu\r\n%s%s%s%s%s%s%s\r\n",
		     status, srv_reason(status), date, type, len, modified,
		     location[0] ? "Location: " : "", location, location[0] ? "\r\n" : "",
		     retry, status == 405 ? "Allow: GET, HEAD\r\n" : "",
		     c->closing ? "Connection: close\r\n" : "");
	c->wlen = (size_t)n;
	if (big && !head_only) {
		c->xbody = big;
		c->xlen = len;
		c->xoff = 0;
	} else if (big) {
		free(big);
	} else if (!head_only && len <= sizeof(c->wbuf) - c->wlen) {
		memcpy(c->wbuf + c->wlen, body, len);
		c->wlen += len;
	}
	c->woff = 0;
	c->status = status;
}

/* Answers a request we will not serve; the fields parsed so far are logged. */
static int srv_error(struct srv_conn *c, int status, int close_conn)
{
	static const char body[] = "<!DOCTYPE html>\n<html><body><p>error</p></body></html>\n";

	if (close_conn) {
		c->closing = 1;
		c->rlen = 0;    /* framing is lost: drop whatever follows */
	}
	srv_queue(c, status, "text/html; charset=utf-8", "", 0, body, NULL, sizeof(body) - 1, 0);
	return 1;
}

/* Queues the answer of quarter host idx to c->path (GET and HEAD alike). */
static void srv_queue_hostile(struct srv *s, struct srv_conn *c, unsigned idx)
{
	struct hostile_response *r = &s->hresp;
	long counter = hostile_counter(idx, c->path);
	unsigned long attempt = 0;

	if (counter >= 0)
		attempt = s->hcounts[counter]++;
	hostile_respond(s->hq, s->w, idx, c->path, attempt, r);
	memcpy(c->wbuf, r->buf, r->len);
	c->wlen = r->len;
	c->woff = 0;
	memcpy(c->seg, r->seg, sizeof(c->seg));
	c->nseg = r->nseg;
	c->iseg = 0;
	c->seg_off = c->hsent = 0;
	c->drip_from = r->drip_from;
	c->drip_ms = r->drip_ms;
	c->hold_ms = r->hold_ms;
	c->hend = r->end;
	c->held = 0;
	c->hostile = 1;
	c->status = r->status;
	if (s->w->latency_ms) {
		c->due_us = srv_mono_us() + (long long)s->w->latency_ms * 1000;
		s->nwaiting++;
	}
}

/* Does the comma-separated header value list contain token? */
static int srv_has_token(const char *v, const char *token)
{
	size_t tl = strlen(token);

	while (*v) {
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		if (strncasecmp(v, token, tl) == 0 &&
		    (v[tl] == '\0' || v[tl] == ',' || v[tl] == ' ' || v[tl] == '\t'))
			return 1;
		while (*v && *v != ',')
			v++;
	}
	return 0;
}

/* Lower-cases host and drops the port; -1 for characters a log cannot hold. */
static int srv_set_host(struct srv_conn *c, const char *v, size_t len)
{
	size_t i, end = len;

	if (len > SRV_HOST_MAX)
		return -1;
	if (len && v[0] == '[') {
		const char *rb = memchr(v, ']', len);

		end = rb ? (size_t)(rb - v) + 1 : len;
	} else {
		const char *colon = memchr(v, ':', len);

		if (colon)
			end = (size_t)(colon - v);
	}
	for (i = 0; i < end; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (ch <= ' ' || ch >= 0x7f)
			return -1;
		c->host[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
	}
	c->host[end] = '\0';
	if (end == 0)
		snprintf(c->host, sizeof(c->host), "-");
	return 0;
}

static char *srv_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/*
 * Takes one request off the front of c->rbuf and queues its response.
 * Returns 1 when a response is queued, 0 when more bytes are needed.
 */
static int srv_parse(struct srv *s, struct srv_conn *c)
{
	char *line, *next, *target, *version;
	size_t skip = 0, end = 0, clen = 0;
	int http10, keep, close_tok = 0, keep_tok = 0, have_host = 0, head_only, found;
	unsigned idx, attempt = 0;
	long counter = -1;

	/* RFC 9112 2.2: empty lines before a request line are ignored. */
	while (skip < c->rlen && (c->rbuf[skip] == '\r' || c->rbuf[skip] == '\n'))
		skip++;
	if (skip) {
		memmove(c->rbuf, c->rbuf + skip, c->rlen - skip);
		c->rlen -= skip;
		if (c->rlen == 0)
			c->t_first = 0;
	}
	for (size_t i = 0; i + 1 < c->rlen && !end; i++) {
		if (c->rbuf[i] != '\n')
			continue;
		if (c->rbuf[i + 1] == '\n')
			end = i + 2;
		else if (c->rbuf[i + 1] == '\r' && i + 2 < c->rlen && c->rbuf[i + 2] == '\n')
			end = i + 3;
	}
	c->t_start = c->t_first;
	c->disallowed = 0;
	c->last_modified = -1;
	snprintf(c->host, sizeof(c->host), "-");
	snprintf(c->path, sizeof(c->path), "-");
	if (!end)
		return c->rlen == SRV_REQ_MAX ? srv_error(c, 431, 1) : 0;

	/* Parse a copy, so a request still waiting for its body parses again later. */
	memcpy(s->head, c->rbuf, end);
	s->head[end] = '\0';
	line = s->head;
	next = strchr(line, '\n');
	*next++ = '\0';
	line = srv_trim(line);
	target = strchr(line, ' ');
	version = target ? strchr(target + 1, ' ') : NULL;
	if (!version || strchr(version + 1, ' '))
		return srv_error(c, 400, 1);
	*target++ = '\0';
	*version++ = '\0';
	if (strcmp(version, "HTTP/1.1") == 0)
		http10 = 0;
	else if (strcmp(version, "HTTP/1.0") == 0)
		http10 = 1;
	else
		return srv_error(c, strncmp(version, "HTTP/", 5) == 0 ? 505 : 400, 1);
	if (strlen(target) > SRV_TARGET_MAX)
		return srv_error(c, 414, 1);
	for (const char *p = target; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return srv_error(c, 400, 1);
	/* Absolute form (RFC 9112 3.2.2): its authority overrides Host. */
	if (strncasecmp(target, "http://", 7) == 0) {
		char *slash = strchr(target + 7, '/');
		size_t alen = slash ? (size_t)(slash - target - 7) : strlen(target + 7);

		if (srv_set_host(c, target + 7, alen) < 0)
			return srv_error(c, 400, 1);
		have_host = 2;
		target = slash ? slash : "/";
	}
	if (target[0] != '/')
		return srv_error(c, 400, 1);
	snprintf(c->path, sizeof(c->path), "%s", target);

	for (line = next; line && *line; line = next) {
		char *colon, *v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line = srv_trim(line);
		if (!*line)
			break;
		colon = strchr(line, ':');
		if (!colon)
			return srv_error(c, 400, 1);
		*colon = '\0';
		v = srv_trim(colon + 1);
		if (strcasecmp(line, "host") == 0) {
			if (have_host == 1)
				return srv_error(c, 400, 1);
			if (have_host == 0 && srv_set_host(c, v, strlen(v)) < 0)
				return srv_error(c, 400, 1);
			if (have_host == 0)
				have_host = 1;
		} else if (strcasecmp(line, "connection") == 0) {
			close_tok |= srv_has_token(v, "close");
			keep_tok |= srv_has_token(v, "keep-alive");
		} else if (strcasecmp(line, "content-length") == 0) {
			char *e;
			unsigned long long n = strtoull(v, &e, 10);

			if (*v < '0' || *v > '9' || *e)
				return srv_error(c, 400, 1);
			if (n > SRV_BODY_IN_MAX)
				return srv_error(c, 413, 1);
			clen = (size_t)n;
		} else if (strcasecmp(line, "transfer-encoding") == 0) {
			return srv_error(c, 501, 1);
		}
	}
	if (!have_host && !http10)
		return srv_error(c, 400, 1);
	if (end + clen > SRV_REQ_MAX)
		return srv_error(c, 413, 1);
	if (end + clen > c->rlen)
		return 0;
	memmove(c->rbuf, c->rbuf + end + clen, c->rlen - end - clen);
	c->rlen -= end + clen;

	keep = http10 ? keep_tok && !close_tok : !close_tok;
	if (!keep) {
		c->closing = 1;
		c->rlen = 0;
	}
	found = web_find_host(s->w, c->host, &idx) == 0;
	if (found)
		c->disallowed = web_disallowed(s->w, idx, c->path);
	head_only = strcmp(s->head, "HEAD") == 0;
	if (!head_only && strcmp(s->head, "GET") != 0)
		return srv_error(c, 405, 0);
	if (found && s->counts)
		counter = web_counter(s->w, idx, c->path);
	if (counter >= 0) {
		attempt = s->counts[counter];
		if (s->counts[counter] < UCHAR_MAX)
			s->counts[counter]++;
	}
	if (s->hq && hostile_find_host(s->w, c->host, &idx) == 0) {
		srv_queue_hostile(s, c, idx);
		return 1;
	}
	if (s->w->changing)
		changing_respond(s->w, c->host, c->path, c->t_start, &s->resp);
	else
		web_respond(s->w, c->host, c->path, attempt, &s->resp);
	c->last_modified = s->resp.last_modified;
	if (s->resp.status == 0) {
		/* Never answered: the connection waits until the peer or the idle
		 * timeout closes it, and srv_close logs the request then. */
		c->wlen = c->woff = 0;
		c->status = 0;
		c->due_us = SRV_NEVER;
		s->nwaiting++;
		return 1;
	}
	srv_queue(c, s->resp.status, s->resp.type, s->resp.location, s->resp.retry_after,
		  s->resp.body, s->resp.big, s->resp.len, head_only);
	if (s->resp.latency_ms) {
		c->due_us = srv_mono_us() + (long long)s->resp.latency_ms * 1000;
		s->nwaiting++;
	}
	return 1;
}

static void srv_want(struct srv *s, struct srv_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->events == events)
		return;
	c->events = events;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void srv_log(struct srv *s, struct srv_conn *c);

static void srv_close(struct srv *s, struct srv_conn *c)
{
	char sink[4096];

	/* A request kept waiting (latency, or never answered) was not answered:
	 * it is logged with status 0; a hostile response cut short (by the
	 * peer, its bound or its reset) with its own status, if a byte went. */
	if (c->hostile) {
		if (c->hsent == 0)
			c->status = 0;
		srv_log(s, c);
	} else if (c->due_us) {
		c->status = 0;
		srv_log(s, c);
	}
	if (c->due_us)
		s->nwaiting--;
	free(c->xbody);

	/*
	 * Unread bytes at close() make the kernel send RST, which can destroy
	 * the response (a 431, a reply to "Connection: close") before the
	 * client reads it: send FIN first and drain what already arrived.
	 * Unless RST is the point (/reset.html).
	 */
	if (c->reset) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	} else {
		shutdown(c->fd, SHUT_WR);
		for (int i = 0; i < 16 && recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
			;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	close(c->fd);   /* also removes it from the epoll set */
	s->nconns--;
	free(c);
}

/* Reads what the socket has; returns -1 when the connection is broken. */
static int srv_read(struct srv_conn *c)
{
	while (c->rlen < sizeof(c->rbuf)) {
		ssize_t n = recv(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen, 0);

		if (n > 0) {
			if (c->rlen == 0 && c->t_first == 0)
				c->t_first = srv_start_us();
			c->rlen += (size_t)n;
		} else if (n == 0) {
			c->eof = 1;
			return 0;
		} else if (errno == EINTR) {
			continue;
		} else {
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
	}
	return 0;
}

static void srv_log(struct srv *s, struct srv_conn *c)
{
	if (!s->log)
		return;
	fprintf(s->log, "%lld\t%lld\t%s\t%s\t%d\t%llu\t%s\n", c->t_start, srv_now_us(),
		c->host, c->path, c->status, c->id, c->disallowed ? "disallowed" : "-");
	s->log_dirty = 1;
}

/* Are bytes of the hostile response in flight left to send? */
static int srv_hostile_more(const struct srv_conn *c)
{
	if (c->woff < c->wlen)
		return 1;
	for (unsigned i = c->iseg; i < c->nseg; i++)
		if (c->seg[i].len * c->seg[i].times > (i == c->iseg ? c->seg_off : 0))
			return 1;
	return 0;
}

/*
 * Sends what the hostile response in flight may send now. Returns 1 when
 * it is all sent and held, 0 when it waits (for EPOLLOUT, or a timer set in
 * c->due_us), -1 when the connection broke.
 */
static int srv_send_hostile(struct srv *s, struct srv_conn *c)
{
	size_t budget = SRV_BURST;

	while (srv_hostile_more(c)) {
		const char *p;
		size_t n;
		ssize_t k;
		int in_wbuf = c->woff < c->wlen, drip;

		if (in_wbuf) {
			p = c->wbuf + c->woff;
			n = c->wlen - c->woff;
		} else {
			const struct hostile_seg *g = &c->seg[c->iseg];
			size_t in;

			if (g->len == 0 || c->seg_off >= g->len * g->times) {
				c->iseg++;
				c->seg_off = 0;
				continue;
			}
			in = (size_t)(c->seg_off % g->len);
			p = g->p + in;
			n = g->len - in;
		}
		drip = c->drip_ms && c->hsent >= c->drip_from;
		if (drip)
			n = 1;
		else if (c->drip_ms && c->hsent + n > c->drip_from)
			n = (size_t)(c->drip_from - c->hsent);
		if (budget == 0) {
			/* Level-triggered: back at once, after the others had their turn. */
			srv_want(s, c, EPOLLOUT);
			return 0;
		}
		if (n > budget)
			n = budget;
		k = send(c->fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			srv_want(s, c, EPOLLOUT);
			return 0;
		}
		if (k <= 0)
			return -1;
		if (in_wbuf)
			c->woff += (size_t)k;
		else
			c->seg_off += (uint64_t)k;
		c->hsent += (uint64_t)k;
		budget -= (size_t)k;
		if (drip && srv_hostile_more(c)) {
			c->due_us = srv_mono_us() + (long long)c->drip_ms * 1000;
			s->nwaiting++;
			return 0;
		}
	}
	if (c->hold_ms && !c->held) {
		c->held = 1;
		c->due_us = srv_mono_us() + (long long)c->hold_ms * 1000;
		s->nwaiting++;
		return 0;
	}
	return 1;
}

/* Moves c as far as it goes without blocking: send, log, next request. */
static void srv_advance(struct srv *s, struct srv_conn *c)
{
	for (;;) {
		if (c->due_us) {
			/* Only the peer closing is of interest until the response is due. */
			srv_want(s, c, c->eof ? 0 : EPOLLRDHUP);
			return;
		}
		if (c->hostile) {
			int rc = srv_send_hostile(s, c);

			if (rc < 0) {
				srv_close(s, c);
				return;
			}
			if (rc == 0) {
				if (c->due_us)
					srv_want(s, c, c->eof ? 0 : EPOLLRDHUP);
				return;
			}
			srv_log(s, c);
			c->hostile = 0;
			c->wlen = c->woff = 0;
			if (c->hend != HOSTILE_KEEP || c->closing) {
				c->reset = c->hend == HOSTILE_RESET;
				srv_close(s, c);
				return;
			}
			c->t_first = c->rlen ? srv_start_us() : 0;
		}
		while (c->woff < c->wlen) {
			ssize_t n = send(c->fd, c->wbuf + c->woff, c->wlen - c->woff, MSG_NOSIGNAL);

			if (n > 0) {
				c->woff += (size_t)n;
			} else if (n < 0 && errno == EINTR) {
				continue;
			} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				srv_want(s, c, EPOLLOUT);
				return;
			} else {
				srv_close(s, c);
				return;
			}
		}
		while (c->xoff < c->xlen) {
			ssize_t n = send(c->fd, c->xbody + c->xoff, c->xlen - c->xoff,
					 MSG_NOSIGNAL);

			if (n > 0) {
				c->xoff += (size_t)n;
			} else if (n < 0 && errno == EINTR) {
				continue;
			} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				srv_want(s, c, EPOLLOUT);
				return;
			} else {
				srv_close(s, c);
				return;
			}
		}
		if (c->wlen) {
			srv_log(s, c);
			free(c->xbody);
			c->xbody = NULL;
			c->xlen = c->xoff = 0;
			c->wlen = c->woff = 0;
			if (c->closing) {
				srv_close(s, c);
				return;
			}
			/* A pipelined request starts when the one before it ends. */
			c->t_first = c->rlen ? srv_start_us() : 0;
		}
		if (!srv_parse(s, c)) {
			if (c->eof) {
				srv_close(s, c);
				return;
			}
			srv_want(s, c, EPOLLIN);
			return;
		}
	}
}

static void srv_accept(struct srv *s)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct srv_conn *c;
		int one = 1;
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
				/* Level-triggered: mute the listener or the loop spins. */
				ev.events = 0;
				epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev);
				s->accept_paused = 1;
			}
			return;
		}
		c = s->nconns < SRV_CONN_MAX ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->fd = fd;
		c->id = ++s->next_id;
		c->events = EPOLLIN;
		c->t_active = srv_mono_ms();
		ev.data.ptr = c;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		s->nconns++;
	}
}

static int srv_listen(struct srv *s, const struct srv_opts *o)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int one = 1;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, o->bind, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)o->port);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, o->bind, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)o->port);
		len = sizeof(*in6);
	} else {
		fprintf(stderr, "simweb: --bind '%s' is not a numeric address\n", o->bind);
		return -1;
	}
	s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s->lfd, (struct sockaddr *)&ss, len) < 0 || listen(s->lfd, SOMAXCONN) < 0 ||
	    getsockname(s->lfd, (struct sockaddr *)&ss, &len) < 0) {
		fprintf(stderr, "simweb: cannot listen on %s port %u: %s\n", o->bind, o->port,
			strerror(errno));
		return -1;
	}
	s->w->port = ntohs(ss.ss_family == AF_INET ? in4->sin_port : in6->sin6_port);
	return 0;
}

/* Written to a temporary name and renamed, so a reader never sees half of it. */
static int srv_port_file(const char *path, unsigned port)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "simweb: cannot write --port-file '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void srv_tick(struct srv *s, long long now)
{
	struct srv_conn *c, *next;

	if (s->accept_paused) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

		epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev);
		s->accept_paused = 0;
	}
	for (c = s->conns; c; c = next) {
		next = c->next;
		/* A hostile drip or hold has its own bound. */
		if (now - c->t_active > SRV_IDLE_MS && !(c->hostile && c->due_us))
			srv_close(s, c);
	}
}

/* epoll_wait's timeout: the tick, or sooner when a delayed response is due. */
static int srv_timeout(const struct srv *s)
{
	long long now, ms, best = SRV_TICK_MS;

	if (!s->nwaiting)
		return SRV_TICK_MS;
	now = srv_mono_us();
	for (const struct srv_conn *c = s->conns; c; c = c->next) {
		if (!c->due_us || c->due_us == SRV_NEVER)
			continue;
		ms = (c->due_us - now + 999) / 1000;   /* never early */
		if (ms < best)
			best = ms < 0 ? 0 : ms;
	}
	return (int)best;
}

/* Sends the delayed responses that are due. */
static void srv_timers(struct srv *s, long long now_ms)
{
	long long now = srv_mono_us();
	struct srv_conn *c, *next;

	for (c = s->conns; c; c = next) {
		next = c->next;
		if (!c->due_us || c->due_us == SRV_NEVER || c->due_us > now)
			continue;
		c->due_us = 0;
		s->nwaiting--;
		c->t_active = now_ms;
		srv_advance(s, c);
	}
}

int srv_run(struct web *w, const struct srv_opts *o)
{
	struct srv s = { .w = w, .lfd = -1, .ep = -1 };
	struct epoll_event evs[SRV_EVENTS], lev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sigaction sa;
	struct rlimit rl;
	long long last_tick = srv_mono_ms();
	int rc = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = srv_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Hundreds of clients at once need more than the usual 1024 fds. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < SRV_CONN_MAX + 64) {
		rl.rlim_cur = rl.rlim_max < SRV_CONN_MAX + 64 ? rl.rlim_max : SRV_CONN_MAX + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	srv_clock.path = o->clock_file;
	srv_clock_poll();
	if (o->log_path) {
		s.log = fopen(o->log_path, "a");
		if (!s.log) {
			fprintf(stderr, "simweb: cannot open --log '%s': %s\n", o->log_path,
				strerror(errno));
			return -1;
		}
	}
	if (web_counters(w)) {
		s.counts = calloc(web_counters(w), 1);
		if (!s.counts) {
			fprintf(stderr, "simweb: out of memory\n");
			goto out;
		}
	}
	if (srv_listen(&s, o) < 0)
		goto out;
	if (w->hostile && !(s.hq = hostile_new(w))) {
		fprintf(stderr, "simweb: out of memory for the hostile quarter\n");
		goto out;
	}
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (s.ep < 0 || epoll_ctl(s.ep, EPOLL_CTL_ADD, s.lfd, &lev) < 0) {
		fprintf(stderr, "simweb: epoll: %s\n", strerror(errno));
		goto out;
	}
	if (o->port_file && srv_port_file(o->port_file, w->port) < 0)
		goto out;
	while (!srv_stop) {
		int n = epoll_wait(s.ep, evs, SRV_EVENTS, srv_timeout(&s));
		long long now;

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "simweb: epoll_wait: %s\n", strerror(errno));
			goto out;
		}
		now = srv_mono_ms();
		/* Each connection appears once per batch and closes only itself. */
		for (int i = 0; i < n; i++) {
			struct srv_conn *c = evs[i].data.ptr;

			if (!c) {
				srv_accept(&s);
				continue;
			}
			c->t_active = now;
			if (evs[i].events & EPOLLERR) {
				srv_close(&s, c);
				continue;
			}
			if (c->due_us) {
				/* The peer closed while its response waits. */
				if (c->due_us == SRV_NEVER || c->hostile ||
				    (evs[i].events & EPOLLHUP)) {
					srv_close(&s, c);
				} else {
					c->eof = 1;
					srv_want(&s, c, 0);
				}
				continue;
			}
			if (c->events == EPOLLIN && (evs[i].events & (EPOLLIN | EPOLLHUP)) &&
			    srv_read(c) < 0) {
				srv_close(&s, c);
				continue;
			}
			srv_advance(&s, c);
		}
		if (s.nwaiting)
			srv_timers(&s, now);
		if (s.log_dirty) {
			fflush(s.log);
			s.log_dirty = 0;
		}
		if (now - last_tick >= 1000) {
			srv_tick(&s, now);
			last_tick = now;
		}
	}
	rc = 0;
out:
	while (s.conns)
		srv_close(&s, s.conns);
	if (s.lfd >= 0)
		close(s.lfd);
	if (s.ep >= 0)
		close(s.ep);
	if (s.log && fclose(s.log) != 0)
		rc = -1;
	free(s.counts);
	hostile_free(s.hq);
	return rc;
}

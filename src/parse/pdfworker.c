#include "parse/pdfworker.h"
#include "util/log.h"
#include "util/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* AddressSanitizer reserves terabytes of address space for its shadow: a
 * sanitized build's worker goes without RLIMIT_AS (its CPU and file limits
 * stay). */
#if defined(__SANITIZE_ADDRESS__)
#define PDFWORKER_NO_AS_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PDFWORKER_NO_AS_LIMIT 1
#endif
#endif

/* ---- the protocol (pure) ---- */

void pdfworker_request_pack(const struct pdfworker_request *r, struct buf *out)
{
	buf_add(out, "MPDQ", 4);
	buf_put_u32le(out, 1);
	buf_put_u32le(out, r->lim.max_pages);
	buf_put_u32le(out, r->lim.max_links);
	buf_put_u64le(out, r->lim.max_text);
	buf_put_u32le(out, r->timeout_s);
	buf_put_u32le(out, 0);
	buf_put_u64le(out, r->len);
}

enum cr_err pdfworker_request_unpack(const void *p, size_t n, struct pdfworker_request *r)
{
	const unsigned char *b = p;
	struct pdfworker_request q;

	if (n < PDFWORKER_REQUEST_HEAD || memcmp(b, "MPDQ", 4) || buf_load_u32le(b + 4) != 1)
		return CR_ERR_FORMAT;
	q.lim.max_pages = buf_load_u32le(b + 8);
	q.lim.max_links = buf_load_u32le(b + 12);
	q.lim.max_text = (size_t)buf_load_u64le(b + 16);
	q.timeout_s = buf_load_u32le(b + 24);
	q.len = buf_load_u64le(b + 32);
	if (q.len > PDFWORKER_MAX_INPUT || !q.lim.max_pages || !q.lim.max_text ||
	    buf_load_u64le(b + 16) > PDFWORKER_MAX_INPUT || q.lim.max_links > 1000000)
		return CR_ERR_FORMAT;
	*r = q;
	return CR_OK;
}

void pdfworker_reply_pack(const struct pdf_doc *d, struct buf *out)
{
	size_t at = out->len, i;

	buf_add(out, "MPDR", 4);
	buf_put_u64le(out, 0);
	buf_put_u8(out, (uint8_t)d->fate);
	buf_put_u8(out, (uint8_t)((d->encrypted ? 1 : 0) | (d->text_cut ? 2 : 0)));
	buf_put_varint(out, d->pages);
	buf_put_varint(out, d->pages_read);
	buf_put_svarint(out, d->created);
	buf_put_svarint(out, d->modified);
	buf_put_str(out, d->version, strlen(d->version));
	for (i = 0; i < PDF_FIELDS_; i++) {
		buf_put_u8(out, d->field[i] != NULL);
		if (d->field[i])
			buf_put_str(out, d->field[i], strlen(d->field[i]));
	}
	buf_put_str(out, (const char *)d->text.p, d->text.len);
	buf_put_varint(out, d->nlinks);
	for (i = 0; i < d->nlinks; i++) {
		buf_put_str(out, d->links[i], strlen(d->links[i]));
		buf_put_str(out, d->anchors[i], strlen(d->anchors[i]));
	}
	/* the body's length into the head */
	{
		uint64_t len = out->len - at - PDFWORKER_REPLY_HEAD;
		unsigned k;

		for (k = 0; k < 8; k++)
			out->p[at + 4 + k] = (unsigned char)(len >> (8 * k));
	}
}

uint64_t pdfworker_reply_cap(const struct pdf_limits *lim)
{
	return 256 + (uint64_t)PDF_FIELDS_ * (PDF_FIELD_MAX + 16) + lim->max_text + 16 +
	       (uint64_t)lim->max_links * (PDF_URI_MAX + PDF_ANCHOR_MAX + 32);
}

enum cr_err pdfworker_reply_head(const void *p, size_t n, const struct pdf_limits *lim,
				 uint64_t *len)
{
	uint64_t l;

	if (n < PDFWORKER_REPLY_HEAD || memcmp(p, "MPDR", 4))
		return CR_ERR_FORMAT;
	l = buf_load_u64le((const unsigned char *)p + 4);
	if (l > pdfworker_reply_cap(lim))
		return CR_ERR_FORMAT;
	*len = l;
	return CR_OK;
}

/* A string of at most max bytes of valid UTF-8 without NUL; copied. */
static enum cr_err get_text(struct buf_reader *r, size_t max, char **out)
{
	const char *s;
	size_t n;

	if (buf_get_str(r, &s, &n) || n > max || memchr(s, '\0', n) || !utf8_valid(s, n, 0))
		return CR_ERR_FORMAT;
	if (!(*out = strndup(s, n)))
		abort();
	return CR_OK;
}

/* A date a reply may say (seconds since the epoch): within +-3,000 years,
 * so that its microseconds fit an int64. */
static int date_ok(int64_t v)
{
	return v >= -(INT64_C(100000000000)) && v <= INT64_C(100000000000);
}

enum cr_err pdfworker_reply_unpack(const void *p, size_t n, const struct pdf_limits *lim,
				   struct pdf_doc *d)
{
	struct buf_reader r;
	uint64_t pages, read, nlinks, i;
	uint8_t fate, flags, has;
	const char *s;
	size_t sn;

	buf_reader_init(&r, p, n);
	if (buf_get_u8(&r, &fate) || fate >= PDF_FATES_ || buf_get_u8(&r, &flags) || flags > 3 ||
	    buf_get_varint(&r, &pages) || pages > UINT32_MAX || buf_get_varint(&r, &read) ||
	    read > pages || read > lim->max_pages || buf_get_svarint(&r, &d->created) ||
	    buf_get_svarint(&r, &d->modified) || buf_get_str(&r, &s, &sn) ||
	    sn >= sizeof(d->version) || !date_ok(d->created) || !date_ok(d->modified))
		return CR_ERR_FORMAT;
	d->fate = (enum pdf_fate)fate;
	d->encrypted = flags & 1;
	d->text_cut = (flags & 2) != 0;
	d->pages = (uint32_t)pages;
	d->pages_read = (uint32_t)read;
	memcpy(d->version, s, sn);
	d->version[sn] = '\0';
	if (strspn(d->version, "0123456789.") != sn)
		return CR_ERR_FORMAT;
	for (i = 0; i < PDF_FIELDS_; i++) {
		if (buf_get_u8(&r, &has) || has > 1)
			return CR_ERR_FORMAT;
		if (has && get_text(&r, PDF_FIELD_MAX, &d->field[i]))
			return CR_ERR_FORMAT;
	}
	if (buf_get_str(&r, &s, &sn) || sn > lim->max_text || !utf8_valid(s, sn, 0))
		return CR_ERR_FORMAT;
	d->text.len = 0;
	buf_add(&d->text, s, sn);
	if (buf_get_varint(&r, &nlinks) || nlinks > lim->max_links)
		return CR_ERR_FORMAT;
	for (i = 0; i < nlinks; i++) {
		const char *a;
		size_t an;

		if (buf_get_str(&r, &s, &sn) || buf_get_str(&r, &a, &an) || an > PDF_ANCHOR_MAX ||
		    !pdf_doc_add_link(d, s, sn, a, an, lim->max_links))
			return CR_ERR_FORMAT;
	}
	return r.off == r.len ? CR_OK : CR_ERR_FORMAT;
}

enum pdf_fate pdfworker_death(int wstatus, int killed, uint64_t maxrss_bytes,
			      uint64_t mem_bytes)
{
	if (killed || (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGXCPU))
		return PDF_TIMEOUT;
	if (WIFSIGNALED(wstatus) && maxrss_bytes >= mem_bytes / 4)
		return PDF_MEMORY;
	return PDF_CRASH;
}

/* ---- the worker ---- */

/* Reads n bytes; 0 at a clean end of input before the first. */
static int read_all(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (char *)p + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return got ? -1 : 0;
		got += (size_t)k;
	}
	return 1;
}

static int write_all(int fd, const void *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = write(fd, (const char *)p + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

/* The CPU time the worker may spend on its next document: what it has
 * spent so far plus timeout_s. */
static void cpu_budget(uint32_t timeout_s)
{
	struct rusage ru;
	struct rlimit rl;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return;
	rl.rlim_cur = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1 + timeout_s);
	rl.rlim_max = RLIM_INFINITY;
	setrlimit(RLIMIT_CPU, &rl);
}

static void limit(int what, rlim_t v)
{
	struct rlimit rl = { v, v };

	setrlimit(what, &rl);
}

/* What the worker answers when poppler aborts at its address-space limit
 * (operator new's std::bad_alloc, or poppler's own "Out of memory", both
 * end in abort()): packed before any document, written by the handler. */
static unsigned char oom_reply[64];
static size_t oom_len;
static uint64_t oom_limit;

/* SIGABRT: with the address space at a quarter of the limit or more (a
 * worker starts with some 85 MiB mapped, the limit is at least 512 MiB),
 * the abort was an allocation refused - the answer says pdf:memory before the worker
 * dies of the signal as it would have. Only async-signal-safe calls. */
static void on_abort(int sig)
{
	char b[64];
	int fd = open("/proc/self/statm", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;
	uint64_t pages = 0;
	ssize_t i;

	if (fd >= 0)
		close(fd);
	for (i = 0; i < n && b[i] >= '0' && b[i] <= '9'; i++)
		pages = pages * 10 + (uint64_t)(b[i] - '0');
	if (pages * (uint64_t)sysconf(_SC_PAGESIZE) >= oom_limit / 4 &&
	    write(1, oom_reply, oom_len) < 0)
		pages = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void oom_ready(uint64_t mem)
{
	struct pdf_doc d;
	struct buf b;

	pdf_doc_init(&d);
	d.fate = PDF_MEMORY;
	buf_init(&b);
	pdfworker_reply_pack(&d, &b);
	if (b.len <= sizeof(oom_reply)) {
		memcpy(oom_reply, b.p, b.len);
		oom_len = b.len;
		oom_limit = mem;
		signal(SIGABRT, on_abort);
	}
	buf_release(&b);
	pdf_doc_release(&d);
}

int pdfworker_main(int argc, char **argv)
{
	unsigned char head[PDFWORKER_REQUEST_HEAD];
	unsigned long long mem;
	struct pdfworker_request q;
	struct buf out;
	char *end;
	int r;

	if (argc != 2 || (mem = strtoull(argv[1], &end, 10)) < (64ull << 20) || *end) {
		fputs("mpicrawl: pdf-worker is started by the parse stage, not by hand\n", stderr);
		return 2;
	}
	/* Nothing of the rank's: its sockets and files stay with it. */
	if (close_range(3, ~0u, 0) != 0) {
		int fd;

		for (fd = 3; fd < 65536; fd++)
			close(fd);
	}
#ifndef PDFWORKER_NO_AS_LIMIT
	limit(RLIMIT_AS, (rlim_t)mem);
#else
	(void)mem;
#endif
	limit(RLIMIT_FSIZE, 0);
	limit(RLIMIT_CORE, 0);
	signal(SIGPIPE, SIG_IGN);
	/* A job's signals are the rank's to act on (a stop, Slurm's warning):
	 * the worker ends when the rank closes its socket, or is killed. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	oom_ready(mem);
	buf_init(&out);
	while ((r = read_all(0, head, sizeof(head))) == 1) {
		struct pdf_doc d;
		unsigned char *data;

		if (pdfworker_request_unpack(head, sizeof(head), &q) != CR_OK)
			return 3;
		if (!(data = malloc(q.len ? (size_t)q.len : 1)) ||
		    read_all(0, data, (size_t)q.len) != 1)
			return 3;
		cpu_budget(q.timeout_s);
		pdf_doc_init(&d);
		pdf_extract(data, (size_t)q.len, &q.lim, &d);
		free(data);
		out.len = 0;
		pdfworker_reply_pack(&d, &out);
		pdf_doc_release(&d);
		if (write_all(1, out.p, out.len) != 0)
			return 3;
	}
	buf_release(&out);
	return r == 0 ? 0 : 3;
}

/* ---- the rank's side ---- */

static struct {
	pid_t pid;           /* 0: none */
	int fd;
	uint64_t mem;
	uint64_t started, lost;
	int atexit_set;
} w = { 0, -1, 0, 0, 0, 0 };

void pdfworker_counts(uint64_t *started, uint64_t *lost)
{
	*started = w.started;
	*lost = w.lost;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reaps the worker (killed first when kill_it), and tells its fate. */
static enum pdf_fate reap(int kill_it, int timed_out)
{
	struct rusage ru;
	int st = 0;
	pid_t r;

	if (w.fd >= 0)
		close(w.fd);
	w.fd = -1;
	if (!w.pid)
		return PDF_CRASH;
	/* One gone quiet (its socket closed) may still run: killed too, so the
	 * wait cannot block (a dead one's status stays what it died of). */
	(void)kill_it;
	kill(w.pid, SIGKILL);
	memset(&ru, 0, sizeof(ru));
	do
		r = wait4(w.pid, &st, 0, &ru);
	while (r < 0 && errno == EINTR);
	w.pid = 0;
	w.lost++;
	if (r < 0)
		return timed_out ? PDF_TIMEOUT : PDF_CRASH;
	return pdfworker_death(st, timed_out, (uint64_t)ru.ru_maxrss * 1024, w.mem);
}

/* One caller at a time: the worker is one process, its socket one stream. */
static pthread_mutex_t worker_mu = PTHREAD_MUTEX_INITIALIZER;

static void stop_locked(void)
{
	pid_t r;

	if (w.fd >= 0)
		close(w.fd);
	w.fd = -1;
	if (!w.pid)
		return;
	do
		r = waitpid(w.pid, NULL, 0);
	while (r < 0 && errno == EINTR);
	w.pid = 0;
}

void pdfworker_stop(void)
{
	pthread_mutex_lock(&worker_mu);
	stop_locked();
	pthread_mutex_unlock(&worker_mu);
}

static void stop_at_exit(void)
{
	pdfworker_stop();
}

/* Starts a worker (the binary this process runs). 0 on success. */
static int start(uint64_t mem)
{
	/* The binary this process runs, even if its file was replaced since */
	static const char exe[] = "/proc/self/exe";
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char memarg[32];
	char *argv[] = { (char *)exe, (char *)PDFWORKER_COMMAND, memarg, NULL };
	static const int dflt_sigs[] = { SIGXCPU, SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGUSR1,
					 SIGUSR2, SIGALRM, SIGCHLD, SIGABRT, SIGSEGV };
	sigset_t none, dflt;
	size_t i;
	int sv[2], rc;

	snprintf(memarg, sizeof(memarg), "%llu", (unsigned long long)mem);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* A process group of its own (a terminal's ^C is the job's), no
	 * signal blocked (a thread that blocks them may start it: RLIMIT_CPU's
	 * SIGXCPU must reach it) and every signal's default action. */
	sigemptyset(&none);
	sigemptyset(&dflt);
	for (i = 0; i < sizeof(dflt_sigs) / sizeof(dflt_sigs[0]); i++)
		sigaddset(&dflt, dflt_sigs[i]);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				      POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dflt);
	rc = posix_spawn(&w.pid, exe, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		w.pid = 0;
		log_warn("parse", "cannot start the PDF worker '%s': %s", exe, strerror(rc));
		return -1;
	}
	w.fd = sv[0];
	w.mem = mem;
	w.started++;
	if (!w.atexit_set) {
		atexit(stop_at_exit);
		w.atexit_set = 1;
	}
	return 0;
}

/* Waits until fd is ready for events or the deadline passes: 1 ready, 0
 * timed out, -1 failed. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd pf = { fd, events, 0 };
		int64_t left = deadline - mono_ms();
		int r;

		if (left <= 0)
			return 0;
		r = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r > 0)
			return 1;
	}
}

/* Sends (out) or receives n bytes at p before the deadline: 1 done, 0
 * timed out, -1 failed (the worker is gone). */
static int xfer_by(void *p, size_t n, int out, int64_t deadline)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k;
		int r = wait_fd(w.fd, out ? POLLOUT : POLLIN, deadline);

		if (r <= 0)
			return r;
		k = out ? send(w.fd, (char *)p + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT)
			: recv(w.fd, (char *)p + done, n - done, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 1;
}

/* 1 if the worker sent more than its reply (or closed its socket): what
 * it sends next would be taken for the next document's answer. */
static int said_more(void)
{
	struct pollfd pf = { w.fd, POLLIN, 0 };

	return poll(&pf, 1, 0) != 0;
}

static void parse_locked(const struct pdfworker_opts *o, const void *data, size_t len,
			 struct pdf_doc *out)
{
	struct pdfworker_request q = { o->lim, o->timeout_s, len };
	uint64_t mem = PDFWORKER_MEM_BASE + 8 * (uint64_t)o->max_bytes, blen;
	int64_t deadline;
	unsigned char head[PDFWORKER_REPLY_HEAD];
	struct buf b;
	int r;

	if (len > o->max_bytes || len > PDFWORKER_MAX_INPUT) {
		out->fate = PDF_TOO_LARGE;
		return;
	}
	if (w.pid && w.mem != mem)
		stop_locked();   /* other limits: another worker */
	if (!w.pid && start(mem) != 0) {
		out->fate = PDF_NO_WORKER;
		return;
	}
	deadline = mono_ms() + 2000 * (int64_t)o->timeout_s + 1000;
	buf_init(&b);
	pdfworker_request_pack(&q, &b);
	r = xfer_by(b.p, b.len, 1, deadline);
	if (r == 1)
		r = xfer_by((void *)data, len, 1, deadline);
	if (r == 1)
		r = xfer_by(head, sizeof(head), 0, deadline);
	if (r == 1 && pdfworker_reply_head(head, sizeof(head), &o->lim, &blen) != CR_OK)
		r = -2;
	if (r == 1) {
		b.len = 0;
		buf_reserve(&b, (size_t)blen);
		r = xfer_by(b.p, (size_t)blen, 0, deadline);
		b.len = (size_t)blen;
	}
	if (r == 1 && pdfworker_reply_unpack(b.p, b.len, &o->lim, out) != CR_OK)
		r = -2;
	buf_release(&b);
	if (r == 1) {
		if (out->fate == PDF_MEMORY || said_more())
			reap(1, 0);   /* dying (it answered from its abort), or astray */
		return;
	}
	/* Timed out (0), gone (-1: died, its fate from its status), or
	 * garbage (-2: killed, a crash). */
	pdf_doc_release(out);
	pdf_doc_init(out);
	out->fate = reap(r != -1, r == 0);
	if (r == -2)
		out->fate = PDF_CRASH;
}

void pdfworker_parse(const struct pdfworker_opts *o, const void *data, size_t len,
		     struct pdf_doc *out)
{
	pthread_mutex_lock(&worker_mu);
	parse_locked(o, data, len, out);
	pthread_mutex_unlock(&worker_mu);
}

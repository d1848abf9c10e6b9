#include "fetch/syncer.h"
#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sync_op {
	int fd;              /* a duplicate: closed when the batch is done */
	int append;          /* append bytes, then fdatasync; else fsync */
	struct buf bytes;
	char *path;          /* for the message */
};

struct batch {
	struct sync_op *ops;
	size_t n, cap;
};

struct syncer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch next;     /* the caller's, being filled */
	struct batch flight;   /* the thread's while queued */
	int queued;            /* flight handed over and not done */
	int quit;
	int err;               /* the first failure of a batch: errno */
	char *err_path;
	const char *err_what;
};

static void op_release(struct sync_op *op)
{
	if (op->fd >= 0)
		close(op->fd);
	buf_release(&op->bytes);
	free(op->path);
}

/* The thread's side: one op; 0 or errno. */
static int run_op(struct sync_op *op, const char **what)
{
	size_t off = 0;

	*what = op->append ? "write" : "fsync";
	while (op->append && off < op->bytes.len) {
		ssize_t n = write(op->fd, op->bytes.p + off, op->bytes.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? EIO : errno;
		off += (size_t)n;
	}
	*what = "fsync";
	if ((op->append ? fdatasync(op->fd) : fsync(op->fd)) != 0)
		return errno;
	return 0;
}

/* The WARC files first; the journals only once every one of them is
 * durable (journal.h). The first failure is kept. */
static void run_batch(struct syncer *s, struct batch *b)
{
	int pass, err = 0;
	const char *what = NULL;
	size_t i, bad = 0;

	for (pass = 0; pass < 2 && !err; pass++)
		for (i = 0; i < b->n && !err; i++)
			if (b->ops[i].append == pass && (err = run_op(&b->ops[i], &what)) != 0)
				bad = i;
	pthread_mutex_lock(&s->mu);
	if (err && !s->err) {
		s->err = err;
		s->err_what = what;
		s->err_path = b->ops[bad].path;
		b->ops[bad].path = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	for (i = 0; i < b->n; i++)
		op_release(&b->ops[i]);
	b->n = 0;
}

static void *thread_main(void *arg)
{
	struct syncer *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->queued && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->queued)
			break;   /* quit, nothing left */
		pthread_mutex_unlock(&s->mu);
		run_batch(s, &s->flight);
		pthread_mutex_lock(&s->mu);
		s->queued = 0;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

enum cr_err syncer_start(struct syncer **out)
{
	struct syncer *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!s)
		return CR_ERR_NOMEM;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	/* Signals go to the loop's thread, whose poll they cut short. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, thread_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		log_err("fetch", "cannot start the sync thread: %s", strerror(rc));
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return CR_ERR_LIB;
	}
	*out = s;
	return CR_OK;
}

int syncer_busy(struct syncer *s)
{
	int q;

	pthread_mutex_lock(&s->mu);
	q = s->queued;
	pthread_mutex_unlock(&s->mu);
	return q;
}

static enum cr_err add(struct syncer *s, int fd, const char *path, int append,
		       struct buf *bytes)
{
	struct batch *b = &s->next;
	struct sync_op *op;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct sync_op *v = realloc(b->ops, cap * sizeof(*v));

		if (!v)
			return CR_ERR_NOMEM;
		b->ops = v;
		b->cap = cap;
	}
	op = &b->ops[b->n];
	memset(op, 0, sizeof(*op));
	if ((op->fd = dup(fd)) < 0) {
		log_err("fetch", "cannot sync '%s': %s", path, strerror(errno));
		return CR_ERR_IO;
	}
	if (!(op->path = strdup(path))) {
		close(op->fd);
		return CR_ERR_NOMEM;
	}
	op->append = append;
	buf_init(&op->bytes);
	if (bytes) {
		op->bytes = *bytes;
		buf_init(bytes);
	}
	b->n++;
	return CR_OK;
}

enum cr_err syncer_add_fsync(struct syncer *s, int fd, const char *path)
{
	return add(s, fd, path, 0, NULL);
}

enum cr_err syncer_add_append(struct syncer *s, int fd, const char *path, struct buf *bytes)
{
	return add(s, fd, path, 1, bytes);
}

int syncer_pending(const struct syncer *s)
{
	return s->next.n > 0;
}

void syncer_submit(struct syncer *s)
{
	struct batch t;

	if (!s->next.n)
		return;
	pthread_mutex_lock(&s->mu);
	while (s->queued)
		pthread_cond_wait(&s->cv, &s->mu);
	t = s->flight;   /* empty: its ops released by the thread */
	s->flight = s->next;
	s->next = t;
	s->queued = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

enum cr_err syncer_wait(struct syncer *s)
{
	int err;
	char *path;
	const char *what;

	pthread_mutex_lock(&s->mu);
	while (s->queued)
		pthread_cond_wait(&s->cv, &s->mu);
	err = s->err;
	path = s->err_path;
	what = s->err_what;
	s->err = 0;
	s->err_path = NULL;
	pthread_mutex_unlock(&s->mu);
	if (!err)
		return CR_OK;
	log_err("fetch", "cannot %s '%s': %s", what, path ? path : "?", strerror(err));
	free(path);
	return CR_ERR_IO;
}

void syncer_stop(struct syncer **sp)
{
	struct syncer *s = *sp;
	size_t i;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	for (i = 0; i < s->next.n; i++)
		op_release(&s->next.ops[i]);
	free(s->next.ops);
	free(s->flight.ops);
	free(s->err_path);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
	*sp = NULL;
}

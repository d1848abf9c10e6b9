#include "fetch/docs.h"
#include "parse/parse.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct docs {
	const struct job *j;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* work came, a page is done, or closing */
	struct docs_page *work, *work_tail;
	struct docs_page *done, *done_tail;
	size_t pending;             /* submitted, not taken back */
	size_t bytes;               /* ... their copies' */
	int closing;
	int pipe[2];                /* a byte per done page: [0] polled */
};

static void push(struct docs_page **head, struct docs_page **tail, struct docs_page *p)
{
	p->next = NULL;
	if (*tail)
		(*tail)->next = p;
	else
		*head = p;
	*tail = p;
}

static struct docs_page *pop(struct docs_page **head, struct docs_page **tail)
{
	struct docs_page *p = *head;

	if (p) {
		*head = p->next;
		if (!*head)
			*tail = NULL;
		p->next = NULL;
	}
	return p;
}

/* The thread: each page's PDF asked of the worker, in turn. */
static void *run(void *arg)
{
	struct docs *d = arg;
	struct docs_page *p;

	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->work && !d->closing)
			pthread_cond_wait(&d->cv, &d->mu);
		if (!(p = pop(&d->work, &d->work_tail)))
			break;   /* closing, nothing left */
		pthread_mutex_unlock(&d->mu);
		parse_pdf_read(d->j, p->r.head, p->r.head_len, p->r.body, p->r.body_len, &p->pdf);
		pthread_mutex_lock(&d->mu);
		push(&d->done, &d->done_tail, p);
		if (write(d->pipe[1], "", 1) < 0 && errno != EAGAIN)
			log_warn("fetch", "cannot signal a PDF read: %s", strerror(errno));
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

enum cr_err docs_open(const struct job *j, struct docs **out)
{
	struct docs *d = calloc(1, sizeof(*d));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!d)
		return CR_ERR_NOMEM;
	d->j = j;
	if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		free(d);
		return CR_ERR_IO;
	}
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	/* Signals go to the loop's thread, whose poll they cut short (the
	 * worker is started with none blocked: pdfworker.c). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&d->thread, NULL, run, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(d->pipe[0]);
		close(d->pipe[1]);
		pthread_mutex_destroy(&d->mu);
		pthread_cond_destroy(&d->cv);
		free(d);
		return CR_ERR_NOMEM;
	}
	*out = d;
	return CR_OK;
}

void docs_close(struct docs **dp)
{
	struct docs *d = *dp;
	struct docs_page *p;

	if (!d)
		return;
	pthread_mutex_lock(&d->mu);
	d->closing = 1;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	pthread_join(d->thread, NULL);
	while ((p = pop(&d->done, &d->done_tail)) != NULL)
		docs_page_free(p);
	close(d->pipe[0]);
	close(d->pipe[1]);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
	free(d);
	*dp = NULL;
}

/* Appends n bytes (and a NUL) to the store: their offset. */
static size_t keep(struct buf *b, const void *p, size_t n)
{
	size_t at = b->len;

	buf_add(b, p, n);
	buf_addc(b, '\0');
	return at;
}

struct docs_page *docs_page_new(struct host_item *it, const struct http_result *r)
{
	struct docs_page *p = calloc(1, sizeof(*p));
	const char **strs[7];
	size_t at[3 + 7], i;

	if (!p)
		return NULL;
	p->it = it;
	p->r = *r;   /* then every pointer of the copy into the store */
	strs[0] = &p->r.error;
	strs[1] = &p->r.detail;
	strs[2] = &p->r.ip;
	strs[3] = &p->r.protocol;
	strs[4] = &p->r.tls;
	strs[5] = &p->r.cipher;
	strs[6] = &p->r.url;
	buf_init(&p->store);
	at[0] = keep(&p->store, r->req, r->req_len);
	at[1] = keep(&p->store, r->head, r->head_len);
	at[2] = keep(&p->store, r->body, r->body_len);
	for (i = 0; i < 7; i++)
		at[3 + i] = keep(&p->store, *strs[i] ? *strs[i] : "",
				 *strs[i] ? strlen(*strs[i]) : 0);
	p->r.req = p->store.p + at[0];   /* the store moves no more */
	p->r.head = p->store.p + at[1];
	p->r.body = p->store.p + at[2];
	for (i = 0; i < 7; i++)
		*strs[i] = (const char *)p->store.p + at[3 + i];
	pdf_doc_init(&p->pdf);
	return p;
}

void docs_page_free(struct docs_page *p)
{
	if (!p)
		return;
	buf_release(&p->store);
	pdf_doc_release(&p->pdf);
	free(p);
}

void docs_submit(struct docs *d, struct docs_page *p)
{
	pthread_mutex_lock(&d->mu);
	push(&d->work, &d->work_tail, p);
	d->pending++;
	d->bytes += p->store.len;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

int docs_full(const struct docs *d)
{
	int full;

	pthread_mutex_lock((pthread_mutex_t *)&d->mu);
	full = d->pending >= DOCS_PENDING || d->bytes >= DOCS_BYTES;
	pthread_mutex_unlock((pthread_mutex_t *)&d->mu);
	return full;
}

size_t docs_pending(const struct docs *d)
{
	size_t n;

	pthread_mutex_lock((pthread_mutex_t *)&d->mu);
	n = d->pending;
	pthread_mutex_unlock((pthread_mutex_t *)&d->mu);
	return n;
}

size_t docs_cancel(struct docs *d)
{
	struct docs_page *p;
	size_t n = 0;

	pthread_mutex_lock(&d->mu);
	while ((p = pop(&d->work, &d->work_tail)) != NULL) {
		d->pending--;
		d->bytes -= p->store.len;
		docs_page_free(p);
		n++;
	}
	pthread_mutex_unlock(&d->mu);
	return n;
}

int docs_fd(const struct docs *d)
{
	return d->pipe[0];
}

struct docs_page *docs_next_done(struct docs *d, int wait)
{
	struct docs_page *p;
	char byte;

	pthread_mutex_lock(&d->mu);
	while (!d->done && wait && d->pending)
		pthread_cond_wait(&d->cv, &d->mu);
	p = pop(&d->done, &d->done_tail);
	if (p) {
		d->pending--;
		d->bytes -= p->store.len;
		if (read(d->pipe[0], &byte, 1) < 0 && errno != EAGAIN)
			log_warn("fetch", "cannot read a PDF's signal: %s", strerror(errno));
	}
	pthread_mutex_unlock(&d->mu);
	return p;
}

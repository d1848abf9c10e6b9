#include "dedup/dedup.h"
#include "comm/comm.h"
#include "crawldb/parse_record.h"
#include "util/minhash.h"
#include "dedup/runs.h"
#include "store/recfile.h"
#include "store/xsort.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/be.h"
#include "util/mem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

const char *const dedup_counter_names[DC_COUNT_] = {
	"pages", "band_entries", "candidates", "verified", "duplicates", "of_earlier",
	"store_bytes",
};

/*
 * Records. Integers are big-endian where records are sorted bytewise, so
 * that memcmp orders them by their leading fields.
 *   band      key(8) round(4) id(8) part(4)                    lsh-P runs, sorted
 *   sig       id(8) round(4) root(1) digest(8) n(2) sig(4n LE) url   sig-P runs, by id
 *   cand      ypart(4) yid(8) xid(8) xpart(4) yround(4)        at Y's owner
 *   reply     xid(8) yround(4) yid(8) kind(1) digest(8) n(2) sig(4n) yurl   at X's owner
 *   edge      xid(8) yid(8) xrank(4) yurl                      at rank 0 (yid 0: X decided)
 *   decision  xid(8) url                                       at X's owner
 * Outbox records start with the destination rank (4).
 */
#define BAND_LEN 24
#define CAND_LEN 28
#define SIG_HEAD 23
#define REPLY_HEAD 31
#define EDGE_HEAD 20

enum { Y_OLD_DUP = 0, Y_OLD_ROOT = 1, Y_NEW = 2 };

static int cmp_bytes(const void *a, size_t an, const void *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

static void key8(char *k, uint64_t id)
{
	be_put((unsigned char *)k, id, 8);
}

static enum cr_err decide(struct dedup_result *res, uint64_t xid, const char *url, size_t n)
{
	char k[8];
	void **slot;
	char *copy;

	key8(k, xid);
	slot = hmap_put(&res->dups, k, 8);
	if (!slot)
		return CR_ERR_NOMEM;
	if (*slot)
		return CR_OK;
	copy = malloc(n + 1);
	if (!copy)
		return CR_ERR_NOMEM;
	memcpy(copy, url, n);
	copy[n] = '\0';
	*slot = copy;
	return CR_OK;
}

/* ---- the state of one run ------------------------------------------------ */

struct dd {
	struct job *j;
	int seg, ver;
	uint32_t P;
	unsigned H, B, R, M;
	double t;
	size_t budget;           /* per sort */
	uint64_t *c;
	struct dedup_result *res;
	struct xsort **sorts;    /* per partition, reused by each step */
	struct xsort *outbox;    /* dest(4) + record */
	struct xsort *inbox;     /* what arrived, sorted bytewise */
	struct buf rec, post;
};

static int owner(const struct dd *d, uint32_t p)
{
	return layout_owner(p, d->j->nranks);
}

static int owned(const struct dd *d, uint32_t p)
{
	return layout_owns(p, d->j->rank, d->j->nranks);
}

static void newsig_path(const struct dd *d, uint32_t p, char *out, size_t cap)
{
	snprintf(out, cap, "%.*s/dedup-newsig-%05u.zst", PATH_MAX - 64, d->j->tmpdir, p);
}

static enum cr_err new_sorts(struct dd *d)
{
	uint32_t p;

	for (p = 0; p < d->P; p++) {
		enum cr_err e;

		if (!owned(d, p))
			continue;
		e = xsort_new(d->j->tmpdir, d->budget, cmp_bytes, &d->sorts[p]);
		if (e)
			return e;
	}
	return CR_OK;
}

static void free_sorts(struct dd *d)
{
	uint32_t p;

	for (p = 0; p < d->P; p++)
		xsort_free(&d->sorts[p]);
}

static enum cr_err post(struct dd *d, int dest, const void *rec, size_t n)
{
	unsigned char h[4];

	be_put(h, (uint64_t)dest, 4);
	d->post.len = 0;
	buf_add(&d->post, h, 4);
	buf_add(&d->post, rec, n);
	return xsort_add(d->outbox, d->post.p, d->post.len);
}

typedef enum cr_err (*consume_fn)(struct dd *d, const unsigned char *rec, size_t n);

/* The outbox being sent and the consumer of what arrives (comm_stream). */
struct outbox_stream {
	struct dd *d;
	consume_fn consume;
	enum cr_err err;         /* the outbox could not be read: fill says so */
	int have;                /* a record read from the outbox, not posted yet */
	const void *p;
	size_t n;
};

/* Posts the outbox's records (sorted: dest(4) + record) to their ranks. */
static enum cr_err fill_outbox(void *arg, struct comm_stream *s)
{
	struct outbox_stream *o = arg;
	enum cr_err e;

	if (o->err)
		return o->err;
	if (!o->have)
		return CR_EOF;
	if (o->n < 4 || be_get(o->p, 4) >= (uint64_t)o->d->j->nranks)
		return CR_ERR_FORMAT;
	comm_stream_post(s, (int)be_get(o->p, 4), (const unsigned char *)o->p + 4, o->n - 4);
	e = xsort_next(o->d->outbox, &o->p, &o->n);
	o->have = e == CR_OK;
	return e == CR_EOF ? CR_OK : e;
}

static enum cr_err take_arrived(void *arg, const void *rec, size_t n)
{
	struct outbox_stream *o = arg;

	return o->consume(o->d, rec, n);
}

/*
 * Sends every outbox record to its rank in batches of update.exchange_batch_kb
 * and hands each arriving record to fn. Collective; the outbox is empty (and
 * new) afterwards.
 */
static enum cr_err exchange(struct dd *d, consume_fn fn)
{
	struct outbox_stream o = { d, fn, CR_OK, 0, NULL, 0 };
	enum cr_err e = xsort_finish(d->outbox);

	if (!e) {
		e = xsort_next(d->outbox, &o.p, &o.n);
		o.have = e == CR_OK;
		if (e == CR_EOF)
			e = CR_OK;
	}
	/* A rank that failed here still takes part: its fill reports it. */
	o.err = e;
	e = comm_stream((size_t)d->j->cfg.exchange_batch_kb * 1024, fill_outbox, take_arrived,
			&o);
	xsort_free(&d->outbox);
	if (!e)
		e = xsort_new(d->j->tmpdir, d->budget, cmp_bytes, &d->outbox);
	return e;
}

/* Files a band entry into the sort of its band partition. */
static enum cr_err file_band(struct dd *d, const unsigned char *r, size_t n)
{
	uint32_t q;

	if (n != BAND_LEN)
		return CR_ERR_FORMAT;
	q = (uint32_t)(be_get(r, 8) % d->P);
	if (!d->sorts[q])
		return CR_ERR_FORMAT;
	return xsort_add(d->sorts[q], r, n);
}

/* ---- step 1: signatures of the round, band entries out ------------------- */

/* A page of partition p signed this round: its signature record into x
 * (sorted by id), its band entries posted to their owners. sig: room for
 * d->H values. */
static enum cr_err read_page(struct dd *d, uint32_t p, const struct parse_record *pr,
			     uint32_t *sig, struct xsort *x)
{
	unsigned char h[SIG_HEAD];
	uint64_t id = dedup_id(pr->url, pr->url_len);
	enum cr_err e;
	uint32_t i, b;

	for (i = 0; i < d->H; i++)
		sig[i] = parse_record_sig(pr, i);
	be_put(h, id, 8);
	be_put(h + 8, (uint64_t)d->seg, 4);
	h[12] = 1;
	be_put(h + 13, pr->text_digest, 8);
	be_put(h + 21, d->H, 2);
	d->rec.len = 0;
	buf_add(&d->rec, h, SIG_HEAD);
	buf_add(&d->rec, pr->sig_bytes, (size_t)d->H * 4);
	buf_add(&d->rec, pr->url, pr->url_len);
	e = xsort_add(x, d->rec.p, d->rec.len);
	for (b = 0; !e && b < d->B; b++) {
		unsigned char be[BAND_LEN];
		uint64_t key = minhash_band_key(sig, b, d->R);

		be_put(be, key, 8);
		be_put(be + 8, (uint64_t)d->seg, 4);
		be_put(be + 12, id, 8);
		be_put(be + 20, p, 4);
		e = post(d, owner(d, (uint32_t)(key % d->P)), be, BAND_LEN);
		d->c[DC_BANDS]++;
	}
	d->c[DC_PAGES]++;
	return e;
}

static enum cr_err read_round(struct dd *d)
{
	uint32_t p;
	uint32_t *sig = malloc(sizeof(uint32_t) * d->H);
	enum cr_err e = sig ? CR_OK : CR_ERR_NOMEM;

	for (p = 0; !e && p < d->P; p++) {
		char path[PATH_MAX], out[PATH_MAX];
		struct recfile_reader *r = NULL;
		struct recfile_writer *w = NULL;
		struct xsort *x = NULL;
		const void *data;
		size_t n;

		if (!owned(d, p))
			continue;
		layout_segment_part(&d->j->dir, d->seg, "parse", p, path, sizeof(path));
		e = recfile_reader_open(path, REC_KIND_PARSE, &r);
		if (e) {
			log_err("dedup", "cannot read parse data '%s'", path);
			break;
		}
		e = xsort_new(d->j->tmpdir, d->budget, cmp_bytes, &x);
		while (!e && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
			struct parse_record pr;

			e = parse_record_unpack(data, n, &pr);
			if (e) {
				log_err("dedup", "damaged record in '%s'", path);
				break;
			}
			if (pr.nsig == d->H)   /* else no text, or signed with other settings */
				e = read_page(d, p, &pr, sig, x);
		}
		if (e == CR_EOF)
			e = CR_OK;
		recfile_reader_free(&r);
		/* The round's signatures of p, sorted by id, kept for two reads. */
		newsig_path(d, p, out, sizeof(out));
		if (!e)
			e = xsort_finish(x);
		if (!e)
			e = recfile_writer_open(out, REC_KIND_SORT, 1, &w);
		while (!e && (e = xsort_next(x, &data, &n)) == CR_OK)
			e = recfile_writer_add(w, data, n);
		if (e == CR_EOF)
			e = recfile_writer_commit(&w);
		recfile_writer_abort(&w);
		xsort_free(&x);
	}
	free(sig);
	return e;
}

/* ---- step 2: band index merge, candidates out ----------------------------- */

struct group {
	unsigned char key[8];
	int live;
	size_t n;                    /* entries kept (at most M) */
	unsigned char (*e)[BAND_LEN];
};

static enum cr_err candidates(struct dd *d, struct group *g, const unsigned char *x)
{
	size_t i;
	uint64_t xid = be_get(x + 12, 8);
	enum cr_err e = CR_OK;

	for (i = 0; !e && i < g->n; i++) {
		const unsigned char *y = g->e[i];
		unsigned char cand[CAND_LEN];
		uint64_t yid = be_get(y + 12, 8);

		if (yid == xid)
			continue;
		memcpy(cand, y + 20, 4);
		be_put(cand + 4, yid, 8);
		be_put(cand + 12, xid, 8);
		memcpy(cand + 20, x + 20, 4);
		memcpy(cand + 24, y + 8, 4);
		e = post(d, owner(d, (uint32_t)be_get(y + 20, 4)), cand, CAND_LEN);
		d->c[DC_CANDIDATES]++;
	}
	return e;
}

/* The next band entry of the committed runs (*live 0 at their end). */
static enum cr_err old_band(struct dedup_merge *m, const void **p, int *live)
{
	size_t n;
	enum cr_err e = m ? dedup_merge_next(m, p, &n, NULL) : CR_EOF;

	*live = e == CR_OK;
	if (e == CR_OK && n != BAND_LEN)
		return CR_ERR_FORMAT;
	return e == CR_EOF ? CR_OK : e;
}

/* The next band entry of the round (*live 0 at its end). */
static enum cr_err new_band(struct xsort *x, const void **p, int *live)
{
	size_t n;
	enum cr_err e = xsort_next(x, p, &n);

	*live = e == CR_OK;
	if (e == CR_OK && n != BAND_LEN)
		return CR_ERR_FORMAT;
	return e == CR_EOF ? CR_OK : e;
}

/*
 * The committed band index of q (its runs merged) and the round's entries,
 * in order: each new entry makes candidates with the first M entries of
 * its bucket; the new entries alone are the round's run.
 */
static enum cr_err scan_bands(struct dd *d, uint32_t q, struct dedup_merge *m,
			      struct recfile_writer *w)
{
	struct group g;
	const void *op = NULL, *np = NULL;
	int olive = 0, nlive = 0;
	enum cr_err e;

	memset(&g, 0, sizeof(g));
	g.e = malloc((size_t)d->M * BAND_LEN);
	if (!g.e)
		return CR_ERR_NOMEM;
	e = xsort_finish(d->sorts[q]);
	if (!e)
		e = old_band(m, &op, &olive);
	if (!e)
		e = new_band(d->sorts[q], &np, &nlive);
	while (!e && (olive || nlive)) {
		int take_new = nlive && (!olive || memcmp(np, op, BAND_LEN) < 0);
		const unsigned char *cur = take_new ? np : op;

		if (!g.live || memcmp(g.key, cur, 8)) {
			memcpy(g.key, cur, 8);
			g.live = 1;
			g.n = 0;
		}
		if (take_new)
			e = candidates(d, &g, cur);
		if (!e && g.n < d->M)
			memcpy(g.e[g.n++], cur, BAND_LEN);
		if (!e && take_new)
			e = recfile_writer_add(w, cur, BAND_LEN);
		if (!e && take_new)
			e = new_band(d->sorts[q], &np, &nlive);
		else if (!e)
			e = old_band(m, &op, &olive);
	}
	free(g.e);
	return e;
}

/* The round's run of q's band index and its next version (runs.h). */
static enum cr_err merge_bands(struct dd *d, uint32_t q)
{
	char path[PATH_MAX];
	struct dedup_runs rs;
	struct dedup_run round = { (uint32_t)d->seg, 0, 0 };
	struct dedup_merge *m = NULL;
	struct recfile_writer *w = NULL;
	enum cr_err e = dedup_runs_load(&d->j->dir, d->ver, DEDUP_LSH, q, &rs);

	if (!e)
		e = dedup_merge_store(&d->j->dir, d->ver, DEDUP_LSH, q, &rs, &m);
	if (e) {
		layout_crawldb_runs(&d->j->dir, d->ver, dedup_store_kinds[DEDUP_LSH], q, path,
				    sizeof(path));
		log_err("dedup", "cannot read the band index '%s' (%s)", path, error_str(e));
		return e;
	}
	dedup_runs_path(&d->j->dir, d->ver + 1, DEDUP_LSH, q, &round, path, sizeof(path));
	e = recfile_writer_open(path, REC_KIND_SORT, 1, &w);
	if (!e)
		e = scan_bands(d, q, m, w);
	dedup_merge_free(&m);
	if (e == CR_ERR_FORMAT) {
		layout_crawldb_runs(&d->j->dir, d->ver, dedup_store_kinds[DEDUP_LSH], q, path,
				    sizeof(path));
		log_err("dedup", "a damaged band entry in the runs '%s' names", path);
	}
	if (!e && recfile_writer_count(w))
		e = recfile_writer_commit(&w);
	recfile_writer_abort(&w);
	if (!e)
		e = dedup_runs_next(&d->j->dir, d->ver, DEDUP_LSH, q, &rs, (uint32_t)d->seg,
				    (size_t)d->j->cfg.dedup_max_runs, &d->c[DC_STORE_BYTES]);
	return e;
}

/* ---- step 3: candidates meet the earlier page's signature ----------------- */

static enum cr_err file_inbox(struct dd *d, const unsigned char *r, size_t n)
{
	return xsort_add(d->inbox, r, n);
}

/* A cursor over sig records sorted by id: the round's new signatures of a
 * partition, or its committed signature store (runs merged). */
struct sig_cursor {
	struct dedup_merge *m;
	const unsigned char *p;
	size_t n;
	int live;
};

static enum cr_err cursor_next(struct sig_cursor *c)
{
	const void *p;
	enum cr_err e;

	c->live = 0;
	if (!c->m)
		return CR_OK;
	e = dedup_merge_next(c->m, &p, &c->n, NULL);
	if (e == CR_EOF)
		return CR_OK;
	if (e)
		return e;
	if (c->n < SIG_HEAD || c->n < SIG_HEAD + be_get((const unsigned char *)p + 21, 2) * 4)
		return CR_ERR_FORMAT;
	c->p = p;
	c->live = 1;
	return CR_OK;
}

/* Opens c on the round's new signatures of p, at the first. */
static enum cr_err cursor_open_new(struct dd *d, struct sig_cursor *c, uint32_t p)
{
	char path[PATH_MAX];
	const char *paths[1] = { path };
	enum cr_err e;

	memset(c, 0, sizeof(*c));
	newsig_path(d, p, path, sizeof(path));
	e = fs_exists(path) ? dedup_merge_open(paths, 1, 8, 0, &c->m) : CR_OK;
	return e ? e : cursor_next(c);
}

/* Opens c on p's signature store of the committed version, at the first. */
static enum cr_err cursor_open_old(struct dd *d, struct sig_cursor *c, uint32_t p)
{
	struct dedup_runs rs;
	char path[PATH_MAX];
	enum cr_err e;

	memset(c, 0, sizeof(*c));
	e = dedup_runs_load(&d->j->dir, d->ver, DEDUP_SIG, p, &rs);
	if (!e)
		e = dedup_merge_store(&d->j->dir, d->ver, DEDUP_SIG, p, &rs, &c->m);
	if (!e)
		e = cursor_next(c);
	if (e) {
		layout_crawldb_runs(&d->j->dir, d->ver, dedup_store_kinds[DEDUP_SIG], p, path,
				    sizeof(path));
		log_err("dedup", "cannot read the signature store '%s' (%s)", path,
			error_str(e));
	}
	return e;
}

/* Moves c to the first record with id >= id; 1 if it has exactly id. */
static int cursor_seek(struct sig_cursor *c, uint64_t id, enum cr_err *e)
{
	while (!*e && c->live && be_get(c->p, 8) < id)
		*e = cursor_next(c);
	return !*e && c->live && be_get(c->p, 8) == id;
}

static void cursor_close(struct sig_cursor *c)
{
	dedup_merge_free(&c->m);
	c->live = 0;
}

/* Opens, per owned partition, a cursor on the round's new signatures; *k
 * gets their number. cursors_close frees them. */
static enum cr_err cursors_open(struct dd *d, struct sig_cursor **cur, uint32_t *k)
{
	uint32_t p, nown = 0;
	enum cr_err e = CR_OK;

	*k = 0;
	for (p = 0; p < d->P; p++)
		nown += owned(d, p);
	*cur = calloc(nown ? nown : 1, sizeof(**cur));
	if (!*cur)
		return CR_ERR_NOMEM;
	for (p = 0; !e && p < d->P; p++)
		if (owned(d, p))
			e = cursor_open_new(d, &(*cur)[(*k)++], p);
	return e;
}

static void cursors_close(struct sig_cursor *cur, uint32_t k)
{
	uint32_t i;

	for (i = 0; cur && i < k; i++)
		cursor_close(&cur[i]);
	free(cur);
}

/* Sends Y's signature (record s, of kind) to X's owner for candidate cand. */
static enum cr_err reply(struct dd *d, const unsigned char *cand, const unsigned char *s,
			 size_t sn, int kind)
{
	unsigned char h[REPLY_HEAD];

	memcpy(h, cand + 12, 8);          /* xid */
	memcpy(h + 8, s + 8, 4);          /* yround */
	memcpy(h + 12, s, 8);             /* yid */
	h[20] = (unsigned char)kind;
	memcpy(h + 21, s + 13, 8);        /* digest */
	memcpy(h + 29, s + 21, 2);        /* n */
	d->rec.len = 0;
	buf_add(&d->rec, h, REPLY_HEAD);
	buf_add(&d->rec, s + SIG_HEAD, sn - SIG_HEAD);   /* the values, then the URL */
	return post(d, owner(d, (uint32_t)be_get(cand + 20, 4)), d->rec.p, d->rec.len);
}

/* Moves old and cur to Y's partition p (an owned one) when they are not. */
static enum cr_err cursors_at(struct dd *d, uint32_t p, uint32_t *at, struct sig_cursor *old,
			      struct sig_cursor *cur)
{
	enum cr_err e;

	if (*at == p)
		return CR_OK;
	cursor_close(old);
	cursor_close(cur);
	*at = p;
	if (p >= d->P || !owned(d, p))
		return CR_ERR_FORMAT;
	e = cursor_open_new(d, cur, p);
	return e ? e : cursor_open_old(d, old, p);
}

/*
 * Answers the candidates that arrived at this rank. They come sorted by
 * Y's partition, then Y's id: one partition's signatures at a time, the
 * round's new ones and those of its committed store (runs merged).
 */
static enum cr_err answer(struct dd *d)
{
	struct sig_cursor old, cur;
	struct xsort *x = d->inbox;
	uint32_t at = UINT32_MAX;
	unsigned char last[20];
	int have_last = 0;
	const void *cp;
	size_t cn;
	enum cr_err e = xsort_finish(x);

	memset(&old, 0, sizeof(old));
	memset(&cur, 0, sizeof(cur));
	while (!e && (e = xsort_next(x, &cp, &cn)) == CR_OK) {
		const unsigned char *c = cp;
		uint64_t yid;

		if (cn != CAND_LEN) {
			e = CR_ERR_FORMAT;
			break;
		}
		/* One answer per (Y, X), however many bands made the pair. */
		if (have_last && !memcmp(last, c, 20))
			continue;
		memcpy(last, c, 20);
		have_last = 1;
		e = cursors_at(d, (uint32_t)be_get(c, 4), &at, &old, &cur);
		yid = be_get(c + 4, 8);
		if (cursor_seek(&cur, yid, &e))
			e = reply(d, c, cur.p, cur.n, Y_NEW);
		else if (cursor_seek(&old, yid, &e))
			e = reply(d, c, old.p, old.n, old.p[12] ? Y_OLD_ROOT : Y_OLD_DUP);
	}
	if (e == CR_EOF)
		e = CR_OK;
	cursor_close(&old);
	cursor_close(&cur);
	return e;
}

/* ---- step 4: verification where X lives ---------------------------------- */

static void sig_values(const unsigned char *b, unsigned n, uint32_t *out)
{
	unsigned i;

	for (i = 0; i < n; i++, b += 4)
		out[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			 (uint32_t)b[3] << 24;
}

/* Sends rank 0 an edge: X (on this rank) and its same-round peer Y, or
 * with yid 0 the news that X is already a duplicate. */
static enum cr_err edge(struct dd *d, uint64_t xid, uint64_t yid, const char *yurl, size_t n)
{
	unsigned char h[EDGE_HEAD];

	be_put(h, xid, 8);
	be_put(h + 8, yid, 8);
	be_put(h + 16, (uint64_t)d->j->rank, 4);
	d->rec.len = 0;
	buf_add(&d->rec, h, EDGE_HEAD);
	buf_add(&d->rec, yurl, n);
	return post(d, 0, d->rec.p, d->rec.len);
}

/* One reply: is Y a near-duplicate of X, and what follows from it. */
static enum cr_err judge(struct dd *d, const unsigned char *r, size_t rn,
			 const unsigned char *xs, uint32_t *sx, uint32_t *sy, int *decided)
{
	uint64_t xid = be_get(r, 8), yid = be_get(r + 12, 8);
	unsigned ny = (unsigned)be_get(r + 29, 2);
	const char *yurl = (const char *)r + REPLY_HEAD + (size_t)ny * 4;
	size_t yurl_len = rn - REPLY_HEAD - (size_t)ny * 4;
	enum cr_err e;

	if (ny != d->H || be_get(xs + 21, 2) != d->H)
		return CR_OK;
	sig_values(xs + SIG_HEAD, d->H, sx);
	sig_values(r + REPLY_HEAD, d->H, sy);
	if (memcmp(xs + 13, r + 21, 8) && minhash_similarity(sx, sy, d->H) < d->t)
		return CR_OK;
	d->c[DC_VERIFIED]++;
	switch (r[20]) {
	case Y_OLD_ROOT:
		/* Replies come sorted by (round, id): the first verified
		 * representative of an earlier round leads X's cluster. */
		e = decide(d->res, xid, yurl, yurl_len);
		*decided = 1;
		d->c[DC_DUPLICATES]++;
		d->c[DC_OF_EARLIER]++;
		return e ? e : edge(d, xid, 0, "", 0);
	case Y_NEW:
		/* A peer of the same round: rank 0 decides, in order. */
		return edge(d, xid, yid, yurl, yurl_len);
	default:
		return CR_OK;   /* a duplicate leads no cluster */
	}
}

static enum cr_err verify(struct dd *d)
{
	struct sig_cursor *cur = NULL;
	uint32_t k = 0;
	uint32_t *sx = malloc(sizeof(uint32_t) * d->H), *sy = malloc(sizeof(uint32_t) * d->H);
	uint64_t last = 0;
	int decided = 0;
	const void *rp;
	size_t rn;
	enum cr_err e = sx && sy ? cursors_open(d, &cur, &k) : CR_ERR_NOMEM;

	if (!e)
		e = xsort_finish(d->inbox);
	while (!e && (e = xsort_next(d->inbox, &rp, &rn)) == CR_OK) {
		const unsigned char *r = rp, *xs = NULL;
		uint64_t xid;
		uint32_t i;

		if (rn < REPLY_HEAD || rn < REPLY_HEAD + be_get(r + 29, 2) * 4) {
			e = CR_ERR_FORMAT;
			break;
		}
		xid = be_get(r, 8);
		if (xid != last)
			decided = 0;
		last = xid;
		if (decided)
			continue;   /* X has its representative */
		for (i = 0; !e && i < k && !xs; i++)
			if (cursor_seek(&cur[i], xid, &e))
				xs = cur[i].p;
		if (!e && xs)
			e = judge(d, r, rn, xs, sx, sy, &decided);
	}
	if (e == CR_EOF)
		e = CR_OK;
	cursors_close(cur, k);
	free(sx);
	free(sy);
	return e;
}

/* ---- step 5: same-round clusters on rank 0, in order ------------------- */

static enum cr_err cluster(struct dd *d)
{
	struct hmap dup;
	const void *rp;
	size_t rn;
	enum cr_err e = xsort_finish(d->inbox);

	hmap_init(&dup);
	while (!e && (e = xsort_next(d->inbox, &rp, &rn)) == CR_OK) {
		const unsigned char *r = rp;
		char kx[8], ky[8];
		void **slot;

		if (rn < EDGE_HEAD) {
			e = CR_ERR_FORMAT;
			break;
		}
		memcpy(kx, r, 8);
		memcpy(ky, r + 8, 8);
		if (be_get(r + 8, 8) == 0) {
			slot = hmap_put(&dup, kx, 8);
			if (!slot)
				e = CR_ERR_NOMEM;
			else
				*slot = (void *)1;
			continue;
		}
		/* Edges of X come by rising Y id, and every Y precedes X: the
		 * first Y that is not itself a duplicate leads X's cluster. */
		if (hmap_get(&dup, kx, 8) || hmap_get(&dup, ky, 8))
			continue;
		slot = hmap_put(&dup, kx, 8);
		if (!slot) {
			e = CR_ERR_NOMEM;
			break;
		}
		*slot = (void *)1;
		d->rec.len = 0;
		buf_add(&d->rec, r, 8);
		buf_add(&d->rec, r + EDGE_HEAD, rn - EDGE_HEAD);
		e = post(d, (int)be_get(r + 16, 4), d->rec.p, d->rec.len);
	}
	if (e == CR_EOF)
		e = CR_OK;
	hmap_release(&dup);
	return e;
}

static enum cr_err take_decision(struct dd *d, const unsigned char *r, size_t n)
{
	if (n < 8)
		return CR_ERR_FORMAT;
	d->c[DC_DUPLICATES]++;
	return decide(d->res, be_get(r, 8), (const char *)r + 8, n - 8);
}

/* ---- step 6: the next signature store --------------------------------- */

/* The round's run of p's signature store (the round's signatures, each
 * marked representative or not) and its next version (runs.h). */
static enum cr_err write_sigs(struct dd *d, uint32_t p)
{
	char path[PATH_MAX];
	struct dedup_runs rs;
	struct dedup_run round = { (uint32_t)d->seg, 0, 0 };
	struct sig_cursor n;
	struct recfile_writer *w = NULL;
	enum cr_err e = dedup_runs_load(&d->j->dir, d->ver, DEDUP_SIG, p, &rs);

	dedup_runs_path(&d->j->dir, d->ver + 1, DEDUP_SIG, p, &round, path, sizeof(path));
	memset(&n, 0, sizeof(n));
	if (!e)
		e = cursor_open_new(d, &n, p);
	if (!e)
		e = recfile_writer_open(path, REC_KIND_SORT, 1, &w);
	while (!e && n.live) {
		char k[8];

		d->rec.len = 0;
		buf_add(&d->rec, n.p, n.n);
		memcpy(k, n.p, 8);
		d->rec.p[12] = hmap_get(&d->res->dups, k, 8) ? 0 : 1;
		e = recfile_writer_add(w, d->rec.p, d->rec.len);
		if (!e)
			e = cursor_next(&n);
	}
	cursor_close(&n);
	if (!e && recfile_writer_count(w))
		e = recfile_writer_commit(&w);
	recfile_writer_abort(&w);
	if (!e)
		e = dedup_runs_next(&d->j->dir, d->ver, DEDUP_SIG, p, &rs, (uint32_t)d->seg,
				    (size_t)d->j->cfg.dedup_max_runs, &d->c[DC_STORE_BYTES]);
	if (e)
		log_err("dedup", "cannot write signature store run '%s': %s", path, error_str(e));
	return e;
}

/* ---- the run --------------------------------------------------------------- */

/* Resets the inbox for the next exchange. */
static enum cr_err fresh_inbox(struct dd *d)
{
	xsort_free(&d->inbox);
	return xsort_new(d->j->tmpdir, d->budget, cmp_bytes, &d->inbox);
}

static enum cr_err steps(struct dd *d)
{
	uint32_t p;
	enum cr_err e = read_round(d);

	if (!e)
		e = new_sorts(d);
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	e = exchange(d, file_band);
	for (p = 0; !e && p < d->P; p++)
		if (d->sorts[p]) {
			e = merge_bands(d, p);
			xsort_free(&d->sorts[p]);
		}
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	e = exchange(d, file_inbox);
	if (!e)
		e = answer(d);
	if (!e)
		e = fresh_inbox(d);
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	e = exchange(d, file_inbox);
	if (!e)
		e = verify(d);
	if (!e)
		e = fresh_inbox(d);
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	e = exchange(d, file_inbox);
	if (!e && d->j->rank == 0)
		e = cluster(d);
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	e = exchange(d, take_decision);
	for (p = 0; !e && p < d->P; p++)
		if (owned(d, p))
			e = write_sigs(d, p);
	return e;
}

enum cr_err dedup_run(struct job *j, int seg, int ver, struct dedup_result *res,
		      uint64_t *counters)
{
	struct dd d;
	uint32_t p, nown = 0;
	enum cr_err e;

	if (!j->cfg.dedup_enabled)
		return CR_OK;
	memset(&d, 0, sizeof(d));
	d.j = j;
	d.seg = seg;
	d.ver = ver;
	d.P = j->dir.partitions;
	d.H = (unsigned)j->cfg.dedup_hashes;
	d.B = (unsigned)j->cfg.dedup_bands;
	d.R = d.H / d.B;
	d.M = (unsigned)j->cfg.dedup_max_cand;
	d.t = j->cfg.dedup_threshold;
	d.c = counters;
	d.res = res;
	for (p = 0; p < d.P; p++)
		nown += owned(&d, p);
	/* A quarter of the memory budget, shared by the sorts alive at once:
	 * one per owned partition, the outbox and the inbox. */
	d.budget = mem_budget(j->cfg.memory_budget_mb) / 4 / (nown + 2);
	buf_init(&d.rec);
	buf_init(&d.post);
	d.sorts = calloc(d.P, sizeof(*d.sorts));
	e = d.sorts ? xsort_new(j->tmpdir, d.budget, cmp_bytes, &d.outbox) : CR_ERR_NOMEM;
	if (!e)
		e = xsort_new(j->tmpdir, d.budget, cmp_bytes, &d.inbox);
	if (d.H % d.B) {
		log_err("dedup", "dedup.bands (%u) must divide dedup.hashes (%u)", d.B, d.H);
		e = CR_ERR_ARG;
	}
	if (!comm_agree(e == CR_OK))
		e = e ? e : CR_ERR_COMM;
	else
		e = steps(&d);
	for (p = 0; p < d.P; p++) {
		char path[PATH_MAX];

		if (owned(&d, p)) {
			newsig_path(&d, p, path, sizeof(path));
			unlink(path);
		}
	}
	if (d.sorts)
		free_sorts(&d);
	free(d.sorts);
	xsort_free(&d.outbox);
	xsort_free(&d.inbox);
	buf_release(&d.rec);
	buf_release(&d.post);
	return e;
}

enum cr_err dedup_carry(const struct job *j, int ver)
{
	enum cr_err e = CR_OK;
	uint32_t p;
	int k;

	for (p = 0; !e && ver > 0 && p < j->dir.partitions; p++) {
		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		for (k = 0; !e && k < DEDUP_STORES; k++)
			e = dedup_runs_carry(&j->dir, ver, ver + 1, (enum dedup_store)k, p);
	}
	return e;
}

/*
 * ranked.c - generate in priority order, and under the round's budget;
 * see part.h.
 *
 * A due URL becomes a candidate: its host, its key (topn.h: priority,
 * then URL hash) and its record, sorted so that a host's candidates come
 * together, best first. Its host's caps (generate.max_per_host, the
 * politeness bound, demotion) are then applied in that order, so that
 * what they cut is the least important.
 */
#include "generate/part.h"
#include "util/be.h"
#include "store/xsort.h"
#include "url/url.h"
#include "util/log.h"
#include "util/mem.h"

#include <float.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

/* Candidate bytes: the host, NUL, the sort key's 16 bytes complemented
 * and big-endian (so that bytewise order is best first), the budget's
 * side (one byte) and key (16 bytes, as they are), the packed record. */
#define KEY_BYTES 16
#define CAND_BYTES (2 * KEY_BYTES + 1)

/* Where a candidate stands: its place in its host's order, and in the
 * round's budget (budget.h: new URLs by the same key, refetches by
 * refresh_key). */
struct cand_keys {
	struct topn_key sort;
	enum budget_side side;
	struct topn_key budget;
};

static void put_be64(struct buf *b, uint64_t v)
{
	unsigned char x[8];

	be_put(x, v, 8);
	buf_add(b, x, 8);
}

static void cand_pack(struct buf *b, const char *host, const struct cand_keys *k,
		      const void *rec, size_t n)
{
	unsigned char side = (unsigned char)k->side;

	b->len = 0;
	buf_add(b, host, strlen(host) + 1);
	put_be64(b, ~k->sort.hi);
	put_be64(b, ~k->sort.lo);
	buf_add(b, &side, 1);
	put_be64(b, k->budget.hi);
	put_be64(b, k->budget.lo);
	buf_add(b, rec, n);
}

/* The keys and the record of candidate bytes; -1 if damaged. */
static int cand_unpack(const void *p, size_t n, struct cand_keys *k, const void **rec,
		       size_t *rn)
{
	const unsigned char *c = p, *nul = memchr(p, 0, n);
	size_t at;

	if (!nul || n - (size_t)(nul - c) - 1 < CAND_BYTES)
		return -1;
	at = (size_t)(nul - c) + 1;
	k->sort.hi = ~be_get(c + at, 8);
	k->sort.lo = ~be_get(c + at + 8, 8);
	if (c[at + KEY_BYTES] >= BUDGET_SIDES)
		return -1;
	k->side = (enum budget_side)c[at + KEY_BYTES];
	k->budget.hi = be_get(c + at + KEY_BYTES + 1, 8);
	k->budget.lo = be_get(c + at + KEY_BYTES + 9, 8);
	*rec = c + at + CAND_BYTES;
	*rn = n - at - CAND_BYTES;
	return 0;
}

static int cand_cmp(const void *a, size_t an, const void *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : an < bn ? -1 : an > bn;
}

/* What rank/ says of rec: the part's rank records are read along, both
 * being in URL order. */
static void ranks_of(struct gen_part *g, const struct crawl_record *rec, struct score_ranks *rk)
{
	memset(rk, 0, sizeof(*rk));
	while (g->ranks && g->rank_live) {
		size_t have = g->rank_cur.url_len, want = rec->url_len;
		int c = memcmp(g->rank_cur.url, rec->url, have < want ? have : want);

		if (!c)
			c = have < want ? -1 : have > want;
		if (c > 0)
			return;
		if (!c) {
			rk->have = 1;
			rk->page = g->rank_cur.page;
			rk->host = g->rank_cur.host;
			rk->harmonic = g->rank_cur.harmonic;
			return;
		}
		generate_next_rank(g);
	}
}

/* The key of a record in its host's order: its site's root page first
 * (score_is_root), then by the order generate.order asks for: its
 * priority, then its URL's hash - for pagerank and hostrank, the top 24
 * bits of its secondary (score_secondary) before 40 bits of the hash. Two
 * URLs whose keys are equal are both taken or both left, so a budget may
 * take one more: for 64 bits, or 40 of hash and 24 of a secondary, a
 * chance of about n^2 / 2^65 or n^2 / 2^41 among n ties. */
static void keys_of(struct gen_part *g, const struct crawl_record *rec, struct cand_keys *k)
{
	struct score_ranks rk;
	uint64_t second, h = XXH3_64bits(rec->url, rec->url_len);

	ranks_of(g, rec, &rk);
	k->sort = topn_key_of(score_priority(rec, &rk, &g->score), h);
	if (g->score.order == SCORE_ORDER_PAGERANK || g->score.order == SCORE_ORDER_HOSTRANK) {
		second = topn_key_of(score_secondary(rec, &rk, &g->score), 0).hi;
		k->sort.lo = (second & 0xffffff0000000000ull) | h >> 24;
	}
	k->side = BUDGET_NEW;
	k->budget = k->sort;
	/* just under a requisite's HUGE_VAL: after requisites, before the rest */
	if (score_is_root(rec))
		k->sort.hi = topn_key_of(DBL_MAX, 0).hi;
	if (g->budget && refresh_is_refetch(rec)) {
		k->side = BUDGET_REFETCH;
		k->budget = topn_key_of(refresh_key_of(&g->refresh, rec, g->now), h);
	}
}

/* Pass one: every record judged; the due ones, their host's caps not yet
 * applied, sorted as candidates. CR_EOF at the end. */
static enum cr_err collect(struct gen_part *g, struct recfile_reader *r, const char *in,
			   struct xsort *x)
{
	struct buf b;
	const void *data;
	size_t n;
	enum cr_err e = CR_EOF;

	buf_init(&b);
	while (r && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		struct generate_host h;
		char host[URL_HOST_MAX];
		enum generate_verdict v;
		struct cand_keys k;

		if (generate_judge(g, data, n, &rec, host, &h, &v)) {
			log_err("generate", "damaged record in '%s'", in);
			e = CR_ERR_FORMAT;
			break;
		}
		g->c[GC_RECORDS]++;
		if (generate_settled(v) || !host[0]) {
			generate_account(g, &rec, host, &h, v);
			continue;
		}
		keys_of(g, &rec, &k);
		cand_pack(&b, host, &k, data, n);
		if ((e = xsort_add(x, b.p, b.len)) != CR_OK)
			break;
	}
	buf_release(&b);
	return e;
}

/* Pass two: the candidates in order, each host's caps applied; the
 * selected written to w (as records, or with a budget as candidates
 * whose keys the budget counts). CR_EOF at the end. */
static enum cr_err take(struct gen_part *g, struct xsort *x, struct recfile_writer *w)
{
	const void *data, *rp;
	size_t n, rn;
	enum cr_err e;

	while ((e = xsort_next(x, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		struct generate_host h;
		char host[URL_HOST_MAX];
		enum generate_verdict v;
		struct cand_keys k;

		if (cand_unpack(data, n, &k, &rp, &rn) ||
		    generate_judge(g, rp, rn, &rec, host, &h, &v)) {
			log_err("generate", "damaged record in generate's sort");
			return CR_ERR_FORMAT;
		}
		if (!generate_account(g, &rec, host, &h, v))
			continue;
		if (!g->budget)
			e = recfile_writer_add(w, rp, rn);
		else if ((e = recfile_writer_add(w, data, n)) == CR_OK)
			e = budget_add(g->budget, k.side, k.budget);
		if (e)
			return e;
	}
	return e;
}

enum cr_err ranked_select(struct gen_part *g, struct recfile_reader *r, const char *in,
			  struct recfile_writer *w)
{
	size_t budget = mem_budget(g->j->cfg.memory_budget_mb) / 4;
	struct xsort *x;
	enum cr_err e = xsort_new(g->j->tmpdir, budget, cand_cmp, &x);

	if (e)
		return e;
	e = collect(g, r, in, x);
	if (e == CR_EOF)
		e = xsort_finish(x);
	if (!e)
		e = take(g, x, w);
	xsort_free(&x);
	return e;
}

void ranked_tmp_path(const struct job *j, uint32_t p, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s/generate-%05u", j->tmpdir, (unsigned)p);

	if (n < 0 || (size_t)n >= cap)
		out[0] = '\0';   /* opening "" fails, and says so */
}

/* The candidates of the part's reader r within the budget, into w. */
static enum cr_err write_taken(struct recfile_reader *r, struct recfile_writer *w,
			       const struct budget *b, uint64_t *c)
{
	const void *data, *rp;
	size_t n, rn;
	enum cr_err e;

	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct cand_keys k;

		if (cand_unpack(data, n, &k, &rp, &rn))
			return CR_ERR_FORMAT;
		if (!budget_takes(b, k.side, k.budget)) {
			/* counted selected by its host's caps: the budget left it */
			c[GC_SELECTED]--;
			c[GC_BUDGET_CAPPED]++;
			continue;
		}
		if ((e = recfile_writer_add(w, rp, rn)) != CR_OK)
			return e;
	}
	return e;
}

enum cr_err ranked_write(struct job *j, int seg, uint32_t p, const struct budget *b,
			 uint64_t *c)
{
	char in[PATH_MAX], out[PATH_MAX];
	struct recfile_reader *r;
	struct recfile_writer *w;
	enum cr_err e;

	ranked_tmp_path(j, p, in, sizeof(in));
	layout_segment_part(&j->dir, seg, "fetchlist", p, out, sizeof(out));
	e = recfile_reader_open(in, REC_KIND_SORT, &r);
	if (e) {
		log_err("generate", "cannot read '%s'", in);
		return e;
	}
	e = recfile_writer_open(out, REC_KIND_FETCHLIST, (int)j->cfg.zstd_level, &w);
	if (!e) {
		e = write_taken(r, w, b, c);
		if (e == CR_EOF)
			e = recfile_writer_commit(&w);
		else
			recfile_writer_abort(&w);
	}
	recfile_reader_free(&r);
	if (e == CR_ERR_FORMAT)
		log_err("generate", "damaged record in '%s'", in);
	return e;
}

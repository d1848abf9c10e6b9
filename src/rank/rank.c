/*
 * rank.c - mpicrawl rank: the page graph ranked in parts, the host graph in
 * full on every rank; see rank.h.
 */
#include "rank/rank.h"
#include "comm/comm.h"
#include "crawldb/layout.h"
#include "crawldb/parse_record.h"
#include "rank/pagerank.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define DAMPING 0.85

static void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	p = realloc(p, c * size);
	if (!p) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	*cap = c;
	return p;
}

/* A URL this rank holds (its partitions'), or a target it sends rank to. */
struct target {
	const char *url;   /* the targets map's key */
	uint32_t owner;    /* the rank that holds it */
	uint32_t slot;     /* its place in the values sent each step */
};

struct edge {
	uint32_t src;      /* a node of this rank */
	uint32_t tgt;      /* a target */
};

/* The page graph as this rank holds it. */
struct pgraph {
	int rank, nranks;
	const struct crawl_dir *dir;
	struct hmap nodes;       /* URL -> node + 1 */
	const char **url;        /* node -> URL (the map's key) */
	size_t n, ncap;
	struct hmap targets;     /* URL -> target + 1 */
	struct target *t;
	size_t nt, tcap;
	struct edge *e;
	size_t ne, ecap;
	uint32_t *deg;           /* node -> distinct targets */
	size_t *send_off;        /* nranks + 1: each rank's slots */
	size_t *recv_off;        /* nranks + 1: what each rank sends, in recv_idx */
	uint32_t *recv_idx;      /* node each value received adds to */
	uint64_t skipped;        /* parse records of another rank's URL */
};

static uint32_t node_of(struct pgraph *g, const char *url, size_t len)
{
	void **slot = hmap_put(&g->nodes, url, len);

	if (!*slot) {
		g->url = xgrow(g->url, &g->ncap, g->n + 1, sizeof(*g->url));
		g->url[g->n] = hmap_key(slot);
		*slot = (void *)(uintptr_t)(++g->n);
	}
	return (uint32_t)((uintptr_t)*slot - 1);
}

static uint32_t target_of(struct pgraph *g, const char *url, size_t len)
{
	void **slot = hmap_put(&g->targets, url, len);

	if (!*slot) {
		struct target *t;

		g->t = xgrow(g->t, &g->tcap, g->nt + 1, sizeof(*g->t));
		t = &g->t[g->nt];
		t->url = hmap_key(slot);
		t->owner = (uint32_t)layout_owner(layout_partition(g->dir, url, len), g->nranks);
		t->slot = 0;
		*slot = (void *)(uintptr_t)(++g->nt);
	}
	return (uint32_t)((uintptr_t)*slot - 1);
}

/* The links of one parse record: its URL a node, each link an edge. */
static void take_record(struct pgraph *g, const struct parse_record *pr)
{
	uint32_t src;
	size_t pos = 0, len;
	const char *url;

	if (pr->flags & PARSE_SITEMAP)
		return;
	if (layout_owner(layout_partition(g->dir, pr->url, pr->url_len), g->nranks) != g->rank) {
		g->skipped++;
		return;
	}
	src = node_of(g, pr->url, pr->url_len);
	while (parse_record_link(pr, &pos, &url, &len) == CR_OK) {
		if (len == pr->url_len && !memcmp(url, pr->url, len))
			continue;   /* a link to itself ranks nothing */
		g->e = xgrow(g->e, &g->ecap, g->ne + 1, sizeof(*g->e));
		g->e[g->ne].src = src;
		g->e[g->ne].tgt = target_of(g, url, len);
		g->ne++;
	}
}

/* Reads one parse part (absent: a segment without parse data there). */
static enum cr_err load_part(struct pgraph *g, const char *path)
{
	struct recfile_reader *r = NULL;
	const void *data;
	size_t n;
	enum cr_err e;

	if (!recfile_exists(path))
		return CR_OK;
	e = recfile_reader_open(path, REC_KIND_PARSE, &r);
	while (!e && (e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct parse_record pr;

		if (parse_record_unpack(data, n, &pr) != CR_OK) {
			e = CR_ERR_FORMAT;
			break;
		}
		take_record(g, &pr);
	}
	recfile_reader_free(&r);
	if (e != CR_EOF)
		log_err("rank", "cannot read parse data '%s'", path);
	return e == CR_EOF ? CR_OK : e;
}

static int by_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->tgt < y->tgt ? -1 : x->tgt > y->tgt;
}

/* Every owned partition's parse parts of every segment; then each edge
 * once, and the out-degrees. */
static enum cr_err load(struct pgraph *g)
{
	int last = layout_segment_last(g->dir), seg;
	uint32_t p;
	size_t i, k = 0;
	enum cr_err e = CR_OK;

	for (seg = 1; !e && seg <= last; seg++)
		for (p = 0; !e && p < g->dir->partitions; p++) {
			char path[PATH_MAX];

			if (!layout_owns(p, g->rank, g->nranks))
				continue;
			layout_segment_part(g->dir, seg, "parse", p, path, sizeof(path));
			e = load_part(g, path);
		}
	if (g->ne)
		qsort(g->e, g->ne, sizeof(*g->e), by_edge);
	for (i = 0; i < g->ne; i++)
		if (!k || by_edge(&g->e[i], &g->e[k - 1]))
			g->e[k++] = g->e[i];
	g->ne = k;
	return e;
}

static const struct target *sort_base;

static int by_owner_url(const void *a, const void *b)
{
	const struct target *x = &sort_base[*(const uint32_t *)a];
	const struct target *y = &sort_base[*(const uint32_t *)b];

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return strcmp(x->url, y->url);
}

/* Sends send[r] to every rank r and gets theirs (a count, then items). */
static enum cr_err exchange(struct pgraph *g, struct buf *send, struct buf *recv)
{
	enum cr_err e = comm_exchange(send, recv);
	int r;

	for (r = 0; r < g->nranks; r++)
		send[r].len = 0;
	return e;
}

/*
 * Collective, once: each target's slot (targets ordered by owner, then
 * URL), its URL sent to its owner, who makes it a node; what each rank
 * will send each step and where each value goes.
 */
static enum cr_err setup(struct pgraph *g, struct buf *send, struct buf *recv)
{
	uint32_t *order = malloc((g->nt ? g->nt : 1) * sizeof(*order));
	struct buf_reader rd;
	size_t i, cap = 0, nrecv = 0;
	enum cr_err e;
	int r;

	g->send_off = calloc((size_t)g->nranks + 1, sizeof(*g->send_off));
	g->recv_off = calloc((size_t)g->nranks + 1, sizeof(*g->recv_off));
	if (!comm_agree(order && g->send_off && g->recv_off)) {
		free(order);
		return order && g->send_off && g->recv_off ? CR_ERR_COMM : CR_ERR_NOMEM;
	}
	for (i = 0; i < g->nt; i++)
		order[i] = (uint32_t)i;
	sort_base = g->t;
	if (g->nt)
		qsort(order, g->nt, sizeof(*order), by_owner_url);
	for (i = 0; i < g->nt; i++) {
		g->t[order[i]].slot = (uint32_t)i;
		g->send_off[g->t[order[i]].owner + 1]++;
	}
	for (r = 0; r < g->nranks; r++) {
		g->send_off[r + 1] += g->send_off[r];
		buf_put_varint(&send[r], g->send_off[r + 1] - g->send_off[r]);
	}
	for (i = 0; i < g->nt; i++) {
		const struct target *t = &g->t[order[i]];

		buf_put_str(&send[t->owner], t->url, strlen(t->url));
	}
	free(order);
	recv->len = 0;
	e = exchange(g, send, recv);
	buf_reader_init(&rd, recv->p, recv->len);
	for (r = 0; !e && r < g->nranks; r++) {
		uint64_t k, j;

		if (buf_get_varint(&rd, &k) || k > recv->len) {
			e = CR_ERR_FORMAT;
			break;
		}
		g->recv_off[r] = nrecv;
		for (j = 0; j < k; j++) {
			const char *u;
			size_t ul;

			if (buf_get_str(&rd, &u, &ul)) {
				e = CR_ERR_FORMAT;
				break;
			}
			g->recv_idx = xgrow(g->recv_idx, &cap, nrecv + 1, sizeof(*g->recv_idx));
			g->recv_idx[nrecv++] = node_of(g, u, ul);
		}
	}
	g->recv_off[g->nranks] = nrecv;
	g->deg = calloc(g->n ? g->n : 1, sizeof(*g->deg));
	if (!e && !g->deg)
		e = CR_ERR_NOMEM;
	for (i = 0; !e && i < g->ne; i++)
		g->deg[g->e[i].src]++;
	return e;
}

/* What the ranks computed and measured, for the summary. */
struct rank_stats {
	uint64_t nodes, edges, hosts, host_edges;
	unsigned iterations;
	double moved;
};

/*
 * Why fixed point. The ranks are summed in an order that depends on which
 * rank holds which source; in floating point the low bits, a tie and the
 * step the iteration stops at would then depend on the rank count, and so
 * would a budget's selection by page rank. As integers - units of 2^-60
 * of the whole rank, each source's share computed alone - the sums are
 * exact in any order: the same ranks on any rank count, bit for bit.
 */
#define RANK_ONE 1152921504606846976.0   /* 2^60: the whole rank */

/* One source's share to each of its deg targets, damped. */
static uint64_t share_of(uint64_t pr, uint32_t deg)
{
	return (uint64_t)((double)pr * DAMPING / (double)deg);
}

/* One power step's values out and in; *moved, the L1 change (all ranks). */
static enum cr_err page_step(struct pgraph *g, uint64_t total, uint64_t *pr, uint64_t *next,
			     uint64_t *vals, struct buf *send, struct buf *recv, uint64_t *moved)
{
	size_t slots = g->send_off[g->nranks], i;
	uint64_t dangling = 0, base;
	enum cr_err e;
	int r;

	for (i = 0; i < g->n; i++)
		if (!g->deg[i])
			dangling += pr[i];
	comm_sum_u64(&dangling, 1);
	memset(vals, 0, slots * sizeof(*vals));
	for (i = 0; i < g->ne; i++)
		vals[g->t[g->e[i].tgt].slot] += share_of(pr[g->e[i].src], g->deg[g->e[i].src]);
	for (r = 0; r < g->nranks; r++)
		buf_add(&send[r], vals + g->send_off[r],
			(g->send_off[r + 1] - g->send_off[r]) * sizeof(*vals));
	recv->len = 0;
	e = exchange(g, send, recv);
	if (!e && recv->len != g->recv_off[g->nranks] * sizeof(uint64_t))
		e = CR_ERR_FORMAT;
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	base = (uint64_t)(((1 - DAMPING) * RANK_ONE + DAMPING * (double)dangling) / (double)total);
	for (i = 0; i < g->n; i++)
		next[i] = base;
	for (i = 0; i < g->recv_off[g->nranks]; i++) {
		uint64_t v;

		memcpy(&v, recv->p + i * sizeof(v), sizeof(v));
		next[g->recv_idx[i]] += v;
	}
	*moved = 0;
	for (i = 0; i < g->n; i++) {
		*moved += next[i] > pr[i] ? next[i] - pr[i] : pr[i] - next[i];
		pr[i] = next[i];
	}
	comm_sum_u64(moved, 1);
	return CR_OK;
}

/*
 * Collective: the page ranks of this rank's nodes into pr (g->n, as
 * fractions of the whole), by power steps until the ranks move less than
 * tol (L1, over all ranks) or after max_it.
 */
static enum cr_err page_rank(struct pgraph *g, double tol, unsigned max_it, double *pr,
			     struct buf *send, struct buf *recv, struct rank_stats *st)
{
	size_t slots = g->send_off[g->nranks], i;
	uint64_t *vals = calloc(slots ? slots : 1, sizeof(*vals));
	uint64_t *fixed = calloc(g->n ? g->n : 1, sizeof(*fixed));
	uint64_t *next = calloc(g->n ? g->n : 1, sizeof(*next));
	uint64_t total = g->n, moved = 0;
	enum cr_err e = vals && fixed && next ? CR_OK : CR_ERR_NOMEM;

	if (comm_agree(e == CR_OK)) {
		comm_sum_u64(&total, 1);
		st->nodes = total;
		for (i = 0; total && i < g->n; i++)
			fixed[i] = (uint64_t)(RANK_ONE / (double)total);
		/* total and moved are the same on every rank: all stop together */
		for (st->iterations = 0; !e && total && st->iterations < max_it;) {
			e = page_step(g, total, fixed, next, vals, send, recv, &moved);
			st->iterations++;
			st->moved = (double)moved / RANK_ONE;
			if (st->moved < tol)
				break;
		}
		for (i = 0; i < g->n; i++)
			pr[i] = (double)fixed[i] / RANK_ONE;
	} else {
		e = e ? e : CR_ERR_COMM;
	}
	free(vals);
	free(fixed);
	free(next);
	return e;
}

/* The host graph, whole, the same on every rank. */
struct hgraph {
	struct hmap index;       /* host -> index + 1 */
	char **name;             /* index -> host, sorted */
	size_t n;
	uint64_t *off;           /* CSR */
	uint32_t *to;
	size_t nedges;
	double *pr;
	uint64_t *harmonic;      /* in units of PAGERANK_HARMONIC_ONE */
};

/* This rank's hosts and host links, packed: a count of hosts, each host,
 * a count of links, each as two hosts. */
static void pack_hosts(const struct pgraph *g, struct buf *out)
{
	struct hmap hosts, links;
	struct hmap_slot *s;
	char a[URL_HOST_MAX], b[URL_HOST_MAX], pair[2 * URL_HOST_MAX];
	size_t i;
	int have_a = 0;

	hmap_init(&hosts);
	hmap_init(&links);
	for (i = 0; i < g->n; i++)
		if (url_host(g->url[i], a, sizeof(a)) == CR_OK)
			*hmap_put(&hosts, a, strlen(a)) = (void *)1;
	for (i = 0; i < g->ne; i++) {
		int n;

		/* the edges are sorted by source: its host once per source */
		if (i == 0 || g->e[i].src != g->e[i - 1].src)
			have_a = url_host(g->url[g->e[i].src], a, sizeof(a)) == CR_OK;
		if (!have_a || url_host(g->t[g->e[i].tgt].url, b, sizeof(b)) != CR_OK ||
		    !strcmp(a, b))
			continue;
		n = snprintf(pair, sizeof(pair), "%s\t%s", a, b);
		*hmap_put(&links, pair, (size_t)n) = (void *)1;
	}
	buf_put_varint(out, hosts.count);
	for (i = 0; (s = hmap_next(&hosts, &i)) != NULL;)
		buf_put_str(out, s->key, s->klen);
	buf_put_varint(out, links.count);
	for (i = 0; (s = hmap_next(&links, &i)) != NULL;) {
		const char *tab = memchr(s->key, '\t', s->klen);

		buf_put_str(out, s->key, (size_t)(tab - s->key));
		buf_put_str(out, tab + 1, s->klen - (size_t)(tab - s->key) - 1);
	}
	hmap_release(&hosts);
	hmap_release(&links);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static uint32_t host_index(const struct hgraph *h, const char *name, size_t len)
{
	return (uint32_t)((uintptr_t)hmap_get(&h->index, name, len) - 1);
}

/* Builds h from every rank's packed hosts in recv (rank order): hosts
 * sorted by name, links once each, as CSR. */
static enum cr_err build_hosts(struct hgraph *h, const struct buf *recv, int nranks)
{
	struct buf_reader rd;
	uint32_t *pairs = NULL;
	size_t pcap = 0, np = 0, ncap = 0, i, k;
	struct hmap_slot *s;
	int r, pass;

	/* pass 0: the names; pass 1: the links, by index */
	for (pass = 0; pass < 2; pass++) {
		buf_reader_init(&rd, recv->p, recv->len);
		for (r = 0; r < nranks; r++) {
			uint64_t nh, nl, j;
			const char *a, *b;
			size_t al, bl;

			if (buf_get_varint(&rd, &nh) || nh > recv->len)
				goto damaged;
			for (j = 0; j < nh; j++) {
				if (buf_get_str(&rd, &a, &al))
					goto damaged;
				if (!pass)
					*hmap_put(&h->index, a, al) = (void *)1;
			}
			if (buf_get_varint(&rd, &nl) || nl > recv->len)
				goto damaged;
			for (j = 0; j < nl; j++) {
				if (buf_get_str(&rd, &a, &al) || buf_get_str(&rd, &b, &bl))
					goto damaged;
				if (!pass) {
					*hmap_put(&h->index, a, al) = (void *)1;
					*hmap_put(&h->index, b, bl) = (void *)1;
					continue;
				}
				pairs = xgrow(pairs, &pcap, np + 1, 2 * sizeof(*pairs));
				pairs[2 * np] = host_index(h, a, al);
				pairs[2 * np + 1] = host_index(h, b, bl);
				np++;
			}
		}
		if (pass)
			break;
		for (i = 0; (s = hmap_next(&h->index, &i)) != NULL;) {
			h->name = xgrow(h->name, &ncap, h->n + 1, sizeof(*h->name));
			h->name[h->n++] = s->key;
		}
		if (h->n)
			qsort(h->name, h->n, sizeof(*h->name), by_name);
		for (k = 0; k < h->n; k++)
			*hmap_put(&h->index, h->name[k], strlen(h->name[k])) =
				(void *)(uintptr_t)(k + 1);
	}
	if (np)
		qsort(pairs, np, 2 * sizeof(*pairs), by_pair);
	h->off = calloc(h->n + 1, sizeof(*h->off));
	h->to = malloc((np ? np : 1) * sizeof(*h->to));
	if (!h->off || !h->to) {
		free(pairs);
		return CR_ERR_NOMEM;
	}
	for (i = 0; i < np; i++) {
		if (i && !by_pair(&pairs[2 * i], &pairs[2 * (i - 1)]))
			continue;
		h->to[h->nedges++] = pairs[2 * i + 1];
		h->off[pairs[2 * i] + 1]++;
	}
	for (k = 0; k < h->n; k++)
		h->off[k + 1] += h->off[k];
	free(pairs);
	return CR_OK;
damaged:
	free(pairs);
	return CR_ERR_FORMAT;
}

/* Collective: the host graph gathered, ranked on every rank, harmonic
 * centrality shared out by source host. */
static enum cr_err host_rank(struct pgraph *g, struct hgraph *h, double tol, unsigned max_it,
			     struct buf *send, struct buf *recv, struct rank_stats *st)
{
	double moved, *scratch;
	int32_t *dist;
	uint32_t *queue;
	size_t i;
	enum cr_err e;
	int r;

	pack_hosts(g, &send[0]);
	for (r = 1; r < g->nranks; r++)
		buf_add(&send[r], send[0].p, send[0].len);
	recv->len = 0;
	e = exchange(g, send, recv);
	if (!e)
		e = build_hosts(h, recv, g->nranks);
	h->pr = calloc(h->n ? h->n : 1, sizeof(double));
	h->harmonic = calloc(h->n ? h->n : 1, sizeof(*h->harmonic));
	scratch = calloc(h->n ? h->n : 1, sizeof(double));
	dist = malloc((h->n ? h->n : 1) * sizeof(*dist));
	queue = malloc((h->n ? h->n : 1) * sizeof(*queue));
	if (!e && (!h->pr || !h->harmonic || !scratch || !dist || !queue))
		e = CR_ERR_NOMEM;
	if (comm_agree(e == CR_OK)) {
		pagerank_run(h->n, h->off, h->to, DAMPING, tol, max_it, h->pr, scratch, &moved);
		for (i = 0; i < h->n; i++)
			dist[i] = -1;
		for (i = (size_t)g->rank; i < h->n; i += (size_t)g->nranks)
			pagerank_harmonic_from(h->n, h->off, h->to, (uint32_t)i, h->harmonic, dist,
					       queue);
		comm_sum_u64(h->harmonic, h->n);
		st->hosts = h->n;
		st->host_edges = h->nedges;
	} else if (!e) {
		e = CR_ERR_COMM;
	}
	free(scratch);
	free(dist);
	free(queue);
	return e;
}

static const char *const *url_base;

static int by_url(const void *a, const void *b)
{
	return strcmp(url_base[*(const uint32_t *)a], url_base[*(const uint32_t *)b]);
}

/* Writes partition p's ranks: its nodes in nodes[0..n), sorted by URL. */
static enum cr_err write_part(struct pgraph *g, const struct hgraph *h, uint32_t p,
			      uint32_t *nodes, size_t n, const double *pr, double total)
{
	char path[PATH_MAX], host[URL_HOST_MAX];
	struct recfile_writer *w;
	struct buf b;
	size_t i;
	enum cr_err e;

	rank_part_path(g->dir, p, path, sizeof(path));
	e = recfile_writer_open(path, REC_KIND_RANK, 3, &w);
	if (e)
		return e;
	url_base = g->url;
	if (n)
		qsort(nodes, n, sizeof(*nodes), by_url);
	buf_init(&b);
	for (i = 0; !e && i < n; i++) {
		struct rank_record r = { g->url[nodes[i]], strlen(g->url[nodes[i]]),
					 pr[nodes[i]] * total, 0, 0 };

		if (url_host(r.url, host, sizeof(host)) == CR_OK && h->n) {
			uint32_t k = host_index(h, host, strlen(host));

			if (k < h->n) {
				r.host = h->pr[k] * (double)h->n;
				r.harmonic = h->n > 1 ? (double)h->harmonic[k] /
					PAGERANK_HARMONIC_ONE / (double)(h->n - 1) : 0;
			}
		}
		b.len = 0;
		rank_record_pack(&r, &b);
		e = recfile_writer_add(w, b.p, b.len);
	}
	buf_release(&b);
	if (e) {
		recfile_writer_abort(&w);
		return e;
	}
	return recfile_writer_commit(&w);
}

/* Every owned partition's file, empty when it holds no URL of the graph. */
static enum cr_err write_all(struct pgraph *g, const struct hgraph *h, const double *pr,
			     double total)
{
	uint32_t *parts = malloc((g->n ? g->n : 1) * sizeof(*parts));
	uint32_t *nodes = malloc((g->n ? g->n : 1) * sizeof(*nodes));
	uint32_t p;
	size_t i, k;
	enum cr_err e = parts && nodes ? CR_OK : CR_ERR_NOMEM;

	for (i = 0; !e && i < g->n; i++)
		parts[i] = layout_partition(g->dir, g->url[i], strlen(g->url[i]));
	for (p = 0; !e && p < g->dir->partitions; p++) {
		if (!layout_owns(p, g->rank, g->nranks))
			continue;
		for (i = k = 0; i < g->n; i++)
			if (parts[i] == p)
				nodes[k++] = (uint32_t)i;
		e = write_part(g, h, p, nodes, k, pr, total);
	}
	free(parts);
	free(nodes);
	return e;
}

static void pgraph_release(struct pgraph *g)
{
	hmap_release(&g->nodes);
	hmap_release(&g->targets);
	free(g->url);
	free(g->t);
	free(g->e);
	free(g->deg);
	free(g->send_off);
	free(g->recv_off);
	free(g->recv_idx);
}

static void hgraph_release(struct hgraph *h)
{
	hmap_release(&h->index);
	free(h->name);
	free(h->off);
	free(h->to);
	free(h->pr);
	free(h->harmonic);
}

/* rank/stats.json (rank 0), and the summary line. */
static enum cr_err report(const struct job *j, const struct rank_stats *st, double secs,
			  double tol)
{
	struct rusage ru;
	int64_t rss;
	char path[PATH_MAX], text[1024];
	int n;

	getrusage(RUSAGE_SELF, &ru);
	rss = (int64_t)ru.ru_maxrss;
	comm_max_i64(&rss, 1);
	if (j->rank != 0)
		return CR_OK;
	log_info("rank", "%llu URLs and %llu links: page rank after %u steps (last change %.3g, "
		 "tolerance %.3g); %llu hosts and %llu host links; %.1f s, peak RSS %lld MiB a "
		 "rank at most", (unsigned long long)st->nodes, (unsigned long long)st->edges,
		 st->iterations, st->moved, tol, (unsigned long long)st->hosts,
		 (unsigned long long)st->host_edges, secs, (long long)(rss / 1024));
	n = snprintf(text, sizeof(text),
		     "{\"urls\":%llu,\"links\":%llu,\"iterations\":%u,\"last_change\":%.6g,"
		     "\"tolerance\":%.6g,\"hosts\":%llu,\"host_links\":%llu,\"ranks\":%d,"
		     "\"seconds\":%.3f,\"max_rss_mib\":%lld}\n",
		     (unsigned long long)st->nodes, (unsigned long long)st->edges, st->iterations,
		     st->moved, tol, (unsigned long long)st->hosts,
		     (unsigned long long)st->host_edges, j->nranks, secs, (long long)(rss / 1024));
	layout_top(j->dir.root, "rank/stats.json", path, sizeof(path));
	return fs_write_atomic(path, text, (size_t)n);
}

enum cr_err rank_run(struct job *j)
{
	struct pgraph g;
	struct hgraph h;
	struct rank_stats st;
	struct buf *send = calloc((size_t)j->nranks, sizeof(*send)), recv;
	double *pr = NULL, tol = j->cfg.rank_tolerance;
	unsigned max_it = (unsigned)j->cfg.rank_max_iterations;
	int64_t t0 = clock_mono_us();
	char dir[PATH_MAX];
	enum cr_err e;
	int r;

	memset(&g, 0, sizeof(g));
	memset(&h, 0, sizeof(h));
	memset(&st, 0, sizeof(st));
	g.rank = j->rank;
	g.nranks = j->nranks;
	g.dir = &j->dir;
	hmap_init(&g.nodes);
	hmap_init(&g.targets);
	hmap_init(&h.index);
	buf_init(&recv);
	layout_top(j->dir.root, "rank", dir, sizeof(dir));
	e = send ? fs_mkdirs(dir) : CR_ERR_NOMEM;
	for (r = 0; send && r < j->nranks; r++)
		buf_init(&send[r]);
	if (!e)
		e = load(&g);
	if (comm_agree(e == CR_OK))
		e = setup(&g, send, &recv);
	else
		e = e ? e : CR_ERR_COMM;
	st.edges = g.ne;
	comm_sum_u64(&st.edges, 1);
	pr = calloc(g.n ? g.n : 1, sizeof(*pr));
	if (comm_agree(e == CR_OK && pr))
		e = page_rank(&g, tol, max_it, pr, send, &recv, &st);
	else
		e = e ? e : CR_ERR_COMM;
	if (comm_agree(e == CR_OK))
		e = host_rank(&g, &h, tol, max_it, send, &recv, &st);
	else
		e = e ? e : CR_ERR_COMM;
	if (comm_agree(e == CR_OK))
		e = write_all(&g, &h, pr, (double)st.nodes);
	else
		e = e ? e : CR_ERR_COMM;
	if (comm_agree(e == CR_OK))
		e = report(j, &st, (double)(clock_mono_us() - t0) / 1e6, tol);
	else
		e = e ? e : CR_ERR_COMM;
	/* rank 0 wrote stats.json: every rank returns the same */
	if (!comm_agree(e == CR_OK) && !e)
		e = CR_ERR_COMM;
	if (g.skipped)
		log_warn("rank", "%llu parse records of URLs of another rank's partitions left out",
			 (unsigned long long)g.skipped);
	free(pr);
	pgraph_release(&g);
	hgraph_release(&h);
	for (r = 0; send && r < j->nranks; r++)
		buf_release(&send[r]);
	free(send);
	buf_release(&recv);
	return e;
}

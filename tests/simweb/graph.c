/*
 * graph.c - the power-law web of --graph and its PageRank; see graph.h.
 */
#include "graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* A number of the web's seeded hash stream for (page, link, draw). */
static uint64_t graph_hash(const struct web *w, uint64_t g, unsigned j, unsigned draw)
{
	uint64_t key[3] = { g, j, draw };

	return XXH3_64bits_withSeed(key, sizeof(key), w->seed ^ 0x67726170680aULL);
}

static unsigned long long graph_gcd(unsigned long long a, unsigned long long b)
{
	while (b) {
		unsigned long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Popularity rank x of n to an index: x * a + n / 3 mod n, a coprime to n. */
static unsigned graph_perm(unsigned x, unsigned n)
{
	unsigned long long a = (unsigned long long)(n * 0.618) | 1;

	while (graph_gcd(a, n) != 1)
		a += 2;
	return (unsigned)(((unsigned long long)x * a + n / 3) % n);
}

/* A rank of n drawn by popularity from hash v: floor(n * u^3). */
static unsigned graph_rank(uint64_t v, unsigned n)
{
	double u = (double)(v >> 11) * 0x1.0p-53;
	unsigned x = (unsigned)((double)n * u * u * u);

	return x < n ? x : n - 1;
}

unsigned graph_links(const struct web *w, unsigned h, unsigned k, unsigned *out)
{
	uint64_t g = (uint64_t)h * w->pages + k, n = (uint64_t)w->hosts * w->pages;
	unsigned deg = 4 + (unsigned)(graph_hash(w, g, 0, 9) % 13), j;

	for (j = 0; j < deg; j++) {
		unsigned th = h, tk;
		uint64_t t;

		if (graph_hash(w, g, j, 0) % 1000 >= 600)
			th = graph_perm(graph_rank(graph_hash(w, g, j, 1), w->hosts), w->hosts);
		tk = graph_perm(graph_rank(graph_hash(w, g, j, 2), w->pages), w->pages);
		t = (uint64_t)th * w->pages + tk;
		if (t == g)
			t = (t + 1) % n;
		out[j] = (unsigned)t;
	}
	return deg;
}

void graph_respond(const struct web *w, unsigned h, const char *path, struct web_response *r)
{
	struct web_sb sb = { r->body, 0, sizeof(r->body) };
	unsigned links[GRAPH_LINKS_MAX], n, i;
	char *end;
	unsigned long k;

	r->len = 0;
	if (strncmp(path, "/g/", 3) || path[3] < '0' || path[3] > '9' ||
	    (k = strtoul(path + 3, &end, 10)) >= w->pages || strcmp(end, ".html")) {
		r->status = 404;
		web_sb_printf(&sb, "<!DOCTYPE html>\n<html><head><title>Not Found</title>"
			      "</head><body><p>Not found.</p></body></html>\n");
		r->len = sb.len;
		return;
	}
	n = graph_links(w, h, (unsigned)k, links);
	web_sb_printf(&sb, "<!DOCTYPE html>\n<html><head><title>%s page %lu</title></head>"
		      "<body><h1>%s %s</h1>\n<p>", WEB_HN(w, h), k,
		      web_word((uint64_t)h * w->pages + k), web_word(k + 7));
	for (i = 0; i < 40; i++)
		web_sb_printf(&sb, "%s ", web_word(graph_hash(w, (uint64_t)h * w->pages + k, i,
							      3)));
	web_sb_printf(&sb, "</p>\n<ul>\n");
	for (i = 0; i < n; i++)
		web_sb_printf(&sb, "<li><a href=\"http://%s:%u/g/%u.html\">%s</a></li>\n",
			      WEB_HN(w, links[i] / w->pages), w->port, links[i] % w->pages,
			      web_word(links[i]));
	web_sb_printf(&sb, "</ul></body></html>\n");
	r->len = sb.len;
}

void graph_seeds(const struct web *w, FILE *out)
{
	for (unsigned h = 0; h < w->hosts && h < 3; h++)
		fprintf(out, "http://%s:%u/g/0.html\n", WEB_HN(w, h), w->port);
}

static const double *graph_sort_pr;

static int graph_by_rank(const void *a, const void *b)
{
	double x = graph_sort_pr[*(const unsigned *)a], y = graph_sort_pr[*(const unsigned *)b];

	if (x != y)
		return x > y ? -1 : 1;
	return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

/* Power iterations over the links in to/deg: the ranks into pr. */
static void graph_iterate(size_t n, const unsigned *to, const unsigned char *deg, double *pr,
			  double *next)
{
	size_t i, it;
	unsigned j;

	for (i = 0; i < n; i++)
		pr[i] = 1.0 / (double)n;
	for (it = 0; it < 1000; it++) {
		double moved = 0;

		for (i = 0; i < n; i++)
			next[i] = 0.15 / (double)n;
		for (i = 0; i < n; i++)
			for (j = 0; j < deg[i]; j++)
				next[to[i * GRAPH_LINKS_MAX + j]] += 0.85 * pr[i] / deg[i];
		for (i = 0; i < n; i++) {
			moved += fabs(next[i] - pr[i]);
			pr[i] = next[i];
		}
		if (moved < 1e-13)
			break;
	}
}

int graph_pagerank(const struct web *w, FILE *out)
{
	size_t n = (size_t)w->hosts * w->pages, i;
	unsigned *to = malloc(n * GRAPH_LINKS_MAX * sizeof(*to)), *order = malloc(n * sizeof(*order));
	unsigned char *deg = malloc(n);
	double *pr = malloc(n * sizeof(*pr)), *next = malloc(n * sizeof(*next));
	int rc = -1;

	if (to && order && deg && pr && next) {
		for (i = 0; i < n; i++)
			deg[i] = (unsigned char)graph_links(w, (unsigned)(i / w->pages),
							    (unsigned)(i % w->pages),
							    to + i * GRAPH_LINKS_MAX);
		graph_iterate(n, to, deg, pr, next);
		for (i = 0; i < n; i++)
			order[i] = (unsigned)i;
		graph_sort_pr = pr;
		qsort(order, n, sizeof(*order), graph_by_rank);
		for (i = 0; i < n; i++)
			fprintf(out, "http://%s:%u/g/%u.html\t%.12g\n",
				WEB_HN(w, order[i] / w->pages), w->port, order[i] % w->pages,
				pr[order[i]]);
		rc = ferror(out) ? -1 : 0;
	}
	free(to);
	free(order);
	free(deg);
	free(pr);
	free(next);
	return rc;
}

int graph_print_links(const struct web *w, FILE *out)
{
	unsigned links[GRAPH_LINKS_MAX], n, h, k, i;

	for (h = 0; h < w->hosts; h++)
		for (k = 0; k < w->pages; k++) {
			n = graph_links(w, h, k, links);
			fprintf(out, "http://%s:%u/g/%u.html", WEB_HN(w, h), w->port, k);
			for (i = 0; i < n; i++)
				fprintf(out, "\thttp://%s:%u/g/%u.html", WEB_HN(w, links[i] / w->pages),
					w->port, links[i] % w->pages);
			fputc('\n', out);
		}
	return ferror(out) ? -1 : 0;
}

/*
 * pagerank.c - PageRank and harmonic centrality of a whole graph; see
 * pagerank.h.
 */
#include "rank/pagerank.h"

#include <math.h>

double pagerank_dangling(size_t n, const uint64_t *off, const double *pr)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (off[i] == off[i + 1])
			s += pr[i];
	return s;
}

double pagerank_step(size_t n, const uint64_t *off, const uint32_t *to, double damping,
		     const double *pr, double *next)
{
	double base = n ? ((1 - damping) + damping * pagerank_dangling(n, off, pr)) / (double)n : 0;
	double moved = 0;
	size_t i;
	uint64_t k;

	for (i = 0; i < n; i++)
		next[i] = base;
	for (i = 0; i < n; i++) {
		uint64_t deg = off[i + 1] - off[i];

		for (k = off[i]; k < off[i + 1]; k++)
			next[to[k]] += damping * pr[i] / (double)deg;
	}
	for (i = 0; i < n; i++)
		moved += fabs(next[i] - pr[i]);
	return moved;
}

unsigned pagerank_run(size_t n, const uint64_t *off, const uint32_t *to, double damping,
		      double tol, unsigned max_it, double *pr, double *scratch, double *moved)
{
	unsigned it = 0;
	size_t i;

	for (i = 0; i < n; i++)
		pr[i] = 1.0 / (double)n;
	*moved = 0;
	while (it < max_it) {
		*moved = pagerank_step(n, off, to, damping, pr, scratch);
		it++;
		for (i = 0; i < n; i++) {
			double v = scratch[i];

			scratch[i] = pr[i];
			pr[i] = v;
		}
		if (*moved < tol)
			break;
	}
	return it;
}

void pagerank_harmonic_from(size_t n, const uint64_t *off, const uint32_t *to, uint32_t s,
			    uint64_t *h, int32_t *dist, uint32_t *queue)
{
	size_t head = 0, tail = 0, i;
	uint64_t k;

	if (s >= n)
		return;
	dist[s] = 0;
	queue[tail++] = s;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (k = off[u]; k < off[u + 1]; k++) {
			uint32_t v = to[k];

			if (dist[v] >= 0)
				continue;
			dist[v] = dist[u] + 1;
			h[v] += PAGERANK_HARMONIC_ONE / (uint64_t)dist[v];
			queue[tail++] = v;
		}
	}
	for (i = 0; i < tail; i++)
		dist[queue[i]] = -1;
}

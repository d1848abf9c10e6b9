/*
 * pagerank.h - link analysis over a graph held whole: PageRank by power
 * iteration and harmonic centrality by breadth-first search. Pure: the
 * caller owns every array; nothing here allocates, does I/O or knows MPI.
 * mpicrawl rank (rank.h) runs them on the host graph, which every rank
 * holds; the page graph is too big for that and is ranked in parts
 * (rank.c), by the same step.
 *
 * The graph is CSR: node i's out-links are to[off[i] .. off[i + 1]).
 *
 * PageRank is the stationary distribution of a surfer who follows one of
 * the current node's links with probability d (the damping, 0.85) and
 * otherwise jumps to a node chosen uniformly; from a node without links he
 * always jumps. Ranks sum to 1.
 *
 * Harmonic centrality (Boldi and Vigna, "Axioms for centrality", 2014;
 * what Common Crawl ranks hosts by) of v is the sum over every other node u
 * of 1 / d(u, v), d the length of the shortest path of links from u to v
 * (0 when there is none): how near v is to the rest of the graph.
 */
#ifndef CR_RANK_PAGERANK_H
#define CR_RANK_PAGERANK_H

#include <stddef.h>
#include <stdint.h>

/*
 * One power step: next = the ranks after one more step from pr. n nodes;
 * dangling: the mass of the nodes without links (pagerank_dangling).
 * Returns the L1 distance between pr and next.
 */
double pagerank_step(size_t n, const uint64_t *off, const uint32_t *to, double damping,
		     const double *pr, double *next);

/* The rank the nodes without links hold. */
double pagerank_dangling(size_t n, const uint64_t *off, const double *pr);

/*
 * Iterates from the uniform distribution until a step moves the ranks by
 * less than tol (L1) or after max_it steps; the ranks in pr, scratch n
 * doubles. Returns the steps taken; *moved the last step's distance.
 */
unsigned pagerank_run(size_t n, const uint64_t *off, const uint32_t *to, double damping,
		      double tol, unsigned max_it, double *pr, double *scratch, double *moved);

/* 1 in the units of pagerank_harmonic_from's sums (2^40): integers, so
 * that the sums over sources split among ranks are exact in any order. */
#define PAGERANK_HARMONIC_ONE (1ull << 40)

/*
 * Adds to h[v] 1 / d(s, v), in units of PAGERANK_HARMONIC_ONE (rounded
 * down), for every v reached from source s; dist (n ints, all -1 on entry
 * and again on return) and queue (n) are scratch. Over every s, h is the
 * harmonic centrality.
 */
void pagerank_harmonic_from(size_t n, const uint64_t *off, const uint32_t *to, uint32_t s,
			    uint64_t *h, int32_t *dist, uint32_t *queue);

#endif

/*
 * graph.h - simweb --graph: a web whose links follow a power law, and the
 * PageRank of its every page, for benchmark E (how much of the web's
 * importance a crawl order fetches first).
 *
 * Page g = h * M + k of N = hosts x M pages is /g/k.html on host h. It has
 * 4 to 16 links; each goes to its own host with probability 0.6, else
 * anywhere. A target is drawn by popularity: a rank x = floor(n * u^3)
 * (u uniform in [0, 1), n the pages or hosts to choose from), so the
 * low ranks get most links, then mapped to a page (or host) index by a
 * fixed permutation, so that popularity is scattered over the web rather
 * than given to its first pages. In-degrees follow a power law (a tail of
 * exponent about 2.5) and every page expects 3 links or more, so nearly
 * all are reachable from any seed. Every link is a function of (seed, g,
 * link number): any page renders alone, in any order.
 *
 * robots.txt is 404 (all allowed); the seeds are /g/0.html of h0000 to
 * h0002. --pagerank prints "URL<TAB>PAGERANK" for every page, best first:
 * the stationary distribution of the random surfer who follows a link
 * with probability 0.85 and jumps to a page chosen uniformly otherwise,
 * by power iteration until the ranks move less than 1e-13 in sum. --links
 * prints every page's URL and its links' URLs, tab-separated, a line a
 * page in page order (what a crawl order would see, for benchmark E's
 * bound on what any order of its rounds can reach).
 */
#ifndef SIMWEB_GRAPH_H
#define SIMWEB_GRAPH_H

#include <stdio.h>

#include "web.h"

#define GRAPH_LINKS_MAX 16u

/* The links of page (h, k): their global page numbers into out
 * (GRAPH_LINKS_MAX); returns how many. */
unsigned graph_links(const struct web *w, unsigned h, unsigned k, unsigned *out);
/* Answers path of host h: every path of a --graph web. */
void graph_respond(const struct web *w, unsigned h, const char *path, struct web_response *r);
void graph_seeds(const struct web *w, FILE *out);
/* --pagerank; 0, or -1 when memory ran out or out failed. */
int graph_pagerank(const struct web *w, FILE *out);
/* --links; 0, or -1 when out failed. */
int graph_print_links(const struct web *w, FILE *out);

#endif

/*
 * rank.h - mpicrawl rank: link analysis over the link graph the crawl has
 * fetched, for the next generate (docs/SCORING.md).
 *
 * The graph: every link of every parse record of every segment (a
 * redirect's target too; sitemaps are not links), once per source and
 * target. Three measures:
 *
 * - page PageRank, over all URLs the links name. Each rank holds the URLs
 *   of its partitions: their links come from its own parse parts, and a
 *   URL's rank arrives from the sources of its inlinks by one exchange of
 *   MPI_Alltoallv a power step (comm_exchange), only the values (the
 *   targets of each pair of ranks are agreed once, before the steps).
 * - host PageRank and harmonic centrality, over the host graph (a link
 *   between two hosts when some page of one links to a page of the other):
 *   every rank gathers the whole host graph, which is far smaller, ranks
 *   it in full (pagerank.h), and runs the breadth-first searches of its
 *   share of the hosts for harmonic centrality.
 *
 * Output: rank/part-PPPPP.zst (record kind 11), per partition the URLs of
 * the graph sorted by URL, each with its page rank scaled so that the mean
 * is 1, its host's PageRank scaled likewise over the hosts, and its host's
 * harmonic centrality divided by hosts - 1 (1: every other host links to
 * it). rank/stats.json: what was computed, iterations, the last step's
 * change, seconds and peak memory per rank.
 *
 * Memory per rank: the edges of its partitions' pages (about 24 bytes
 * each, and the URL of every distinct target once), its URLs' ranks, and
 * the whole host graph.
 */
#ifndef CR_RANK_RANK_H
#define CR_RANK_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "rank/record.h"
#include "util/error.h"

/* Collective: ranks the graph of the crawl of j and writes rank/. */
CR_WUR enum cr_err rank_run(struct job *j);

#endif

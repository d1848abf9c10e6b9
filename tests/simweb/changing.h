/*
 * changing.h - simweb --changing: a web whose pages change over time, and
 * the freshness a crawler kept of it, for the freshness benchmark (how well
 * a recrawl policy keeps its copies up to date).
 *
 * Page g = h * M + k of N = hosts x M pages is /c/k.html on host h. It
 * changes as a Poisson process of rate r_g from the epoch E (--epoch):
 * the rates are log-uniform from yearly to hourly, spread evenly over the
 * pages, r_g = rmin * (rmax / rmin)^((perm(g) + 0.5) / N), perm a fixed
 * permutation of the pages drawn from --seed, so fast and slow pages are
 * scattered over the hosts. The gaps between changes are -ln(u) / r_g, u
 * in (0, 1] from a splitmix64 stream of (seed, g); version(g, t) is the
 * number of changes at or before t - E. Everything is a function of (seed,
 * g, t): the server and the freshness analysis count the same changes.
 *
 * A page is a title, a heading and about 150 words drawn from (seed, g,
 * version), with its version number: a new version reads differently and
 * no two pages are near-duplicates. No links; robots.txt, / and any other
 * path are 404. Last-Modified is the time of the version's change; for
 * version 0, the page's last change before E, drawn as far back as a gap
 * (the process is memoryless: it had been running long before E). The server picks the version by the request's t_start in
 * the log (the simulated clock of --clock-file, server.h).
 *
 * --freshness reads the request log: a copy fetched at t (status 200) is
 * fresh until the page's next change after t, then stale until the next
 * fetch; a page never fetched is stale. Freshness is the share of page
 * time in [T1, T2] that was fresh.
 */
#ifndef SIMWEB_CHANGING_H
#define SIMWEB_CHANGING_H

#include <stdio.h>

#include "web.h"

/* Changes per second of page g. */
double changing_rate(const struct web *w, unsigned g);
/* Answers GET path of host (lower case, no port) at t_us, unix µs on the
 * server's clock: every path of a --changing web. */
void changing_respond(const struct web *w, const char *host, const char *path, long long t_us,
		      struct web_response *r);
/* --changing --seeds: every page's URL, in page order. */
int changing_seeds(const struct web *w, FILE *out);
/* --changing --rates: "URL<TAB>RATE" (changes per second), in page order. */
int changing_rates(const struct web *w, FILE *out);
/*
 * --freshness: reads the request log in, writes the freshness over [from,
 * to] (unix seconds) to out and one line of skipped log lines to stderr.
 * Returns 0, or -1 after a one-line message (memory, read or output error).
 */
int changing_freshness(const struct web *w, FILE *in, long long from, long long to, FILE *out);

#endif

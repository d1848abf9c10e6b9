/*
 * length.h - how much of each host's time a round plans for
 * (generate.round_s): a pure decision, table-tested in test_round.
 *
 * Why a round plans its length at all. Left alone, a round lasts as long as
 * its busiest host's list, while hosts that finished early sit idle, and
 * hosts first linked from a page of the round wait for the next one. Under
 * politeness (one request per delay and host) that idle time is most of a
 * crawl: 100 hosts x 30 pages at 1 s took 4 rounds of about 85 s, 0.35 of
 * what the delay allows.
 *
 * So a round gives every host the same span of its time: generate selects
 * no more of a host's URLs than round_s / delay + 1 (its delay raised by a
 * cached Crawl-delay), and links followed inside the round stop there too
 * (a page's requisites do not: they come right after it, frontier.h).
 * A round then lasts about round_s; a host with more goes on in the next
 * one, keeping its timing (the robots cache carries it), so it loses only
 * the part of the boundary (update, generate) longer than its delay.
 *
 * Why counted in URLs, not cut by the clock (fetch.time_limit_s does that):
 * what a round fetches is then the same on any rank count and any machine
 * speed, so a crawl run to completion ends with the same CrawlDb.
 *
 * With auto (the default), from what every rank sees alike - the
 * CrawlDb's origins and URLs as the updates before counted them:
 * - the first round plans ROUND_FIRST_DELAYS delays, at least ROUND_MIN_S
 *   (at a 1 s delay, one URL a host after its robots.txt): the hosts a round's
 *   pages link to start only in the next round, so the rounds in which
 *   hosts are found are as short as politeness makes a hop;
 * - a round plans ROUND_GROWTH times the one before (the first step from
 *   one delay, below), unless the round
 *   before left the CrawlDb with more than ROUND_FINDING times the origins
 *   (scheme://authority) it found there: while the crawl is still finding
 *   hosts, each round of waiting puts off every host found in it, and a
 *   short round costs a host with more to do nothing when update and
 *   generate take less than its delay. Growth counts from one delay (a
 *   plan under one delay takes one URL a host whatever its length: from
 *   half a delay, three steps of 1.25x would change nothing but hold
 *   every host at one URL a round, each losing the boundary beyond its
 *   delay).
 *   Once the hosts stop growing, a crawl of length L takes about log(L)
 *   rounds more. Benchmark C (100 hosts found over 9 rounds): 102.8 and
 *   102.9 s with 3 delays (at least 2 s) growing from the first round,
 *   97.3 to 100.7 s with half a delay growing from the first round,
 *   94.5 to 100.1 s over nine runs holding it while hosts grow (scrapy
 *   95.8-96.0 s), in 24-27 rounds instead of 18: which round finds the
 *   last big host varies from run to run;
 * - never less than ROUND_US_PER_RECORD per CrawlDb record, about ten times
 *   what a round's update and generate spend on one, so that the
 *   boundaries stay a small share of a large crawl, whatever the hosts do;
 * - without a delay (politeness.delay_ms = 0) nothing waits on politeness:
 *   no plan, a round fetches all that is due.
 * A number of seconds is taken as it is; 0 is no plan.
 */
#ifndef CR_ROUND_LENGTH_H
#define CR_ROUND_LENGTH_H

#include <stdint.h>

/* generate.round_s's value for auto. */
#define ROUND_LENGTH_AUTO (-1L)

#define ROUND_FIRST_DELAYS 0.5
#define ROUND_MIN_S 0.5   /* s */
#define ROUND_GROWTH 1.25
#define ROUND_FINDING 1.1
#define ROUND_US_PER_RECORD 20

/* What the decision knows. */
struct round_length_in {
	long configured_s;   /* generate.round_s: ROUND_LENGTH_AUTO, 0, or s */
	long delay_ms;       /* politeness.delay_ms */
	int steps;           /* growth steps before it (round_steps_next) */
	uint64_t records;    /* the CrawlDb's URLs, as the last update counted them */
};

/* The round's plan in ms; 0: none. Pure. */
int64_t round_length_ms(const struct round_length_in *in);

/* The growth steps of a round from those of the round before (prev) and
 * the CrawlDb's origins after that round's update (after) and before it
 * (before; < 0: not known, as before the first round - counted as none):
 * one more unless after > ROUND_FINDING x before. after < 0 (not known): one
 * more. The first round has none. Pure. */
int round_steps_next(int prev, int64_t after, int64_t before);

#endif

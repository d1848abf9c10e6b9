/*
 * estimate.h - what the ranks' progress files (progfile.h) say of a round
 * taken together: URLs done of the round's total, rates, failures, hosts,
 * the slowest hosts, rank balance, and when the round and the crawl may
 * end. The progress line, `mpicrawl status` and metrics.prom all add up
 * alike through here.
 *
 * The round's total counts every rank: a rank that has not written its
 * file yet counts its URLs as not done, by what generate selected for the
 * round (all partitions). Pure: no I/O, no clock.
 */
#ifndef CR_STATUS_ESTIMATE_H
#define CR_STATUS_ESTIMATE_H

#include <stdint.h>

#include "status/progfile.h"

struct estimate_round {
	int ranks;                /* of the job */
	int reporting;            /* ranks whose file was read whole */
	int finished;             /* ... whose loop has ended */
	uint64_t total;           /* the round's URLs, every rank counted */
	uint64_t done;            /* ... with an outcome */
	uint64_t kept;            /* ... of them, finished by an earlier attempt */
	uint64_t requests, bytes;
	double rate;              /* requests/s over the phase (the slowest rank's time) */
	double rate_recent;       /* requests/s lately (each rank's last seconds) */
	double url_rate;          /* outcomes/s over the phase (kept ones not counted) */
	int64_t elapsed_us;       /* the longest any rank has fetched */
	uint64_t fail[PF_COUNT_];
	uint64_t hosts_active, hosts_parked, hosts_held;
	int ntop;
	struct progfile_host top[PROGFILE_TOP];   /* slowest first, all ranks */
	double balance_min, balance_max;   /* done / total of the least and most
					      advanced reporting rank (0..1) */
	int64_t eta_s;            /* until the round's fetch ends; -1 unknown */
};

/*
 * Adds up n files (ok[i]: file i read whole; one per rank, any order) of
 * a job of ranks ranks; selected: the URLs generate selected for the round
 * (0: not known).
 */
void estimate_round(const struct progfile *files, const int *ok, int n, int ranks,
		    uint64_t selected, struct estimate_round *out);

/* Seconds left: left URLs at url_rate, and no less than the slowest host's
 * need (ms); -1 when nothing says (no rate yet, and no host). */
int64_t estimate_eta_s(uint64_t left, double url_rate, int64_t slowest_need_ms);

/* Seconds until the crawl ends, at least: the round's eta_s, then due URLs
 * generate left for later rounds (due_later) at url_rate; -1 unknown.
 * Links the round finds add more. */
int64_t estimate_crawl_s(int64_t round_eta_s, uint64_t due_later, double url_rate);

#endif

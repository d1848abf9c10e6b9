#include "fetch/progress.h"
#include "fetch/fetch.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"

#include <stdio.h>
#include <string.h>

#define PROG_WORDS (FC_COUNT_ + 1)

void progress_init(struct progress *p, const struct job *j, int seg, const char *phase)
{
	char dir[PATH_MAX];

	p->j = j;
	p->seg = seg;
	p->phase = phase;
	layout_segment_sub(&j->dir, seg, "progress", dir, sizeof(dir));
	p->ok = fs_mkdirs(dir) == CR_OK;
	p->start_us = clock_mono_us();
	p->last_us = p->start_us;
}

static void print_line(struct progress *p, int64_t now)
{
	uint64_t sum[PROG_WORDS];
	double secs = (double)(now - p->start_us) / 1e6;
	int r, seen = 0;

	memset(sum, 0, sizeof(sum));
	for (r = 0; r < p->j->nranks; r++) {
		char path[PATH_MAX];
		struct buf b;
		int k;

		layout_progress(&p->j->dir, p->seg, r, path, sizeof(path));
		buf_init(&b);
		if (fs_read_all(path, 4096, &b) == CR_OK && b.len == PROG_WORDS * 8) {
			for (k = 0; k < PROG_WORDS; k++)
				sum[k] += buf_load_u64le(b.p + 8 * k);
			seen++;
		}
		buf_release(&b);
	}
	{
		/* every outcome written; the URLs so far: the fetch lists' and
		 * those that joined a queue in the round (links, requisites) */
		uint64_t done = sum[FC_FETCHED] + sum[FC_REDIRECT] + sum[FC_GONE] +
				sum[FC_ERROR] + sum[FC_DENIED] + sum[FC_BLOCKED] +
				sum[FC_DEFERRED] + sum[FC_TRUNCATED] + sum[FC_TOO_LARGE] +
				sum[FC_TIMEOUT];
		uint64_t urls = sum[FC_URLS] + sum[FC_FOLLOWED] + sum[FC_EMBEDS];
		double rate = secs > 0 ? (double)sum[FC_REQUESTS] / secs : 0;
		uint64_t left = urls > done ? urls - done : 0;

		char eta[48] = "";

		if (rate > 0 && left)
			snprintf(eta, sizeof(eta), ", about %.0f s to go", (double)left / rate);
		log_info(p->phase,
			 "round %d: %llu/%llu urls, %llu requests (%.1f/s), %.1f MB, %llu errors, "
			 "%llu hosts active, %d/%d ranks reporting%s",
			 p->seg, (unsigned long long)done, (unsigned long long)urls,
			 (unsigned long long)sum[FC_REQUESTS], rate,
			 (double)sum[FC_BYTES] / 1e6, (unsigned long long)sum[FC_ERROR],
			 (unsigned long long)sum[FC_COUNT_], seen, p->j->nranks, eta);
	}
}

void progress_tick(struct progress *p, const uint64_t *counters, uint64_t hosts_left,
		   int final)
{
	int64_t now = clock_mono_us();
	char path[PATH_MAX];
	struct buf b;
	int k;

	if (!p->ok)
		return;
	if (!final && now - p->last_us < (int64_t)p->j->cfg.progress_ms * 1000)
		return;
	p->last_us = now;
	buf_init(&b);
	for (k = 0; k < FC_COUNT_; k++)
		buf_put_u64le(&b, counters[k]);
	buf_put_u64le(&b, hosts_left);
	layout_progress(&p->j->dir, p->seg, p->j->rank, path, sizeof(path));
	if (fs_write_replace(path, b.p, b.len) != CR_OK)
		p->ok = 0;
	buf_release(&b);
	if (p->j->rank == 0 && !final)
		print_line(p, now);
}

void progress_release(struct progress *p)
{
	(void)p;
}

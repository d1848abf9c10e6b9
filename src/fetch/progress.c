#include "fetch/progress.h"
#include "fetch/counters.h"
#include "crawldb/state.h"
#include "status/estimate.h"
#include "status/status.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"

#include <stdio.h>
#include <string.h>

void progress_init(struct progress *p, const struct job *j, int seg, const char *phase)
{
	char dir[PATH_MAX];

	memset(p, 0, sizeof(*p));
	p->j = j;
	p->seg = seg;
	p->phase = phase;
	layout_segment_sub(&j->dir, seg, "progress", dir, sizeof(dir));
	p->ok = fs_mkdirs(dir) == CR_OK;
	p->start_us = clock_mono_us();
	if (j->rank == 0) {
		struct round_facts f;

		state_read_facts(&j->dir, seg, &f);
		p->selected = f.selected > 0 ? (uint64_t)f.selected : 0;
	}
}

/* Requests over the samples kept (about PROGRESS_RING writes back). */
static void recent(struct progress *p, int64_t now, uint64_t requests, struct progfile *f)
{
	int oldest = p->nring < PROGRESS_RING ? 0 : p->ring_at;

	if (p->nring) {
		f->recent_requests = requests - p->ring_req[oldest];
		f->recent_us = now - p->ring_us[oldest];
	}
	p->ring_us[p->ring_at] = now;
	p->ring_req[p->ring_at] = requests;
	p->ring_at = (p->ring_at + 1) % PROGRESS_RING;
	if (p->nring < PROGRESS_RING)
		p->nring++;
}

/* The hosts still fetching, and the slowest of them. */
static void hosts_into(const struct host_table *t, int64_t now, struct progfile *f)
{
	struct hmap_slot *s;
	size_t i = 0;

	f->hosts_active = t->left > t->early_left ? t->left - t->early_left : 0;
	f->hosts_held = t->released;
	while ((s = hmap_next(&t->hosts, &i)) != NULL) {
		const struct host *h = s->val;
		uint64_t queue = h->n - h->next;
		int64_t need;

		if (h->state == HOST_DONE || h->early || h->released || h->parked || !queue)
			continue;
		need = sched_need_us(h->gate, &h->pol, queue, now);
		progfile_top_add(f->top, &f->ntop, PROGFILE_TOP, h->name, queue,
				 need == INT64_MAX ? INT64_MAX / 1000 : need / 1000);
	}
}

static void counters_into(const uint64_t *c, struct progfile *f)
{
	static const int fail_of[PF_COUNT_] = {
		[PF_ERROR] = FC_ERROR, [PF_TIMEOUT] = FC_TIMEOUT, [PF_DNS] = FC_DNS_FAILED,
		[PF_TLS] = FC_TLS_FAILED, [PF_GONE] = FC_GONE, [PF_DENIED] = FC_DENIED,
		[PF_BLOCKED] = FC_BLOCKED, [PF_DEFERRED] = FC_DEFERRED,
		[PF_TOO_LARGE] = FC_TOO_LARGE, [PF_TRUNCATED] = FC_TRUNCATED,
	};
	int k;

	/* every outcome written; the URLs so far: the fetch lists' and those
	 * that joined a queue in the round (links, requisites) */
	f->done = c[FC_FETCHED] + c[FC_REDIRECT] + c[FC_GONE] + c[FC_ERROR] + c[FC_DENIED] +
		  c[FC_BLOCKED] + c[FC_DEFERRED] + c[FC_TRUNCATED] + c[FC_TOO_LARGE] +
		  c[FC_TIMEOUT];
	f->fetchlist = c[FC_URLS];
	f->urls = c[FC_URLS] + c[FC_FOLLOWED] + c[FC_EMBEDS];
	f->requests = c[FC_REQUESTS];
	f->bytes = c[FC_BYTES];
	f->hosts_parked = c[FC_PARKED];
	for (k = 0; k < PF_COUNT_; k++)
		f->fail[k] = c[fail_of[k]];
}

static void print_line(struct progress *p)
{
	struct status_progress sp;
	struct estimate_round e;
	char eta[48] = "";

	if (status_progress_read(&p->j->dir, p->seg, &sp) != CR_OK)
		return;
	estimate_round(sp.files, sp.ok, sp.n, p->j->nranks, p->selected, &e);
	status_progress_release(&sp);
	if (e.eta_s > 0)
		snprintf(eta, sizeof(eta), ", about %lld s to go", (long long)e.eta_s);
	log_info(p->phase,
		 "round %d: %llu/%llu urls, %llu requests (%.1f/s, %.1f/s lately), %.1f MB, "
		 "%llu errors, %llu hosts active, %d/%d ranks reporting%s",
		 p->seg, (unsigned long long)e.done, (unsigned long long)e.total,
		 (unsigned long long)e.requests, e.rate, e.rate_recent, (double)e.bytes / 1e6,
		 (unsigned long long)(e.fail[PF_ERROR] + e.fail[PF_TIMEOUT]),
		 (unsigned long long)e.hosts_active, e.reporting, p->j->nranks, eta);
}

void progress_tick(struct progress *p, const uint64_t *counters,
		   const struct host_table *hosts, int flags)
{
	int64_t now = clock_mono_us();
	char path[PATH_MAX];
	struct progfile f;
	struct buf b;

	if (!p->ok)
		return;
	if (!flags && p->nring && now - p->last_us < (int64_t)p->j->cfg.progress_ms * 1000)
		return;
	p->last_us = now;
	memset(&f, 0, sizeof(f));
	f.rank = p->j->rank;
	f.ranks = p->j->nranks;
	f.seg = p->seg;
	snprintf(f.phase, sizeof(f.phase), "%s", p->phase);
	f.final = !!(flags & PROGRESS_FINAL);
	f.time_us = clock_now_us();
	f.elapsed_us = now - p->start_us;
	counters_into(counters, &f);
	f.kept = p->kept;
	recent(p, now, f.requests, &f);
	if (hosts && !f.final)
		hosts_into(hosts, now, &f);
	buf_init(&b);
	progfile_encode(&f, &b);
	layout_progress(&p->j->dir, p->seg, p->j->rank, path, sizeof(path));
	if (fs_write_replace(path, b.p, b.len) != CR_OK)
		p->ok = 0;
	buf_release(&b);
	if (p->j->rank == 0 && !flags)   /* the loop's own ticks */
		print_line(p);
}

void progress_release(struct progress *p)
{
	(void)p;
}

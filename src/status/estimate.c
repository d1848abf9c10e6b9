#include "status/estimate.h"

#include <string.h>

int64_t estimate_eta_s(uint64_t left, double url_rate, int64_t slowest_need_ms)
{
	double s = -1;

	if (!left)
		return 0;
	if (url_rate > 0)
		s = (double)left / url_rate;
	if (slowest_need_ms > 0 && (double)slowest_need_ms / 1000.0 > s)
		s = (double)slowest_need_ms / 1000.0;
	if (s < 0)
		return -1;
	return s > 1e12 ? (int64_t)1e12 : (int64_t)(s + 0.999);
}

int64_t estimate_crawl_s(int64_t round_eta_s, uint64_t due_later, double url_rate)
{
	double s;

	if (round_eta_s < 0)
		return -1;
	if (!due_later)
		return round_eta_s;
	if (url_rate <= 0)
		return -1;
	s = (double)round_eta_s + (double)due_later / url_rate;
	return s > 1e12 ? (int64_t)1e12 : (int64_t)(s + 0.999);
}

/* One rank's file into the sums. */
static void add_file(const struct progfile *f, struct estimate_round *o, uint64_t *listed,
		     double *recent)
{
	int k;

	o->reporting++;
	o->finished += f->final;
	o->done += f->done;
	o->kept += f->kept < f->done ? f->kept : f->done;
	o->total += f->urls - (f->urls > f->fetchlist ? f->fetchlist : f->urls);
	*listed += f->fetchlist;
	o->requests += f->requests;
	o->bytes += f->bytes;
	if (f->elapsed_us > o->elapsed_us)
		o->elapsed_us = f->elapsed_us;
	if (f->recent_us > 0 && !f->final)
		*recent += (double)f->recent_requests * 1e6 / (double)f->recent_us;
	for (k = 0; k < PF_COUNT_; k++)
		o->fail[k] += f->fail[k];
	o->hosts_active += f->hosts_active;
	o->hosts_parked += f->hosts_parked;
	o->hosts_held += f->hosts_held;
	for (k = 0; k < f->ntop; k++)
		progfile_top_add(o->top, &o->ntop, PROGFILE_TOP, f->top[k].name,
				 f->top[k].queue, f->top[k].need_ms);
}

static void balance(const struct progfile *files, const int *ok, int n,
		    struct estimate_round *o)
{
	int i, first = 1;

	for (i = 0; i < n; i++) {
		double b;

		if (!ok[i])
			continue;
		b = files[i].urls ? (double)files[i].done / (double)files[i].urls : 1.0;
		if (b > 1)
			b = 1;
		if (first || b < o->balance_min)
			o->balance_min = b;
		if (first || b > o->balance_max)
			o->balance_max = b;
		first = 0;
	}
}

void estimate_round(const struct progfile *files, const int *ok, int n, int ranks,
		    uint64_t selected, struct estimate_round *out)
{
	uint64_t listed = 0;
	double recent = 0, secs;
	int i;

	memset(out, 0, sizeof(*out));
	out->ranks = ranks;
	for (i = 0; i < n; i++)
		if (ok[i])
			add_file(&files[i], out, &listed, &recent);
	/* The fetch lists: what generate selected for every rank, or what the
	 * files say when they say more (a round generated before its counts). */
	out->total += listed > selected ? listed : selected;
	if (out->done > out->total)
		out->total = out->done;
	secs = (double)out->elapsed_us / 1e6;
	out->rate = secs > 0 ? (double)out->requests / secs : 0;
	out->url_rate = secs > 0 ? (double)(out->done - out->kept) / secs : 0;
	out->rate_recent = recent;
	balance(files, ok, n, out);
	if (ranks > 0 && out->reporting == ranks && out->finished == ranks)
		out->eta_s = 0;
	else
		out->eta_s = estimate_eta_s(out->total - out->done, out->url_rate,
					    out->ntop ? out->top[0].need_ms : 0);
}

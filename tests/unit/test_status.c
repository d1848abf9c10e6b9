/*
 * test_status.c - the pure parts of `mpicrawl status` and metrics.prom:
 * progress files (status/progfile.h) encoded and read back, damaged ones
 * refused; the slowest hosts kept; the round added up over the ranks and
 * the estimates (status/estimate.h); politeness's need (sched_need_us).
 */
#include "test.h"
#include "fetch/sched.h"
#include "status/estimate.h"
#include "status/metrics.h"
#include "status/progfile.h"
#include "status/prom.h"

#include <stdint.h>
#include <stdlib.h>

static void sample(struct progfile *p, int rank, int ranks)
{
	memset(p, 0, sizeof(*p));
	p->rank = rank;
	p->ranks = ranks;
	p->seg = 3;
	snprintf(p->phase, sizeof(p->phase), "fetch");
	p->time_us = 1795314620123456LL;
	p->elapsed_us = 10000000;
	p->fetchlist = 100;
	p->urls = 108;
	p->done = 56;
	p->kept = 0;
	p->requests = 60;
	p->bytes = 123456;
	p->recent_requests = 12;
	p->recent_us = 2000000;
	p->fail[PF_ERROR] = 3;
	p->fail[PF_TIMEOUT] = 1;
	p->hosts_active = 5;
	p->hosts_parked = 1;
	p->ntop = 2;
	snprintf(p->top[0].name, sizeof(p->top[0].name), "a.example");
	p->top[0].queue = 12;
	p->top[0].need_ms = 24000;
	snprintf(p->top[1].name, sizeof(p->top[1].name), "b.example");
	p->top[1].queue = 5;
	p->top[1].need_ms = 10000;
}

static void round_trip(void)
{
	struct progfile p, q;
	struct buf b;
	const char *why = "x";

	sample(&p, 1, 2);
	buf_init(&b);
	progfile_encode(&p, &b);
	CHECK(progfile_decode(b.p, b.len, &q, &why) == CR_OK, "decode: %s", why ? why : "");
	CHECK(why == NULL, "no why on success");
	CHECK(!memcmp(&p, &q, sizeof(p)), "read back as written");
	CHECK(strstr(buf_cstr(&b), "\nurls 56 108 100\n") != NULL, "urls line: %s", b.p);
	p.final = 1;
	buf_reset(&b);
	progfile_encode(&p, &b);
	CHECK(progfile_decode(b.p, b.len, &q, NULL) == CR_OK && q.final, "final read back");
	buf_release(&b);
}

/* Every damage is refused with its reason: cut at any byte, a byte
 * flipped anywhere, bytes after the end, another magic. */
static void damaged(void)
{
	struct progfile p, q;
	struct buf b;
	const char *why;
	size_t i, cut_ok = 0, flip_ok = 0;
	unsigned char *c;

	sample(&p, 0, 2);
	buf_init(&b);
	progfile_encode(&p, &b);
	for (i = 0; i < b.len; i++)
		cut_ok += progfile_decode(b.p, i, &q, &why) == CR_ERR_FORMAT && why;
	CHECK(cut_ok == b.len, "every cut refused (%zu of %zu)", cut_ok, b.len);
	c = malloc(b.len + 8);
	for (i = 0; c && i < b.len; i++) {
		memcpy(c, b.p, b.len);
		c[i] ^= 0x01;
		flip_ok += progfile_decode(c, b.len, &q, &why) == CR_ERR_FORMAT;
	}
	CHECK(flip_ok == b.len, "every flipped byte refused (%zu of %zu)", flip_ok, b.len);
	if (c) {
		memcpy(c, b.p, b.len);
		memcpy(c + b.len, "x\n", 2);
		CHECK(progfile_decode(c, b.len + 2, &q, &why) == CR_ERR_FORMAT &&
		      !strcmp(why, "bytes after its end"), "bytes after the end: %s", why);
	}
	free(c);
	CHECK(progfile_decode("hello\n", 6, &q, &why) == CR_ERR_FORMAT &&
	      !strcmp(why, "not a progress file"), "another file: %s", why);
	CHECK(progfile_decode("", 0, &q, &why) == CR_ERR_FORMAT, "empty file");
	buf_release(&b);
}

static void top_k(void)
{
	static const struct { const char *name; uint64_t q; int64_t need; } in[] = {
		{ "a", 1, 100 }, { "b", 9, 900 }, { "c", 5, 500 }, { "d", 5, 500 },
		{ "e", 7, 700 }, { "f", 2, 200 },
	};
	struct progfile_host top[PROGFILE_TOP];
	int n = 0;
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		progfile_top_add(top, &n, 3, in[i].name, in[i].q, in[i].need);
	CHECK(n == 3, "3 kept, got %d", n);
	CHECK_STR(top[0].name, "b");
	CHECK_STR(top[1].name, "e");
	CHECK_STR(top[2].name, "c");   /* c and d tie: by name */
	n = 0;
	progfile_top_add(top, &n, 0, "x", 1, 1);
	CHECK(n == 0, "k 0 keeps none");
}

/* The bug of issue 35: "56/150 urls ... 2/3 ranks reporting" while
 * generate had selected 216 - the rank not reported counts as not done. */
static void round_sums(void)
{
	struct progfile f[3];
	int ok[3] = { 1, 1, 0 };
	struct estimate_round e;

	sample(&f[0], 0, 3);
	sample(&f[1], 1, 3);
	f[0].fetchlist = f[0].urls = 75;
	f[1].fetchlist = f[1].urls = 75;
	f[0].done = 30;
	f[1].done = 26;
	f[1].ntop = 1;   /* a host lives on one rank */
	snprintf(f[1].top[0].name, sizeof(f[1].top[0].name), "c.example");
	f[1].top[0].need_ms = 15000;
	estimate_round(f, ok, 3, 3, 216, &e);
	CHECK(e.done == 56 && e.total == 216, "56/216, got %llu/%llu",
	      (unsigned long long)e.done, (unsigned long long)e.total);
	CHECK(e.reporting == 2 && e.ranks == 3, "2 of 3 reporting");
	CHECK(e.requests == 120 && e.fail[PF_ERROR] == 6, "sums");
	CHECK(e.rate > 11.9 && e.rate < 12.1, "12 requests/s, got %.2f", e.rate);
	CHECK(e.rate_recent > 11.9 && e.rate_recent < 12.1, "recent 2 x 6/s, got %.2f",
	      e.rate_recent);
	CHECK(e.ntop == 3 && !strcmp(e.top[0].name, "a.example") &&
	      !strcmp(e.top[1].name, "c.example"), "slowest hosts merged");
	CHECK(e.balance_min > 0.34 && e.balance_min < 0.35 && e.balance_max == 0.4,
	      "balance %.3f..%.3f", e.balance_min, e.balance_max);
	/* 160 left at 5.6 URLs/s: 29 s, above the slowest host's 24 s. */
	CHECK(e.eta_s == 29, "eta 29 s, got %lld", (long long)e.eta_s);
	/* Links followed add to the total beyond the fetch lists. */
	f[0].urls = 85;
	estimate_round(f, ok, 3, 3, 216, &e);
	CHECK(e.total == 226, "followed links counted, got %llu", (unsigned long long)e.total);
	/* Files that say more than generate (a round from before counts). */
	estimate_round(f, ok, 3, 3, 0, &e);
	CHECK(e.total == 160, "no selected count: the files', got %llu",
	      (unsigned long long)e.total);
	ok[2] = 1;
	f[2] = f[1];
	f[0].final = f[1].final = f[2].final = 1;
	estimate_round(f, ok, 3, 3, 216, &e);
	CHECK(e.eta_s == 0 && e.finished == 3, "all ranks done: nothing to go");
	/* A resumed fetch: what an earlier attempt finished is not this
	 * attempt's rate. */
	f[0].final = f[1].final = f[2].final = 0;
	f[0].kept = 20;
	f[1].kept = 20;
	f[2].kept = 99;   /* more than done: capped */
	estimate_round(f, ok, 3, 3, 216, &e);
	CHECK(e.kept == 66 && e.url_rate > 1.59 && e.url_rate < 1.61,   /* (82 - 66) / 10 s */
	      "kept %llu, rate %.2f", (unsigned long long)e.kept, e.url_rate);
}

static void etas(void)
{
	CHECK(estimate_eta_s(0, 0, 0) == 0, "nothing left");
	CHECK(estimate_eta_s(10, 0, 0) == -1, "no rate, no host: unknown");
	CHECK(estimate_eta_s(10, 0, 5000) == 5, "no rate: the slowest host");
	CHECK(estimate_eta_s(100, 10, 0) == 10, "100 at 10/s");
	CHECK(estimate_eta_s(100, 10, 30000) == 30, "politeness binds");
	CHECK(estimate_eta_s(1, 3, 0) == 1, "rounded up");
	CHECK(estimate_crawl_s(-1, 5, 1) == -1, "round unknown");
	CHECK(estimate_crawl_s(10, 0, 0) == 10, "nothing due later");
	CHECK(estimate_crawl_s(10, 50, 0) == -1, "due later, no rate");
	CHECK(estimate_crawl_s(10, 50, 5) == 20, "10 + 50 at 5/s");
}

static void need(void)
{
	struct sched_policy pol = { 1000000, 1, 0, 0, 3 };
	struct sched_host h;

	sched_host_init(&h);
	CHECK(sched_need_us(&h, &pol, 0, 0) == 0, "no queue");
	CHECK(sched_need_us(&h, &pol, 1, 0) == 0, "never started: one now");
	CHECK(sched_need_us(&h, &pol, 3, 0) == 2 * (1000000 + SCHED_MARGIN_US), "3 URLs: 2 delays");
	sched_on_start(&h, 0);
	CHECK(sched_need_us(&h, &pol, 1, 0) == 1000000 + SCHED_MARGIN_US,
	      "one in flight: a delay after it ends");
	sched_on_end(&h, 500000);
	CHECK(sched_need_us(&h, &pol, 2, 600000) == 902000 + 1002000, "the wait, then a delay");
	pol.max_in_flight = 2;
	CHECK(sched_need_us(&h, &pol, 5, 2000000) == 2 * 1002000, "2 at a time: 5 in 2 delays");
}

static void prom_text(void)
{
	struct buf b;

	buf_init(&b);
	prom_family(&b, "mpicrawl_x_total", PROM_COUNTER, "what \\ it\nis");
	prom_sample(&b, "mpicrawl_x_total", (const char *const[]){ "rank", "0", "host",
		    "a\"b\\c\nd", NULL }, 42);
	prom_sample(&b, "mpicrawl_x_total", NULL, 0.5);
	prom_family(&b, "mpicrawl_y", PROM_GAUGE, "y");
	prom_sample(&b, "mpicrawl_y", NULL, 1.0 / 0.0);
	prom_sample(&b, "mpicrawl_y", NULL, 0.0 / 0.0);
	prom_sample(&b, "mpicrawl_y", NULL, 18446744073709551615.0);
	CHECK_STR(buf_cstr(&b),
		  "# HELP mpicrawl_x_total what \\\\ it\\nis\n"
		  "# TYPE mpicrawl_x_total counter\n"
		  "mpicrawl_x_total{rank=\"0\",host=\"a\\\"b\\\\c\\nd\"} 42\n"
		  "mpicrawl_x_total 0.5\n"
		  "# HELP mpicrawl_y y\n# TYPE mpicrawl_y gauge\n"
		  "mpicrawl_y +Inf\nmpicrawl_y NaN\nmpicrawl_y 1.8446744073709552e+19\n");
	CHECK(prom_name_ok("mpicrawl_a:b", 1) && !prom_name_ok("mpicrawl_a:b", 0) &&
	      !prom_name_ok("9a", 1) && !prom_name_ok("", 1) && !prom_name_ok("a-b", 1),
	      "names");
	buf_release(&b);
}

/* Every family of metrics.prom once, HELP then TYPE then its samples;
 * every sample of a family announced; every name valid. */
static void metrics_families(void)
{
	struct status st;
	struct progfile f[2];
	int ok[2] = { 1, 0 }, nfam = 0, nsample = 0;
	char fam[64][128], *line, *save = NULL;
	struct buf b;

	memset(&st, 0, sizeof(st));
	sample(&f[0], 0, 2);
	st.job = STATUS_RUNNING;
	st.phase = "fetch";
	st.seg = 3;
	st.prog.ranks = st.prog.n = 2;
	st.prog.files = f;
	st.prog.ok = ok;
	estimate_round(f, ok, 2, 2, 216, &st.est);
	st.crawl_eta_s = -1;
	buf_init(&b);
	metrics_text(&st, &b);
	for (line = strtok_r((char *)buf_cstr(&b), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		int i, known = 0;

		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%127s", name);
			for (i = 0; i < nfam; i++)
				CHECK(strcmp(fam[i], name), "family %s once", name);
			CHECK(prom_name_ok(name, 1) && !strncmp(name, "mpicrawl_", 9), "%s", name);
			if (nfam < 64)
				snprintf(fam[nfam++], sizeof(fam[0]), "%s", name);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			CHECK(nfam && !strncmp(line + 7, fam[nfam - 1], strlen(fam[nfam - 1])),
			      "TYPE after its HELP: %s", line);
			continue;
		}
		sscanf(line, "%127[^{ ]", name);
		known = nfam && !strcmp(name, fam[nfam - 1]);
		CHECK(known, "sample of the family just announced: %s", line);
		nsample++;
	}
	CHECK(nfam >= 15, "families: %d", nfam);
	CHECK(nsample > nfam, "samples: %d", nsample);
	buf_release(&b);
}

int main(void)
{
	round_trip();
	damaged();
	top_k();
	round_sums();
	etas();
	need();
	prom_text();
	metrics_families();
	TEST_DONE();
}

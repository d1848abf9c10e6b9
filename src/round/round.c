#include "round/round.h"
#include "rank/rank.h"
#include "comm/comm.h"
#include "store/recfile.h"
#include "dedup/runs.h"
#include "crawldb/provenance.h"
#include "fetch/fetch.h"
#include "generate/generate.h"
#include "generate/seedcap.h"
#include "index/index.h"
#include "inputs/inputs.h"
#include "parse/parse.h"
#include "round/length.h"
#include "crawldb/state.h"
#include "update/update.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/stop.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void (*round_phase_hook)(const struct job *j, const char *phase, int seg);

#define COUNTERS_MAX 64

static double secs_since(int64_t t0)
{
	return (double)(clock_mono_us() - t0) / 1e6;
}

/* ---- what every phase shares ---- */

/* The directory's state of segment seg (0: the last), read by rank 0 and
 * broadcast, so that every rank takes the same branch. 0, or 1 when it
 * cannot be read. */
static int snapshot(struct job *j, int seg, struct round_snapshot *s)
{
	if (j->rank == 0)
		state_read(&j->dir, seg, s);
	comm_bcast(s, sizeof(*s), 0);
	return s->ok ? 0 : 1;
}

/* Runs a clean-up on rank 0; every rank waits for it. */
static void clean(struct job *j, const struct round_plan *p)
{
	if (j->rank == 0)
		state_clean(&j->dir, p);
	comm_barrier();
}

/* The CPU this process used so far (user and system, all threads; µs). */
static uint64_t cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Sums counters over ranks and builds the phase's JSON on rank 0, with
 * the bytes the ranks sent each other since the last phase's (all ranks,
 * and the most of one rank). */
static void phase_json(struct job *j, const char *const *names, uint64_t *v, size_t n,
		       double secs, const char *extra, struct buf *out)
{
	static uint64_t sent_before, cpu_before;
	struct json_counter cs[COUNTERS_MAX];
	uint64_t sent = comm_bytes_sent() - sent_before;
	uint64_t cpu = cpu_us() - cpu_before;
	int64_t most[2] = { (int64_t)sent, (int64_t)cpu };
	size_t i;

	sent_before += sent;
	cpu_before += cpu;
	comm_sum_u64(v, n);
	comm_sum_u64(&sent, 1);
	comm_sum_u64(&cpu, 1);
	comm_max_i64(most, 2);
	for (i = 0; i < n && i < COUNTERS_MAX; i++) {
		cs[i].name = names[i];
		cs[i].value = v[i];
	}
	buf_addf(out, "{\"seconds\":%.3f,\"ranks\":%d,\"sent_bytes\":%llu,"
		 "\"sent_bytes_rank_max\":%lld,\"cpu_s\":%.3f,\"cpu_s_rank_max\":%.3f%s", secs,
		 j->nranks, (unsigned long long)sent, (long long)most[0], (double)cpu / 1e6,
		 (double)most[1] / 1e6, extra ? extra : "");
	buf_adds(out, ",\"counters\":");
	json_counters(cs, n < COUNTERS_MAX ? n : COUNTERS_MAX, out);
	buf_adds(out, "}\n");
}

void round_write_stats(struct job *j, int seg)
{
	char path[PATH_MAX];
	struct buf b, p;
	size_t i;

	if (j->rank != 0)
		return;
	buf_init(&b);
	buf_init(&p);
	buf_addf(&b, "{\"segment\":%d", seg);
	for (i = 0; i < ROUND_PHASES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "_SUCCESS.%s", state_phase_names[i]);
		layout_segment_sub(&j->dir, seg, name, path, sizeof(path));
		buf_reset(&p);
		if (fs_read_all(path, 1 << 20, &p) == CR_OK && p.len) {
			while (p.len && p.p[p.len - 1] == '\n')
				p.len--;
			buf_addf(&b, ",\"%s\":", state_phase_names[i]);
			buf_add(&b, p.p, p.len);
		}
	}
	buf_adds(&b, "}\n");
	layout_segment_sub(&j->dir, seg, "stats.json", path, sizeof(path));
	if (fs_write_atomic(path, b.p, b.len) != CR_OK)
		log_warn("crawl", "cannot write '%s'", path);
	buf_release(&p);
	buf_release(&b);
}

/* Marks phase of seg done, with its JSON (rank 0), and rewrites stats.json. */
static int mark(struct job *j, int seg, const char *phase, struct buf *json)
{
	enum cr_err e = CR_OK;

	if (j->rank == 0)
		e = layout_phase_mark(&j->dir, seg, phase, buf_cstr(json));
	if (!comm_agree(e == CR_OK))
		return 1;
	round_write_stats(j, seg);
	return 0;
}

/* What a phase writes per partition into a segment folder: member files
 * STEM-PPPPP.SUFFIX, gathered into packs at its end (store/pack.h). */
static const struct state_packs phase_packs[] = {
	{ "generate", "fetchlist", "part", ".zst" },
	{ "generate", "denied", "part", ".zst" },
	{ "generate", "decisions", "generate", ".jsonl.zst" },
	{ "fetch", "fetch", "part", ".zst" },
	{ "fetch", "parse", "part", ".zst" },
	{ "parse", "parse", "part", ".zst" },
	{ "update", "decisions", "update", ".jsonl.zst" },
	{ NULL, NULL, NULL, NULL },
};

/* Gathers what phase wrote per partition into packs, this rank's (the
 * phase's outputs committed), and the robots cache a fetch wrote. 0, or 1
 * when a rank could not. Collective. */
static int pack_outputs(struct job *j, int seg, const char *phase)
{
	enum cr_err e;

	if (!j->cfg.storage_pack)
		return 0;
	e = state_pack_segment(&j->dir, seg, phase_packs, phase, j->rank, j->nranks);

	if (!e && strcmp(phase, "fetch") == 0)
		e = state_pack_robots(&j->dir, seg, j->rank, j->nranks);
	if (!comm_agree(e == CR_OK)) {
		log_user("%s of segment %d: its files could not be packed", phase, seg);
		return 1;
	}
	return 0;
}

/* After phase's mark (rank 0): packs an earlier attempt wrote that the
 * new ones supersede are removed. */
static void prune_packs(const struct job *j, int seg, const char *phase)
{
	if (j->rank == 0)
		state_prune_packs(&j->dir, seg, phase_packs, phase,
				  strcmp(phase, "fetch") == 0 ? seg : 0);
}

/* Sums a phase's counters over ranks and marks it done with them; extra:
 * JSON members to add (",\"name\":value..."), or NULL. Collective. */
static int mark_phase(struct job *j, int seg, const char *phase, const char *const *names,
		      uint64_t *c, size_t n, double secs, const char *extra)
{
	struct buf json;
	int rc;

	if (pack_outputs(j, seg, phase))
		return 1;
	buf_init(&json);
	phase_json(j, names, c, n, secs, extra, &json);
	rc = mark(j, seg, phase, &json);
	buf_release(&json);
	if (!rc)
		prune_packs(j, seg, phase);
	return rc;
}

/* Commits CrawlDb version ver (rank 0); every rank learns the outcome. */
static int commit_version(struct job *j, int ver, const char *origin)
{
	enum cr_err e = CR_OK;

	if (j->rank == 0)
		e = state_commit_version(&j->dir, ver, origin);
	return comm_agree(e == CR_OK) ? 0 : 1;
}

/* Segment seg (0: the last) if its phase need is done, else 1. */
static int ready_segment(struct job *j, int *seg, const char *need, int bit,
			 struct round_snapshot *s)
{
	if (snapshot(j, *seg, s))
		return 1;
	if (s->seg == 0 || !(s->phases & bit)) {
		log_user("segment %d is not ready: its %s phase has not completed", s->seg, need);
		return 1;
	}
	*seg = s->seg;
	return 0;
}

/* The growth steps of round seg's plan (round/length.h): those of the last
 * round that recorded its own (in _SUCCESS.generate; none before the
 * first), carried on by the origins each update after it counted. Rank 0. */
static int round_steps(const struct crawl_dir *d, int seg)
{
	struct round_facts f, before;
	int i = seg - 1, steps = 0;

	for (; i >= 1; i--) {
		state_read_facts(d, i, &f);
		if (f.steps >= 0) {
			steps = (int)f.steps;
			break;
		}
	}
	if (i < 1)
		i = 1;   /* the first round's: none */
	state_read_facts(d, i - 1, &before);
	for (; i < seg; i++) {
		state_read_facts(d, i, &f);
		steps = round_steps_next(steps, f.origins, before.origins);
		before = f;
	}
	return steps;
}

/* The span of segment seg's round (round/length.h, ms): what its generate
 * planned or, before it has, the decision from the growth steps and the
 * CrawlDb's size as the update before counted it; *steps (if not NULL):
 * the growth steps of a plan decided now, else -1. Rank 0 reads; every
 * rank gets both. Collective. */
static int64_t planned_round_ms(struct job *j, int seg, int *steps)
{
	int64_t v[2] = { 0, -1 };

	if (j->rank == 0) {
		struct round_facts here, prev;
		struct round_length_in in = { j->cfg.round_s, j->cfg.delay_ms, 0, 0 };

		state_read_facts(&j->dir, seg, &here);
		if (here.round_ms >= 0) {
			v[0] = here.round_ms;
		} else {
			state_read_facts(&j->dir, seg - 1, &prev);
			in.records = prev.records;
			if (in.configured_s == ROUND_LENGTH_AUTO && in.delay_ms > 0)
				v[1] = in.steps = round_steps(&j->dir, seg);
			v[0] = round_length_ms(&in);
		}
	}
	comm_bcast(v, sizeof(v), 0);
	if (steps)
		*steps = (int)v[1];
	return v[0];
}

/* ---- the phases ---- */

/* hosts.rules as it is now, read by rank 0 and handed to every rank, for
 * the generate or fetch that starts: an operator edits it between rounds.
 * A file made unreadable or bad since is bad input: one line from rank 0,
 * exit 2 on every rank; what (the phase) names the step in a failure's
 * line. Returns an exit code. Collective. */
static int reread_host_rules(struct job *j, const char *what)
{
	struct host_rules *r = NULL;
	char err[600] = "";
	int ok;

	if (!j->cfg.hosts_rules[0])
		return 0;
	if (!comm_agree(inputs_refresh(j->cfg.hosts_rules) == CR_OK)) {
		log_user("%s failed: hosts.rules could not be handed to every rank", what);
		return 1;
	}
	ok = j->rank != 0 || host_rules_read(j->cfg.hosts_rules, &r, err, sizeof(err)) == CR_OK;
	host_rules_free(&r);
	if (!ok)
		log_user("%s", err[0] ? err : "hosts.rules cannot be read");
	return comm_agree(ok) ? 0 : 2;
}

int round_inject(struct job *j, const struct inject_seeds *seeds)
{
	uint64_t c[IC_COUNT_] = { 0 };
	struct round_snapshot s;
	struct round_plan p = { ROUND_INJECT, 0, 0, NULL, 0 };
	int rc;
	enum cr_err e;

	if (snapshot(j, 0, &s))
		return 1;
	p.clean_version = s.version + 1;
	clean(j, &p);
	e = inject_run(j, seeds, s.version, c);
	if (!comm_agree(e == CR_OK)) {
		log_user("inject failed");
		return e == CR_ERR_ARG ? 2 : 1;
	}
	rc = commit_version(j, s.version + 1, "inject\n");
	comm_sum_u64(c, IC_COUNT_);
	if (!rc && j->rank == 0)
		log_info("inject", "%llu seeds read, %llu valid, %llu invalid, %llu new, %llu "
			 "refused by scope.rules; CrawlDb version %d has %llu URLs",
			 (unsigned long long)c[IC_LINES], (unsigned long long)c[IC_VALID],
			 (unsigned long long)c[IC_INVALID], (unsigned long long)c[IC_ADDED],
			 (unsigned long long)c[IC_REFUSED],
			 s.version + 1, (unsigned long long)c[IC_RECORDS]);
	if (!rc && j->rank == 0 && !c[IC_VALID] && c[IC_REFUSED])
		log_warn("inject", "scope.rules refused every seed of '%s': nothing of them "
			 "will be crawled (the rules' file and its lines are in docs/SCOPE.md)",
			 seeds->name);
	return rc;
}

/*
 * Before a round spends work: a quick look (recfile_probe) at the files of
 * CrawlDb version ver this rank's partitions will read - its parts and its
 * near-duplicate stores. 0 on every rank when all look whole; else 1 on
 * every rank, each damaged file named once, with the command that repairs.
 */
static int verify_version(struct job *j, int ver)
{
	char path[PATH_MAX];
	const char *why;
	uint32_t p;
	int k;
	int bad = 0;

	for (p = 0; ver > 0 && p < j->dir.partitions; p++) {
		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		layout_crawldb_part(&j->dir, ver, p, path, sizeof(path));
		if (recfile_probe(path, REC_KIND_CRAWLDB, &why) != CR_OK) {
			log_err("crawl", "damaged file '%s': %s", path, why);
			bad = 1;
		}
		for (k = 0; k < DEDUP_STORES; k++) {
			if (dedup_runs_check(&j->dir, ver, (enum dedup_store)k, p, 0, path,
					     sizeof(path), &why, NULL) == CR_OK)
				continue;
			log_err("crawl", "damaged file '%s': %s", path, why);
			bad = 1;
		}
	}
	if (comm_agree(!bad))
		return 0;
	log_user("a file of CrawlDb version %d is damaged (named above): nothing was done; run "
		 "'mpicrawl check --dir %s --repair' to repair what can be", ver, j->dir.root);
	return 1;
}

int round_generate(struct job *j, struct round_generated *out)
{
	static const char *const fetchlist[] = { "fetchlist", "denied", NULL };
	uint64_t c[GC_COUNT_] = { 0 };
	struct round_snapshot s;
	struct round_plan p = { ROUND_GENERATE, 0, 0, NULL, 0 };
	int redo, rc;
	enum cr_err e;
	int64_t t0 = clock_mono_us(), now = clock_now_us();
	static const struct seedcap_comm mpi = { comm_agree, comm_sum_u64 };
	struct seedcap cap;
	char extra[128];
	int steps = -1;

	if (snapshot(j, 0, &s))
		return 1;
	if (s.version == 0) {
		log_user("the CrawlDb is empty: inject seeds first");
		return 1;
	}
	if (verify_version(j, s.version))
		return 1;
	/* An unfinished generate left its segment: reuse the number. */
	p.seg = state_generate_target(&s, &redo);
	if (p.seg > LAYOUT_SEGMENT_MAX) {
		log_user("segment %d exists, the last number a segment may have: no round can "
			 "follow (a stray segments/%05d? remove it if it is empty)", p.seg - 1,
			 p.seg - 1);
		return 1;
	}
	p.clean_subdirs = redo ? fetchlist : NULL;
	clean(j, &p);
	comm_bcast(&now, sizeof(now), 0);
	j->round_ms = planned_round_ms(j, p.seg, &steps);
	if ((rc = reread_host_rules(j, "generate")) != 0)
		return rc;
	e = seedcap_prepare(&cap, j, s.version, now, &mpi);   /* collective */
	if (!e)
		e = generate_run(j, p.seg, s.version, now, &cap, &mpi, c);
	seedcap_release(&cap);
	if (!comm_agree(e == CR_OK)) {
		log_user("generate failed");
		return 1;
	}
	if (steps >= 0)
		snprintf(extra, sizeof(extra),
			 ",\"crawldb_version\":%d,\"round_ms\":%lld,\"round_steps\":%d",
			 s.version, (long long)j->round_ms, steps);
	else
		snprintf(extra, sizeof(extra), ",\"crawldb_version\":%d,\"round_ms\":%lld",
			 s.version, (long long)j->round_ms);
	rc = mark_phase(j, p.seg, "generate", generate_counter_names, c, GC_COUNT_,
			secs_since(t0), extra);
	if (!rc && j->rank == 0)
		log_info("generate", "segment %d: %llu URLs due on %llu hosts "
			 "(%llu capped per host, %llu past the round's budget, %llu not due, "
			 "%llu denied by robots.txt, %llu held)", p.seg,
			 (unsigned long long)c[GC_SELECTED], (unsigned long long)c[GC_HOSTS],
			 (unsigned long long)c[GC_HOST_CAPPED],
			 (unsigned long long)c[GC_BUDGET_CAPPED], (unsigned long long)c[GC_NOT_DUE],
			 (unsigned long long)c[GC_ROBOTS_DENIED], (unsigned long long)c[GC_HELD]);
	/* The scope's refusals were judged again once no page is left due for
	 * them (a page taken is fetched before the next generate): not by the
	 * next generate (a failure to say so only makes the next do it
	 * again). */
	if (!rc && j->rescope && !c[GC_RESCOPE_DUE]) {
		if (j->rank == 0 && provenance_config_rescoped(j) != CR_OK)
			log_warn("generate", "the next generate judges the scope's refusals "
				 "again too");
		j->rescope = 0;
	}
	out->seg = p.seg;
	out->selected = c[GC_SELECTED];
	out->held = c[GC_HELD];
	out->retry = c[GC_RETRY_LATER];
	out->seed_capped = c[GC_SEED_CAPPED];
	out->denied = c[GC_ROBOTS_DENIED];
	return rc;
}

/* The fetch phase's summary lines (rank 0). */
static void fetch_log(int seg, const uint64_t *c, const uint64_t *pc, int parsed, double s)
{
	if (parsed)
		log_info("parse", "segment %d (while fetching): %llu pages, %llu links, "
			 "%llu failed", seg, (unsigned long long)pc[PC_PAGES],
			 (unsigned long long)pc[PC_LINKS], (unsigned long long)pc[PC_FAILED]);
	char cut[160] = "";

	/* The outcomes a small crawl rarely has, when it has them. */
	if (c[FC_TRUNCATED] || c[FC_TOO_LARGE] || c[FC_TIMEOUT])
		snprintf(cut, sizeof(cut), ", %llu truncated, %llu too large, %llu timed out",
			 (unsigned long long)c[FC_TRUNCATED], (unsigned long long)c[FC_TOO_LARGE],
			 (unsigned long long)c[FC_TIMEOUT]);
	log_info("fetch", "segment %d: %llu requests in %.1f s (%.1f/s), %llu fetched, "
		 "%llu redirects, %llu gone, %llu errors, %llu denied by robots.txt, "
		 "%llu blocked, %.1f MB%s", seg, (unsigned long long)c[FC_REQUESTS], s,
		 s > 0 ? (double)c[FC_REQUESTS] / s : 0, (unsigned long long)c[FC_FETCHED],
		 (unsigned long long)c[FC_REDIRECT], (unsigned long long)c[FC_GONE],
		 (unsigned long long)c[FC_ERROR], (unsigned long long)c[FC_DENIED],
		 (unsigned long long)c[FC_BLOCKED], (double)c[FC_BYTES] / 1e6, cut);
}

/* Marks the fetch (and, with fetch.parse, the parse) of seg done. */
static int fetch_mark(struct job *j, int seg, uint64_t *c, uint64_t *pc, int64_t t0)
{
	int rc = mark_phase(j, seg, "fetch", fetch_counter_names, c, FC_COUNT_, secs_since(t0),
			    NULL);

	/* The fetcher parsed as it went: the parse phase is complete. */
	if (!rc && j->cfg.fetch_parse)
		rc = mark_phase(j, seg, "parse", parse_counter_names, pc, PC_COUNT_, 0, NULL);
	if (!rc && j->rank == 0) {
		fetch_log(seg, c, pc, j->cfg.fetch_parse, secs_since(t0));
		state_prune_robots(&j->dir);
	}
	return rc;
}

/* A step command given a segment its update could never merge. */
static void say_stale(const struct round_snapshot *s)
{
	log_user("segment %d was generated from CrawlDb version %d, which is no longer "
		 "current (%d): generate a new segment", s->seg, s->seg_base, s->version);
}

/* A fetch that stopped before its end: on a signal (ROUND_EXIT_STOPPED),
 * or because a rank found its node's network down (netdown on that rank:
 * ROUND_EXIT_LOST, named by rank 0); 0 if it did not stop. Collective. */
static int fetch_stopped(struct job *j, int seg, int netdown, int stopped)
{
	int64_t lost = netdown ? j->rank : -1;

	comm_max_i64(&lost, 1);
	if (stopped && lost >= 0) {
		if (j->rank == 0)
			log_err("fetch", "segment %d: stopped: the network of rank %lld's node "
				"(%s) was down; what was fetched is kept and the rest stays due: "
				"run the job again, on nodes whose network works", seg,
				(long long)lost, comm_node((int)lost));
		return ROUND_EXIT_LOST;
	}
	if (stopped) {
		if (j->rank == 0)
			log_info("fetch", "segment %d: stopped early on a signal; what was "
				 "fetched is kept: run the same command again to continue", seg);
		return ROUND_EXIT_STOPPED;
	}
	return 0;
}

int round_fetch(struct job *j, int seg, uint64_t *outcomes)
{
	static const char *const progress[] = { "progress", NULL };
	uint64_t c[FC_COUNT_] = { 0 }, pc[PC_COUNT_] = { 0 };
	struct round_snapshot s;
	struct round_plan p = { ROUND_FETCH, 0, 0, NULL, 0 };
	struct round_facts facts;
	int64_t t0 = clock_mono_us();
	enum cr_err e;
	int stopped, rc;

	if (ready_segment(j, &seg, "generate", ROUND_GENERATED, &s))
		return 1;
	if (state_left_behind(&s)) {
		say_stale(&s);
		return 1;
	}
	/* A fetched segment is an archive: fetching it again would replace
	 * its WARC files. */
	if (s.phases & ROUND_FETCHED) {
		log_user("segment %d is already fetched (fetching it again would replace its "
			 "WARC files): generate a new segment", seg);
		return 2;
	}
	/* An interrupted fetch resumes from its journals (fetch/journal.h),
	 * and the robots cache it may have half written is not read as this
	 * segment's. */
	p.seg = seg;
	p.clean_subdirs = progress;
	p.clean_robots = 1;
	clean(j, &p);
	j->round_ms = planned_round_ms(j, seg, NULL);
	state_read_facts(&j->dir, seg, &facts);
	j->whole_before_us = facts.rescope_due > 0 ? j->config_since_us : 0;
	if ((rc = reread_host_rules(j, "fetch")) != 0)
		return rc;
	comm_notice_open();
	e = fetch_run(j, seg, s.version, c, pc);
	/* Ranks that finished pass a late signal on while they wait. */
	comm_notice_close(stop_requested);
	stopped = !comm_agree(e != CR_AGAIN);
	if (!comm_agree(e == CR_OK || e == CR_AGAIN)) {
		log_user("fetch of segment %d failed", seg);
		return 1;
	}
	if ((rc = fetch_stopped(j, seg, c[FC_NETDOWN] != 0, stopped)) != 0)
		return rc;
	if (fetch_mark(j, seg, c, pc, t0))
		return 1;
	if (j->rank == 0)
		state_forget_journals(&j->dir, seg);
	if (outcomes)
		*outcomes = c[FC_FETCHED] + c[FC_REDIRECT] + c[FC_GONE] + c[FC_ERROR] +
			    c[FC_DENIED] + c[FC_BLOCKED] + c[FC_DEFERRED] + c[FC_TRUNCATED] +
			    c[FC_TOO_LARGE] + c[FC_TIMEOUT];
	return 0;
}

int round_parse(struct job *j, int seg)
{
	uint64_t c[PC_COUNT_] = { 0 };
	struct round_snapshot s;
	enum cr_err e;
	int rc;
	int64_t t0 = clock_mono_us();

	if (ready_segment(j, &seg, "fetch", ROUND_FETCHED, &s))
		return 1;
	e = parse_run(j, seg, c);
	if (!comm_agree(e == CR_OK)) {
		log_user("parse of segment %d failed", seg);
		return 1;
	}
	rc = mark_phase(j, seg, "parse", parse_counter_names, c, PC_COUNT_, secs_since(t0), NULL);
	if (!rc && j->rank == 0)
		log_info("parse", "segment %d: %llu pages, %llu links, %llu failed", seg,
			 (unsigned long long)c[PC_PAGES], (unsigned long long)c[PC_LINKS],
			 (unsigned long long)c[PC_FAILED]);
	return rc;
}

/* ", N WAT records" when the index wrote WAT files (index.wat), else "". */
static const char *wat_said(const struct job *j, const uint64_t *c)
{
	static char out[48];

	out[0] = '\0';
	if (j->cfg.index_wat)
		snprintf(out, sizeof(out), ", %llu WAT records",
			 (unsigned long long)c[IX_WAT_RECORDS]);
	return out;
}

int round_index(struct job *j, int seg, int crawldb_version, int use_staged)
{
	uint64_t c[IX_COUNT_] = { 0 };
	int64_t t0 = clock_mono_us();
	char dir[PATH_MAX];
	enum cr_err e;
	int rc;

	e = index_segment(j, seg, crawldb_version, use_staged, c);
	if (!comm_agree(e == CR_OK)) {
		log_user("index of segment %d failed", seg);
		return 1;
	}
	rc = mark_phase(j, seg, "index", index_counter_names, c, IX_COUNT_, secs_since(t0), NULL);
	/* What the fetcher staged has served: the WARC files stay the source
	 * of a later `mpicrawl index`. */
	layout_segment_sub(&j->dir, seg, "staged", dir, sizeof(dir));
	if (!rc && j->rank == 0 && fs_exists(dir) && fs_remove_tree(dir) != CR_OK)
		log_warn("index", "cannot remove '%s'", dir);
	if (!rc && j->rank == 0)
		log_info("index", "segment %d: %llu WARC files, %llu CDXJ lines, %llu texts "
			 "(%llu duplicates), %llu links%s", seg,
			 (unsigned long long)c[IX_WARC_FILES], (unsigned long long)c[IX_CDXJ_LINES],
			 (unsigned long long)c[IX_TEXT_DOCS],
			 (unsigned long long)c[IX_TEXT_DUPLICATES],
			 (unsigned long long)c[IX_LINKS], wat_said(j, c));
	return rc;
}

static void update_log(int seg, int ver, const uint64_t *c)
{
	log_info("update", "segment %d: %llu links routed, %llu new URLs; CrawlDb "
		 "version %d: %llu URLs, %llu fetched, %llu unfetched, %llu gone, "
		 "%llu errors, %llu denied", seg,
		 (unsigned long long)c[UC_LINKS_SENT], (unsigned long long)c[UC_ADDED], ver,
		 (unsigned long long)c[UC_RECORDS],
		 (unsigned long long)c[UC_STATUS_FIRST + ST_FETCHED],
		 (unsigned long long)c[UC_STATUS_FIRST + ST_UNFETCHED],
		 (unsigned long long)c[UC_STATUS_FIRST + ST_GONE],
		 (unsigned long long)c[UC_STATUS_FIRST + ST_ERROR],
		 (unsigned long long)c[UC_STATUS_FIRST + ST_DENIED]);
}

int round_update(struct job *j, int seg)
{
	uint64_t c[UC_COUNT_] = { 0 };
	struct round_snapshot s;
	struct round_plan p = { ROUND_UPDATE, 0, 0, NULL, 0 };
	char origin[32], extra[48];
	struct buf json;
	int rc;
	int64_t t0 = clock_mono_us();

	if (ready_segment(j, &seg, "parse", ROUND_PARSED, &s))
		return 1;
	switch (state_update_step(&s)) {
	case ROUND_MARK_UPDATE:
		/* A previous run committed the CrawlDb and stopped before
		 * marking the phase: only the mark is missing. */
		if (pack_outputs(j, seg, "update"))
			return 1;
		buf_init(&json);
		buf_adds(&json, "{\"resumed\":true}\n");
		rc = mark(j, seg, "update", &json);
		buf_release(&json);
		return rc;
	case ROUND_UPDATE:
		break;
	default:
		say_stale(&s);
		return 1;
	}
	p.seg = seg;
	p.clean_version = s.version + 1;
	clean(j, &p);
	if (!comm_agree(update_run(j, seg, s.version, c) == CR_OK)) {
		log_user("update of segment %d failed", seg);
		return 1;
	}
	snprintf(origin, sizeof(origin), "segment %d\n", seg);
	snprintf(extra, sizeof(extra), ",\"crawldb_version\":%d", s.version + 1);
	rc = commit_version(j, s.version + 1, origin);
	if (!rc)
		rc = mark_phase(j, seg, "update", update_counter_names, c, UC_COUNT_,
				secs_since(t0), extra);
	/* CDXJ, text and links: after the update, which decided the duplicates. */
	if (!rc && j->cfg.index_enabled)
		rc = round_index(j, seg, s.version + 1, 1);
	if (!rc && j->rank == 0)
		update_log(seg, s.version + 1, c);
	return rc;
}

/* ---- the crawl ---- */

/* A safe point of the crawl: 1 on every rank if any rank was asked to
 * stop (SIGTERM, SIGUSR1). What is committed stays; the next run continues. */
static int stop_here(struct job *j, const char *before)
{
	if (comm_agree(stop_requested() == 0))
		return 0;
	if (j->rank == 0)
		log_info("crawl", "asked to stop: stopping before %s; run the same command "
			 "again to continue", before);
	return 1;
}

static void hook(const struct job *j, const char *phase, int seg)
{
	if (round_phase_hook)
		round_phase_hook(j, phase, seg);
}

/* Generate a new round's segment; 1 in *complete when nothing is due. */
static int generate_step(struct job *j, int seg, int *complete)
{
	struct round_generated g = { 0 };
	int rc;

	hook(j, "generate", seg);
	rc = round_generate(j, &g);
	if (rc || !round_nothing_generated(&g))
		return rc;
	round_nothing_due(j, &g);
	*complete = 1;
	return 0;
}

/* After a round whose fetch gave no URL an outcome: 1 if the crawl
 * stops; 0 if it goes on, the round counted (its generate recorded URLs
 * robots.txt denies, and selected none); -1 if it goes on, the round not
 * counted (the segment's fetch list was empty: one a 'generate' made when
 * nothing was due, the next round is generated). Says which. Collective. */
static int fetched_nothing(struct job *j, int seg)
{
	int64_t v[2] = { -1, -1 };

	if (j->rank == 0) {
		struct round_facts f;

		state_read_facts(&j->dir, seg, &f);
		v[0] = f.selected;
		v[1] = f.denied;
	}
	comm_bcast(v, sizeof(v), 0);
	if (v[0] == 0 && v[1] > 0)
		return 0;   /* generate's line said so */
	if (v[0] == 0) {
		if (j->rank == 0)
			log_info("crawl", "segment %d had no URL to fetch (it was generated "
				 "when nothing was due): a new segment is generated", seg);
		return -1;
	}
	if (j->rank == 0)
		log_info("crawl", "no URL could be fetched this round (robots.txt "
			 "unavailable, hosts parked or the time limit): stopping; "
			 "run again later to continue");
	round_explain_nothing_fetched(j);
	return 1;
}

/*
 * One step of the crawl, as state.h plans it. *round_done is set when an
 * update finished a round; *complete when nothing is left to do; *outcomes
 * gets the fetch phase's outcomes (left alone when no fetch ran).
 */
static int step(struct job *j, const struct round_plan *p, int *round_done, int *complete,
		uint64_t *outcomes)
{
	const char *phase = p->step >= ROUND_UPDATE ? "update" : state_step_name(p->step);

	if (p->step != ROUND_GENERATE && p->step != ROUND_INJECT) {
		if (stop_here(j, phase))
			return ROUND_EXIT_STOPPED;
		hook(j, phase, p->seg);
	}
	switch (p->step) {
	case ROUND_INJECT:
		log_user("the CrawlDb is empty: give --seeds");
		return 2;
	case ROUND_GENERATE:
		return generate_step(j, p->seg, complete);
	case ROUND_FETCH:
		return round_fetch(j, p->seg, outcomes);
	case ROUND_PARSE:
		clean(j, p);
		return round_parse(j, p->seg);
	case ROUND_UPDATE:
	case ROUND_MARK_UPDATE:
	case ROUND_STALE:
		*round_done = 1;
		return round_update(j, p->seg);
	}
	return 1;
}

/* The crawl starts: inject into an empty CrawlDb, clean what a killed job
 * left under temporary names. *pending is set when seeds are to be added
 * to a crawl that goes on: at its next round boundary. */
static int begin(struct job *j, const struct inject_seeds *seeds, int *pending)
{
	struct round_snapshot s;

	*pending = 0;
	if (snapshot(j, 0, &s))
		return 1;
	if (j->rank == 0) {
		state_clean_tmp(&j->dir);
		/* A job killed between a fetch's mark and its journals' removal */
		if (s.seg > 0 && (s.phases & ROUND_FETCHED))
			state_forget_journals(&j->dir, s.seg);
	}
	if (s.version == 0) {
		if (!seeds) {
			log_user("the CrawlDb is empty: give --seeds");
			return 2;
		}
		hook(j, "inject", 0);
		return round_inject(j, seeds);
	}
	*pending = seeds != NULL;
	if (seeds && j->rank == 0)
		log_info("crawl", "continuing the crawl in '%s'; the seeds are added to its "
			 "CrawlDb before its next round", j->dir.root);
	return 0;
}

int round_crawl(struct job *j, const struct inject_seeds *seeds, long rounds)
{
	long max = rounds > 0 ? rounds : j->cfg.max_rounds, round = 1;
	int64_t t0 = clock_mono_us();
	uint64_t outcomes = 1;   /* a resumed round fetched before it stopped */
	int pending, rc = begin(j, seeds, &pending), complete = 0, first = 1;

	while (!rc && !complete && round <= max) {
		struct round_snapshot s;
		struct round_plan p;
		int done = 0, why;

		if (snapshot(j, 0, &s))
			return 1;
		state_next(&s, &p);
		if (p.step == ROUND_GENERATE && stop_here(j, "the next round"))
			return ROUND_EXIT_STOPPED;
		if (p.step == ROUND_GENERATE && pending) {
			/* Between rounds, as Nutch's inject: known URLs keep
			 * their records, new ones are due at once. */
			pending = 0;
			hook(j, "inject", s.version);
			rc = round_inject(j, seeds);
			continue;
		}
		/* A resumed round checks what its update will read before it
		 * fetches on (generate checks for a new one). */
		if (first && p.step >= ROUND_FETCH && p.step <= ROUND_UPDATE &&
		    verify_version(j, s.version))
			return 1;
		if (p.step == ROUND_GENERATE && state_left_behind(&s) && j->rank == 0)
			log_info("crawl", "segment %d was generated from CrawlDb version %d, which "
				 "is no longer current (%d): it is left as it is (what it fetched "
				 "stays in its WARC files) and a new segment is generated", s.seg,
				 s.seg_base, s.version);
		if (p.step == ROUND_GENERATE)
			outcomes = 1;
		else if (first && j->rank == 0)
			log_info("crawl", "resuming segment %d", p.seg);
		first = 0;
		rc = step(j, &p, &done, &complete, &outcomes);
		if (rc || !done)
			continue;
		if (j->rank == 0)
			log_info("crawl", "round %ld (segment %d) done in %.1f s", round, p.seg,
				 secs_since(t0));
		if (outcomes == 0 && (why = fetched_nothing(j, p.seg)) != 0) {
			if (why > 0)
				return 0;
			continue;   /* an empty segment: not a round of the crawl's */
		}
		/* Link analysis for the next generate (rank.every_rounds). */
		if (j->cfg.rank_every_rounds > 0 && p.seg % j->cfg.rank_every_rounds == 0 &&
		    rank_run(j) != CR_OK) {
			log_user("rank failed: the crawl stops; its data are kept");
			return 1;
		}
		round++;
		t0 = clock_mono_us();
	}
	if (!rc && !complete && j->rank == 0)
		log_info("crawl", "stopped after %ld rounds; run again to continue", max);
	return rc;
}

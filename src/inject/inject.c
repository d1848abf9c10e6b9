#include "inject/inject.h"
#include "comm/comm.h"
#include "dedup/dedup.h"
#include "seen/seen.h"
#include "scope/scope.h"
#include "scope/seeds.h"
#include "update/route.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INJECT_LOG_MAX 10

const char *const inject_counter_names[IC_COUNT_] = {
	"lines", "valid", "invalid", "refused", "added", "records",
};

struct seed_share {
	struct seeds_reader rd;   /* this rank's share of the lines */
	const char *path;         /* the seed file's name, for messages */
	uint64_t *c;
	struct scope *scope;      /* its rules may refuse a seed */
	double seed_cash;         /* score.seed_cash */
};

/* Counts and (the first few) logs a line that is no seed to inject. */
static void refuse(struct seed_share *s, const struct seed_line *l, int refused)
{
	if (s->c[IC_INVALID] + s->c[IC_REFUSED] < INJECT_LOG_MAX) {
		if (l->bad_line)
			log_warn("inject", "%s:%llu: invalid seed line: %s", s->path,
				 (unsigned long long)l->lineno, l->why);
		else
			log_warn("inject", "%s:%llu: %s seed '%.200s': %s", s->path,
				 (unsigned long long)l->lineno, refused ? "refused" : "invalid",
				 l->text, refused ? "a rule of scope.rules refuses it" : l->why);
	}
	s->c[refused ? IC_REFUSED : IC_INVALID]++;
}

static int produce_seeds(void *arg, struct route *r)
{
	struct seed_share *s = arg;
	struct seed_line l;
	enum cr_err e;

	while (!route_full(r)) {
		struct link_record lr = { .from = "" };

		if ((e = seeds_reader_next(&s->rd, &l)) != CR_OK)
			return e == CR_EOF ? 1 : -1;
		s->c[IC_LINES]++;
		if (l.why) {
			refuse(s, &l, 0);
			continue;
		}
		if (scope_check_rules(s->scope, l.url, strlen(l.url))) {
			refuse(s, &l, 1);
			continue;
		}
		s->c[IC_VALID]++;
		lr.meta.kind = l.set.sitemap ? CRAWL_SITEMAP : CRAWL_PAGE;
		lr.meta.vouched = lr.meta.kind == CRAWL_SITEMAP;   /* the operator vouches */
		lr.url = l.url;
		lr.url_len = strlen(l.url);
		lr.seed = seeds_id(l.url, lr.url_len);
		lr.cash = s->seed_cash * l.set.score;   /* OPIC: a seed enters with cash */
		route_add_link(r, &lr);
	}
	return 0;
}

/* seeds_write's filter: what scope.rules lets in. */
static int in_rules(void *arg, const char *url)
{
	return !scope_check_rules(arg, url, strlen(url));
}

/* Merges the routed seeds into each owned partition's next version. */
static enum cr_err merge_seeds(struct job *j, int ver, struct route *rt, uint64_t *c)
{
	static const struct merge_extra seeds = { .seeds = 1 };
	enum cr_err e = CR_OK;
	uint32_t p;

	for (p = 0; !e && p < j->dir.partitions; p++) {
		struct merge_stats st;

		if (!rt->sorts[p])
			continue;
		memset(&st, 0, sizeof(st));
		e = xsort_finish(rt->sorts[p]);
		if (e)
			break;
		e = merge_partition(&j->dir, &j->cfg, ver, ver + 1, p, NULL, rt->sorts[p], &st,
				    NULL, &seeds);
		if (!e && j->cfg.seen_enabled)
			e = seen_build(&j->dir, &j->cfg, ver + 1, p, st.records);
		xsort_free(&rt->sorts[p]);
		c[IC_ADDED] += st.added;
		c[IC_RECORDS] += st.records;
	}
	return e;
}

/* Opens the seed file's copy and the scope's rules; collective. */
static enum cr_err open_seeds(struct job *j, const struct inject_seeds *seeds, int ver,
			      struct seed_share *s, struct scope *scope)
{
	enum cr_err e = seeds_reader_open(&s->rd, seeds->path, (uint64_t)j->nranks,
					  (uint64_t)j->rank);

	if (e) {
		log_err("inject", "cannot read the copy '%s' of seed file '%s': %s", seeds->path,
			seeds->name, strerror(errno));
		e = CR_ERR_ARG;
	}
	if (!e)
		e = scope_open(scope, j, ver);
	if (comm_agree(e == CR_OK))
		return CR_OK;
	seeds_reader_close(&s->rd);
	if (!e)
		scope_release(scope);
	return e ? e : CR_ERR_COMM;
}

enum cr_err inject_run(struct job *j, const struct inject_seeds *seeds, int ver, uint64_t *c)
{
	struct seed_share s;
	struct scope scope;
	struct route rt;
	char dir[PATH_MAX];
	enum cr_err e;

	memset(&s, 0, sizeof(s));
	s.path = seeds->name;
	s.seed_cash = j->cfg.score_seed_cash;
	s.c = c;
	s.scope = &scope;
	e = open_seeds(j, seeds, ver, &s, &scope);
	if (e)
		return e;
	e = route_init(&rt, &j->dir, &j->cfg, j->tmpdir, j->rank, j->nranks, 0);
	if (!comm_agree(e == CR_OK)) {
		seeds_reader_close(&s.rd);
		scope_release(&scope);
		if (!e)
			route_release(&rt);
		return e ? e : CR_ERR_COMM;
	}
	e = route_run(&rt, produce_seeds, &s);
	seeds_reader_close(&s.rd);
	/* The scope of every later round is built from the recorded seeds. */
	if (!e && j->rank == 0)
		e = seeds_write(&j->dir, ver + 1, seeds->path, in_rules, &scope,
				(int)j->cfg.zstd_level);
	layout_crawldb_dir(&j->dir, ver + 1, dir, sizeof(dir));
	if (!e)
		e = fs_mkdirs(dir);
	if (!e)
		e = merge_seeds(j, ver, &rt, c);
	/* Inject adds no page: the near-duplicate stores go on unchanged. */
	if (!e)
		e = dedup_carry(j, ver);
	route_release(&rt);
	scope_release(&scope);
	return e;
}

enum cr_err inject_check(const char *path, uint64_t *lines, uint64_t *invalid, char *first,
			 size_t cap_first)
{
	struct seeds_reader rd;
	struct seed_line l;
	enum cr_err e;

	*lines = *invalid = 0;
	first[0] = '\0';
	if (seeds_reader_open(&rd, path, 1, 0) != CR_OK)
		return CR_ERR_IO;
	while ((e = seeds_reader_next(&rd, &l)) == CR_OK && l.why)
		if ((*invalid)++ == 0)
			snprintf(first, cap_first, "line %llu: %s", (unsigned long long)l.lineno,
				 l.why);
	*lines = rd.lineno;
	seeds_reader_close(&rd);
	return e;
}

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

struct seed_reader {
	FILE *fp;
	const char *path;
	uint64_t lineno;
	int rank, nranks;
	char *line;
	size_t cap;
	uint64_t *c;
	struct scope *scope;   /* its rules may refuse a seed */
	double seed_cash;      /* score.seed_cash */
};

/* A seed line's settings; bad ones (take_seed refuses the line) as none. */
static void seed_settings_of(const char *settings, struct seed_settings *ss)
{
	if (seeds_parse_settings(settings, ss))
		seeds_parse_settings("", ss);
}

/* Checks one seed line's URL and settings; CR_OK and the canonical URL in
 * out, or a logged warning (the first few) and the counter. */
static enum cr_err take_seed(struct seed_reader *s, const char *t, const char *settings,
			     char *out, size_t cap)
{
	const char *why = NULL;
	int refused = 0;

	if (url_canon(NULL, t, out, cap, &why) != CR_OK)
		;
	else if ((why = seeds_check_settings(settings)) != NULL)
		;
	else if ((why = scope_check_rules(s->scope, out, strlen(out))) != NULL)
		refused = 1;
	if (!why)
		return CR_OK;
	if (s->c[IC_INVALID] + s->c[IC_REFUSED] < INJECT_LOG_MAX)
		log_warn("inject", "%s:%llu: %s seed '%.200s': %s", s->path,
			 (unsigned long long)s->lineno, refused ? "refused" : "invalid", t,
			 refused ? "a rule of scope.rules refuses it" : why);
	s->c[refused ? IC_REFUSED : IC_INVALID]++;
	return CR_ERR_FORMAT;
}

/* A line that is no seed (seeds_split's why). */
static void bad_line(struct seed_reader *s, const char *why)
{
	if (s->c[IC_INVALID] + s->c[IC_REFUSED] < INJECT_LOG_MAX)
		log_warn("inject", "%s:%llu: invalid seed line: %s", s->path,
			 (unsigned long long)s->lineno, why);
	s->c[IC_INVALID]++;
}

static int produce_seeds(void *arg, struct route *r)
{
	struct seed_reader *s = arg;

	while (!route_full(r)) {
		ssize_t n = getline(&s->line, &s->cap, s->fp);
		char url[URL_MAX_LEN + 1];
		char *t, *settings;

		if (n < 0)
			return ferror(s->fp) ? -1 : 1;
		if ((s->lineno++ % (uint64_t)s->nranks) != (uint64_t)s->rank)
			continue;
		struct link_record l = { .from = "" };
		struct seed_settings ss;
		const char *bad = NULL;
		int seed = seeds_split(s->line, (size_t)n, s->lineno == 1, &t, &settings, &bad);

		if (!seed)
			continue;
		s->c[IC_LINES]++;
		if (seed < 0) {
			bad_line(s, bad);
			continue;
		}
		seed_settings_of(settings, &ss);
		l.meta.kind = seeds_sitemap(&t) || ss.sitemap ? CRAWL_SITEMAP : CRAWL_PAGE;
		l.meta.vouched = l.meta.kind == CRAWL_SITEMAP;   /* the operator vouches */
		if (take_seed(s, t, settings, url, sizeof(url)) != CR_OK)
			continue;
		s->c[IC_VALID]++;
		l.url = url;
		l.url_len = strlen(url);
		l.seed = seeds_id(url, l.url_len);
		l.cash = s->seed_cash * ss.score;   /* OPIC: a seed enters with cash */
		route_add_link(r, &l);
	}
	return 0;
}

/* Merges the routed seeds into each owned partition's next version. */
static enum cr_err merge_seeds(struct job *j, int ver, struct route *rt, uint64_t *c)
{
	static const struct merge_extra seeds = { .seeds = 1 };
	struct buf seen;
	enum cr_err e = CR_OK;
	uint32_t p;

	buf_init(&seen);
	for (p = 0; !e && p < j->dir.partitions; p++) {
		struct merge_stats st;

		if (!rt->sorts[p])
			continue;
		memset(&st, 0, sizeof(st));
		e = xsort_finish(rt->sorts[p]);
		if (e)
			break;
		seen.len = 0;
		e = merge_partition(&j->dir, &j->cfg, ver, ver + 1, p, NULL, rt->sorts[p], &st,
				    j->cfg.seen_enabled ? &seen : NULL, &seeds);
		if (!e && j->cfg.seen_enabled)
			e = seen_write(&j->dir, &j->cfg, ver + 1, p, &seen);
		xsort_free(&rt->sorts[p]);
		c[IC_ADDED] += st.added;
		c[IC_RECORDS] += st.records;
	}
	buf_release(&seen);
	return e;
}

/* Opens the seed file's copy and the scope's rules; collective. */
static enum cr_err open_seeds(struct job *j, const struct inject_seeds *seeds, int ver,
			      struct seed_reader *s, struct scope *scope)
{
	enum cr_err e = CR_OK;

	s->fp = fopen(seeds->path, "r");
	if (!s->fp) {
		log_err("inject", "cannot read the copy '%s' of seed file '%s': %s", seeds->path,
			seeds->name, strerror(errno));
		e = CR_ERR_ARG;
	}
	if (!e)
		e = scope_open(scope, j, ver);
	if (comm_agree(e == CR_OK))
		return CR_OK;
	if (s->fp)
		fclose(s->fp);
	if (!e)
		scope_release(scope);
	return e ? e : CR_ERR_COMM;
}

enum cr_err inject_run(struct job *j, const struct inject_seeds *seeds, int ver, uint64_t *c)
{
	struct seed_reader s;
	struct scope scope;
	struct route rt;
	char dir[PATH_MAX];
	enum cr_err e;

	memset(&s, 0, sizeof(s));
	s.path = seeds->name;
	s.rank = j->rank;
	s.seed_cash = j->cfg.score_seed_cash;
	s.nranks = j->nranks;
	s.c = c;
	s.scope = &scope;
	e = open_seeds(j, seeds, ver, &s, &scope);
	if (e)
		return e;
	e = route_init(&rt, &j->dir, &j->cfg, j->tmpdir, j->rank, j->nranks, 0);
	if (!comm_agree(e == CR_OK)) {
		fclose(s.fp);
		scope_release(&scope);
		if (!e)
			route_release(&rt);
		return e ? e : CR_ERR_COMM;
	}
	e = route_run(&rt, produce_seeds, &s);
	fclose(s.fp);
	free(s.line);
	/* The scope of every later round is built from the recorded seeds. */
	if (!e && j->rank == 0)
		e = seeds_write(&j->dir, ver + 1, seeds->path, &scope, (int)j->cfg.zstd_level);
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
	FILE *fp = fopen(path, "r");
	char *line = NULL, url[URL_MAX_LEN + 1];
	size_t cap = 0;
	ssize_t n;
	enum cr_err e = CR_EOF;

	*lines = *invalid = 0;
	first[0] = '\0';
	if (!fp)
		return CR_ERR_IO;
	while (e == CR_EOF && (n = getline(&line, &cap, fp)) >= 0) {
		char *t, *settings;
		const char *why = NULL;
		int seed = seeds_split(line, (size_t)n, (*lines)++ == 0, &t, &settings, &why);

		if (!seed)
			continue;
		if (seed > 0)
			seeds_sitemap(&t);
		if (seed > 0 && url_canon(NULL, t, url, sizeof(url), &why) == CR_OK &&
		    !(why = seeds_check_settings(settings)))
			e = CR_OK;
		else if ((*invalid)++ == 0)
			snprintf(first, cap_first, "line %llu: %s", (unsigned long long)*lines,
				 why);
	}
	if (e == CR_EOF && ferror(fp))
		e = CR_ERR_IO;
	free(line);
	fclose(fp);
	return e;
}

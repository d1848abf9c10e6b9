#include "inject/inject.h"
#include "comm/comm.h"
#include "dedup/dedup.h"
#include "seen/seen.h"
#include "update/route.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INJECT_LOG_MAX 10
#define UTF8_BOM "\xef\xbb\xbf"

const char *const inject_counter_names[IC_COUNT_] = {
	"lines", "valid", "invalid", "added", "records",
};

struct seed_reader {
	FILE *fp;
	const char *path;
	uint64_t lineno;
	int rank, nranks;
	char *line;
	size_t cap;
	uint64_t *c;
};

static int produce_seeds(void *arg, struct route *r)
{
	struct seed_reader *s = arg;

	while (!route_full(r)) {
		ssize_t n = getline(&s->line, &s->cap, s->fp);
		char url[URL_MAX_LEN + 1];
		const char *why;
		char *t;

		if (n < 0)
			return ferror(s->fp) ? -1 : 1;
		if ((s->lineno++ % (uint64_t)s->nranks) != (uint64_t)s->rank)
			continue;
		t = s->line;
		if (s->lineno == 1 && n >= 3 && !memcmp(t, UTF8_BOM, 3))
			t += 3;   /* a byte order mark is not part of the first URL */
		while (*t == ' ' || *t == '\t')
			t++;
		t[strcspn(t, "\r\n")] = '\0';
		if (!*t || *t == '#')
			continue;
		s->c[IC_LINES]++;
		if (url_canon(NULL, t, url, sizeof(url), &why) != CR_OK) {
			if (s->c[IC_INVALID]++ < INJECT_LOG_MAX)
				log_warn("inject", "%s:%llu: invalid seed '%.200s': %s", s->path,
					 (unsigned long long)s->lineno, t, why);
			continue;
		}
		s->c[IC_VALID]++;
		route_add(r, url, strlen(url), 0, 0);
	}
	return 0;
}

enum cr_err inject_run(struct job *j, const char *seeds, int ver, uint64_t *c)
{
	struct seed_reader s;
	struct route rt;
	struct buf seen;
	char dir[PATH_MAX];
	uint32_t p;
	enum cr_err e;

	memset(&s, 0, sizeof(s));
	s.path = seeds;
	s.rank = j->rank;
	s.nranks = j->nranks;
	s.c = c;
	s.fp = fopen(seeds, "r");
	if (!s.fp)
		log_err("inject", "cannot read seed file '%s': %s", seeds, strerror(errno));
	if (!comm_agree(s.fp != NULL)) {
		if (s.fp)
			fclose(s.fp);
		return CR_ERR_ARG;
	}
	e = route_init(&rt, &j->dir, &j->cfg, j->tmpdir, j->rank, j->nranks, 0);
	if (!comm_agree(e == CR_OK)) {
		fclose(s.fp);
		if (!e)
			route_release(&rt);
		return e ? e : CR_ERR_COMM;
	}
	buf_init(&seen);
	e = route_run(&rt, produce_seeds, &s);
	fclose(s.fp);
	free(s.line);
	layout_crawldb_dir(&j->dir, ver + 1, dir, sizeof(dir));
	if (!e)
		e = fs_mkdirs(dir);
	for (p = 0; !e && p < j->dir.partitions; p++) {
		struct merge_stats st;

		if (!rt.sorts[p])
			continue;
		memset(&st, 0, sizeof(st));
		e = xsort_finish(rt.sorts[p]);
		if (e)
			break;
		seen.len = 0;
		e = merge_partition(&j->dir, &j->cfg, ver, ver + 1, p, NULL, rt.sorts[p], &st,
				    j->cfg.seen_enabled ? &seen : NULL, NULL);
		if (!e && j->cfg.seen_enabled)
			e = seen_write(&j->dir, &j->cfg, ver + 1, p, &seen);
		xsort_free(&rt.sorts[p]);
		c[IC_ADDED] += st.added;
		c[IC_RECORDS] += st.records;
	}
	/* Inject adds no page: the near-duplicate stores go on unchanged. */
	if (!e)
		e = dedup_carry(j, ver);
	route_release(&rt);
	buf_release(&seen);
	return e;
}

enum cr_err inject_check(const char *path, uint64_t *lines, uint64_t *invalid)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, url[URL_MAX_LEN + 1];
	size_t cap = 0;
	ssize_t n;
	enum cr_err e = CR_EOF;

	*lines = *invalid = 0;
	if (!fp)
		return CR_ERR_IO;
	while (e == CR_EOF && (n = getline(&line, &cap, fp)) >= 0) {
		char *t = line;
		const char *why;

		if (*lines == 0 && n >= 3 && !memcmp(t, UTF8_BOM, 3))
			t += 3;
		while (*t == ' ' || *t == '\t')
			t++;
		t[strcspn(t, "\r\n")] = '\0';
		if (!*t || *t == '#') {
			(*lines)++;
			continue;
		}
		(*lines)++;
		if (url_canon(NULL, t, url, sizeof(url), &why) == CR_OK)
			e = CR_OK;
		else
			(*invalid)++;
	}
	if (e == CR_EOF && ferror(fp))
		e = CR_ERR_IO;
	free(line);
	fclose(fp);
	return e;
}

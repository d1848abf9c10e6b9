#include "crawldb/state.h"
#include "store/pack.h"
#include "util/clock.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const state_phase_names[ROUND_PHASES] = { "generate", "fetch", "parse", "update",
							"index" };

/* The CrawlDb version segment seg was generated from, as its
 * _SUCCESS.generate says; 0 if it does not say. */
static int base_version(const struct crawl_dir *d, int seg)
{
	char path[PATH_MAX];
	struct buf b;
	int64_t v = 0;

	layout_segment_sub(d, seg, "_SUCCESS.generate", path, sizeof(path));
	buf_init(&b);
	if (fs_read_all(path, 1 << 20, &b) != CR_OK ||
	    json_get_int((const char *)b.p, b.len, "crawldb_version", &v) != CR_OK ||
	    v < 0 || v > 99999)
		v = 0;
	buf_release(&b);
	return (int)v;
}

/* The segment whose update made CrawlDb version ver (its _FROM); 0 for an
 * inject or when it does not say. */
static int made_by(const struct crawl_dir *d, int ver)
{
	char path[PATH_MAX];
	struct buf b;
	int seg = 0;

	layout_crawldb_file(d, ver, "_FROM", path, sizeof(path));
	buf_init(&b);
	if (fs_read_all(path, 64, &b) == CR_OK && sscanf(buf_cstr(&b), "segment %d", &seg) != 1)
		seg = 0;
	buf_release(&b);
	return seg;
}

void state_read(const struct crawl_dir *d, int seg, struct round_snapshot *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->ok = layout_crawldb_current(d, &s->version) == CR_OK;
	if (s->ok && s->version > 0)
		s->version_from = made_by(d, s->version);
	s->seg = seg ? seg : layout_segment_last(d);
	/* The segment that made the current version is the last one at
	 * least, also when its directory was removed: a number is never used
	 * twice (the near-duplicate stores name the segments they merged). */
	if (!seg && s->version_from > s->seg) {
		s->seg = s->version_from;
		s->phases = ROUND_GENERATED | ROUND_FETCHED | ROUND_PARSED | ROUND_UPDATED |
			    ROUND_INDEXED;
		s->seg_base = s->version - 1;
		return;
	}
	if (s->seg == 0)
		return;
	for (i = 0; i < ROUND_PHASES; i++)
		if (layout_phase_done(d, s->seg, state_phase_names[i]))
			s->phases |= 1 << i;
	if (s->phases & ROUND_GENERATED)
		s->seg_base = base_version(d, s->seg);
}

/* An integer member of phase's JSON in segment seg, or of its object
 * member within (NULL: none); -1 when there is none. */
static int64_t phase_int(const struct crawl_dir *d, int seg, const char *phase,
			 const char *within, const char *key)
{
	char path[PATH_MAX], name[32];
	const char *text;
	struct buf b;
	size_t n;
	int64_t v = -1;

	snprintf(name, sizeof(name), "_SUCCESS.%s", phase);
	layout_segment_sub(d, seg, name, path, sizeof(path));
	buf_init(&b);
	if (fs_read_all(path, 1 << 20, &b) == CR_OK) {
		text = (const char *)b.p;
		n = b.len;
		if ((!within || json_get_value(text, n, within, &text, &n) == CR_OK) &&
		    (json_get_int(text, n, key, &v) != CR_OK || v < 0))
			v = -1;
	}
	buf_release(&b);
	return v;
}

void state_read_facts(const struct crawl_dir *d, int seg, struct round_facts *f)
{
	int64_t r;
	int i;

	f->round_ms = -1;
	f->steps = -1;
	f->records = 0;
	f->origins = -1;
	f->selected = -1;
	f->denied = -1;
	f->rescope_due = -1;
	f->due_later = 0;
	f->unfetched = -1;
	if (seg <= 0)
		return;
	f->selected = phase_int(d, seg, "generate", "counters", "selected");
	f->denied = phase_int(d, seg, "generate", "counters", "robots_denied");
	f->rescope_due = phase_int(d, seg, "generate", "counters", "rescope_due");
	for (i = 0; i < 3; i++) {
		static const char *const later[3] = {
			"host_capped", "politeness_capped", "budget_capped",
		};

		r = phase_int(d, seg, "generate", "counters", later[i]);
		f->due_later += r > 0 ? (uint64_t)r : 0;
	}
	f->round_ms = phase_int(d, seg, "generate", NULL, "round_ms");
	f->steps = phase_int(d, seg, "generate", NULL, "round_steps");
	f->origins = phase_int(d, seg, "update", "counters", "origins");
	f->unfetched = phase_int(d, seg, "update", "counters", "status_unfetched");
	r = phase_int(d, seg, "update", "counters", "records");
	f->records = r > 0 ? (uint64_t)r : 0;
}

int state_generate_target(const struct round_snapshot *s, int *redo)
{
	*redo = s->seg > 0 && !(s->phases & ROUND_GENERATED);
	return *redo ? s->seg : s->seg + 1;
}

enum round_step state_update_step(const struct round_snapshot *s)
{
	if (s->seg_base <= 0)
		return ROUND_STALE;
	if (s->version == s->seg_base)
		return ROUND_UPDATE;
	if (s->version == s->seg_base + 1 && s->version_from == s->seg)
		return ROUND_MARK_UPDATE;
	return ROUND_STALE;
}

int state_left_behind(const struct round_snapshot *s)
{
	return (s->phases & (ROUND_UPDATED | ROUND_GENERATED)) == ROUND_GENERATED &&
	       s->seg_base > 0 && state_update_step(s) == ROUND_STALE;
}

void state_next(const struct round_snapshot *s, struct round_plan *p)
{
	static const char *const fetchlist[] = { "fetchlist", "denied", NULL };
	static const char *const progress[] = { "progress", NULL };
	static const char *const parse[] = { "parse", NULL };
	int redo;

	memset(p, 0, sizeof(*p));
	p->seg = s->seg;
	if (s->version == 0) {
		p->step = ROUND_INJECT;
		p->clean_version = 1;
	} else if (s->seg == 0 ||
		   (s->phases & (ROUND_UPDATED | ROUND_GENERATED)) != ROUND_GENERATED ||
		   state_left_behind(s)) {
		p->step = ROUND_GENERATE;
		p->seg = state_generate_target(s, &redo);
		p->clean_subdirs = redo ? fetchlist : NULL;
	} else if (!(s->phases & ROUND_FETCHED)) {
		/* Resumed from its journals; the robots cache it may have half
		 * written is not read as this segment's. */
		p->step = ROUND_FETCH;
		p->clean_subdirs = progress;
		p->clean_robots = 1;
	} else if (!(s->phases & ROUND_PARSED)) {
		p->step = ROUND_PARSE;
		p->clean_subdirs = parse;
	} else {
		p->step = state_update_step(s);
		if (p->step == ROUND_UPDATE)
			p->clean_version = s->version + 1;
	}
}

const char *state_step_name(enum round_step s)
{
	static const char *const names[] = { "inject", "generate", "fetch", "parse", "update",
					     "mark update", "stale" };

	return s <= ROUND_STALE ? names[s] : "?";
}

/* ---- commits and clean-ups ---- */

void state_clean_subdirs(const struct crawl_dir *d, int seg, const char *const *subdirs)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; subdirs && subdirs[i]; i++) {
		layout_segment_sub(d, seg, subdirs[i], path, sizeof(path));
		if (fs_remove_tree(path) != CR_OK)
			log_warn("crawl", "cannot remove '%s'", path);
	}
}

/* Removes the files of path's folder whose names start with path's name. */
static void remove_prefixed(const char *path)
{
	char folder[PATH_MAX], file[PATH_MAX + 256];
	const char *name = strrchr(path, '/');
	struct dirent *de;
	DIR *dp;

	if (!name)
		return;
	snprintf(folder, sizeof(folder), "%.*s", (int)(name - path), path);
	name++;
	dp = opendir(folder);
	while (dp && (de = readdir(dp)) != NULL) {
		if (strncmp(de->d_name, name, strlen(name)))
			continue;
		snprintf(file, sizeof(file), "%s/%s", folder, de->d_name);
		if (unlink(file) != 0)
			log_warn("crawl", "cannot remove uncommitted seeds '%s'", file);
	}
	if (dp)
		closedir(dp);
}

void state_clean_version(const struct crawl_dir *d, int ver)
{
	char dir[PATH_MAX];

	layout_crawldb_dir(d, ver, dir, sizeof(dir));
	if (fs_exists(dir) && fs_remove_tree(dir) != CR_OK)
		log_warn("crawl", "cannot remove uncommitted CrawlDb version '%s'", dir);
	/* The seeds an unfinished inject recorded for it are not seeds: the
	 * file, or the temporary a killed writer left (NNNNN.zst.tmp.PID). */
	layout_seeds(d, ver, dir, sizeof(dir));
	remove_prefixed(dir);
}

void state_clean(const struct crawl_dir *d, const struct round_plan *p)
{
	char dir[PATH_MAX];

	if (p->clean_version)
		state_clean_version(d, p->clean_version);
	state_clean_subdirs(d, p->seg, p->clean_subdirs);
	if (p->clean_robots) {
		layout_robots_dir(d, p->seg, dir, sizeof(dir));
		if (fs_exists(dir) && fs_remove_tree(dir) != CR_OK)
			log_warn("crawl", "cannot remove '%s'", dir);
	}
}

/* Removes the temporary files (NAME.tmp.PID) in dir and, with depth 1, in
 * its subdirectories: files written under a temporary name and never
 * renamed into place. */
static void clean_tmp(const char *dir, int depth)
{
	DIR *dh = opendir(dir);
	struct dirent *de;

	if (!dh)
		return;
	while ((de = readdir(dh)) != NULL) {
		char path[PATH_MAX + 256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (depth > 0 && de->d_type == DT_DIR)
			clean_tmp(path, depth - 1);
		if (!strstr(de->d_name, ".tmp."))
			continue;
		if (unlink(path) != 0)
			log_warn("crawl", "cannot remove '%s'", path);
	}
	closedir(dh);
}

void state_clean_tmp(const struct crawl_dir *d)
{
	char dir[PATH_MAX];
	int last = layout_segment_last(d);

	layout_top(d->root, "crawldb", dir, sizeof(dir));
	clean_tmp(dir, 0);
	if (last > 0) {
		layout_segment_dir(d, last, dir, sizeof(dir));
		clean_tmp(dir, 1);
	}
}

void state_forget_journals(const struct crawl_dir *d, int seg)
{
	char path[PATH_MAX + 300];
	uint32_t p;

	char dir[PATH_MAX], **v;
	size_t n, i;

	for (p = 0; p < d->partitions; p++) {
		layout_journal(d, seg, p, path, sizeof(path));
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("crawl", "cannot remove '%s': %s", path, strerror(errno));
	}
	/* and the ranks' marks journals (fetch/journal.h) */
	layout_segment_sub(d, seg, "fetch", dir, sizeof(dir));
	v = fs_list(dir, "marks-", ".journal", &n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("crawl", "cannot remove '%s': %s", path, strerror(errno));
	}
	fs_list_free(v, n);
}

enum cr_err state_commit_version(const struct crawl_dir *d, int ver, const char *origin)
{
	char path[PATH_MAX];
	enum cr_err e;

	layout_crawldb_file(d, ver, "_FROM", path, sizeof(path));
	e = fs_write_atomic(path, origin, strlen(origin));
	if (!e)
		e = layout_crawldb_commit(d, ver);
	if (!e && ver >= 3) {
		/* Two versions are kept: the new one and the one before. */
		layout_crawldb_dir(d, ver - 2, path, sizeof(path));
		if (fs_exists(path) && fs_remove_tree(path) != CR_OK)
			log_warn("crawl", "cannot remove old CrawlDb version '%s'", path);
	}
	return e;
}

/* 1 if name is a robots cache version's folder (NNNNN), into *v. */
static int robots_version(const char *name, int *v)
{
	char *end;
	long n = strtol(name, &end, 10);

	if (strlen(name) != 5 || *end || n <= 0 || n > 99999)
		return 0;
	*v = (int)n;
	return 1;
}

void state_prune_robots(const struct crawl_dir *d)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int newest = layout_robots_last(d), second = 0, v;
	struct dirent *de;
	DIR *dh;

	layout_top(d->root, "robots", dir, sizeof(dir));
	if (newest <= 0 || !(dh = opendir(dir)))
		return;
	while ((de = readdir(dh)) != NULL)
		if (robots_version(de->d_name, &v) && v < newest && v > second)
			second = v;
	rewinddir(dh);
	while ((de = readdir(dh)) != NULL) {
		if (!robots_version(de->d_name, &v) || v >= second)
			continue;
		layout_robots_dir(d, v, path, sizeof(path));
		if (fs_remove_tree(path) != CR_OK)
			log_warn("crawl", "cannot remove the old robots.txt cache '%s'", path);
	}
	closedir(dh);
}

enum cr_err state_pack_segment(const struct crawl_dir *d, int seg,
			       const struct state_packs *packs, const char *phase, int rank,
			       int nranks)
{
	char dir[PATH_MAX];
	enum cr_err e = CR_OK;
	size_t i;

	for (i = 0; !e && packs[i].phase; i++) {
		if (strcmp(packs[i].phase, phase) != 0)
			continue;
		layout_segment_sub(d, seg, packs[i].folder, dir, sizeof(dir));
		e = pack_gather(dir, packs[i].stem, packs[i].suffix, rank, nranks,
				clock_now_us(), NULL);
	}
	return e;
}

enum cr_err state_pack_robots(const struct crawl_dir *d, int ver, int rank, int nranks)
{
	char dir[PATH_MAX];
	enum cr_err e;

	layout_robots_dir(d, ver, dir, sizeof(dir));
	e = pack_gather(dir, "part", ".zst", rank, nranks, clock_now_us(), NULL);
	if (!e)
		e = pack_gather(dir, "early", ".zst", rank, nranks, clock_now_us(), NULL);
	return e;
}

void state_prune_packs(const struct crawl_dir *d, int seg, const struct state_packs *packs,
		       const char *phase, int ver)
{
	char dir[PATH_MAX];
	size_t i;

	for (i = 0; packs[i].phase; i++) {
		if (strcmp(packs[i].phase, phase) != 0)
			continue;
		layout_segment_sub(d, seg, packs[i].folder, dir, sizeof(dir));
		if (pack_prune(dir, packs[i].stem, packs[i].suffix) != CR_OK)
			log_warn("crawl", "cannot prune the packs of '%s'", dir);
	}
	if (ver > 0) {
		layout_robots_dir(d, ver, dir, sizeof(dir));
		if (pack_prune(dir, "part", ".zst") != CR_OK ||
		    pack_prune(dir, "early", ".zst") != CR_OK)
			log_warn("crawl", "cannot prune the packs of '%s'", dir);
	}
}

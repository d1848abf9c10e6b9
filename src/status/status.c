#include "status/status.h"
#include "crawldb/state.h"
#include "util/buf.h"
#include "util/fs.h"

#define _XOPEN_SOURCE_EXTENDED 1
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const status_job_names[4] = { "new", "running", "stopped", "complete" };

static void note(struct status_progress *sp, const char *name, const char *why)
{
	sp->skipped++;
	if (sp->nnotes < STATUS_NOTES)
		snprintf(sp->notes[sp->nnotes++], sizeof(sp->notes[0]),
			 "progress file %.40s skipped: %.80s", name, why);
}

/* Reads and decodes one file; 1 if whole. */
static int read_one(const char *dir, const char *name, struct progfile *f,
		    struct status_progress *sp)
{
	char path[PATH_MAX + 64];
	const char *why = NULL;
	struct buf b;
	enum cr_err e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf_init(&b);
	e = fs_read_all(path, PROGFILE_BYTES_MAX, &b);
	if (e == CR_OK)
		e = progfile_decode(b.p, b.len, f, &why);
	else
		why = e == CR_ERR_LIMIT ? "too large" : "unreadable";
	buf_release(&b);
	if (e) {
		note(sp, name, why ? why : "damaged");
		return 0;
	}
	return 1;
}

/* The files of the job whose file is newest, each at its rank. */
static enum cr_err place(struct status_progress *sp, struct progfile *all, const int *good,
			 size_t n)
{
	int64_t newest = INT64_MIN;
	size_t i;

	for (i = 0; i < n; i++)
		if (good[i] && all[i].time_us > newest) {
			newest = all[i].time_us;
			sp->ranks = all[i].ranks;
		}
	if (!sp->ranks)
		return CR_OK;
	sp->files = calloc((size_t)sp->ranks, sizeof(*sp->files));
	sp->ok = calloc((size_t)sp->ranks, sizeof(*sp->ok));
	if (!sp->files || !sp->ok)
		return CR_ERR_NOMEM;
	sp->n = sp->ranks;
	for (i = 0; i < n; i++)
		if (good[i] && all[i].ranks == sp->ranks && !sp->ok[all[i].rank]) {
			sp->files[all[i].rank] = all[i];
			sp->ok[all[i].rank] = 1;
		}
	return CR_OK;
}

enum cr_err status_progress_read(const struct crawl_dir *d, int seg,
				 struct status_progress *sp)
{
	char dir[PATH_MAX];
	char **names;
	size_t listed = 0, n, i;
	struct progfile *all;
	int *good;
	enum cr_err e = CR_OK;

	memset(sp, 0, sizeof(*sp));
	if (seg <= 0)
		return CR_OK;
	layout_segment_sub(d, seg, "progress", dir, sizeof(dir));
	names = fs_list(dir, "r", "", &listed);
	n = listed < STATUS_RANKS_MAX ? listed : STATUS_RANKS_MAX;
	all = calloc(n ? n : 1, sizeof(*all));
	good = calloc(n ? n : 1, sizeof(*good));
	if (!all || !good)
		e = CR_ERR_NOMEM;
	for (i = 0; !e && i < n; i++)
		good[i] = read_one(dir, names[i], &all[i], sp);
	if (!e)
		e = place(sp, all, good, n);
	free(all);
	free(good);
	fs_list_free(names, listed);
	return e;
}

void status_progress_release(struct status_progress *sp)
{
	free(sp->files);
	free(sp->ok);
	sp->files = NULL;
	sp->ok = NULL;
	sp->n = sp->ranks = 0;
}

static uint64_t du_sum;

static int du_one(const char *path, const struct stat *s, int flag, struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	du_sum += (uint64_t)s->st_blocks * 512;
	return 0;
}

uint64_t status_disk_bytes(const char *root)
{
	du_sum = 0;
	if (nftw(root, du_one, 32, FTW_PHYS) != 0)
		return du_sum;
	return du_sum;
}

/* The phase under way (a job runs) or next, by the snapshot. */
static const char *phase_of(const struct round_snapshot *s, int running)
{
	struct round_plan plan;

	if (!s->version && !s->seg)
		return "inject";
	if (s->seg && (s->phases & ROUND_UPDATED))
		return running ? (s->phases & ROUND_INDEXED ? "generate" : "index") : "done";
	state_next(s, &plan);
	switch (plan.step) {
	case ROUND_INJECT: return "inject";
	case ROUND_GENERATE: case ROUND_STALE: return "generate";
	case ROUND_FETCH: return "fetch";
	case ROUND_PARSE: return "parse";
	default: return "update";
	}
}

static enum status_job job_of(const struct status *st)
{
	if (st->lock == LOCK_PEEK_ALIVE || st->lock == LOCK_PEEK_REMOTE)
		return STATUS_RUNNING;
	if (!st->version && !st->seg)
		return STATUS_NEW;
	if (st->last_exit == 75)
		return STATUS_STOPPED;   /* a clean stop, recorded (cli.c) */
	if (st->seg && !(st->phases & ROUND_UPDATED))
		return STATUS_STOPPED;
	return STATUS_COMPLETE;
}

/* The round's progress: the ranks' files added up; a fetch that ended
 * has nothing left to wait for. */
static enum cr_err round_progress(const struct crawl_dir *d, struct status *st)
{
	enum cr_err e = CR_OK;

	if (st->seg && (st->phases & ROUND_GENERATED))
		e = status_progress_read(d, st->seg, &st->prog);
	if (e)
		return e;
	estimate_round(st->prog.files, st->prog.ok, st->prog.n, st->prog.ranks, st->selected,
		       &st->est);
	if (st->phases & ROUND_FETCHED) {
		if (!st->prog.ranks)
			st->est.done = st->est.total;
		st->est.eta_s = 0;
		st->est.rate_recent = 0;
	}
	st->crawl_eta_s = st->job == STATUS_RUNNING ?
			  estimate_crawl_s(st->est.eta_s, st->due_later, st->est.url_rate) : -1;
	return CR_OK;
}

/* The exit code DIR/last_job records (the last job's end), or -1. */
static int last_exit(const char *dir)
{
	char path[PATH_MAX];
	const char *e;
	struct buf b;
	int code = -1;

	layout_top(dir, "last_job", path, sizeof(path));
	buf_init(&b);
	if (fs_read_all(path, 4096, &b) == CR_OK && (e = strstr(buf_cstr(&b), "exit=")) &&
	    (e == (const char *)b.p || e[-1] == '\n'))
		code = (int)strtol(e + 5, NULL, 10);
	buf_release(&b);
	return code;
}

enum cr_err status_read(const char *dir, int64_t now_us, unsigned flags, struct status *st)
{
	struct crawl_dir d;
	struct round_snapshot snap;
	struct round_facts facts;
	char path[PATH_MAX];

	memset(st, 0, sizeof(*st));
	memset(&d, 0, sizeof(d));
	st->now_us = now_us;
	layout_top(dir, "crawl.meta", path, sizeof(path));
	if (strlen(dir) >= sizeof(d.root) || !fs_exists(path))
		return CR_ERR_ARG;
	snprintf(d.root, sizeof(d.root), "%s", dir);
	layout_top(dir, "lock", path, sizeof(path));
	st->lock = lock_look(path, &st->holder);
	st->last_exit = last_exit(dir);
	state_read(&d, 0, &snap);
	st->version = snap.version;
	st->seg = snap.seg;
	st->phases = snap.phases;
	st->job = job_of(st);
	st->phase = phase_of(&snap, st->job == STATUS_RUNNING);
	state_read_facts(&d, st->seg, &facts);
	st->selected = facts.selected > 0 ? (uint64_t)facts.selected : 0;
	st->due_later = (st->phases & ROUND_UPDATED) && facts.unfetched >= 0 ?
			(uint64_t)facts.unfetched : facts.due_later;
	if (flags & STATUS_DISK)
		st->disk_bytes = status_disk_bytes(dir);
	return round_progress(&d, st);
}

void status_release(struct status *st)
{
	status_progress_release(&st->prog);
}

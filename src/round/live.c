#include "round/live.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The segment folders and the phase whose manifest commits each. */
static const struct {
	const char *sub;
	int phase;
} sub_phases[] = {
	{ "fetchlist", ROUND_GENERATED }, { "denied", ROUND_GENERATED },
	{ "fetch", ROUND_FETCHED }, { "warc", ROUND_FETCHED },
	{ "parse", ROUND_PARSED },
	{ "cdxj", ROUND_INDEXED }, { "text", ROUND_INDEXED }, { "wat", ROUND_INDEXED },
	{ "links", ROUND_INDEXED }, { "pages", ROUND_INDEXED },
};

int round_sub_phase(const char *sub)
{
	size_t i;

	for (i = 0; i < sizeof(sub_phases) / sizeof(sub_phases[0]); i++)
		if (!strcmp(sub, sub_phases[i].sub))
			return sub_phases[i].phase;
	return 0;
}

int round_sub_committed(int phases, const char *sub)
{
	int ph = round_sub_phase(sub);

	return ph != 0 && (phases & ph) == ph;
}

const char *const *round_decision_kinds(int phases)
{
	static const char *const none[] = { NULL };
	static const char *const gen[] = { "generate-", NULL };
	static const char *const upd[] = { "update-", "held-", NULL };
	static const char *const all[] = { "generate-", "update-", "held-", NULL };
	int g = !!(phases & ROUND_GENERATED), u = !!(phases & ROUND_UPDATED);

	return g && u ? all : g ? gen : u ? upd : none;
}

int round_name_is_temp(const char *name)
{
	size_t n = strlen(name);

	return strstr(name, ".tmp.") != NULL || (n >= 4 && !strcmp(name + n - 4, ".tmp"));
}

int round_in_progress(const struct round_snapshot *s)
{
	return s->seg > 0 && !(s->phases & ROUND_UPDATED) && !state_left_behind(s);
}

/* The names of the phases done, as "generate, fetch"; the first not done
 * into *first (-1: none). */
static void phases_done(int phases, char *out, size_t cap, int *first)
{
	size_t at = 0, i;

	out[0] = '\0';
	*first = -1;
	for (i = 0; i < ROUND_PHASES; i++) {
		if (!(phases & (1 << i))) {
			if (*first < 0)
				*first = (int)i;
		} else if (at < cap) {
			at += (size_t)snprintf(out + at, cap - at, "%s%s", at ? ", " : "",
					       state_phase_names[i]);
		}
	}
}

void round_progress_str(const struct round_snapshot *s, int running, char *out, size_t cap)
{
	char done[64];
	int first;

	if (s->seg <= 0) {
		snprintf(out, cap, "no round yet");
		return;
	}
	if (!round_in_progress(s)) {
		snprintf(out, cap, "round %d %s", s->seg,
			 s->phases & ROUND_UPDATED ? "complete" : "left behind");
		return;
	}
	phases_done(s->phases, done, sizeof(done), &first);
	snprintf(out, cap, "round %d %s (%s%s%s %s)", s->seg,
		 running ? "in progress" : "interrupted", done, done[0] ? " committed; " : "",
		 state_phase_names[first], running ? "under way" : "not done");
}

int round_version_kept(int ver, int current)
{
	return ver > 0 && ver <= current && current - ver < 2;
}

int round_version_gone(const struct crawl_dir *d, int ver, int *now)
{
	*now = ver;
	if (layout_crawldb_current(d, now) != CR_OK)
		return 0;
	return !round_version_kept(ver, *now);
}

/* "YYYY-MM-DDThh:mm:ssZ" of us (µs since the epoch). */
static void iso_utc(int64_t us, char *out, size_t cap)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void round_live_line(const struct round_live *v, char *out, size_t cap)
{
	char who[512], when[32] = "the start", round[160];

	lock_holder_str(&v->holder, who, sizeof(who));
	if (v->committed_us > 0)
		iso_utc(v->committed_us, when, sizeof(when));
	round_progress_str(&v->s, 1, round, sizeof(round));
	snprintf(out, cap, "a job is running (%s): showing the state committed at %s: CrawlDb "
		 "version %d, %s", who, when, v->s.version, round);
}

/* The later of *us and path's modification time. */
static void newer(const char *path, int64_t *us)
{
	struct stat st;
	int64_t t;

	if (stat(path, &st) != 0)
		return;
	t = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
	if (t > *us)
		*us = t;
}

void round_live_read(const struct crawl_dir *d, struct round_live *v)
{
	char path[PATH_MAX], dir[PATH_MAX - 16], name[32];
	size_t i;

	memset(v, 0, sizeof(*v));
	layout_top(d->root, "lock", path, sizeof(path));
	lock_peek(path, &v->running, &v->holder);
	state_read(d, 0, &v->s);
	layout_top(d->root, "crawldb", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/CURRENT", dir);
	newer(path, &v->committed_us);
	for (i = 0; v->s.seg > 0 && i < ROUND_PHASES; i++) {
		snprintf(name, sizeof(name), "_SUCCESS.%s", state_phase_names[i]);
		layout_segment_sub(d, v->s.seg, name, path, sizeof(path));
		newer(path, &v->committed_us);
	}
}

void round_live_say(const struct round_live *v, const char *cmd)
{
	char line[1024];

	if (!v->running)
		return;
	round_live_line(v, line, sizeof(line));
	fprintf(stderr, "mpicrawl %s: %s\n", cmd, line);
}

/*
 * live.h - what the read-only commands (report, readdb, check without
 * --repair) read of a crawl directory that a job may be writing at the
 * same moment: its last committed state, never the files of the phase
 * under way.
 *
 * The rule, the same for every reader:
 * - the CrawlDb is the version crawldb/CURRENT names (replaced by rename
 *   when an update or inject commits);
 * - a segment's folder counts once the phase that writes it has its
 *   manifest, segments/N/_SUCCESS.<phase> (round_sub_committed): fetch
 *   outcomes and WARC files once the fetch is marked, parse data once the
 *   parse is, the index's outputs once the index is, a decision log once
 *   the phase that wrote it is (round_decision_kinds); progress/ and
 *   staged/ never (live files of the phase under way);
 * - a file under a writer's temporary name (NAME.tmp.PID, NAME.tmp) is
 *   never read (round_name_is_temp).
 * A phase killed before its manifest leaves files that are not committed
 * either, so the rule holds whether or not a job runs; a running job
 * (the directory's lock held, util/lock.h) only changes what is said.
 *
 * Nothing here is collective; the pure functions touch no file.
 */
#ifndef CR_ROUND_LIVE_H
#define CR_ROUND_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/layout.h"
#include "crawldb/state.h"
#include "util/lock.h"

struct round_live {
	int running;                  /* a job holds the directory's lock */
	struct lock_holder holder;    /* who, when running */
	struct round_snapshot s;      /* the last segment's, as state_read */
	int64_t committed_us;         /* the newest commit (CURRENT, a manifest); 0: none */
};

/* The phase (an enum round_phase bit) whose manifest commits segment
 * folder sub ("fetchlist", "fetch", "warc", "cdxj", ...); 0 for a folder
 * no manifest commits (progress, staged, unknown names). Pure. */
int round_sub_phase(const char *sub);
/* 1 if a reader may read segment folder sub of a segment whose manifests
 * say phases (enum round_phase bits). Pure. */
int round_sub_committed(int phases, const char *sub);
/* The decision logs of a segment whose manifests say phases, as the
 * beginnings of their names (NULL-terminated, for decisions_print):
 * "generate-" once generated, "update-" and "held-" (which the crawl's
 * last, empty generate moves into an updated segment) once updated. Pure. */
const char *const *round_decision_kinds(int phases);
/* 1 if name (a file name, no folder) is a writer's temporary: it holds
 * ".tmp." or ends in ".tmp". Pure. */
int round_name_is_temp(const char *name);
/* 1 if the snapshot's last segment is a round not finished: its update
 * not marked, and not left behind by a newer CrawlDb version. Pure. */
int round_in_progress(const struct round_snapshot *s);
/* The state of the snapshot's last segment in words, e.g. "round 6 in
 * progress (generate, fetch committed; parse under way)" - "interrupted
 * before parse" when no job runs, "round 5 complete" once updated. Pure. */
void round_progress_str(const struct round_snapshot *s, int running, char *out, size_t cap);
/* The line a read-only command says while a job runs: "a job is running
 * (job J, pid P on host H, since T): showing the state committed at T2:
 * CrawlDb version V, round ...". Pure. */
void round_live_line(const struct round_live *v, char *out, size_t cap);

/* 1 if CrawlDb version ver is still kept while current is the committed
 * one: the version before it is kept too, older ones are removed as a
 * commit ends (state_commit_version). Pure. */
int round_version_kept(int ver, int current);
/* 1 if version ver, current when a read began, is removed or being
 * removed now: two commits came since (*now: CURRENT's version). A reader
 * that finds one of its files gone reads again from *now. */
int round_version_gone(const struct crawl_dir *d, int ver, int *now);

/* Reads the lock (without taking it: lock_peek) and the snapshot. */
void round_live_read(const struct crawl_dir *d, struct round_live *v);
/* Says round_live_line once on stderr, as "mpicrawl CMD: ...", when a job
 * runs; nothing otherwise. */
void round_live_say(const struct round_live *v, const char *cmd);

#endif

/*
 * state.h - the state of a crawl directory, for the round engine
 * (round/round.h) and its readers (status, check, report): which phase of
 * the crawl runs (or is redone) next, and the commits that move the
 * directory from one state to the next. Beside layout.h: both say what a
 * crawl directory is; nothing here runs a phase.
 *
 * The directory's state is read into one struct round_snapshot by rank 0
 * (state_read) and broadcast by the driver, so that every rank decides
 * alike even when a shared filesystem shows them different views. What to
 * do next is a pure function of that snapshot (state_next):
 *
 *   no CrawlDb version                  inject
 *   no segment, or the last one updated generate a new segment
 *   the last segment's generate unfinished    generate it again (same number)
 *   generated from a version no longer current (an inject or another
 *     segment's update since), update unfinished:  left behind - generate
 *     a new segment (its update could never merge it; what it fetched
 *     stays in its WARC files)
 *   fetch unfinished                    fetch (resuming from its journals)
 *   parse unfinished                    parse
 *   update unfinished:
 *     generated from the current version          update
 *     current version made by this segment's update   mark the update done
 *     no base version known                           stale: refused
 *
 * Before a phase is redone, what an interrupted attempt left is removed
 * (struct round_plan says what): the fetch list of an unfinished generate,
 * the parse data of an unfinished parse, the uncommitted CrawlDb version of
 * an unfinished update or inject; an unfinished fetch keeps its journals.
 *
 * Commits (rank 0 only; the driver agrees before and after): a phase ends
 * with segments/N/_SUCCESS.<phase>; the CrawlDb moves to version V+1 by
 * writing crawldb/V+1/_FROM, then replacing crawldb/CURRENT, then removing
 * version V-1 (two versions are kept).
 */
#ifndef CR_CRAWLDB_STATE_H
#define CR_CRAWLDB_STATE_H

#include "crawldb/layout.h"
#include "util/error.h"

enum round_phase {
	ROUND_GENERATED = 1, ROUND_FETCHED = 2, ROUND_PARSED = 4, ROUND_UPDATED = 8,
	ROUND_INDEXED = 16,
};

/* The phases of a segment in order, as their _SUCCESS.<name> files name
 * them; bit i of enum round_phase is phase state_phase_names[i]. */
#define ROUND_PHASES 5
extern const char *const state_phase_names[ROUND_PHASES];

/* What the crawl directory says, as plain ints (broadcast as bytes). */
struct round_snapshot {
	int version;          /* crawldb/CURRENT; 0: empty */
	int version_from;     /* the segment whose update made it; 0: inject or none */
	int seg;              /* the last segment; 0: none */
	int phases;           /* enum round_phase bits done for seg */
	int seg_base;         /* the version seg was generated from; 0: unknown */
	int ok;               /* 0: the snapshot could not be read (logged) */
};

enum round_step {
	ROUND_INJECT,         /* the CrawlDb is empty: inject the seeds */
	ROUND_GENERATE,       /* generate segment plan.seg */
	ROUND_FETCH,
	ROUND_PARSE,
	ROUND_UPDATE,
	ROUND_MARK_UPDATE,    /* the update committed; only its mark is missing */
	ROUND_STALE,          /* seg was generated from a version no longer current */
};

struct round_plan {
	enum round_step step;
	int seg;              /* the segment the step works on */
	int clean_version;    /* an uncommitted CrawlDb version to remove first; 0: none */
	const char *const *clean_subdirs;   /* segment folders to remove first; NULL: none */
	int clean_robots;     /* remove robots/SEG (a fetch's half-written cache) */
};

/* Reads the snapshot (rank 0) of segment seg, or of the last one when seg
 * is 0. */
void state_read(const struct crawl_dir *d, int seg, struct round_snapshot *s);
/* What segment seg's _SUCCESS files say for round/length.h: the span its
 * generate planned (ms; -1: it says none) and the growth steps of that
 * plan (-1: none said), the CrawlDb's URLs its update counted (0: it says
 * none) and their origins (-1: none said); the URLs its generate
 * selected and those it found denied by robots.txt (-1: it says none);
 * the due URLs it left for later rounds, and the unfetched URLs of the
 * CrawlDb its update made. */
struct round_facts {
	int64_t round_ms;
	int64_t steps;
	uint64_t records;
	int64_t origins;
	int64_t selected;
	int64_t denied;
	int64_t rescope_due;   /* generate's pages due for a scope's refusals */
	uint64_t due_later;   /* due URLs its generate left for later rounds
				 (host_capped, politeness_capped, budget_capped) */
	int64_t unfetched;    /* the CrawlDb's unfetched URLs (due at once) its
				 update counted; -1: not updated */
};
void state_read_facts(const struct crawl_dir *d, int seg, struct round_facts *f);

/* What the crawl does next, from the snapshot of the last segment. Pure. */
void state_next(const struct round_snapshot *s, struct round_plan *out);
/* The segment a generate writes: the next number, or the snapshot's when
 * its generate did not finish (*redo set: its fetch list is removed
 * first). Pure. */
int state_generate_target(const struct round_snapshot *s, int *redo);
/* What an update of the snapshot's segment (parsed) does: ROUND_UPDATE,
 * ROUND_MARK_UPDATE or ROUND_STALE. Pure. */
enum round_step state_update_step(const struct round_snapshot *s);
/* 1 if the snapshot's segment is generated, not updated, and from a known
 * CrawlDb version that is no longer current (state_update_step says stale):
 * state_next leaves it behind. Pure. */
int state_left_behind(const struct round_snapshot *s);

const char *state_step_name(enum round_step s);

/* ---- commits and clean-ups (rank 0) ---- */

/* Removes what plan says an interrupted attempt left. */
void state_clean(const struct crawl_dir *d, const struct round_plan *p);
/* Removes segment folders (NULL-terminated names) of seg. */
void state_clean_subdirs(const struct crawl_dir *d, int seg, const char *const *subdirs);
/* Removes CrawlDb version ver, not committed (CURRENT is older). */
void state_clean_version(const struct crawl_dir *d, int ver);
/* Removes the robots.txt cache's versions (robots/NNNNN/) but the two
 * newest: each fetch writes a whole one, read by the next round's steps;
 * the one before stays for a fetch redone (its own removed first). */
void state_prune_robots(const struct crawl_dir *d);
/* Removes the files a killed job left under temporary names (NAME.tmp.PID)
 * in crawldb/ and in the last segment. */
void state_clean_tmp(const struct crawl_dir *d);
/* Removes the fetch journals of segment seg, once its fetch is marked
 * done: they outlive its committed record files until then, since the
 * robots cache the fetch writes last is made from the answers they hold
 * (fetch/journal.h). */
void state_forget_journals(const struct crawl_dir *d, int seg);

/* ---- packs (store/pack.h) ---- */

/* What a phase writes per partition into a folder of the segment: files
 * STEM-PPPPP.SUFFIX (suffix with its dot). */
struct state_packs {
	const char *phase, *folder, *stem, *suffix;
};

/* Gathers the per-partition files this rank wrote in segment seg for phase
 * (the entries of packs, ended by a NULL phase, whose phase it is) into a
 * pack per folder and stem: a round leaves a few files per rank, not one
 * per partition. After a phase's outputs are committed, before its mark;
 * every rank its own (not collective). */
CR_WUR enum cr_err state_pack_segment(const struct crawl_dir *d, int seg,
				      const struct state_packs *packs, const char *phase,
				      int rank, int nranks);
/* The same for robots cache version ver (part- and early- files). */
CR_WUR enum cr_err state_pack_robots(const struct crawl_dir *d, int ver, int rank, int nranks);
/* Removes the packs of phase's folders (and of robots version ver, when not
 * 0) that newer ones supersede: a phase redone on another rank count.
 * Rank 0, after the phase's mark. */
void state_prune_packs(const struct crawl_dir *d, int seg, const struct state_packs *packs,
		       const char *phase, int ver);

/* Commits CrawlDb version ver, made by origin ("inject\n" or "segment N\n"),
 * and drops version ver - 2. */
CR_WUR enum cr_err state_commit_version(const struct crawl_dir *d, int ver,
					const char *origin);

#endif

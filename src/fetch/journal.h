/*
 * journal.h - the fetch phase's journal of finished URLs, and what a resumed
 * fetch makes of it.
 *
 * Each partition's fetch writes segments/N/fetch/part-PPPPP.journal beside
 * its record files: one entry per URL whose outcome is final (its fetch
 * record, its parse record with fetch.parse, and the end of its exchange in
 * its WARC file), one per robots.txt archived, and one per robots.txt
 * answer that settled its origin. Entries are collected in
 * memory and written in batches (fetch.sync_interval_ms): the partition's
 * WARC files are flushed and fsynced first, then the entries are appended
 * and the journal fsynced, so an entry on disk never names WARC bytes that
 * are not. The journal outlives the partition's committed record files
 * until the phase is marked done (crawldb/state.h's state_forget_journals):
 * the robots cache the phase writes after its record files is made from
 * the answers it holds, and a fetch killed in between resumes from it.
 *
 * A fetch that starts on a segment with leftovers of an earlier attempt
 * (journal_resume_part) keeps what was committed - the journal's whole
 * entries, or a partition's committed record files when its journal is gone
 * - cuts each WARC file back to the end of its last journaled exchange
 * (a file no entry names is removed), drops record files never committed,
 * and names the new attempt's WARC files after it (-rK), so no byte of an
 * earlier attempt's files is rewritten.
 *
 * File: 16 bytes "MPCRJNL1" and 8 zero bytes, then entries: u32 LE payload
 * length n, u64 LE XXH3_64 of the payload, n payload bytes:
 *   u8 kind (1 outcome, 2 WARC only, 3 a link followed in the round, 4 a
 *   requisite handed to the rank of its host, 5 a robots.txt answer),
 *   varint-prefixed WARC file name ("" if none), varint end offset of the
 *   exchange in it, varint-prefixed fetch record (crawldb/fetch_record.h;
 *   empty for kind 2; for kinds 3 and 4 the URL's CrawlDb record; for
 *   kind 5 the answer as origins.h's origins_answer_pack makes it),
 *   varint-prefixed parse record (empty without one; for kind 3 the band
 *   keys of the page it was found on, u64 LE each; for kind 4 the hand-off
 *   it goes out in, one byte).
 * A followed link is journaled before the outcome of its page, so a kept
 * outcome's followed links are kept too, and a resumed fetch queues them
 * again (frontier.h). A robots.txt answer names the end of its exchange
 * in the robots series when it was archived (kind 5 in place of kind 2),
 * so that it is kept with its record or not at all; a resumed fetch takes
 * it as its origin's answer in this phase instead of asking again.
 * A short or damaged entry ends the journal: it and what follows are cut.
 *
 * Nothing here is collective; nothing touches MPI.
 */
#ifndef CR_FETCH_JOURNAL_H
#define CR_FETCH_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/job.h"
#include "util/buf.h"
#include "util/error.h"

struct syncer;

enum journal_kind { JOURNAL_OUTCOME = 1, JOURNAL_WARC = 2, JOURNAL_FOLLOW = 3,
		    JOURNAL_HANDOFF = 4, JOURNAL_ROBOTS = 5 };

struct journal_entry {
	int kind;
	const char *warc; size_t warc_len;      /* WARC file name, or "" */
	uint64_t warc_end;                       /* end of the exchange in it */
	const void *fetch; size_t fetch_len;     /* packed fetch record, or empty */
	const void *parse; size_t parse_len;     /* packed parse record, or empty */
};

/* Appends e as one framed entry to out (pure). */
void journal_entry_pack(const struct journal_entry *e, struct buf *out);
/*
 * Reads the entry at p[0..n): CR_OK with *e borrowed from p and *used its
 * framed size; CR_EOF if fewer bytes than a whole entry remain;
 * CR_ERR_FORMAT if its checksum or layout is wrong (pure).
 */
CR_WUR enum cr_err journal_entry_unpack(const void *p, size_t n, struct journal_entry *e,
					size_t *used);

struct journal;

/* Appends an entry to the journal's pending batch; copies. */
void journal_add(struct journal *jn, const struct journal_entry *e);
/* 1 if entries wait to be written. */
int journal_pending(const struct journal *jn);
/* Writes the pending entries and fsyncs the journal. The caller syncs the
 * WARC files the entries name first. */
CR_WUR enum cr_err journal_sync(struct journal *jn);
/* The same off the loop (fetch/syncer.h): the pending entries move into
 * the syncer's next batch, to be appended and fsynced after the batch's
 * WARC files. No journal_sync or journal_close until that batch is done. */
CR_WUR enum cr_err journal_hand_over(struct journal *jn, struct syncer *s);
/* Closes (pending entries are dropped) and, with remove set, deletes the
 * file. Frees *jn; accepts NULL. */
void journal_close(struct journal **jn, int remove);

/* Called for each committed record a resumed partition keeps, in order:
 * kind JOURNAL_OUTCOME with fetch (and parse, if any) records, or
 * JOURNAL_FOLLOW with a followed link's record and band keys (as the entry
 * holds them), or JOURNAL_HANDOFF with a handed requisite's record, or
 * JOURNAL_ROBOTS with a robots.txt answer (in fetch); borrowed during the
 * call. */
typedef enum cr_err (*journal_keep_fn)(void *arg, int kind, const void *fetch,
				       size_t fetch_len, const void *parse, size_t parse_len);

struct journal_resume {
	struct journal *jn;     /* open for appending; the caller owns it */
	int attempt;            /* this attempt's WARC files: journal_warc_name */
	uint64_t kept;          /* outcomes kept from earlier attempts */
	uint64_t warc_cut;      /* WARC bytes cut (not journaled) */
	int warc_removed;       /* WARC files removed (nothing journaled) */
};

/* The WARC files of a rank (crawldb/layout.h's layout_warc_prefix) that
 * earlier attempts at a segment left, and how many bytes of each count:
 * those its rank's marks journal named durable (below). */
struct journal_warc {
	char name[256];
	uint64_t size;
	int attempt;
};
struct journal_warcs {
	struct journal_warc *v;
	size_t n;
	uint64_t cut;           /* bytes the settling cut */
	unsigned removed;       /* files it removed */
};

/*
 * A rank's WARC files hold the pages of all its partitions, each named by
 * its partition's journal; a partition's journal cannot say how far the
 * file is durable for the others. So each rank keeps a marks journal
 * (layout_warc_marks): after every batch of partition journals is durable,
 * one JOURNAL_WARC entry per file written since, naming its end then. Every
 * byte before a marked end is named by some partition's journal; bytes
 * after the last mark are not, and are cut.
 *
 * journal_warcs_scan reads the rank files and every marks journal of
 * segment seg into out (sizes cut to their last mark; a file none marks
 * counts as empty), and the highest attempt any name carries into
 * *max_attempt (-1: none). With settle (one rank, before any rank writes
 * the next attempt's files) it also cuts the files to their marks, removes
 * those none marks, and removes what earlier attempts' ranks staged for
 * the index step (index/stage.h: it reads their WARC files back). Free
 * out with journal_warcs_free.
 */
CR_WUR enum cr_err journal_warcs_scan(const struct job *j, int seg, int settle,
				      struct journal_warcs *out, int *max_attempt);
void journal_warcs_free(struct journal_warcs *w);
/* A new, empty journal at path (a rank's marks journal). */
CR_WUR enum cr_err journal_create(const char *path, struct journal **out);

/*
 * Prepares partition p of segment seg for a fetch: what earlier attempts
 * committed is passed to keep, their uncommitted leftovers are removed or
 * cut, and the journal is opened for this attempt. with_parse: the fetch
 * writes parse records (fetch.parse). shared (NULL: none): the rank files
 * of the segment as journal_warcs_scan settled them - an entry naming
 * bytes past a file's counted size is dropped, its URL fetched again.
 * CR_ERR_FORMAT (logged with the file name) if a WARC file is shorter than
 * its journal says.
 */
CR_WUR enum cr_err journal_resume_part(const struct job *j, int seg, uint32_t p,
				       int with_parse, const struct journal_warcs *shared,
				       journal_keep_fn keep, void *arg,
				       struct journal_resume *out);

#endif

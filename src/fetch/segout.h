/*
 * segout.h - what a fetch phase writes for its segment: per rank, WARC
 * series shared by its partitions and rolled at warc.max_bytes (pages: 2xx
 * and 304; robots.txt; with warc.split, diagnostics - 3xx, 4xx, 5xx, as
 * Common Crawl keeps them apart - and sitemaps and feeds read for URLs
 * apart, else with the pages), so that a round
 * leaves files the size of an archive's, not one per partition; per owned
 * partition the fetch records, with fetch.parse the parse records, and the
 * journal that lets a killed fetch resume where it was (journal.h, with
 * the rank's marks journal); a metadata record after each page
 * (warc.metadata).
 *
 * The fetcher hands finished things in; nothing here decides what they
 * mean. Life: segout_open, then per owned partition segout_resume (takes
 * over what earlier attempts at the segment committed), then archive,
 * metadata and outcome calls in the order things finish, segout_sync_async
 * every fetch.sync_interval_ms (WARC bytes fsynced before the journal
 * entries that name them, by a thread of its own), and at the end
 * segout_commit (record files renamed into place; the journals stay until the
 * phase is marked done, crawldb/state.h's state_forget_journals) or
 * nothing (a stopped fetch: the journals keep what finished). segout_free
 * in every case.
 *
 * Files are opened when first written; a failed write makes the phase
 * fail (the error is kept and returned by every later call). Nothing here
 * is collective.
 */
#ifndef CR_FETCH_SEGOUT_H
#define CR_FETCH_SEGOUT_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/fetch_record.h"
#include "crawldb/job.h"
#include "fetch/http.h"
#include "fetch/journal.h"
#include "fetch/series.h"
#include "util/error.h"
#include "warc/warc.h"

struct pdf_doc;


struct segout;

/* with_parse: parse records are written (fetch.parse). attempt: of the
 * segment's fetch, as the ranks agreed (1 + the highest an earlier one
 * left, journal.h's journal_warcs_scan; 0 for the first); prior: the rank
 * files earlier attempts left, as that scan settled them - taken over
 * (emptied) in every case. */
CR_WUR enum cr_err segout_open(const struct job *j, int seg, int with_parse, int attempt,
			       struct journal_warcs *prior, struct segout **out);
/* Commits nothing; closes and frees *s; accepts NULL. */
void segout_free(struct segout **s);

/*
 * Takes over partition p from earlier attempts at the segment (journal.h):
 * their committed outcomes are kept, and each is passed to k->kept (the
 * record borrowed during the call) so that its URL is not fetched again;
 * the links they followed go to k->followed, their robots.txt answers to
 * k->robots. *kept_n and *cut get how many outcomes were kept and how many
 * WARC bytes cut.
 */
struct segout_keep {
	void (*kept)(void *arg, const struct fetch_record *fr);
	/* A link an earlier attempt followed (segout_followed): its record and
	 * the band keys of its page (nb of them), borrowed during the call;
	 * handoff 0, or for a requisite it handed to the rank of its host
	 * instead (segout_handoff), the hand-off it went out in (1, 2, ...). */
	void (*followed)(void *arg, uint32_t p, const struct crawl_record *rec,
			 const uint64_t *bands, unsigned nb, unsigned handoff);
	/* A robots.txt answer an earlier attempt journaled (segout_robots_answer),
	 * borrowed during the call; CR_ERR_FORMAT if it does not read. */
	enum cr_err (*robots)(void *arg, uint32_t p, const void *answer, size_t n);
	void *arg;
};
CR_WUR enum cr_err segout_resume(struct segout *s, uint32_t p, const struct segout_keep *k,
				 uint64_t *kept_n, uint64_t *cut);

/* A link followed inside the round (frontier.h) joined partition p's
 * queues: journaled, before its page's outcome, so that a resumed fetch
 * queues it again. */
void segout_followed(struct segout *s, uint32_t p, const struct crawl_record *rec,
		     const uint64_t *bands, unsigned nb);
/* A requisite of a page of partition p to hand to the rank of its host in
 * hand-off round (handoff.h): journaled with the page, so that a resumed
 * fetch hands it over again, in the same hand-off. */
void segout_handoff(struct segout *s, uint32_t p, const struct crawl_record *rec,
		    unsigned round);

/* The exchange a finished transfer archives, as url (borrowed from r and
 * url); truncated: NULL or the WARC-Truncated reason. */
void segout_exchange(const struct http_result *r, const char *url, const char *truncated,
		     struct warc_exchange *x);

/* Archives an exchange in series k of partition p; *name (borrowed until
 * the next call) and *off get the WARC file and the response record's
 * offset - that file's, also when a record written after it (the page's
 * metadata) starts the next file. */
CR_WUR enum cr_err segout_archive(struct segout *s, uint32_t p, enum segout_series k,
				  const struct warc_exchange *x, const char **name,
				  uint64_t *off);

/*
 * The text and links of the page just archived in partition p (page NULL:
 * it did not parse; flags: its enum parse_flag), staged for the index step
 * when the index writes text for it (index/stage.h); otherwise nothing.
 * The page is borrowed for the call.
 */
struct html_page;
CR_WUR enum cr_err segout_text(struct segout *s, uint32_t p, const struct html_page *page,
			       uint32_t flags);

/* A page's metadata record, after its exchange in series k (warc.metadata):
 * how long the fetch took, the crawl delay robots.txt set, and the outlinks
 * of its parse record (or none). */
struct segout_meta {
	const char *url;
	int64_t date_us;          /* of the exchange */
	int64_t fetch_ms;
	long crawl_delay_ms;
	const void *parse;        /* packed parse record, or NULL */
	size_t parse_len;
	const struct pdf_doc *pdf;   /* a PDF's metadata and fate (parse/doc.h), or NULL */
};
CR_WUR enum cr_err segout_metadata(struct segout *s, uint32_t p, enum segout_series k,
				   const struct segout_meta *m);

/*
 * The outcome of one URL of partition p: its fetch record, its parse record
 * (or NULL), and the series its exchange (and metadata) went to, or
 * SEGOUT_NONE. Written to the part files and journaled; the journal entry
 * names the end of what series k holds now.
 */
CR_WUR enum cr_err segout_outcome(struct segout *s, uint32_t p, const struct fetch_record *fr,
				  const void *parse, size_t parse_len, enum segout_series k);
/* A robots.txt exchange archived in p's robots series: journaled, so that
 * a resumed fetch keeps its bytes. */
void segout_robots_done(struct segout *s, uint32_t p);
/* The answer (origins.h's origins_answer_pack; copied) that settled the
 * robots.txt of an origin of partition p, its exchange just archived in
 * p's robots series (archived) or none: journaled in place of
 * segout_robots_done, so that a resumed fetch takes the answer - with the
 * exchange's bytes, or not at all. */
void segout_robots_answer(struct segout *s, uint32_t p, int archived, const void *answer,
			  size_t n);

/* Makes the journaled outcomes durable: the WARC bytes first, then the
 * journal entries that name them - once the periodic sync in flight is
 * done. */
CR_WUR enum cr_err segout_sync(struct segout *s);
/* The same off the caller's thread (fetch/syncer.h), for the fetch loop:
 * when the periodic sync before is done (its failure returned here), what
 * is journaled so far goes out in the next; while it is still on the disk,
 * nothing (the next call tries again). */
CR_WUR enum cr_err segout_sync_async(struct segout *s);
/* Commits every owned partition (an empty fetch file where a partition had
 * nothing to fetch: update reads one per partition). */
CR_WUR enum cr_err segout_commit(struct segout *s);

#endif

/*
 * segparts.h - the state of a segment's outputs, private to the files of
 * segout.h: segout.c (writers, archive, outcomes, journal, commit),
 * segout_resume.c (an interrupted attempt taken up) and segout_stage.c
 * (what the index step is handed).
 */
#ifndef CR_FETCH_SEGPARTS_H
#define CR_FETCH_SEGPARTS_H

#include <stdint.h>

#include "crawldb/layout.h"
#include "fetch/journal.h"
#include "fetch/series.h"
#include "fetch/syncer.h"
#include "store/recfile.h"
#include "util/buf.h"
#include "warc/warc.h"

/* A WARC file the rank wrote, how far, and how far its marks journal
 * named it durable (journal.h). */
struct written {
	char name[256];
	uint64_t end, marked;
};

/* The outputs of one partition: its record files and journal. */
struct part {
	struct recfile_writer *fetch;
	struct recfile_writer *parse;     /* with parse records */
	struct journal *jn;               /* finished URLs, made durable in batches */
	/* the last exchange archived, while it waits for segout_text */
	int text_wanted;
	enum segout_series text_series;
	struct buf text_uri;
	char text_id[48];
	int64_t text_date_us;
};

struct segout {
	const struct job *j;
	int seg;
	int with_parse;
	int with_stage;                   /* staged records for the index step */
	int attempt;                      /* of this fetch of the segment */
	struct part *parts;               /* per partition; owned ones used */
	/* The rank's WARC series, shared by its partitions, rolled at
	 * warc.max_bytes: PREFIX-NNNNN-rRRRR[-aK]-SSSSS-HOST-SERIES */
	char prefix[LAYOUT_PREFIX_MAX + 32];
	struct warc_writer *warc[SEGOUT_SERIES_];   /* by enum segout_series */
	char archived[SEGOUT_SERIES_][256];   /* the file of the last exchange archived */
	/* What the index step takes from here (index/stage.h), per series */
	struct recfile_writer *stage[SEGOUT_SERIES_];
	char staged_file[SEGOUT_SERIES_][256];   /* the WARC file last named */
	struct written *files;            /* every WARC file the rank wrote */
	size_t nfiles, cap;
	struct journal *marks;            /* how far they were durable (journal.h) */
	struct journal_warcs prior;       /* earlier attempts' rank files, settled */
	struct buf scratch;
	struct buf info;                  /* the warcinfo's provenance fields */
	enum cr_err failed;               /* the first write error: kept */
	uint32_t resume_part;
	const struct segout_keep *keep;   /* during segout_resume */
	char suffix[SEGOUT_SERIES_][64];  /* -HOST and the series' suffix */
	struct syncer *syncer;            /* segout_sync_async's, made on first use */
	int no_syncer;                    /* it could not be made: syncs stay inline */
};

struct segout_keep;

/* The series' file name suffixes, by enum segout_series. */
extern const char *const segout_series_suffix[SEGOUT_SERIES_];

/* Keeps e as the outputs' first failure; returns the first one (or CR_OK). */
enum cr_err segout_fail(struct segout *s, enum cr_err e);
/* Partition p's record files, opened on first use. */
struct part *segout_part_of(struct segout *s, uint32_t p);
/* Stages the CDXJ line of the exchange just archived in w (and names its
 * WARC file first when it is a new one), and whether a text is due. */
void segout_stage_exchange(struct segout *s, uint32_t p, enum segout_series k,
			   struct warc_writer *w, const struct warc_exchange *x, uint64_t off,
			   uint64_t len);

#endif

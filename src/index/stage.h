/*
 * stage.h - what the fetcher hands the index step while it still holds each
 * page, so that the index step does not read the WARC files back, inflate
 * them and parse every page a second time.
 *
 * Per WARC series that a fetch attempt of a partition writes, one record
 * file segments/N/staged/<series>.zst (REC_KIND_STAGE), committed with the
 * fetch of the partition. <series> is the name of the series' WARC files
 * without serial and extension (index_stage_key). Its records follow the
 * series' files in order:
 *
 *   F  a WARC file of the series begins (its name)
 *   C  the CDXJ line of one record of that file (index_cdxj_line)
 *   P  the text and links of a page that has text (index_wants_text)
 *   X  a page that should have had text but could not be parsed
 *
 * A page goes through index_stage_pack_page on both paths - the fetcher's
 * and the index step's own reading of a WARC file (mpicrawl index) - so the
 * files written from either are the same bytes. A staged file is only ever
 * a shortcut: a WARC file it does not name (an interrupted attempt's, one
 * whose staged file is missing or damaged) is read back instead.
 */
#ifndef CR_INDEX_STAGE_H
#define CR_INDEX_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "parse/lang.h"
#include "util/buf.h"
#include "util/error.h"

enum index_stage_kind {
	STAGE_FILE = 'F',
	STAGE_CDXJ = 'C',
	STAGE_PAGE = 'P',
	STAGE_FAILED = 'X',
};

/* A page's text and links as the index step writes them. */
struct index_stage_page {
	const char *uri;          /* WARC-Target-URI as written (warc_format_uri) */
	size_t uri_len;
	int64_t date_us;          /* WARC-Date of the response */
	const char *id;           /* its WARC-Record-ID */
	size_t id_len;
	int noindex;              /* meta robots or X-Robots-Tag said noindex */
	const char *title;
	size_t title_len;
	const char *text;
	size_t text_len;
	uint32_t nlinks;
	/* packing: nlinks URLs and anchor texts; unpacked: see
	 * index_stage_link */
	const char *const *links;
	const char *const *anchors;
	const unsigned char *packed_links;
	size_t packed_len;
	struct lang_result lang;  /* its languages (parse/lang.h) */
	const uint8_t *boiler;    /* per line of text: 1 if boilerplate (parse/boiler.h) */
	uint32_t nboiler;
	const char *charset;      /* the charset it was read in (html.h); NULL: none */
	size_t charset_len;
};

/* One unpacked record; strings borrowed from the record's bytes. */
struct index_stage_rec {
	enum index_stage_kind kind;
	const char *s;            /* F: the WARC file's name; C: the CDXJ line */
	size_t n;
	struct index_stage_page page;   /* P */
};

void index_stage_pack_file(struct buf *out, const char *name);
void index_stage_pack_cdxj(struct buf *out, const char *line, size_t n);
void index_stage_pack_failed(struct buf *out);
/* Packs a page, its text cut where the record would pass what a record
 * file holds (REC_MAX_BYTES). */
void index_stage_pack_page(struct buf *out, const struct index_stage_page *pg);

CR_WUR enum cr_err index_stage_unpack(const void *p, size_t n, struct index_stage_rec *r);
/* Iterates the links of an unpacked page: *pos starts at 0; CR_EOF after
 * the last. */
CR_WUR enum cr_err index_stage_link(const struct index_stage_page *pg, size_t *pos,
				    const char **url, size_t *ulen, const char **anchor,
				    size_t *alen);

/*
 * The series a WARC file name belongs to: its serial and host left out,
 * "P-00003-00002-r1-00007-node1-robots.warc.gz" -> "P-00003-00002-r1-robots"
 * (crawls made before the host was named: "P-...-r1-00007-robots.warc.gz").
 * 0 if the name is not one of ours (then nothing is staged for it).
 */
int index_stage_key(const char *warc_name, char *out, size_t cap);

/*
 * Whether a record of a WARC file gets a text and a link graph entry: a
 * response (not a revisit), status 2xx, of type text/html,
 * application/xhtml+xml, application/pdf or text/plain (parse/doc.h), in a
 * file of the pages series (not robots.txt, diagnostics or sitemaps).
 */
int index_wants_text(const char *warc_name, int is_response, int status, const char *mime);
/* The type index_wants_text is asked: application/pdf when the payload's
 * bytes say so (detected: sniff.h's mime-detected, or ""), as parsing
 * reads it (doc_kind), else the Content-Type's mime; "" (no text wanted)
 * for a PDF when PDFs are not read (pdf: parse.pdf). */
const char *index_text_mime(const char *mime, const char *detected, int pdf);

#endif

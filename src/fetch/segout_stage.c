/*
 * segout_stage.c - what the fetcher stages for the index step
 * (index/stage.h): each archived exchange's CDXJ line as the index step
 * would read it from the record, and whether its text is due.
 */
#include "fetch/segout.h"
#include "fetch/segparts.h"
#include "index/index.h"
#include "index/sniff.h"
#include "index/stage.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Series k's staged file of the rank, opened with the series. */
static struct recfile_writer *stage_of(struct segout *s, enum segout_series k)
{
	char key[256], name[300], path[PATH_MAX];

	if (!s->with_stage || s->stage[k] || s->failed)
		return s->stage[k];
	snprintf(key, sizeof(key), "%s%s", s->prefix, segout_series_suffix[k]);
	snprintf(name, sizeof(name), "%s.zst", key);
	layout_segment_file(&s->j->dir, s->seg, "staged", name, path, sizeof(path));
	segout_fail(s, recfile_writer_open(path, REC_KIND_STAGE, -5, &s->stage[k]));
	return s->stage[k];
}

/* The CDXJ mime and status of an exchange's response (or revisit), as the
 * index step reads them from the record. */
static void exchange_facts(struct segout *s, const struct warc_exchange *x, char *mime,
			   size_t cap, int *status, size_t *head_out)
{
	const char *type = x->revisit_profile ? "revisit" : "response";
	static const char ct[] = "application/http;msgtype=response";
	size_t head;

	*head_out = 0;
	if (index_record_facts(type, ct, x->resp_head, x->resp_head_len, mime, cap, status,
			       head_out) || x->revisit_profile || !x->body_len)
		return;
	/* A head without its blank line: the record's block runs on into
	 * the body, and so does the index step's reading of it. */
	s->scratch.len = 0;
	buf_add(&s->scratch, x->resp_head, x->resp_head_len);
	buf_add(&s->scratch, x->body, x->body_len);
	index_record_facts(type, ct, s->scratch.p, s->scratch.len, mime, cap, status, &head);
	*head_out = head;
}

/* The CDXJ mime-detected of a response (not a revisit) whose block the
 * index step splits at head: its body sniffed as the index step would
 * read it from the record (sniff.h). */
static void exchange_sniff(struct segout *s, const struct warc_exchange *x, size_t head,
			   char *out, size_t cap)
{
	out[0] = '\0';
	if (x->revisit_profile || !head)
		return;
	if (head == x->resp_head_len) {
		sniff_mime(x->resp_head, head, x->body, x->body_len, out, cap);
		return;
	}
	s->scratch.len = 0;
	buf_add(&s->scratch, x->resp_head, x->resp_head_len);
	buf_add(&s->scratch, x->body, x->body_len);
	if (head <= s->scratch.len)
		sniff_mime(s->scratch.p, head, s->scratch.p + head, s->scratch.len - head, out,
			   cap);
}

/* Stages the CDXJ line of the exchange just archived in w (and names its
 * WARC file first when it is a new one), and whether a text is due. */
void segout_stage_exchange(struct segout *s, uint32_t p, enum segout_series k,
			   struct warc_writer *w, const struct warc_exchange *x, uint64_t off,
			   uint64_t len)
{
	struct part *o = &s->parts[p];
	struct recfile_writer *st = stage_of(s, k);
	const char *name = warc_writer_name(w);
	char date[WARC_DATE_MAX], mime[128], fname[300];
	struct index_cdxj_extra ex;
	struct buf line;
	size_t head;
	int status;

	o->text_wanted = 0;
	if (!st)
		return;
	if (strcmp(s->staged_file[k], name)) {
		snprintf(s->staged_file[k], sizeof(s->staged_file[k]), "%s", name);
		s->scratch.len = 0;
		index_stage_pack_file(&s->scratch, name);
		if (segout_fail(s, recfile_writer_add(st, s->scratch.p, s->scratch.len)))
			return;
	}
	buf_init(&line);
	o->text_uri.len = 0;
	warc_format_uri(x->target_uri, &o->text_uri);
	warc_format_date(x->date_us, date);
	exchange_facts(s, x, mime, sizeof(mime), &status, &head);
	/* What the index step would read of the record: the head it split. */
	if (head) {
		index_cdxj_extras((const char *)buf_cstr(&o->text_uri), x->resp_head,
				  head < x->resp_head_len ? head : x->resp_head_len, status,
				  x->revisit_profile ? NULL : x->truncated, &ex);
		exchange_sniff(s, x, head, ex.mime_detected, sizeof(ex.mime_detected));
	}
	index_cdxj_filename(s->seg, name, fname, sizeof(fname));
	index_cdxj_line(&line, (const char *)buf_cstr(&o->text_uri), date, mime, status,
			warc_writer_last_payload_digest(w), len, off, fname, head ? &ex : NULL);
	s->scratch.len = 0;
	index_stage_pack_cdxj(&s->scratch, (const char *)line.p, line.len);
	buf_release(&line);
	if (segout_fail(s, recfile_writer_add(st, s->scratch.p, s->scratch.len)))
		return;
	o->text_wanted = index_wants_text(name, !x->revisit_profile, status,
					  index_text_mime(mime, head ? ex.mime_detected : "",
							  (int)s->j->cfg.parse_pdf));
	o->text_series = k;
	o->text_date_us = x->date_us;
	snprintf(o->text_id, sizeof(o->text_id), "%s", warc_writer_last_id(w));
}

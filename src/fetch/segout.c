#include "fetch/segout.h"
#include "fetch/segparts.h"
#include "crawldb/provenance.h"
#include "util/clock.h"
#include "crawldb/parse_record.h"
#include "util/minhash.h"
#include "fetch/journal.h"
#include "fetch/syncer.h"
#include "index/index.h"
#include "index/sniff.h"
#include "index/stage.h"
#include "parse/doc.h"
#include "parse/html.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>


const char *const segout_series_suffix[SEGOUT_SERIES_] = { "", "-robots", "-diagnostics",
							     "-sitemaps" };

/* The host in WARC file names, as IIPC's recommendation ends them: this
 * machine's name up to its first dot, bytes other than letters, digits and
 * '_' as '_' (a '-' would run into the name's other parts), never all
 * digits (a serial is) nor a series' name ("robots": 'h' before them), at
 * most 32 bytes. */
static void host_token(char *out, size_t cap)
{
	char h[256];
	size_t i, n = 0;
	int digits = 1;

	if (gethostname(h, sizeof(h)) != 0 || !h[0])
		snprintf(h, sizeof(h), "localhost");
	h[sizeof(h) - 1] = '\0';
	for (i = 0; h[i] && h[i] != '.' && n < 32 && n + 2 < cap; i++) {
		out[n++] = isalnum((unsigned char)h[i]) ? h[i] : '_';
		digits &= isdigit((unsigned char)h[i]) != 0;
	}
	out[n] = '\0';
	/* nor a series' name: "-robots" ends the robots.txt series' names */
	if (digits || !strcmp(out, "robots") || !strcmp(out, "diagnostics") ||
	    !strcmp(out, "sitemaps")) {
		memmove(out + 1, out, n + 1);
		out[0] = 'h';
	}
}

enum cr_err segout_fail(struct segout *s, enum cr_err e)
{
	if (e && !s->failed)
		s->failed = e;
	return s->failed;
}

enum cr_err segout_open(const struct job *j, int seg, int with_parse, struct segout **out)
{
	struct segout *s = calloc(1, sizeof(*s));
	static const char *const dirs[] = { "fetch", "warc", "parse", "staged" };
	enum cr_err e = CR_OK;
	size_t i;

	if (!s)
		return CR_ERR_NOMEM;
	s->j = j;
	s->seg = seg;
	s->with_parse = with_parse;
	s->with_stage = with_parse && j->cfg.index_enabled;
	buf_init(&s->scratch);
	buf_init(&s->info);
	provenance_fields(j, &s->info);
	{
		char host[40];
		int k;

		host_token(host, sizeof(host));
		for (k = 0; k < SEGOUT_SERIES_; k++)
			snprintf(s->suffix[k], sizeof(s->suffix[k]), "-%s%s", host,
				 segout_series_suffix[k]);
	}
	s->parts = calloc(j->dir.partitions, sizeof(*s->parts));
	if (!s->parts)
		e = CR_ERR_NOMEM;
	for (i = 0; !e && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[PATH_MAX];

		if ((i == 2 && !with_parse) || (i == 3 && !s->with_stage))
			break;
		layout_segment_sub(&j->dir, seg, dirs[i], dir, sizeof(dir));
		e = fs_mkdirs(dir);
	}
	if (e) {
		segout_free(&s);
		return e;
	}
	*out = s;
	return CR_OK;
}

void segout_free(struct segout **sp)
{
	struct segout *s = *sp;
	uint32_t p;
	int k;

	if (!s)
		return;
	syncer_stop(&s->syncer);   /* before the journals close */
	for (p = 0; s->parts && p < s->j->dir.partitions; p++) {
		struct part *o = &s->parts[p];

		recfile_writer_abort(&o->fetch);
		recfile_writer_abort(&o->parse);
		for (k = 0; k < SEGOUT_SERIES_; k++)
			recfile_writer_abort(&o->stage[k]);
		buf_release(&o->text_uri);
		journal_close(&o->jn, 0);
		/* Not committed: what they hold is journaled or redone. */
		for (k = 0; k < SEGOUT_SERIES_; k++)
			if (warc_writer_close(&o->warc[k]) != CR_OK)
				continue;
		free(o->files);
	}
	free(s->parts);
	buf_release(&s->scratch);
	buf_release(&s->info);
	free(s);
	*sp = NULL;
}

struct part *segout_part_of(struct segout *s, uint32_t p)
{
	struct part *o = &s->parts[p];
	char path[PATH_MAX];
	int level = (int)s->j->cfg.zstd_level;

	if (o->fetch || s->failed)
		return o;
	layout_segment_part(&s->j->dir, s->seg, "fetch", p, path, sizeof(path));
	if (segout_fail(s, recfile_writer_open(path, REC_KIND_FETCH, level, &o->fetch)))
		return o;
	if (s->with_parse) {
		layout_segment_part(&s->j->dir, s->seg, "parse", p, path, sizeof(path));
		segout_fail(s, recfile_writer_open(path, REC_KIND_PARSE, level, &o->parse));
	}
	return o;
}

/* Once a run (a process: the rounds of `crawl` share it), in the first
 * pages file rank 0 opens: a metadata record of the run's configuration
 * and the crawl's seeds (provenance.h), as Heritrix keeps its crawl order
 * beside the captures. */
static void provenance_once(struct segout *s, struct warc_writer *w)
{
	static int written;
	struct warc_record_out r;
	struct buf body;

	if (written || s->j->rank != 0)
		return;
	written = 1;
	buf_init(&body);
	if (provenance_record_body(s->j, &body)) {
		memset(&r, 0, sizeof(r));
		r.type = "metadata";
		r.target_uri = "urn:x-mpicrawl:provenance";
		r.date_us = clock_now_us();
		r.content_type = "application/warc-fields";
		r.block = body.p;
		r.block_len = body.len;
		segout_fail(s, warc_write_record(w, &r, NULL, NULL) != CR_OK ? CR_ERR_IO : CR_OK);
	}
	buf_release(&body);
}

/* Series k of partition p, opened on first use (NULL after a failure). */
static struct warc_writer *series(struct segout *s, uint32_t p, enum segout_series k)
{
	struct part *o = segout_part_of(s, p);
	const struct config *c = &s->j->cfg;
	struct warc_writer_opts wo = {
		c->warc_compression,
		(int)(c->warc_compression ? c->warc_zstd_level : c->warc_gzip_level),
		(uint64_t)c->warc_max_bytes, NULL, 0,
		c->warc_zstd_dict[0] ? c->warc_zstd_dict : NULL, buf_cstr(&s->info), NULL,
	};
	char dir[PATH_MAX];

	if (o->warc[k] || s->failed)
		return o->warc[k];
	journal_warc_prefix(&s->j->dir, s->seg, p, o->attempt, o->prefix, sizeof(o->prefix));
	layout_segment_sub(&s->j->dir, s->seg, "warc", dir, sizeof(dir));
	segout_fail(s, warc_writer_open_series(dir, o->prefix, s->suffix[k], provenance_software(),
					&wo, &o->warc[k]));
	if (o->warc[k] && k == SEGOUT_PAGES)
		provenance_once(s, o->warc[k]);
	return o->warc[k];
}

enum cr_err segout_archive(struct segout *s, uint32_t p, enum segout_series k,
			   const struct warc_exchange *x, const char **name, uint64_t *off)
{
	struct warc_writer *w = series(s, p, k);
	uint64_t len;

	*name = "";
	*off = 0;
	if (!w)
		return s->failed;
	if (segout_fail(s, warc_write_exchange(w, x, off, &len) != CR_OK ? CR_ERR_IO : CR_OK))
		return s->failed;
	/* The writer's name follows its rotations: read right after the
	 * write, and kept, since the metadata record may start a new file. */
	snprintf(s->parts[p].archived[k], sizeof(s->parts[p].archived[k]), "%s",
		 warc_writer_name(w));
	*name = s->parts[p].archived[k];
	segout_stage_exchange(s, p, k, w, x, *off, len);
	return s->failed;
}

enum cr_err segout_text(struct segout *s, uint32_t p, const struct html_page *page,
			uint32_t flags)
{
	struct part *o = &s->parts[p];
	struct index_stage_page sp;

	if (!o->text_wanted || s->failed)
		return s->failed;
	o->text_wanted = 0;
	s->scratch.len = 0;
	if (!page) {
		index_stage_pack_failed(&s->scratch);
	} else {
		memset(&sp, 0, sizeof(sp));
		sp.uri = (const char *)buf_cstr(&o->text_uri);
		sp.uri_len = o->text_uri.len;
		sp.date_us = o->text_date_us;
		sp.id = o->text_id;
		sp.id_len = strlen(o->text_id);
		sp.noindex = (flags & PARSE_NOINDEX) != 0;
		sp.lang = page->lang;
		sp.boiler = page->boiler;
		sp.nboiler = page->nlines;
		sp.title = (const char *)page->title.p;
		sp.title_len = page->title.len;
		sp.text = (const char *)page->text.p;
		sp.text_len = page->text.len;
		sp.nlinks = page->nlinks;
		sp.links = (const char *const *)page->links;
		sp.anchors = (const char *const *)page->anchors;
		sp.charset = page->charset;
		sp.charset_len = strlen(page->charset);
		index_stage_pack_page(&s->scratch, &sp);
	}
	return segout_fail(s, recfile_writer_add(o->stage[o->text_series], s->scratch.p,
					  s->scratch.len));
}

/* The metadata block: application/warc-fields lines. */
static void meta_block(const struct segout_meta *m, struct buf *block)
{
	struct parse_record pr;
	size_t pos = 0;
	const char *u;
	size_t n;

	buf_addf(block, "fetchTimeMs: %lld\r\n", (long long)m->fetch_ms);
	buf_addf(block, "robots: allowed; crawl-delay-ms=%ld\r\n", m->crawl_delay_ms);
	if (m->pdf)
		doc_pdf_fields(m->pdf, block);
	if (!m->parse || !m->parse_len ||
	    parse_record_unpack(m->parse, m->parse_len, &pr) != CR_OK)
		return;
	/* As Common Crawl's metadata records name them (CLD2's answer). */
	if (pr.nlangs) {
		unsigned i;

		buf_addf(block, "languages-cld2: {\"reliable\":%s,\"languages\":[",
			 pr.lang_reliable ? "true" : "false");
		for (i = 0; i < pr.nlangs; i++)
			buf_addf(block, "%s{\"code-iso-639-3\":\"%.3s\",\"text-covered\":%.2f}",
				 i ? "," : "", pr.langs[i], pr.lang_percent[i] / 100.0);
		buf_adds(block, "]}\r\n");
	}
	while (parse_record_link(&pr, &pos, &u, &n) == CR_OK)
		buf_addf(block, "outlink: %.*s\r\n", (int)n, u);
}

enum cr_err segout_metadata(struct segout *s, uint32_t p, enum segout_series k,
			    const struct segout_meta *m)
{
	struct warc_writer *w = s->parts[p].warc[k];
	const char *id = w ? warc_writer_last_id(w) : NULL;
	struct warc_record_out r;
	struct buf fields, block;

	if (!s->j->cfg.warc_metadata || !id || s->failed)
		return s->failed;
	buf_init(&fields);
	buf_init(&block);
	buf_addf(&fields, "WARC-Concurrent-To: %s\r\n", id);
	meta_block(m, &block);
	memset(&r, 0, sizeof(r));
	r.type = "metadata";
	r.target_uri = m->url;
	r.date_us = m->date_us;
	r.fields = (const char *)buf_cstr(&fields);
	r.content_type = "application/warc-fields";
	r.block = block.p;
	r.block_len = block.len;
	segout_fail(s, warc_write_record(w, &r, NULL, NULL) != CR_OK ? CR_ERR_IO : CR_OK);
	buf_release(&fields);
	buf_release(&block);
	return s->failed;
}

/* Notes that w's current file holds what was written to it so far. */
static void note_written(struct part *o, struct warc_writer *w)
{
	const char *name = warc_writer_name(w);
	struct written *f = o->nfiles ? &o->files[o->nfiles - 1] : NULL;

	if (!f || strcmp(f->name, name)) {
		size_t i;

		for (i = 0, f = NULL; i < o->nfiles && !f; i++)
			if (!strcmp(o->files[i].name, name))
				f = &o->files[i];
	}
	if (!f) {
		if (o->nfiles == o->cap) {
			o->cap = o->cap ? o->cap * 2 : 8;
			o->files = realloc(o->files, o->cap * sizeof(*o->files));
			if (!o->files) {
				fputs("mpicrawl: out of memory\n", stderr);
				abort();
			}
		}
		f = &o->files[o->nfiles++];
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	f->end = warc_writer_offset(w);
}

enum cr_err segout_outcome(struct segout *s, uint32_t p, const struct fetch_record *fr,
			   const void *parse, size_t parse_len, enum segout_series k)
{
	struct part *o = segout_part_of(s, p);
	struct warc_writer *w = k == SEGOUT_NONE ? NULL : o->warc[k];
	struct journal_entry je;

	if (s->failed)
		return s->failed;
	s->scratch.len = 0;
	fetch_record_pack(fr, &s->scratch);
	if (segout_fail(s, recfile_writer_add(o->fetch, s->scratch.p, s->scratch.len)))
		return s->failed;
	if (parse && o->parse && segout_fail(s, recfile_writer_add(o->parse, parse, parse_len)))
		return s->failed;
	if (!o->jn)
		return CR_OK;
	memset(&je, 0, sizeof(je));
	je.kind = JOURNAL_OUTCOME;
	je.warc = w ? warc_writer_name(w) : "";
	je.warc_len = strlen(je.warc);
	je.warc_end = w ? warc_writer_offset(w) : 0;
	if (w)
		note_written(o, w);
	je.fetch = s->scratch.p;
	je.fetch_len = s->scratch.len;
	je.parse = o->parse ? parse : NULL;
	je.parse_len = o->parse && parse ? parse_len : 0;
	journal_add(o->jn, &je);
	return CR_OK;
}

/* Journals a link followed (kind JOURNAL_FOLLOW: the band keys of its
 * page) or handed over (round: one byte). */
static void journal_link(struct segout *s, uint32_t p, int kind, const struct crawl_record *rec,
			 const uint64_t *bands, unsigned nb, unsigned round)
{
	struct part *o = &s->parts[p];
	struct journal_entry je;
	struct buf keys;
	unsigned i;

	if (!o->jn || s->failed)
		return;
	buf_init(&keys);
	for (i = 0; i < nb; i++)
		buf_put_u64le(&keys, bands[i]);
	if (kind == JOURNAL_HANDOFF)
		buf_put_u8(&keys, (uint8_t)(round < 255 ? round : 255));
	s->scratch.len = 0;
	crawl_record_pack(rec, &s->scratch);
	memset(&je, 0, sizeof(je));
	je.kind = kind;
	je.warc = "";
	je.fetch = s->scratch.p;
	je.fetch_len = s->scratch.len;
	je.parse = keys.p;
	je.parse_len = keys.len;
	journal_add(o->jn, &je);
	buf_release(&keys);
}

void segout_followed(struct segout *s, uint32_t p, const struct crawl_record *rec,
		     const uint64_t *bands, unsigned nb)
{
	journal_link(s, p, JOURNAL_FOLLOW, rec, bands, nb, 0);
}

void segout_handoff(struct segout *s, uint32_t p, const struct crawl_record *rec,
		    unsigned round)
{
	journal_link(s, p, JOURNAL_HANDOFF, rec, NULL, 0, round);
}

/* Journals what partition p's robots series holds now (kind JOURNAL_WARC),
 * or an answer (JOURNAL_ROBOTS) with it or alone (w NULL). */
static void journal_robots(struct part *o, struct warc_writer *w, const void *answer,
			   size_t n)
{
	struct journal_entry je;

	memset(&je, 0, sizeof(je));
	je.kind = answer ? JOURNAL_ROBOTS : JOURNAL_WARC;
	je.warc = w ? warc_writer_name(w) : "";
	je.warc_len = strlen(je.warc);
	je.warc_end = w ? warc_writer_offset(w) : 0;
	je.fetch = answer;
	je.fetch_len = n;
	journal_add(o->jn, &je);
	if (w)
		note_written(o, w);
}

void segout_robots_done(struct segout *s, uint32_t p)
{
	struct part *o = &s->parts[p];

	if (o->jn && o->warc[SEGOUT_ROBOTS])
		journal_robots(o, o->warc[SEGOUT_ROBOTS], NULL, 0);
}

void segout_robots_answer(struct segout *s, uint32_t p, int archived, const void *answer,
			  size_t n)
{
	struct part *o = &s->parts[p];

	if (o->jn && !s->failed)
		journal_robots(o, archived ? o->warc[SEGOUT_ROBOTS] : NULL, answer, n);
}

enum cr_err segout_sync(struct segout *s)
{
	uint32_t p;
	int k;

	if (s->syncer && !s->failed)
		segout_fail(s, syncer_wait(s->syncer));
	for (p = 0; p < s->j->dir.partitions && !s->failed; p++) {
		struct part *o = &s->parts[p];

		if (!journal_pending(o->jn))
			continue;
		for (k = 0; k < SEGOUT_SERIES_; k++)
			if (segout_fail(s, warc_writer_sync(o->warc[k]) != CR_OK ? CR_ERR_IO
										  : CR_OK))
				return s->failed;
		segout_fail(s, journal_sync(o->jn));
	}
	return s->failed;
}

/* Partition p's WARC files written out and named to the syncer's next
 * batch, then its pending journal entries. */
static void hand_over(struct segout *s, struct part *o)
{
	int k, fd;

	for (k = 0; k < SEGOUT_SERIES_ && !s->failed; k++) {
		if (segout_fail(s, warc_writer_flush(o->warc[k], &fd) != CR_OK ? CR_ERR_IO : CR_OK))
			return;
		if (fd >= 0)
			segout_fail(s, syncer_add_fsync(s->syncer, fd,
							warc_writer_name(o->warc[k])));
	}
	if (!s->failed)
		segout_fail(s, journal_hand_over(o->jn, s->syncer));
}

enum cr_err segout_sync_async(struct segout *s)
{
	uint32_t p;

	if (s->failed)
		return s->failed;
	if (!s->syncer && (s->no_syncer || (s->no_syncer = syncer_start(&s->syncer) != CR_OK)))
		return segout_sync(s);   /* no thread: on this one, as it can */
	if (syncer_busy(s->syncer))
		return CR_OK;
	if (segout_fail(s, syncer_wait(s->syncer)))
		return s->failed;
	for (p = 0; p < s->j->dir.partitions && !s->failed; p++)
		if (journal_pending(s->parts[p].jn))
			hand_over(s, &s->parts[p]);
	if (!s->failed)
		syncer_submit(s->syncer);
	return s->failed;
}

/*
 * A URL is committed as fetched only when the WARC bytes its outcome names
 * are there: every file the partition wrote must still hold what was
 * written (a directory removed under a running fetch leaves the files
 * written to nowhere). Otherwise nothing of the partition is committed and
 * the next fetch of the segment fetches those URLs again.
 */
static enum cr_err check_written(struct segout *s, uint32_t p)
{
	struct part *o = &s->parts[p];
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < o->nfiles; i++) {
		layout_segment_file(&s->j->dir, s->seg, "warc", o->files[i].name, path,
				    sizeof(path));
		if (stat(path, &st) == 0 && (uint64_t)st.st_size >= o->files[i].end)
			continue;
		log_err("fetch", "WARC file '%s' is missing or shorter than what was written "
			"to it: partition %u of segment %d is not committed; fetch the segment "
			"again (its URLs archived there are fetched again)", path, p, s->seg);
		return CR_ERR_IO;
	}
	return CR_OK;
}

/* Commits partition p: WARC files closed and checked, the record files
 * renamed into place. The journal stays until the phase is marked done
 * (state_forget_journals): the robots cache written after this is made
 * from the answers it holds, and a fetch killed before the mark resumes
 * from it (journal.h). */
static enum cr_err commit_part(struct segout *s, uint32_t p)
{
	struct part *o = segout_part_of(s, p);
	enum cr_err e = s->failed;
	int k;

	for (k = 0; !e && k < SEGOUT_SERIES_; k++)
		if (warc_writer_close(&o->warc[k]) != CR_OK)
			e = CR_ERR_IO;
	if (!e)
		e = check_written(s, p);
	if (!e)
		e = journal_sync(o->jn);
	if (!e && o->fetch)
		e = recfile_writer_commit(&o->fetch);
	if (!e && o->parse)
		e = recfile_writer_commit(&o->parse);
	for (k = 0; !e && k < SEGOUT_SERIES_; k++)
		if (o->stage[k])
			e = recfile_writer_commit(&o->stage[k]);
	if (!e)
		journal_close(&o->jn, 0);
	return segout_fail(s, e);
}

enum cr_err segout_commit(struct segout *s)
{
	uint32_t p;

	if (s->syncer && !s->failed)
		segout_fail(s, syncer_wait(s->syncer));

	for (p = 0; p < s->j->dir.partitions && !s->failed; p++)
		if (layout_owns(p, s->j->rank, s->j->nranks))
			commit_part(s, p);
	return s->failed;
}

void segout_exchange(const struct http_result *r, const char *url, const char *truncated,
		     struct warc_exchange *x)
{
	memset(x, 0, sizeof(*x));
	x->target_uri = url;
	x->date_us = r->start_wall_us;
	x->ip = r->ip[0] ? r->ip : NULL;
	x->request = r->req;
	x->request_len = r->req_len;
	x->resp_head = r->head;
	x->resp_head_len = r->head_len;
	x->body = r->body;
	x->body_len = r->body_len;
	x->truncated = truncated;
	x->protocol = r->protocol;
	x->tls = r->tls;
	x->cipher = r->cipher;
}

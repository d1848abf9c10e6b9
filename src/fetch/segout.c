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

enum cr_err segout_open(const struct job *j, int seg, int with_parse, int attempt,
			struct journal_warcs *prior, struct segout **out)
{
	struct segout *s = calloc(1, sizeof(*s));
	static const char *const dirs[] = { "fetch", "warc", "parse", "staged" };
	char marks[PATH_MAX];
	enum cr_err e = CR_OK;
	size_t i;

	if (!s) {
		journal_warcs_free(prior);
		return CR_ERR_NOMEM;
	}
	s->j = j;
	s->seg = seg;
	s->with_parse = with_parse;
	s->attempt = attempt;
	s->prior = *prior;
	memset(prior, 0, sizeof(*prior));
	layout_warc_prefix(&j->dir, seg, j->rank, attempt, s->prefix, sizeof(s->prefix));
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
	layout_warc_marks(&j->dir, seg, j->rank, attempt, marks, sizeof(marks));
	if (!e)
		e = journal_create(marks, &s->marks);
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
		buf_release(&o->text_uri);
		journal_close(&o->jn, 0);
	}
	/* Not committed: what they hold is journaled or redone. */
	for (k = 0; k < SEGOUT_SERIES_; k++) {
		recfile_writer_abort(&s->stage[k]);
		if (warc_writer_close(&s->warc[k]) != CR_OK)
			continue;
	}
	journal_close(&s->marks, 0);
	journal_warcs_free(&s->prior);
	free(s->files);
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

/* The series whose files k's records go to: with warc.split each its own,
 * else diagnostics and sitemaps with the pages (robots.txt apart). */
static enum segout_series slot_of(const struct segout *s, enum segout_series k)
{
	if (!s->j->cfg.warc_split && (k == SEGOUT_DIAGNOSTICS || k == SEGOUT_SITEMAPS))
		return SEGOUT_PAGES;
	return k;
}

/* Series k of the rank, opened on first use (NULL after a failure). */
static struct warc_writer *series(struct segout *s, enum segout_series k)
{
	const struct config *c = &s->j->cfg;
	struct warc_writer_opts wo = {
		c->warc_compression,
		(int)(c->warc_compression ? c->warc_zstd_level : c->warc_gzip_level),
		(uint64_t)c->warc_max_bytes, NULL, 0,
		c->warc_zstd_dict[0] ? c->warc_zstd_dict : NULL, buf_cstr(&s->info), NULL,
	};
	char dir[PATH_MAX];

	if (s->warc[k] || s->failed)
		return s->warc[k];
	layout_segment_sub(&s->j->dir, s->seg, "warc", dir, sizeof(dir));
	segout_fail(s, warc_writer_open_series(dir, s->prefix, s->suffix[k], provenance_software(),
					       &wo, &s->warc[k]));
	if (s->warc[k] && k == SEGOUT_PAGES)
		provenance_once(s, s->warc[k]);
	return s->warc[k];
}

/* Notes that w's current file holds what was written to it so far: after
 * every write, so that a file the writer rolled over past keeps its end. */
static void note_written(struct segout *s, struct warc_writer *w)
{
	const char *name = warc_writer_name(w);
	struct written *f = s->nfiles ? &s->files[s->nfiles - 1] : NULL;
	size_t i;

	for (i = s->nfiles; (!f || strcmp(f->name, name)) && i-- > 0;)
		f = &s->files[i];
	if (!f || strcmp(f->name, name)) {
		if (s->nfiles == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 8;
			s->files = realloc(s->files, s->cap * sizeof(*s->files));
			if (!s->files) {
				fputs("mpicrawl: out of memory\n", stderr);
				abort();
			}
		}
		f = &s->files[s->nfiles++];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	f->end = warc_writer_offset(w);
}

enum cr_err segout_archive(struct segout *s, uint32_t p, enum segout_series k,
			   const struct warc_exchange *x, const char **name, uint64_t *off)
{
	struct warc_writer *w;
	uint64_t len;

	*name = "";
	*off = 0;
	k = slot_of(s, k);
	segout_part_of(s, p);
	if (!(w = series(s, k)))
		return s->failed;
	if (segout_fail(s, warc_write_exchange(w, x, off, &len) != CR_OK ? CR_ERR_IO : CR_OK))
		return s->failed;
	note_written(s, w);
	/* The writer's name follows its rotations: read right after the
	 * write, and kept, since the metadata record may start a new file. */
	snprintf(s->archived[k], sizeof(s->archived[k]), "%s", warc_writer_name(w));
	*name = s->archived[k];
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
	return segout_fail(s, recfile_writer_add(s->stage[o->text_series], s->scratch.p,
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
	struct warc_writer *w = s->warc[slot_of(s, k)];
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
	note_written(s, w);
	buf_release(&fields);
	buf_release(&block);
	(void)p;
	return s->failed;
}

enum cr_err segout_outcome(struct segout *s, uint32_t p, const struct fetch_record *fr,
			   const void *parse, size_t parse_len, enum segout_series k)
{
	struct part *o = segout_part_of(s, p);
	struct warc_writer *w = k == SEGOUT_NONE ? NULL : s->warc[slot_of(s, k)];
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

/* Journals what the robots series holds now (kind JOURNAL_WARC) in
 * partition p's journal, or an answer (JOURNAL_ROBOTS) with it or alone (w
 * NULL). */
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
}

void segout_robots_done(struct segout *s, uint32_t p)
{
	struct part *o = &s->parts[p];

	if (o->jn && s->warc[SEGOUT_ROBOTS])
		journal_robots(o, s->warc[SEGOUT_ROBOTS], NULL, 0);
}

void segout_robots_answer(struct segout *s, uint32_t p, int archived, const void *answer,
			  size_t n)
{
	struct part *o = &s->parts[p];

	if (o->jn && !s->failed)
		journal_robots(o, archived ? s->warc[SEGOUT_ROBOTS] : NULL, answer, n);
}

/* 1 if a partition's journal has entries to write. */
static int any_pending(const struct segout *s)
{
	uint32_t p;

	for (p = 0; p < s->j->dir.partitions; p++)
		if (journal_pending(s->parts[p].jn))
			return 1;
	return 0;
}

/* The marks of the files written since the last: added to the marks
 * journal, to be made durable after the partitions' journals. */
static void mark_files(struct segout *s)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		struct written *f = &s->files[i];
		struct journal_entry je;

		if (f->end <= f->marked)
			continue;
		memset(&je, 0, sizeof(je));
		je.kind = JOURNAL_WARC;
		je.warc = f->name;
		je.warc_len = strlen(f->name);
		je.warc_end = f->end;
		journal_add(s->marks, &je);
		f->marked = f->end;
	}
}

enum cr_err segout_sync(struct segout *s)
{
	uint32_t p;
	int k;

	if (s->syncer && !s->failed)
		segout_fail(s, syncer_wait(s->syncer));
	if (s->failed || !any_pending(s))
		return s->failed;
	for (k = 0; k < SEGOUT_SERIES_; k++)
		if (segout_fail(s, warc_writer_sync(s->warc[k]) != CR_OK ? CR_ERR_IO : CR_OK))
			return s->failed;
	for (p = 0; p < s->j->dir.partitions && !s->failed; p++)
		segout_fail(s, journal_sync(s->parts[p].jn));
	mark_files(s);
	return segout_fail(s, s->failed ? s->failed : journal_sync(s->marks));
}

enum cr_err segout_sync_async(struct segout *s)
{
	uint32_t p;
	int k, fd;

	if (s->failed)
		return s->failed;
	if (!s->syncer && (s->no_syncer || (s->no_syncer = syncer_start(&s->syncer) != CR_OK)))
		return segout_sync(s);   /* no thread: on this one, as it can */
	if (syncer_busy(s->syncer))
		return CR_OK;
	if (segout_fail(s, syncer_wait(s->syncer)) || !any_pending(s))
		return s->failed;
	/* The rank's WARC files written out and named to the syncer's next
	 * batch, then the partitions' pending journal entries, then the
	 * marks: appended last, after the journals are durable. */
	for (k = 0; k < SEGOUT_SERIES_ && !s->failed; k++) {
		if (segout_fail(s, warc_writer_flush(s->warc[k], &fd) != CR_OK ? CR_ERR_IO : CR_OK))
			break;
		if (fd >= 0)
			segout_fail(s, syncer_add_fsync(s->syncer, fd,
							warc_writer_name(s->warc[k])));
	}
	for (p = 0; p < s->j->dir.partitions && !s->failed; p++)
		if (journal_pending(s->parts[p].jn))
			segout_fail(s, journal_hand_over(s->parts[p].jn, s->syncer));
	if (!s->failed) {
		mark_files(s);
		segout_fail(s, journal_hand_over(s->marks, s->syncer));
	}
	if (!s->failed)
		syncer_submit(s->syncer);
	return s->failed;
}

/*
 * A URL is committed as fetched only when the WARC bytes its outcome names
 * are there: every file the rank wrote must still hold what was written (a
 * directory removed under a running fetch leaves the files written to
 * nowhere). Otherwise nothing is committed and the next fetch of the
 * segment fetches those URLs again.
 */
static enum cr_err check_written(struct segout *s)
{
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		layout_segment_file(&s->j->dir, s->seg, "warc", s->files[i].name, path,
				    sizeof(path));
		if (stat(path, &st) == 0 && (uint64_t)st.st_size >= s->files[i].end)
			continue;
		log_err("fetch", "WARC file '%s' is missing or shorter than what was written "
			"to it: segment %d is not committed; fetch the segment again (its URLs "
			"archived there are fetched again)", path, s->seg);
		return CR_ERR_IO;
	}
	return CR_OK;
}

/* Commits partition p: its journal made durable, the record files renamed
 * into place. The journal stays until the phase is marked done
 * (state_forget_journals): the robots cache written after this is made
 * from the answers it holds, and a fetch killed before the mark resumes
 * from it (journal.h). */
static enum cr_err commit_part(struct segout *s, uint32_t p)
{
	struct part *o = segout_part_of(s, p);
	enum cr_err e = s->failed;

	if (!e)
		e = journal_sync(o->jn);
	if (!e && o->fetch)
		e = recfile_writer_commit(&o->fetch);
	if (!e && o->parse)
		e = recfile_writer_commit(&o->parse);
	if (!e)
		journal_close(&o->jn, 0);
	return segout_fail(s, e);
}

enum cr_err segout_commit(struct segout *s)
{
	uint32_t p;
	int k;

	if (s->syncer && !s->failed)
		segout_fail(s, syncer_wait(s->syncer));
	/* The rank's files closed (flushed, fsynced) and checked first. */
	for (k = 0; !s->failed && k < SEGOUT_SERIES_; k++)
		if (warc_writer_close(&s->warc[k]) != CR_OK)
			segout_fail(s, CR_ERR_IO);
	if (!s->failed)
		segout_fail(s, check_written(s));
	for (p = 0; p < s->j->dir.partitions && !s->failed; p++)
		if (layout_owns(p, s->j->rank, s->j->nranks))
			commit_part(s, p);
	for (k = 0; !s->failed && k < SEGOUT_SERIES_; k++)
		if (s->stage[k])
			segout_fail(s, recfile_writer_commit(&s->stage[k]));
	if (!s->failed) {
		mark_files(s);
		segout_fail(s, journal_sync(s->marks));
	}
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

#include "fetch/journal.h"
#include "fetch/syncer.h"
#include "crawldb/fetch_record.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define JOURNAL_MAGIC "MPCRJNL1"
#define JOURNAL_HEAD 16
#define FRAME_HEAD 12
/* An entry holds a fetch and a parse record, each at most REC_MAX_BYTES. */
#define ENTRY_MAX (2 * (size_t)REC_MAX_BYTES + 4096)
/* WARC files of one partition in one segment: two per attempt. */
#define WARC_FILES_MAX 256

struct journal {
	int fd;
	char path[PATH_MAX];
	struct buf pending;
};

void journal_entry_pack(const struct journal_entry *e, struct buf *out)
{
	size_t at = out->len, start;
	uint64_t h;

	buf_put_u32le(out, 0);
	buf_put_u64le(out, 0);
	start = out->len;
	buf_put_u8(out, (uint8_t)e->kind);
	buf_put_str(out, e->warc, e->warc_len);
	buf_put_varint(out, e->warc_end);
	buf_put_str(out, e->fetch, e->fetch_len);
	buf_put_str(out, e->parse, e->parse_len);
	h = XXH3_64bits(out->p + start, out->len - start);
	{
		uint32_t n = (uint32_t)(out->len - start);
		unsigned char *q = out->p + at;
		int i;

		for (i = 0; i < 4; i++)
			q[i] = (unsigned char)(n >> (8 * i));
		for (i = 0; i < 8; i++)
			q[4 + i] = (unsigned char)(h >> (8 * i));
	}
}

enum cr_err journal_entry_unpack(const void *p, size_t n, struct journal_entry *e,
				 size_t *used)
{
	const unsigned char *b = p;
	uint32_t len;
	uint8_t kind;
	struct buf_reader r;
	const char *s;
	size_t sl;

	if (n < FRAME_HEAD)
		return CR_EOF;
	len = buf_load_u32le(b);
	if (len > ENTRY_MAX)
		return CR_ERR_FORMAT;
	if (n - FRAME_HEAD < len)
		return CR_EOF;
	if (XXH3_64bits(b + FRAME_HEAD, len) != buf_load_u64le(b + 4))
		return CR_ERR_FORMAT;
	memset(e, 0, sizeof(*e));
	buf_reader_init(&r, b + FRAME_HEAD, len);
	if (buf_get_u8(&r, &kind) ||
	    kind < JOURNAL_OUTCOME || kind > JOURNAL_ROBOTS)
		return CR_ERR_FORMAT;
	e->kind = kind;
	if (buf_get_str(&r, &e->warc, &e->warc_len) || buf_get_varint(&r, &e->warc_end))
		return CR_ERR_FORMAT;
	if (buf_get_str(&r, &s, &sl))
		return CR_ERR_FORMAT;
	e->fetch = s;
	e->fetch_len = sl;
	if (buf_get_str(&r, &s, &sl) || r.off != r.len)
		return CR_ERR_FORMAT;
	e->parse = s;
	e->parse_len = sl;
	*used = FRAME_HEAD + len;
	return CR_OK;
}

void journal_add(struct journal *jn, const struct journal_entry *e)
{
	journal_entry_pack(e, &jn->pending);
}

int journal_pending(const struct journal *jn)
{
	return jn && jn->pending.len > 0;
}

static enum cr_err write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return CR_ERR_IO;
		b += w;
		n -= (size_t)w;
	}
	return CR_OK;
}

enum cr_err journal_sync(struct journal *jn)
{
	if (!jn || !jn->pending.len)
		return CR_OK;
	if (write_all(jn->fd, jn->pending.p, jn->pending.len) != CR_OK ||
	    fdatasync(jn->fd) != 0) {
		log_err("fetch", "cannot write journal '%s': %s", jn->path, strerror(errno));
		return CR_ERR_IO;
	}
	jn->pending.len = 0;
	return CR_OK;
}

enum cr_err journal_hand_over(struct journal *jn, struct syncer *s)
{
	if (!jn || !jn->pending.len)
		return CR_OK;
	return syncer_add_append(s, jn->fd, jn->path, &jn->pending);
}

void journal_close(struct journal **jn, int remove)
{
	if (!jn || !*jn)
		return;
	close((*jn)->fd);
	if (remove && unlink((*jn)->path) != 0 && errno != ENOENT)
		log_warn("fetch", "cannot remove '%s': %s", (*jn)->path, strerror(errno));
	buf_release(&(*jn)->pending);
	free(*jn);
	*jn = NULL;
}

/* ---- resuming a partition ---- */

struct warc_file {
	char name[256];
	int attempt;
	uint64_t size, end;   /* end: of the last journaled exchange */
	int named;            /* a kept entry names it */
	int short_warned;
	int shared;           /* a rank's file: its marks decide, not this partition */
};

struct resume_ctx {
	const struct job *j;
	int seg;
	uint32_t p;
	struct warc_file *files;
	size_t nfiles, cap;
	size_t last;          /* the file the previous entry named: the next one's, mostly */
	int missing_warned;
};

/* The attempt of an older crawl's WARC file name of partition p, or -1 if
 * it is not one (a rank's file is the marks' to judge). */
static int warc_attempt(const struct crawl_dir *d, const char *name, int seg, uint32_t p)
{
	uint32_t unit;
	int by_rank, k;

	if (!layout_warc_unit(d, name, seg, &unit, &by_rank, &k) || by_rank || unit != p ||
	    k < 0 || k > 9999)
		return -1;
	return k;
}

static enum cr_err list_warcs(struct resume_ctx *c)
{
	char dir[PATH_MAX];
	DIR *dh;
	struct dirent *de;

	layout_segment_sub(&c->j->dir, c->seg, "warc", dir, sizeof(dir));
	dh = opendir(dir);
	if (!dh)
		return errno == ENOENT ? CR_OK : CR_ERR_IO;
	while ((de = readdir(dh)) != NULL) {
		int k = warc_attempt(&c->j->dir, de->d_name, c->seg, c->p);
		char path[PATH_MAX + 512];
		struct stat st;
		struct warc_file *w;

		if (k < 0 || strlen(de->d_name) >= sizeof(w->name))
			continue;
		if (c->nfiles == WARC_FILES_MAX) {
			closedir(dh);
			log_err("fetch", "more than %d WARC files of partition %u in '%s'",
				WARC_FILES_MAX, c->p, dir);
			return CR_ERR_LIMIT;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0)
			continue;
		w = &c->files[c->nfiles++];
		memset(w, 0, sizeof(*w));
		snprintf(w->name, sizeof(w->name), "%s", de->d_name);
		w->attempt = k;
		w->size = (uint64_t)st.st_size;
	}
	closedir(dh);
	return CR_OK;
}

/* Removes the uncommitted record files (part-P.zst.tmp.*) of partition p. */
static void remove_tmp(struct resume_ctx *c, const char *kind)
{
	char dir[PATH_MAX], prefix[64];
	DIR *dh;
	struct dirent *de;

	layout_segment_sub(&c->j->dir, c->seg, kind, dir, sizeof(dir));
	snprintf(prefix, sizeof(prefix), "part-%05u.zst.tmp.", c->p);
	dh = opendir(dir);
	if (!dh)
		return;
	while ((de = readdir(dh)) != NULL) {
		char path[PATH_MAX + 512];

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) != 0)
			log_warn("fetch", "cannot remove '%s': %s", path, strerror(errno));
	}
	closedir(dh);
}

/* The file named by an entry, or NULL. A partition's entries name the
 * file its rank was writing, the same one until it rolled: the one found
 * last is tried first, so that a resume with thousands of rank files does
 * not scan them all for every entry. */
static struct warc_file *file_named(struct resume_ctx *c, const char *name, size_t len)
{
	size_t k;

	for (k = 0; k < c->nfiles; k++) {
		size_t i = (c->last + k) % c->nfiles;
		struct warc_file *w = &c->files[i];

		if (strlen(w->name) == len && !memcmp(w->name, name, len)) {
			c->last = i;
			return w;
		}
	}
	return NULL;
}

/*
 * Whether the WARC bytes an entry names are there: its file is present and
 * holds the entry's exchange whole (an entry without a WARC file always
 * is). A file that is missing or short is reported once; the URLs of the
 * entries it fails are fetched again.
 */
static int entry_whole(struct resume_ctx *c, const struct journal_entry *je)
{
	struct warc_file *w;

	if (!je->warc_len)
		return 1;
	if ((w = file_named(c, je->warc, je->warc_len)) != NULL) {
		if (je->warc_end > w->size) {
			/* past a rank file's last mark: not durable, not a surprise */
			if (!w->short_warned && !w->shared)
				log_warn("fetch", "WARC file '%s' is shorter (%llu bytes) than its "
					 "journal says: the URLs archived past its end are fetched "
					 "again", w->name, (unsigned long long)w->size);
			w->short_warned = 1;
			return 0;
		}
		w->named = 1;
		if (je->warc_end > w->end)
			w->end = je->warc_end;
		return 1;
	}
	if (c->missing_warned < 8)
		log_warn("fetch", "journal of partition %u names WARC file '%.*s', which is "
			 "missing: its URLs are fetched again", c->p,
			 (int)(je->warc_len < 64 ? je->warc_len : 64), je->warc);
	c->missing_warned++;
	return 0;
}

/* Calls fn for each whole entry of the journal at path; *valid gets the
 * length of its whole entries. */
static enum cr_err scan_journal(const char *path, uint64_t *valid,
				enum cr_err (*fn)(void *arg, const struct journal_entry *je),
				void *arg)
{
	FILE *fp = fopen(path, "rb");
	unsigned char head[JOURNAL_HEAD];
	struct buf b;
	enum cr_err e = CR_OK;
	uint64_t off = JOURNAL_HEAD;

	*valid = 0;
	if (!fp) {
		log_err("fetch", "cannot open journal '%s': %s", path, strerror(errno));
		return CR_ERR_IO;
	}
	if (fread(head, 1, sizeof(head), fp) != sizeof(head) ||
	    memcmp(head, JOURNAL_MAGIC, 8)) {
		/* Not even a whole header: nothing was journaled. */
		fclose(fp);
		return CR_OK;
	}
	buf_init(&b);
	for (;;) {
		unsigned char fh[FRAME_HEAD];
		struct journal_entry je;
		size_t used;
		uint32_t len;

		if (fread(fh, 1, sizeof(fh), fp) != sizeof(fh))
			break;
		len = buf_load_u32le(fh);
		if (len > ENTRY_MAX)
			break;
		b.len = 0;
		buf_add(&b, fh, sizeof(fh));
		buf_reserve(&b, len);
		if (fread(b.p + b.len, 1, len, fp) != len)
			break;
		b.len += len;
		if (journal_entry_unpack(b.p, b.len, &je, &used) != CR_OK)
			break;
		if ((e = fn(arg, &je)) != CR_OK)
			break;
		off += used;
	}
	buf_release(&b);
	fclose(fp);
	*valid = off;
	return e;
}

struct keep_ctx {
	struct resume_ctx *c;
	journal_keep_fn keep;
	void *arg;
	uint64_t kept, dropped;
};

/* First read: the whole entries' outcomes are kept. */
static enum cr_err keep_entry(void *arg, const struct journal_entry *je)
{
	struct keep_ctx *k = arg;

	if (!entry_whole(k->c, je)) {
		k->dropped++;
		return CR_OK;
	}
	if (je->kind == JOURNAL_WARC)
		return CR_OK;
	k->kept += je->kind == JOURNAL_OUTCOME;
	return k->keep(k->arg, je->kind, je->fetch_len ? je->fetch : NULL, je->fetch_len,
		       je->parse_len ? je->parse : NULL, je->parse_len);
}

struct copy_ctx {
	struct resume_ctx *c;
	struct journal *jn;
};

/* Second read, when entries were dropped: the whole ones are copied into
 * the new journal. */
static enum cr_err copy_entry(void *arg, const struct journal_entry *je)
{
	struct copy_ctx *k = arg;

	if (!entry_whole(k->c, je))
		return CR_OK;
	journal_add(k->jn, je);
	/* Written as it goes: the pending batch stays small. */
	return k->jn->pending.len > (4u << 20) ? journal_sync(k->jn) : CR_OK;
}

static enum cr_err journal_open(const char *path, uint64_t valid, struct journal **out);

/*
 * Keeps the whole entries of the journal at path and opens it for this
 * attempt: appending after them, or - when some entry's WARC bytes are
 * gone - as a new journal of the whole ones only (the old one renamed to
 * PATH.old while it is copied, and taken up again if that is interrupted).
 */
static enum cr_err resume_journal(struct resume_ctx *c, const char *path, journal_keep_fn keep,
				  void *arg, struct journal **jn, uint64_t *kept)
{
	struct keep_ctx k = { c, keep, arg, 0, 0 };
	char old[PATH_MAX + 8];
	uint64_t valid = 0;
	enum cr_err e;
	size_t i;

	snprintf(old, sizeof(old), "%s.old", path);
	if (access(old, F_OK) == 0 && rename(old, path) != 0)
		return CR_ERR_IO;
	e = scan_journal(path, &valid, keep_entry, &k);
	*kept = k.kept;
	if (e || !k.dropped)
		return e ? e : journal_open(path, valid, jn);
	if (rename(path, old) != 0)
		return CR_ERR_IO;
	e = journal_open(path, 0, jn);
	for (i = 0; i < c->nfiles; i++)
		c->files[i].short_warned = 1;   /* said once already */
	c->missing_warned = 8;
	if (!e) {
		struct copy_ctx cc = { c, *jn };

		e = scan_journal(old, &valid, copy_entry, &cc);
	}
	if (!e)
		e = journal_sync(*jn);
	if (!e && unlink(old) != 0)
		e = CR_ERR_IO;
	return e;
}

/* 1 if the response a committed fetch record names is in its WARC file
 * (a record without one always is). */
static int record_whole(struct resume_ctx *c, const void *data, size_t n)
{
	struct fetch_record fr;
	struct journal_entry je;

	if (fetch_record_unpack(data, n, &fr) != CR_OK)
		return 0;
	memset(&je, 0, sizeof(je));
	je.warc = fr.warc;
	je.warc_len = fr.warc_len;
	je.warc_end = fr.warc_len ? fr.warc_offset + 1 : 0;
	return entry_whole(c, &je);
}

/* The URL of a packed fetch or parse record (both start with a version
 * byte and the URL). */
static int record_url(const void *data, size_t n, const char **url, size_t *len)
{
	struct buf_reader rd;
	uint8_t v;

	buf_reader_init(&rd, data, n);
	return buf_get_u8(&rd, &v) || buf_get_str(&rd, url, len) ? -1 : 0;
}

/*
 * Keeps the records of a committed part file, journaling them again. A
 * fetch record whose response is not in its WARC file is dropped (its URL
 * goes into dropped, and is fetched again), and so is the parse record of
 * a dropped URL.
 */
static enum cr_err read_part(struct resume_ctx *c, const char *path, enum rec_kind kind,
			     journal_keep_fn keep, void *arg, struct journal *jn,
			     struct hmap *dropped, uint64_t *kept)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_open(path, kind, &r);

	if (e) {
		log_err("fetch", "cannot read '%s'", path);
		return e;
	}
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct journal_entry je;
		const char *url;
		size_t ul;

		if (record_url(data, n, &url, &ul) != 0) {
			e = CR_ERR_FORMAT;
			break;
		}
		memset(&je, 0, sizeof(je));
		je.kind = JOURNAL_OUTCOME;
		je.warc = "";
		if (kind == REC_KIND_FETCH && !record_whole(c, data, n)) {
			*hmap_put(dropped, url, ul) = dropped;
			continue;
		}
		if (kind == REC_KIND_FETCH) {
			je.fetch = data;
			je.fetch_len = n;
			e = keep(arg, JOURNAL_OUTCOME, data, n, NULL, 0);
			(*kept)++;
		} else if (dropped->count && hmap_get(dropped, url, ul)) {
			continue;
		} else {
			je.parse = data;
			je.parse_len = n;
			e = keep(arg, JOURNAL_OUTCOME, NULL, 0, data, n);
		}
		if (e)
			break;
		journal_add(jn, &je);
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

static enum cr_err journal_open(const char *path, uint64_t valid, struct journal **out)
{
	struct journal *jn = calloc(1, sizeof(*jn));
	int fresh = valid < JOURNAL_HEAD;

	if (!jn)
		return CR_ERR_NOMEM;
	snprintf(jn->path, sizeof(jn->path), "%s", path);
	buf_init(&jn->pending);
	jn->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0644);
	if (jn->fd < 0 || ftruncate(jn->fd, fresh ? 0 : (off_t)valid) != 0 ||
	    lseek(jn->fd, 0, SEEK_END) < 0) {
		log_err("fetch", "cannot open journal '%s': %s", path, strerror(errno));
		journal_close(&jn, 0);
		return CR_ERR_IO;
	}
	if (fresh) {
		unsigned char head[JOURNAL_HEAD] = { 0 };

		memcpy(head, JOURNAL_MAGIC, 8);
		buf_add(&jn->pending, head, sizeof(head));
	}
	*out = jn;
	return CR_OK;
}

/* The WARC files of committed parts are whole: the journal names each to
 * its end. */
static void name_whole_warcs(struct resume_ctx *c, struct journal *jn)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++) {
		struct journal_entry je;

		memset(&je, 0, sizeof(je));
		je.kind = JOURNAL_WARC;
		je.warc = c->files[i].name;
		je.warc_len = strlen(c->files[i].name);
		je.warc_end = c->files[i].size;
		journal_add(jn, &je);
		c->files[i].named = 1;
		c->files[i].end = c->files[i].size;
	}
}

/* WARC bytes no kept entry names were not committed: files no entry names
 * are removed, the others cut to their last named exchange (a partition's
 * own files; a rank's are settled by journal_warcs_scan). */
static enum cr_err cut_warcs(struct resume_ctx *c, struct journal_resume *out)
{
	enum cr_err e = CR_OK;
	size_t i;

	for (i = 0; !e && i < c->nfiles; i++) {
		struct warc_file *w = &c->files[i];
		char path[PATH_MAX + 512];

		if (w->shared)
			continue;

		layout_segment_file(&c->j->dir, c->seg, "warc", w->name, path, sizeof(path));
		if (!w->named) {
			if (unlink(path) != 0) {
				log_err("fetch", "cannot remove '%s': %s", path, strerror(errno));
				e = CR_ERR_IO;
			}
			out->warc_removed++;
			w->attempt = -1;
		} else if (w->size > w->end) {
			if (truncate(path, (off_t)w->end) != 0) {
				log_err("fetch", "cannot cut '%s': %s", path, strerror(errno));
				e = CR_ERR_IO;
			}
			out->warc_cut += w->size - w->end;
		}
	}
	return e;
}

/* The rank files of shared, as the resume of a partition sees them. */
static enum cr_err add_shared(struct resume_ctx *c, const struct journal_warcs *shared)
{
	size_t i;

	for (i = 0; shared && i < shared->n; i++) {
		struct warc_file *w;

		if (c->nfiles == c->cap) {
			size_t cap = c->cap * 2;
			struct warc_file *g = realloc(c->files, cap * sizeof(*g));

			if (!g)
				return CR_ERR_NOMEM;
			c->files = g;
			c->cap = cap;
		}
		w = &c->files[c->nfiles++];
		memset(w, 0, sizeof(*w));
		snprintf(w->name, sizeof(w->name), "%s", shared->v[i].name);
		w->attempt = shared->v[i].attempt;
		w->size = shared->v[i].size;
		w->shared = 1;
	}
	return CR_OK;
}

enum cr_err journal_resume_part(const struct job *j, int seg, uint32_t p, int with_parse,
				const struct journal_warcs *shared, journal_keep_fn keep,
				void *arg, struct journal_resume *out)
{
	struct resume_ctx c;
	char jpath[PATH_MAX], fpath[PATH_MAX], ppath[PATH_MAX], old[PATH_MAX + 8];
	enum cr_err e;
	size_t i;
	int from_parts = 0, have_journal;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.j = j;
	c.seg = seg;
	c.p = p;
	c.cap = WARC_FILES_MAX;
	c.files = calloc(c.cap, sizeof(*c.files));
	if (!c.files)
		return CR_ERR_NOMEM;
	remove_tmp(&c, "fetch");
	remove_tmp(&c, "parse");
	layout_journal(&j->dir, seg, p, jpath, sizeof(jpath));
	layout_segment_part(&j->dir, seg, "fetch", p, fpath, sizeof(fpath));
	layout_segment_part(&j->dir, seg, "parse", p, ppath, sizeof(ppath));
	e = list_warcs(&c);
	if (!e)
		e = add_shared(&c, shared);
	snprintf(old, sizeof(old), "%s.old", jpath);
	have_journal = access(jpath, F_OK) == 0 || access(old, F_OK) == 0;
	if (!e && have_journal) {
		e = resume_journal(&c, jpath, keep, arg, &out->jn, &out->kept);
	} else if (!e && recfile_exists(fpath) && (!with_parse || recfile_exists(ppath))) {
		/* An attempt committed this partition, then the phase failed
		 * elsewhere: its files are whole and stay as they are. */
		from_parts = 1;
	}
	if (!e && !have_journal)
		e = journal_open(jpath, 0, &out->jn);
	if (!e && from_parts) {
		struct hmap dropped;

		hmap_init(&dropped);
		e = read_part(&c, fpath, REC_KIND_FETCH, keep, arg, out->jn, &dropped,
			      &out->kept);
		if (!e && with_parse)
			e = read_part(&c, ppath, REC_KIND_PARSE, keep, arg, out->jn, &dropped,
				      &out->kept);
		hmap_release(&dropped);
		if (!e)
			name_whole_warcs(&c, out->jn);
	}
	if (!e)
		e = cut_warcs(&c, out);
	for (i = 0; i < c.nfiles; i++)
		if (!c.files[i].shared && c.files[i].attempt >= out->attempt)
			out->attempt = c.files[i].attempt + 1;
	if (!e)
		e = journal_sync(out->jn);
	if (e)
		journal_close(&out->jn, 0);
	free(c.files);
	return e;
}

enum cr_err journal_create(const char *path, struct journal **out)
{
	return journal_open(path, 0, out);
}

void journal_warcs_free(struct journal_warcs *w)
{
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

/* The marks journal of name's rank file that names it furthest: how much
 * of the file counts (-1: none names it). */
struct marks_ctx {
	struct journal_warcs *w;
	int64_t *mark;
};

static enum cr_err note_mark(void *arg, const struct journal_entry *je)
{
	struct marks_ctx *m = arg;
	size_t i;

	if (je->kind != JOURNAL_WARC)
		return CR_OK;
	for (i = 0; i < m->w->n; i++)
		if (strlen(m->w->v[i].name) == je->warc_len &&
		    !memcmp(m->w->v[i].name, je->warc, je->warc_len) &&
		    (int64_t)je->warc_end > m->mark[i])
			m->mark[i] = (int64_t)je->warc_end;
	return CR_OK;
}

/* The rank WARC files of the segment's folder, with their sizes (w->v). */
static enum cr_err list_rank_warcs(const struct job *j, int seg, struct journal_warcs *w,
				   int *max_attempt)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	size_t n, i;
	char **names;

	layout_segment_sub(&j->dir, seg, "warc", dir, sizeof(dir));
	names = fs_list(dir, "", "", &n);
	w->v = calloc(n ? n : 1, sizeof(*w->v));
	w->n = 0;
	for (i = 0; w->v && i < n; i++) {
		struct stat st;
		uint32_t unit;
		int by_rank, attempt;

		if (!layout_warc_unit(&j->dir, names[i], seg, &unit, &by_rank, &attempt) ||
		    strlen(names[i]) >= sizeof(w->v[0].name))
			continue;
		if (attempt > *max_attempt)
			*max_attempt = attempt;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!by_rank || stat(path, &st) != 0)
			continue;
		snprintf(w->v[w->n].name, sizeof(w->v[0].name), "%s", names[i]);
		w->v[w->n].attempt = attempt;
		w->v[w->n].size = (uint64_t)st.st_size;
		w->n++;
	}
	fs_list_free(names, n);
	return w->v ? CR_OK : CR_ERR_NOMEM;
}

/* Reads every marks journal of the segment into mark[]; the highest
 * attempt their names carry into *max_attempt. */
static enum cr_err read_marks(const struct job *j, int seg, struct journal_warcs *w,
			      int64_t *mark, int *max_attempt)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct marks_ctx m = { w, mark };
	enum cr_err e = CR_OK;
	size_t n, i;
	char **names;

	layout_segment_sub(&j->dir, seg, "fetch", dir, sizeof(dir));
	names = fs_list(dir, "marks-", ".journal", &n);
	for (i = 0; !e && i < n; i++) {
		const char *a = strstr(names[i], "-a");
		uint64_t valid;

		long k = a ? strtol(a + 2, NULL, 10) : -1;

		if (k > *max_attempt && k < 1000000)
			*max_attempt = (int)k;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		e = scan_journal(path, &valid, note_mark, &m);
	}
	fs_list_free(names, n);
	return e;
}

/* What earlier attempts' ranks staged (PREFIX-NNNNN-rRRRR...) goes. */
static void unstage_ranks(const struct job *j, int seg)
{
	char dir[PATH_MAX], pre[LAYOUT_PREFIX_MAX + 16], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *dh;

	layout_segment_sub(&j->dir, seg, "staged", dir, sizeof(dir));
	snprintf(pre, sizeof(pre), "%s-%05d-r", j->dir.warc_prefix, seg);
	if (!(dh = opendir(dir)))
		return;
	/* committed or not (NAME.tmp.PID) */
	while ((de = readdir(dh)) != NULL) {
		if (strncmp(de->d_name, pre, strlen(pre)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("fetch", "cannot remove '%s': %s", path, strerror(errno));
	}
	closedir(dh);
}

enum cr_err journal_warcs_scan(const struct job *j, int seg, int settle,
			       struct journal_warcs *out, int *max_attempt)
{
	char path[PATH_MAX + 300];
	int64_t *mark = NULL;
	enum cr_err e;
	size_t i;

	*max_attempt = -1;
	memset(out, 0, sizeof(*out));
	e = list_rank_warcs(j, seg, out, max_attempt);
	if (!e && !(mark = malloc((out->n ? out->n : 1) * sizeof(*mark))))
		e = CR_ERR_NOMEM;
	for (i = 0; !e && i < out->n; i++)
		mark[i] = -1;
	if (!e)
		e = read_marks(j, seg, out, mark, max_attempt);
	for (i = 0; !e && i < out->n; i++) {
		struct journal_warc *w = &out->v[i];
		uint64_t keep = mark[i] < 0 ? 0 : (uint64_t)mark[i];

		if (keep > w->size) {
			log_warn("fetch", "WARC file '%s' is shorter (%llu bytes) than its rank's "
				 "marks say: the URLs archived past its end are fetched again",
				 w->name, (unsigned long long)w->size);
			keep = w->size;
		}
		layout_segment_file(&j->dir, seg, "warc", w->name, path, sizeof(path));
		/* Bytes past the last mark were never named durably: cut;
		 * a file no mark names was never synced: removed. */
		if (settle && mark[i] < 0) {
			if (unlink(path) != 0 && errno != ENOENT) {
				log_err("fetch", "cannot remove '%s': %s", path, strerror(errno));
				e = CR_ERR_IO;
			}
			out->removed++;
		} else if (settle && w->size > keep) {
			if (truncate(path, (off_t)keep) != 0) {
				log_err("fetch", "cannot cut '%s': %s", path, strerror(errno));
				e = CR_ERR_IO;
			}
			out->cut += w->size - keep;
		}
		w->size = keep;
	}
	if (!e && settle)
		unstage_ranks(j, seg);
	free(mark);
	if (e)
		journal_warcs_free(out);
	return e;
}

#include "dedup/runs.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/be.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const dedup_store_kinds[DEDUP_STORES] = { "lsh", "sig" };

/*
 * The order of each store's records (dedup.c has their layout): a band
 * entry is 24 bytes compared whole, every entry kept; a signature is keyed
 * by its leading URL hash (8 bytes), the newest run's shadowing older ones.
 */
static const struct {
	size_t keylen;
	int shadow;
} store_order[DEDUP_STORES] = { { 24, 0 }, { 8, 1 } };

/* A manifest record: the run's number (u32 BE) and size in bytes (u64 BE). */
#define MANIFEST_REC 12

size_t dedup_runs_plan(const uint64_t *bytes, size_t n, size_t max_runs)
{
	uint64_t newer = 0;
	size_t j, m = 1;

	if (n == 0)
		return 0;
	if (max_runs < 1)
		max_runs = 1;
	/* The oldest run no larger than all newer ones together: from it on. */
	for (j = n - 1; j-- > 0;) {
		newer += bytes[j + 1];
		if (bytes[j] <= newer)
			m = n - j;
	}
	if (n - m + 1 > max_runs)
		m = n - max_runs + 1;
	return m;
}

void dedup_runs_path(const struct crawl_dir *d, int ver, enum dedup_store k, uint32_t p,
		     const struct dedup_run *r, char *out, size_t cap)
{
	if (r->legacy)
		layout_crawldb_store(d, ver, dedup_store_kinds[k], p, out, cap);
	else
		layout_crawldb_run(d, ver, dedup_store_kinds[k], p, r->seg, out, cap);
}

/* The size of path, or -1 when it is not there. */
static int64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

enum cr_err dedup_runs_unpack(const void *p, size_t n, struct dedup_run *out)
{
	const unsigned char *b = p;

	if (n != MANIFEST_REC)
		return CR_ERR_FORMAT;
	out->seg = (uint32_t)be_get(b, 4);
	out->bytes = be_get(b + 4, 8);
	out->legacy = 0;
	return CR_OK;
}

/* The manifest's runs: numbers rising, at most DEDUP_RUNS_CAP. */
static enum cr_err read_manifest(const char *path, struct dedup_runs *out)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e = recfile_reader_open(path, REC_KIND_RUNS, &r);

	if (e)
		return CR_ERR_FORMAT;
	out->n = 0;
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct dedup_run run;

		if (dedup_runs_unpack(data, n, &run) != CR_OK || out->n == DEDUP_RUNS_CAP)
			break;
		if (out->n && run.seg <= out->r[out->n - 1].seg)
			break;
		out->r[out->n++] = run;
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : CR_ERR_FORMAT;
}

enum cr_err dedup_runs_load(const struct crawl_dir *d, int ver, enum dedup_store k,
			    uint32_t p, struct dedup_runs *out)
{
	char path[PATH_MAX];
	struct dedup_runs rs;
	int64_t size;

	rs.n = 0;
	layout_crawldb_runs(d, ver, dedup_store_kinds[k], p, path, sizeof(path));
	if (ver > 0 && fs_exists(path)) {
		if (read_manifest(path, &rs) != CR_OK)
			return CR_ERR_FORMAT;
	} else if (ver > 0) {
		layout_crawldb_store(d, ver, dedup_store_kinds[k], p, path, sizeof(path));
		size = file_size(path);
		if (size >= 0) {
			rs.r[0].seg = 0;
			rs.r[0].bytes = (uint64_t)size;
			rs.r[0].legacy = 1;
			rs.n = 1;
		}
	}
	out->n = rs.n;
	memcpy(out->r, rs.r, rs.n * sizeof(rs.r[0]));
	return CR_OK;
}

static enum cr_err write_manifest(const struct crawl_dir *d, int ver, enum dedup_store k,
				  uint32_t p, const struct dedup_runs *rs)
{
	char path[PATH_MAX];
	struct recfile_writer *w = NULL;
	enum cr_err e;
	size_t i;

	layout_crawldb_runs(d, ver, dedup_store_kinds[k], p, path, sizeof(path));
	e = recfile_writer_open(path, REC_KIND_RUNS, 1, &w);
	for (i = 0; !e && i < rs->n; i++) {
		unsigned char b[MANIFEST_REC];

		be_put(b, rs->r[i].seg, 4);
		be_put(b + 4, rs->r[i].bytes, 8);
		e = recfile_writer_add(w, b, sizeof(b));
	}
	if (e) {
		recfile_writer_abort(&w);
		return e;
	}
	return recfile_writer_commit(&w);
}

/* ---- checking a store ---- */

/* Reads path whole through a merge cursor: checksums and order. */
static enum cr_err read_run(const char *path, enum dedup_store k)
{
	const char *paths[1] = { path };
	struct dedup_merge *m;
	const void *data;
	size_t n;
	enum cr_err e = dedup_merge_open(paths, 1, store_order[k].keylen, store_order[k].shadow,
					 &m);

	while (!e && (e = dedup_merge_next(m, &data, &n, NULL)) == CR_OK)
		;
	dedup_merge_free(&m);
	return e == CR_EOF ? CR_OK : CR_ERR_FORMAT;
}

enum cr_err dedup_runs_check(const struct crawl_dir *d, int ver, enum dedup_store k,
			     uint32_t p, int whole, char *path, size_t cap, const char **why,
			     uint64_t *files)
{
	struct dedup_runs rs;
	size_t i;
	uint64_t none = 0;

	if (!files)
		files = &none;
	layout_crawldb_runs(d, ver, dedup_store_kinds[k], p, path, cap);
	*files += fs_exists(path);
	if (dedup_runs_load(d, ver, k, p, &rs) != CR_OK) {
		*why = "damaged manifest";
		return CR_ERR_FORMAT;
	}
	for (i = 0; i < rs.n; i++) {
		int64_t size;

		dedup_runs_path(d, ver, k, p, &rs.r[i], path, cap);
		size = file_size(path);
		if (size < 0) {
			*why = "missing (its manifest names it)";
			return CR_ERR_IO;
		}
		(*files)++;
		if (!rs.r[i].legacy && (uint64_t)size != rs.r[i].bytes) {
			*why = "not the size its manifest names";
			return CR_ERR_FORMAT;
		}
		if (whole && read_run(path, k) != CR_OK) {
			*why = "damaged, or records out of order";
			return CR_ERR_FORMAT;
		}
		if (!whole && recfile_probe(path, REC_KIND_SORT, why) != CR_OK)
			return CR_ERR_FORMAT;
	}
	return CR_OK;
}

/* ---- the next version ---- */

/* Opens the merged runs r[0, n) of store k: those before newer_from in
 * version ver, the others in ver + 1. */
static enum cr_err open_runs(const struct crawl_dir *d, int ver, enum dedup_store k,
			     uint32_t p, const struct dedup_run *r, size_t n, size_t newer_from,
			     struct dedup_merge **out)
{
	char *paths = malloc((n ? n : 1) * PATH_MAX);
	const char *pp[DEDUP_RUNS_CAP];
	enum cr_err e;
	size_t i;

	if (!paths)
		return CR_ERR_NOMEM;
	for (i = 0; i < n && i < DEDUP_RUNS_CAP; i++) {
		dedup_runs_path(d, i < newer_from ? ver : ver + 1, k, p, &r[i],
				paths + i * PATH_MAX, PATH_MAX);
		pp[i] = paths + i * PATH_MAX;
	}
	e = dedup_merge_open(pp, i, store_order[k].keylen, store_order[k].shadow, out);
	free(paths);
	return e;
}

/* Merges runs first.. of rs (those before old_n in version ver, the rest
 * in ver + 1) into run seg of version ver + 1; rs ends with it. */
static enum cr_err compact(const struct crawl_dir *d, int ver, enum dedup_store k, uint32_t p,
			   struct dedup_runs *rs, size_t old_n, size_t first, uint32_t seg)
{
	char out[PATH_MAX];
	struct dedup_run merged = { seg, 0, 0 };
	struct recfile_writer *w = NULL;
	struct dedup_merge *m = NULL;
	const void *data;
	size_t n;
	int64_t size;
	enum cr_err e;

	dedup_runs_path(d, ver + 1, k, p, &merged, out, sizeof(out));
	e = open_runs(d, ver, k, p, rs->r + first, rs->n - first,
		      old_n > first ? old_n - first : 0, &m);
	/* Written beside the round's run, then renamed over it: the run stays
	 * readable through the cursor already open on it. */
	if (!e)
		e = recfile_writer_open(out, REC_KIND_SORT, 1, &w);
	while (!e && (e = dedup_merge_next(m, &data, &n, NULL)) == CR_OK)
		e = recfile_writer_add(w, data, n);
	if (e == CR_EOF)
		e = recfile_writer_commit(&w);
	recfile_writer_abort(&w);
	dedup_merge_free(&m);
	size = e ? -1 : file_size(out);
	if (size < 0) {
		log_err("dedup", "cannot merge the runs of '%s'", out);
		return e ? e : CR_ERR_IO;
	}
	merged.bytes = (uint64_t)size;
	rs->r[first] = merged;
	rs->n = first + 1;
	return CR_OK;
}

/* Links runs [0, n) of rs from version ver into ver + 1 (a single file of
 * before becomes run 0). */
static enum cr_err link_runs(const struct crawl_dir *d, int ver, enum dedup_store k,
			     uint32_t p, struct dedup_runs *rs, size_t n)
{
	char from[PATH_MAX], to[PATH_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		dedup_runs_path(d, ver, k, p, &rs->r[i], from, sizeof(from));
		rs->r[i].legacy = 0;
		dedup_runs_path(d, ver + 1, k, p, &rs->r[i], to, sizeof(to));
		if (fs_link_or_copy(from, to) != CR_OK) {
			log_err("dedup", "cannot link '%s' into the new version: %s", from,
				strerror(errno));
			return CR_ERR_IO;
		}
	}
	return CR_OK;
}

enum cr_err dedup_runs_next(const struct crawl_dir *d, int ver, enum dedup_store k,
			    uint32_t p, const struct dedup_runs *old, uint32_t seg,
			    size_t max_runs, uint64_t *written)
{
	struct dedup_runs rs = *old;
	struct dedup_run round = { seg, 0, 0 };
	uint64_t bytes[DEDUP_RUNS_CAP];
	char path[PATH_MAX];
	int64_t size;
	size_t i, m;
	enum cr_err e;

	dedup_runs_path(d, ver + 1, k, p, &round, path, sizeof(path));
	if (rs.n && rs.r[rs.n - 1].seg >= seg) {
		log_err("dedup", "the runs of version %d of '%s' reach segment %u already", ver,
			path, rs.r[rs.n - 1].seg);
		return CR_ERR_STATE;
	}
	size = file_size(path);
	if (size >= 0 && rs.n == DEDUP_RUNS_CAP) {
		log_err("dedup", "more than %d runs for '%s'", DEDUP_RUNS_CAP, path);
		return CR_ERR_LIMIT;
	}
	if (size >= 0) {
		round.bytes = (uint64_t)size;
		rs.r[rs.n++] = round;
		*written += round.bytes;
	}
	for (i = 0; i < rs.n; i++)
		bytes[i] = rs.r[i].bytes;
	m = dedup_runs_plan(bytes, rs.n, max_runs);
	e = link_runs(d, ver, k, p, &rs, m > 1 ? rs.n - m : old->n);
	if (!e && m > 1) {
		e = compact(d, ver, k, p, &rs, old->n, rs.n - m, seg);
		if (!e)
			*written += rs.r[rs.n - 1].bytes;
	}
	return e ? e : write_manifest(d, ver + 1, k, p, &rs);
}

/* ---- every file of a store ---- */

typedef int (*store_file_fn)(const char *dir, const char *name, void *arg);

/* Calls fn on each file of the store in version ver (not temporaries);
 * stops at the first nonzero return, which it returns. */
static int each_file(const struct crawl_dir *d, int ver, enum dedup_store k, uint32_t p,
		     store_file_fn fn, void *arg)
{
	char dir[PATH_MAX], stem[64];
	struct dirent *de;
	DIR *dh;
	size_t sl;
	int rc = 0;

	layout_crawldb_dir(d, ver, dir, sizeof(dir));
	layout_crawldb_store_stem(dedup_store_kinds[k], p, stem, sizeof(stem));
	sl = strlen(stem);
	dh = opendir(dir);
	while (!rc && dh && (de = readdir(dh)) != NULL)
		if (!strncmp(de->d_name, stem, sl) && de->d_name[sl] == '.' &&
		    !strstr(de->d_name, ".tmp."))
			rc = fn(dir, de->d_name, arg);
	if (dh)
		closedir(dh);
	return rc;
}

struct carry {
	const struct crawl_dir *d;
	int to;
};

static int carry_one(const char *dir, const char *name, void *arg)
{
	struct carry *c = arg;
	char from[PATH_MAX + 256], to[PATH_MAX + 256], todir[PATH_MAX];

	snprintf(from, sizeof(from), "%s/%s", dir, name);
	layout_crawldb_dir(c->d, c->to, todir, sizeof(todir));
	snprintf(to, sizeof(to), "%s/%s", todir, name);
	if (fs_link_or_copy(from, to) == CR_OK)
		return 0;
	log_err("dedup", "cannot carry '%s' into the new version", from);
	return 1;
}

enum cr_err dedup_runs_carry(const struct crawl_dir *d, int from, int to, enum dedup_store k,
			     uint32_t p)
{
	struct carry c = { d, to };

	return each_file(d, from, k, p, carry_one, &c) ? CR_ERR_IO : CR_OK;
}

static int remove_one(const char *dir, const char *name, void *arg)
{
	char path[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (unlink(path) != 0) {
		log_err("dedup", "cannot remove '%s': %s", path, strerror(errno));
		*(int *)arg = 1;
	}
	return 0;
}

int dedup_runs_remove(const struct crawl_dir *d, int ver, enum dedup_store k, uint32_t p)
{
	int failed = 0;

	each_file(d, ver, k, p, remove_one, &failed);
	return failed;
}

/* ---- the merged reader ---- */

struct merge_cursor {
	char *path;
	struct recfile_reader *r;
	const unsigned char *p;  /* the current record, borrowed from r */
	size_t n;
	int live;
	unsigned char *last;     /* the previous record's key: order is checked */
	int have_last;
};

struct dedup_merge {
	size_t n, keylen;
	int shadow;
	struct merge_cursor *c;
	size_t cur;              /* the cursor whose record was handed out */
	int pending;             /* ... and must move on before the next pick */
	unsigned char *key;      /* shadow: the key handed out last, and its file */
	size_t key_run;
	int have_key;
};

/* Moves cursor c to its next record. */
static enum cr_err cursor_next(struct dedup_merge *m, struct merge_cursor *c)
{
	const void *data;
	enum cr_err e = recfile_reader_next(c->r, &data, &c->n);

	c->live = 0;
	if (e == CR_EOF)
		return CR_OK;
	if (e)
		return CR_ERR_FORMAT;
	if (c->n < m->keylen) {
		log_err("dedup", "damaged file '%s': a record shorter than its key", c->path);
		return CR_ERR_FORMAT;
	}
	c->p = data;
	if (c->have_last && memcmp(c->last, c->p, m->keylen) > 0) {
		log_err("dedup", "damaged file '%s': records out of order", c->path);
		return CR_ERR_FORMAT;
	}
	memcpy(c->last, c->p, m->keylen);
	c->have_last = 1;
	c->live = 1;
	return CR_OK;
}

enum cr_err dedup_merge_open(const char *const *paths, size_t n, size_t keylen, int shadow,
			     struct dedup_merge **out)
{
	struct dedup_merge *m = calloc(1, sizeof(*m));
	enum cr_err e = CR_OK;
	size_t i;

	if (!m)
		return CR_ERR_NOMEM;
	m->n = n;
	m->keylen = keylen;
	m->shadow = shadow;
	m->c = calloc(n ? n : 1, sizeof(*m->c));
	m->key = malloc(keylen ? keylen : 1);
	if (!m->c || !m->key)
		e = CR_ERR_NOMEM;
	for (i = 0; !e && i < n; i++) {
		struct merge_cursor *c = &m->c[i];

		c->path = strdup(paths[i]);
		c->last = malloc(keylen ? keylen : 1);
		if (!c->path || !c->last) {
			e = CR_ERR_NOMEM;
			break;
		}
		e = recfile_reader_open(paths[i], REC_KIND_SORT, &c->r);
		if (e == CR_ERR_IO)
			log_err("dedup", "cannot read '%s': %s", paths[i], strerror(errno));
		if (!e)
			e = cursor_next(m, c);
	}
	if (e) {
		dedup_merge_free(&m);
		return e;
	}
	*out = m;
	return CR_OK;
}

enum cr_err dedup_merge_store(const struct crawl_dir *d, int ver, enum dedup_store k,
			      uint32_t p, const struct dedup_runs *rs, struct dedup_merge **out)
{
	return open_runs(d, ver, k, p, rs->r, rs->n, rs->n, out);
}

/* The cursor with the smallest key: on equal keys the newest (shadow) or
 * the oldest. n when none is live. */
static size_t pick(const struct dedup_merge *m)
{
	size_t i, best = m->n;

	for (i = 0; i < m->n; i++) {
		int c;

		if (!m->c[i].live)
			continue;
		if (best == m->n) {
			best = i;
			continue;
		}
		c = memcmp(m->c[i].p, m->c[best].p, m->keylen);
		if (c < 0 || (c == 0 && m->shadow))
			best = i;
	}
	return best;
}

enum cr_err dedup_merge_next(struct dedup_merge *m, const void **data, size_t *n, size_t *run)
{
	enum cr_err e = CR_OK;
	size_t b;

	if (m->pending) {
		m->pending = 0;
		e = cursor_next(m, &m->c[m->cur]);
	}
	for (;;) {
		if (e)
			return e;
		b = pick(m);
		if (b == m->n)
			return CR_EOF;
		if (!m->shadow || !m->have_key || b == m->key_run ||
		    memcmp(m->key, m->c[b].p, m->keylen))
			break;
		e = cursor_next(m, &m->c[b]);   /* shadowed by a newer run */
	}
	if (m->shadow) {
		memcpy(m->key, m->c[b].p, m->keylen);
		m->key_run = b;
		m->have_key = 1;
	}
	m->cur = b;
	m->pending = 1;
	*data = m->c[b].p;
	*n = m->c[b].n;
	if (run)
		*run = b;
	return CR_OK;
}

void dedup_merge_free(struct dedup_merge **mp)
{
	struct dedup_merge *m = mp ? *mp : NULL;
	size_t i;

	if (!m)
		return;
	for (i = 0; m->c && i < m->n; i++) {
		recfile_reader_free(&m->c[i].r);
		free(m->c[i].path);
		free(m->c[i].last);
	}
	free(m->c);
	free(m->key);
	free(m);
	*mp = NULL;
}

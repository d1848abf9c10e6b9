/*
 * repair.c - check --repair's mending of a crawl directory that lost part
 * of itself; see repair.h.
 */
#include "round/repair.h"
#include "crawldb/fetch_record.h"
#include "crawldb/job.h"
#include "crawldb/provenance.h"
#include "index/index.h"
#include "crawldb/state.h"
#include "store/recfile.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"
#include "warc/warc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- pure decisions ---- */

int repair_pick_version(const struct repair_version *v, size_t n)
{
	int best = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].complete && v[i].version > best)
			best = v[i].version;
	return best;
}

int repair_forget_capture(struct crawl_record *r, int64_t captured_at, int64_t now_us)
{
	if (!captured_at || r->fetched_at != captured_at)
		return 0;
	r->status = ST_UNFETCHED;
	r->http_status = 0;
	r->retries = 0;
	r->fetched_at = 0;
	r->next_fetch = now_us;
	r->digest = 0;
	r->text_digest = 0;
	r->etag = "";
	r->etag_len = 0;
	r->last_modified = 0;
	r->reason = "";
	r->reason_len = 0;
	r->dup_of = "";
	r->dup_of_len = 0;
	return 1;
}

int repair_moved(const struct repair_move *moves, size_t n, uint64_t from, uint64_t *to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (moves[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || moves[lo].from != from)
		return 0;
	*to = moves[lo].to;
	return 1;
}

/* ---- crawldb/CURRENT ---- */

/* 1 if record file path reads whole (its trailer's count and checksum). */
static int file_whole(const char *path, enum rec_kind kind)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e;

	if (recfile_reader_open(path, kind, &r) != CR_OK)
		return 0;
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK)
		;
	recfile_reader_free(&r);
	return e == CR_EOF;
}

static int version_complete(const struct crawl_dir *d, int ver)
{
	char path[PATH_MAX];
	uint32_t p;

	layout_crawldb_file(d, ver, "_FROM", path, sizeof(path));
	if (!fs_exists(path))
		return 0;
	for (p = 0; p < d->partitions; p++) {
		layout_crawldb_part(d, ver, p, path, sizeof(path));
		if (!file_whole(path, REC_KIND_CRAWLDB))
			return 0;
	}
	return 1;
}

enum cr_err repair_current(const struct crawl_dir *d, int *version)
{
	struct repair_version *v;
	char dir[PATH_MAX];
	size_t n, i, k = 0;
	char **names;
	int best;

	layout_top(d->root, "crawldb", dir, sizeof(dir));
	names = fs_list(dir, "", "", &n);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		abort();
	for (i = 0; i < n; i++) {
		char *end;
		long num = strtol(names[i], &end, 10);

		if (strlen(names[i]) != 5 || *end || num < 1)
			continue;
		v[k].version = (int)num;
		v[k++].complete = version_complete(d, (int)num);
	}
	fs_list_free(names, n);
	best = repair_pick_version(v, k);
	free(v);
	if (!best)
		return CR_ERR_STATE;
	if (layout_crawldb_commit(d, best) != CR_OK)
		return CR_ERR_IO;
	*version = best;
	return CR_OK;
}

/* ---- a WARC file's good records ---- */

/* What repairing a WARC file of a segment takes: gone, or damaged with
 * the byte ranges of its whole records (and of what precedes the first
 * record: a zstd dictionary) and, once copied, their moves. */
struct file_fix {
	int missing;
	uint64_t prefix;
	struct buf ranges;    /* struct range */
	struct buf moves;     /* struct repair_move */
};

struct range {
	uint64_t off, len;
};

/* The next place at or after from where a gzip member or a zstd frame may
 * begin; 0 if none. */
static int next_start(const unsigned char *m, uint64_t size, uint64_t from, uint64_t *at)
{
	static const unsigned char gz[] = { 0x1f, 0x8b, 0x08 }, zs[] = { 0x28, 0xb5, 0x2f, 0xfd };
	uint64_t i;

	for (i = from; i + 4 <= size; i++)
		if (!memcmp(m + i, gz, sizeof(gz)) || !memcmp(m + i, zs, sizeof(zs))) {
			*at = i;
			return 1;
		}
	return 0;
}

/* After a damaged record: the first record start past from that reads
 * whole; 1 and rec read, or 0 when none is left. */
static int resync(struct warc_reader *r, const unsigned char *m, uint64_t size, uint64_t from,
		  struct warc_record *rec)
{
	uint64_t at;

	while (next_start(m, size, from, &at)) {
		if (warc_reader_seek(r, at) == CR_OK && warc_reader_next(r, rec) == CR_OK &&
		    rec->offset == at)
			return 1;
		from = at + 1;
	}
	return 0;
}

/* Reads the WARC file at path through its damage: f gets the ranges of the
 * records that read whole; *bad the damaged stretches. CR_ERR_IO if it
 * cannot be read at all. */
static enum cr_err scan_warc(const char *path, size_t max_block, struct file_fix *f, int *bad)
{
	struct warc_reader *r;
	struct warc_record rec;
	struct range g;
	struct stat st;
	unsigned char *m = NULL;
	uint64_t end = 0;
	int fd = open(path, O_RDONLY), got;
	enum cr_err e;

	*bad = 0;
	if (fd < 0 || fstat(fd, &st) != 0 || warc_reader_open(path, max_block, &r) != CR_OK) {
		if (fd >= 0)
			close(fd);
		return CR_ERR_IO;
	}
	if (st.st_size > 0)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	for (;;) {
		e = warc_reader_next(r, &rec);
		got = e == CR_OK;
		if (e != CR_OK && e != CR_EOF) {
			(*bad)++;
			got = m && m != MAP_FAILED &&
			      resync(r, m, (uint64_t)st.st_size, end + 1, &rec);
		}
		if (!got)
			break;
		if (!f->ranges.len && !*bad)
			f->prefix = rec.offset;
		g.off = rec.offset;
		g.len = rec.length;
		buf_add(&f->ranges, &g, sizeof(g));
		end = rec.offset + rec.length;
	}
	warc_reader_free(&r);
	if (m && m != MAP_FAILED)
		munmap(m, (size_t)st.st_size);
	return CR_OK;
}

/* Copies len bytes at off of in to out; CR_ERR_IO on a failure. */
static enum cr_err copy_range(int in, FILE *out, uint64_t off, uint64_t len)
{
	unsigned char chunk[1 << 16];

	while (len) {
		size_t want = len < sizeof(chunk) ? (size_t)len : sizeof(chunk);
		ssize_t got = pread(in, chunk, want, (off_t)off);

		if (got <= 0 || fwrite(chunk, 1, (size_t)got, out) != (size_t)got)
			return CR_ERR_IO;
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return CR_OK;
}

/* Writes f's whole records of the WARC file at path to tmp, in order,
 * noting their moves. */
static enum cr_err copy_whole(const char *path, const char *tmp, struct file_fix *f)
{
	const struct range *g = (const struct range *)f->ranges.p;
	size_t i, n = f->ranges.len / sizeof(*g);
	struct repair_move mv;
	uint64_t at = f->prefix;
	int in = open(path, O_RDONLY);
	FILE *out = fopen(tmp, "w");
	enum cr_err e = in >= 0 && out ? CR_OK : CR_ERR_IO;

	if (!e && f->prefix)
		e = copy_range(in, out, 0, f->prefix);
	for (i = 0; !e && i < n; i++) {
		mv.from = g[i].off;
		mv.to = at;
		buf_add(&f->moves, &mv, sizeof(mv));
		e = copy_range(in, out, g[i].off, g[i].len);
		at += g[i].len;
	}
	if (out && (fflush(out) != 0 || fsync(fileno(out)) != 0))
		e = CR_ERR_IO;
	if (out && fclose(out) != 0)
		e = CR_ERR_IO;
	if (in >= 0)
		close(in);
	return e;
}

/* The damaged WARC file name of segment seg: its whole records replace it,
 * and it is set aside in segments/N/damaged/ (under NAME.K when a file of
 * its name is there). */
static enum cr_err salvage(const struct crawl_dir *d, int seg, const char *name,
			   struct file_fix *f)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32], dir[PATH_MAX], aside[PATH_MAX + 300];
	enum cr_err e;
	int k;

	layout_segment_file(d, seg, "warc", name, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	layout_segment_sub(d, seg, "damaged", dir, sizeof(dir));
	if ((e = fs_mkdirs(dir)) != CR_OK || (e = copy_whole(path, tmp, f)) != CR_OK) {
		unlink(tmp);
		log_err("check", "cannot write '%s': %s", tmp, strerror(errno));
		return e ? e : CR_ERR_IO;
	}
	snprintf(aside, sizeof(aside), "%s/%s", dir, name);
	for (k = 1; fs_exists(aside) && k < 1000; k++)
		snprintf(aside, sizeof(aside), "%s/%s.%d", dir, name, k);
	if (link(path, aside) != 0 || rename(tmp, path) != 0) {
		log_err("check", "cannot set '%s' aside: %s", path, strerror(errno));
		unlink(tmp);
		return CR_ERR_IO;
	}
	fs_sync_dir(dir);
	layout_segment_sub(d, seg, "warc", dir, sizeof(dir));
	fs_sync_dir(dir);
	return CR_OK;
}

/* ---- a segment's plan ---- */

static struct file_fix *fix_of(struct hmap *fixes, const char *name, size_t n)
{
	struct file_fix **slot = (struct file_fix **)hmap_put(fixes, name, n);

	if (!*slot) {
		if (!(*slot = calloc(1, sizeof(**slot))))
			abort();
		buf_init(&(*slot)->ranges);
		buf_init(&(*slot)->moves);
	}
	return *slot;
}

static void fixes_release(struct hmap *fixes)
{
	struct hmap_slot *s;
	size_t i = 0;

	while ((s = hmap_next(fixes, &i)) != NULL) {
		struct file_fix *f = s->val;

		buf_release(&f->ranges);
		buf_release(&f->moves);
		free(f);
	}
	hmap_release(fixes);
}

/* The damaged WARC files of segment seg into fixes. */
static enum cr_err find_damaged(const struct crawl_dir *d, int seg, size_t max_block,
				struct hmap *fixes)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct file_fix probe;
	size_t n, i;
	char **names;
	enum cr_err e = CR_OK;
	int bad;

	layout_segment_sub(d, seg, "warc", dir, sizeof(dir));
	names = fs_list(dir, "", "", &n);
	for (i = 0; i < n && e == CR_OK; i++) {
		if (strstr(names[i], ".tmp.") || (!strstr(names[i], ".warc.gz") &&
						   !strstr(names[i], ".warc.zst")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		memset(&probe, 0, sizeof(probe));
		buf_init(&probe.ranges);
		e = scan_warc(path, max_block, &probe, &bad);
		if (e == CR_OK && bad) {
			struct file_fix *f = fix_of(fixes, names[i], strlen(names[i]));

			f->prefix = probe.prefix;
			buf_add(&f->ranges, probe.ranges.p, probe.ranges.len);
		}
		buf_release(&probe.ranges);
	}
	fs_list_free(names, n);
	return e;
}

/* Each WARC file the outcomes of partition p name that is not there. */
static void outcome_missing(void *arg, const struct crawl_dir *d, int seg,
			    const struct fetch_record *fr)
{
	char path[PATH_MAX], name[256];

	if (!fr->warc_len || fr->warc_len >= sizeof(name))
		return;
	memcpy(name, fr->warc, fr->warc_len);
	name[fr->warc_len] = '\0';
	layout_segment_file(d, seg, "warc", name, path, sizeof(path));
	if (!fs_exists(path))
		fix_of(arg, name, fr->warc_len)->missing = 1;
}

/* Each WARC file a CDXJ file of segment seg indexes that is not there (a
 * robots.txt file names no outcome). */
static void cdxj_missing(const struct crawl_dir *d, int seg, struct hmap *fixes)
{
	char dir[PATH_MAX], path[PATH_MAX];
	size_t n, i, len;
	char **names;

	layout_segment_sub(d, seg, "cdxj", dir, sizeof(dir));
	names = fs_list(dir, "", ".cdxj", &n);
	for (i = 0; i < n; i++) {
		len = strlen(names[i]) - 5;
		names[i][len] = '\0';
		layout_segment_file(d, seg, "warc", names[i], path, sizeof(path));
		if (!fs_exists(path))
			fix_of(fixes, names[i], len)->missing = 1;
	}
	fs_list_free(names, n);
}

/* Calls fn on every fetch outcome of segment seg. */
static enum cr_err each_outcome(const struct crawl_dir *d, int seg,
				void (*fn)(void *arg, const struct crawl_dir *d, int seg,
					   const struct fetch_record *fr), void *arg)
{
	struct recfile_reader *r;
	struct fetch_record fr;
	char path[PATH_MAX];
	const void *data;
	size_t n;
	uint32_t p;
	enum cr_err e;

	for (p = 0; p < d->partitions; p++) {
		layout_segment_part(d, seg, "fetch", p, path, sizeof(path));
		if (!recfile_exists(path))
			continue;
		if (recfile_reader_open(path, REC_KIND_FETCH, &r) != CR_OK)
			return CR_ERR_FORMAT;
		while ((e = recfile_reader_next(r, &data, &n)) == CR_OK)
			if (fetch_record_unpack(data, n, &fr) == CR_OK)
				fn(arg, d, seg, &fr);
		recfile_reader_free(&r);
		if (e != CR_EOF)
			return CR_ERR_FORMAT;
	}
	return CR_OK;
}

/* ---- mending ---- */

struct mend {
	const struct crawl_dir *d;
	int64_t now;
	struct hmap lost;          /* URL -> its lost capture's time (int64_t, malloc'd) */
	struct repair_said *said;
};

static void note_lost(struct hmap *lost, const char *url, size_t n, int64_t at)
{
	int64_t **slot = (int64_t **)hmap_put(lost, url, n);

	if (!*slot) {
		if (!(*slot = malloc(sizeof(**slot))))
			abort();
		**slot = at;
	} else if (at > **slot) {
		**slot = at;
	}
}

/* An outcome naming a mended WARC file: the record's new offset, or no
 * record (its URL noted lost). 1 if fr changed. */
static int mend_one(struct mend *m, struct hmap *fixes, struct fetch_record *fr)
{
	const struct file_fix *f;
	uint64_t to;

	if (!fr->warc_len || !(f = hmap_get(fixes, fr->warc, fr->warc_len)))
		return 0;
	if (!f->missing && repair_moved((const struct repair_move *)f->moves.p,
					f->moves.len / sizeof(struct repair_move),
					fr->warc_offset, &to)) {
		fr->warc_offset = to;
		return 1;
	}
	note_lost(&m->lost, fr->rec.url, fr->rec.url_len, fr->rec.fetched_at);
	m->said->lost++;
	fr->warc = "";
	fr->warc_len = 0;
	fr->warc_offset = 0;
	return 1;
}

/* The fetch outcomes of partition p of segment seg, written again with
 * what the mended WARC files say (only when one changed). */
static enum cr_err mend_outcomes(struct mend *m, int seg, uint32_t p, struct hmap *fixes)
{
	struct recfile_reader *r;
	struct recfile_writer *w;
	struct fetch_record fr;
	struct buf packed;
	char path[PATH_MAX];
	const void *data;
	size_t n;
	int changed = 0;
	enum cr_err e;

	layout_segment_part(m->d, seg, "fetch", p, path, sizeof(path));
	if (!recfile_exists(path))
		return CR_OK;
	if (recfile_reader_open(path, REC_KIND_FETCH, &r) != CR_OK)
		return CR_ERR_FORMAT;
	if ((e = recfile_writer_open(path, REC_KIND_FETCH, 3, &w)) != CR_OK) {
		recfile_reader_free(&r);
		return e;
	}
	buf_init(&packed);
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		if (fetch_record_unpack(data, n, &fr) == CR_OK && mend_one(m, fixes, &fr)) {
			packed.len = 0;
			fetch_record_pack(&fr, &packed);
			data = packed.p;
			n = packed.len;
			changed = 1;
		}
		if ((e = recfile_writer_add(w, data, n)) != CR_OK)
			break;
	}
	recfile_reader_free(&r);
	buf_release(&packed);
	if (e != CR_EOF || !changed) {
		recfile_writer_abort(&w);
		return e == CR_EOF ? CR_OK : CR_ERR_FORMAT;
	}
	return recfile_writer_commit(&w);
}

/* Segment seg with the fixes found: damaged files salvaged, outcomes
 * mended. */
static enum cr_err mend_segment(struct mend *m, int seg, struct hmap *fixes)
{
	struct hmap_slot *s;
	size_t i = 0;
	uint32_t p;
	enum cr_err e;

	while ((s = hmap_next(fixes, &i)) != NULL) {
		struct file_fix *f = s->val;

		if (f->missing) {
			m->said->gone++;
			continue;
		}
		if ((e = salvage(m->d, seg, s->key, f)) != CR_OK)
			return e;
		m->said->salvaged++;
		m->said->kept += f->moves.len / sizeof(struct repair_move);
	}
	for (p = 0; p < m->d->partitions; p++)
		if ((e = mend_outcomes(m, seg, p, fixes)) != CR_OK)
			return e;
	return CR_OK;
}

/* ---- the CrawlDb ---- */

/* Part p of version ver written into version nv with the lost captures'
 * URLs due again. */
static enum cr_err due_part(struct mend *m, int ver, int nv, uint32_t p)
{
	struct recfile_reader *r;
	struct recfile_writer *w;
	struct crawl_record rec;
	char from[PATH_MAX], to[PATH_MAX];
	struct buf packed;
	const int64_t *at;
	const void *data;
	size_t n;
	enum cr_err e;

	layout_crawldb_part(m->d, ver, p, from, sizeof(from));
	layout_crawldb_part(m->d, nv, p, to, sizeof(to));
	if (recfile_reader_open(from, REC_KIND_CRAWLDB, &r) != CR_OK)
		return CR_ERR_FORMAT;
	if ((e = recfile_writer_open(to, REC_KIND_CRAWLDB, 3, &w)) != CR_OK) {
		recfile_reader_free(&r);
		return e;
	}
	buf_init(&packed);
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		if (crawl_record_unpack(data, n, &rec) == CR_OK &&
		    (at = hmap_get(&m->lost, rec.url, rec.url_len)) != NULL &&
		    repair_forget_capture(&rec, *at, m->now)) {
			packed.len = 0;
			crawl_record_pack(&rec, &packed);
			data = packed.p;
			n = packed.len;
			m->said->due++;
		}
		if ((e = recfile_writer_add(w, data, n)) != CR_OK)
			break;
	}
	recfile_reader_free(&r);
	buf_release(&packed);
	if (e != CR_EOF) {
		recfile_writer_abort(&w);
		return CR_ERR_FORMAT;
	}
	return recfile_writer_commit(&w);
}

/* Version ver + 1: the parts holding lost URLs written again, every other
 * file of ver linked; committed with _FROM "repair". */
static enum cr_err due_again(struct mend *m, int ver)
{
	char dir[PATH_MAX], from[PATH_MAX + 300], to[PATH_MAX + 300], part[32];
	uint8_t *has = calloc(m->d->partitions, 1);
	struct hmap_slot *s;
	size_t i = 0, n;
	char **names;
	uint32_t p;
	enum cr_err e = CR_OK;

	if (!has)
		abort();
	while ((s = hmap_next(&m->lost, &i)) != NULL)
		has[layout_partition(m->d, s->key, s->klen)] = 1;
	state_clean_version(m->d, ver + 1);
	layout_crawldb_dir(m->d, ver + 1, dir, sizeof(dir));
	e = fs_mkdirs(dir);
	for (p = 0; e == CR_OK && p < m->d->partitions; p++)
		if (has[p])
			e = due_part(m, ver, ver + 1, p);
	layout_crawldb_dir(m->d, ver, dir, sizeof(dir));
	names = fs_list(dir, "", "", &n);
	for (i = 0; e == CR_OK && i < n; i++) {
		if (!strcmp(names[i], "_FROM") || strstr(names[i], ".tmp."))
			continue;
		for (p = 0; p < m->d->partitions; p++) {
			snprintf(part, sizeof(part), "part-%05u.zst", p);
			if (has[p] && !strcmp(names[i], part))
				break;
		}
		if (p < m->d->partitions)
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, names[i]);
		layout_crawldb_file(m->d, ver + 1, names[i], to, sizeof(to));
		e = fs_link_or_copy(from, to);
	}
	fs_list_free(names, n);
	free(has);
	if (e == CR_OK)
		e = state_commit_version(m->d, ver + 1, "repair\n");
	if (e != CR_OK)
		state_clean_version(m->d, ver + 1);
	return e;
}

/* ---- the driver ---- */

/* The segments mended that were indexed, indexed again with the crawl's
 * last configuration (its provenance; the defaults without one). */
static enum cr_err index_again(const struct crawl_dir *d, const uint8_t *mended, int last)
{
	uint64_t c[IX_COUNT_] = { 0 };
	char path[PATH_MAX];
	struct job *j = calloc(1, sizeof(*j));
	enum cr_err e = CR_OK;
	int seg, ver;

	if (!j)
		abort();
	config_defaults(&j->cfg);
	if (provenance_last_config(d, path, sizeof(path)) && config_load(&j->cfg, path) != CR_OK)
		config_defaults(&j->cfg);
	j->dir = *d;
	j->nranks = 1;
	if (layout_crawldb_current(d, &ver) != CR_OK)
		ver = 0;
	for (seg = 1; e == CR_OK && seg <= last; seg++)
		if (mended[seg] && layout_phase_done(d, seg, "index"))
			e = index_segment(j, seg, ver, 0, c);
	free(j);
	return e;
}

/* 1 if a round is under way: its update is still to come, and a new
 * CrawlDb version would leave it behind. */
static int round_busy(const struct crawl_dir *d)
{
	struct round_snapshot s;
	struct round_plan p;

	state_read(d, 0, &s);
	state_next(&s, &p);
	return !s.ok || (p.step != ROUND_GENERATE && p.step != ROUND_INJECT);
}

/* The fixes of every fetched segment up to last (fixes[seg]); 1 if any. */
static int plan_all(const struct crawl_dir *d, int last, struct hmap *fixes, enum cr_err *e)
{
	struct config cfg;
	int seg, any = 0;

	config_defaults(&cfg);
	*e = CR_OK;
	for (seg = 1; *e == CR_OK && seg <= last; seg++) {
		hmap_init(&fixes[seg]);
		if (!layout_phase_done(d, seg, "fetch"))
			continue;
		*e = find_damaged(d, seg, config_warc_block_max(&cfg), &fixes[seg]);
		if (*e == CR_OK)
			*e = each_outcome(d, seg, outcome_missing, &fixes[seg]);
		cdxj_missing(d, seg, &fixes[seg]);
		any |= fixes[seg].count > 0;
	}
	return any;
}

enum cr_err repair_archive(const struct crawl_dir *d, int64_t now_us, struct repair_said *said)
{
	int last = layout_segment_last(d), seg, ver = 0;
	struct hmap *fixes = calloc((size_t)last + 1, sizeof(*fixes));
	uint8_t *mended = calloc((size_t)last + 1, 1);
	struct mend m = { d, now_us, { NULL, 0, 0 }, said };
	struct hmap_slot *s;
	size_t i = 0;
	enum cr_err e;

	if (!fixes || !mended)
		abort();
	hmap_init(&m.lost);
	if (plan_all(d, last, fixes, &e) && e == CR_OK && round_busy(d))
		e = CR_ERR_STATE;
	for (seg = 1; e == CR_OK && seg <= last; seg++)
		if (fixes[seg].count) {
			mended[seg] = 1;
			e = mend_segment(&m, seg, &fixes[seg]);
		}
	if (e == CR_OK && m.lost.count && (e = layout_crawldb_current(d, &ver)) == CR_OK &&
	    (e = due_again(&m, ver)) == CR_OK)
		said->version = ver + 1;
	if (e == CR_OK)
		e = index_again(d, mended, last);
	for (seg = 0; seg <= last; seg++)
		if (fixes[seg].slots)
			fixes_release(&fixes[seg]);
	while ((s = hmap_next(&m.lost, &i)) != NULL)
		free(s->val);
	hmap_release(&m.lost);
	free(fixes);
	free(mended);
	return e;
}

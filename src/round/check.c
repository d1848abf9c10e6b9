#include "round/check.h"
#include "round/live.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "dedup/runs.h"
#include "rank/record.h"
#include "round/repair.h"
#include "crawldb/state.h"
#include "scope/decisions.h"
#include "seen/bloom.h"
#include "seen/seen.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/json.h"
#include "warc/warc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The largest WARC block read while checking (a page and its head). */
#define CHECK_MAX_BLOCK ((size_t)1 << 31)

struct ck {
	const struct crawl_dir *d;
	const struct config *cfg;
	int repair;
	int live;              /* a job runs (CHECK_LIVE) */
	struct check_report *r;
};

static void say(struct ck *c, int fixed, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line per problem (or repair), on stderr. */
static void say(struct ck *c, int fixed, const char *fmt, ...)
{
	va_list ap;

	if (fixed)
		c->r->repaired++;
	else
		c->r->problems++;
	fputs(fixed ? "mpicrawl check: repaired: " : "mpicrawl check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Reads a record file whole; fn (may be NULL) gets each record. CR_OK,
 * CR_ERR_IO (missing) or CR_ERR_FORMAT (damaged). */
static enum cr_err read_whole(struct ck *c, const char *path, enum rec_kind kind,
			      void (*fn)(void *arg, const void *rec, size_t n), void *arg)
{
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e;

	if (!recfile_exists(path))
		return CR_ERR_IO;
	c->r->files++;
	e = recfile_reader_open(path, kind, &r);
	if (e)
		return e == CR_ERR_IO ? CR_ERR_FORMAT : e;
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK)
		if (fn)
			fn(arg, data, n);
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : CR_ERR_FORMAT;
}

/* ---- the CrawlDb ---- */

/* Version ver's stores, of every partition, removed. */
static void drop_stores(struct ck *c, int ver)
{
	uint32_t p;
	int k;

	for (p = 0; p < c->d->partitions; p++)
		for (k = 0; k < DEDUP_STORES; k++)
			if (dedup_runs_remove(c->d, ver, (enum dedup_store)k, p))
				say(c, 0, "cannot remove the files of near-duplicate store %s-%05u "
				    "of CrawlDb version %d", dedup_store_kinds[k], p, ver);
	say(c, 1, "the near-duplicate stores of CrawlDb version %d were dropped: the crawl "
	    "goes on, near-duplicates of pages fetched before are no longer recognised", ver);
}

/* 1 if every part of version ver reads whole. */
static int parts_whole(struct ck *c, int ver)
{
	char path[PATH_MAX];
	uint32_t p;

	for (p = 0; p < c->d->partitions; p++) {
		layout_crawldb_part(c->d, ver, p, path, sizeof(path));
		if (read_whole(c, path, REC_KIND_CRAWLDB, NULL, NULL) != CR_OK)
			return 0;
	}
	return 1;
}

/* A damaged version ver goes back to ver - 1, and the update that made it
 * is redone: only when ver - 1 is whole and no segment came after. 1 when
 * done. */
static int roll_back(struct ck *c, const struct round_snapshot *s)
{
	char path[PATH_MAX];
	int ver = s->version;

	if (ver < 2 || !s->version_from || s->seg != s->version_from || !parts_whole(c, ver - 1)) {
		say(c, 0, "CrawlDb version %d cannot be repaired here (no whole version before "
		    "it, or a segment was generated from it): restore it from a backup", ver);
		return 0;
	}
	layout_segment_sub(c->d, s->seg, "_SUCCESS.update", path, sizeof(path));
	if (fs_exists(path) && unlink(path) != 0) {
		say(c, 0, "cannot remove '%s'", path);
		return 0;
	}
	layout_segment_sub(c->d, s->seg, "_SUCCESS.index", path, sizeof(path));
	if (fs_exists(path) && unlink(path) != 0) {
		say(c, 0, "cannot remove '%s'", path);
		return 0;
	}
	if (layout_crawldb_commit(c->d, ver - 1) != CR_OK) {
		say(c, 0, "cannot move CURRENT back to version %d", ver - 1);
		return 0;
	}
	state_clean_version(c->d, ver);
	say(c, 1, "CrawlDb version %d was damaged: back to version %d; the next crawl redoes "
	    "the update of segment %d", ver, ver - 1, s->seg);
	return 1;
}

/* While a job runs: 1 if CrawlDb version ver, which was current, is
 * removed (said): two commits were made while it was read. */
static int moved_on(struct ck *c, int ver)
{
	int now;

	if (!c->live || !round_version_gone(c->d, ver, &now))
		return 0;
	fprintf(stderr, "mpicrawl check: the job committed CrawlDb version %d and removed "
		"version %d while it was read: check again to read version %d\n", now, ver, now);
	return 1;
}

/* Partition p of version s->version: its part, seen-set and stores, the
 * damaged ones counted into bad[0] (parts) and bad[1] (stores). 0, or -1
 * when a job removed the version meanwhile (said: nothing more is). */
static int check_partition(struct ck *c, const struct round_snapshot *s, uint32_t p,
			   uint64_t bad[2])
{
	char path[PATH_MAX];
	struct bloom b;
	enum cr_err e;
	int part_ok, k;

	layout_crawldb_part(c->d, s->version, p, path, sizeof(path));
	part_ok = read_whole(c, path, REC_KIND_CRAWLDB, NULL, NULL) == CR_OK;
	if (!part_ok && moved_on(c, s->version))
		return -1;
	if (!part_ok) {
		say(c, 0, "damaged or missing CrawlDb part '%s'", path);
		bad[0]++;
	}
	layout_seen_part(c->d, s->version, p, path, sizeof(path));
	e = fs_exists(path) ? bloom_load(&b, path) : CR_OK;
	if (e == CR_OK && fs_exists(path))
		bloom_release(&b);
	if (e && moved_on(c, s->version))
		return -1;
	if (e && c->repair && part_ok && seen_rebuild(c->d, c->cfg, s->version, p) == CR_OK)
		say(c, 1, "seen-set '%s' rebuilt from its CrawlDb part", path);
	else if (e)
		say(c, 0, "damaged seen-set '%s' (%s)", path, error_str(e));
	for (k = 0; k < DEDUP_STORES; k++) {
		const char *why;

		if (dedup_runs_check(c->d, s->version, (enum dedup_store)k, p, 1, path,
				     sizeof(path), &why, &c->r->files) == CR_OK)
			continue;
		if (moved_on(c, s->version))
			return -1;
		say(c, 0, "damaged near-duplicate store '%s': %s", path, why);
		bad[1]++;
	}
	return 0;
}

static void check_crawldb(struct ck *c, const struct round_snapshot *s)
{
	uint64_t bad[2] = { 0, 0 };   /* parts, stores */
	uint32_t p;

	for (p = 0; p < c->d->partitions; p++)
		if (check_partition(c, s, p, bad) < 0)
			return;
	/* What a repair mends is no longer a problem left. */
	if (bad[1] && c->repair) {
		drop_stores(c, s->version);
		c->r->problems -= bad[1];
	}
	if (bad[0] && c->repair && roll_back(c, s))
		c->r->problems -= bad[0];
}

/* ---- segments ---- */

/* What a WARC file holds: response and revisit records by offset. */
struct warc_index {
	struct hmap at;          /* "offset" -> target URI (malloc'd) */
	int read;                /* 0: not read yet; 1: read; -1: missing or damaged */
};

static void index_free(struct hmap *files)
{
	struct hmap_slot *s, *t;
	size_t i = 0, k;

	while ((s = hmap_next(files, &i)) != NULL) {
		struct warc_index *w = s->val;

		k = 0;
		while ((t = hmap_next(&w->at, &k)) != NULL)
			free(t->val);
		hmap_release(&w->at);
		free(w);
	}
	hmap_release(files);
}

/* The records of WARC file name of segment seg, read once. */
static struct warc_index *warc_of(struct ck *c, struct hmap *files, int seg, const char *name)
{
	struct warc_index **slot = (struct warc_index **)hmap_put(files, name, strlen(name));
	struct warc_reader *r;
	struct warc_record rec;
	char path[PATH_MAX];
	enum cr_err e;

	if (*slot)
		return *slot;
	*slot = calloc(1, sizeof(**slot));
	if (!*slot)
		abort();
	hmap_init(&(*slot)->at);
	layout_segment_file(c->d, seg, "warc", name, path, sizeof(path));
	if (warc_reader_open(path, CHECK_MAX_BLOCK, &r) != CR_OK) {
		(*slot)->read = -1;
		say(c, 0, "WARC file '%s' is missing: the responses it held are lost from the "
		    "archive (--repair has their URLs fetched again)", path);
		return *slot;
	}
	c->r->files++;
	while ((e = warc_reader_next(r, &rec)) == CR_OK) {
		char type[32], uri[URL_MAX_LEN + 64], key[24];

		warc_record_field(&rec, "WARC-Type", type, sizeof(type));
		if (strcmp(type, "response") && strcmp(type, "revisit"))
			continue;
		warc_record_field(&rec, "WARC-Target-URI", uri, sizeof(uri));
		snprintf(key, sizeof(key), "%llu", (unsigned long long)rec.offset);
		*hmap_put(&(*slot)->at, key, strlen(key)) = strdup(uri);
	}
	warc_reader_free(&r);
	(*slot)->read = e == CR_EOF ? 1 : -1;
	if (e != CR_EOF)
		say(c, 0, "WARC file '%s' is damaged (%s): --repair keeps its whole records and "
		    "has the URLs of the others fetched again", path, error_str(e));
	return *slot;
}

/* 1 if WARC file name of seg holds a response for url at offset. */
static int archived(struct ck *c, struct hmap *files, int seg, const char *name,
		    uint64_t offset, const char *url)
{
	struct warc_index *w = warc_of(c, files, seg, name);
	char key[24];
	const char *at;

	snprintf(key, sizeof(key), "%llu", (unsigned long long)offset);
	c->r->records++;
	at = w->read > 0 ? hmap_get(&w->at, key, strlen(key)) : NULL;
	return at && !strcmp(at, url);
}

struct outcomes {
	struct ck *c;
	struct hmap *files;
	int seg;
	uint64_t missing;
	char example[URL_MAX_LEN + 1];
};

/* A fetch outcome that names a WARC record: the record is there. */
static void check_outcome(void *arg, const void *rec, size_t n)
{
	struct outcomes *o = arg;
	struct fetch_record fr;
	char name[256], url[URL_MAX_LEN + 1];

	if (fetch_record_unpack(rec, n, &fr) != CR_OK || !fr.warc_len ||
	    fr.warc_len >= sizeof(name) || fr.rec.url_len > URL_MAX_LEN)
		return;
	memcpy(name, fr.warc, fr.warc_len);
	name[fr.warc_len] = '\0';
	memcpy(url, fr.rec.url, fr.rec.url_len);
	url[fr.rec.url_len] = '\0';
	if (archived(o->c, o->files, o->seg, name, fr.warc_offset, url))
		return;
	if (!o->missing++)
		snprintf(o->example, sizeof(o->example), "%s", url);
}

/* A CDXJ filename's last part: the WARC file's name (CDXJ lines name it
 * from the crawl directory, segments/N/warc/NAME). */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Every CDXJ line of segment seg names a record that is there. */
static void check_cdxj(struct ck *c, struct hmap *files, int seg)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *dh;

	layout_segment_sub(c->d, seg, "cdxj", dir, sizeof(dir));
	dh = opendir(dir);
	while (dh && (de = readdir(dh)) != NULL) {
		char *line = NULL, url[URL_MAX_LEN + 1], name[256], off[32];
		size_t cap = 0, bad = 0;
		FILE *fp;

		if (!strstr(de->d_name, ".cdxj") || round_name_is_temp(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fp = fopen(path, "r");
		c->r->files += fp != NULL;
		while (fp && getline(&line, &cap, fp) > 0) {
			const char *j = strchr(line, '{');

			if (!j || json_get_str(j, strlen(j), "url", url, sizeof(url)) ||
			    json_get_str(j, strlen(j), "filename", name, sizeof(name)) ||
			    json_get_str(j, strlen(j), "offset", off, sizeof(off)) ||
			    !archived(c, files, seg, base_name(name), strtoull(off, NULL, 10),
				      url))
				bad++;
		}
		if (bad)
			say(c, 0, "'%s': %zu lines name no record (index it again: mpicrawl index "
			    "--dir %s --segment %d)", path, bad, c->d->root, seg);
		free(line);
		if (fp)
			fclose(fp);
	}
	if (dh)
		closedir(dh);
}

/* A damaged fetch list of a segment not fetched yet: a plan, made again
 * from the CrawlDb - by the next crawl, once --repair removed the
 * segment's generate mark, when no fetch of it began (no journal, no WARC
 * file); else the way out is said. 1 if said here. */
static int fetchlist_lost(struct ck *c, int seg, const struct round_snapshot *s,
			  const char *path)
{
	char dir[PATH_MAX], mark[PATH_MAX];
	size_t n, i;
	char **v;
	int began = 0;

	if (s->phases & ROUND_FETCHED)
		return 0;
	for (i = 0; i < c->d->partitions && !began; i++) {
		layout_journal(c->d, seg, (uint32_t)i, dir, sizeof(dir));
		began = fs_exists(dir);
	}
	layout_segment_sub(c->d, seg, "warc", dir, sizeof(dir));
	v = fs_list(dir, "", "", &n);
	fs_list_free(v, n);
	began = began || n > 0;
	layout_segment_sub(c->d, seg, "_SUCCESS.generate", mark, sizeof(mark));
	if (!began && c->repair && unlink(mark) == 0) {
		say(c, 1, "damaged fetch list '%s' of segment %d, not fetched yet: the next crawl "
		    "generates the segment again", path, seg);
		return 1;
	}
	if (!fs_exists(mark))
		return 1;   /* repaired already (another partition's) */
	say(c, 0, "damaged fetch list '%s' of segment %d, not fetched yet: %s", path, seg,
	    began ? "its fetch began; remove the segment's directory to plan it again (what "
		    "it fetched is lost)" : "--repair has the next crawl generate it again");
	return 1;
}

/* A journal of partition p beside segment seg's committed fetch: left by
 * a job killed between the mark and their removal - unless a job runs
 * and seg is its last segment, whose journals it removes just after the
 * mark. */
static void journal_left(struct ck *c, int seg, uint32_t p)
{
	char path[PATH_MAX];

	layout_journal(c->d, seg, p, path, sizeof(path));
	if (!fs_exists(path) || (c->live && seg == layout_segment_last(c->d)))
		return;
	if (c->repair && unlink(path) == 0)
		say(c, 1, "'%s' left beside a committed fetch: removed", path);
	else
		say(c, 0, "'%s' left beside a committed fetch", path);
}

/* A segment's record files as far as its phases went, and its archive. */
static void check_segment(struct ck *c, int seg)
{
	struct round_snapshot s;
	struct hmap files;
	struct outcomes o = { c, &files, seg, 0, "" };
	char path[PATH_MAX];
	uint32_t p;

	state_read(c->d, seg, &s);
	hmap_init(&files);
	for (p = 0; p < c->d->partitions; p++) {
		if (round_sub_committed(s.phases, "fetchlist")) {
			layout_segment_part(c->d, seg, "fetchlist", p, path, sizeof(path));
			if (read_whole(c, path, REC_KIND_FETCHLIST, NULL, NULL) != CR_OK &&
			    !fetchlist_lost(c, seg, &s, path))
				say(c, 0, "damaged or missing fetch list '%s'", path);
		}
		if (round_sub_committed(s.phases, "fetch")) {
			layout_segment_part(c->d, seg, "fetch", p, path, sizeof(path));
			if (read_whole(c, path, REC_KIND_FETCH, check_outcome, &o) != CR_OK)
				say(c, 0, "damaged or missing fetch outcomes '%s'", path);
			journal_left(c, seg, p);
		}
		if (round_sub_committed(s.phases, "parse")) {
			layout_segment_part(c->d, seg, "parse", p, path, sizeof(path));
			if (read_whole(c, path, REC_KIND_PARSE, NULL, NULL) != CR_OK)
				say(c, 0, "damaged or missing parse data '%s'", path);
		}
	}
	if (o.missing)
		say(c, 0, "segment %d: %llu fetched URLs have no response record where their "
		    "outcome says, e.g. %s", seg, (unsigned long long)o.missing, o.example);
	if (round_sub_committed(s.phases, "cdxj"))
		check_cdxj(c, &files, seg);
	index_free(&files);
}

/* ---- the rest ---- */

/* Writes an empty record file at path: 1 when done. */
static int empty_records(const char *path, enum rec_kind kind)
{
	struct recfile_writer *w;

	return recfile_writer_open(path, kind, 1, &w) == CR_OK &&
	       recfile_writer_commit(&w) == CR_OK;
}

static void check_robots(struct ck *c)
{
	char path[PATH_MAX];
	int ver = layout_robots_last(c->d);
	uint32_t p;
	int early;

	/* The cache generate reads, and the early answers only the fetcher
	 * reads (fetch/origins.h). */
	for (p = 0; ver > 0 && p < c->d->partitions; p++) {
		for (early = 0; early < 2; early++) {
			(early ? layout_robots_early : layout_robots_part)(c->d, ver, p, path,
									  sizeof(path));
			if (read_whole(c, path, REC_KIND_ROBOTS, NULL, NULL) != CR_ERR_FORMAT)
				continue;
			/* packed (store/pack.h): an empty file of its own name
			 * supersedes the damaged member */
			if (c->repair &&
			    (unlink(path) == 0 || empty_records(path, REC_KIND_ROBOTS)))
				say(c, 1, "damaged robots cache '%s' removed: robots.txt is "
				    "asked again", path);
			else
				say(c, 0, "damaged robots cache '%s'", path);
		}
	}
}

/* Counts the records of a rank part that do not unpack. */
static void rank_bad(void *arg, const void *rec, size_t n)
{
	struct rank_record r;

	if (rank_record_unpack(rec, n, &r) != CR_OK)
		(*(uint64_t *)arg)++;
}

/* What the last `mpicrawl rank` wrote (generate.order pagerank, hostrank):
 * derived, written whole again by the next rank, so --repair removes a
 * damaged part; until then generate orders its URLs by cash. */
static void check_ranks(struct ck *c)
{
	char path[PATH_MAX];
	uint32_t p;

	for (p = 0; p < c->d->partitions; p++) {
		uint64_t bad = 0;
		enum cr_err e;

		rank_part_path(c->d, p, path, sizeof(path));
		e = read_whole(c, path, REC_KIND_RANK, rank_bad, &bad);
		if (e == CR_ERR_IO || (e == CR_OK && !bad))
			continue;
		if (!c->repair)
			say(c, 0, "damaged rank part '%s' (--repair removes it; 'mpicrawl rank' "
			    "writes it again)", path);
		else if (unlink(path) == 0)
			say(c, 1, "damaged rank part '%s' removed: its URLs go by cash until the "
			    "next 'mpicrawl rank'", path);
		else
			say(c, 0, "damaged rank part '%s': cannot remove it: %s", path,
			    strerror(errno));
	}
}

/* The seeds of every inject up to version: the scope is built from them,
 * so a damaged one is reported, never removed. */
static void check_seeds(struct ck *c, int version)
{
	char path[PATH_MAX];
	int v;

	for (v = 1; v <= version; v++) {
		layout_seeds(c->d, v, path, sizeof(path));
		if (read_whole(c, path, REC_KIND_SEEDS, NULL, NULL) == CR_ERR_FORMAT)
			say(c, 0, "damaged seeds file '%s': the scope needs it; move it away and "
			    "inject the seed file again", path);
	}
}

/* A segment's decision log, decompressed whole (its zstd checksums). */
static void check_decisions(struct ck *c, int seg)
{
	FILE *null = fopen("/dev/null", "w");
	struct round_snapshot s;
	uint64_t lines;

	state_read(c->d, seg, &s);
	if (null && decisions_print(c->d, seg, round_decision_kinds(s.phases), null, &lines) ==
		    CR_ERR_FORMAT)
		say(c, 0, "segment %d: a damaged decision log (named above); it only reports, "
		    "nothing reads it back", seg);
	if (null)
		fclose(null);
}

/* A missing or damaged crawldb/CURRENT: with repair it names the newest
 * whole version again. 1 if the directory can be checked on. */
static int check_current(struct ck *c)
{
	int ver;

	if (!c->repair) {
		say(c, 0, "crawldb/CURRENT is missing or damaged (--repair writes the number of "
		    "the newest whole CrawlDb version into it)");
		return 0;
	}
	if (repair_current(c->d, &ver) != CR_OK) {
		say(c, 0, "crawldb/CURRENT is missing or damaged, and no CrawlDb version is "
		    "whole: restore the crawl directory from a backup");
		return 0;
	}
	say(c, 1, "crawldb/CURRENT names CrawlDb version %d again, the newest whole one", ver);
	return 1;
}

/* With repair: damaged and missing WARC files mended first (repair.h), so
 * that the check after finds what is left. */
static void check_archive(struct ck *c)
{
	struct repair_said rs;
	enum cr_err e;

	memset(&rs, 0, sizeof(rs));
	e = repair_archive(c->d, clock_now_us(), &rs);
	if (rs.salvaged)
		say(c, 1, "%llu damaged WARC files rewritten with their %llu whole records; the "
		    "damaged files are kept in segments/NNNNN/damaged/",
		    (unsigned long long)rs.salvaged, (unsigned long long)rs.kept);
	if (rs.lost)
		say(c, 1, "%llu fetch outcomes name no WARC record any more (%llu WARC files "
		    "missing); %llu of their URLs are due again in CrawlDb version %d",
		    (unsigned long long)rs.lost, (unsigned long long)rs.gone,
		    (unsigned long long)rs.due, rs.version);
	else if (rs.gone)
		say(c, 1, "%llu missing WARC files (named by no fetch outcome) dropped from the "
		    "index", (unsigned long long)rs.gone);
	if (e == CR_ERR_STATE)
		say(c, 0, "WARC files are damaged or missing, but a round is under way: run "
		    "the crawl to finish it, then 'mpicrawl check --repair' again");
	else if (e != CR_OK)
		say(c, 0, "the repair of the archive failed (%s): the file is named above",
		    error_str(e));
}

enum cr_err check_run(const struct crawl_dir *d, const struct config *cfg,
		      enum check_mode mode, struct check_report *r)
{
	struct ck c = { d, cfg, mode == CHECK_REPAIR, mode == CHECK_LIVE, r };
	int repair = c.repair;
	struct round_snapshot s;
	int seg;

	memset(r, 0, sizeof(*r));
	state_read(d, 0, &s);
	if (!s.ok && !check_current(&c))
		return CR_OK;
	if (repair)
		check_archive(&c);
	state_read(d, 0, &s);   /* as the repairs left it */
	if (s.version > 0)
		check_crawldb(&c, &s);
	for (seg = 1; seg <= s.seg; seg++) {
		char dir[PATH_MAX];

		layout_segment_dir(d, seg, dir, sizeof(dir));
		if (fs_exists(dir)) {
			check_segment(&c, seg);
			check_decisions(&c, seg);
		}
	}
	check_robots(&c);
	check_ranks(&c);
	check_seeds(&c, s.version);
	if (repair)
		state_clean_tmp(d);
	return CR_OK;
}

/*
 * test_journal.c - the fetch journal (fetch/journal.h) in a temporary crawl
 * directory: an entry packs and reads back, and a short or damaged one does
 * not; journal_resume_part after a clean end keeps every entry in order
 * (outcomes counted, WARC-only entries not passed on), cuts each WARC file
 * to the end of its last journaled exchange, removes the files no entry
 * names and names the next attempt; after a torn last entry (the journal
 * cut at every byte of it, and inside its header), a damaged entry in the
 * middle, an empty journal, a WARC file missing or short, an interrupted
 * rewrite (.old), or with no journal but committed part files. Also what
 * the header promises of ownership: journal_add copies, journal_close drops
 * what was not synced, the keep callback's error ends the resume.
 */
#include "crawldb/fetch_record.h"
#include "crawldb/parse_record.h"
#include "fetch/journal.h"
#include "store/recfile.h"
#include "test.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#define SEG 1
#define KEPT_MAX 32

static char root[64];
static struct job job;

/* WARC files of partition 0 (attempt 0) and of others. */
#define W_PAGES "TEST-00001-00000-host.warc.gz"
#define W_ROBOTS "TEST-00001-00000-host-robots.warc.gz"
#define W_DIAG "TEST-00001-00000-host-diagnostics.warc.gz"
#define W_R1 "TEST-00001-00000-r1-host.warc.zst"
#define W_OTHER "TEST-00001-00001-host.warc.gz"
#define W_NOTES "TEST-00001-00000-notes.txt"

/* What a resume passed to keep, in order. */
struct kept {
	int n, fail_at;
	int kind[KEPT_MAX];
	char fetch[KEPT_MAX][48], parse[KEPT_MAX][48];   /* "-" for NULL */
};

static enum cr_err keep(void *arg, int kind, const void *fetch, size_t fetch_len,
			const void *parse, size_t parse_len)
{
	struct kept *k = arg;

	if (k->n == KEPT_MAX || ++k->n == k->fail_at)
		return CR_ERR_FORMAT;
	k->kind[k->n - 1] = kind;
	snprintf(k->fetch[k->n - 1], 48, "%.*s", fetch ? (int)fetch_len : 1,
		 fetch ? (const char *)fetch : "-");
	snprintf(k->parse[k->n - 1], 48, "%.*s", parse ? (int)parse_len : 1,
		 parse ? (const char *)parse : "-");
	return CR_OK;
}

static void path_in(const char *sub, const char *name, char *out, size_t cap)
{
	layout_segment_file(&job.dir, SEG, sub, name, out, cap);
}

static void make_file(const char *sub, const char *name, size_t size)
{
	char path[PATH_MAX], *b = malloc(size + 1);

	memset(b, 'w', size);
	path_in(sub, name, path, sizeof(path));
	CHECK(test_spit(path, b, size) == 0, "write %s", path);
	free(b);
}

/* A WARC file's size, or -1 when it is gone. */
static long warc_size(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	path_in("warc", name, path, sizeof(path));
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void journal_path(uint32_t p, char *out, size_t cap)
{
	layout_journal(&job.dir, SEG, p, out, cap);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* An empty segment with its warc, fetch and parse folders. */
static void reset(void)
{
	static const char *const subs[] = { "warc", "fetch", "parse" };
	char path[PATH_MAX];
	size_t i;

	layout_top(root, "segments", path, sizeof(path));
	CHECK(fs_remove_tree(path) == CR_OK, "clean segments");
	for (i = 0; i < 3; i++) {
		layout_segment_sub(&job.dir, SEG, subs[i], path, sizeof(path));
		CHECK(fs_mkdirs(path) == CR_OK, "mkdir %s", path);
	}
}

static struct journal_entry entry(int kind, const char *warc, uint64_t end, const char *fetch,
				  const char *parse)
{
	struct journal_entry e = { kind, warc, strlen(warc), end, fetch, strlen(fetch),
				   parse, strlen(parse) };

	return e;
}

/* The journal of one attempt's fetch of partition 0. */
static const struct {
	int kind;
	const char *warc;
	uint64_t end;
	const char *fetch, *parse;
} entries[] = {
	{ JOURNAL_OUTCOME, W_PAGES, 100, "f1", "p1" },
	{ JOURNAL_FOLLOW, "", 0, "link1", "bands1.." },
	{ JOURNAL_WARC, W_ROBOTS, 50, "", "" },
	{ JOURNAL_OUTCOME, "", 0, "f2", "" },
	{ JOURNAL_HANDOFF, "", 0, "req1", "\x01" },
	{ JOURNAL_ROBOTS, W_ROBOTS, 120, "answer1", "" },
	{ JOURNAL_OUTCOME, W_PAGES, 250, "f3", "p3" },
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

/* The files the first attempt wrote, and its journal of the first n
 * entries (synced). */
static void first_attempt(size_t n)
{
	struct journal_resume r;
	struct kept k = { 0 };
	size_t i;

	reset();
	CHECK(journal_resume_part(&job, SEG, 0, 1, NULL, keep, &k, &r) == CR_OK && r.jn,
	      "a first attempt opens its journal");
	CHECK(r.attempt == 0 && r.kept == 0 && k.n == 0, "nothing to keep: attempt %d kept %llu",
	      r.attempt, (unsigned long long)r.kept);
	make_file("warc", W_PAGES, 400);
	make_file("warc", W_ROBOTS, 200);
	make_file("warc", W_DIAG, 80);
	make_file("warc", W_OTHER, 90);
	make_file("warc", W_NOTES, 10);
	for (i = 0; i < n; i++) {
		struct journal_entry e = entry(entries[i].kind, entries[i].warc, entries[i].end,
					       entries[i].fetch, entries[i].parse);

		journal_add(r.jn, &e);
	}
	CHECK(journal_sync(r.jn) == CR_OK, "sync");
	journal_close(&r.jn, 0);
	CHECK(r.jn == NULL, "closed");
}

/* keep saw entries want[0..n) of the table, in order. */
static void check_kept(const char *what, const struct kept *k, const int *want, int n)
{
	int i, bad = 0;

	for (i = 0; i < n && i < k->n; i++) {
		int e = want[i];
		const char *f = *entries[e].fetch ? entries[e].fetch : "-";
		const char *p = *entries[e].parse ? entries[e].parse : "-";

		if (k->kind[i] != entries[e].kind || strcmp(k->fetch[i], f) ||
		    strcmp(k->parse[i], p)) {
			bad++;
			printf("# %s: kept %d is kind %d '%s' '%s', want entry %d\n", what, i,
			       k->kind[i], k->fetch[i], k->parse[i], e);
		}
	}
	CHECK(k->n == n && !bad, "%s: %d kept (%d not as written), want %d", what, k->n, bad, n);
}

/* A resume of partition 0; its journal closed again. */
static enum cr_err resume(struct kept *k, struct journal_resume *r)
{
	enum cr_err e = journal_resume_part(&job, SEG, 0, 1, NULL, keep, k, r);

	journal_close(&r->jn, 0);
	return e;
}

static void test_clean_end(void)
{
	static const int all[] = { 0, 1, 3, 4, 5, 6 };
	struct journal_resume r;
	struct kept k = { 0 };
	struct journal_entry e;
	char jpath[PATH_MAX];

	first_attempt(NENTRIES);
	CHECK(resume(&k, &r) == CR_OK, "resume");
	check_kept("a clean end", &k, all, 6);
	CHECK(r.kept == 3 && r.attempt == 1, "3 outcomes kept, next attempt 1: %llu, %d",
	      (unsigned long long)r.kept, r.attempt);
	CHECK(warc_size(W_PAGES) == 250 && warc_size(W_ROBOTS) == 120,
	      "WARC files cut to their last journaled exchange: %ld %ld", warc_size(W_PAGES),
	      warc_size(W_ROBOTS));
	CHECK(r.warc_cut == 150 + 80 && r.warc_removed == 1 && warc_size(W_DIAG) == -1,
	      "the file no entry names removed: cut %llu removed %d",
	      (unsigned long long)r.warc_cut, r.warc_removed);
	CHECK(warc_size(W_OTHER) == 90 && warc_size(W_NOTES) == 10,
	      "another partition's files and other names untouched");
	/* the second attempt journals after the first one's entries */
	memset(&k, 0, sizeof(k));
	CHECK(journal_resume_part(&job, SEG, 0, 1, NULL, keep, &k, &r) == CR_OK, "attempt 1");
	make_file("warc", W_R1, 300);
	e = entry(JOURNAL_OUTCOME, W_R1, 300, "f4", "p4");
	journal_add(r.jn, &e);
	CHECK(journal_sync(r.jn) == CR_OK, "sync");
	journal_close(&r.jn, 0);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK, "resume after attempt 1");
	CHECK(k.n == 7 && !strcmp(k.fetch[6], "f4") && !strcmp(k.parse[6], "p4") &&
	      r.kept == 4 && r.attempt == 2, "both attempts' entries: %d kept, %llu outcomes, "
	      "attempt %d", k.n, (unsigned long long)r.kept, r.attempt);
	CHECK(r.warc_cut == 0 && r.warc_removed == 0 && warc_size(W_R1) == 300,
	      "nothing more to cut");
	journal_path(0, jpath, sizeof(jpath));
	CHECK(file_size(jpath) > 16, "the journal stays");
}

/* The journal of the whole table, and the length of its last entry. */
static void whole_journal(struct buf *out, size_t *last)
{
	char jpath[PATH_MAX];
	struct journal_entry e = entry(entries[NENTRIES - 1].kind, entries[NENTRIES - 1].warc,
				       entries[NENTRIES - 1].end, entries[NENTRIES - 1].fetch,
				       entries[NENTRIES - 1].parse);
	struct buf b;

	first_attempt(NENTRIES);
	journal_path(0, jpath, sizeof(jpath));
	CHECK(test_slurp(jpath, out) == 0, "read the journal");
	buf_init(&b);
	journal_entry_pack(&e, &b);
	*last = b.len;
	buf_release(&b);
}

/* The journal replaced by bytes, the WARC files as the attempt left them. */
static void scene(const void *journal, size_t n)
{
	char jpath[PATH_MAX];

	first_attempt(0);
	journal_path(0, jpath, sizeof(jpath));
	CHECK(test_spit(jpath, journal, n) == 0, "write the journal");
}

static void test_torn(void)
{
	static const int but_last[] = { 0, 1, 3, 4, 5 };
	struct buf full;
	size_t last, cut, bad = 0, bad_size = 0;
	char jpath[PATH_MAX];

	buf_init(&full);
	whole_journal(&full, &last);
	journal_path(0, jpath, sizeof(jpath));
	for (cut = full.len - last; cut < full.len; cut++) {
		struct journal_resume r;
		struct kept k = { 0 };
		int saved = test_quiet_on();

		scene(full.p, cut);
		bad += resume(&k, &r) != CR_OK || k.n != 5 || r.kept != 2 ||
		       warc_size(W_PAGES) != 100 || warc_size(W_ROBOTS) != 120;
		bad_size += file_size(jpath) != (long)(full.len - last);
		test_quiet_off(saved);
		if (cut == full.len - 1)
			check_kept("the last entry torn", &k, but_last, 5);
	}
	CHECK(!bad, "a torn last entry: %zu of %zu cuts not as they should", bad, last);
	CHECK(!bad_size, "a torn last entry is cut from the journal: %zu cuts not", bad_size);
	for (cut = 0; cut < 16; cut++) {
		struct journal_resume r;
		struct kept k = { 0 };

		scene(full.p, cut);
		bad += resume(&k, &r) != CR_OK || k.n || r.kept || r.attempt ||
		       r.warc_removed != 3 || warc_size(W_PAGES) != -1 || file_size(jpath) != 16;
	}
	CHECK(!bad, "a journal cut in its header (or empty): nothing kept, every file of the "
	      "partition removed, a fresh journal");
	buf_release(&full);
}

static void test_damaged(void)
{
	static const int before[] = { 0, 1 };
	struct buf full, b;
	struct journal_resume r;
	struct kept k = { 0 };
	size_t at = 16, i;
	char jpath[PATH_MAX];

	buf_init(&full);
	buf_init(&b);
	whole_journal(&full, &at);
	journal_path(0, jpath, sizeof(jpath));
	at = 16;
	for (i = 0; i < 3; i++) {
		struct journal_entry e = entry(entries[i].kind, entries[i].warc, entries[i].end,
					       entries[i].fetch, entries[i].parse);

		b.len = 0;
		journal_entry_pack(&e, &b);
		at += b.len;
	}
	/* the fourth entry's payload damaged: it and all after it are cut */
	full.p[at + 14] ^= 0x20;
	scene(full.p, full.len);
	CHECK(resume(&k, &r) == CR_OK, "resume");
	check_kept("a damaged fourth entry", &k, before, 2);
	CHECK(r.kept == 1 && file_size(jpath) == (long)at && warc_size(W_PAGES) == 100 &&
	      warc_size(W_ROBOTS) == 50, "what follows it cut: journal %ld of %zu, WARC %ld %ld",
	      file_size(jpath), at, warc_size(W_PAGES), warc_size(W_ROBOTS));
	/* its length field damaged instead */
	full.p[at + 14] ^= 0x20;
	full.p[at + 3] = 0x7f;
	scene(full.p, full.len);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK && k.n == 2 && file_size(jpath) == (long)at,
	      "an entry longer than any: cut there (%d kept)", k.n);
	/* the header's magic damaged: nothing was journaled */
	full.p[at + 3] = 0;
	full.p[2] ^= 1;
	scene(full.p, full.len);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK && k.n == 0 && file_size(jpath) == 16 &&
	      warc_size(W_PAGES) == -1, "a damaged header: nothing kept (%d)", k.n);
	buf_release(&full);
	buf_release(&b);
}

/* The entries of the journal of partition 0 as written. */
static int count_entries(void)
{
	char jpath[PATH_MAX];
	struct buf b;
	size_t off = 16, used;
	struct journal_entry e;
	int n = 0;

	buf_init(&b);
	journal_path(0, jpath, sizeof(jpath));
	if (test_slurp(jpath, &b) == 0)
		while (off < b.len && journal_entry_unpack(b.p + off, b.len - off, &e, &used) ==
		       CR_OK) {
			off += used;
			n++;
		}
	if (off != b.len)
		n = -1;
	buf_release(&b);
	return n;
}

static void test_warc_gone(void)
{
	static const int no_robots[] = { 0, 1, 3, 4, 6 }, no_last[] = { 0, 1, 3, 4, 5 };
	struct journal_resume r;
	struct kept k = { 0 };
	char path[PATH_MAX], jpath[PATH_MAX], old[PATH_MAX + 8];
	struct buf full;
	size_t last;
	int saved;

	journal_path(0, jpath, sizeof(jpath));
	snprintf(old, sizeof(old), "%s.old", jpath);
	/* the robots series is gone: its entries are dropped, the journal
	 * rewritten with the whole ones only */
	first_attempt(NENTRIES);
	path_in("warc", W_ROBOTS, path, sizeof(path));
	unlink(path);
	saved = test_quiet_on();
	CHECK(resume(&k, &r) == CR_OK, "resume");
	test_quiet_off(saved);
	check_kept("a missing WARC file", &k, no_robots, 5);
	CHECK(r.kept == 3 && count_entries() == 5 && file_size(old) == -1,
	      "the journal holds the 5 whole entries: %d", count_entries());
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK, "again");
	check_kept("resumed again", &k, no_robots, 5);
	/* the pages file is shorter than the last entry says */
	first_attempt(NENTRIES);
	path_in("warc", W_PAGES, path, sizeof(path));
	CHECK(truncate(path, 200) == 0, "cut the pages file");
	memset(&k, 0, sizeof(k));
	saved = test_quiet_on();
	CHECK(resume(&k, &r) == CR_OK, "a short WARC file: its URLs fetched again, no error");
	test_quiet_off(saved);
	check_kept("a short WARC file", &k, no_last, 5);
	CHECK(r.kept == 2 && warc_size(W_PAGES) == 100 && count_entries() == 6,
	      "cut to the last whole exchange: %ld", warc_size(W_PAGES));
	/* a rewrite interrupted: the old journal is taken up again */
	buf_init(&full);
	whole_journal(&full, &last);
	CHECK(test_spit(old, full.p, full.len) == 0 && test_spit(jpath, full.p, 30) == 0,
	      "an old journal and a part of its copy");
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK && k.n == 6 && r.kept == 3 && file_size(old) == -1 &&
	      file_size(jpath) == (long)full.len, "the .old journal taken up again: %d kept",
	      k.n);
	buf_release(&full);
}

/* Committed fetch and parse part files of partition 0 with records of the
 * URLs a, b (no WARC) and c (in a WARC file that is gone). */
static void write_parts(int with_parse)
{
	static const char *const urls[] = { "http://a/", "http://b/", "http://c/" };
	static const char *const warcs[] = { W_PAGES, "", "TEST-00001-00000-gone.warc.gz" };
	struct recfile_writer *w;
	struct buf b;
	char path[PATH_MAX];
	int i;

	buf_init(&b);
	layout_segment_part(&job.dir, SEG, "fetch", 0, path, sizeof(path));
	CHECK(recfile_writer_open(path, REC_KIND_FETCH, 1, &w) == CR_OK, "open");
	for (i = 0; i < 3; i++) {
		struct fetch_record f;

		memset(&f, 0, sizeof(f));
		f.rec.url = urls[i];
		f.rec.url_len = strlen(urls[i]);
		f.reason = f.location = f.content_type = f.charset = "";
		f.warc = warcs[i];
		f.warc_len = strlen(warcs[i]);
		f.warc_offset = 10;
		b.len = 0;
		fetch_record_pack(&f, &b);
		CHECK(recfile_writer_add(w, b.p, b.len) == CR_OK, "add");
	}
	CHECK(recfile_writer_commit(&w) == CR_OK, "commit");
	layout_segment_part(&job.dir, SEG, "parse", 0, path, sizeof(path));
	CHECK(with_parse ? recfile_writer_open(path, REC_KIND_PARSE, 1, &w) == CR_OK : 1, "open");
	for (i = 0; with_parse && i < 3; i += 2) {
		struct parse_record pr;

		memset(&pr, 0, sizeof(pr));
		pr.url = urls[i];
		pr.url_len = strlen(urls[i]);
		b.len = 0;
		parse_record_pack(&pr, NULL, 0, &b);
		CHECK(recfile_writer_add(w, b.p, b.len) == CR_OK, "add");
	}
	CHECK(with_parse ? recfile_writer_commit(&w) == CR_OK : 1, "commit");
	buf_release(&b);
}

/* The URL of kept record i (fetch or parse: both begin with it). */
static int kept_url(const struct kept *k, int i, const char *url)
{
	const char *s = strcmp(k->fetch[i], "-") ? k->fetch[i] : k->parse[i];

	return strstr(s, url) != NULL;
}

static void test_from_parts(void)
{
	struct journal_resume r;
	struct kept k = { 0 };
	char jpath[PATH_MAX], path[PATH_MAX];
	int saved;

	/* an attempt committed the partition, then the phase failed: no
	 * journal, the part files whole */
	first_attempt(0);
	journal_path(0, jpath, sizeof(jpath));
	unlink(jpath);
	write_parts(1);
	saved = test_quiet_on();
	CHECK(resume(&k, &r) == CR_OK, "resume from part files");
	test_quiet_off(saved);
	CHECK(k.n == 3 && r.kept == 2 && kept_url(&k, 0, "http://a/") &&
	      kept_url(&k, 1, "http://b/") && kept_url(&k, 2, "http://a/") &&
	      !strcmp(k.fetch[2], "-"), "a, b and a's parse kept; c (its WARC file gone) and "
	      "its parse not: %d kept, %llu outcomes", k.n, (unsigned long long)r.kept);
	CHECK(warc_size(W_PAGES) == 400 && warc_size(W_DIAG) == 80 && r.warc_cut == 0 &&
	      !r.warc_removed && r.attempt == 1, "the files stay whole; next attempt %d",
	      r.attempt);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK && k.n == 3 && kept_url(&k, 1, "http://b/") &&
	      !strcmp(k.fetch[2], "-"), "then from the journal it wrote: the same");
	/* the fetch part alone where parse records are written: not whole */
	first_attempt(0);
	unlink(jpath);
	write_parts(0);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK && k.n == 0 && warc_size(W_PAGES) == -1,
	      "a fetch part without its parse part: nothing kept (%d)", k.n);
	/* uncommitted record files go, another partition's stay */
	first_attempt(NENTRIES);
	make_file("fetch", "part-00000.zst.tmp.123", 5);
	make_file("parse", "part-00000.zst.tmp.9", 5);
	make_file("fetch", "part-00001.zst.tmp.5", 5);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK, "resume");
	path_in("fetch", "part-00000.zst.tmp.123", path, sizeof(path));
	CHECK(file_size(path) == -1, "an uncommitted fetch part removed");
	path_in("parse", "part-00000.zst.tmp.9", path, sizeof(path));
	CHECK(file_size(path) == -1, "an uncommitted parse part removed");
	path_in("fetch", "part-00001.zst.tmp.5", path, sizeof(path));
	CHECK(file_size(path) == 5, "another partition's stays");
}

static void test_ownership(void)
{
	struct journal_resume r;
	struct kept k = { 0 };
	struct journal *none = NULL;
	struct journal_entry e;
	char f[8] = "mine", w[64];

	first_attempt(2);
	CHECK(journal_resume_part(&job, SEG, 0, 1, NULL, keep, &k, &r) == CR_OK, "open");
	make_file("warc", W_PAGES, 400);   /* the attempt writes on */
	snprintf(w, sizeof(w), "%s", W_PAGES);
	e = entry(JOURNAL_OUTCOME, w, 300, f, "");
	CHECK(!journal_pending(r.jn), "nothing pending after a resume");
	journal_add(r.jn, &e);
	memcpy(f, "XXXX", 4);
	w[0] = 'Z';
	CHECK(journal_pending(r.jn) && !journal_pending(NULL), "pending");
	CHECK(journal_sync(r.jn) == CR_OK && !journal_pending(r.jn), "synced");
	e = entry(JOURNAL_OUTCOME, W_PAGES, 310, "lost", "");
	journal_add(r.jn, &e);
	journal_close(&r.jn, 0);
	journal_close(&r.jn, 0);
	journal_close(NULL, 0);
	journal_close(&none, 1);
	memset(&k, 0, sizeof(k));
	CHECK(resume(&k, &r) == CR_OK && k.n == 3 && !strcmp(k.fetch[2], "mine") &&
	      warc_size(W_PAGES) == 300, "journal_add copied the entry; the one not synced is "
	      "dropped (%d kept, pages %ld)", k.n, warc_size(W_PAGES));
	memset(&k, 0, sizeof(k));
	k.fail_at = 2;
	CHECK(journal_resume_part(&job, SEG, 0, 1, NULL, keep, &k, &r) == CR_ERR_FORMAT && !r.jn,
	      "keep's error ends the resume, no journal left open");
}

static void test_entries(void)
{
	struct journal_entry e = entry(JOURNAL_ROBOTS, W_ROBOTS, 123456789, "answer", "x"), d;
	struct buf b;
	size_t used = 0, i, eof = 0, format = 0;

	buf_init(&b);
	journal_entry_pack(&e, &b);
	CHECK(journal_entry_unpack(b.p, b.len, &d, &used) == CR_OK && used == b.len &&
	      d.kind == JOURNAL_ROBOTS && d.warc_len == strlen(W_ROBOTS) &&
	      !memcmp(d.warc, W_ROBOTS, d.warc_len) && d.warc_end == 123456789 &&
	      d.fetch_len == 6 && !memcmp(d.fetch, "answer", 6) && d.parse_len == 1,
	      "an entry reads back");
	for (i = 0; i < b.len; i++)
		eof += journal_entry_unpack(b.p, i, &d, &used) != CR_EOF;
	CHECK(!eof, "%zu short prefixes not CR_EOF", eof);
	for (i = 4; i < b.len; i++) {
		b.p[i] ^= 0x01;
		format += journal_entry_unpack(b.p, b.len, &d, &used) != CR_ERR_FORMAT;
		b.p[i] ^= 0x01;
	}
	CHECK(!format, "%zu damaged bytes not CR_ERR_FORMAT", format);
	b.len = 0;
	e.kind = JOURNAL_ROBOTS + 1;
	journal_entry_pack(&e, &b);
	CHECK(journal_entry_unpack(b.p, b.len, &d, &used) == CR_ERR_FORMAT, "an unknown kind");
	b.len = 0;
	e.kind = 0;
	journal_entry_pack(&e, &b);
	CHECK(journal_entry_unpack(b.p, b.len, &d, &used) == CR_ERR_FORMAT, "kind 0");
	buf_release(&b);
}

int main(void)
{
	if (test_scratch("test_journal", root, sizeof(root)) != 0) {
		perror("mkdtemp");
		return 1;
	}
	config_defaults(&job.cfg);
	snprintf(job.dir.root, sizeof(job.dir.root), "%s", root);
	snprintf(job.dir.warc_prefix, sizeof(job.dir.warc_prefix), "TEST");
	job.dir.partitions = 2;
	job.nranks = 1;
	test_entries();
	test_clean_end();
	test_torn();
	test_damaged();
	test_warc_gone();
	test_from_parts();
	test_ownership();
	CHECK(fs_remove_tree(root) == CR_OK, "remove %s", root);
	TEST_DONE();
}

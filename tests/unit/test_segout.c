/*
 * test_segout.c - what a fetch phase writes (fetch/segout.h), in a
 * temporary crawl directory, as rank 0 of 2 (owning partitions 0 and 2 of
 * 3). A clean attempt: each series' WARC file (the rank's, TEST-00001-r0000)
 * holds its exchanges in order
 * at the offsets segout_archive named, with a metadata record after each
 * page; segout_commit puts the fetch and parse records and the staged
 * index records in place under their committed names (an empty fetch file
 * for an owned partition with nothing, none for another rank's), leaves no
 * temporary file and keeps the journal. An attempt that stops without
 * commit, or is killed (a child that _exits): the next one keeps what was
 * synced - outcomes, followed links, robots.txt answers, passed to the
 * keep callbacks and written again - cuts the WARC bytes after the rank's
 * last mark, removes what was staged or left uncommitted, and writes to
 * -a1 files. A WARC file
 * lost before the commit: nothing of the partition is committed, and the
 * error stays.
 */
#include "crawldb/parse_record.h"
#include "fetch/journal.h"
#include "fetch/segout.h"
#include "index/stage.h"
#include "store/recfile.h"
#include "test.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define SEG 1
#define T0 1790000000000000LL

static char root[64];
static struct job job;

static const char req[] = "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n";
static const char head_ok[] = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
static const char head_404[] = "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n";
static const char head_robots[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";

/* What the keep callbacks of a resume saw. */
struct seen {
	int kept, followed, robots;
	char urls[16][64];     /* kept outcomes, then "L:" followed links */
	int n;
	unsigned nb, handoff;
};

static void note(struct seen *s, const char *pre, const char *url, size_t len)
{
	if (s->n < 16)
		snprintf(s->urls[s->n++], 64, "%s%.*s", pre, (int)len, url);
}

static void on_kept(void *arg, const struct fetch_record *fr)
{
	struct seen *s = arg;

	s->kept++;
	note(s, "", fr->rec.url, fr->rec.url_len);
}

static void on_followed(void *arg, uint32_t p, const struct crawl_record *rec,
			const uint64_t *bands, unsigned nb, unsigned handoff)
{
	struct seen *s = arg;

	s->followed++;
	s->nb = nb;
	s->handoff = handoff;
	note(s, p == 0 && (!nb || bands[0] == 77) ? "L:" : "?:", rec->url, rec->url_len);
}

static enum cr_err on_robots(void *arg, uint32_t p, const void *answer, size_t n)
{
	struct seen *s = arg;

	s->robots++;
	note(s, p == 0 ? "R:" : "?:", answer, n);
	return CR_OK;
}

static void path_in(const char *sub, const char *name, char *out, size_t cap)
{
	layout_segment_file(&job.dir, SEG, sub, name, out, cap);
}

static long size_of(const char *sub, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	path_in(sub, name, path, sizeof(path));
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* How many names in segments/1/SUB contain part (NULL: any). */
static int count_in(const char *sub, const char *part)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *dh;
	int n = 0;

	layout_segment_sub(&job.dir, SEG, sub, dir, sizeof(dir));
	if (!(dh = opendir(dir)))
		return 0;
	while ((de = readdir(dh)) != NULL)
		n += de->d_name[0] != '.' && (!part || strstr(de->d_name, part));
	closedir(dh);
	return n;
}

static void fresh_segment(void)
{
	char path[PATH_MAX];

	layout_top(root, "segments", path, sizeof(path));
	CHECK(fs_remove_tree(path) == CR_OK, "clean");
}

static enum cr_err open_resume(struct segout **s, struct seen *sn, uint64_t *kept,
			       uint64_t *cut)
{
	struct segout_keep k = { on_kept, on_followed, on_robots, sn };
	struct journal_warcs prior;
	int max = -1;
	/* as the fetch phase does: earlier attempts settled, then open */
	enum cr_err e = journal_warcs_scan(&job, SEG, 1, &prior, &max);

	*kept = 0;
	*cut = prior.cut;
	if (!e)
		e = segout_open(&job, SEG, 1, max + 1, &prior, s);

	if (!e)
		e = segout_resume(*s, 0, &k, kept, cut);
	if (!e)
		e = segout_resume(*s, 2, &k, kept, cut);
	return e;
}

/* Archives a page (and its metadata) in partition 0's series k and writes
 * its outcome; name gets its WARC file, *off the response's offset. */
static enum cr_err page(struct segout *s, enum segout_series k, const char *url,
			const char *head, char *name, uint64_t *off)
{
	static const char body[] = "<html><title>t</title><a href=/x>x</a></html>";
	struct warc_exchange x;
	struct fetch_record fr;
	struct parse_record pr;
	struct segout_meta m = { url, T0, 12, 0, NULL, 0, NULL };
	const char *links[] = { "http://a.example/x" };
	const char *wname;
	struct buf pb;
	enum cr_err e;

	memset(&x, 0, sizeof(x));
	x.target_uri = url;
	x.date_us = T0;
	x.request = req;
	x.request_len = strlen(req);
	x.resp_head = head;
	x.resp_head_len = strlen(head);
	x.body = body;
	x.body_len = strlen(body);
	e = segout_archive(s, 0, k, &x, &wname, off);
	if (e)
		return e;
	snprintf(name, 256, "%s", wname);
	memset(&pr, 0, sizeof(pr));
	pr.url = url;
	pr.url_len = strlen(url);
	buf_init(&pb);
	parse_record_pack(&pr, links, 1, &pb);
	m.parse = pb.p;
	m.parse_len = pb.len;
	e = segout_metadata(s, 0, k, &m);
	if (!e)
		e = segout_text(s, 0, NULL, 0);
	memset(&fr, 0, sizeof(fr));
	fr.rec.url = url;
	fr.rec.url_len = strlen(url);
	fr.rec.status = ST_FETCHED;
	fr.rec.http_status = k == SEGOUT_PAGES ? 200 : 404;
	fr.reason = fr.location = fr.content_type = fr.charset = "";
	fr.warc = name;
	fr.warc_len = strlen(name);
	fr.warc_offset = *off;
	if (!e)
		e = segout_outcome(s, 0, &fr, pb.p, pb.len, k);
	buf_release(&pb);
	return e;
}

/* The URLs of the response records of a WARC file and their offsets, and
 * how many metadata records it holds. */
static int read_warc(const char *name, char urls[][64], uint64_t *offs, int max, int *meta)
{
	char path[PATH_MAX];
	struct warc_reader *r;
	struct warc_record rec;
	int n = 0;

	*meta = 0;
	path_in("warc", name, path, sizeof(path));
	if (warc_reader_open(path, 1 << 20, &r) != CR_OK)
		return -1;
	while (warc_reader_next(r, &rec) == CR_OK) {
		const char *t = memmem(rec.head, rec.head_len, "WARC-Target-URI: ", 17);
		const char *type = memmem(rec.head, rec.head_len, "WARC-Type: ", 11);

		if (!type)
			continue;
		*meta += !strncmp(type + 11, "metadata", 8) && t;
		if (strncmp(type + 11, "response", 8) || !t || n == max)
			continue;
		t += 17;
		snprintf(urls[n], 64, "%.*s", (int)strcspn(t, "\r\n"), t);
		offs[n++] = rec.offset;
	}
	warc_reader_free(&r);
	return n;
}

/* The URLs in a committed fetch part. */
static int read_fetch(uint32_t p, char urls[][64], int max)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *d;
	size_t n;
	int i = 0;

	layout_segment_part(&job.dir, SEG, "fetch", p, path, sizeof(path));
	if (recfile_reader_open(path, REC_KIND_FETCH, &r) != CR_OK)
		return -1;
	while (recfile_reader_next(r, &d, &n) == CR_OK) {
		struct fetch_record fr;

		if (fetch_record_unpack(d, n, &fr) == CR_OK && i < max)
			snprintf(urls[i++], 64, "%.*s", (int)fr.rec.url_len, fr.rec.url);
	}
	recfile_reader_free(&r);
	return i;
}

/* The kinds of a staged file's records, as a string ("FCXC..."). */
static void read_staged(const char *name, char *kinds, size_t cap)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *d;
	size_t n, i = 0;

	kinds[0] = '\0';
	path_in("staged", name, path, sizeof(path));
	if (recfile_reader_open(path, REC_KIND_STAGE, &r) != CR_OK)
		return;
	while (recfile_reader_next(r, &d, &n) == CR_OK && i + 1 < cap) {
		struct index_stage_rec sr;

		kinds[i++] = index_stage_unpack(d, n, &sr) == CR_OK ? (char)sr.kind : '?';
	}
	kinds[i] = '\0';
	recfile_reader_free(&r);
}

static void test_clean(void)
{
	char pages[256], pages2[256], diag[256], urls[8][64], jpath[PATH_MAX], kinds[32];
	uint64_t off[3], offs[8], kept, cut;
	struct segout *s = NULL;
	struct seen sn = { 0 };
	struct warc_exchange x;
	const char *rname;
	uint64_t roff;
	int n, meta;

	fresh_segment();
	CHECK(open_resume(&s, &sn, &kept, &cut) == CR_OK && !kept && !cut && !sn.n,
	      "a first attempt keeps nothing");
	CHECK(count_in("staged", NULL) == 0 && size_of("parse", ".") >= 0 &&
	      size_of("staged", ".") >= 0, "the folders made");
	CHECK(page(s, SEGOUT_PAGES, "http://a.example/1", head_ok, pages, &off[0]) == CR_OK &&
	      page(s, SEGOUT_DIAGNOSTICS, "http://a.example/2", head_404, diag, &off[1]) ==
	      CR_OK && page(s, SEGOUT_PAGES, "http://a.example/3", head_ok, pages2, &off[2]) ==
	      CR_OK, "archived");
	memset(&x, 0, sizeof(x));
	x.target_uri = "http://a.example/robots.txt";
	x.date_us = T0;
	x.request = req;
	x.request_len = strlen(req);
	x.resp_head = head_robots;
	x.resp_head_len = strlen(head_robots);
	CHECK(segout_archive(s, 0, SEGOUT_ROBOTS, &x, &rname, &roff) == CR_OK &&
	      strstr(rname, "-robots.warc.gz"), "robots.txt archived in '%s'", rname);
	segout_robots_answer(s, 0, 1, "answer", 6);
	CHECK(!strcmp(pages, pages2) && strcmp(pages, diag) && strstr(diag, "-diagnostics") &&
	      !strncmp(pages, "TEST-00001-r0000-00000-", 23) &&
	      strstr(pages, ".warc.gz"), "series files: '%s' '%s'", pages, diag);
	CHECK(segout_sync(s) == CR_OK && segout_commit(s) == CR_OK, "commit");
	segout_free(&s);
	segout_free(&s);
	n = read_warc(pages, urls, offs, 8, &meta);
	CHECK(n == 2 && !strcmp(urls[0], "http://a.example/1") &&
	      !strcmp(urls[1], "http://a.example/3") && offs[0] == off[0] && offs[1] == off[2] &&
	      meta >= 2, "the pages file: %d responses at the offsets named, %d metadata", n,
	      meta);
	n = read_warc(diag, urls, offs, 8, &meta);
	CHECK(n == 1 && offs[0] == off[1] && meta == 1, "the diagnostics file: %d", n);
	n = read_fetch(0, urls, 8);
	CHECK(n == 3 && !strcmp(urls[1], "http://a.example/2"), "fetch part of 0: %d", n);
	CHECK(read_fetch(2, urls, 8) == 0, "an owned partition with nothing: an empty part");
	CHECK(read_fetch(1, urls, 8) == -1, "another rank's partition: none");
	CHECK(size_of("parse", "part-00000.zst") > 0, "parse part committed");
	read_staged("TEST-00001-r0000.zst", kinds, sizeof(kinds));
	CHECK(!strcmp(kinds, "FCXCX"), "staged for the pages series: '%s'", kinds);
	read_staged("TEST-00001-r0000-diagnostics.zst", kinds, sizeof(kinds));
	CHECK(!strcmp(kinds, "FC"), "staged for the diagnostics: '%s'", kinds);
	CHECK(count_in("fetch", ".tmp.") + count_in("parse", ".tmp.") +
	      count_in("staged", ".tmp.") == 0, "no temporary file left");
	layout_journal(&job.dir, SEG, 0, jpath, sizeof(jpath));
	CHECK(access(jpath, F_OK) == 0, "the journal stays after the commit");
}

/* Attempt 0: a, b synced (b followed a link), then c archived but not
 * synced; then stopped (segout_free) or killed. */
static void attempt0(int kill)
{
	struct crawl_record link;
	uint64_t off, band = 77, kept, cut;
	struct segout *s = NULL;
	struct seen sn = { 0 };
	char name[256];
	pid_t pid;
	int st = -1;

	fresh_segment();
	fflush(NULL);
	pid = kill ? fork() : 0;
	if (pid == 0) {
		int ok = open_resume(&s, &sn, &kept, &cut) == CR_OK &&
			 page(s, SEGOUT_PAGES, "http://a.example/a", head_ok, name, &off) ==
			 CR_OK;

		memset(&link, 0, sizeof(link));
		link.url = "http://a.example/followed";
		link.url_len = strlen(link.url);
		/* a's entry made durable by the sync thread */
		ok = ok && segout_sync_async(s) == CR_OK;
		segout_followed(s, 0, &link, &band, 1);
		segout_robots_answer(s, 0, 0, "answer-a", 8);
		ok = ok && page(s, SEGOUT_PAGES, "http://a.example/b", head_ok, name, &off) ==
			   CR_OK && segout_sync(s) == CR_OK &&
		     page(s, SEGOUT_PAGES, "http://a.example/c", head_ok, name, &off) == CR_OK;
		if (kill)
			_exit(ok ? 0 : 1);
		CHECK(ok, "attempt 0");
		segout_free(&s);
		return;
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "attempt 0 in a child, killed after its sync");
}

static void test_resume(int kill)
{
	const char *how = kill ? "killed" : "stopped";
	char urls[8][64], name[256], first[256] = "";
	uint64_t offs[8], off, kept, cut;
	struct segout *s = NULL;
	struct seen sn = { 0 };
	int n, meta;
	long before;

	attempt0(kill);
	CHECK(count_in("warc", "-a1-") == 0 && count_in("warc", "TEST-00001-r0000-") == 1,
	      "%s: one WARC file", how);
	{
		char dir[PATH_MAX];
		struct dirent *de;
		DIR *dh;

		layout_segment_sub(&job.dir, SEG, "warc", dir, sizeof(dir));
		if ((dh = opendir(dir)) != NULL) {
			while ((de = readdir(dh)) != NULL)
				if (de->d_name[0] != '.')
					snprintf(first, sizeof(first), "%s", de->d_name);
			closedir(dh);
		}
	}
	before = size_of("warc", first);
	CHECK(!kill || count_in("fetch", ".tmp.") + count_in("staged", ".tmp.") >= 2,
	      "%s: the child left its uncommitted files", how);
	CHECK(open_resume(&s, &sn, &kept, &cut) == CR_OK, "%s: resume", how);
	CHECK(kept == 2 && sn.kept == 2 && !strcmp(sn.urls[0], "http://a.example/a") &&
	      !strcmp(sn.urls[1], "L:http://a.example/followed") &&
	      !strcmp(sn.urls[2], "R:answer-a") && !strcmp(sn.urls[3], "http://a.example/b") &&
	      sn.n == 4 && sn.nb == 1 && sn.handoff == 0,
	      "%s: a, its followed link, the answer and b kept in order (%d: %s %s %s %s)", how,
	      sn.n, sn.urls[0], sn.urls[1], sn.urls[2], sn.urls[3]);
	/* (a killed writer may not have written c's bytes out at all) */
	CHECK((kill || cut > 0) && size_of("warc", first) == before - (long)cut,
	      "%s: c's exchange cut: %llu of %ld", how, (unsigned long long)cut, before);
	CHECK(count_in("fetch", ".tmp.") == 1 && count_in("parse", ".tmp.") == 1 &&
	      count_in("staged", "TEST-00001-r0000") == 0,
	      "%s: attempt 0's uncommitted and staged files gone (this one's parts: %d %d)", how,
	      count_in("fetch", ".tmp."), count_in("parse", ".tmp."));
	CHECK(page(s, SEGOUT_PAGES, "http://a.example/d", head_ok, name, &off) == CR_OK &&
	      !strncmp(name, "TEST-00001-r0000-a1-00000-", 26), "%s: attempt 1 writes '%s'", how,
	      name);
	CHECK(segout_sync(s) == CR_OK && segout_commit(s) == CR_OK, "%s: commit", how);
	segout_free(&s);
	n = read_fetch(0, urls, 8);
	CHECK(n == 3 && !strcmp(urls[0], "http://a.example/a") &&
	      !strcmp(urls[1], "http://a.example/b") && !strcmp(urls[2], "http://a.example/d"),
	      "%s: the committed part: a, b, d (%d)", how, n);
	n = read_warc(first, urls, offs, 8, &meta);
	CHECK(n == 2 && !strcmp(urls[1], "http://a.example/b") && size_of("warc", first) ==
	      before - (long)cut, "%s: attempt 0's file, as cut: %d responses", how, n);
}

static void test_unstage(void)
{
	struct segout *s = NULL;
	struct seen sn = { 0 };
	uint64_t kept = 0, cut = 0;
	char path[PATH_MAX];

	/* the segment committed, then the phase failed elsewhere: what the
	 * rank staged goes (the index step reads its WARC files back), and of
	 * an older crawl's per-partition staged files those of the partitions
	 * resumed */
	test_clean();
	path_in("staged", "TEST-00001-00001.zst", path, sizeof(path));
	CHECK(test_spit(path, "x", 1) == 0, "an older staged file of partition 1 (rank 1's)");
	path_in("staged", "TEST-00001-00000.zst", path, sizeof(path));
	CHECK(test_spit(path, "x", 1) == 0, "an older staged file of partition 0");
	CHECK(count_in("staged", "TEST-00001-r0000") == 3, "staged files of rank 0");
	CHECK(open_resume(&s, &sn, &kept, &cut) == CR_OK && kept == 3, "resume: %llu",
	      (unsigned long long)kept);
	CHECK(count_in("staged", "TEST-00001-r0000") == 0 &&
	      count_in("staged", "TEST-00001-00000") == 0 &&
	      count_in("staged", "TEST-00001-00001") == 1, "rank 0's and partition 0's staged "
	      "files gone, rank 1's partition's kept");
	segout_free(&s);
}

static void test_lost_warc(void)
{
	struct segout *s = NULL;
	struct seen sn = { 0 };
	uint64_t kept, cut, off;
	char name[256], path[PATH_MAX], urls[4][64];
	int saved;

	fresh_segment();
	CHECK(open_resume(&s, &sn, &kept, &cut) == CR_OK &&
	      page(s, SEGOUT_PAGES, "http://a.example/a", head_ok, name, &off) == CR_OK &&
	      segout_sync(s) == CR_OK, "archived");
	path_in("warc", name, path, sizeof(path));
	CHECK(unlink(path) == 0, "the WARC file removed under the fetch");
	saved = test_quiet_on();
	CHECK(segout_commit(s) == CR_ERR_IO, "not committed");
	CHECK(page(s, SEGOUT_PAGES, "http://a.example/b", head_ok, name, &off) == CR_ERR_IO &&
	      segout_sync(s) == CR_ERR_IO, "the error stays");
	test_quiet_off(saved);
	segout_free(&s);
	CHECK(read_fetch(0, urls, 4) == -1 && count_in("fetch", ".tmp.") == 0,
	      "no fetch part of partition 0, nor its temporary file");
}

int main(void)
{
	if (test_scratch("test_segout", root, sizeof(root)) != 0) {
		perror("mkdtemp");
		return 1;
	}
	config_defaults(&job.cfg);
	job.cfg.warc_split = 1;   /* the four series apart, each checked */
	snprintf(job.dir.root, sizeof(job.dir.root), "%s", root);
	snprintf(job.dir.warc_prefix, sizeof(job.dir.warc_prefix), "TEST");
	job.dir.partitions = 3;
	job.rank = 0;
	job.nranks = 2;
	test_clean();
	test_resume(0);
	test_resume(1);
	test_unstage();
	test_lost_warc();
	CHECK(fs_remove_tree(root) == CR_OK, "remove %s", root);
	TEST_DONE();
}

/*
 * test_recfile.c - record files (store/recfile.h). Writes tables of records
 * of varied sizes (none, empty, one byte, 100 KB, a record larger than the
 * writer's flush size, thousands of small ones), commits, reads them back
 * byte for byte and expects CR_EOF at the end; checks that nothing is
 * visible at the path before commit and that abort leaves nothing behind.
 * Then damages a file: truncated at every 97th byte and at each of its last
 * bytes, with bytes appended, and with single bits flipped in the header and
 * the compressed payload; the reader must report CR_ERR_FORMAT (or refuse
 * the header at open) and never end with CR_EOF after handing out wrong
 * data. A flip that decodes to the very same records may read clean.
 */
#include "store/recfile.h"
#include "test.h"
#include "util/buf.h"
#include "util/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[256];


static void tmp_path(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", tmp_dir, name);
}

/* Number of entries in the temp dir whose name contains ".tmp.". */
static int tmp_files(void)
{
	DIR *d = opendir(tmp_dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".tmp."))
			n++;
	closedir(d);
	return n;
}

/* A set of records: bytes back to back, with offsets and lengths. */
struct recset {
	struct buf bytes;
	size_t *off, *len;
	size_t n, cap;
};

static void recset_add(struct recset *s, size_t len, int compressible)
{
	size_t i;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->off = realloc(s->off, s->cap * sizeof(*s->off));
		s->len = realloc(s->len, s->cap * sizeof(*s->len));
		if (!s->off || !s->len)
			abort();
	}
	s->off[s->n] = s->bytes.len;
	s->len[s->n] = len;
	s->n++;
	buf_reserve(&s->bytes, len);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)test_rng();

		if (compressible)
			c = (unsigned char)("abcdefgh"[c & 7]);
		s->bytes.p[s->bytes.len++] = c;
	}
}

static void recset_free(struct recset *s)
{
	buf_release(&s->bytes);
	free(s->off);
	free(s->len);
	memset(s, 0, sizeof(*s));
}

/* The sets of the round-trip table. */
enum set_shape { SET_NONE, SET_EMPTY, SET_ONE_BYTE, SET_MIXED, SET_SMALL, SET_BIG,
		 SET_DAMAGE };

static void make_set(enum set_shape shape, struct recset *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	buf_init(&s->bytes);
	switch (shape) {
	case SET_NONE:
		break;
	case SET_EMPTY:
		recset_add(s, 0, 0);
		break;
	case SET_ONE_BYTE:
		recset_add(s, 1, 0);
		break;
	case SET_MIXED:
		recset_add(s, 0, 0);
		recset_add(s, 1, 0);
		recset_add(s, 100 * 1024, 0);
		for (i = 0; i < 3000; i++)
			recset_add(s, test_rng() % 64, i & 1);
		recset_add(s, 0, 0);
		recset_add(s, 100 * 1024, 1);
		recset_add(s, 1, 0);
		break;
	case SET_SMALL:
		for (i = 0; i < 20000; i++)
			recset_add(s, test_rng() % 24, 1);
		break;
	case SET_BIG:
		/* Larger than the writer's 1 MiB flush and the reader's window. */
		recset_add(s, 10, 0);
		recset_add(s, (3u << 20) + 7, 0);
		recset_add(s, 127, 0);
		recset_add(s, 128, 0);
		recset_add(s, (2u << 20) + 1, 1);
		recset_add(s, 16383, 0);
		recset_add(s, 16384, 0);
		break;
	case SET_DAMAGE:
		recset_add(s, 0, 0);
		recset_add(s, 1, 0);
		recset_add(s, 1500, 0);
		for (i = 0; i < 300; i++)
			recset_add(s, test_rng() % 40, i % 3 == 0);
		recset_add(s, 2000, 1);
		break;
	}
}

/* Writes s to path; fails with CR_ERR_STATE if the path changes before commit. */
static enum cr_err write_set(const char *path, enum rec_kind kind, int level,
			     const struct recset *s)
{
	struct stat before, now;
	int existed = stat(path, &before) == 0;
	struct recfile_writer *w;
	enum cr_err e;
	size_t i;

	e = recfile_writer_open(path, kind, level, &w);
	if (e)
		return e;
	for (i = 0; i < s->n; i++) {
		e = recfile_writer_add(w, s->bytes.p + s->off[i], s->len[i]);
		if (e) {
			recfile_writer_abort(&w);
			return e;
		}
	}
	if (recfile_writer_count(w) != s->n) {
		recfile_writer_abort(&w);
		return CR_ERR_STATE;
	}
	/* Nothing may be visible (or changed) at path before commit. */
	if (existed ? stat(path, &now) != 0 || now.st_ino != before.st_ino ||
			      now.st_size != before.st_size
		    : fs_exists(path)) {
		recfile_writer_abort(&w);
		return CR_ERR_STATE;
	}
	return recfile_writer_commit(&w);
}

/*
 * Reads path and compares with s. Returns the reader's last result (the
 * open's error, or what ended the loop); *good is the number of leading
 * records that matched, *wrong is set if a record differed from s (or
 * there were more records than s has).
 */
static enum cr_err read_set(const char *path, enum rec_kind kind, const struct recset *s,
			    size_t *good, int *wrong)
{
	struct recfile_reader *r;
	const void *d;
	size_t n, i = 0;
	enum cr_err e;

	*good = 0;
	*wrong = 0;
	e = recfile_reader_open(path, kind, &r);
	if (e)
		return e;
	while ((e = recfile_reader_next(r, &d, &n)) == CR_OK) {
		if (i >= s->n || n != s->len[i] ||
		    (n && memcmp(d, s->bytes.p + s->off[i], n) != 0)) {
			*wrong = 1;
		} else if (!*wrong) {
			(*good)++;
		}
		i++;
		if (i > 10 * s->n + 100000)  /* a reader that never ends */
			break;
	}
	if (e == CR_EOF && i != s->n)
		*wrong = 1;
	/* Once ended, the reader stays ended. */
	if (e == CR_EOF || e == CR_ERR_FORMAT) {
		enum cr_err again = recfile_reader_next(r, &d, &n);

		if (again != CR_EOF && again != CR_ERR_FORMAT)
			*wrong = 1;
	}
	recfile_reader_free(&r);
	return e;
}

static void test_round_trips(void)
{
	static const struct {
		const char *name;
		enum set_shape shape;
		enum rec_kind kind;
		int level;
	} cases[] = {
		{ "no records", SET_NONE, REC_KIND_CRAWLDB, 3 },
		{ "one empty record", SET_EMPTY, REC_KIND_FETCH, 3 },
		{ "one byte", SET_ONE_BYTE, REC_KIND_PARSE, 1 },
		{ "mixed 0/1/100K/3000 small", SET_MIXED, REC_KIND_LINK, 3 },
		{ "mixed at level 19", SET_MIXED, REC_KIND_CRAWLDB, 19 },
		{ "20000 small", SET_SMALL, REC_KIND_SORT, 3 },
		{ "records larger than the flush", SET_BIG, REC_KIND_FETCHLIST, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[512];
		struct recset s;
		size_t good;
		int wrong;
		enum cr_err e;

		test_rng_state = 1000 + i;
		make_set(cases[i].shape, &s);
		snprintf(path, sizeof(path), "%s/rt-%zu.zst", tmp_dir, i);
		CHECK(!fs_exists(path), "%s: path free before", cases[i].name);
		e = write_set(path, cases[i].kind, cases[i].level, &s);
		CHECK(e == CR_OK, "%s: write: %s", cases[i].name, error_str(e));
		CHECK(fs_exists(path), "%s: visible after commit", cases[i].name);
		CHECK(tmp_files() == 0, "%s: no temporary file left", cases[i].name);
		e = read_set(path, cases[i].kind, &s, &good, &wrong);
		CHECK(e == CR_EOF, "%s: read ends with %s", cases[i].name, error_str(e));
		CHECK(!wrong && good == s.n, "%s: %zu of %zu records identical",
		      cases[i].name, good, s.n);
		/* The same file opened as another kind is refused. */
		e = read_set(path, cases[i].kind == REC_KIND_SORT ? REC_KIND_CRAWLDB
								   : REC_KIND_SORT,
			     &s, &good, &wrong);
		CHECK(e == CR_ERR_FORMAT, "%s: wrong kind gives %s", cases[i].name,
		      error_str(e));
		recset_free(&s);
	}
}

static void test_commit_abort(void)
{
	char path[512], dir_missing[512];
	struct recfile_writer *w = NULL;
	struct recfile_reader *r = NULL;
	enum cr_err e;
	static char big[1];

	tmp_path(path, sizeof(path), "abort.zst");
	e = recfile_writer_open(path, REC_KIND_CRAWLDB, 3, &w);
	CHECK(e == CR_OK, "open for abort");
	if (e == CR_OK) {
		CHECK(recfile_writer_add(w, "abc", 3) == CR_OK, "add before abort");
		CHECK(recfile_writer_count(w) == 1, "count 1");
		CHECK(tmp_files() == 1, "the temporary file exists while writing");
		CHECK(!fs_exists(path), "not visible before commit");
		recfile_writer_abort(&w);
		CHECK(w == NULL, "abort clears the pointer");
	}
	CHECK(!fs_exists(path), "abort leaves no file");
	CHECK(tmp_files() == 0, "abort leaves no temporary file");
	recfile_writer_abort(&w);  /* NULL is fine */
	recfile_writer_abort(NULL);

	/* A record over the cap is refused; the writer is still usable. */
	e = recfile_writer_open(path, REC_KIND_CRAWLDB, 3, &w);
	CHECK(e == CR_OK, "open for limit");
	if (e == CR_OK) {
		unsigned char *huge = calloc(1, (size_t)REC_MAX_BYTES + 1);

		if (huge) {
			CHECK(recfile_writer_add(w, huge, (size_t)REC_MAX_BYTES + 1) ==
				      CR_ERR_LIMIT, "record over REC_MAX_BYTES");
			free(huge);
		}
		CHECK(recfile_writer_add(w, big, 1) == CR_OK, "add after limit");
		CHECK(recfile_writer_count(w) == 1, "refused record not counted");
		e = recfile_writer_commit(&w);
		CHECK(e == CR_OK && w == NULL, "commit after limit");
		e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r);
		CHECK(e == CR_OK, "reopen");
		if (e == CR_OK) {
			const void *d;
			size_t n;

			CHECK(recfile_reader_next(r, &d, &n) == CR_OK && n == 1, "one record");
			CHECK(recfile_reader_next(r, &d, &n) == CR_EOF, "then EOF");
			recfile_reader_free(&r);
			CHECK(r == NULL, "free clears the pointer");
		}
		recfile_reader_free(&r);
		recfile_reader_free(NULL);
	}

	/* Committing over an existing file replaces it whole. */
	{
		struct recset s;
		size_t good;
		int wrong;

		test_rng_state = 77;
		make_set(SET_MIXED, &s);
		e = write_set(path, REC_KIND_CRAWLDB, 3, &s);
		CHECK(e == CR_OK, "write over existing: %s", error_str(e));
		e = read_set(path, REC_KIND_CRAWLDB, &s, &good, &wrong);
		CHECK(e == CR_EOF && !wrong && good == s.n, "replaced file reads back");
		recset_free(&s);
	}

	snprintf(dir_missing, sizeof(dir_missing), "%s/no/such/dir/x.zst", tmp_dir);
	e = recfile_writer_open(dir_missing, REC_KIND_CRAWLDB, 3, &w);
	CHECK(e == CR_ERR_IO, "writer in a missing directory: %s", error_str(e));
	e = recfile_reader_open(dir_missing, REC_KIND_CRAWLDB, &r);
	CHECK(e == CR_ERR_IO, "reader of a missing file: %s", error_str(e));
}

/*
 * Reads a damaged copy. Fine: refused at open (CR_ERR_FORMAT, or CR_ERR_IO),
 * or CR_ERR_FORMAT while reading. Also tolerated when allow_clean is set: a
 * clean CR_EOF after exactly the original records. Returns 1 if the damage
 * was reported, 0 if the copy read back clean, -1 on a wrong outcome.
 */
static int read_damaged(const char *path, const struct recset *s, int allow_clean)
{
	size_t good;
	int wrong;
	enum cr_err e = read_set(path, REC_KIND_CRAWLDB, s, &good, &wrong);

	if (e == CR_ERR_FORMAT || e == CR_ERR_IO)
		return 1;
	if (e == CR_EOF && !wrong && good == s->n)
		return allow_clean ? 0 : -1;
	return -1;
}

static void test_damage(enum set_shape shape, const char *name, size_t trunc_stride,
			size_t flip_stride)
{
	char path[512], bad[512];
	struct recset s;
	struct buf file, copy;
	size_t len, at;
	int q, r, bad_trunc = 0, bad_flip = 0, clean_flip = 0, nflip = 0, ntrunc = 0;
	size_t first_bad_trunc = 0, first_bad_flip = 0;
	enum cr_err e;

	test_rng_state = 4242;
	make_set(shape, &s);
	buf_init(&file);
	buf_init(&copy);
	snprintf(path, sizeof(path), "%s/damage-%s.zst", tmp_dir, name);
	tmp_path(bad, sizeof(bad), "bad.zst");
	e = write_set(path, REC_KIND_CRAWLDB, 3, &s);
	CHECK(e == CR_OK, "%s: write", name);
	CHECK(test_slurp(path, &file) == 0 && file.len > 16 + 24, "%s: read file", name);
	len = file.len;
	if (e != CR_OK || len <= 16 + 24)
		goto out;

	q = test_quiet_on();
	/* Truncations: every trunc_stride bytes, and each of the last 24 bytes. */
	for (at = 0; at < len; at = at < len - 24 && at + trunc_stride > len - 24
					? len - 24
					: at + (at < len - 24 ? trunc_stride : 1)) {
		CHECK(test_spit(bad, file.p, at) == 0, "write truncated copy");
		r = read_damaged(bad, &s, 0);
		ntrunc++;
		if (r != 1 && !bad_trunc++)
			first_bad_trunc = at;
	}
	/* Single bits flipped: every byte of the first and last 64, a stride between. */
	for (at = 0; at < len; at += at < 64 || at + 64 >= len ? 1 : flip_stride) {
		buf_reset(&copy);
		buf_add(&copy, file.p, len);
		copy.p[at] ^= (unsigned char)(1u << (at % 8));
		CHECK(test_spit(bad, copy.p, len) == 0, "write flipped copy");
		/*
		 * A clean read of the very same records is tolerated: the
		 * reserved header bytes are not checked, and a few bits of a
		 * zstd frame (an unused header flag, padding) do not change
		 * what it decodes to.
		 */
		r = read_damaged(bad, &s, 1);
		nflip++;
		if (r == 0)
			clean_flip++;
		if (r == -1 && !bad_flip++)
			first_bad_flip = at;
	}
	/* Garbage after the end of a whole file. */
	buf_reset(&copy);
	buf_add(&copy, file.p, len);
	buf_add(&copy, "garbage", 7);
	CHECK(test_spit(bad, copy.p, copy.len) == 0, "write extended copy");
	r = read_damaged(bad, &s, 0);
	test_quiet_off(q);

	CHECK(r == 1, "%s: bytes after the end of the frame go unnoticed", name);
	CHECK(bad_trunc == 0, "%s: %d of %d truncations not reported, first at %zu of %zu",
	      name, bad_trunc, ntrunc, first_bad_trunc, len);
	CHECK(bad_flip == 0, "%s: %d of %d flipped bytes not reported, first at %zu of %zu",
	      name, bad_flip, nflip, first_bad_flip, len);
	CHECK(clean_flip <= 7 + nflip / 100, "%s: %d of %d flips read clean", name,
	      clean_flip, nflip);
	/* The undamaged file still reads. */
	CHECK(read_damaged(path, &s, 1) == 0, "%s: original still reads clean", name);
out:
	buf_release(&file);
	buf_release(&copy);
	recset_free(&s);
}

int main(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/mpicrawl-recfile-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trips();
	test_commit_abort();
	test_damage(SET_DAMAGE, "small", 97, 3);
	test_damage(SET_MIXED, "mixed", 977, 997);
	CHECK(fs_remove_tree(tmp_dir) == CR_OK, "remove temp dir");
	TEST_DONE();
}

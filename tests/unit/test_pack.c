/*
 * test_pack.c - packs of record files (store/pack.h) and the record file
 * reader that looks in them (store/recfile.h). Writes members part-IIIII.zst
 * of varied sizes (none, one record, thousands), gathers them per rank of
 * 3 and reads every member back through its loose path, byte for byte;
 * then: a loose file beside a pack wins, a newer pack wins over an older
 * one (a re-run on another rank count), pack_prune removes only what is
 * wholly superseded, a member missing everywhere is CR_ERR_IO, probes of
 * packed members, and a damaged pack (a flipped bit in its index, a cut
 * trailer, a flipped member byte) is refused, never read as data.
 */
#include "store/pack.h"
#include "store/recfile.h"
#include "test.h"
#include "util/buf.h"
#include "util/fs.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[256];

static void member_path(uint32_t id, char *out, size_t cap)
{
	snprintf(out, cap, "%s/part-%05u.zst", dir, id);
}

/* Member id with n records "g-id-k", generation g. */
static void write_member(uint32_t id, unsigned n, int g)
{
	char path[512], rec[64];
	struct recfile_writer *w;
	unsigned k;

	member_path(id, path, sizeof(path));
	if (recfile_writer_open(path, REC_KIND_FETCH, 3, &w) != CR_OK) {
		CHECK(0, "open writer %u", id);
		return;
	}
	for (k = 0; k < n; k++) {
		int len = snprintf(rec, sizeof(rec), "%d-%u-%u", g, id, k);

		if (recfile_writer_add(w, rec, (size_t)len) != CR_OK) {
			CHECK(0, "add %u", id);
			break;
		}
	}
	CHECK(recfile_writer_commit(&w) == CR_OK, "commit %u", id);
}

/* 1 if member id reads as n records of generation g, to a verified end. */
static int reads_as(uint32_t id, unsigned n, int g)
{
	char path[512], want[64];
	struct recfile_reader *r;
	const void *data;
	size_t len;
	unsigned k = 0;
	enum cr_err e;

	member_path(id, path, sizeof(path));
	if (recfile_reader_open(path, REC_KIND_FETCH, &r) != CR_OK)
		return 0;
	while ((e = recfile_reader_next(r, &data, &len)) == CR_OK) {
		int wl = snprintf(want, sizeof(want), "%d-%u-%u", g, id, k++);

		if ((size_t)wl != len || memcmp(data, want, len) != 0)
			break;
	}
	recfile_reader_free(&r);
	return e == CR_EOF && k == n;
}

static size_t count_files(const char *prefix, const char *suffix)
{
	size_t n;
	char **v = fs_list(dir, prefix, suffix, &n);

	fs_list_free(v, n);
	return n;
}

static unsigned size_of(uint32_t id)
{
	return id % 7 == 0 ? 0 : id % 5 == 0 ? 3000 : 1 + id % 4;
}

static void test_gather_read(void)
{
	uint32_t id;
	unsigned got, total = 0;
	int r, ok = 1;
	char path[512];
	const char *why;

	for (id = 0; id < 40; id++)
		write_member(id, size_of(id), 1);
	for (r = 0; r < 3; r++) {
		CHECK(pack_gather(dir, "part", ".zst", r, 3, 1000 + r, &got) == CR_OK, "gather rank %d", r);
		total += got;
	}
	CHECK(total == 40, "gathered %u of 40", total);
	CHECK(count_files("part-", ".zst") == 0, "loose files left: %zu",
	      count_files("part-", ".zst"));
	CHECK(count_files("part.", ".pack") == 3, "packs: %zu", count_files("part.", ".pack"));
	for (id = 0; id < 40; id++)
		ok &= reads_as(id, size_of(id), 1);
	CHECK(ok, "every member reads back from its pack");
	for (id = 0; id < 40; id++) {
		member_path(id, path, sizeof(path));
		ok &= recfile_exists(path) && recfile_probe(path, REC_KIND_FETCH, &why) == CR_OK;
	}
	CHECK(ok, "every member exists and probes clean");
	member_path(40, path, sizeof(path));
	CHECK(!recfile_exists(path), "member 40 does not exist");
	{
		struct recfile_reader *rd = NULL;

		CHECK(recfile_reader_open(path, REC_KIND_FETCH, &rd) == CR_ERR_IO,
		      "a missing member is CR_ERR_IO");
		CHECK(recfile_probe(path, REC_KIND_FETCH, &why) == CR_ERR_IO, "probe missing");
	}
	CHECK(pack_gather(dir, "part", ".zst", 0, 3, 2000, &got) == CR_OK && got == 0,
	      "nothing loose: no pack written");
	CHECK(count_files("part.", ".pack") == 3, "still 3 packs");
}

static void test_newer_wins(void)
{
	uint32_t id;
	unsigned got;
	int ok = 1;

	/* A re-run on 2 ranks: members 0..39 of generation 2, rank 0 gathers;
	 * rank 1 has not: its members are loose and win over the old packs. */
	for (id = 0; id < 40; id++)
		write_member(id, 2, 2);
	CHECK(pack_gather(dir, "part", ".zst", 0, 2, 3000, &got) == CR_OK && got == 20, "rank 0 of 2");
	for (id = 0; id < 40; id++)
		ok &= reads_as(id, 2, 2);
	CHECK(ok, "generation 2 read, loose or in the newest pack");
	CHECK(pack_prune(dir, "part", ".zst") == CR_OK, "prune");
	CHECK(count_files("part.", ".pack") == 1, "the old packs superseded (loose or newer): %zu",
	      count_files("part.", ".pack"));
	CHECK(pack_gather(dir, "part", ".zst", 1, 2, 3001, &got) == CR_OK && got == 20, "rank 1 of 2");
	CHECK(pack_prune(dir, "part", ".zst") == CR_OK, "prune");
	CHECK(count_files("part.", ".pack") == 2, "one pack per rank of 2: %zu",
	      count_files("part.", ".pack"));
	ok = 1;
	for (id = 0; id < 40; id++)
		ok &= reads_as(id, 2, 2);
	CHECK(ok, "generation 2 read after the prune");
}

/* Flips byte at (from the end when negative) of the newest pack of rank r
 * of 2; returns its path. */
static void damage(long at, char *path, size_t cap)
{
	struct buf b;
	size_t n;
	char **v = fs_list(dir, "part.", ".pack", &n);

	buf_init(&b);
	snprintf(path, cap, "%s/%s", dir, v[0]);
	fs_list_free(v, n);
	CHECK(test_slurp(path, &b) == 0, "read pack");
	b.p[at < 0 ? (long)b.len + at : at] ^= 0x10;
	CHECK(test_spit(path, b.p, b.len) == 0, "write pack");
	buf_release(&b);
}

static void test_damaged(void)
{
	char path[512], pack[512];
	struct buf keep;
	const char *why;

	buf_init(&keep);
	damage(-40, pack, sizeof(pack));   /* inside the index */
	member_path(0, path, sizeof(path));
	CHECK(recfile_exists(path), "a member a damaged pack may hold counts as there");
	CHECK(!reads_as(0, 2, 2), "... and does not read");
	{
		struct recfile_reader *rd = NULL;

		CHECK(recfile_reader_open(path, REC_KIND_FETCH, &rd) == CR_ERR_FORMAT,
		      "... CR_ERR_FORMAT");
		recfile_reader_free(&rd);
	}
	CHECK(pack_probe(pack, &why) == CR_ERR_FORMAT, "pack_probe sees the index");
	damage(-40, pack, sizeof(pack));   /* mended */
	CHECK(reads_as(0, 2, 2), "mended");
	CHECK(test_slurp(pack, &keep) == 0, "keep");
	CHECK(truncate(pack, (off_t)keep.len - 1) == 0, "cut");
	CHECK(!reads_as(0, 2, 2), "a cut pack is not read");
	CHECK(test_spit(pack, keep.p, keep.len) == 0, "restore");
	damage(30, pack, sizeof(pack));   /* inside member 0's compressed bytes */
	CHECK(!reads_as(0, 2, 2), "a flipped member byte does not read clean");
	buf_release(&keep);
}

int main(void)
{
	char path[512], d[64], s[64];
	uint32_t id;

	snprintf(dir, sizeof(dir), "/tmp/mpicrawl-pack-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	CHECK(pack_member_name("/a/b/part-00012.zst", path, sizeof(path), s, sizeof(s), &id, NULL) &&
	      strcmp(path, "/a/b") == 0 && strcmp(s, "part") == 0 && id == 12, "member name");
	CHECK(pack_member_name("early-7.zst", d, sizeof(d), s, sizeof(s), &id, NULL) &&
	      strcmp(d, ".") == 0 && strcmp(s, "early") == 0 && id == 7, "member name, no dir");
	CHECK(!pack_member_name("/a/part-00012.zst.tmp", path, sizeof(path), s, sizeof(s), &id, NULL),
	      "not a member: .tmp");
	CHECK(!pack_member_name("/a/part-x.zst", path, sizeof(path), s, sizeof(s), &id, NULL),
	      "not a member: no number");
	CHECK(!pack_member_name("/a/part.zst", path, sizeof(path), s, sizeof(s), &id, NULL),
	      "not a member: no dash");
	test_gather_read();
	test_newer_wins();
	test_damaged();
	CHECK(fs_remove_tree(dir) == CR_OK, "remove temp dir");
	TEST_DONE();
}

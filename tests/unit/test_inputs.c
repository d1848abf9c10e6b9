/*
 * test_inputs.c - the registry of the user's files (inputs/inputs.h): what
 * rank 0 packs, every other rank unpacks whole - bytes (empty, binary, with
 * NULs), failures with their errno, the node - and an update replaces one
 * entry; bad bytes are refused leaving the registry as it was; inputs_read
 * serves registered bytes, caps and failures without the file system.
 */
#include "inputs/inputs.h"
#include "test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const char *path;
	const char *bytes;
	size_t n;
	int err;
};

static const struct entry entries[] = {
	{ "/home/u/job/scope.rules", "+(org,example,)\n-.*\\.pdf$\n", 26, 0 },
	{ "/home/u/job/hosts.rules", "", 0, 0 },                    /* empty file */
	{ "/home/u/job/dict.zstd", "\x37\xa4\x30\xec\0\0\x01\xff", 8, 0 },   /* binary */
	{ "/tmp/private/ca.pem", NULL, 0, ENOENT },                /* unreadable */
	{ "relative/big.rules", NULL, 0, EFBIG },                  /* too large */
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

static void fill(struct inputs *in)
{
	size_t i;

	inputs_init(in, "node1.cluster");
	for (i = 0; i < NENTRIES; i++)
		inputs_put(in, entries[i].path, entries[i].bytes, entries[i].n, entries[i].err);
}

/* in holds every entry as the table has it. */
static int same_as_table(const struct inputs *in)
{
	size_t i;

	if (in->n != NENTRIES)
		return 0;
	for (i = 0; i < NENTRIES; i++) {
		const struct inputs_file *f = inputs_find(in, entries[i].path);

		if (!f || f->err != entries[i].err || f->bytes.len != entries[i].n ||
		    (entries[i].n && memcmp(f->bytes.p, entries[i].bytes, entries[i].n)))
			return 0;
	}
	return 1;
}

static void round_trip(void)
{
	struct inputs a, b;
	struct buf packed;

	fill(&a);
	CHECK(same_as_table(&a), "the registry holds what was put");
	buf_init(&packed);
	inputs_pack(&a, NULL, &packed);
	inputs_init(&b, "node7");
	CHECK(inputs_unpack(&b, packed.p, packed.len) == CR_OK, "unpack");
	CHECK(same_as_table(&b), "every entry arrives whole, failures with their errno");
	CHECK_STR(b.node, "node1.cluster");
	/* Packing what arrived gives the same bytes: nothing is lost or added. */
	{
		struct buf again;

		buf_init(&again);
		inputs_pack(&b, NULL, &again);
		CHECK(again.len == packed.len && !memcmp(again.p, packed.p, packed.len),
		      "pack(unpack(pack(x))) == pack(x)");
		buf_release(&again);
	}
	inputs_release(&a);
	inputs_release(&b);
	buf_release(&packed);
}

/* A refresh: one entry packed alone replaces the receiver's, the others stay. */
static void one_entry(void)
{
	struct inputs a, b;
	struct buf packed;
	const struct inputs_file *f;

	fill(&a);
	fill(&b);
	inputs_put(&a, "/home/u/job/hosts.rules", "h0001.example block\n", 20, 0);
	buf_init(&packed);
	inputs_pack(&a, "/home/u/job/hosts.rules", &packed);
	CHECK(inputs_unpack(&b, packed.p, packed.len) == CR_OK, "unpack one");
	f = inputs_find(&b, "/home/u/job/hosts.rules");
	CHECK(b.n == NENTRIES && f && f->bytes.len == 20 &&
	      !memcmp(f->bytes.p, "h0001.example block\n", 20), "the entry is replaced");
	f = inputs_find(&b, "/home/u/job/scope.rules");
	CHECK(f && f->bytes.len == entries[0].n, "the others are kept");
	/* The file turned unreadable: so it is on the receiver too. */
	inputs_put(&a, "/home/u/job/hosts.rules", NULL, 0, EACCES);
	buf_reset(&packed);
	inputs_pack(&a, "/home/u/job/hosts.rules", &packed);
	CHECK(inputs_unpack(&b, packed.p, packed.len) == CR_OK, "unpack a failure");
	f = inputs_find(&b, "/home/u/job/hosts.rules");
	CHECK(f && f->err == EACCES && f->bytes.len == 0, "a failure replaces the bytes");
	inputs_release(&a);
	inputs_release(&b);
	buf_release(&packed);
}

/* Every cut of a packed registry, and a few flipped bytes, are refused and
 * leave the receiver as it was. */
static void bad_bytes(void)
{
	struct inputs a, b;
	struct buf packed;
	size_t cut, refused = 0;

	fill(&a);
	buf_init(&packed);
	inputs_pack(&a, NULL, &packed);
	fill(&b);
	for (cut = 0; cut < packed.len; cut++)
		refused += inputs_unpack(&b, packed.p, cut) == CR_ERR_FORMAT;
	CHECK(refused == packed.len, "every cut refused (%zu of %zu)", refused, packed.len);
	packed.p[4] = 2;
	CHECK(inputs_unpack(&b, packed.p, packed.len) == CR_ERR_FORMAT, "another version");
	packed.p[4] = 1;
	packed.p[0] = 'X';
	CHECK(inputs_unpack(&b, packed.p, packed.len) == CR_ERR_FORMAT, "bad magic");
	packed.p[0] = 'M';
	buf_addc(&packed, 0);
	CHECK(inputs_unpack(&b, packed.p, packed.len) == CR_ERR_FORMAT, "a byte after the end");
	CHECK(same_as_table(&b) && !strcmp(b.node, "node1.cluster"),
	      "the receiver is unchanged");
	inputs_release(&a);
	inputs_release(&b);
	buf_release(&packed);
}

/* inputs_read: registered bytes, without the file system; a cap; a failure
 * with its errno. A path not registered is read from the file system. */
static void reads(void)
{
	struct inputs *job = inputs_job();
	struct buf out;
	char tmp[] = "/tmp/test_inputs.XXXXXX";
	int fd;

	buf_init(&out);
	inputs_put(job, "/nonexistent/dir/scope.rules", "+(org,example,)\n", 16, 0);
	CHECK(inputs_read("/nonexistent/dir/scope.rules", 100, &out) == CR_OK &&
	      out.len == 16 && !memcmp(out.p, "+(org,example,)\n", 16), "registered bytes");
	buf_reset(&out);
	CHECK(inputs_read("/nonexistent/dir/scope.rules", 15, &out) == CR_ERR_LIMIT,
	      "larger than the caller's cap");
	inputs_put(job, "/nonexistent/dir/ca.pem", NULL, 0, EACCES);
	errno = 0;
	CHECK(inputs_read("/nonexistent/dir/ca.pem", 100, &out) == CR_ERR_IO && errno == EACCES,
	      "a failure, with its errno");
	inputs_put(job, "/nonexistent/dir/huge", NULL, 0, EFBIG);
	CHECK(inputs_read("/nonexistent/dir/huge", INPUTS_FILE_MAX, &out) == CR_ERR_LIMIT,
	      "too large for the registry");
	errno = 0;
	CHECK(inputs_read("/nonexistent/dir/other", 100, &out) == CR_ERR_IO && errno == ENOENT,
	      "not registered: the file system's answer");
	fd = mkstemp(tmp);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3, "a file");
	if (fd >= 0)
		close(fd);
	buf_reset(&out);
	CHECK(inputs_read(tmp, 100, &out) == CR_OK && out.len == 3, "read and registered");
	unlink(tmp);
	buf_reset(&out);
	CHECK(inputs_read(tmp, 100, &out) == CR_OK && out.len == 3 && !memcmp(out.p, "abc", 3),
	      "read once a process: the registered bytes again");
	CHECK(inputs_node()[0] != '\0', "a node name");
	buf_release(&out);
}

int main(void)
{
	round_trip();
	one_entry();
	bad_bytes();
	reads();
	inputs_release(inputs_job());
	TEST_DONE();
}

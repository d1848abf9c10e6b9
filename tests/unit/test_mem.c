#include "test.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

int main(void)
{
	static const struct {
		size_t total, held, left;
	} t[] = {
		{ 256 * MiB, 0, 256 * MiB },             /* nothing noted: the whole */
		{ 256 * MiB, 40 * MiB, 216 * MiB },      /* OpenMPI's usual base */
		{ 256 * MiB, 128 * MiB, 128 * MiB },     /* half: still taken off */
		{ 256 * MiB, 129 * MiB, 128 * MiB },     /* more: half is left */
		{ 16 * MiB, 200 * MiB, 8 * MiB },        /* the smallest budget */
	};
	size_t i, before, after;
	char *p;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK(mem_left(t[i].total, t[i].held) == t[i].left, "mem_left case %zu: %zu MiB",
		      i, mem_left(t[i].total, t[i].held) / MiB);
	/* no base noted yet: the budget whole */
	CHECK(mem_budget(256) == 256 * MiB, "mem_budget before a base is noted");
	before = mem_rss();
	CHECK(before > 0, "the resident set is read");
	p = malloc(32 * MiB);
	memset(p, 1, 32 * MiB);
	after = mem_rss();
	CHECK(after >= before + 30 * MiB, "32 MiB touched show (%zu -> %zu MiB)",
	      before / MiB, after / MiB);
	mem_note_base();
	CHECK(mem_budget(1024) <= 1024 * MiB - 32 * MiB, "at least what was touched is off");
	free(p);
	TEST_DONE();
}

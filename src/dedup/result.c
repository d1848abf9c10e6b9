/* result.c - the answer of dedup_run, kept apart from the MPI steps so that
 * merge (and its tests) can use it without linking the exchange. */
#include "dedup/dedup.h"

#include <stdlib.h>
#include <xxhash.h>

uint64_t dedup_id(const char *url, size_t len)
{
	return XXH3_64bits(url, len);
}

void dedup_init(struct dedup_result *res)
{
	hmap_init(&res->dups);
}

void dedup_release(struct dedup_result *res)
{
	size_t i = 0;
	struct hmap_slot *s;

	while ((s = hmap_next(&res->dups, &i)) != NULL)
		free(s->val);
	hmap_release(&res->dups);
}

static void key8(char *k, uint64_t id)
{
	int i;

	for (i = 7; i >= 0; i--) {
		k[i] = (char)(unsigned char)id;
		id >>= 8;
	}
}

const char *dedup_rep(const struct dedup_result *res, const char *url, size_t len)
{
	char k[8];

	if (!res->dups.count)
		return NULL;
	key8(k, dedup_id(url, len));
	return hmap_get(&res->dups, k, 8);
}

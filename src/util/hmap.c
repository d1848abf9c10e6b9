#include "util/hmap.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void hmap_init(struct hmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
}

void hmap_release(struct hmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	hmap_init(m);
}

static struct hmap_slot *find(const struct hmap *m, const char *key, size_t klen,
			      uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);

	for (;;) {
		struct hmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && s->klen == klen && !memcmp(s->key, key, klen)))
			return s;
		i = (i + 1) & (m->cap - 1);
	}
}

static void grow(struct hmap *m)
{
	struct hmap old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key, old.slots[i].klen, old.slots[i].hash) =
				old.slots[i];
	free(old.slots);
}

void **hmap_put(struct hmap *m, const char *key, size_t klen)
{
	uint64_t h = XXH3_64bits(key, klen);
	struct hmap_slot *s;

	if ((m->count + 1) * 4 >= m->cap * 3)
		grow(m);
	s = find(m, key, klen, h);
	if (!s->key) {
		s->key = malloc(klen + 1);
		if (!s->key) {
			fputs("mpicrawl: out of memory\n", stderr);
			abort();
		}
		memcpy(s->key, key, klen);
		s->key[klen] = '\0';
		s->klen = klen;
		s->hash = h;
		s->val = NULL;
		m->count++;
	}
	return &s->val;
}

void *hmap_get(const struct hmap *m, const char *key, size_t klen)
{
	struct hmap_slot *s;

	if (!m->cap)
		return NULL;
	s = find(m, key, klen, XXH3_64bits(key, klen));
	return s->key ? s->val : NULL;
}

struct hmap_slot *hmap_next(const struct hmap *m, size_t *i)
{
	while (*i < m->cap) {
		struct hmap_slot *s = &m->slots[(*i)++];

		if (s->key)
			return s;
	}
	return NULL;
}

const char *hmap_key(void **v)
{
	return ((struct hmap_slot *)((char *)v - offsetof(struct hmap_slot, val)))->key;
}

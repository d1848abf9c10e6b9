/*
 * hmap.h - an open-addressing hash map from byte-string keys to a pointer,
 * keyed with XXH3. The map copies keys; values are the caller's. Used for
 * the host queues of the fetcher and per-host counters of generate, whose
 * sizes grow with the number of hosts, never with the number of URLs.
 */
#ifndef CR_UTIL_HMAP_H
#define CR_UTIL_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	char *key;       /* NUL-terminated copy, NULL if empty */
	size_t klen;
	uint64_t hash;
	void *val;
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap;      /* power of two */
	size_t count;
};

void hmap_init(struct hmap *m);
/* Frees the keys and the table; values are not touched. */
void hmap_release(struct hmap *m);
/* The value slot for key, created (NULL value) if absent. */
void **hmap_put(struct hmap *m, const char *key, size_t klen);
/* The map's own copy of the key of the value slot v (hmap_put's answer):
 * NUL-terminated, where it is until hmap_release - growing moves the
 * slots, not the keys. */
const char *hmap_key(void **v);
/* The value for key, or NULL. */
void *hmap_get(const struct hmap *m, const char *key, size_t klen);
/* Iterate: *i starts at 0; returns the next used slot or NULL. */
struct hmap_slot *hmap_next(const struct hmap *m, size_t *i);

#endif

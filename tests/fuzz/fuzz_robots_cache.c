/*
 * fuzz_robots_cache - the robots.txt cache record (robots/cache.h).
 *
 * Input: one packed cache record. What unpacks must pack again and unpack
 * to the same values; its body is then parsed as robots.txt, as the fetcher
 * does when it loads the cache. The key buffer is sized as the fetcher's,
 * and once more too small for the key.
 */
#include "fuzz.h"
#include "robots/cache.h"
#include "robots/robots.h"

#define KEY_CAP 600

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char key[KEY_CAP], key2[KEY_CAP];
	int64_t at, at2;
	int st, st2;
	const char *body, *body2;
	size_t blen, blen2, klen;
	struct robots_cache_times t, t2;
	struct robots *r = NULL;
	struct buf b;

	if (robots_cache_unpack(data, size, key, sizeof(key), &at, &st, &body, &blen, &t) != CR_OK)
		return 0;
	klen = strlen(key);
	if (st < 0 || st > 999 || body < (const char *)data ||
	    body + blen > (const char *)data + size)
		abort();
	/* A key buffer too small for the key is a format error, not a cut. */
	if (klen > 0 && robots_cache_unpack(data, size, key2, klen, &at2, &st2, &body2,
					    &blen2, &t2) == CR_OK && strlen(key2) >= klen)
		abort();
	buf_init(&b);
	robots_cache_pack(&b, key, at, st, body, blen, &t);
	if (robots_cache_unpack(b.p, b.len, key2, sizeof(key2), &at2, &st2, &body2, &blen2,
				&t2) != CR_OK ||
	    strcmp(key, key2) || at != at2 || st != st2 || blen != blen2 ||
	    memcmp(body, body2, blen) || t.last_end != t2.last_end ||
	    t.hold_until != t2.hold_until)
		abort();
	buf_release(&b);
	if (robots_parse(body, blen, "mpicrawl", &r) == CR_OK)
		(void)robots_allowed(r, "/index.html");
	robots_free(&r);
	return 0;
}

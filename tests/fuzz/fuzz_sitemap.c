/*
 * fuzz_sitemap - a sitemap, sitemap index, RSS or Atom feed or URL list
 * (parse/sitemap.h), read whole and as if cut at the byte cap.
 *
 * Input: the body. Properties: at most SITEMAP_MAX_URLS entries; each
 * entry's URL is canonical (its own canonical form), its priority in
 * [-1, 1000], its changefreq one of the protocol's, its lastmod not
 * negative; the counts add up.
 */
#include "fuzz.h"
#include "parse/sitemap.h"

static int check(void *arg, const struct sitemap_entry *e)
{
	char again[URL_MAX_LEN + 1];
	const char *why;

	(*(uint64_t *)arg)++;
	if (url_canon(NULL, e->url, again, sizeof(again), &why) != CR_OK || strcmp(again, e->url))
		abort();
	if (e->priority < -1 || e->priority > 1000 || e->changefreq < CHANGEFREQ_NONE ||
	    e->changefreq > CHANGEFREQ_NEVER || e->lastmod < 0 || (e->is_sitemap & ~1))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int cut;

	for (cut = 0; cut < 2; cut++) {
		struct sitemap_stats st;
		uint64_t n = 0;

		sitemap_parse((const char *)data, size, cut, "https://example.org/dir/sitemap.xml",
			      check, &n, &st);
		if (n != st.entries || st.entries > SITEMAP_MAX_URLS ||
		    (st.kind == SITEMAP_NONE && (st.entries || st.invalid || st.dropped)))
			abort();
	}
	return 0;
}

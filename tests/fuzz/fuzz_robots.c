/*
 * fuzz_robots - robots.txt parsing and matching (robots/robots.h).
 *
 * Input: BODY [NUL AGENT [NUL PATH]...]. Without a NUL the whole input is a
 * robots.txt body, parsed for "mpicrawl" and asked about a few fixed paths;
 * otherwise for AGENT (any bytes) and the PATHs given. The escapes are
 * compared as the crawler does (decoded) when the body's length is even,
 * as written when it is odd. Each PATH is also
 * taken as a URL (robots_url_path) and as a rule (robots_escape_pattern),
 * with a roomy and a tight output buffer.
 */
#include "fuzz.h"
#include "robots/robots.h"

static const char *const fixed_paths[] = {
	"/", "", "/robots.txt", "/a", "/private/x?y=1", "/%7Euser/", "/$*", "/a%2F%2a/b",
};

static void ask(const struct robots *r, const char *path)
{
	char out[256], tiny[8];
	int a = robots_allowed(r, path);

	if (a != 0 && a != 1)
		abort();
	if (robots_url_path(path, out, sizeof(out)) == CR_OK) {
		if (strlen(out) >= sizeof(out))
			abort();
		(void)robots_allowed(r, out);
	}
	memset(tiny, 'x', sizeof(tiny));
	if (robots_url_path(path, tiny, sizeof(tiny)) == CR_OK && !memchr(tiny, 0, sizeof(tiny)))
		abort();
	if (robots_escape_pattern(path, out, sizeof(out)) == CR_OK && strlen(out) >= sizeof(out))
		abort();
	memset(tiny, 'x', sizeof(tiny));
	if (robots_escape_pattern(path, tiny, sizeof(tiny)) == CR_OK &&
	    !memchr(tiny, 0, sizeof(tiny)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = size ? memchr(data, 0, size) : NULL;
	size_t blen = nul ? (size_t)(nul - data) : size;
	struct robots *r = NULL;
	char *agent = NULL;
	const uint8_t *rest = NULL;
	size_t rn = 0, i;
	enum robots_escapes esc = blen % 2 ? ROBOTS_ESCAPES_KEPT : ROBOTS_ESCAPES_DECODED;

	if (nul)
		fuzz_cut(nul + 1, size - blen - 1, 0, &agent, &rest, &rn);
	if (robots_parse_with(data, blen, agent ? agent : "mpicrawl", esc, &r) != CR_OK) {
		free(agent);
		return 0;
	}
	(void)robots_agent_valid(agent ? agent : "mpicrawl");
	if (robots_crawl_delay_ms(r) < -1 || robots_crawl_delay_ms(r) > ROBOTS_MAX_CRAWL_DELAY_MS)
		abort();
	if (robots_sitemap_count(r) > ROBOTS_MAX_SITEMAPS)
		abort();
	for (i = 0; i < robots_sitemap_count(r); i++)
		if (!robots_sitemap(r, i))
			abort();
	if (robots_sitemap(r, robots_sitemap_count(r)))
		abort();
	if (!agent) {
		for (i = 0; i < sizeof(fixed_paths) / sizeof(fixed_paths[0]); i++)
			ask(r, fixed_paths[i]);
	}
	while (agent && rest) {
		char *path;
		const uint8_t *next;
		size_t nn;

		fuzz_cut(rest, rn, 0, &path, &next, &nn);
		ask(r, path);
		free(path);
		rest = next;
		rn = nn;
	}
	if (robots_allowed(r, "/robots.txt") != 1)
		abort();
	robots_free(&r);
	if (r)
		abort();
	free(agent);
	return 0;
}

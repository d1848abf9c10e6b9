/*
 * fuzz_url - link resolution and the canonical form (url/url.h).
 *
 * Input: BASE LF HREF, or without a LF one URL resolved on its own. Both
 * url_canon and url_resolve run, with a full buffer and with a tight one
 * (whose size comes from the input). A canonical URL must be http(s), fit
 * URL_MAX_LEN, have a host, an authority and a path starting with "/", and
 * be its own canonical form. FUZZ_URL_LAX=1 in the environment skips the
 * last three checks, to look for memory errors only.
 */
#include "fuzz.h"
#include "url/url.h"

static void check_canonical(const char *u)
{
	char again[URL_MAX_LEN + 1], host[URL_HOST_MAX + 1], auth[URL_HOST_MAX + 8];
	const char *why = NULL, *path;
	static int lax = -1;

	if (lax < 0)
		lax = getenv("FUZZ_URL_LAX") && !strcmp(getenv("FUZZ_URL_LAX"), "1");
	if (strlen(u) > URL_MAX_LEN)
		abort();
	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))
		abort();
	if (lax) {
		(void)url_path(u);
		if (url_host(u, host, sizeof(host)) == CR_OK &&
		    url_authority(u, auth, sizeof(auth)) == CR_OK &&
		    url_canon(NULL, u, again, sizeof(again), &why) == CR_OK &&
		    strlen(again) > URL_MAX_LEN)
			abort();
		return;
	}
	if (url_host(u, host, sizeof(host)) != CR_OK ||
	    url_authority(u, auth, sizeof(auth)) != CR_OK)
		abort();
	path = url_path(u);
	if (!path || path[0] != '/')
		abort();
	if (url_canon(NULL, u, again, sizeof(again), &why) != CR_OK || strcmp(u, again)) {
		fprintf(stderr, "not stable: '%s' -> '%s' (%s)\n", u, again, why ? why : "");
		abort();
	}
}

static void run(const char *base, const char *href, size_t tight)
{
	char out[URL_MAX_LEN + 1], small[URL_MAX_LEN + 1];
	const char *why = NULL;
	enum cr_err e;

	e = url_canon(base, href, out, sizeof(out), &why);
	if (e == CR_OK)
		check_canonical(out);
	else if (!why)
		abort();
	memset(small, 'x', sizeof(small));
	if (url_canon(base, href, small, tight, &why) == CR_OK &&
	    (e != CR_OK || strlen(small) >= tight || strcmp(small, out)))
		abort();
	why = NULL;
	e = url_resolve(base, href, out, sizeof(out), &why);
	if (e == CR_OK && (strlen(out) > URL_MAX_LEN || (strncmp(out, "http://", 7) &&
							 strncmp(out, "https://", 8))))
		abort();
	if (e != CR_OK && !why)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *base;
	const uint8_t *rest;
	size_t rn, tight = 1 + (size ? data[0] : 0) % 96;

	fuzz_cut(data, size, '\n', &base, &rest, &rn);
	run(NULL, base, tight);
	if (rest) {
		char *href = fuzz_strndup(rest, rn);

		run(base, href, tight);
		free(href);
	}
	free(base);
	return 0;
}

/*
 * fuzz_css - the URLs of a stylesheet (parse/css.h).
 *
 * Input: the stylesheet. Every URL handed out must be a NUL-terminated
 * string no longer than the input's bytes can make (an escape gives at
 * most 4 bytes for the 2 or more it takes), and at most max of them.
 */
#include "fuzz.h"
#include "parse/css.h"

struct seen {
	size_t n, bytes, limit;
};

static void on_url(void *arg, const char *url)
{
	struct seen *s = arg;
	size_t n = strlen(url);

	if (!n || n > s->limit)
		abort();
	s->n++;
	s->bytes += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0, 0, 2 * size + 4 };
	/* Copied so that reading past the input is caught. */
	char *css = malloc(size ? size : 1);
	size_t got;

	if (!css)
		return 0;
	memcpy(css, data, size);
	got = css_urls(css, size, 50, on_url, &s);
	if (got != s.n || got > 50 || s.bytes > 2 * size + 4)
		abort();
	free(css);
	return 0;
}

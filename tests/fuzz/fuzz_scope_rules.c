/*
 * fuzz_scope_rules - a scope.rules file (scope/rules.h) and the SURT form
 * (url/surt.h).
 *
 * Input: RULES [NUL URL]... The rules text is parsed; when it parses, each
 * URL given (and a few fixed ones) is matched against it, and its SURT form
 * written with a roomy and a tight buffer. Properties: a failed parse names
 * a line and leaves nothing; a verdict is one of the four and names a line
 * of the file exactly when a rule matched; every match returns well within
 * the match limit's time (the fuzzer's timeout catches one that does not).
 */
#include "fuzz.h"
#include "scope/rules.h"
#include "url/surt.h"
#include "url/url.h"

static const char *const fixed_urls[] = {
	"http://example.org/", "https://www.example.org:8443/docs/a.html?q=1",
	"http://127.0.0.1:8080/x", "http://[::1]/", "http://a.b.c.d.e.f.g/h/i/j?k=l#m",
};

static void ask(struct scope_rules *r, const char *url, unsigned lines)
{
	char surt[URL_MAX_LEN + 64], tiny[12];
	unsigned line = 12345;
	int have = surt_from_url(url, strlen(url), surt, sizeof(surt)) == CR_OK;
	enum rule_verdict v = scope_rules_match(r, url, strlen(url), have ? surt : NULL, &line);

	if (v > RULE_LIMIT || (v == RULE_NONE) != (line == 0) || line > lines)
		abort();
	if (have && strlen(surt) >= sizeof(surt))
		abort();
	memset(tiny, 'x', sizeof(tiny));
	if (surt_from_url(url, strlen(url), tiny, sizeof(tiny)) == CR_OK &&
	    !memchr(tiny, 0, sizeof(tiny)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t rlen = nul ? (size_t)(nul - data) : size, i, pos;
	struct scope_rules *r = (struct scope_rules *)1;
	char err[300];
	unsigned lines = 1;

	err[0] = '\0';
	for (i = 0; i < rlen; i++)
		lines += data[i] == '\n';
	if (scope_rules_parse((const char *)data, rlen, "f", &r, err, sizeof(err)) != CR_OK) {
		if (r != NULL || strncmp(err, "f:", 2) != 0)
			abort();
		return 0;
	}
	for (i = 0; i < sizeof(fixed_urls) / sizeof(fixed_urls[0]); i++)
		ask(r, fixed_urls[i], lines);
	for (pos = rlen + 1; nul && pos <= size; ) {
		const uint8_t *end = memchr(data + pos, 0, size - pos);
		size_t n = end ? (size_t)(end - data) - pos : size - pos;
		char *url = fuzz_strndup(data + pos, n < URL_MAX_LEN ? n : URL_MAX_LEN);

		ask(r, url, lines);
		free(url);
		pos += n + 1;
	}
	scope_rules_free(&r);
	return 0;
}

/*
 * cmd_url.c - mpicrawl url: the canonical form of URLs, one line each, or
 * "invalid<TAB>reason". With --resolve-only, the resolved URL (the WHATWG
 * href: fragment, user info, empty query kept), without the dedup rules.
 * --config and --set choose the url.* rules as a job would; --hex takes
 * BASE and each HREF hex-encoded, so that any bytes (NUL, newlines) can be
 * given (tests/e2e/url_conformance.sh). --stdin reads the URLs from standard
 * input instead, one BASE<TAB>HREF a line, each with its own base: a whole
 * page's links or a crawl's in one run (tests/e2e/real_pages.sh).
 */
#include "cli/cmds.h"
#include "config/config.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/hex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static const char usage[] =
	"mpicrawl url [--base BASE] [--resolve-only] [--config FILE] [--set KEY=VALUE]... "
	"[--hex] [--] HREF...\n       mpicrawl url --stdin [--resolve-only] [--config FILE] "
	"[--set KEY=VALUE]... [--hex] < BASE<TAB>HREF lines";

/* Decodes hex s into out (cap bytes, NUL added); the length or -1. */
static long unhex(const char *s, char *out, size_t cap)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 >= cap)
		return -1;
	for (i = 0; i < n; i += 2) {
		int h = hex_value((unsigned char)s[i]), l = hex_value((unsigned char)s[i + 1]);

		if (h < 0 || l < 0)
			return -1;
		out[i / 2] = (char)(h * 16 + l);
	}
	out[n / 2] = '\0';
	return (long)(n / 2);
}

/* Prints the result for one HREF of n bytes against base (NULL: none). */
static void one(const char *base, const char *href, size_t n, int resolve_only)
{
	char out[URL_MAX_LEN + 1];
	const char *why;
	enum cr_err e;

	if (resolve_only)
		e = url_resolve_n(base, href, n, out, sizeof(out), &why);
	else if (memchr(href, '\0', n))
		e = CR_ERR_FORMAT, why = "NUL in URL";
	else
		e = url_canon(base, href, out, sizeof(out), &why);
	if (e == CR_OK)
		printf("%s\n", out);
	else
		printf("invalid\t%s\n", why);
}

/* --stdin: each line BASE<TAB>HREF (both hex with --hex; an empty BASE is
 * none), one output line each. A line without a tab is an HREF without a
 * base. */
static int from_stdin(int resolve_only, int hex)
{
	static char in[4 * URL_MAX_LEN + 1], basebuf[4 * URL_MAX_LEN + 1];
	char *line = NULL, *tab, *href, *base;
	size_t cap = 0, n;
	ssize_t len;

	while ((len = fs_getline_max(&line, &cap, sizeof(in) + sizeof(basebuf) + 2, stdin)) != -1) {
		if (len == FS_LINE_TOO_LONG) {
			fs_skip_line(stdin);
			printf("invalid\tline too long\n");
			continue;
		}
		n = (size_t)len;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		tab = memchr(line, '\t', n);
		base = tab ? line : NULL;
		href = tab ? tab + 1 : line;
		n -= (size_t)(href - line);
		if (tab)
			*tab = '\0';
		if (base && !base[0])
			base = NULL;
		if (hex) {
			long k = unhex(href, in, sizeof(in));

			if (k < 0 || (base && (unhex(base, basebuf, sizeof(basebuf)) < 0 ||
					       memchr(basebuf, '\0', strlen(base) / 2)))) {
				printf("invalid\tnot hex\n");
				continue;
			}
			href = in;
			n = (size_t)k;
			base = base ? basebuf : NULL;
		}
		one(base, href, n, resolve_only);
	}
	free(line);
	if (ferror(stdin)) {
		fprintf(stderr, "mpicrawl: url --stdin: reading standard input failed\n");
		return 1;
	}
	return 0;
}

/* What --help says after the usage line. */
static const char help[] =
	"  prints each HREF's canonical form (resolved against BASE), or\n"
	"  invalid<TAB>why; the url.* keys of the configuration apply\n"
	"  --resolve-only  resolve as a browser does, without the\n"
	"                  canonical rules\n"
	"  --hex           each HREF (and BASE) is given as hex\n"
	"  --stdin         read BASE<TAB>HREF lines from standard input,\n"
	"                  one output line each (no tab: no base)\n\n"
	"exit codes: 0 done (invalid URLs are output, not errors);\n"
	"1 standard input unreadable; 2 bad usage\n";

/* One HREF of the command line (hex: written as hex). */
static void one_arg(const char *base, const char *arg, int hex, int resolve_only)
{
	static char in[4 * URL_MAX_LEN + 1];
	const char *href = arg;
	size_t n = strlen(arg);

	if (hex) {
		long k = unhex(arg, in, sizeof(in));

		if (k < 0) {
			printf("invalid\tnot hex\n");
			return;
		}
		href = in;
		n = (size_t)k;
	}
	one(base, href, n, resolve_only);
}

int cmd_url(int argc, char **argv)
{
	static char basebuf[4 * URL_MAX_LEN + 1];
	const char *base = NULL;
	int resolve_only = 0, hex = 0, stdin_mode = 0, i = 1, any = 0;
	struct config cfg;

	config_defaults(&cfg);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (i + 1 == argc && (!strcmp(argv[i], "--base") || !strcmp(argv[i], "--config") ||
				      !strcmp(argv[i], "--set"))) {
			fprintf(stderr, "mpicrawl: option '%s' needs a value\nusage: %s\n", argv[i],
				usage);
			return 2;
		}
		if (!strcmp(argv[i], "--base") && i + 1 < argc) {
			base = argv[++i];
		} else if (!strncmp(argv[i], "--base=", 7)) {
			base = argv[i] + 7;
		} else if (!strcmp(argv[i], "--resolve-only")) {
			resolve_only = 1;
		} else if (!strcmp(argv[i], "--hex")) {
			hex = 1;
		} else if (!strcmp(argv[i], "--stdin")) {
			stdin_mode = 1;
		} else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			if (config_load(&cfg, argv[++i]) != CR_OK)
				return 2;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (config_set_kv(&cfg, argv[++i]) != CR_OK)
				return 2;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: %s\n\n%s", usage, help);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "mpicrawl: unknown option '%s'\nusage: %s\n", argv[i],
				usage);
			return 2;
		} else {
			break;
		}
	}
	if (config_check(&cfg) != CR_OK)
		return 2;
	url_configure(&cfg);
	if (stdin_mode) {
		if (base || i < argc) {
			fprintf(stderr, "mpicrawl: url --stdin takes no --base and no HREF: "
				"each line gives its own\nusage: %s\n", usage);
			return 2;
		}
		return from_stdin(resolve_only, hex);
	}
	if (hex && base) {
		if (unhex(base, basebuf, sizeof(basebuf)) < 0 ||
		    memchr(basebuf, '\0', strlen(base) / 2)) {
			fprintf(stderr, "mpicrawl: --base: not hex (or holds a NUL)\n");
			return 2;
		}
		base = basebuf;
	}
	for (; i < argc; i++, any = 1)
		one_arg(base, argv[i], hex, resolve_only);
	if (!any) {
		fprintf(stderr, "mpicrawl: no URL given\nusage: %s\n", usage);
		return 2;
	}
	return 0;
}

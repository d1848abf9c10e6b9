/*
 * cmd_url.c - mpicrawl url: the canonical form of URLs, one line each, or
 * "invalid<TAB>reason". With --resolve-only, the resolved URL with its
 * fragment, without the dedup rules.
 */
#include "cli/cmds.h"
#include "url/url.h"

#include <stdio.h>
#include <string.h>

static const char usage[] = "mpicrawl url [--base BASE] [--resolve-only] [--] HREF...";

int cmd_url(int argc, char **argv)
{
	const char *base = NULL;
	int resolve_only = 0, i = 1, any = 0;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--base") && i + 1 < argc) {
			base = argv[++i];
		} else if (!strncmp(argv[i], "--base=", 7)) {
			base = argv[i] + 7;
		} else if (!strcmp(argv[i], "--resolve-only")) {
			resolve_only = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: %s\n", usage);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "mpicrawl: unknown option '%s'\nusage: %s\n", argv[i],
				usage);
			return 2;
		} else {
			break;
		}
	}
	for (; i < argc; i++) {
		char out[URL_MAX_LEN + 1];
		const char *why;
		enum cr_err e = resolve_only
			? url_resolve(base, argv[i], out, sizeof(out), &why)
			: url_canon(base, argv[i], out, sizeof(out), &why);

		any = 1;
		if (e == CR_OK)
			printf("%s\n", out);
		else
			printf("invalid\t%s\n", why);
	}
	if (!any) {
		fprintf(stderr, "mpicrawl: no URL given\nusage: %s\n", usage);
		return 2;
	}
	return 0;
}

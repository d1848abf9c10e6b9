/*
 * cmd_robots.c - "mpicrawl robots": check URLs against a robots.txt file on
 * disk, the way the fetcher would. One line per URL, "allow<TAB>URL" or
 * "deny<TAB>URL". No MPI, no network.
 */
#include "cli/cmds.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "robots/robots.h"
#include "util/buf.h"

static const char robots_usage[] =
	"usage: mpicrawl robots [--agent NAME] FILE URL...\n"
	"  Prints allow<TAB>URL or deny<TAB>URL for each URL, as the robots.txt\n"
	"  in FILE (\"-\" for stdin) says for the product token NAME\n"
	"  (default mpicrawl). At most 500 KiB of FILE are read.\n"
	"exit codes: 0 done; 1 FILE cannot be read; 2 bad usage\n";

static int robots_bad_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int robots_bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("mpicrawl robots: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(robots_usage, stderr);
	return 2;
}

/* Reads the first ROBOTS_MAX_BYTES + 1 bytes of path: one more than the
 * parser reads, so it can tell a line cut by the cap. */
static int robots_read(const char *path, struct buf *out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t want = (size_t)ROBOTS_MAX_BYTES + 1;
	size_t n;

	if (!f) {
		fprintf(stderr, "mpicrawl robots: cannot open '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	buf_reserve(out, want);
	while (out->len < want) {
		n = fread(out->p + out->len, 1, want - out->len, f);
		if (!n)
			break;
		out->len += n;
	}
	if (ferror(f)) {
		fprintf(stderr, "mpicrawl robots: cannot read '%s': %s\n", path,
			strerror(errno));
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

int cmd_robots(int argc, char **argv)
{
	const char *agent = "mpicrawl";
	struct robots *r = NULL;
	struct buf body, path;
	enum cr_err e;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-"))
			break;
		if (!strcmp(a, "--agent")) {
			if (i + 1 >= argc)
				return robots_bad_usage("%s needs a value", a);
			agent = argv[++i];
		} else if (!strncmp(a, "--agent=", 8)) {
			agent = a + 8;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(robots_usage, stdout);
			return 0;
		} else {
			return robots_bad_usage("unknown option '%s'", a);
		}
	}
	if (!robots_agent_valid(agent))
		return robots_bad_usage("agent '%s' is not a product token "
					"([a-zA-Z_-]+)", agent);
	if (i >= argc)
		return robots_bad_usage("missing FILE");
	if (i + 1 >= argc)
		return robots_bad_usage("missing URL");

	buf_init(&body);
	if (robots_read(argv[i], &body)) {
		buf_release(&body);
		return 1;
	}
	e = robots_parse_with(body.p, body.len, agent, ROBOTS_ESCAPES_DECODED, &r);
	buf_release(&body);
	if (e != CR_OK) {
		fprintf(stderr, "mpicrawl robots: cannot parse '%s': %s\n", argv[i],
			error_str(e));
		return 1;
	}

	buf_init(&path);
	for (i++; i < argc; i++) {
		const char *url = argv[i];
		size_t cap = strlen(url) + 2;

		buf_reset(&path);
		buf_reserve(&path, cap);
		if (robots_url_path(url, (char *)path.p, cap) != CR_OK) {
			fprintf(stderr, "mpicrawl robots: bad URL '%s'\n", url);
			rc = 1;
			continue;
		}
		printf("%s\t%s\n", robots_allowed(r, (const char *)path.p) ?
		       "allow" : "deny", url);
	}
	buf_release(&path);
	robots_free(&r);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "mpicrawl robots: cannot write output: %s\n",
			strerror(errno));
		rc = 1;
	}
	return rc;
}

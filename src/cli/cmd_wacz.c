/*
 * cmd_wacz.c - `mpicrawl wacz --dir DIR [--dir DIR2]... [--segments LIST]
 * -o OUT.wacz [--title T]`: the crawls' indexed segments packed as one WACZ
 * file (index/wacz.h) that ReplayWeb.page opens. Reads the files directly
 * (no MPI); run it when no crawl is writing DIR, or name finished segments.
 */
#include "cli/cmds.h"
#include "config/config.h"
#include "crawldb/layout.h"
#include "index/wacz.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"mpicrawl wacz --dir DIR [--dir DIR2]... [--segments LIST] -o OUT.wacz [--title TITLE]";

/* Crawls one package holds, at most. */
#define WACZ_CRAWLS_MAX 64

/* "3", "1,4", "2-5,7": segment numbers into v (at most cap); -1 if bad. */
static long parse_segments(const char *s, int *v, long cap)
{
	long n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a <= 0 || a > 99999)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b > 99999)
				return -1;
			s = end;
		}
		for (; a <= b; a++) {
			if (n == cap)
				return -1;
			v[n++] = (int)a;
		}
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

static int help(void)
{
	printf("usage: %s\n\n"
	       "  --dir DIR        the crawl directory; given again, the crawls go into\n"
	       "                   one package (their WARC file names must differ:\n"
	       "                   warc.prefix), at most 64\n"
	       "  --segments LIST  the segments to pack (3, 1,4 or 2-5; default: every\n"
	       "                   indexed one); with one --dir only\n"
	       "  -o, --output F   the WACZ file to write (replaced if it exists)\n"
	       "  --title T        its title (default: the directories' names)\n\n"
	       "It holds archive/ (the WARC files), indexes/index.cdxj, pages/pages.jsonl\n"
	       "and datapackage.json with every file's sha256 (WACZ 1.1.1).\n"
	       "exit codes: 0 written; 1 not a crawl directory, a segment not indexed, a\n"
	       "file unreadable or the output unwritable (named); 2 bad usage\n", usage);
	return 0;
}

int cmd_wacz(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "segments", required_argument, NULL, 'g' },
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dirs[WACZ_CRAWLS_MAX], *out = NULL, *title = NULL, *segs = NULL;
	static struct crawl_dir d[WACZ_CRAWLS_MAX];
	struct wacz_crawl crawls[WACZ_CRAWLS_MAX];
	static int v[4096];
	long nv = 0;
	int c, nd = 0, i;
	struct config cfg;
	struct wacz_counts n;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:", longs, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (nd == WACZ_CRAWLS_MAX) {
				fprintf(stderr, "mpicrawl: more than %d --dir\n", WACZ_CRAWLS_MAX);
				return 2;
			}
			dirs[nd++] = optarg;
			break;
		case 'g': segs = optarg; break;
		case 'o': out = optarg; break;
		case 't': title = optarg; break;
		case 'h': return help();
		default:
			fprintf(stderr, "mpicrawl: bad option '%s'\nusage: %s\n", argv[optind - 1],
				usage);
			return 2;
		}
	}
	if (!nd || !out || !out[0] || optind < argc) {
		fprintf(stderr, "mpicrawl: wacz needs --dir and -o\nusage: %s\n", usage);
		return 2;
	}
	if (segs && nd > 1) {
		fprintf(stderr, "mpicrawl: --segments goes with one --dir\nusage: %s\n", usage);
		return 2;
	}
	if (segs && (nv = parse_segments(segs, v, (long)(sizeof(v) / sizeof(v[0])))) <= 0) {
		fprintf(stderr, "mpicrawl: bad --segments '%s' (e.g. 3, 1,4 or 2-5)\n", segs);
		return 2;
	}
	for (i = 0; i < nd; i++) {
		config_defaults(&cfg);
		if (layout_open(dirs[i], &cfg, 0, &d[i]) != CR_OK)
			return 1;
		crawls[i].d = &d[i];
		crawls[i].segs = segs ? v : NULL;
		crawls[i].nsegs = (size_t)nv;
	}
	if (wacz_write(crawls, (size_t)nd, title, out, &n) != CR_OK)
		return 1;
	printf("%s: ", out);
	if (nd > 1)
		printf("%d crawls, ", nd);
	printf("%llu segments, %llu WARC files, %llu CDXJ lines, %llu pages, %.1f MB\n",
	       (unsigned long long)n.segments, (unsigned long long)n.warcs,
	       (unsigned long long)n.cdxj_lines, (unsigned long long)n.pages, n.bytes / 1e6);
	return 0;
}

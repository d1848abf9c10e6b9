/*
 * cmd_warc.c - `mpicrawl warc [--check] FILE...`: lists the records of WARC
 * files (.warc, .warc.gz, .warc.zst) one line each, for looking at what the
 * fetcher wrote or checking a file from elsewhere. With --check it verifies
 * block and payload digests. No MPI: it reads files on one process.
 *
 * Output per record: OFFSET<TAB>LENGTH<TAB>WARC-Type<TAB>Target-URI, plus
 * <TAB>ok or <TAB>bad-digest with --check (ok also when a record carries no
 * digest or only a revisit's payload digest); "-" for an absent field; then
 * "records: N" per file. Exit 1 if a file cannot be read to its end (one
 * line on stderr naming the file and the record's offset), and with --check
 * also for a bad digest or a gzip member / zstd frame holding several
 * records (readable, but not seekable per record; warcio refuses such
 * files). Exit 2 on bad usage.
 *
 * With --text, one line per 2xx text/html response instead:
 * Target-URI<TAB>WORDS, the words of the page's title and visible text as
 * near-duplicate detection reads them (util/minhash.h; the page read as
 * parsing reads it, its Content-Encoding undone), separated by single
 * spaces - for checking the detector against exact Jaccard indexes.
 */
#include "cli/cmds.h"
#include "crawldb/job.h"
#include "util/minhash.h"
#include "http/head.h"
#include "parse/html.h"
#include "parse/parse.h"
#include "warc/warc.h"

#include <stdio.h>
#include <string.h>

static void warc_usage(FILE *f)
{
	fputs("usage: mpicrawl warc [--check | --text] FILE...\n"
	      "  prints OFFSET<TAB>LENGTH<TAB>WARC-Type<TAB>Target-URI per record\n"
	      "  and 'records: N' per file (.warc, .warc.gz, .warc.zst)\n"
	      "  --check  verify block and payload digests: <TAB>ok or <TAB>bad-digest\n"
	      "  --text   URL<TAB>words of the title and text, per 2xx HTML response\n"
	      "exit codes: 0 every file read whole (and, with --check, every digest\n"
	      "good); 1 a file unreadable, damaged or with a bad digest; 2 bad usage\n",
	      f);
}

/* A field value on one output line: controls (tabs too) become '?'. */
static void put_value(const char *s)
{
	if (!*s) {
		fputc('-', stdout);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		fputc(c < ' ' || c == 0x7f ? '?' : c, stdout);
	}
}

/*
 * URL<TAB>words of one record, if it is a 2xx HTML response: read as the
 * fetcher and the index step read it (parse_html with the default
 * settings: its Content-Encoding undone, its charset, a cut tag left out),
 * so the words are those dedup signs.
 */
static void text_line(const struct job *j, const struct warc_record *rec, const char *uri,
		      struct buf *t, struct buf *w)
{
	struct html_page page;
	char type[64], mime[128], charset[64];
	uint64_t pc[PC_COUNT_] = { 0 };
	uint32_t flags;
	size_t head;
	int status;

	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	if (strcmp(type, "response") ||
	    warc_http_split(rec->block, rec->block_len, &status, &head) != CR_OK ||
	    status < 200 || status > 299)
		return;
	http_head_content_type(rec->block, head, mime, sizeof(mime), charset, sizeof(charset));
	if ((strcmp(mime, "text/html") && strcmp(mime, "application/xhtml+xml")) ||
	    !parse_html(j, uri, charset, rec->block, head, rec->block + head,
			rec->block_len - head, warc_record_truncated(rec), &page, &flags, pc,
			NULL))
		return;
	t->len = 0;
	w->len = 0;
	html_page_text(&page, t);
	minhash_words((const char *)t->p, t->len, w);
	put_value(uri);
	fputc('\t', stdout);
	fwrite(w->p, 1, w->len, stdout);
	fputc('\n', stdout);
	html_page_release(&page);
}

/* text: NULL, or the settings --text reads pages with. */
static int warc_list(const char *path, int check, const struct job *text)
{
	struct warc_reader *r;
	struct warc_record rec;
	char type[64], uri[8192];
	struct buf t, w;
	unsigned long long n = 0;
	enum cr_err e;
	int rc = 0;

	buf_init(&t);
	buf_init(&w);
	e = warc_reader_open(path, 0, &r);
	if (e != CR_OK) {
		fflush(stdout);
		if (e == CR_ERR_FORMAT)
			fprintf(stderr, "mpicrawl warc: %s: format error at offset 0: "
				"not a WARC file\n", path);
		else
			fprintf(stderr, "mpicrawl warc: %s: cannot read the file (%s)\n",
				path, error_str(e));
		return 1;
	}
	while (text && (e = warc_reader_next(r, &rec)) == CR_OK) {
		warc_record_field(&rec, "WARC-Target-URI", uri, sizeof(uri));
		text_line(text, &rec, uri, &t, &w);
		n++;
	}
	while (!text && (e = warc_reader_next(r, &rec)) == CR_OK) {
		warc_record_field(&rec, "WARC-Type", type, sizeof(type));
		warc_record_field(&rec, "WARC-Target-URI", uri, sizeof(uri));
		printf("%llu\t%llu\t", (unsigned long long)rec.offset,
		       (unsigned long long)rec.length);
		put_value(type);
		fputc('\t', stdout);
		put_value(uri);
		if (check) {
			int ok = warc_check_block_digest(&rec) != 0 &&
				 warc_check_payload_digest(&rec) != 0;
			fputs(ok ? "\tok" : "\tbad-digest", stdout);
			if (!ok)
				rc = 1;
		}
		fputc('\n', stdout);
		n++;
	}
	fflush(stdout);
	if (e != CR_EOF) {
		fprintf(stderr, "mpicrawl warc: %s: %s error in the record at "
			"offset %llu\n", path, error_str(e),
			(unsigned long long)warc_reader_offset(r));
		rc = 1;
	}
	if (warc_reader_shared_units(r)) {
		fprintf(stderr, "mpicrawl warc: %s: not one gzip member (zstd frame) "
			"per record\n", path);
		if (check)
			rc = 1;
	}
	if (!text)
		printf("records: %llu\n", n);
	warc_reader_free(&r);
	buf_release(&t);
	buf_release(&w);
	return rc;
}

int cmd_warc(int argc, char **argv)
{
	int i, check = 0, text = 0, nfiles = 0, opts = 1, rc = 0;
	static struct job defaults;   /* what --text reads pages with: the default settings */

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts && strcmp(a, "--") == 0) {
			opts = 0;
		} else if (opts && strcmp(a, "--check") == 0) {
			check = 1;
		} else if (opts && strcmp(a, "--text") == 0) {
			text = 1;
		} else if (opts && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
			warc_usage(stdout);
			return 0;
		} else if (opts && a[0] == '-' && a[1]) {
			fprintf(stderr, "mpicrawl warc: unknown option '%s'\n", a);
			warc_usage(stderr);
			return 2;
		} else {
			nfiles++;
		}
	}
	if (check && text) {
		fprintf(stderr, "mpicrawl warc: --check and --text do not go together: "
			"run one, then the other\n");
		return 2;
	}
	if (!nfiles) {
		fprintf(stderr, "mpicrawl warc: no FILE given\n");
		warc_usage(stderr);
		return 2;
	}
	memset(&defaults, 0, sizeof(defaults));
	config_defaults(&defaults.cfg);
	for (i = 1, opts = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts && a[0] == '-' && a[1]) {
			if (strcmp(a, "--") == 0)
				opts = 0;
			continue;
		}
		if (warc_list(a, check, text ? &defaults : NULL) != 0)
			rc = 1;
	}
	return rc;
}

/*
 * cmd_report.c - `mpicrawl report --dir DIR [--out FILE]`: one
 * self-contained HTML page (inline SVG charts, no outside resources) about
 * a crawl: pages, bytes and duplicate rate per round, the CrawlDb's status
 * mix and top hosts, fetch latencies, politeness waits and errors by kind.
 *
 * It reads segments/NNNNN/stats.json, the committed fetch outcomes of every
 * segment and the current CrawlDb version; one process, no MPI. Written to
 * DIR/report.html unless --out says otherwise. While a job runs it shows
 * the last committed state (round/live.h): the round in progress as far as
 * its committed phases go, marked so.
 */
#include "cli/cmds.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/layout.h"
#include "round/live.h"
#include "store/recfile.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/json.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_ROUNDS_MAX 1000
#define REPORT_TOP 15
/* write_report: read again, the job removed the CrawlDb version read */
#define REPORT_MOVED 3

struct named {
	const char *name;
	double v;
};

struct report {
	struct crawl_dir cd;      /* only its root: paths come from layout.h */
	const char *dir;
	int version;              /* the current CrawlDb version (0: none) */
	int segs[REPORT_ROUNDS_MAX];
	int nsegs;
	struct buf stats[REPORT_ROUNDS_MAX];
	uint64_t status[ST_COUNT_];
	struct hmap hosts;    /* host -> (uintptr_t) URL count */
	struct hmap errors;   /* reason -> count */
	uint64_t lat[8];
	uint64_t urls;
	unsigned damaged;     /* record files that could not be read whole */
	int moved;            /* the job removed the CrawlDb version as it was read */
	struct round_live live;   /* a job running, and the last round's state */
};

static const char *const lat_names[8] = {
	"<10 ms", "<50 ms", "<100 ms", "<250 ms", "<500 ms", "<1 s", "<5 s", ">=5 s",
};

/* A counter of a phase in a stats.json text; 0 if absent. */
static double stat(const struct buf *b, const char *phase, const char *name)
{
	const char *ph, *cs;
	size_t phn, csn;
	int64_t v;

	if (!b->p || json_get_value((const char *)b->p, b->len, phase, &ph, &phn) ||
	    json_get_value(ph, phn, "counters", &cs, &csn) || json_get_int(cs, csn, name, &v))
		return 0;
	return (double)v;
}

static void html_text(struct buf *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			buf_adds(o, "&lt;");
		else if (*s == '>')
			buf_adds(o, "&gt;");
		else if (*s == '&')
			buf_adds(o, "&amp;");
		else if (*s == '"')
			buf_adds(o, "&quot;");
		else
			buf_addc(o, *s);
	}
}

/* A bar chart: one bar per item, value labels above. */
static void chart(struct buf *o, const char *title, const char *unit, const struct named *it,
		  size_t n)
{
	const int w = 640, h = 260, left = 50, bottom = 70, top = 30;
	double max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (it[i].v > max)
			max = it[i].v;
	buf_adds(o, "<figure><figcaption>");
	html_text(o, title);
	buf_addf(o, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		 "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h, w, h);
	buf_addf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", left,
		 h - bottom, w - 10, h - bottom);
	if (n == 0 || max <= 0) {
		buf_addf(o, "<text x=\"%d\" y=\"%d\" fill=\"#555\">nothing to show</text>\n",
			 left + 10, h / 2);
	}
	for (i = 0; i < n && max > 0; i++) {
		double slot = (double)(w - left - 10) / (double)n;
		double bh = it[i].v / max * (h - bottom - top);
		double x = left + slot * (double)i + slot * 0.15;

		buf_addf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			 "fill=\"#3b7dd8\"><title>", x, h - bottom - bh, slot * 0.7, bh);
		html_text(o, it[i].name);
		buf_addf(o, ": %.4g %s</title></rect>\n", it[i].v, unit);
		buf_addf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">"
			 "%.4g</text>\n", x + slot * 0.35, h - bottom - bh - 3, it[i].v);
		buf_addf(o, "<text font-size=\"10\" transform=\"translate(%.1f,%d) rotate(40)\">",
			 x + slot * 0.2, h - bottom + 12);
		html_text(o, it[i].name);
		buf_adds(o, "</text>\n");
	}
	buf_addf(o, "<text x=\"4\" y=\"%d\" font-size=\"10\">", top - 8);
	html_text(o, unit);
	buf_adds(o, "</text>\n</svg></figure>\n");
}

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return x->v < y->v ? 1 : x->v > y->v ? -1 : strcmp(x->name, y->name);
}

/* The top entries of a counting map, as a chart. */
static void chart_map(struct buf *o, const char *title, const char *unit, struct hmap *m)
{
	struct named *it = calloc(m->count + 1, sizeof(*it));
	struct hmap_slot *s;
	size_t i = 0, n = 0;

	if (!it)
		return;
	while ((s = hmap_next(m, &i)) != NULL) {
		it[n].name = s->key;
		it[n++].v = (double)(uintptr_t)s->val;
	}
	qsort(it, n, sizeof(*it), cmp_named);
	chart(o, title, unit, it, n < REPORT_TOP ? n : REPORT_TOP);
	free(it);
}

static void count(struct hmap *m, const char *k, size_t n)
{
	void **slot = hmap_put(m, k, n);

	if (slot)
		*slot = (void *)((uintptr_t)*slot + 1);
}

static int is_num_dir(const char *n)
{
	size_t i;

	for (i = 0; n[i]; i++)
		if (n[i] < '0' || n[i] > '9')
			return 0;
	return i == 5;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Reads every record file of kind in dir (part-*.zst), calling fn. */
static void each_part(const char *dir, enum rec_kind kind,
		      void (*fn)(struct report *, const void *, size_t), struct report *r)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		struct recfile_reader *rr;
		const void *p;
		size_t n;
		enum cr_err e;

		if (strncmp(de->d_name, "part-", 5) || !strstr(de->d_name, ".zst") ||
		    round_name_is_temp(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (recfile_reader_open(path, kind, &rr) != CR_OK) {
			int now;

			if (kind == REC_KIND_CRAWLDB &&
			    round_version_gone(&r->cd, r->version, &now))
				r->moved = 1;
			else
				r->damaged++;
			continue;
		}
		while ((e = recfile_reader_next(rr, &p, &n)) == CR_OK)
			fn(r, p, n);
		r->damaged += e != CR_EOF;
		recfile_reader_free(&rr);
	}
	closedir(d);
}

static void on_crawldb(struct report *r, const void *p, size_t n)
{
	struct crawl_record c;
	const char *h, *e;

	if (crawl_record_unpack(p, n, &c) != CR_OK)
		return;
	r->urls++;
	if (c.status < ST_COUNT_)
		r->status[c.status]++;
	h = memchr(c.url, ':', c.url_len);
	if (!h || (size_t)(h - c.url) + 3 > c.url_len)
		return;
	h += 3;
	e = h;
	while (e < c.url + c.url_len && *e != '/' && *e != ':' && *e != '?')
		e++;
	count(&r->hosts, h, (size_t)(e - h));
}

static void on_fetch(struct report *r, const void *p, size_t n)
{
	static const int64_t edges[7] = { 10000, 50000, 100000, 250000, 500000, 1000000,
					   5000000 };
	struct fetch_record f;
	int i = 0;

	if (fetch_record_unpack(p, n, &f) != CR_OK)
		return;
	while (i < 7 && f.latency_us >= edges[i])
		i++;
	r->lat[i]++;
	if (f.reason_len)
		count(&r->errors, f.reason, f.reason_len < 60 ? f.reason_len : 60);
	else if (f.rec.status != ST_FETCHED && f.rec.status != ST_REDIRECT &&
		 f.rec.status != ST_DUPLICATE)
		count(&r->errors, crawl_record_status_name(f.rec.status),
		      strlen(crawl_record_status_name(f.rec.status)));
}

/* A round's name on a chart: "round 5", and the round not finished
 * "round 6 (in progress)" (or "(interrupted)" when no job runs). */
static void round_label(const struct report *r, int i, char *out, size_t cap)
{
	const struct round_snapshot *s = &r->live.s;

	if (r->segs[i] == s->seg && round_in_progress(s))
		snprintf(out, cap, "round %d (%s)", r->segs[i],
			 r->live.running ? "in progress" : "interrupted");
	else
		snprintf(out, cap, "round %d", r->segs[i]);
}

static void per_round(struct buf *o, struct report *r, const char *title, const char *unit,
		      const char *phase, const char *name, double scale)
{
	struct named it[REPORT_ROUNDS_MAX];
	char labels[REPORT_ROUNDS_MAX][40];
	int i;

	for (i = 0; i < r->nsegs; i++) {
		round_label(r, i, labels[i], sizeof(labels[i]));
		it[i].name = labels[i];
		it[i].v = stat(&r->stats[i], phase, name) * scale;
	}
	chart(o, title, unit, it, (size_t)r->nsegs);
}

/* Reads the segments' stats and fetch outcomes and the current CrawlDb. */
static void load_report(struct report *r)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int i;

	layout_top(r->dir, "segments", path, sizeof(path));
	d = opendir(path);
	/* the segments up to the snapshot's last: a newer one began since */
	while (d && (de = readdir(d)) != NULL && r->nsegs < REPORT_ROUNDS_MAX)
		if (is_num_dir(de->d_name) && strtol(de->d_name, NULL, 10) <= r->live.s.seg)
			r->segs[r->nsegs++] = (int)strtol(de->d_name, NULL, 10);
	if (d)
		closedir(d);
	qsort(r->segs, (size_t)r->nsegs, sizeof(int), cmp_int);
	for (i = 0; i < r->nsegs; i++) {
		struct round_snapshot s;

		buf_init(&r->stats[i]);
		layout_segment_sub(&r->cd, r->segs[i], "stats.json", path, sizeof(path));
		if (fs_read_all(path, 1 << 20, &r->stats[i]) != CR_OK)
			r->stats[i].len = 0;
		buf_cstr(&r->stats[i]);
		state_read(&r->cd, r->segs[i], &s);
		if (!round_sub_committed(s.phases, "fetch"))
			continue;   /* not fetched, or a fetch under way: its files are not yet */
		layout_segment_sub(&r->cd, r->segs[i], "fetch", path, sizeof(path));
		each_part(path, REC_KIND_FETCH, on_fetch, r);
	}
	/* the version of the snapshot the rounds were judged by */
	r->version = r->live.s.version;
	if (r->version > 0) {
		int now;

		layout_crawldb_dir(&r->cd, r->version, path, sizeof(path));
		each_part(path, REC_KIND_CRAWLDB, on_crawldb, r);
		/* parts removed before they were listed are missed, not said */
		r->moved |= round_version_gone(&r->cd, r->version, &now);
	}
}

/* URLs not fetched or not stored, by reason, over all rounds: what the
 * decision log holds (docs/SCOPE.md), from the phases' counters. */
static void decisions_chart(struct buf *o, const struct report *r)
{
	static const struct {
		const char *label, *phase, *counter;
	} reasons[] = {
		{ "scope:mode", "update", "scope_mode" },
		{ "scope:rules", "update", "scope_rules" },
		{ "scope:limit", "update", "scope_limit" },
		{ "scope:seed", "update", "scope_seed" },
		{ "depth", "update", "too_deep" },
		{ "depth (seed)", "update", "seed_too_deep" },
		{ "trap:*", "update", "traps" },
		{ "sitemap:cross-host", "update", "sitemap_cross_refused" },
		{ "robots", "fetch", "denied" },
		{ "blocked (operator, address)", "fetch", "blocked" },
		{ "max_pages (per round)", "generate", "seed_capped" },
	};
	struct named it[sizeof(reasons) / sizeof(reasons[0])];
	size_t k;
	int i;

	for (k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++) {
		it[k].name = reasons[k].label;
		it[k].v = 0;
		for (i = 0; i < r->nsegs; i++)
			it[k].v += stat(&r->stats[i], reasons[k].phase, reasons[k].counter);
	}
	chart(o, "Not fetched or not stored, by reason (all rounds)", "URLs", it, k);
}

/* The round not finished, said in a paragraph: what of it is committed. */
static void progress_par(struct buf *o, const struct report *r)
{
	char what[200];

	if (!round_in_progress(&r->live.s))
		return;
	round_progress_str(&r->live.s, r->live.running, what, sizeof(what));
	buf_adds(o, "<p id=\"round-in-progress\"><strong>");
	html_text(o, what);
	buf_adds(o, r->live.running ? "</strong>: a job is running; the charts show what it has "
		 "committed so far.</p>\n" : "</strong>: the next crawl continues it; the charts "
		 "show what was committed.</p>\n");
}

/* The share of near-duplicate text pages in each round. */
static void duplicates_chart(struct buf *o, const struct report *r)
{
	char labels[REPORT_ROUNDS_MAX][40];
	struct named dr[REPORT_ROUNDS_MAX];
	int i;

	for (i = 0; i < r->nsegs; i++) {
		double docs = stat(&r->stats[i], "index", "text_docs");
		double dups = stat(&r->stats[i], "index", "text_duplicates");

		round_label(r, i, labels[i], sizeof(labels[i]));
		dr[i].name = labels[i];
		dr[i].v = docs > 0 ? 100.0 * dups / docs : 0;
	}
	chart(o, "Duplicate rate per round (near-duplicate text pages)", "%", dr,
	      (size_t)r->nsegs);
}

/* What politeness cost over all rounds: waits, back-offs, refusals. */
static void politeness_chart(struct buf *o, const struct report *r)
{
	static const char *const pol[] = { "robots_wait", "backoffs", "parked", "deferred",
					   "denied", "robots_unavailable" };
	struct named pn[6];
	size_t k;
	int i;

	for (k = 0; k < 6; k++) {
		pn[k].name = pol[k];
		pn[k].v = 0;
		for (i = 0; i < r->nsegs; i++)
			pn[k].v += stat(&r->stats[i], "fetch", pol[k]);
	}
	chart(o, "Politeness: waits, back-offs and refusals (all rounds)", "events", pn, 6);
}

static int write_report(struct report *r, const char *out)
{
	struct named it[ST_COUNT_ + 8];
	struct buf o;
	int i, v, rc;
	size_t k, n;

	load_report(r);
	if (r->moved) {
		for (i = 0; i < r->nsegs; i++)
			buf_release(&r->stats[i]);
		return REPORT_MOVED;
	}
	if (r->damaged) {
		fprintf(stderr, "mpicrawl report: %u record files cannot be read whole: the report "
			"would be wrong, and is not written (`mpicrawl check` names them)\n",
			r->damaged);
		for (i = 0; i < r->nsegs; i++)
			buf_release(&r->stats[i]);
		return 1;
	}
	v = r->version;
	buf_init(&o);
	buf_adds(&o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		 "<title>mpicrawl report</title>\n<style>body{font-family:sans-serif;margin:2em;"
		 "color:#222}figure{display:inline-block;margin:1em;vertical-align:top}"
		 "figcaption{font-weight:bold;margin-bottom:.3em}svg{background:#fafafa;"
		 "border:1px solid #ddd}</style>\n</head><body>\n<h1>Crawl report</h1>\n<p>");
	html_text(&o, r->dir);
	buf_addf(&o, ": %d rounds; CrawlDb version %d with %llu URLs.</p>\n", r->nsegs, v,
		 (unsigned long long)r->urls);
	progress_par(&o, r);
	per_round(&o, r, "Pages fetched per round", "pages", "fetch", "fetched", 1);
	for (k = 0, n = 0; k < ST_COUNT_; k++) {
		if (!r->status[k])
			continue;
		it[n].name = crawl_record_status_name((int)k);
		it[n++].v = (double)r->status[k];
	}
	chart(&o, "Status mix (CrawlDb)", "URLs", it, n);
	per_round(&o, r, "Bytes fetched per round", "MB", "fetch", "bytes", 1e-6);
	for (k = 0; k < 8; k++) {
		it[k].name = lat_names[k];
		it[k].v = (double)r->lat[k];
	}
	chart(&o, "Fetch latency (request start to last byte)", "requests", it, 8);
	chart_map(&o, "Top hosts (URLs in the CrawlDb)", "URLs", &r->hosts);
	duplicates_chart(&o, r);
	politeness_chart(&o, r);
	chart_map(&o, "Errors by kind (fetch outcomes)", "URLs", &r->errors);
	decisions_chart(&o, r);
	buf_adds(&o, "<script>document.body.dataset.charts = "
		 "document.querySelectorAll('svg').length;</script>\n</body></html>\n");
	rc = fs_write_atomic(out, o.p, o.len) == CR_OK ? 0 : 1;
	if (rc)
		fprintf(stderr, "mpicrawl report: cannot write '%s'\n", out);
	buf_release(&o);
	for (i = 0; i < r->nsegs; i++)
		buf_release(&r->stats[i]);
	return rc;
}

/* Reads the crawl and writes the report to out, saying once that a job
 * runs; read again (at most twice) when the job removed the CrawlDb
 * version meanwhile. */
static int report_run(struct report *r, const char *dir, const char *out)
{
	int tries, rc = 1;

	for (tries = 0; tries < 3; tries++) {
		memset(r, 0, sizeof(*r));
		snprintf(r->cd.root, sizeof(r->cd.root), "%s", dir);
		r->dir = dir;
		round_live_read(&r->cd, &r->live);
		if (!tries)
			round_live_say(&r->live, "report");
		hmap_init(&r->hosts);
		hmap_init(&r->errors);
		rc = write_report(r, out);
		hmap_release(&r->hosts);
		hmap_release(&r->errors);
		if (rc != REPORT_MOVED)
			return rc;
		fprintf(stderr, "mpicrawl report: the job committed two CrawlDb versions while it "
			"was read: reading it again\n");
	}
	return 1;
}

int cmd_report(int argc, char **argv)
{
	static struct report r;
	char out[PATH_MAX + 32];
	const char *dir = NULL, *outp = NULL;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			outp = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("usage: mpicrawl report --dir DIR [--out FILE]"
			     "  (default DIR/report.html)\n\n"
			     "  one HTML page of charts: pages, bytes and duplicates per round,\n"
			     "  the status mix, top hosts, latencies, politeness, errors;\n"
			     "  while a job runs, what it has committed (the round in progress\n"
			     "  as far as its committed phases go, marked so)\n\n"
			     "exit codes: 0 written; 1 not a crawl directory, a record file\n"
			     "damaged, or cannot write;\n"
			     "2 bad usage");
			return 0;
		} else {
			fprintf(stderr, "mpicrawl report: bad argument '%s'\n"
				"usage: mpicrawl report --dir DIR [--out FILE]\n", argv[i]);
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "mpicrawl report: --dir is required\n");
		return 2;
	}
	layout_top(dir, "crawl.meta", out, sizeof(out));
	if (!fs_exists(out) || strlen(dir) >= sizeof(r.cd.root)) {
		fprintf(stderr, "mpicrawl report: '%s' is not a crawl directory\n", dir);
		return 1;
	}
	layout_top(dir, "report.html", out, sizeof(out));
	rc = report_run(&r, dir, outp ? outp : out);
	if (!rc)
		printf("%s\n", outp ? outp : out);
	return rc;
}

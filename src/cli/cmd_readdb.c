/*
 * cmd_readdb.c - mpicrawl readdb: statistics or a dump of the committed
 * CrawlDb, or a segment's decision log. Reads the files directly (no MPI):
 * any rank count wrote them. While a job runs it reads what the job has
 * committed, and says so (round/live.h).
 */
#include "cli/cmds.h"
#include "config/config.h"
#include "crawldb/crawl_record.h"
#include "crawldb/job.h"
#include "crawldb/layout.h"
#include "generate/refresh.h"
#include "parse/sitemap.h"
#include "scope/decisions.h"
#include "scope/scope.h"
#include "scope/seeds.h"
#include "rank/record.h"
#include "round/live.h"
#include "score/score.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/json.h"

#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"mpicrawl readdb --dir DIR (--stats | --dump | --seeds | --ranks | (--decisions | "
	"--fetchlist) --segment N)";

/* The page's last visits, newest first, as [seconds since the visit
 * before, 1 if it had changed, how long before the visit by its
 * Last-Modified (0: unknown)], the first copy's age, and the change rate
 * all that gives a day, the prior aside (generate/refresh.h). */
static void dump_visits(const struct crawl_history *h, struct buf *b)
{
	struct refresh_visit v[CRAWL_HISTORY_MAX];
	size_t i, n = refresh_visits_of(h, v);

	buf_adds(b, ",\"visits\":[");
	for (i = 0; i < n; i++)
		buf_addf(b, "%s[%u,%d,%u]", i ? "," : "", (unsigned)h->interval_s[i], v[i].changed,
			 (unsigned)h->lm_age_s[i]);
	buf_addf(b, "],\"first_age\":%u,\"changes_per_day\":%.6g", (unsigned)h->first_age_s,
		 refresh_rate_of(v, n, 0, h->first_age_s) * 86400);
}

static void dump_one(const struct crawl_record *r, struct buf *b)
{
	b->len = 0;
	buf_adds(b, "{\"url\":");
	json_str(b, r->url, r->url_len);
	buf_addf(b, ",\"status\":\"%s\",\"http_status\":%u,\"depth\":%u,\"retries\":%u,"
		 "\"fetched_at\":%lld,\"next_fetch\":%lld,\"digest\":\"%016llx\"",
		 crawl_record_status_name(r->status), r->http_status, r->depth, r->retries,
		 (long long)(r->fetched_at / 1000000), (long long)(r->next_fetch / 1000000),
		 (unsigned long long)r->digest);
	if (r->reason_len) {
		buf_adds(b, ",\"reason\":");
		json_str(b, r->reason, r->reason_len);
	}
	if (r->dup_of_len) {
		buf_adds(b, ",\"dup_of\":");
		json_str(b, r->dup_of, r->dup_of_len);
	}
	if (r->meta.kind == CRAWL_SITEMAP)
		buf_adds(b, ",\"kind\":\"sitemap\"");
	else if (r->meta.kind == CRAWL_EMBED)
		buf_adds(b, ",\"kind\":\"embed\"");
	if (r->meta.lastmod)
		buf_addf(b, ",\"lastmod\":%lld", (long long)(r->meta.lastmod / 1000000));
	if (r->meta.priority)
		buf_addf(b, ",\"priority\":%.3f", (r->meta.priority - 1) / 1000.0);
	if (r->meta.changefreq)
		buf_addf(b, ",\"changefreq\":\"%s\"", sitemap_changefreq_name(r->meta.changefreq));
	if (r->etag_len) {
		buf_adds(b, ",\"etag\":");
		json_str(b, r->etag, r->etag_len);
	}
	if (r->last_modified)
		buf_addf(b, ",\"last_modified\":%lld", (long long)(r->last_modified / 1000000));
	if (r->visits.n || r->visits.first_age_s)
		dump_visits(&r->visits, b);
	/* OPIC (score/score.h): importance, and its parts */
	buf_addf(b, ",\"score\":%.12g,\"cash\":%.12g,\"history\":%.12g", score_of(r), r->cash,
		 r->history);
	buf_adds(b, "}\n");
	fwrite(b->p, 1, b->len, stdout);
}

/* What readdb --seeds counts per seed. */
struct seed_count {
	uint64_t reached, fetched, waiting;
};

/* Counts rec for its seed, if that seed is one of the crawl's. */
static void count_seed(struct hmap *seeds, const struct crawl_record *rec)
{
	struct seed_count *sc = hmap_get(seeds, (const char *)&rec->seed, sizeof(rec->seed));

	if (!sc)
		return;
	sc->reached++;
	sc->fetched += rec->http_status != 0;
	sc->waiting += rec->status == ST_UNFETCHED || crawl_record_status_retries(rec->status);
}

/* read_parts: a job removed the version while it was read (round/live.h) */
#define READ_MOVED 3

/* Reads every part of CrawlDb version ver (or, seg > 0, of segment seg's
 * fetch lists): counts by status, with dump every record as a JSON line,
 * with seeds (id -> struct seed_count) the records of each seed. 0, 1
 * with the damaged file named, or READ_MOVED (nothing said). */
static int read_parts(const struct crawl_dir *d, int ver, int seg, int dump, struct hmap *seeds,
		      uint64_t *counts, uint64_t *total)
{
	struct buf b;
	uint32_t p;
	int rc = 0;

	buf_init(&b);
	for (p = 0; (ver > 0 || seg > 0) && p < d->partitions && !rc; p++) {
		char path[PATH_MAX];
		struct recfile_reader *r;
		const void *data;
		size_t n;
		enum cr_err e;

		if (seg > 0)
			layout_segment_part(d, seg, "fetchlist", p, path, sizeof(path));
		else
			layout_crawldb_part(d, ver, p, path, sizeof(path));
		if (recfile_reader_open(path, seg > 0 ? REC_KIND_FETCHLIST : REC_KIND_CRAWLDB,
					&r) != CR_OK) {
			int now;

			if (seg == 0 && round_version_gone(d, ver, &now)) {
				rc = READ_MOVED;
				break;
			}
			fprintf(stderr, "mpicrawl: cannot read %s part '%s'\n",
				seg > 0 ? "fetch list" : "CrawlDb", path);
			rc = 1;
			break;
		}
		while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
			struct crawl_record rec;

			if (crawl_record_unpack(data, n, &rec) != CR_OK) {
				e = CR_ERR_FORMAT;
				break;
			}
			counts[rec.status]++;
			(*total)++;
			if (dump)
				dump_one(&rec, &b);
			if (seeds)
				count_seed(seeds, &rec);
		}
		if (e != CR_EOF) {
			fprintf(stderr, "mpicrawl: damaged %s part '%s'\n",
				seg > 0 ? "fetch list" : "CrawlDb", path);
			rc = 1;
		}
		recfile_reader_free(&r);
	}
	buf_release(&b);
	return rc;
}

/* readdb --seeds: a JSON line per seed of the crawl. */
static int read_seeds(const struct crawl_dir *d, int ver)
{
	struct scope s;
	struct hmap by_id;
	struct seed_count *counts;
	uint64_t st[ST_COUNT_] = { 0 }, total = 0;
	struct buf b;
	size_t i;
	int rc;

	scope_init(&s, SCOPE_ANY);
	s.keep_plain = 1;
	hmap_init(&by_id);
	if (scope_add_seeds(&s, d, ver) != CR_OK) {
		scope_release(&s);
		return 1;
	}
	counts = calloc(s.nlist + 1, sizeof(*counts));
	for (i = 0; counts && i < s.nlist; i++)
		*hmap_put(&by_id, (const char *)&s.list[i]->id, sizeof(uint64_t)) = &counts[i];
	rc = counts ? read_parts(d, ver, 0, 0, &by_id, st, &total) : 1;
	buf_init(&b);
	for (i = 0; !rc && i < s.nlist; i++) {
		const struct scope_seed *sd = s.list[i];
		const struct seed_count *c = &counts[i];
		int spent = sd->set.max_pages > 0 && c->fetched >= (uint64_t)sd->set.max_pages;

		b.len = 0;
		buf_adds(&b, "{\"seed\":");
		json_str(&b, sd->url, strlen(sd->url));
		buf_addf(&b, ",\"reached\":%llu,\"fetched\":%llu,\"waiting\":%llu,",
			 (unsigned long long)c->reached, (unsigned long long)c->fetched,
			 (unsigned long long)c->waiting);
		if (sd->set.max_pages > 0)
			buf_addf(&b, "\"max_pages\":%ld,", sd->set.max_pages);
		buf_addf(&b, "\"state\":\"%s\"}\n", !c->waiting ? "complete" :
			 spent ? "max_pages" : "open");
		fwrite(b.p, 1, b.len, stdout);
	}
	buf_release(&b);
	hmap_release(&by_id);
	free(counts);
	scope_release(&s);
	return rc;
}

/* The number of an existing segment; 0 with the reason said, and *rc the
 * exit code. */
static int segment_of(const struct crawl_dir *d, const char *segment, int *rc)
{
	char *end, path[PATH_MAX];
	long seg = strtol(segment, &end, 10);

	if (end == segment || *end || seg < 1 || seg > 99999) {
		fprintf(stderr, "mpicrawl: --segment: bad value '%s' (a segment number)\n",
			segment);
		*rc = 2;
		return 0;
	}
	layout_segment_dir(d, (int)seg, path, sizeof(path));
	if (!fs_exists(path)) {
		fprintf(stderr, "mpicrawl: segment %ld does not exist in '%s'\n", seg, d->root);
		*rc = 1;
		return 0;
	}
	return (int)seg;
}

/* Prints segment seg's fetch lists, in the order they are fetched. */
static int read_fetchlist(const struct crawl_dir *d, const char *segment)
{
	uint64_t counts[ST_COUNT_] = { 0 }, total = 0;
	char path[PATH_MAX];
	struct round_snapshot s;
	int rc = 0, seg = segment_of(d, segment, &rc);

	if (!seg)
		return rc;
	layout_segment_sub(d, seg, "fetchlist", path, sizeof(path));
	if (!fs_exists(path)) {
		fprintf(stderr, "mpicrawl: segment %d has no fetch lists\n", seg);
		return 1;
	}
	state_read(d, seg, &s);
	if (!round_sub_committed(s.phases, "fetchlist")) {
		fprintf(stderr, "mpicrawl: the fetch lists of segment %d are not committed (its "
			"generate is under way, or was interrupted)\n", seg);
		return 1;
	}
	return read_parts(d, 0, seg, 1, NULL, counts, &total);
}

/* readdb --ranks: what mpicrawl rank wrote, a JSON line per URL. */
static int read_ranks(const struct crawl_dir *d)
{
	struct buf b;
	uint32_t p;
	int rc = 0;

	buf_init(&b);
	for (p = 0; p < d->partitions && !rc; p++) {
		char path[PATH_MAX];
		struct recfile_reader *r;
		const void *data;
		size_t n;
		enum cr_err e;

		rank_part_path(d, p, path, sizeof(path));
		if (recfile_reader_open(path, REC_KIND_RANK, &r) != CR_OK) {
			fprintf(stderr, "mpicrawl: cannot read '%s' (has 'mpicrawl rank' run?)\n",
				path);
			rc = 1;
			break;
		}
		while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
			struct rank_record rr;

			if (rank_record_unpack(data, n, &rr) != CR_OK) {
				e = CR_ERR_FORMAT;
				break;
			}
			b.len = 0;
			buf_adds(&b, "{\"url\":");
			json_str(&b, rr.url, rr.url_len);
			buf_addf(&b, ",\"page\":%.12g,\"host\":%.12g,\"harmonic\":%.12g}\n",
				 rr.page, rr.host, rr.harmonic);
			fwrite(b.p, 1, b.len, stdout);
		}
		if (e != CR_EOF) {
			fprintf(stderr, "mpicrawl: damaged rank part '%s'\n", path);
			rc = 1;
		}
		recfile_reader_free(&r);
	}
	buf_release(&b);
	return rc;
}

/* Prints segment seg's decision log. */
static int read_decisions(const struct crawl_dir *d, const char *segment)
{
	struct round_snapshot s;
	uint64_t lines;
	enum cr_err e;
	int rc = 0;
	long seg = segment_of(d, segment, &rc);

	if (!seg)
		return rc;
	state_read(d, (int)seg, &s);
	e = decisions_print(d, (int)seg, round_decision_kinds(s.phases), stdout, &lines);
	if (e == CR_EOF) {
		fprintf(stderr, "mpicrawl: segment %ld has no decision log (its update has not "
			"run, or log.decisions was false)\n", seg);
		return 1;
	}
	return e ? 1 : 0;
}

/* readdb --stats (dump 0) or --dump of CrawlDb version ver. */
static int read_current(const struct crawl_dir *d, int ver, int dump)
{
	uint64_t counts[ST_COUNT_] = { 0 }, total = 0;
	int rc = read_parts(d, ver, 0, dump, NULL, counts, &total), s;

	if (dump || rc)
		return rc;
	printf("crawldb version %d: %llu URLs\n", ver, (unsigned long long)total);
	for (s = 0; s < ST_COUNT_; s++)
		printf("%-10s %llu\n", crawl_record_status_name(s), (unsigned long long)counts[s]);
	return 0;
}

/* readdb --stats, --dump or --seeds of CrawlDb version ver, the one the
 * line about a running job said; when the job removes it meanwhile (two
 * commits), --stats and --seeds read the newer one, a dump is cut. */
static int read_committed(const struct crawl_dir *d, int ver, int mode)
{
	int tries, rc = 1, now = ver;

	for (tries = 0; tries < 3; tries++) {
		ver = now;
		rc = mode == 'S' ? read_seeds(d, ver) : read_current(d, ver, mode == 'D');
		if (rc != READ_MOVED)
			return rc;
		if (layout_crawldb_current(d, &now) != CR_OK)
			return 1;
		if (mode == 'D') {
			fprintf(stderr, "mpicrawl readdb: the job committed CrawlDb version %d and "
				"removed version %d while it was dumped: the dump is cut; run it "
				"again\n", now, ver);
			return 1;
		}
		fprintf(stderr, "mpicrawl readdb: the job committed CrawlDb version %d and removed "
			"version %d while it was read: reading version %d\n", now, ver, now);
	}
	return 1;
}

/* What --help says after the usage line. */
static const char help[] =
	"  --dir DIR      the crawl directory\n"
	"  --stats        its current CrawlDb's URLs by status\n"
	"  --dump         every URL as a JSON line: url, status,\n"
	"                 http_status, depth, retries, fetched_at,\n"
	"                 next_fetch (seconds), digest, reason (why its\n"
	"                 last fetch failed), dup_of, kind, lastmod,\n"
	"                 priority, changefreq; score, cash and history\n"
	"                 (OPIC, docs/SCORING.md); etag, last_modified,\n"
	"                 visits ([seconds since the visit before, 1 if\n"
	"                 changed, its Last-Modified age], newest first),\n"
	"                 first_age and changes_per_day\n"
	"                 (their estimate, docs/SCORING.md)\n"
	"  --fetchlist    segment N's fetch lists, as --dump, in the order\n"
	"  --segment N    each partition's are fetched\n"
	"  --ranks        what 'mpicrawl rank' computed, a JSON line per\n"
	"                 URL: page (PageRank x URLs), host (its host's\n"
	"                 PageRank x hosts), harmonic (its host's harmonic\n"
	"                 centrality / (hosts - 1))\n"
	"  --seeds        each seed as a JSON line: seed, reached (URLs\n"
	"                 first reached from it), fetched (answered by\n"
	"                 their server), waiting (due\n"
	"                 or to retry), max_pages, state: complete,\n"
	"                 max_pages (its limit spent) or open\n"
	"  --decisions    every URL segment N did not fetch or store, as\n"
	"  --segment N    JSON lines: url, reason, from (docs/SCOPE.md)\n\n"
	"while a job runs, readdb reads what it has committed, and says so\n"
	"on stderr\n\n"
	"exit codes: 0 done; 1 not a crawl directory, no such segment or\n"
	"log, or a damaged file (named); 2 bad usage\n";

int cmd_readdb(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "stats", no_argument, NULL, 's' },
		{ "dump", no_argument, NULL, 'D' },
		{ "decisions", no_argument, NULL, 'x' },
		{ "seeds", no_argument, NULL, 'S' },
		{ "fetchlist", no_argument, NULL, 'f' },
		{ "ranks", no_argument, NULL, 'R' },
		{ "segment", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *segment = NULL;
	int mode = 0, c;
	struct config cfg;
	struct crawl_dir d;
	struct round_live live;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 's': mode = 's'; break;
		case 'D': mode = 'D'; break;
		case 'x': mode = 'x'; break;
		case 'S': mode = 'S'; break;
		case 'f': mode = 'f'; break;
		case 'R': mode = 'R'; break;
		case 'g': segment = optarg; break;
		case 'h':
			printf("usage: %s\n\n%s", usage, help);
			return 0;
		default:
			fprintf(stderr, "mpicrawl: bad option '%s'\nusage: %s\n",
				argv[optind - 1], usage);
			return 2;
		}
	}
	if (!dir || !mode || optind < argc ||
	    (mode == 'x' || mode == 'f') != (segment != NULL)) {
		fprintf(stderr, "mpicrawl: readdb needs --dir and --stats, --dump, --seeds, "
			"--ranks, or --decisions or --fetchlist with --segment\nusage: %s\n",
			usage);
		return 2;
	}
	config_defaults(&cfg);
	if (layout_open(dir, &cfg, 0, &d) != CR_OK)
		return 1;
	round_live_read(&d, &live);
	round_live_say(&live, "readdb");
	if (mode == 'x')
		return read_decisions(&d, segment);
	if (mode == 'f')
		return read_fetchlist(&d, segment);
	if (mode == 'R')
		return read_ranks(&d);
	if (!live.s.ok)
		return 1;   /* said: CURRENT cannot be read */
	return read_committed(&d, live.s.version, mode);
}

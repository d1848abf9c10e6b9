#include "fetch/fetch.h"
#include "comm/comm.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/parse_record.h"
#include "fetch/addr.h"
#include "fetch/dns.h"
#include "fetch/http_head.h"
#include "fetch/journal.h"
#include "fetch/progress.h"
#include "fetch/sched.h"
#include "parse/decode.h"
#include "parse/parse.h"
#include "robots/cache.h"
#include "robots/robots.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/stop.h"
#include "warc/warc.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <xxhash.h>
#include <libpsl.h>

/* The request head we keep for the WARC (ours: a few hundred bytes). */
#define HEAD_MAX (256u << 10)
/* RFC 9309 2.3.1.2: at least five consecutive redirects are followed. */
#define ROBOTS_MAX_HOPS 5
#define MAX_WAITFDS 16

/* Why a body is shorter than the server sent: WARC-Truncated's values.
 * Only the body cap cuts a page that is kept; a body that ends early for
 * another reason (time, a lost connection) makes the fetch a failure. */
enum cut { CUT_NONE, CUT_LENGTH };
static const char *const cut_names[] = { NULL, "length" };

const char *const fetch_counter_names[FC_COUNT_] = {
	"urls", "requests", "robots_requests", "robots_cached", "fetched",
	"redirect", "gone", "error", "denied", "blocked", "deferred", "truncated",
	"not_reached", "robots_unavailable", "robots_wait", "backoffs", "parked",
	"bytes", "dns_queries", "dns_failed", "hosts", "latency_us_sum", "too_large", "timeout",
	"revisits",
};

enum robots_state { RB_UNKNOWN, RB_FETCHING, RB_READY, RB_UNAVAILABLE };

/* robots.txt of one origin (scheme://authority), cached across rounds. */
struct origin {
	char *key;
	uint32_t part;
	enum robots_state state;
	struct robots *rules;
	int64_t fetched_at;
	int http_status;
	struct buf body;
	int dirty;            /* fetched this round: write to the cache */
	struct host *host;    /* the host queue of its URLs */
	char *robots_url;     /* where its robots.txt is asked (after redirects) */
	int hops;             /* redirects of robots.txt followed */
	struct robots_cache_times times;  /* from the cache: politeness carried over */
};

struct item {
	char *url;
	struct crawl_record rec;
	uint32_t part;
	struct origin *origin;
};

enum dns_state { HD_NONE, HD_RESOLVING, HD_OK, HD_FAILED };

/* Hosts that share one politeness budget (politeness.by = domain or ip). */
struct pgroup {
	struct sched_host gate;   /* timing of the group's requests (not in the heap) */
	struct host **members;
	size_t n, cap;
};

struct host {
	struct sched_host s;      /* first: the heap hands back &host->s */
	struct sched_host *gate;  /* the timing politeness applies to: &s, or a group's */
	struct pgroup *group;     /* NULL when politeness is per host */
	struct sched_policy pol;  /* politeness.* raised by the host's Crawl-delay */
	char *name;
	char addr[64];
	enum dns_state dns;
	const char *fail_reason;
	int fail_status;
	struct item **items;
	size_t n, cap, next;
	struct origin *waiting;   /* robots.txt in flight for this origin */
	int failures;             /* consecutive failed requests */
	struct fetcher *f;
	int done;
};

struct xfer {
	CURL *easy;
	struct host *h;
	struct item *item;        /* NULL for robots.txt */
	struct origin *origin;
	struct buf req, head, body;
	int truncated;        /* enum cut: why the body is shorter than sent */
	int head_too_big;
	int blocked_addr;
	int64_t start_wall, start_mono;
	char errbuf[CURL_ERROR_SIZE];
	struct curl_slist *resolve;
	struct xfer *prev, *next;   /* the fetcher's list of open transfers */
};

struct part_out {
	struct recfile_writer *fetch;
	struct recfile_writer *parse;     /* with fetch.parse */
	struct warc_writer *warc, *warc_robots, *warc_diag;
	char warc_name[64], robots_name[64], diag_name[64];
	struct journal *jn;           /* finished URLs, made durable in batches */
	int attempt;                  /* of this fetch of the segment: names its WARCs */
};

struct fetcher {
	struct job *j;
	int seg;
	struct sched_policy pol;
	struct hmap hosts;        /* name -> struct host */
	struct hmap groups;       /* domain or address -> struct pgroup */
	struct hmap origins;      /* origin -> struct origin */
	struct sched_heap heap;
	struct dns *dns;
	CURLM *multi;
	struct part_out *out;     /* per partition (owned ones used) */
	struct addr_list allow;   /* fetch.allow_addresses */
	uint64_t c[FC_COUNT_];
	uint64_t pc[PC_COUNT_];     /* parse counters, with fetch.parse */
	int robots_ver;             /* the robots cache read at start (0: none) */
	struct buf parsed;
	int active;
	struct xfer *open;          /* open transfers */
	struct xfer *spare;         /* finished ones, kept for reuse */
	int hosts_left;
	int stopping;
	struct buf scratch;
	enum cr_err failed;
	char seg_dir[PATH_MAX - 128];
	struct hmap done;           /* URLs an earlier attempt finished (journal.h) */
	struct buf jfetch;          /* the outcome emit() wrote, until it is journaled */
	uint32_t resume_part;       /* the partition journal_resume_part works on */
	uint64_t kept, warc_cut;    /* what resuming kept and cut, for the log */
	int64_t drain_until;        /* asked to stop: open requests may end until then */
	int64_t next_sync;          /* next journal batch */
};

static void host_reschedule(struct fetcher *f, struct host *h);
static int apply_crawl_delay(struct fetcher *f, struct host *h, const struct origin *o);
static void hold_for_retry_after(struct fetcher *f, struct xfer *x);
static void join_group(struct fetcher *f, struct host *h, const char *key);

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	return d;
}

/* ---- outputs ---- */

static struct part_out *part_out(struct fetcher *f, uint32_t p)
{
	struct part_out *o = &f->out[p];

	if (!o->fetch && !f->failed) {
		char path[PATH_MAX];
		enum cr_err e;

		layout_segment_part(&f->j->dir, f->seg, "fetch", p, path, sizeof(path));
		e = recfile_writer_open(path, REC_KIND_FETCH, (int)f->j->cfg.zstd_level, &o->fetch);
		if (!e && f->j->cfg.fetch_parse) {
			layout_segment_part(&f->j->dir, f->seg, "parse", p, path, sizeof(path));
			e = recfile_writer_open(path, REC_KIND_PARSE, (int)f->j->cfg.zstd_level,
					    &o->parse);
		}
		if (e)
			f->failed = e;
	}
	return o;
}

/* The WARC series of a partition: pages (2xx, 304), robots.txt, and
 * diagnostics - redirects, 4xx, 5xx - as Common Crawl keeps them apart. */
enum warc_kind { WK_PAGES, WK_ROBOTS, WK_DIAGNOSTICS };

static struct warc_writer *warc_for(struct fetcher *f, uint32_t p, int kind,
				    const char **name)
{
	struct part_out *o = part_out(f, p);
	struct warc_writer **w = kind == WK_ROBOTS ? &o->warc_robots :
				  kind == WK_DIAGNOSTICS ? &o->warc_diag : &o->warc;
	char *nm = kind == WK_ROBOTS ? o->robots_name :
		   kind == WK_DIAGNOSTICS ? o->diag_name : o->warc_name;
	static const char *const suffix[] = { "", "-robots", "-diagnostics" };

	if (!*w && !f->failed) {
		char path[PATH_MAX];
		enum cr_err e;

		const struct config *c = &f->j->cfg;
		struct warc_writer_opts wo = { c->warc_compression, (int)(c->warc_compression ?
			c->warc_zstd_level : c->warc_gzip_level), (uint64_t)c->warc_max_bytes,
			NULL, 0, c->warc_zstd_dict[0] ? c->warc_zstd_dict : NULL };

		journal_warc_prefix(f->seg, p, o->attempt, nm, 64);
		snprintf(path, sizeof(path), "%s/warc", f->seg_dir);
		e = warc_writer_open_series(path, nm, suffix[kind], "mpicrawl/0.1", &wo, w);
		if (e)
			f->failed = e;
	}
	/* The writer's name follows its rotations: read after the write. */
	*name = *w ? warc_writer_name(*w) : "";
	return *w;
}

static void count_outcome(struct fetcher *f, int status);
static void journal_outcome(struct fetcher *f, uint32_t p, struct warc_writer *archived,
			    const void *parse, size_t parse_len);

static void emit(struct fetcher *f, struct item *it, struct fetch_record *fr)
{
	struct part_out *o = part_out(f, it->part);

	if (!o->fetch)
		return;
	fr->rec.url = it->url;
	fr->rec.url_len = strlen(it->url);
	fr->rec.depth = it->rec.depth;
	fr->rec.retries = it->rec.retries;
	fr->rec.hops = it->rec.hops;
	f->scratch.len = 0;
	fetch_record_pack(fr, &f->scratch);
	if (recfile_writer_add(o->fetch, f->scratch.p, f->scratch.len) != CR_OK)
		f->failed = CR_ERR_IO;
	f->jfetch.len = 0;
	buf_add(&f->jfetch, f->scratch.p, f->scratch.len);
	count_outcome(f, fr->rec.status);
}

static void count_outcome(struct fetcher *f, int status)
{
	switch (status) {
	case ST_FETCHED: f->c[FC_FETCHED]++; break;
	case ST_REDIRECT: f->c[FC_REDIRECT]++; break;
	case ST_GONE: f->c[FC_GONE]++; break;
	case ST_DENIED: f->c[FC_DENIED]++; break;
	case ST_BLOCKED: f->c[FC_BLOCKED]++; break;
	case ST_DEFERRED: f->c[FC_DEFERRED]++; break;
	case ST_TRUNCATED: f->c[FC_TRUNCATED]++; break;
	case ST_TOO_LARGE: f->c[FC_TOO_LARGE]++; break;
	case ST_TIMEOUT: f->c[FC_TIMEOUT]++; break;
	default: f->c[FC_ERROR]++; break;
	}
}

/* An outcome without a request: denied, blocked, DNS failure. */
static void emit_status(struct fetcher *f, struct item *it, int status, const char *reason)
{
	struct fetch_record fr;

	memset(&fr, 0, sizeof(fr));
	fr.rec.status = (uint8_t)status;
	fr.rec.fetched_at = clock_now_us();
	fr.reason = reason;
	fr.reason_len = strlen(reason);
	fr.location = fr.content_type = fr.charset = fr.warc = "";
	emit(f, it, &fr);
	journal_outcome(f, it->part, NULL, NULL, 0);
}

/* ---- the journal (journal.h): what a killed or stopped fetch keeps ---- */

/* Journals the outcome emit() just wrote, with its parse record (or none)
 * and, if archived, the end of its exchange in the WARC file written to. */
static void journal_outcome(struct fetcher *f, uint32_t p, struct warc_writer *archived,
			    const void *parse, size_t parse_len)
{
	struct part_out *o = &f->out[p];
	struct journal_entry je;

	if (!o->jn || !f->jfetch.len)
		return;
	memset(&je, 0, sizeof(je));
	je.kind = JOURNAL_OUTCOME;
	je.warc = archived ? warc_writer_name(archived) : "";
	je.warc_len = strlen(je.warc);
	je.warc_end = je.warc_len ? warc_writer_offset(archived) : 0;
	je.fetch = f->jfetch.p;
	je.fetch_len = f->jfetch.len;
	je.parse = parse;
	je.parse_len = parse_len;
	journal_add(o->jn, &je);
	f->jfetch.len = 0;
}

/* A robots.txt exchange in the partition's robots WARC: journaled so that a
 * resumed fetch keeps it. */
static void journal_robots(struct fetcher *f, uint32_t p)
{
	struct part_out *o = &f->out[p];
	struct journal_entry je;

	if (!o->jn || !o->warc_robots)
		return;
	memset(&je, 0, sizeof(je));
	je.kind = JOURNAL_WARC;
	je.warc = warc_writer_name(o->warc_robots);
	je.warc_len = strlen(je.warc);
	je.warc_end = warc_writer_offset(o->warc_robots);
	journal_add(o->jn, &je);
}

/* Makes the journaled outcomes durable: the WARC bytes first, then the
 * entries that name them. */
static void sync_journals(struct fetcher *f)
{
	uint32_t p;

	for (p = 0; p < f->j->dir.partitions && !f->failed; p++) {
		struct part_out *o = &f->out[p];

		if (!journal_pending(o->jn))
			continue;
		if (warc_writer_sync(o->warc) != CR_OK ||
		    warc_writer_sync(o->warc_robots) != CR_OK ||
		    warc_writer_sync(o->warc_diag) != CR_OK || journal_sync(o->jn) != CR_OK)
			f->failed = CR_ERR_IO;
	}
}

/* An outcome an earlier attempt committed: kept as it is, and its URL is
 * not fetched again. */
static enum cr_err keep_done(void *arg, const void *fetch, size_t fetch_len,
			     const void *parse, size_t parse_len)
{
	struct fetcher *f = arg;
	struct part_out *o = part_out(f, f->resume_part);
	struct fetch_record fr;

	if (f->failed || !o->fetch)
		return f->failed ? f->failed : CR_ERR_IO;
	if (fetch) {
		if (fetch_record_unpack(fetch, fetch_len, &fr) != CR_OK)
			return CR_ERR_FORMAT;
		*hmap_put(&f->done, fr.rec.url, fr.rec.url_len) = f;
		if (recfile_writer_add(o->fetch, fetch, fetch_len) != CR_OK)
			return CR_ERR_IO;
		count_outcome(f, fr.rec.status);
	}
	if (parse && o->parse && recfile_writer_add(o->parse, parse, parse_len) != CR_OK)
		return CR_ERR_IO;
	return CR_OK;
}

/* Takes over what earlier attempts at this segment left in partition p. */
static enum cr_err resume_partition(struct fetcher *f, uint32_t p)
{
	struct journal_resume r;
	enum cr_err e;

	f->resume_part = p;
	e = journal_resume_part(f->j, f->seg, p, f->j->cfg.fetch_parse, keep_done, f, &r);
	if (e)
		return e;
	f->out[p].jn = r.jn;
	f->out[p].attempt = r.attempt;
	f->kept += r.kept;
	f->warc_cut += r.warc_cut;
	return f->failed;
}

/* "Stop soon" (util/stop.h), asked of this rank or of another (comm.h). */
static int stop_asked(void)
{
	if (stop_requested()) {
		comm_notice_send();
		return 1;
	}
	return comm_notice_heard();
}

/* ---- loading ---- */

static struct origin *origin_get(struct fetcher *f, const char *key, uint32_t part)
{
	struct origin **slot = (struct origin **)hmap_put(&f->origins, key, strlen(key));

	if (!*slot) {
		struct origin *o = calloc(1, sizeof(*o));

		if (!o) {
			fputs("mpicrawl: out of memory\n", stderr);
			abort();
		}
		o->key = xstrdup(key);
		o->part = part;
		buf_init(&o->body);
		*slot = o;
	}
	return *slot;
}

static void origin_set_rules(struct fetcher *f, struct origin *o)
{
	robots_free(&o->rules);
	if (o->http_status >= 200 && o->http_status < 300) {
		if (robots_parse(o->body.p, o->body.len, f->j->cfg.robots_agent,
				 &o->rules) != CR_OK)
			o->rules = robots_new_allow_all();
		o->state = RB_READY;
	} else if ((o->http_status >= 400 && o->http_status < 500 && o->http_status != 429) ||
		   (o->http_status >= 300 && o->http_status < 400)) {
		/* 4xx, or redirects beyond ROBOTS_MAX_HOPS: "unavailable" (RFC
		 * 9309 2.3.1.3), everything may be crawled. */
		o->rules = robots_new_allow_all();
		o->state = RB_READY;
	} else {
		o->state = RB_UNAVAILABLE;
	}
}

/* One record of the robots cache, unpacked (strings borrowed). */
struct cached_robots {
	const void *data;         /* the packed record */
	size_t n;
	char key[600];
	int64_t at;
	int status;
	const char *body;
	size_t body_len;
	struct robots_cache_times times;
};

/*
 * Calls fn for each record of partition p in the robots cache this phase
 * started from (possibly this segment's own, from an attempt that did not
 * finish: it is replaced only at commit). The cache only saves requests: a
 * damaged file is reported and its remaining entries dropped, never fatal -
 * otherwise every retry of the phase would fail on it again. fn returns
 * CR_OK to go on.
 */
static enum cr_err scan_robots_cache(struct fetcher *f, uint32_t p,
				     enum cr_err (*fn)(struct fetcher *, struct cached_robots *,
						       void *),
				     void *arg)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	struct cached_robots c;
	enum cr_err e;

	if (f->robots_ver == 0)
		return CR_OK;
	layout_robots_part(&f->j->dir, f->robots_ver, p, path, sizeof(path));
	if (!fs_exists(path))
		return CR_OK;
	e = recfile_reader_open(path, REC_KIND_ROBOTS, &r);
	if (e == CR_ERR_FORMAT) {
		log_warn("fetch", "damaged robots cache '%s' ignored", path);
		return CR_OK;
	}
	if (e)
		return e;
	while ((e = recfile_reader_next(r, &c.data, &c.n)) == CR_OK) {
		e = robots_cache_unpack(c.data, c.n, c.key, sizeof(c.key), &c.at, &c.status,
					&c.body, &c.body_len, &c.times);
		if (!e)
			e = fn(f, &c, arg);
		if (e)
			break;
	}
	recfile_reader_free(&r);
	if (e == CR_ERR_FORMAT) {
		log_warn("fetch", "damaged robots cache '%s': its later entries dropped", path);
		return CR_OK;
	}
	return e == CR_EOF ? CR_OK : e;
}

/*
 * Only the origins of this round's fetch list are loaded (after the fetch
 * list); the others are copied from the old file to the new one as they are
 * (carry_robots), so memory grows with the round, not with every host ever
 * seen.
 */
static enum cr_err load_one(struct fetcher *f, struct cached_robots *c, void *arg)
{
	int64_t now = *(const int64_t *)arg;
	struct origin *o = hmap_get(&f->origins, c->key, strlen(c->key));

	if (!o)
		return CR_OK;   /* not needed this round */
	o->fetched_at = c->at;
	o->http_status = c->status;
	o->times = c->times;
	buf_add(&o->body, c->body, c->body_len);
	if (now - c->at < (int64_t)f->j->cfg.robots_ttl_s * 1000000) {
		origin_set_rules(f, o);
		/* A failed robots.txt is asked again after the retry interval. */
		if (o->state == RB_UNAVAILABLE &&
		    now - c->at >= (int64_t)f->j->cfg.retry_interval_s * 1000000)
			o->state = RB_UNKNOWN;
	} else {
		o->state = RB_UNKNOWN;   /* expired: fetch again when needed */
	}
	return CR_OK;
}

static enum cr_err load_robots_cache(struct fetcher *f, uint32_t p, int64_t now)
{
	return scan_robots_cache(f, p, load_one, &now);
}

/* Entries older than this many TTLs are not carried forward: a host not
 * crawled for that long has its robots.txt fetched again anyway. */
#define ROBOTS_KEEP_TTLS 4

static enum cr_err carry_one(struct fetcher *f, struct cached_robots *c, void *arg)
{
	int64_t keep = (int64_t)f->j->cfg.robots_ttl_s * 1000000 * ROBOTS_KEEP_TTLS;

	if (hmap_get(&f->origins, c->key, strlen(c->key)) || clock_now_us() - c->at > keep)
		return CR_OK;
	return recfile_writer_add(arg, c->data, c->n);
}

/* Copies the previous cache's entries of partition p that this round did
 * not load into w. */
static enum cr_err carry_robots(struct fetcher *f, uint32_t p, struct recfile_writer *w)
{
	return scan_robots_cache(f, p, carry_one, w);
}

/* Monotonic and wall clock readings of one instant, to convert between. */
static int64_t wall_of(int64_t mono)
{
	return mono - clock_mono_us() + clock_now_us();
}

static int64_t mono_of(int64_t wall)
{
	return wall - clock_now_us() + clock_mono_us();
}

/* The times to keep for an origin: its host's last request and hold, or
 * what the cache said if the host made no request this phase. */
static const struct robots_cache_times *origin_times(struct origin *o)
{
	const struct host *h = o->host;

	if (h && h->gate->last_end_us != INT64_MIN) {
		int64_t hold = h->gate->not_before_us ? wall_of(h->gate->not_before_us) : 0;

		o->times.last_end = wall_of(h->gate->last_end_us);
		if (hold > o->times.hold_until)
			o->times.hold_until = hold;
	}
	return &o->times;
}

/*
 * Politeness does not restart with the phase: the host's last request and
 * any hold (Retry-After, back-off) of the previous phase, and the Crawl-delay
 * of its cached robots.txt, apply to its first request of this one.
 */
static void carry_politeness(struct fetcher *f, struct host *h, struct origin *o)
{
	int64_t now = clock_now_us();

	if (o->times.last_end > 0 && o->times.last_end <= now) {
		int64_t t = mono_of(o->times.last_end);

		if (h->gate->last_end_us == INT64_MIN || t > h->gate->last_end_us)
			h->gate->last_end_us = t;
		if (h->gate->last_start_us == INT64_MIN || t > h->gate->last_start_us)
			h->gate->last_start_us = t;
	}
	if (o->times.hold_until > now && mono_of(o->times.hold_until) > h->gate->not_before_us)
		h->gate->not_before_us = mono_of(o->times.hold_until);
	if (o->state == RB_READY)
		apply_crawl_delay(f, h, o);
}

static enum cr_err write_robots_cache(struct fetcher *f)
{
	struct recfile_writer **w;
	struct hmap_slot *s;
	size_t i = 0;
	uint32_t p;
	enum cr_err e = CR_OK;
	char path[PATH_MAX];

	w = calloc(f->j->dir.partitions, sizeof(*w));
	if (!w)
		return CR_ERR_NOMEM;
	snprintf(path, sizeof(path), "%s/robots/%05d", f->j->dir.root, f->seg);
	e = fs_mkdirs(path);
	for (p = 0; !e && p < f->j->dir.partitions; p++) {
		if (!layout_owns(p, f->j->rank, f->j->nranks))
			continue;
		layout_robots_part(&f->j->dir, f->seg, p, path, sizeof(path));
		e = recfile_writer_open(path, REC_KIND_ROBOTS, (int)f->j->cfg.zstd_level, &w[p]);
	}
	while (!e && (s = hmap_next(&f->origins, &i)) != NULL) {
		struct origin *o = s->val;

		/* Loaded but expired entries are written back, as the old file had
		 * them; unavailable ones too, so the next round knows when the
		 * robots.txt failed (it is asked again after crawl.retry_interval_s). */
		if (o->fetched_at == 0 || !w[o->part])
			continue;
		f->scratch.len = 0;
		robots_cache_pack(&f->scratch, o->key, o->fetched_at, o->http_status,
				  o->body.p, o->body.len, origin_times(o));
		e = recfile_writer_add(w[o->part], f->scratch.p, f->scratch.len);
	}
	for (p = 0; !e && p < f->j->dir.partitions; p++)
		if (w[p])
			e = carry_robots(f, p, w[p]);
	for (p = 0; p < f->j->dir.partitions; p++) {
		if (!w[p])
			continue;
		if (e)
			recfile_writer_abort(&w[p]);
		else
			e = recfile_writer_commit(&w[p]);
	}
	free(w);
	return e;
}

static enum cr_err load_fetchlist(struct fetcher *f, uint32_t p)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e;

	layout_segment_part(&f->j->dir, f->seg, "fetchlist", p, path, sizeof(path));
	e = recfile_reader_open(path, REC_KIND_FETCHLIST, &r);
	if (e) {
		log_err("fetch", "cannot read fetch list '%s'", path);
		return e;
	}
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;
		char url[URL_MAX_LEN + 1], name[URL_HOST_MAX], origin[URL_HOST_MAX + 16];
		struct host **slot, *h;
		struct item *it;
		size_t ol;

		if (crawl_record_unpack(data, n, &rec) || rec.url_len > URL_MAX_LEN) {
			e = CR_ERR_FORMAT;
			break;
		}
		if (f->done.count && hmap_get(&f->done, rec.url, rec.url_len)) {
			f->c[FC_URLS]++;   /* an earlier attempt finished it */
			continue;
		}
		memcpy(url, rec.url, rec.url_len);
		url[rec.url_len] = '\0';
		if (url_host(url, name, sizeof(name)) != CR_OK)
			continue;
		slot = (struct host **)hmap_put(&f->hosts, name, strlen(name));
		if (!*slot) {
			h = calloc(1, sizeof(*h));
			if (!h)
				abort();
			sched_host_init(&h->s);
			h->gate = &h->s;
			h->pol = f->pol;
			if (f->j->cfg.politeness_by == POLITE_BY_DOMAIN) {
				const char *reg = psl_registrable_domain(psl_builtin(), name);

				join_group(f, h, reg ? reg : name);
			}
			h->name = xstrdup(name);
			h->f = f;
			*slot = h;
			f->hosts_left++;
			f->c[FC_HOSTS]++;
		}
		h = *slot;
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 8;
			struct item **ni = realloc(h->items, cap * sizeof(*ni));

			if (!ni)
				abort();
			h->items = ni;
			h->cap = cap;
		}
		it = calloc(1, sizeof(*it));
		if (!it)
			abort();
		it->url = xstrdup(url);
		it->rec = rec;
		it->rec.url = it->url;
		it->part = p;
		ol = (size_t)(url_path(url) - url);
		if (ol >= sizeof(origin))
			ol = sizeof(origin) - 1;
		memcpy(origin, url, ol);
		origin[ol] = '\0';
		it->origin = origin_get(f, origin, p);
		it->origin->host = h;
		h->items[h->n++] = it;
		f->c[FC_URLS]++;
	}
	recfile_reader_free(&r);
	if (e == CR_ERR_FORMAT)
		log_err("fetch", "damaged fetch list '%s'", path);
	return e == CR_EOF ? CR_OK : e;
}

/* Puts h into the politeness group of key (created on first use). */
static void join_group(struct fetcher *f, struct host *h, const char *key)
{
	struct pgroup **slot = (struct pgroup **)hmap_put(&f->groups, key, strlen(key));
	struct pgroup *g = *slot;

	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g)
			abort();
		sched_host_init(&g->gate);
		*slot = g;
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 4;
		struct host **nm = realloc(g->members, cap * sizeof(*nm));

		if (!nm)
			abort();
		g->members = nm;
		g->cap = cap;
	}
	g->members[g->n++] = h;
	/* What the host carried from the previous phase binds the group too. */
	if (h->s.last_end_us > g->gate.last_end_us)
		g->gate.last_end_us = h->s.last_end_us;
	if (h->s.last_start_us > g->gate.last_start_us)
		g->gate.last_start_us = h->s.last_start_us;
	if (h->s.not_before_us > g->gate.not_before_us)
		g->gate.not_before_us = h->s.not_before_us;
	h->group = g;
	h->gate = &g->gate;
}

/* ---- transfers ---- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;
	size_t max = (size_t)x->h->f->j->cfg.max_body_bytes;

	if (x->body.len + n > max) {
		buf_add(&x->body, data, max - x->body.len);
		x->truncated = CUT_LENGTH;
		return 0;   /* ends the transfer: the cap is a status, not an error */
	}
	buf_add(&x->body, data, n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;

	/* A new status line starts a new response (after 1xx or a redirect). */
	if (n >= 5 && !memcmp(data, "HTTP/", 5))
		x->head.len = 0;
	if (x->head.len + n > (size_t)x->h->f->j->cfg.max_header_bytes) {
		x->head_too_big = 1;
		return 0;
	}
	buf_add(&x->head, data, n);
	return n;
}

static int on_debug(CURL *easy, curl_infotype type, char *data, size_t n, void *arg)
{
	struct xfer *x = arg;

	(void)easy;
	if (type == CURLINFO_HEADER_OUT) {
		x->req.len = 0;
		buf_add(&x->req, data, n < HEAD_MAX ? n : HEAD_MAX);
	}
	return 0;
}

/* The address actually connected to is checked here, after any DNS. */
static curl_socket_t on_opensocket(void *arg, curlsocktype purpose,
				   struct curl_sockaddr *a)
{
	struct xfer *x = arg;

	(void)purpose;
	if (!x->h->f->j->cfg.allow_private && !addr_is_public(&a->addr) &&
	    !addr_list_has(&x->h->f->allow, &a->addr)) {
		x->blocked_addr = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

static int default_port(const char *url)
{
	return !strncmp(url, "https:", 6) ? 443 : 80;
}

/* Bodies larger than this are not kept in a spare transfer's buffer. */
#define SPARE_BODY_MAX (1u << 20)

/*
 * A transfer, new or reused: easy handles and buffers of finished transfers
 * are kept (curl_easy_reset keeps a handle's allocations), which spares a
 * few allocations and a large memset per request.
 */
static struct xfer *xfer_get(struct fetcher *f)
{
	struct xfer *x = f->spare;

	if (x) {
		f->spare = x->next;
		curl_easy_reset(x->easy);
		x->req.len = x->head.len = x->body.len = 0;
		x->truncated = x->head_too_big = x->blocked_addr = 0;
		x->errbuf[0] = '\0';
		x->prev = x->next = NULL;
		return x;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->easy = curl_easy_init();
	if (!x->easy) {
		free(x);
		return NULL;
	}
	buf_init(&x->req);
	buf_init(&x->head);
	buf_init(&x->body);
	return x;
}

static void xfer_destroy(struct xfer *x)
{
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->resolve);
	buf_release(&x->req);
	buf_release(&x->head);
	buf_release(&x->body);
	free(x);
}

static enum cr_err start_xfer(struct fetcher *f, struct host *h, struct item *it,
			      struct origin *o)
{
	struct xfer *x = xfer_get(f);
	char url[URL_MAX_LEN + 32], resolve[URL_HOST_MAX + 96], auth[URL_HOST_MAX + 8];
	const char *colon;
	int port;
	const struct config *cfg = &f->j->cfg;

	if (!x)
		return CR_ERR_NOMEM;
	x->h = h;
	x->item = it;
	x->origin = o;
	if (it)
		snprintf(url, sizeof(url), "%s", it->url);
	else
		snprintf(url, sizeof(url), "%s", o->robots_url ? o->robots_url : "");
	if (!it && !o->robots_url)
		snprintf(url, sizeof(url), "%s/robots.txt", o->key);
	if (url_authority(url, auth, sizeof(auth)) != CR_OK)
		auth[0] = '\0';
	colon = strrchr(auth, ':');
	port = colon && !strchr(colon, ']') ? (int)strtol(colon + 1, NULL, 10)
					      : default_port(url);
	snprintf(resolve, sizeof(resolve), "%s:%d:%s%s%s", h->name, port,
		 strchr(h->addr, ':') ? "[" : "", h->addr, strchr(h->addr, ':') ? "]" : "");
	x->resolve = curl_slist_append(NULL, resolve);
	if (!it && x->resolve) {
		/* robots.txt redirects are followed by libcurl: an http -> https
		 * move on the same host must use our address too. */
		char other[URL_HOST_MAX + 96];
		int op = port == 443 ? 80 : 443;

		snprintf(other, sizeof(other), "%s:%d:%s%s%s", h->name, op,
			 strchr(h->addr, ':') ? "[" : "", h->addr,
			 strchr(h->addr, ':') ? "]" : "");
		x->resolve = curl_slist_append(x->resolve, other);
	}
	if (!x->resolve) {
		xfer_destroy(x);
		return CR_ERR_NOMEM;
	}
	curl_easy_setopt(x->easy, CURLOPT_URL, url);
	curl_easy_setopt(x->easy, CURLOPT_RESOLVE, x->resolve);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_USERAGENT, cfg->user_agent);
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT, cfg->connect_timeout_s);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT, cfg->timeout_s);
	curl_easy_setopt(x->easy, CURLOPT_LOW_SPEED_LIMIT, cfg->low_speed_bytes);
	curl_easy_setopt(x->easy, CURLOPT_LOW_SPEED_TIME, cfg->low_speed_time_s);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(x->easy, CURLOPT_DEBUGDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(x->easy, CURLOPT_OPENSOCKETFUNCTION, on_opensocket);
	curl_easy_setopt(x->easy, CURLOPT_OPENSOCKETDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(x->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	if (it && it->rec.fetched_at > 0 && it->rec.digest && cfg->warc_revisits &&
	    cfg->fetch_parse) {
		/* Fetched before: a 304 spares the body (a revisit record). */
		curl_easy_setopt(x->easy, CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_IFMODSINCE);
		curl_easy_setopt(x->easy, CURLOPT_TIMEVALUE_LARGE,
				 (curl_off_t)(it->rec.fetched_at / 1000000));
	}
	x->start_wall = clock_now_us();
	x->start_mono = clock_mono_us();
	if (curl_multi_add_handle(f->multi, x->easy) != CURLM_OK) {
		xfer_destroy(x);
		return CR_ERR_LIB;
	}
	sched_on_start(&h->s, x->start_mono);
	if (h->gate != &h->s)
		sched_on_start(h->gate, x->start_mono);
	f->active++;
	x->next = f->open;
	if (f->open)
		f->open->prev = x;
	f->open = x;
	return CR_OK;
}

/* A transfer leaves the open list; it is kept as a spare for reuse. */
static void xfer_free(struct fetcher *f, struct xfer *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		f->open = x->next;
	if (x->next)
		x->next->prev = x->prev;
	curl_slist_free_all(x->resolve);
	x->resolve = NULL;
	if (x->body.cap > SPARE_BODY_MAX)
		buf_release(&x->body);
	x->next = f->spare;
	f->spare = x;
}

/* Writes the transfer's request and response to w; *off gets the offset of
 * the response record. */
/*
 * A page fetched again: a 304 is a revisit (server-not-modified) of the
 * capture it was asked against; a 2xx body equal to the last capture's (by
 * the CrawlDb's digest) is a revisit (identical-payload-digest) that stores
 * the head alone. Only with fetch.parse: the parse phase reads bodies back
 * from the WARC files, and a revisit has none.
 */
static void revisit_of(struct fetcher *f, struct xfer *x, struct warc_exchange *wx)
{
	const struct crawl_record *last = x->item ? &x->item->rec : NULL;
	long http = 0;

	if (!last || !last->fetched_at || !f->j->cfg.warc_revisits || !f->j->cfg.fetch_parse)
		return;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &http);
	if (http == 304)
		wx->revisit_profile = WARC_PROFILE_NOT_MODIFIED;
	else if (http >= 200 && http < 300 && !x->truncated && last->digest &&
		 last->digest == XXH3_64bits(x->body.p, x->body.len))
		wx->revisit_profile = WARC_PROFILE_IDENTICAL;
	else
		return;
	wx->refers_to_uri = x->item->url;
	wx->refers_to_date_us = last->fetched_at;
	f->c[FC_REVISITS]++;
}

/*
 * A metadata record after a page's exchange (warc.metadata): the fetch time,
 * what robots.txt decided and the page's outlinks (from its parse record).
 */
static void write_metadata(struct fetcher *f, struct xfer *x, struct warc_writer *w,
			   const struct buf *parsed)
{
	struct warc_record_out r;
	struct parse_record pr;
	struct buf fields, block;
	const char *id = warc_writer_last_id(w);
	size_t pos = 0;
	long delay = (long)(x->h->pol.delay_us / 1000);

	if (!f->j->cfg.warc_metadata || !w || !id)
		return;
	buf_init(&fields);
	buf_init(&block);
	buf_addf(&fields, "WARC-Concurrent-To: %s\r\n", id);
	buf_addf(&block, "fetchTimeMs: %lld\r\n",
		 (long long)((clock_mono_us() - x->start_mono) / 1000));
	buf_addf(&block, "robots: allowed; crawl-delay-ms=%ld\r\n", delay);
	if (parsed && parsed->len && parse_record_unpack(parsed->p, parsed->len, &pr) == CR_OK) {
		const char *u;
		size_t n;

		while (parse_record_link(&pr, &pos, &u, &n) == CR_OK)
			buf_addf(&block, "outlink: %.*s\r\n", (int)n, u);
	}
	memset(&r, 0, sizeof(r));
	r.type = "metadata";
	r.target_uri = x->item->url;
	r.date_us = x->start_wall;
	r.fields = (const char *)buf_cstr(&fields);
	r.content_type = "application/warc-fields";
	r.block = block.p;
	r.block_len = block.len;
	if (warc_write_record(w, &r, NULL, NULL) != CR_OK)
		f->failed = CR_ERR_IO;
	buf_release(&fields);
	buf_release(&block);
}

static void archive(struct fetcher *f, struct xfer *x, struct warc_writer *w,
		    const char *target, uint64_t *off)
{
	struct warc_exchange wx;
	char *ip = NULL;
	uint64_t len;

	*off = 0;
	if (!w)
		return;
	memset(&wx, 0, sizeof(wx));
	wx.target_uri = target;
	wx.date_us = x->start_wall;
	if (curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip && ip[0])
		wx.ip = ip;
	wx.request = x->req.p;
	wx.request_len = x->req.len;
	wx.resp_head = x->head.p;
	wx.resp_head_len = x->head.len;
	wx.body = x->body.p;
	wx.body_len = x->body.len;
	wx.truncated = cut_names[x->truncated];
	revisit_of(f, x, &wx);
	if (warc_write_exchange(w, &wx, off, &len) != CR_OK)
		f->failed = CR_ERR_IO;
}

static void finish_robots(struct fetcher *f, struct xfer *x, CURLcode rc, long http)
{
	struct origin *o = x->origin;
	struct host *h = x->h;

	o->fetched_at = x->start_wall;
	o->http_status = rc == CURLE_OK || x->truncated ? (int)http : 0;
	o->dirty = 1;
	o->body.len = 0;
	{
		/* One byte more than is parsed, so that the parser can tell a
		 * line cut at the limit (and drop it). */
		size_t keep = (size_t)f->j->cfg.robots_max_bytes + 1;

		buf_add(&o->body, x->body.p, x->body.len < keep ? x->body.len : keep);
	}
	if (h->waiting == o)
		h->waiting = NULL;
	if (http == 429 || http == 503)
		hold_for_retry_after(f, x);
	if (o->http_status >= 300 && o->http_status < 400 && o->hops < ROBOTS_MAX_HOPS) {
		/* RFC 9309 2.3.1.2: follow redirects, each hop a request of its
		 * own that waits its turn like any other. */
		size_t vl = 0;
		const char *v = http_head_field(x->head.p, x->head.len, "location", &vl);
		char raw[URL_MAX_LEN + 1], next[URL_MAX_LEN + 1];
		const char *why;

		char *here = NULL;

		curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &here);
		if (v && vl < sizeof(raw) && here) {
			memcpy(raw, v, vl);
			raw[vl] = '\0';
			if (url_canon(here, raw, next, sizeof(next), &why) == CR_OK) {
				free(o->robots_url);
				o->robots_url = xstrdup(next);
				o->hops++;
				o->state = RB_UNKNOWN;
				return;
			}
		}
	}
	origin_set_rules(f, o);
	if (o->state == RB_UNAVAILABLE)
		f->c[FC_ROBOTS_UNAVAILABLE]++;
	if (o->state == RB_READY)
		apply_crawl_delay(f, h, o);
}

/*
 * Hosts that keep failing are slowed down, then parked: after the k-th
 * failure in a row the next request waits max(delay, 1 s) * 2^(k-1) (capped
 * by politeness.backoff_max_ms); after politeness.max_host_failures the
 * host's remaining URLs are left due for a later round. A success resets it.
 */
static void host_outcome(struct fetcher *f, struct host *h, int failed)
{
	const struct config *cfg = &f->j->cfg;
	int64_t base, wait;

	if (!failed) {
		h->failures = 0;
		return;
	}
	h->failures++;
	if (h->failures >= cfg->max_host_failures) {
		f->c[FC_PARKED]++;
		f->c[FC_NOT_REACHED] += h->n - h->next;
		h->next = h->n;
		log_debug("fetch", "host '%s' parked after %d failures", h->name, h->failures);
		return;
	}
	base = f->pol.delay_us > 1000000 ? f->pol.delay_us : 1000000;
	wait = base << (h->failures - 1 < 20 ? h->failures - 1 : 20);
	if (wait > (int64_t)cfg->backoff_max_ms * 1000)
		wait = (int64_t)cfg->backoff_max_ms * 1000;
	if (clock_mono_us() + wait > h->gate->not_before_us)
		h->gate->not_before_us = clock_mono_us() + wait;
	f->c[FC_BACKOFFS]++;
}

/* 429 and 503 may say when to come back: hold the host until then (at most
 * an hour; a later time is not this round's business). */
static void hold_for_retry_after(struct fetcher *f, struct xfer *x)
{
	size_t vl = 0;
	const char *v = http_head_field(x->head.p, x->head.len, "retry-after", &vl);
	int64_t secs;

	(void)f;
	if (!v)
		return;
	secs = http_head_retry_after_s(v, vl, clock_now_us() / 1000000);
	if (secs < 0)
		return;
	if (secs > 3600)
		secs = 3600;
	x->h->gate->not_before_us = clock_mono_us() + secs * 1000000;
}

/*
 * A body with a Content-Encoding is decoded here only to learn whether it
 * stays under fetch.max_decoded_bytes (the WARC keeps it as sent; the parser
 * decodes again). Returns the reason of a too_large page, or "".
 */
static const char *decoded_size(struct fetcher *f, struct xfer *x, char *reason, size_t cap)
{
	size_t enclen = 0;
	const char *enc = http_head_field(x->head.p, x->head.len, "content-encoding", &enclen);
	struct buf out;
	enum decode_result r;

	if (!enc)
		return "";
	buf_init(&out);
	r = decode_body(enc, enclen, x->body.p, x->body.len,
			(size_t)f->j->cfg.max_decoded_bytes, &out);
	buf_release(&out);
	if (r == DECODE_TOO_LARGE) {
		snprintf(reason, cap, "decodes to more than %ld bytes",
			 f->j->cfg.max_decoded_bytes);
		return reason;
	}
	if (r == DECODE_BAD || r == DECODE_UNSUPPORTED)
		snprintf(reason, cap, "content-encoding not decoded: %.*s",
			 (int)(enclen < 64 ? enclen : 64), enc);
	return "";
}

/* 1 if a Location resolves to a URL of another scheme than http(s). */
static int resolves_elsewhere(const char *base, const char *loc)
{
	char out[URL_MAX_LEN + 1];
	const char *why;
	size_t i = 0;

	if (url_resolve(base, loc, out, sizeof(out), &why) == CR_OK)
		return 0;
	/* url_resolve refuses other schemes: look for one ourselves. */
	while (loc[i] == ' ' || loc[i] == '\t')
		i++;
	if (!isalpha((unsigned char)loc[i]))
		return 0;
	while (isalnum((unsigned char)loc[i]) || loc[i] == '+' || loc[i] == '-' || loc[i] == '.')
		i++;
	return loc[i] == ':' && strncasecmp(loc, "http:", 5) && strncasecmp(loc, "https:", 6);
}

static void finish_page(struct fetcher *f, struct xfer *x, CURLcode rc, long http)
{
	struct fetch_record fr;
	char ctype[128], charset[64], loc[URL_MAX_LEN + 1], reason[256];
	const char *warc_name = "";
	struct warc_writer *used = NULL;
	uint64_t off = 0;
	int got_response;

	got_response = x->head.len > 0 && http > 0 && (rc == CURLE_OK || x->truncated);

	memset(&fr, 0, sizeof(fr));
	ctype[0] = charset[0] = loc[0] = reason[0] = '\0';
	fr.rec.fetched_at = x->start_wall;
	fr.rec.http_status = (uint16_t)(http > 0 && http < 1000 ? http : 0);
	fr.latency_us = clock_mono_us() - x->start_mono;
	if (got_response) {
		http_head_content_type(x->head.p, x->head.len, ctype, sizeof(ctype), charset,
				       sizeof(charset));
		if (http >= 200 && http < 300) {
			fr.rec.status = ST_FETCHED;
			fr.rec.digest = XXH3_64bits(x->body.p, x->body.len);
			if (*decoded_size(f, x, reason, sizeof(reason)))
				fr.rec.status = ST_TOO_LARGE;
			if (x->truncated) {
				snprintf(reason, sizeof(reason), "truncated: %s",
					 cut_names[x->truncated]);
				fr.rec.status = ST_TRUNCATED;
			}
		} else if (http == 304) {
			/* Not modified: the content is the one fetched before
			 * (merge keeps its digest). */
			fr.rec.status = ST_FETCHED;
		} else if (http >= 300 && http < 400) {
			size_t vl = 0;
			const char *v = http_head_field(x->head.p, x->head.len, "location", &vl);
			const char *why;

			fr.rec.status = ST_GONE;
			snprintf(reason, sizeof(reason), "redirect without location");
			if (v && vl < URL_MAX_LEN) {
				char raw[URL_MAX_LEN + 1];

				memcpy(raw, v, vl);
				raw[vl] = '\0';
				if (url_canon(x->item->url, raw, loc, sizeof(loc), &why) == CR_OK) {
					fr.rec.status = ST_REDIRECT;
					reason[0] = '\0';
				} else if (resolves_elsewhere(x->item->url, raw)) {
					/* file:, ftp:, ...: never followed. */
					fr.rec.status = ST_BLOCKED;
					snprintf(reason, sizeof(reason), "redirect to %s", why);
				} else {
					snprintf(reason, sizeof(reason), "bad redirect: %s", why);
				}
			}
		} else if (http == 429 || http >= 500) {
			fr.rec.status = ST_ERROR;
			snprintf(reason, sizeof(reason), "http %ld", http);
			if (http == 429 || http == 503)
				hold_for_retry_after(f, x);
		} else {
			fr.rec.status = ST_GONE;
		}
		used = warc_for(f, x->item->part, (http >= 200 && http < 300) || http == 304 ?
				WK_PAGES : WK_DIAGNOSTICS, &warc_name);
		archive(f, x, used, x->item->url, &off);
	} else if (x->blocked_addr) {
		fr.rec.status = ST_BLOCKED;
		snprintf(reason, sizeof(reason), "non-public address");
	} else if (x->head_too_big || rc == CURLE_OUT_OF_MEMORY) {
		/* Our head cap, or libcurl's on one header line (100 KB). */
		fr.rec.status = ST_TOO_LARGE;
		snprintf(reason, sizeof(reason), "header too large");
	} else {
		fr.rec.status = ST_ERROR;
		if (x->head_too_big)
			snprintf(reason, sizeof(reason), "header too large");
		else if (rc == CURLE_OPERATION_TIMEDOUT)
			snprintf(reason, sizeof(reason), "timeout");
		if (rc == CURLE_OPERATION_TIMEDOUT && !x->head_too_big)
			fr.rec.status = ST_TIMEOUT;
		else
			snprintf(reason, sizeof(reason), "%s",
				 x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
	}
	fr.reason = reason;
	fr.reason_len = strlen(reason);
	fr.location = loc;
	fr.location_len = strlen(loc);
	fr.content_type = ctype;
	fr.content_type_len = strlen(ctype);
	fr.charset = charset;
	fr.charset_len = strlen(charset);
	fr.warc = warc_name;
	fr.warc_len = strlen(warc_name);
	fr.warc_offset = off;
	fr.body_len = x->body.len;
	emit(f, x->item, &fr);
	host_outcome(f, x->h, fr.rec.status == ST_ERROR || fr.rec.status == ST_TIMEOUT);
	if (f->j->cfg.fetch_parse) {
		struct part_out *o = part_out(f, x->item->part);

		f->parsed.len = 0;
		if (o->parse &&
		    parse_page(f->j, &fr, x->head.p, x->head.len, x->body.p, x->body.len,
			       &f->parsed, f->pc)) {
			if (recfile_writer_add(o->parse, f->parsed.p, f->parsed.len) != CR_OK)
				f->failed = CR_ERR_IO;
		} else {
			f->parsed.len = 0;
		}
	}
	if (used && warc_name[0])
		write_metadata(f, x, used, f->j->cfg.fetch_parse ? &f->parsed : NULL);
	journal_outcome(f, x->item->part, warc_name[0] ? used : NULL,
			f->j->cfg.fetch_parse ? f->parsed.p : NULL,
			f->j->cfg.fetch_parse ? f->parsed.len : 0);
}

static void write_robots_warc(struct fetcher *f, struct xfer *x)
{
	const char *name;
	char url[URL_HOST_MAX + 64];
	char *eff = NULL;
	uint64_t off;

	if (!x->head.len)
		return;
	snprintf(url, sizeof(url), "%s/robots.txt", x->origin->key);
	/* After redirects, the record is of the URL that answered. */
	if (curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff) != CURLE_OK || !eff)
		eff = url;
	archive(f, x, warc_for(f, x->origin->part, WK_ROBOTS, &name), eff, &off);
	journal_robots(f, x->origin->part);
}

static void complete(struct fetcher *f, CURL *easy, CURLcode rc)
{
	struct xfer *x = NULL;
	long http = 0;
	int64_t now = clock_mono_us();

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &http);
	curl_multi_remove_handle(f->multi, easy);
	f->active--;
	f->c[FC_REQUESTS] += x->head.len > 0;
	f->c[FC_BYTES] += x->body.len;
	f->c[FC_LATENCY_US] += (uint64_t)(now - x->start_mono);
	sched_on_end(&x->h->s, now);
	if (x->h->gate != &x->h->s)
		sched_on_end(x->h->gate, now);
	if (x->item) {
		finish_page(f, x, rc, http);
	} else {
		f->c[FC_ROBOTS]++;
		write_robots_warc(f, x);
		finish_robots(f, x, rc, http);
	}
	host_reschedule(f, x->h);
	if (x->h->group) {
		/* A request of the group ended: members waiting for room may go. */
		size_t k;

		for (k = 0; k < x->h->group->n; k++)
			host_reschedule(f, x->h->group->members[k]);
	}
	xfer_free(f, x);
}

/* ---- hosts ---- */

static void host_fail_all(struct fetcher *f, struct host *h, int status, const char *reason)
{
	while (h->next < h->n)
		emit_status(f, h->items[h->next++], status, reason);
}

static void on_dns(void *arg, enum dns_result res, const char *addr)
{
	struct host *h = arg;
	struct fetcher *f = h->f;

	if (res != DNS_OK) {
		static char why[4][40];
		int k = (int)res & 3;

		snprintf(why[k], sizeof(why[k]), "dns: %s", dns_result_name(res));
		h->dns = HD_FAILED;
		f->c[FC_DNS_FAILED]++;
		host_fail_all(f, h, ST_ERROR, why[k]);
	} else if (!f->j->cfg.allow_private && !addr_is_public_str(addr) &&
		   !addr_list_has_str(&f->allow, addr)) {
		h->dns = HD_FAILED;
		host_fail_all(f, h, ST_BLOCKED, "non-public address");
	} else {
		h->dns = HD_OK;
		snprintf(h->addr, sizeof(h->addr), "%s", addr);
		/* Before its first request, so no timing is lost by the move. */
		if (f->j->cfg.politeness_by == POLITE_BY_IP && !h->group)
			join_group(f, h, addr);
	}
	host_reschedule(f, h);
}

static void host_reschedule(struct fetcher *f, struct host *h)
{
	int64_t t;

	if (h->done)
		return;
	if (h->next >= h->n || f->stopping) {
		sched_heap_remove(&f->heap, &h->s);
		if (h->s.in_flight == 0) {
			h->done = 1;
			f->hosts_left--;
		}
		return;
	}
	if (h->dns == HD_RESOLVING || h->waiting) {
		sched_heap_remove(&f->heap, &h->s);
		return;
	}
	t = sched_next_start(h->gate, &h->pol);
	if (t == INT64_MAX)
		sched_heap_remove(&f->heap, &h->s);
	else
		sched_heap_set(&f->heap, &h->s, t);
}

/* A robots.txt Crawl-delay raises the host's delay (never lowers it).
 * Returns 1 if the origin asks for more than politeness.max_crawl_delay_ms:
 * its URLs are then deferred, not fetched at a pace the site did not ask
 * for and not fetched at the crawl delay for the rest of the phase either. */
static int apply_crawl_delay(struct fetcher *f, struct host *h, const struct origin *o)
{
	long cd = o->rules ? robots_crawl_delay_ms(o->rules) : -1;
	int64_t us;

	if (cd < 0)
		return 0;
	if (cd > f->j->cfg.max_crawl_delay_ms)
		return 1;
	us = (int64_t)cd * 1000;
	if (us > h->pol.delay_us)
		h->pol.delay_us = us;
	return 0;
}

/* The host's turn: start what politeness allows now. */
static void host_turn(struct fetcher *f, struct host *h)
{
	if (h->dns == HD_NONE) {
		h->dns = HD_RESOLVING;
		f->c[FC_DNS_QUERIES]++;
		sched_heap_remove(&f->heap, &h->s);
		dns_resolve(f->dns, h->name, clock_mono_us(), on_dns, h);
		return;
	}
	/* A group's budget may have been used by another member since this
	 * host's turn was set: then it waits for the group. */
	if (h->group && sched_next_start(h->gate, &h->pol) > clock_mono_us()) {
		host_reschedule(f, h);
		return;
	}
	while (h->next < h->n) {
		struct item *it = h->items[h->next];
		struct origin *o = it->origin;
		char path[URL_MAX_LEN + 1];

		if (o->state == RB_UNKNOWN) {
			o->state = RB_FETCHING;
			h->waiting = o;
			if (start_xfer(f, h, NULL, o) != CR_OK)
				f->failed = CR_ERR_LIB;
			break;
		}
		if (o->state == RB_FETCHING) {
			h->waiting = o;
			break;
		}
		h->next++;
		if (o->state == RB_UNAVAILABLE) {
			/* RFC 9309 2.3.1.4: an unreachable robots.txt means
			 * "disallow all" for now; the URL stays due and the
			 * robots.txt is asked again next round. */
			f->c[FC_ROBOTS_WAIT]++;
			continue;
		}
		if (apply_crawl_delay(f, h, o)) {
			emit_status(f, it, ST_DEFERRED,
				    "crawl-delay above politeness.max_crawl_delay_ms");
			continue;
		}
		if (robots_url_path(it->url, path, sizeof(path)) == CR_OK &&
		    !robots_allowed(o->rules, path)) {
			emit_status(f, it, ST_DENIED, "robots.txt");
			continue;
		}
		if (start_xfer(f, h, it, NULL) != CR_OK)
			f->failed = CR_ERR_LIB;
		break;
	}
	host_reschedule(f, h);
}

/* ---- the loop ---- */

/* The time limit or a stop: the URLs not started get no outcome (stay due). */
static void leave_rest_due(struct fetcher *f)
{
	struct hmap_slot *s;
	size_t i = 0;

	while ((s = hmap_next(&f->hosts, &i)) != NULL) {
		struct host *h = s->val;

		f->c[FC_NOT_REACHED] += h->n - h->next;
		h->next = h->n;
		host_reschedule(f, h);
	}
}

static void fetch_loop(struct fetcher *f)
{
	const struct config *cfg = &f->j->cfg;
	int64_t t0 = clock_mono_us();
	int64_t limit = cfg->time_limit_s > 0 ? t0 + (int64_t)cfg->time_limit_s * 1000000
					       : INT64_MAX;
	struct progress prog;

	progress_init(&prog, f->j, f->seg, "fetch");
	while ((f->hosts_left > 0 || f->active > 0) && !f->failed && !f->stopping) {
		struct curl_waitfd fds[MAX_WAITFDS];
		unsigned nfds;
		int64_t now = clock_mono_us(), wait_us = 1000000;
		struct sched_host *top;
		int running, msgs;
		CURLMsg *m;

		if (!f->drain_until && stop_asked()) {
			/* Open requests may finish within the grace; what
			 * finished is journaled when the loop ends. */
			log_info("fetch", "asked to stop: no new requests, %d open ones get "
				 "%ld s", f->active, cfg->stop_grace_s);
			f->drain_until = now + (int64_t)cfg->stop_grace_s * 1000000 + 1;
			leave_rest_due(f);
		}
		if (f->drain_until && now >= f->drain_until) {
			f->stopping = 1;
			continue;
		}
		if (now >= limit && !f->stopping) {
			log_info("fetch", "fetch.time_limit_s reached: leaving the rest due");
			f->stopping = 1;
			leave_rest_due(f);
		}
		if (now >= f->next_sync) {
			sync_journals(f);
			f->next_sync = now + (int64_t)cfg->sync_interval_ms * 1000;
		}
		while (!f->stopping && f->active < cfg->max_connections &&
		       (top = sched_heap_top(&f->heap)) != NULL && top->heap_key <= now)
			host_turn(f, (struct host *)top);
		top = sched_heap_top(&f->heap);
		if (top && f->active < cfg->max_connections)
			wait_us = top->heap_key - now;
		if (wait_us > 200000)
			wait_us = 200000;
		if (wait_us < 0)
			wait_us = 0;
		{
			long dt = dns_timeout_ms(f->dns);

			if (dt >= 0 && dt * 1000 < wait_us)
				wait_us = dt * 1000;
		}
		nfds = dns_waitfds(f->dns, fds, MAX_WAITFDS);
		curl_multi_poll(f->multi, fds, nfds, (int)((wait_us + 999) / 1000), NULL);
		dns_process(f->dns, fds, nfds);
		curl_multi_perform(f->multi, &running);
		while ((m = curl_multi_info_read(f->multi, &msgs)) != NULL)
			if (m->msg == CURLMSG_DONE)
				complete(f, m->easy_handle, m->data.result);
		progress_tick(&prog, f->c, (uint64_t)f->hosts_left, 0);
	}
	/* Time limit or failure: abandon what is still open; it stays due. */
	while (f->open) {
		struct xfer *x = f->open;

		curl_multi_remove_handle(f->multi, x->easy);
		f->c[FC_NOT_REACHED] += x->item != NULL;
		f->active--;
		xfer_free(f, x);
	}
	progress_tick(&prog, f->c, 0, 1);
	progress_release(&prog);
}

static void fetcher_release(struct fetcher *f)
{
	struct hmap_slot *s;
	size_t i = 0;
	uint32_t p;

	while ((s = hmap_next(&f->hosts, &i)) != NULL) {
		struct host *h = s->val;
		size_t k;

		for (k = 0; k < h->n; k++) {
			free(h->items[k]->url);
			free(h->items[k]);
		}
		free(h->items);
		free(h->name);
		free(h);
	}
	hmap_release(&f->hosts);
	i = 0;
	while ((s = hmap_next(&f->groups, &i)) != NULL) {
		struct pgroup *g = s->val;

		free(g->members);
		free(g);
	}
	hmap_release(&f->groups);
	i = 0;
	while ((s = hmap_next(&f->origins, &i)) != NULL) {
		struct origin *o = s->val;

		robots_free(&o->rules);
		buf_release(&o->body);
		free(o->robots_url);
		free(o->key);
		free(o);
	}
	hmap_release(&f->origins);
	hmap_release(&f->done);
	buf_release(&f->jfetch);
	if (f->out) {
		for (p = 0; p < f->j->dir.partitions; p++) {
			recfile_writer_abort(&f->out[p].fetch);
			recfile_writer_abort(&f->out[p].parse);
			journal_close(&f->out[p].jn, 0);
			if (warc_writer_close(&f->out[p].warc) != CR_OK ||
			    warc_writer_close(&f->out[p].warc_robots) != CR_OK ||
			    warc_writer_close(&f->out[p].warc_diag) != CR_OK)
				f->failed = CR_ERR_IO;
		}
	}
	free(f->out);
	while (f->spare) {
		struct xfer *x = f->spare;

		f->spare = x->next;
		xfer_destroy(x);
	}
	sched_heap_release(&f->heap);
	if (f->multi)
		curl_multi_cleanup(f->multi);
	dns_free(&f->dns);
	buf_release(&f->scratch);
	buf_release(&f->parsed);
}

/* Commits every owned partition's outputs (an empty fetch file where the
 * partition had nothing to fetch: update reads one per partition). */
static enum cr_err commit_outputs(struct fetcher *f)
{
	uint32_t p;
	enum cr_err e = CR_OK;

	for (p = 0; p < f->j->dir.partitions; p++) {
		struct part_out *o;

		if (!layout_owns(p, f->j->rank, f->j->nranks))
			continue;
		o = part_out(f, p);
		if (!e && warc_writer_close(&o->warc) != CR_OK)
			e = CR_ERR_IO;
		if (!e && warc_writer_close(&o->warc_robots) != CR_OK)
			e = CR_ERR_IO;
		if (!e && warc_writer_close(&o->warc_diag) != CR_OK)
			e = CR_ERR_IO;
		/* The journal holds all the part files will: the files are
		 * committed first, then the journal goes. */
		if (!e)
			e = journal_sync(o->jn);
		if (!e && o->fetch)
			e = recfile_writer_commit(&o->fetch);
		if (!e && o->parse)
			e = recfile_writer_commit(&o->parse);
		else if (f->failed && !e)
			e = f->failed;
		if (!e)
			journal_close(&o->jn, 1);
	}
	return e;
}

enum cr_err fetch_run(struct job *j, int seg, uint64_t *counters, uint64_t *parse_counters)
{
	struct fetcher f;
	char dir[PATH_MAX];
	uint32_t p;
	enum cr_err e = CR_OK;
	int64_t now = clock_now_us();
	struct hmap_slot *s;
	size_t i = 0;

	memset(&f, 0, sizeof(f));
	f.j = j;
	f.seg = seg;
	f.pol.delay_us = (int64_t)j->cfg.delay_ms * 1000;
	f.pol.max_in_flight = (int)j->cfg.max_in_flight;
	hmap_init(&f.hosts);
	hmap_init(&f.groups);
	hmap_init(&f.origins);
	hmap_init(&f.done);
	buf_init(&f.jfetch);
	sched_heap_init(&f.heap);
	buf_init(&f.scratch);
	buf_init(&f.parsed);
	layout_segment_dir(&j->dir, seg, f.seg_dir, sizeof(f.seg_dir));
	f.out = calloc(j->dir.partitions, sizeof(*f.out));
	/* Read now: this phase creates robots/<seg>/ before it writes there. */
	f.robots_ver = layout_robots_last(&j->dir);
	if (!f.out)
		e = CR_ERR_NOMEM;
	{
		char bad[64];

		if (!e && addr_list_parse(j->cfg.allow_addresses, &f.allow, bad) != 0) {
			log_err("fetch", "fetch.allow_addresses: bad address or range '%s'", bad);
			e = CR_ERR_ARG;
		}
	}
	snprintf(dir, sizeof(dir), "%s/fetch", f.seg_dir);
	if (!e)
		e = fs_mkdirs(dir);
	snprintf(dir, sizeof(dir), "%s/warc", f.seg_dir);
	if (!e)
		e = fs_mkdirs(dir);
	snprintf(dir, sizeof(dir), "%s/parse", f.seg_dir);
	if (!e && j->cfg.fetch_parse)
		e = fs_mkdirs(dir);
	for (p = 0; !e && p < j->dir.partitions; p++) {
		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		e = resume_partition(&f, p);
		if (!e)
			e = load_fetchlist(&f, p);
		if (!e)
			e = load_robots_cache(&f, p, now);
	}
	if (!e && (f.kept || f.warc_cut))
		log_info("fetch", "segment %d: resuming an interrupted fetch: %llu finished URLs "
			 "kept, %llu uncommitted WARC bytes cut", seg, (unsigned long long)f.kept,
			 (unsigned long long)f.warc_cut);
	i = 0;
	while (!e && (s = hmap_next(&f.origins, &i)) != NULL) {
		struct origin *o = s->val;

		f.c[FC_ROBOTS_CACHED] += o->state == RB_READY;
		if (o->host)
			carry_politeness(&f, o->host, o);
	}
	if (!e)
		e = dns_new(j->cfg.dns_servers, j->cfg.dns_timeout_ms, j->cfg.dns_cache_ttl_s,
			    j->cfg.dns_negative_ttl_s, &f.dns);
	if (!e) {
		f.multi = curl_multi_init();
		if (!f.multi)
			e = CR_ERR_LIB;
	}
	if (!e) {
		curl_multi_setopt(f.multi, CURLMOPT_MAX_HOST_CONNECTIONS, j->cfg.max_in_flight);
		curl_multi_setopt(f.multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, j->cfg.max_connections);
		/* Hosts start in name order, spread by the heap from there. */
		i = 0;
		while ((s = hmap_next(&f.hosts, &i)) != NULL)
			sched_heap_set(&f.heap, &((struct host *)s->val)->s, 0);
		fetch_loop(&f);
		e = f.failed;
	}
	if (!e && f.drain_until) {
		/* Stopped: what finished is made durable, nothing is committed;
		 * the next fetch of the segment resumes from the journals. */
		sync_journals(&f);
		e = f.failed ? f.failed : CR_AGAIN;
	}
	if (!e)
		e = commit_outputs(&f);
	if (!e)
		e = write_robots_cache(&f);
	if (!e) {
		uint64_t q, hits;

		dns_counters(f.dns, &q, &hits);
		f.c[FC_DNS_QUERIES] = q;
	}
	memcpy(counters, f.c, sizeof(f.c));
	if (parse_counters)
		memcpy(parse_counters, f.pc, sizeof(f.pc));
	fetcher_release(&f);
	return e;
}

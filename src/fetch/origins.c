#include "fetch/origins.h"
#include "fetch/hosts.h"
#include "robots/cache.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/fs.h"
#include "util/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void origins_init(struct origin_table *t, const struct job *j)
{
	memset(t, 0, sizeof(*t));
	t->j = j;
	t->pol.agent = j->cfg.robots_agent;
	t->pol.ttl_us = (int64_t)j->cfg.robots_ttl_s * 1000000;
	t->pol.retry_us = (int64_t)j->cfg.retry_interval_s * 1000000;
	t->pol.max_bytes = (size_t)j->cfg.robots_max_bytes;
	t->pol.since_us = j->config_since_us;
	hmap_init(&t->map);
	hmap_init(&t->known);
	hmap_init(&t->reasons);
	t->known_on = j->cfg.robots_early_max > 0;
	t->cache_ver = layout_robots_last(&j->dir);
}

void origins_init_early(struct origin_table *t, const struct job *j,
			const struct origin_table *main)
{
	origins_init(t, j);
	t->early = 1;
	t->known_on = 0;
	t->taken = &main->map;
}

void origins_release(struct origin_table *t)
{
	struct hmap_slot *s;
	size_t i = 0;

	while ((s = hmap_next(&t->map, &i)) != NULL) {
		origin_release(s->val);
		free(s->val);
	}
	hmap_release(&t->map);
	hmap_release(&t->known);
	hmap_release(&t->reasons);
	free(t->late);
}

struct origin *origins_get(struct origin_table *t, const char *key, uint32_t part)
{
	struct origin **slot = (struct origin **)hmap_put(&t->map, key, strlen(key));

	if (!*slot) {
		struct origin *o = malloc(sizeof(*o));

		if (!o) {
			fputs("mpicrawl: out of memory\n", stderr);
			abort();
		}
		origin_init(o, key, part);
		*slot = o;
		if (t->loaded) {
			if (t->nlate == t->late_cap) {
				t->late_cap = t->late_cap ? t->late_cap * 2 : 16;
				t->late = realloc(t->late, t->late_cap * sizeof(*t->late));
				if (!t->late) {
					fputs("mpicrawl: out of memory\n", stderr);
					abort();
				}
			}
			t->late[t->nlate++] = o;
		}
	}
	return *slot;
}

void origins_mark_loaded(struct origin_table *t)
{
	t->loaded = 1;
}

void origins_each(struct origin_table *t, void (*fn)(void *arg, struct origin *o), void *arg)
{
	struct hmap_slot *s;
	size_t i = 0;

	while ((s = hmap_next(&t->map, &i)) != NULL)
		fn(arg, s->val);
}

struct load_ctx {
	struct origin_table *t;
	int64_t now;
	struct hmap *only;        /* NULL, or the origins to load (late ones) */
};

/* Notes the host of an entry's origin (known_on). */
static void note_known(struct origin_table *t, const char *origin)
{
	char name[URL_HOST_MAX];

	if (!t->known_on || t->known_full || url_host(origin, name, sizeof(name)) != CR_OK)
		return;
	if (t->known.count >= ORIGINS_KNOWN_MAX) {
		t->known_full = 1;
		log_info("fetch", "the robots cache names more than %u hosts of this rank: no "
			 "robots.txt is asked early in this phase", ORIGINS_KNOWN_MAX);
	}
	else
		*hmap_put(&t->known, name, strlen(name)) = t;
}

/* A cache entry (or a journaled answer) of o: the newer answer applies;
 * the later end, hold and DNS expiry bind. 1 if its answer applied. */
static int take_entry(const struct origin_table *t, struct origin *o,
		      const struct robots_cache_entry *e, int64_t now)
{
	int newer = e->fetched_at >= o->fetched_at;

	if (newer)
		origin_on_cache(o, &t->pol, e->fetched_at, e->http_status, e->body, e->body_len,
				now);
	if (e->times.last_end > o->last_end)
		o->last_end = e->times.last_end;
	if (e->times.hold_until > o->hold_until)
		o->hold_until = e->times.hold_until;
	if (e->times.dns.expires > o->dns.expires)
		o->dns = e->times.dns;
	return newer;
}

/* An entry of an origin of the phase: its main one, then its early one. */
static enum cr_err load_one(void *arg, const struct robots_cache_entry *e)
{
	struct load_ctx *c = arg;
	struct origin *o = hmap_get(c->only ? c->only : &c->t->map, e->origin,
				    strlen(e->origin));

	note_known(c->t, e->origin);
	if (o)   /* else not needed this phase: carried at the end */
		take_entry(c->t, o, e, c->now);
	return CR_OK;
}

/* Partition p's main cache file, then its early one. */
static enum cr_err scan_part(struct origin_table *t, uint32_t p, struct load_ctx *c)
{
	char path[PATH_MAX];
	enum cr_err e;

	if (t->cache_ver == 0)
		return CR_OK;
	layout_robots_part(&t->j->dir, t->cache_ver, p, path, sizeof(path));
	e = robots_cache_scan(path, load_one, c);
	if (e)
		return e;
	layout_robots_early(&t->j->dir, t->cache_ver, p, path, sizeof(path));
	return robots_cache_scan(path, load_one, c);
}

enum cr_err origins_load(struct origin_table *t, uint32_t p, int64_t now)
{
	struct load_ctx c = { t, now, NULL };

	return scan_part(t, p, &c);
}

int origins_host_known(const struct origin_table *t, const char *name)
{
	return t->known_full || hmap_get(&t->known, name, strlen(name)) != NULL;
}

enum cr_err origins_load_late(struct origin_table *t, int64_t now,
			      void (*fn)(void *arg, struct origin *o), void *arg)
{
	struct hmap only;
	struct load_ctx c = { t, now, &only };
	enum cr_err e = CR_OK;
	size_t i, k;

	hmap_init(&only);
	for (i = 0; i < t->nlate; i++)
		*hmap_put(&only, t->late[i]->key, strlen(t->late[i]->key)) = t->late[i];
	/* Each partition of a late origin once. */
	for (i = 0; !e && t->cache_ver > 0 && i < t->nlate; i++) {
		for (k = 0; k < i && t->late[k]->part != t->late[i]->part; k++)
			;
		if (k < i)
			continue;
		e = scan_part(t, t->late[i]->part, &c);
	}
	for (i = 0; fn && i < t->nlate; i++)
		fn(arg, t->late[i]);
	hmap_release(&only);
	t->nlate = 0;
	return e;
}

void origins_answer_pack(const struct origin *o, int early, int64_t now, struct buf *out)
{
	struct robots_cache_times tm;

	memset(&tm, 0, sizeof(tm));
	tm.last_end = now;   /* its request's end, near enough: politeness binds from it */
	buf_put_u8(out, (uint8_t)(early != 0));
	buf_put_str(out, o->failure ? o->failure : "", o->failure ? strlen(o->failure) : 0);
	buf_put_str(out, o->refused ? o->refused : "", o->refused ? strlen(o->refused) : 0);
	robots_cache_pack(out, o->key, o->fetched_at, o->http_status, o->body.p, o->body.len,
			  &tm);
}

/* The table's lasting copy of a reason s (len bytes), or NULL for none. */
static const char *reason_of(struct origin_table *t, const char *s, size_t len)
{
	return len ? hmap_key(hmap_put(&t->reasons, s, len)) : NULL;
}

enum cr_err origins_restore(struct origin_table *main, struct origin_table *early,
			    uint32_t p, const void *answer, size_t n, int64_t now)
{
	struct robots_cache_entry e;
	struct buf_reader rd;
	struct origin_table *t;
	struct origin *o;
	const char *why, *ref;
	size_t fl, rl;
	uint8_t which;

	buf_reader_init(&rd, answer, n);
	if (buf_get_u8(&rd, &which) || which > 1 || buf_get_str(&rd, &why, &fl) ||
	    buf_get_str(&rd, &ref, &rl))
		return CR_ERR_FORMAT;
	memset(&e, 0, sizeof(e));
	e.data = (const char *)answer + rd.off;
	e.n = n - rd.off;
	if (robots_cache_unpack(e.data, e.n, e.origin, sizeof(e.origin), &e.fetched_at,
				&e.http_status, &e.body, &e.body_len, &e.times) != CR_OK)
		return CR_ERR_FORMAT;
	t = which ? early : main;
	o = origins_get(t, e.origin, p);
	if (take_entry(t, o, &e, now)) {
		o->failure = reason_of(t, why, fl);
		o->refused = reason_of(t, ref, rl);
	}
	return CR_OK;
}

struct carry_ctx {
	struct origin_table *t;
	struct recfile_writer *w;
	int64_t now;
};

/* An entry of the old cache this phase did not load: copied as it is.
 * (The early table: an old early entry neither table holds.) */
static enum cr_err carry_one(void *arg, const struct robots_cache_entry *e)
{
	struct carry_ctx *c = arg;
	int64_t keep = c->t->pol.ttl_us * ORIGINS_KEEP_TTLS;
	size_t n = strlen(e->origin);

	if (hmap_get(&c->t->map, e->origin, n) || c->now - e->fetched_at > keep ||
	    (c->t->taken && hmap_get(c->t->taken, e->origin, n)))
		return CR_OK;
	return recfile_writer_add(c->w, e->data, e->n);
}

/* Partition p of the new cache: this phase's origins of p (os[0..n)),
 * then the carried. */
static enum cr_err write_part(struct origin_table *t, uint32_t p, struct origin **os,
			      size_t n, struct recfile_writer *w, int64_t now)
{
	struct carry_ctx c = { t, w, now };
	struct buf b;
	char path[PATH_MAX];
	size_t i;
	enum cr_err e = CR_OK;

	buf_init(&b);
	for (i = 0; !e && i < n; i++) {
		struct origin *o = os[i];
		struct robots_cache_times tm = { o->last_end, o->hold_until, o->dns };
		/* A redirect chain the phase's end cut off (answered, not
		 * settled) keeps no answer: a hop's 3xx would read as "not
		 * followed further", everything allowed. The early table keeps
		 * rules alone: a failure is asked again in the host's round. */
		int cut = o->answered &&
			  (o->state == ORIGIN_UNKNOWN || o->state == ORIGIN_FETCHING);
		int rules = t->early ? o->state == ORIGIN_READY : !cut;
		int64_t at = rules ? o->fetched_at : 0;

		/* Loaded but expired entries are written back, as the old file
		 * had them; unavailable ones too, so the next phase knows when
		 * the robots.txt failed. One without its answer still leaves
		 * its request's end (and the DNS answer) to respect. */
		if (at == 0 && o->dns.expires == 0 && (rules || o->last_end == 0))
			continue;
		b.len = 0;
		robots_cache_pack(&b, o->key, at, rules ? o->http_status : 0,
				  rules ? o->body.p : NULL, rules ? o->body.len : 0, &tm);
		e = recfile_writer_add(w, b.p, b.len);
	}
	buf_release(&b);
	if (!e && t->cache_ver > 0) {
		(t->early ? layout_robots_early : layout_robots_part)(&t->j->dir, t->cache_ver, p,
								      path, sizeof(path));
		e = robots_cache_scan(path, carry_one, &c);
	}
	return e;
}

static int by_part(const void *a, const void *b)
{
	const struct origin *x = *(struct origin *const *)a, *y = *(struct origin *const *)b;

	return x->part < y->part ? -1 : x->part > y->part;
}

/* The origins, ordered by partition; *n gets how many. */
static struct origin **sorted_origins(struct origin_table *t, size_t *n)
{
	struct origin **os = malloc((t->map.count + 1) * sizeof(*os));
	struct hmap_slot *s;
	size_t i = 0;

	*n = 0;
	if (!os)
		return NULL;
	while ((s = hmap_next(&t->map, &i)) != NULL)
		os[(*n)++] = s->val;
	qsort(os, *n, sizeof(*os), by_part);
	return os;
}

enum cr_err origins_write(struct origin_table *t, int seg, int64_t now)
{
	const struct job *j = t->j;
	char path[PATH_MAX];
	size_t n, at = 0, end;
	struct origin **os = sorted_origins(t, &n);
	uint32_t p;
	enum cr_err e = os ? CR_OK : CR_ERR_NOMEM;

	layout_robots_dir(&j->dir, seg, path, sizeof(path));
	if (!e)
		e = fs_mkdirs(path);
	for (p = 0; !e && p < j->dir.partitions; p++) {
		struct recfile_writer *w;

		while (at < n && os[at]->part < p)
			at++;
		for (end = at; end < n && os[end]->part == p; end++)
			;
		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		(t->early ? layout_robots_early : layout_robots_part)(&j->dir, seg, p, path,
								      sizeof(path));
		e = recfile_writer_open(path, REC_KIND_ROBOTS, (int)j->cfg.zstd_level, &w);
		if (e)
			break;
		e = write_part(t, p, os + at, end - at, w, now);
		if (e)
			recfile_writer_abort(&w);
		else
			e = recfile_writer_commit(&w);
	}
	free(os);
	return e;
}



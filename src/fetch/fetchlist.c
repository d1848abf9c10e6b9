#include "fetch/fetchlist.h"
#include "crawldb/fetch_record.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/log.h"

#include <limits.h>
#include <string.h>
#include <libpsl.h>

/* The host called name, set up when new (*made = 1): the fetcher's
 * context, the operator's rules, its group by registrable domain. */
static struct host *host_of(struct fetchlist_load *l, const char *name, int *made)
{
	size_t before = l->hosts->hosts.count;
	struct host *h = hosts_get(l->hosts, name);
	struct host_settings s;

	*made = l->hosts->hosts.count != before;
	if (!*made)
		return h;
	h->ctx = l->host_ctx;
	if (host_rules_by_name(l->rules, name, &s))
		hosts_override(h, &s);
	if (l->j->cfg.politeness_by == POLITE_BY_DOMAIN) {
		const char *reg = psl_registrable_domain(psl_builtin(), name);

		hosts_join(l->hosts, h, reg ? reg : name);
	}
	return h;
}

/* The origin key ("scheme://authority") of a canonical URL into key. */
static void origin_key(const char *url, char *key, size_t cap)
{
	size_t kl = (size_t)(url_path(url) - url);

	if (kl >= cap)
		kl = cap - 1;
	memcpy(key, url, kl);
	key[kl] = '\0';
}

struct host_item *fetchlist_add(struct fetchlist_load *l, const struct crawl_record *rec,
				uint32_t p, int next)
{
	char url[URL_MAX_LEN + 1], name[URL_HOST_MAX], key[URL_HOST_MAX + 16];
	struct host *h;
	struct origin *o;
	int made, done = l->done->count && hmap_get(l->done, rec->url, rec->url_len);

	memcpy(url, rec->url, rec->url_len);
	url[rec->url_len] = '\0';
	origin_key(url, key, sizeof(key));
	if (done) {
		/* An earlier attempt finished it; its origin is still the
		 * phase's: the robots cache the phase writes, which generate
		 * plans the next round from, holds what an uninterrupted fetch
		 * would - its robots.txt, whether or not a URL of it is left. */
		l->urls++;
		origins_get(l->origins, key, p);
		return NULL;
	}
	if (url_host(url, name, sizeof(name)) != CR_OK)
		return NULL;
	l->urls++;
	h = host_of(l, name, &made);
	l->new_hosts += made;
	hosts_claim(l->hosts, h);
	o = origins_get(l->origins, key, p);
	o->host = h;
	return (next ? hosts_add_next : hosts_add)(h, url, rec, p, o);
}

int fetchlist_early(struct fetchlist_load *l, struct origin_table *early, const char *url,
		    size_t len, uint32_t p)
{
	char u[URL_MAX_LEN + 1], name[URL_HOST_MAX], key[URL_HOST_MAX + 16];
	struct crawl_record rec;
	struct host_settings s;
	struct host_item *it;
	struct host *h;
	struct origin *o;
	int made;

	if (len > URL_MAX_LEN || early->map.count >= (size_t)l->j->cfg.robots_early_max)
		return 0;
	memcpy(u, url, len);
	u[len] = '\0';
	origin_key(u, key, sizeof(key));
	/* An origin of either table is the phase's already (one an earlier
	 * attempt finished, or asked early, has no host here). */
	if (url_host(u, name, sizeof(name)) != CR_OK ||
	    hmap_get(&l->hosts->hosts, name, strlen(name)) ||
	    hmap_get(&l->origins->map, key, strlen(key)) ||
	    hmap_get(&early->map, key, strlen(key)) ||
	    origins_host_known(l->origins, name) ||
	    (host_rules_by_name(l->rules, name, &s) && s.block))
		return 0;
	o = origins_get(early, key, p);
	h = host_of(l, name, &made);
	hosts_mark_early(l->hosts, h);
	o->host = h;
	memset(&rec, 0, sizeof(rec));
	rec.reason = rec.dup_of = rec.etag = "";
	it = hosts_add(h, key, &rec, p, o);
	it->early = 1;
	return 1;
}

enum cr_err fetchlist_read(struct fetchlist_load *l, uint32_t p)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *data;
	size_t n;
	enum cr_err e;

	layout_segment_part(&l->j->dir, l->seg, "fetchlist", p, path, sizeof(path));
	e = recfile_reader_open(path, REC_KIND_FETCHLIST, &r);
	if (e) {
		log_err("fetch", "cannot read fetch list '%s'", path);
		return e;
	}
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct crawl_record rec;

		if (crawl_record_unpack(data, n, &rec) || rec.url_len > URL_MAX_LEN) {
			e = CR_ERR_FORMAT;
			break;
		}
		fetchlist_add(l, &rec, p, 0);
	}
	recfile_reader_free(&r);
	if (e == CR_ERR_FORMAT)
		log_err("fetch", "damaged fetch list '%s' (`mpicrawl check` says how to plan the "
			"segment again)", path);
	return e == CR_EOF ? CR_OK : e;
}

void fetchlist_record(const struct host_item *it, struct fetch_record *fr)
{
	fr->rec.url = it->url;
	fr->rec.url_len = it->rec.url_len;
	fr->rec.depth = it->rec.depth;
	fr->rec.retries = it->rec.retries;
	fr->rec.hops = it->rec.hops;
	fr->rec.meta = it->rec.meta;
	fr->rec.seed = it->rec.seed;
	fr->rec.cash = it->rec.cash;
	fr->reason = fr->location = fr->content_type = fr->charset = fr->warc = "";
}

#include "scope/scope.h"
#include "crawldb/job.h"
#include "scope/seeds.h"
#include "crawldb/link_record.h"
#include "scope/host_rules.h"
#include "url/surt.h"
#include "url/url.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <libpsl.h>
#include <stdlib.h>
#include <string.h>


void scope_init(struct scope *s, int mode)
{
	memset(s, 0, sizeof(*s));
	s->mode = mode;
	hmap_init(&s->hosts);
	hmap_init(&s->domains);
	hmap_init(&s->by_id);
}

void scope_release(struct scope *s)
{
	size_t i;

	scope_rules_free(&s->rules);
	hmap_release(&s->hosts);
	hmap_release(&s->domains);
	hmap_release(&s->by_id);
	for (i = 0; i < s->nlist; i++) {
		free(s->list[i]->url);
		free(s->list[i]->host);
		free(s->list[i]);
	}
	free(s->list);
	memset(s, 0, sizeof(*s));
}

const struct scope_seed *scope_seed_of(const struct scope *s, uint64_t id)
{
	return id ? hmap_get(&s->by_id, (const char *)&id, sizeof(id)) : NULL;
}

/* The seed's entry, created on first sight. */
/* 1 if a seed line's settings are none at all. */
static int seed_plain(const struct seed_settings *set)
{
	return !set || (set->max_pages < 0 && set->max_depth < 0 && set->scope < 0 &&
			!set->sitemap);
}

static enum cr_err note_seed(struct scope *s, const char *url, const char *host,
			     const struct seed_settings *set)
{
	uint64_t id = seeds_id(url, strlen(url));
	int plain = seed_plain(set);
	void **slot;
	struct scope_seed *sd;

	if (plain && !s->keep_plain && !hmap_get(&s->by_id, (const char *)&id, sizeof(id)))
		return CR_OK;
	slot = hmap_put(&s->by_id, (const char *)&id, sizeof(id));
	sd = *slot;
	if (!sd) {
		if (s->nlist == s->cap) {
			size_t nc = s->cap ? s->cap * 2 : 64;
			struct scope_seed **l = realloc(s->list, nc * sizeof(*l));

			if (!l)
				return CR_ERR_NOMEM;
			s->list = l;
			s->cap = nc;
		}
		sd = calloc(1, sizeof(*sd));
		if (!sd || !(sd->url = strdup(url)) || !(sd->host = strdup(host))) {
			if (sd)
				free(sd->url);
			free(sd);
			return CR_ERR_NOMEM;
		}
		sd->id = id;
		sd->domain = scope_domain(sd->host);
		sd->set.max_pages = sd->set.max_depth = -1;
		sd->set.scope = -1;
		s->list[s->nlist++] = sd;
		*slot = sd;
	}
	if (set)
		sd->set = *set;
	return CR_OK;
}

const char *scope_domain(const char *host)
{
	unsigned char bin[4];
	const char *reg = host[0] == '[' || inet_pton(AF_INET, host, bin) == 1 ? NULL :
			  psl_registrable_domain(psl_builtin(), host);

	return reg && *reg ? reg : host;
}

enum cr_err scope_add_seed(struct scope *s, const char *url, size_t len,
			   const struct seed_settings *set)
{
	char tmp[URL_MAX_LEN + 1], host[URL_HOST_MAX + 1];
	const char *dom;

	if (len > URL_MAX_LEN)
		return CR_ERR_FORMAT;
	memcpy(tmp, url, len);
	tmp[len] = '\0';
	if (url_host(tmp, host, sizeof(host)) != CR_OK)
		return CR_ERR_FORMAT;
	if (s->settings_only) {   /* note_seed passes plain seeds by */
		s->seeds++;
		return note_seed(s, tmp, host, set);
	}
	dom = scope_domain(host);
	/* A present key holds a non-NULL value (hmap_get's NULL is "absent"). */
	*hmap_put(&s->hosts, host, strlen(host)) = s;
	*hmap_put(&s->domains, dom, strlen(dom)) = s;
	s->seeds++;
	return note_seed(s, tmp, host, set);
}

/* 1 if the URL's host (or domain) is among the seeds'. */
static int mode_accepts(const struct scope *s, const char *url)
{
	char host[URL_HOST_MAX + 1];
	const char *dom;

	if (s->mode == SCOPE_ANY || s->seeds == 0)
		return 1;
	if (url_host(url, host, sizeof(host)) != CR_OK)
		return 0;
	if (hmap_get(&s->hosts, host, strlen(host)))
		return 1;
	if (s->mode == SCOPE_SEEDS_HOSTS)
		return 0;
	dom = scope_domain(host);
	return hmap_get(&s->domains, dom, strlen(dom)) != NULL;
}

/* The rules' verdict on the NUL-terminated url. */
static enum rule_verdict rules_match(struct scope *s, const char *url, size_t len)
{
	char surt[URL_MAX_LEN + 64];
	unsigned line;
	int have;

	if (!s->rules)
		return RULE_NONE;
	have = surt_from_url(url, len, surt, sizeof(surt)) == CR_OK;
	return scope_rules_match(s->rules, url, len, have ? surt : NULL, &line);
}

/* The scope's verdict for a rule's. */
static enum scope_verdict of_rule(enum rule_verdict v)
{
	return v == RULE_REFUSE ? SCOPE_OUT_RULES : v == RULE_LIMIT ? SCOPE_OUT_LIMIT : SCOPE_IN;
}

const char *scope_reason(enum scope_verdict v)
{
	static const char *const names[] = {
		[SCOPE_IN] = NULL, [SCOPE_OUT_RULES] = "scope:rules",
		[SCOPE_OUT_LIMIT] = "scope:limit", [SCOPE_OUT_SEED] = "scope:seed",
		[SCOPE_OUT_MODE] = "scope:mode", [SCOPE_OUT_DEPTH] = "depth",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}

enum scope_verdict scope_check_rules(struct scope *s, const char *url, size_t len)
{
	char tmp[URL_MAX_LEN + 1];

	if (len > URL_MAX_LEN)
		return SCOPE_OUT_RULES;
	memcpy(tmp, url, len);
	tmp[len] = '\0';
	return of_rule(rules_match(s, tmp, len));
}

enum scope_verdict scope_check(struct scope *s, const char *url, size_t len)
{
	char tmp[URL_MAX_LEN + 1];
	enum rule_verdict v;

	if (len > URL_MAX_LEN)
		return SCOPE_OUT_MODE;
	memcpy(tmp, url, len);
	tmp[len] = '\0';
	v = rules_match(s, tmp, len);
	if (v != RULE_NONE)
		return of_rule(v);
	return mode_accepts(s, tmp) ? SCOPE_IN : SCOPE_OUT_MODE;
}

/* 1 if url's host is the seed's (scope host) or in its domain (domain). */
static int seed_accepts(const struct scope_seed *sd, const char *url)
{
	char host[URL_HOST_MAX + 1];

	if (sd->set.scope == SCOPE_ANY)
		return 1;
	if (url_host(url, host, sizeof(host)) != CR_OK)
		return 0;
	if (!strcmp(host, sd->host))
		return 1;
	return sd->set.scope == SCOPE_SEEDS_DOMAINS && !strcmp(scope_domain(host), sd->domain);
}

enum scope_verdict scope_check_link(struct scope *s, const struct link_record *l)
{
	const struct scope_seed *sd = scope_seed_of(s, l->seed);
	char tmp[URL_MAX_LEN + 1];
	enum rule_verdict v;

	if (sd && sd->set.max_depth >= 0 && l->depth > (uint32_t)sd->set.max_depth)
		return SCOPE_OUT_DEPTH;
	if (l->url_len > URL_MAX_LEN)
		return SCOPE_OUT_MODE;
	memcpy(tmp, l->url, l->url_len);
	tmp[l->url_len] = '\0';
	v = rules_match(s, tmp, l->url_len);
	if (v != RULE_NONE)
		return of_rule(v);
	if (sd && sd->set.scope >= 0)
		return seed_accepts(sd, tmp) ? SCOPE_IN : SCOPE_OUT_SEED;
	return mode_accepts(s, tmp) ? SCOPE_IN : SCOPE_OUT_MODE;
}

static enum cr_err add_recorded(void *arg, const char *url, size_t ulen,
				const struct seed_settings *set)
{
	return scope_add_seed(arg, url, ulen, set);
}

enum cr_err scope_add_seeds(struct scope *s, const struct crawl_dir *d, int version)
{
	return seeds_load(d, version, add_recorded, s);
}

enum cr_err scope_open(struct scope *s, const struct job *j, int version)
{
	enum cr_err e = CR_OK;

	scope_init(s, j->cfg.scope_mode);
	if (j->cfg.scope_rules[0])
		e = scope_rules_load(j->cfg.scope_rules, &s->rules);
	if (!e)
		e = scope_add_seeds(s, &j->dir, version);
	if (!e && s->seeds == 0 && s->mode != SCOPE_ANY && j->rank == 0 && version > 0)
		log_warn("scope", "the crawl has no recorded seeds: scope.mode %s acts as any",
			 config_scope_modes[s->mode]);
	if (e)
		scope_release(s);
	return e;
}

/* scope.rules: "" or a rules file that parses (rules.h). */
static const char *check_rules(const char *v)
{
	static char why[600];
	struct scope_rules *r = NULL;

	if (!*v)
		return NULL;
	why[0] = '\0';
	if (scope_rules_read(v, &r, why, sizeof(why)) != CR_OK)
		return why[0] ? why : "cannot be read";
	scope_rules_free(&r);
	return NULL;
}

/* hosts.rules: "" or a host rules file that parses (host_rules.h). */
static const char *check_host_rules(const char *v)
{
	static char why[600];
	struct host_rules *r = NULL;

	if (!*v)
		return NULL;
	why[0] = '\0';
	if (host_rules_read(v, &r, why, sizeof(why)) != CR_OK)
		return why[0] ? why : "cannot be read";
	host_rules_free(&r);
	return NULL;
}

void scope_register_checks(void)
{
	config_register_check("scope.rules", check_rules);
	config_register_check("hosts.rules", check_host_rules);
}

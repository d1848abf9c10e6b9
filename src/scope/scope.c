#include "scope/scope.h"
#include "crawldb/job.h"
#include "scope/seeds.h"
#include "scope/surt.h"
#include "url/url.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <libpsl.h>
#include <string.h>

const char *const scope_mode_names[] = { "seeds-domains", "seeds-hosts", "any", NULL };

void scope_init(struct scope *s, int mode)
{
	memset(s, 0, sizeof(*s));
	s->mode = mode;
	hmap_init(&s->hosts);
	hmap_init(&s->domains);
}

void scope_release(struct scope *s)
{
	scope_rules_free(&s->rules);
	hmap_release(&s->hosts);
	hmap_release(&s->domains);
	memset(s, 0, sizeof(*s));
}

const char *scope_domain(const char *host)
{
	unsigned char bin[4];
	const char *reg = host[0] == '[' || inet_pton(AF_INET, host, bin) == 1 ? NULL :
			  psl_registrable_domain(psl_builtin(), host);

	return reg && *reg ? reg : host;
}

enum cr_err scope_add_seed(struct scope *s, const char *url, size_t len)
{
	char tmp[URL_MAX_LEN + 1], host[URL_HOST_MAX + 1];
	const char *dom;

	if (len > URL_MAX_LEN)
		return CR_ERR_FORMAT;
	memcpy(tmp, url, len);
	tmp[len] = '\0';
	if (url_host(tmp, host, sizeof(host)) != CR_OK)
		return CR_ERR_FORMAT;
	dom = scope_domain(host);
	/* A present key holds a non-NULL value (hmap_get's NULL is "absent"). */
	*hmap_put(&s->hosts, host, strlen(host)) = s;
	*hmap_put(&s->domains, dom, strlen(dom)) = s;
	s->seeds++;
	return CR_OK;
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
static enum rule_verdict rules_verdict(struct scope *s, const char *url, size_t len)
{
	char surt[URL_MAX_LEN + 64];
	unsigned line;
	int have;

	if (!s->rules)
		return RULE_NONE;
	have = surt_from_url(url, len, surt, sizeof(surt)) == CR_OK;
	return scope_rules_match(s->rules, url, len, have ? surt : NULL, &line);
}

static const char *verdict_reason(enum rule_verdict v)
{
	return v == RULE_REFUSE ? "scope:rules" : v == RULE_LIMIT ? "scope:limit" : NULL;
}

const char *scope_check_rules(struct scope *s, const char *url, size_t len)
{
	char tmp[URL_MAX_LEN + 1];

	if (len > URL_MAX_LEN)
		return "scope:rules";
	memcpy(tmp, url, len);
	tmp[len] = '\0';
	return verdict_reason(rules_verdict(s, tmp, len));
}

const char *scope_check(struct scope *s, const char *url, size_t len)
{
	char tmp[URL_MAX_LEN + 1];
	enum rule_verdict v;

	if (len > URL_MAX_LEN)
		return "scope:mode";
	memcpy(tmp, url, len);
	tmp[len] = '\0';
	v = rules_verdict(s, tmp, len);
	if (v != RULE_NONE)
		return verdict_reason(v);
	return mode_accepts(s, tmp) ? NULL : "scope:mode";
}

enum cr_err scope_open(struct scope *s, const struct job *j, int version)
{
	enum cr_err e = CR_OK;

	scope_init(s, j->cfg.scope_mode);
	if (j->cfg.scope_rules[0])
		e = scope_rules_load(j->cfg.scope_rules, &s->rules);
	if (!e)
		e = seeds_load_scope(&j->dir, version, s);
	if (!e && s->seeds == 0 && s->mode != SCOPE_ANY && j->rank == 0)
		log_warn("scope", "the crawl has no recorded seeds: scope.mode %s acts as any",
			 scope_mode_names[s->mode]);
	if (e)
		scope_release(s);
	return e;
}

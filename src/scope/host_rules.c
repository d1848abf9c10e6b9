#include "scope/host_rules.h"
#include "util/addr.h"
#include "inputs/inputs.h"
#include "util/buf.h"
#include "util/hmap.h"
#include "util/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_RULES_FILE_MAX (16u << 20)
#define HOST_RULE_LINE_MAX 4096u

struct host_rules {
	struct host_settings *v;     /* every rule, in file order */
	size_t n, cap;
	struct hmap names;           /* exact name -> rule index + 1 (first kept) */
	struct hmap suffixes;        /* "*.SUFFIX" -> rule index + 1 */
	struct {
		struct addr_list range;  /* one range */
		size_t rule;
	} *addrs;
	size_t naddrs;
};

void host_rules_free(struct host_rules **rp)
{
	struct host_rules *r = *rp;

	if (!r)
		return;
	free(r->v);
	hmap_release(&r->names);
	hmap_release(&r->suffixes);
	free(r->addrs);
	free(r);
	*rp = NULL;
}

static void unset(struct host_settings *s)
{
	s->block = 0;
	s->delay_ms = s->max_in_flight = s->max_per_host = -1;
	s->line = 0;
}

/* One "key=value" or "block" of a rule. NULL, or why it is bad. */
static const char *parse_action(const char *a, struct host_settings *s)
{
	static const struct {
		const char *key;
		long min, max;
		size_t off;
	} keys[] = {
		{ "delay_ms", 0, 3600000, offsetof(struct host_settings, delay_ms) },
		{ "max_in_flight", 1, 64, offsetof(struct host_settings, max_in_flight) },
		{ "max_per_host", 0, 1L << 31, offsetof(struct host_settings, max_per_host) },
	};
	const char *eq = strchr(a, '=');
	size_t i;

	if (!strcmp(a, "block")) {
		s->block = 1;
		return NULL;
	}
	for (i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *end;
		long v;

		if (strlen(keys[i].key) != (size_t)(eq - a) || strncmp(a, keys[i].key, eq - a))
			continue;
		errno = 0;
		v = strtol(eq + 1, &end, 10);
		if (errno || end == eq + 1 || *end || v < keys[i].min || v > keys[i].max)
			return "a value out of range (delay_ms 0-3600000, max_in_flight 1-64, "
			       "max_per_host 0-2147483648)";
		*(long *)((char *)s + keys[i].off) = v;
		return NULL;
	}
	return "an unknown action (block, delay_ms=N, max_in_flight=N, max_per_host=N)";
}

/* 1 if p is a host name of letters, digits, '-', '_' and inner dots. */
static int good_name(const char *p)
{
	size_t n = strlen(p);

	if (!n || n > 253 || p[0] == '.' || p[n - 1] == '.' || strstr(p, ".."))
		return 0;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return 0;
	return 1;
}

/* Files the pattern of rule i. NULL, or why it is bad. */
static const char *add_pattern(struct host_rules *r, char *pat, size_t i)
{
	char bad[64], *p;
	void **slot;

	for (p = pat; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strchr(pat, ':') || strchr(pat, '/') || (isdigit((unsigned char)pat[0]) &&
	    strspn(pat, "0123456789.") == strlen(pat))) {
		void *v = realloc(r->addrs, (r->naddrs + 1) * sizeof(*r->addrs));

		if (!v)
			return "out of memory";
		r->addrs = v;
		if (addr_list_parse(pat, &r->addrs[r->naddrs].range, bad) ||
		    r->addrs[r->naddrs].range.n != 1)
			return "a bad address or CIDR range";
		r->addrs[r->naddrs++].rule = i;
		return NULL;
	}
	if (!strncmp(pat, "*.", 2)) {
		if (!good_name(pat + 2))
			return "a bad domain after '*.'";
		slot = hmap_put(&r->suffixes, pat + 2, strlen(pat + 2));
	} else {
		if (!good_name(pat))
			return "a bad host name (a name, *.domain, or an address or CIDR range)";
		slot = hmap_put(&r->names, pat, strlen(pat));
	}
	if (!*slot)   /* the first rule for a pattern is the one that applies */
		*slot = (void *)(uintptr_t)(i + 1);
	return NULL;
}

/* One rule line (a copy, trimmed, not empty, not a comment). */
static const char *parse_rule(struct host_rules *r, char *t, unsigned lineno)
{
	struct host_settings s;
	char *save = NULL, *pat = strtok_r(t, " \t", &save), *a;
	const char *why;
	int actions = 0;

	unset(&s);
	s.line = lineno;
	while ((a = strtok_r(NULL, " \t", &save)) != NULL) {
		if ((why = parse_action(a, &s)) != NULL)
			return why;
		actions++;
	}
	if (!actions)
		return "a pattern without an action";
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 16;
		void *v = realloc(r->v, nc * sizeof(*r->v));

		if (!v)
			return "out of memory";
		r->v = v;
		r->cap = nc;
	}
	r->v[r->n] = s;
	if ((why = add_pattern(r, pat, r->n)) != NULL)
		return why;
	r->n++;
	return NULL;
}

enum cr_err host_rules_parse(const char *text, size_t n, const char *name,
			     struct host_rules **out, char *err, size_t errcap)
{
	struct host_rules *r = calloc(1, sizeof(*r));
	char line[HOST_RULE_LINE_MAX + 1];
	unsigned lineno = 0;
	size_t pos = 0;

	*out = NULL;
	if (!r)
		return CR_ERR_NOMEM;
	hmap_init(&r->names);
	hmap_init(&r->suffixes);
	while (pos < n) {
		const char *nl = memchr(text + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - text - pos) : n - pos;
		const char *why = NULL;
		char *t, *hash;

		lineno++;
		if (len > HOST_RULE_LINE_MAX)
			why = "line longer than 4096 bytes";
		else if (memchr(text + pos, '\0', len))
			why = "not a text file";
		else if (r->n >= HOST_RULES_MAX)
			why = "more than 100000 rules";
		if (!why) {
			memcpy(line, text + pos, len);
			line[len] = '\0';
			if ((hash = strchr(line, '#')) != NULL)
				*hash = '\0';
			for (t = line; *t == ' ' || *t == '\t' || *t == '\r'; t++)
				;
			t[strcspn(t, "\r")] = '\0';
			if (*t)
				why = parse_rule(r, t, lineno);
		}
		if (why) {
			snprintf(err, errcap, "%s:%u: %s", name, lineno, why);
			host_rules_free(&r);
			return CR_ERR_ARG;
		}
		pos += len + (nl != NULL);
	}
	*out = r;
	return CR_OK;
}

enum cr_err host_rules_read(const char *path, struct host_rules **out, char *err,
			    size_t errcap)
{
	struct buf text;
	enum cr_err e;

	*out = NULL;
	buf_init(&text);
	e = inputs_read_named("host rules", path, HOST_RULES_FILE_MAX, &text, err, errcap);
	if (!e)
		e = host_rules_parse(buf_cstr(&text), text.len, path, out, err, errcap);
	buf_release(&text);
	return e ? CR_ERR_ARG : CR_OK;
}

enum cr_err host_rules_load(const char *path, struct host_rules **out)
{
	char err[600] = "";
	enum cr_err e = host_rules_read(path, out, err, sizeof(err));

	if (e)
		log_err("hosts", "%s", err[0] ? err : error_str(e));
	return e;
}

int host_rules_by_name(const struct host_rules *r, const char *host, struct host_settings *s)
{
	size_t best = SIZE_MAX, k;
	const char *p = host;

	unset(s);
	if (!r)
		return 0;
	k = (size_t)(uintptr_t)hmap_get(&r->names, host, strlen(host));
	if (k)
		best = k - 1;
	/* host itself, then each parent: "a.b.c" -> "b.c" -> "c". */
	while (p && *p) {
		k = (size_t)(uintptr_t)hmap_get(&r->suffixes, p, strlen(p));
		if (k && k - 1 < best)
			best = k - 1;
		p = strchr(p, '.');
		p = p ? p + 1 : NULL;
	}
	if (best == SIZE_MAX)
		return 0;
	*s = r->v[best];
	return 1;
}

long host_rules_max_in_flight(const struct host_rules *r)
{
	long m = 0;
	size_t i;

	for (i = 0; r && i < r->n; i++)
		if (r->v[i].max_in_flight > m)
			m = r->v[i].max_in_flight;
	return m;
}

int host_rules_by_addr(const struct host_rules *r, const char *addr, struct host_settings *s)
{
	size_t i;

	unset(s);
	for (i = 0; r && i < r->naddrs; i++) {
		if (addr_list_has_str(&r->addrs[i].range, addr)) {
			*s = r->v[r->addrs[i].rule];
			return 1;
		}
	}
	return 0;
}

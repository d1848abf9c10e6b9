#define PCRE2_CODE_UNIT_WIDTH 8
#include "scope/rules.h"
#include "inputs/inputs.h"
#include "url/surt.h"
#include "url/url.h"
#include "util/buf.h"
#include "util/log.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rule {
	int accept;
	unsigned line;
	char *surt;          /* a SURT prefix, or NULL */
	size_t surt_len;
	pcre2_code *re;      /* or a compiled regex */
};

struct scope_rules {
	struct rule *v;
	size_t n, cap;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
};

void scope_rules_free(struct scope_rules **rp)
{
	struct scope_rules *r = *rp;
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->v[i].surt);
		pcre2_code_free(r->v[i].re);
	}
	free(r->v);
	pcre2_match_data_free(r->md);
	pcre2_match_context_free(r->mctx);
	free(r);
	*rp = NULL;
}

size_t scope_rules_count(const struct scope_rules *r)
{
	return r ? r->n : 0;
}

static enum cr_err compile_regex(struct rule *rl, const char *body, char *why, size_t cap)
{
	int code;
	PCRE2_SIZE off;

	rl->re = pcre2_compile((PCRE2_SPTR)body, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!rl->re) {
		PCRE2_UCHAR msg[160];

		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(why, cap, "bad regex: %s at offset %zu", (const char *)msg, (size_t)off);
		return CR_ERR_ARG;
	}
	/* Without JIT (an unsupported platform) the interpreter is used. */
	(void)pcre2_jit_compile(rl->re, PCRE2_JIT_COMPLETE);
	return CR_OK;
}

/* One rule line (trimmed, not empty, not a comment). */
static enum cr_err parse_line(struct scope_rules *r, char *t, unsigned lineno, char *why,
			      size_t cap)
{
	struct rule rl = { 1, lineno, NULL, 0, NULL };
	char prefix[URL_MAX_LEN + 1];
	const char *w;

	if (*t == '+' || *t == '-') {
		rl.accept = *t == '+';
		t++;
	} else if (!surt_is_prefix(t)) {
		snprintf(why, cap, "a rule starts with '+' or '-' (or is a SURT prefix)");
		return CR_ERR_ARG;
	}
	if (!*t) {
		snprintf(why, cap, "a rule without a pattern");
		return CR_ERR_ARG;
	}
	if (surt_is_prefix(t)) {
		if (surt_prefix(t, prefix, sizeof(prefix), &w) != CR_OK) {
			snprintf(why, cap, "%s", w);
			return CR_ERR_ARG;
		}
		rl.surt = strdup(prefix);
		rl.surt_len = strlen(prefix);
		if (!rl.surt)
			return CR_ERR_NOMEM;
	} else if (compile_regex(&rl, t, why, cap) != CR_OK) {
		return CR_ERR_ARG;
	}
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 16;
		struct rule *v = realloc(r->v, nc * sizeof(*v));

		if (!v) {
			free(rl.surt);
			pcre2_code_free(rl.re);
			return CR_ERR_NOMEM;
		}
		r->v = v;
		r->cap = nc;
	}
	r->v[r->n++] = rl;
	return CR_OK;
}

/* Cuts the line at its end and trims it; NULL for a blank or comment line. */
static char *rule_text(char *line)
{
	char *e = line + strlen(line);

	while (*line == ' ' || *line == '\t')
		line++;
	while (e > line && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return *line && *line != '#' ? line : NULL;
}

static enum cr_err parse_lines(struct scope_rules *r, const char *text, size_t n,
			       const char *name, char *err, size_t errcap)
{
	char line[SCOPE_RULE_LINE_MAX + 1], why[256];
	unsigned lineno = 0;
	size_t pos = 0;

	while (pos < n) {
		const char *nl = memchr(text + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - text - pos) : n - pos;
		enum cr_err e = CR_OK;
		char *t;

		lineno++;
		why[0] = '\0';
		if (len > SCOPE_RULE_LINE_MAX)
			snprintf(why, sizeof(why), "line longer than %u bytes",
				 SCOPE_RULE_LINE_MAX);
		else if (memchr(text + pos, '\0', len))
			snprintf(why, sizeof(why), "not a text file");
		if (!why[0]) {
			memcpy(line, text + pos, len);
			line[len] = '\0';
			t = rule_text(line);
			if (t && r->n >= SCOPE_RULES_MAX)
				snprintf(why, sizeof(why), "more than %u rules", SCOPE_RULES_MAX);
			else if (t)
				e = parse_line(r, t, lineno, why, sizeof(why));
		}
		if (why[0] || e) {
			snprintf(err, errcap, "%s:%u: %s", name, lineno,
				 why[0] ? why : error_str(e));
			return e ? e : CR_ERR_ARG;
		}
		pos += len + (nl != NULL);
	}
	return CR_OK;
}

enum cr_err scope_rules_parse(const char *text, size_t n, const char *name,
			      struct scope_rules **out, char *err, size_t errcap)
{
	struct scope_rules *r = calloc(1, sizeof(*r));
	enum cr_err e;

	*out = NULL;
	if (!r)
		return CR_ERR_NOMEM;
	e = parse_lines(r, text, n, name, err, errcap);
	if (!e) {
		r->md = pcre2_match_data_create(1, NULL);
		r->mctx = pcre2_match_context_create(NULL);
		if (!r->md || !r->mctx)
			e = CR_ERR_NOMEM;
		else
			pcre2_set_match_limit(r->mctx, SCOPE_MATCH_LIMIT);
	}
	if (e) {
		scope_rules_free(&r);
		return e;
	}
	*out = r;
	return CR_OK;
}

enum cr_err scope_rules_read(const char *path, struct scope_rules **out, char *err,
			     size_t errcap)
{
	struct buf text;
	enum cr_err e;

	*out = NULL;
	buf_init(&text);
	e = inputs_read_named("rules file", path, SCOPE_RULES_FILE_MAX, &text, err, errcap);
	if (!e)
		e = scope_rules_parse(buf_cstr(&text), text.len, path, out, err, errcap);
	buf_release(&text);
	return e ? CR_ERR_ARG : CR_OK;
}

enum cr_err scope_rules_load(const char *path, struct scope_rules **out)
{
	char err[600] = "";
	enum cr_err e = scope_rules_read(path, out, err, sizeof(err));

	if (e)
		log_err("scope", "%s", err[0] ? err : error_str(e));
	return e;
}

enum rule_verdict scope_rules_match(struct scope_rules *r, const char *url, size_t len,
				    const char *surt, unsigned *line)
{
	size_t i;

	for (i = 0; r && i < r->n; i++) {
		const struct rule *rl = &r->v[i];
		int hit;

		if (rl->surt) {
			hit = surt && !strncmp(surt, rl->surt, rl->surt_len);
		} else {
			int rc = pcre2_match(rl->re, (PCRE2_SPTR)url, len, 0, 0, r->md, r->mctx);

			if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
			    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
				*line = rl->line;
				return RULE_LIMIT;
			}
			hit = rc >= 0;
		}
		if (hit) {
			*line = rl->line;
			return rl->accept ? RULE_ACCEPT : RULE_REFUSE;
		}
	}
	*line = 0;
	return RULE_NONE;
}

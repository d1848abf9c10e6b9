/*
 * rules.h - an ordered list of accept (+) and refuse (-) rules over URLs,
 * in the two syntaxes users bring from other crawlers, one rule a line:
 *
 *   +http://(org,example,)/docs/    a SURT prefix, as Heritrix writes them
 *   -http://(com,                    (https is folded to http: surt.h)
 *   (org,example,                    a SURT line without sign accepts
 *   +^https?://([a-z0-9-]+\.)*example\.org/    Nutch's regex-urlfilter
 *   -\.(jpg|png|zip)$                lines: a PCRE2 pattern searched
 *                                    anywhere in the canonical URL
 *
 * '#' starts a comment line; blank lines are skipped. A body that starts
 * with '(' or "scheme://(" and holds only host characters up to ')' is a
 * SURT prefix (surt_is_prefix); every other body is a regex. The first rule
 * that matches decides.
 *
 * Regexes are compiled once (JIT where the platform has it) and matched
 * under a match limit, so that no URL, however hostile, makes one take
 * long: a match that hits the limit is reported as such and the caller
 * refuses the URL. PCRE2 is used in this file and nowhere else.
 *
 * Lifecycle: scope_rules_parse or scope_rules_load -> scope_rules_match
 * (any number of times; not thread-safe: one match buffer) ->
 * scope_rules_free. The rules own their copies of everything.
 */
#ifndef CR_SCOPE_RULES_H
#define CR_SCOPE_RULES_H

#include <stddef.h>

#include "util/error.h"

#define SCOPE_RULES_MAX 100000u
#define SCOPE_RULE_LINE_MAX 4096u
#define SCOPE_RULES_FILE_MAX (16u << 20)
/* Backtracking steps one regex may take on one URL. */
#define SCOPE_MATCH_LIMIT 200000u

struct scope_rules;

enum rule_verdict {
	RULE_NONE = 0,     /* no rule matched */
	RULE_ACCEPT = 1,
	RULE_REFUSE = 2,
	RULE_LIMIT = 3,    /* a regex hit SCOPE_MATCH_LIMIT: treat as refused */
};

/* Parses text[0..n) (name: the file, for messages). On a bad line,
 * CR_ERR_ARG with "NAME:LINE: why" in err. */
CR_WUR enum cr_err scope_rules_parse(const char *text, size_t n, const char *name,
				     struct scope_rules **out, char *err, size_t errcap);
/* Reads (through the job's inputs, inputs/inputs.h: in a job, the bytes
 * rank 0 read) and parses a rules file; a bad file is CR_ERR_ARG with why
 * in err (the file, and the line when a line is bad). */
CR_WUR enum cr_err scope_rules_read(const char *path, struct scope_rules **out, char *err,
				    size_t errcap);
/* The same, the error logged as one line. */
CR_WUR enum cr_err scope_rules_load(const char *path, struct scope_rules **out);
void scope_rules_free(struct scope_rules **r);
size_t scope_rules_count(const struct scope_rules *r);

/* The verdict of the first rule that matches a canonical URL, whose SURT
 * form (surt_from_url) is surt; *line gets that rule's line number. */
enum rule_verdict scope_rules_match(struct scope_rules *r, const char *url, size_t len,
				    const char *surt, unsigned *line);

#endif

/*
 * host_rules.h - the operator's word on hosts (hosts.rules = FILE): block
 * one, slow one down, or speed up one that agreed to it, without editing
 * code. One rule a line, '#' comments:
 *
 *   PATTERN ACTION...
 *   partner.example.org  max_in_flight=4 delay_ms=250
 *   *.ads.example        block
 *   203.0.113.0/24       block
 *
 * PATTERN is a host name, "*.SUFFIX" (SUFFIX itself and every name under
 * it), or an address or CIDR range (matched against the address the host
 * resolves to). ACTION is "block" or an override of delay_ms,
 * max_in_flight or max_per_host for that host.
 *
 * Which rule applies: among the name rules that match a host, the one
 * written first; among the address rules that match its address, the one
 * written first. A block from either blocks (no request at all reaches the
 * host, robots.txt included; its URLs get status blocked, reason
 * "operator"); overrides come from the name rule when one matched, else
 * from the address rule. A robots.txt Crawl-delay still raises a host's
 * delay: an operator speeds up a host only as far as the host allows.
 *
 * Generate and fetch read the file when they start (rank 0 reads it again
 * and hands it to every rank: inputs_refresh), so an edit takes effect at
 * the next round. Pure once parsed; lookups are hash probes (the
 * name and its parent suffixes) plus a scan of the address rules.
 */
#ifndef CR_SCOPE_HOST_RULES_H
#define CR_SCOPE_HOST_RULES_H

#include <stddef.h>

#include "util/error.h"

#define HOST_RULES_MAX 100000u

struct host_rules;

/* What the rules say of one host. line 0: no rule (a zeroed struct reads
 * so too); in a rule, an override not given is -1. */
struct host_settings {
	int block;
	long delay_ms;
	long max_in_flight;
	long max_per_host;
	unsigned line;      /* of the rule, 0 if none matched */
};

/* Parses text[0..n) (name: the file, for messages); a bad line is
 * CR_ERR_ARG with "NAME:LINE: why" in err. */
CR_WUR enum cr_err host_rules_parse(const char *text, size_t n, const char *name,
				    struct host_rules **out, char *err, size_t errcap);
/* Reads (through the job's inputs, inputs/inputs.h: in a job, the bytes
 * rank 0 read) and parses a file; errors as host_rules_parse, or the
 * file's. */
CR_WUR enum cr_err host_rules_read(const char *path, struct host_rules **out, char *err,
				   size_t errcap);
/* The same, the error logged as one line (what a phase calls). */
CR_WUR enum cr_err host_rules_load(const char *path, struct host_rules **out);
void host_rules_free(struct host_rules **r);

/* The highest max_in_flight any rule sets (0: none sets one). */
long host_rules_max_in_flight(const struct host_rules *r);

/* The settings of the first name rule that matches host (lower case, no
 * port): 1 and *s set, or 0 and *s all unset. */
int host_rules_by_name(const struct host_rules *r, const char *host, struct host_settings *s);
/* The same for the first address rule that matches addr (numeric). */
int host_rules_by_addr(const struct host_rules *r, const char *addr, struct host_settings *s);

#endif

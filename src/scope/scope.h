/*
 * scope.h - what may enter the CrawlDb: the decision for one URL.
 *
 * Two parts, consulted in this order:
 *
 *   1. scope.rules (rules.h), when given: the first rule that matches
 *      decides; '+' accepts, '-' refuses ("scope:rules"); a regex that hits
 *      its match limit refuses ("scope:limit").
 *   2. scope.mode, for a URL no rule matched:
 *        seeds-domains  its host's registrable domain (libpsl) is a seed's;
 *        seeds-hosts    its host is a seed's host;
 *        any            every URL;
 *      else refused ("scope:mode"). A host without a registrable domain (an
 *      address, "localhost") is its own domain.
 *
 * The seeds are every URL injected into the crawl (seeds.h keeps them in
 * the crawl directory), so the decision is the same on every rank and in
 * every later job. A crawl without recorded seeds (made before they were
 * kept) has nothing to compare with: its mode acts as any (scope_open
 * warns).
 *
 * scope_check is pure given the struct: no clock, no files. Lifecycle:
 * scope_init -> scope_add_seed* (or scope_open) -> scope_check* ->
 * scope_release.
 */
#ifndef CR_SCOPE_SCOPE_H
#define CR_SCOPE_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "scope/rules.h"
#include "scope/seeds.h"
#include "util/error.h"
#include "util/hmap.h"

/* scope.embeds: where a page's requisites may come from. */
enum scope_embeds { SCOPE_EMBEDS_ANY_HOST = 0, SCOPE_EMBEDS_IN_SCOPE = 1 };

enum scope_mode { SCOPE_SEEDS_DOMAINS = 0, SCOPE_SEEDS_HOSTS = 1, SCOPE_ANY = 2 };

/* Registers the checks of scope.rules and hosts.rules with the config (a
 * rules file that does not parse is refused where it is set, with its line):
 * called once at start-up, before a config is read. */
void scope_register_checks(void);

/* One seed of the crawl: what its line set for everything reached from it. */
struct scope_seed {
	uint64_t id;                 /* seeds_id of its canonical URL */
	char *url;
	char *host;                  /* lower case, no port */
	const char *domain;          /* its registrable domain (into host, or libpsl's) */
	struct seed_settings set;
};

struct scope {
	int mode;
	struct scope_rules *rules;   /* owned; NULL: none */
	struct hmap hosts;           /* the seeds' hosts */
	struct hmap domains;         /* ... and their registrable domains */
	uint64_t seeds;
	struct hmap by_id;           /* seed id (8 bytes) -> struct scope_seed */
	struct scope_seed **list;    /* every seed with settings once (every seed with
				        keep_plain), in the order first added */
	size_t nlist, cap;
	/* 0 (scope_init): a seed without settings adds its host and domain
	 * only - a crawl of 10 M seeds must not hold 10 M records in each
	 * phase; 1: a record for every seed (readdb --seeds lists them). */
	int keep_plain;
	/* 1: only the seeds with settings are wanted (generate's per-seed
	 * limits): a seed without adds nothing, not even its host and domain
	 * (a public-suffix lookup each, 10 s for 10 M seeds). */
	int settings_only;
};

void scope_init(struct scope *s, int mode);
void scope_release(struct scope *s);
/* Adds a seed (a canonical URL) to the sets, with its line's settings
 * (NULL: none; a seed added again takes its latest settings). */
CR_WUR enum cr_err scope_add_seed(struct scope *s, const char *url, size_t len,
				  const struct seed_settings *set);
/* Adds the seeds recorded in d up to version (seeds_load) to s. A damaged
 * seeds file is an error naming it. */
CR_WUR enum cr_err scope_add_seeds(struct scope *s, const struct crawl_dir *d, int version);

/* The seed of id, or NULL (also for a seed without settings, unless
 * keep_plain). */
const struct scope_seed *scope_seed_of(const struct scope *s, uint64_t id);

/* What the scope says of a URL: in (0, so that a verdict reads as "refused"
 * in a test), or why not - the reason the decision log and the counters
 * name (scope_reason). */
enum scope_verdict {
	SCOPE_IN = 0,
	SCOPE_OUT_RULES,   /* "scope:rules": a '-' rule of scope.rules */
	SCOPE_OUT_LIMIT,   /* "scope:limit": a rule's regex hit its match limit */
	SCOPE_OUT_SEED,    /* "scope:seed": outside its seed's scope= */
	SCOPE_OUT_MODE,    /* "scope:mode": outside scope.mode */
	SCOPE_OUT_DEPTH,   /* "depth": past its seed's max_depth */
};

/* The reason a verdict is logged with; NULL for SCOPE_IN. */
const char *scope_reason(enum scope_verdict v);

struct link_record;
/* The decision for a discovered link: its seed's max_depth first, then the
 * rules, then its seed's scope= or scope.mode. */
enum scope_verdict scope_check_link(struct scope *s, const struct link_record *l);

/* The rules' part alone: SCOPE_IN when no rule refuses the URL (none
 * matched, or a '+' rule did), else SCOPE_OUT_RULES or SCOPE_OUT_LIMIT. */
enum scope_verdict scope_check_rules(struct scope *s, const char *url, size_t len);

/* The verdict for the canonical URL url[0..len): SCOPE_IN, or the rules'
 * or the mode's refusal. */
enum scope_verdict scope_check(struct scope *s, const char *url, size_t len);

/* The registrable domain of host (NUL-terminated, lower case), or host
 * itself when it has none. Borrowed from host or libpsl's static data. */
const char *scope_domain(const char *host);

struct job;
/* The job's scope: its mode and rules file (logged, one-line errors), and
 * the seeds of every inject up to CrawlDb version `version`. */
CR_WUR enum cr_err scope_open(struct scope *s, const struct job *j, int version);

#endif

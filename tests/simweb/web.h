/*
 * web.h - the synthetic web that simweb serves: a pure, deterministic model.
 *
 * Every byte of every page, every robots.txt and every link is a function of
 * (seed, hosts, pages, domain, port, agent, politeness, max_crawl_delay_ms,
 * dupes, hostile)
 * and, for the few --politeness answers that change after the first request,
 * of how many times the server was asked before (web_counter); the
 * pseudo-randomness is XXH3 over the page's identity, never a stateful
 * generator, so any page can be rendered alone, in any order, by the server
 * and by the truth walk alike.
 * The truth walk and the page renderer share one link list (web_links), which
 * is what makes the ground truth exact: the HTML is written from the list and
 * the truth is walked over the same list.
 *
 * Nothing here touches sockets, files other than the FILE * passed in, or the
 * clock.
 */
#ifndef SIMWEB_WEB_H
#define SIMWEB_WEB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WEB_HOSTS_MAX 10000u       /* host names have 4 digits */
#define WEB_PAGES_MAX 1000000u     /* pages per host */
#define WEB_SIZE_MAX 2000000u      /* hosts * pages: bounds the truth walk */
#define WEB_DOMAIN_MAX 128u
#define WEB_AGENT_MAX 64u
#define WEB_SITES_MAX 100u        /* --sites */
#define WEB_HOSTNAME_MAX (WEB_DOMAIN_MAX + 32u)
#define WEB_BODY_MAX 8192u         /* largest body rendered in place (larger: big) */
#define WEB_PAGE_BYTES_MAX (1u << 20)   /* --page-bytes at most */
#define WEB_LOCATION_MAX 256u
#define WEB_LINKS_MAX 24u          /* links on one page */
#define WEB_MISSING_N 4u           /* /missing/X.html, X < this */
#define WEB_PRIVATE_N 8u           /* /private/X.html links use X < this */

#define WEB_LATENCY_MAX 60000u      /* --latency-ms */
#define WEB_CRAWL_DELAY_CAP_MAX 86400000u  /* --max-crawl-delay-ms */
#define WEB_DUPES_MAX 10000u        /* --dupes: near-duplicate article families */
#define WEB_DUPES_PER_HOST 4u       /* ... at most this many per host that may carry them */
#define WEB_DUP_VARIANTS 7u         /* pages of a family: /dup/F/0.html .. /dup/F/6.html */

struct web {
	uint64_t seed;
	unsigned hosts;
	unsigned pages;
	unsigned port;
	char domain[WEB_DOMAIN_MAX + 1];   /* lower case */
	char agent[WEB_AGENT_MAX + 1];     /* robots.txt product token */
	int politeness;                    /* --politeness: the host variants of README.md */
	unsigned latency_ms;               /* --latency-ms: added to every response */
	unsigned max_crawl_delay_ms;       /* --max-crawl-delay-ms: the crawler's cap */
	unsigned dupes;                    /* --dupes: near-duplicate families; 0: none */
	int hostile;                       /* --hostile: the quarter of hostile.h */
	unsigned max_redirects;            /* --max-redirects: the crawler's cap (truth) */
	unsigned retry_after_s;            /* --retry-after: of every 429 and 503 (default 1) */
	unsigned sites;                    /* --sites K: host i is hNNNN.s(i%K).D; 0: hNNNN.D */
	int sitemaps;                      /* --sitemaps: sitemaps.h */
	unsigned page_bytes;               /* --page-bytes: average size of a page's HTML,
					      with markup as real pages have it; 0:
					      1.2-3.8 KB of plain paragraphs */
	int multilingual;                  /* --multilingual: host i writes in language
					      i mod WEB_NLANGS (langs.h) */
	int blocks;                        /* --blocks: each page also has a list, a
					      table, br, pre, entities, a blockquote,
					      nested divs and a script, style, noscript
					      and template in its body (web_lines) */
	int graph;                         /* --graph: the power-law web of graph.h
					      in place of every page above */
	int changing;                      /* --changing: the changing web of changing.h
					      in place of every page above; the server
					      answers it by changing_respond */
	long long epoch;                   /* --epoch: unix s when its pages start to
					      change */
	struct web_sb *lines;              /* set by web_lines while it renders a page:
					      the page's expected text lines */
	const unsigned char *in_scope;     /* --scope-hosts (truth): 1 per host the crawl may
					      enter; NULL: every host */
	unsigned dup_nhosts;               /* set by web_check: the hosts that may carry */
	uint16_t dup_hosts[WEB_HOSTS_MAX]; /* family pages (/dup/ allowed), ascending */
};

/* What a URL of the web is. WEB_OTHER marks a link the crawler must ignore. */
enum web_kind {
	WEB_HOME,      /* / */
	WEB_PAGE,      /* /p/K.html */
	WEB_VARIANT,   /* /p/K.html?v=1 */
	WEB_PRIVATE,   /* /private/K.html */
	WEB_OPEN,      /* /private/open/K.html */
	WEB_GO,        /* /go/K -> 301 to /p/K.html */
	WEB_MISSING,   /* /missing/K.html -> 404 */
	WEB_ROBOTS,    /* /robots.txt */
	WEB_OTHER,     /* mailto:, javascript:, ftp:// */
	WEB_NONE,      /* not a URL of the web: 404 */
	WEB_DUP,       /* /dup/F/V.html (--dupes): k = F * WEB_DUP_VARIANTS + V */
};

struct web_target {
	unsigned host;
	enum web_kind kind;
	unsigned k;
};

struct web_response {
	int status;                        /* 200, 301, 404; with --politeness also 429,
					      500, 503, and 0: never answer */
	const char *type;                  /* Content-Type */
	char location[WEB_LOCATION_MAX];   /* for 301, else "" */
	unsigned retry_after;              /* Retry-After seconds; 0: no header */
	unsigned latency_ms;               /* answer this long after the request */
	long long last_modified;           /* unix s of a Last-Modified header; < 0: none */
	size_t len;
	char *big;                         /* malloc'd body of len bytes when it does not
					      fit body[] (the caller frees it), else NULL */
	char body[WEB_BODY_MAX];
};

/*
 * Checks and completes *w after the options are set: lower-cases the domain,
 * checks the caps and the characters of domain and agent, and lists the hosts
 * that may carry near-duplicate families. Returns 0, or -1 with a one-line
 * reason in err.
 */
int web_check(struct web *w, char *err, size_t errlen);

/*
 * Finds the host index of a lower-case host name without port ("h0007.D").
 * Returns 0 and writes *idx, or -1 for a host the web does not have.
 */
int web_find_host(const struct web *w, const char *host, unsigned *idx);

/* The name of host: "hNNNN.D", or with --sites K "hNNNN.sJ.D" (J = host
 * mod K). Written to out (WEB_HOSTNAME_MAX bytes); returns out. WEB_HN
 * gives a name for one expression (a temporary buffer). */
const char *web_host_name(const struct web *w, unsigned host, char *out);
#define WEB_HN(w, host) web_host_name((w), (host), (char[WEB_HOSTNAME_MAX]){ 0 })

/* Is path (with query) disallowed for w->agent by host's robots.txt? */
int web_disallowed(const struct web *w, unsigned host, const char *path);

/*
 * Answers that change after the first request (--politeness only): the index
 * of the counter the server keeps for (host, path), in [0, web_counters(w)),
 * or -1 when the answer never depends on earlier requests.
 */
long web_counter(const struct web *w, unsigned host, const char *path);
size_t web_counters(const struct web *w);

/*
 * The response to GET path on host (lower case, no port), when attempt
 * requests of it were answered before (see web_counter; pass 0 for a path
 * without a counter). Fills *r completely; r->body is not NUL-terminated;
 * r->big, when set, is the caller's to free.
 */
void web_respond(const struct web *w, const char *host, const char *path,
		 unsigned attempt, struct web_response *r);

/*
 * Writes one "hNNNN.D<TAB>crawl_delay_ms<TAB>variant" line per host: the
 * Crawl-delay robots.txt gives our agent (0: none) and the host's variant.
 */
void web_hostinfo(const struct web *w, FILE *out);

/*
 * Writes the crawl's ground truth to out: one "URL\tSTATUS" line per URL a
 * complete polite crawler fetches from the seeds, and with --hostile the
 * quarter's "URL\thostile\tEXPECTED" lines, all sorted bytewise. Returns 0,
 * or -1 when memory ran out or out failed.
 */
int web_truth(const struct web *w, FILE *out);

/*
 * Writes one "URL_A<TAB>URL_B<TAB>JACCARD" line per pair of pages of each
 * near-duplicate family (--dupes), families in order, pairs by variant: the
 * exact Jaccard index, 4 decimals, of the two pages' sets of 5-word shingles
 * of their visible text as served. Returns 0, or -1 when memory ran out or
 * out failed.
 */
int web_pairs(const struct web *w, FILE *out);

/*
 * Writes one "URL<TAB>LINE" line per text line of every home page and page
 * /p/K.html of every host, in order: the lines a text extractor should make
 * of it - the title, then one per block (h1, p, li, table row, br, pre
 * line, blockquote, div), inline tags dropped without separating words,
 * entities decoded, script, style, noscript and template left out, blanks
 * collapsed. Not with --hostile (the quarter's links on the first home
 * page are not written so). Returns 0, or -1 when memory ran out or out
 * failed.
 */
int web_lines(struct web *w, FILE *out);

/* Writes one "HOST<TAB>CODE" line per host: the ISO 639-3 code of the
 * language its pages are written in (eng without --multilingual). */
void web_host_languages(const struct web *w, FILE *out);

/* Word n mod the vocabulary's size: the words every page is written in. */
const char *web_word(uint64_t n);

/* Writes the seed URLs, one a line. */
void web_seeds(const struct web *w, FILE *out);

/* A bounded string builder: output past cap is dropped, never overflows
 * (web.c and hostile.c write their pages with it). */
struct web_sb {
	char *p;
	size_t len;
	size_t cap;
};

__attribute__((format(printf, 2, 3)))
void web_sb_printf(struct web_sb *sb, const char *fmt, ...);

#endif

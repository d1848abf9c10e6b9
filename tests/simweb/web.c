/*
 * web.c - the synthetic web: hosts, pages, links, robots.txt and the truth.
 *
 * A page is named by (host, kind, k). Its words come from one XXH3 stream and
 * its links from another, so the truth walk never renders text. Each link is
 * a struct web_link (target + how its href is spelled); the renderer turns it
 * into an href, the truth walk follows its target.
 * Near-duplicate families (--dupes) are pages of their own kind, WEB_DUP,
 * with their own streams; a web without them draws exactly the same numbers.
 * The hostile quarter (--hostile) lives in hostile.c: here only h0000's home
 * page links it and the truth prints its lines around the others.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#include "graph.h"
#include "hostile.h"
#include "web.h"
#include "langs.h"
#include "sitemaps.h"

static const char *const web_words[] = {
	"amber", "anchor", "apple", "arch", "arrow", "ash", "aspen", "atlas",
	"autumn", "axis", "badge", "bamboo", "banner", "barley", "basin", "beacon",
	"bear", "bell", "birch", "bison", "blade", "bloom", "bluff", "boat",
	"bolt", "border", "bottle", "bramble", "brass", "breeze", "brick", "bridge",
	"brook", "bucket", "cabin", "cactus", "candle", "canyon", "canvas", "cargo",
	"carpet", "castle", "cedar", "cellar", "chalk", "channel", "cherry", "circle",
	"cliff", "clock", "cloud", "clover", "coast", "cobalt", "comet", "copper",
	"coral", "cotton", "crane", "crater", "creek", "crystal", "current", "dagger",
	"daisy", "dawn", "delta", "desert", "dial", "dome", "dove", "dragon",
	"drift", "drum", "dune", "eagle", "echo", "ember", "engine", "falcon",
	"feather", "fern", "ferry", "field", "flame", "flint", "forest", "fossil",
	"fountain", "fox", "frost", "garden", "garnet", "gate", "glacier", "glass",
	"globe", "granite", "grove", "gull", "harbor", "harvest", "hawk", "hazel",
	"heron", "hill", "hollow", "honey", "horizon", "iris", "iron", "island",
	"ivory", "jade", "jasmine", "jetty", "juniper", "kettle", "kestrel", "key",
	"lagoon", "lantern", "larch", "lark", "lattice", "lava", "ledge", "lemon",
	"lichen", "lily", "linen", "lion", "lodge", "loom", "lotus", "maple",
	"marble", "marsh", "meadow", "mesa", "meteor", "mill", "mint", "mirror",
	"mist", "moon", "moss", "mountain", "nectar", "needle", "nest", "nickel",
	"north", "oak", "oasis", "ocean", "olive", "onyx", "orbit", "orchard",
	"otter", "owl", "paddle", "palm", "parcel", "pearl", "pebble", "pepper",
	"pier", "pine", "plain", "planet", "plume", "pond", "poplar", "prairie",
	"prism", "quarry", "quartz", "quill", "rabbit", "rain", "raven", "reed",
	"reef", "ridge", "river", "robin", "rock", "rope", "rose", "rust",
	"saddle", "sage", "sail", "salt", "sand", "sapphire", "shadow", "shell",
	"shore", "signal", "silver", "slate", "smoke", "snow", "sparrow", "spire",
	"spring", "spruce", "star", "stone", "storm", "straw", "stream", "summit",
	"sun", "swan", "thistle", "thunder", "tide", "timber", "topaz", "torch",
	"tower", "trail", "tulip", "tundra", "valley", "velvet", "violet", "volcano",
	"wagon", "walnut", "wave", "wheat", "whistle", "willow", "wind", "window",
	"winter", "wolf", "wren", "yarrow", "zenith", "zephyr", "the", "and",
	"of", "to", "in", "with", "over", "under", "near", "beyond",
};

#define WEB_NWORDS (sizeof(web_words) / sizeof(web_words[0]))

const char *web_word(uint64_t n)
{
	return web_words[n % WEB_NWORDS];
}

/* Tags keep the streams of unrelated decisions apart. */
enum web_tag { TAG_TEXT = 1, TAG_LINK, TAG_GO, TAG_ROBOTS, TAG_BASE, TAG_DUP };

/* How an href is spelled; every form resolves to the same target. */
enum web_form {
	FORM_REL,      /* K.html, relative to the base directory */
	FORM_DOTREL,   /* ./K.html */
	FORM_UPREL,    /* ../p/K.html: up to the root, then down */
	FORM_ROOT,     /* /p/K.html */
	FORM_ABS,      /* http://hNNNN.D:P/p/K.html */
	FORM_ABSUP,    /* HTTP://HNNNN.D:P/p/K.html */
	FORM_PROTO,    /* //hNNNN.D:P/p/K.html */
	FORM_BARE,     /* http://hNNNN.D:P (home pages only, no slash) */
};

struct web_link {
	struct web_target to;
	unsigned char form;
	unsigned char frag;    /* 0: none, else #secN */
	unsigned char style;   /* spelling of the <a> tag */
};

struct web_rng {
	const struct web *w;
	uint32_t tag, host, kind, k;
	uint64_t i;
};

static void web_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Little-endian packing makes the web the same on every machine. */
static uint64_t web_rng_next(struct web_rng *r)
{
	unsigned char b[32];

	web_put64(b, r->w->seed);
	web_put64(b + 8, (uint64_t)r->tag << 32 | r->host);
	web_put64(b + 16, (uint64_t)r->kind << 32 | r->k);
	web_put64(b + 24, r->i++);
	return XXH3_64bits(b, sizeof(b));
}

static unsigned web_rng_below(struct web_rng *r, unsigned n)
{
	return n ? (unsigned)(web_rng_next(r) % n) : 0;
}

static void web_rng_init(struct web_rng *r, const struct web *w, enum web_tag tag,
			 unsigned host, enum web_kind kind, unsigned k)
{
	r->w = w;
	r->tag = tag;
	r->host = host;
	r->kind = kind;
	r->k = k;
	r->i = 0;
}

void web_sb_printf(struct web_sb *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->len + 1 >= sb->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->p + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->len += (size_t)n;
	if (sb->len >= sb->cap)
		sb->len = sb->cap - 1;
}

static int web_dup_setup(struct web *w, char *err, size_t errlen);

int web_check(struct web *w, char *err, size_t errlen)
{
	size_t i;

	if (w->hosts < 1 || w->hosts > WEB_HOSTS_MAX) {
		snprintf(err, errlen, "--hosts must be 1..%u", WEB_HOSTS_MAX);
		return -1;
	}
	if (w->pages < 1 || w->pages > WEB_PAGES_MAX) {
		snprintf(err, errlen, "--pages must be 1..%u", WEB_PAGES_MAX);
		return -1;
	}
	if (w->sitemaps && (w->politeness || w->hostile)) {
		snprintf(err, errlen, "--sitemaps goes without --politeness and --hostile");
		return -1;
	}
	if ((uint64_t)w->hosts * w->pages > WEB_SIZE_MAX) {
		snprintf(err, errlen, "--hosts * --pages must be at most %u", WEB_SIZE_MAX);
		return -1;
	}
	if (w->port > 65535) {
		snprintf(err, errlen, "--port must be 0..65535");
		return -1;
	}
	for (i = 0; w->domain[i]; i++) {
		char c = w->domain[i];

		if (c >= 'A' && c <= 'Z')
			w->domain[i] = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			   c == '-' || c == '.'))
			break;
	}
	if (i == 0 || w->domain[i] || w->domain[0] == '.' || w->domain[i - 1] == '.') {
		snprintf(err, errlen, "--domain must be letters, digits, '-' and '.'");
		return -1;
	}
	/* RFC 9309 product token: it is written into robots.txt verbatim. */
	for (i = 0; w->agent[i]; i++) {
		char c = w->agent[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_'))
			break;
	}
	if (i == 0 || w->agent[i]) {
		snprintf(err, errlen, "--agent must be letters, '-' and '_' only");
		return -1;
	}
	/* The mod-2 hosts' decoy group is for otherbot; our rules assume it is not us. */
	if (strcasecmp(w->agent, "otherbot") == 0) {
		snprintf(err, errlen, "--agent must not be otherbot (the robots.txt decoy)");
		return -1;
	}
	return web_dup_setup(w, err, errlen);
}

int web_find_host(const struct web *w, const char *host, unsigned *idx)
{
	unsigned v = 0;

	if (host[0] != 'h')
		return -1;
	for (int i = 1; i <= 4; i++) {
		if (host[i] < '0' || host[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(host[i] - '0');
	}
	if (host[5] != '.' || v >= w->hosts || strcmp(host, WEB_HN(w, v)) != 0)
		return -1;
	*idx = v;
	return 0;
}

const char *web_host_name(const struct web *w, unsigned host, char *out)
{
	if (w->sites)
		snprintf(out, WEB_HOSTNAME_MAX, "h%04u.s%u.%s", host, host % w->sites, w->domain);
	else
		snprintf(out, WEB_HOSTNAME_MAX, "h%04u.%s", host, w->domain);
	return out;
}

/*
 * Host variants. Without --politeness every host is WV_BASE and its
 * robots.txt depends on the host index mod 4; with it, host index mod
 * WEB_PERIOD picks a row of web_variants (README.md has the same table), and
 * the hosts of no row stay WV_BASE.
 */
enum web_variant {
	WV_BASE,       /* robots.txt by host index mod 4 */
	WV_DELAY,      /* a Crawl-delay in our group */
	WV_MERGED,     /* two groups name us (merged), a "*" group to ignore */
	WV_WILDCARD,   /* "*" and "$", Allow beating a shorter Disallow, a tie */
	WV_R500,       /* robots.txt always 500 */
	WV_R503,       /* robots.txt always 503, Retry-After: 1 */
	WV_R429,       /* robots.txt always 429, Retry-After: 1 */
	WV_RFAIL1,     /* robots.txt 503 (Retry-After: 1) the first time, then 200 */
	WV_RTIMEOUT,   /* robots.txt never answered */
	WV_REDIR1,     /* /robots.txt -> /robots-real.txt */
	WV_REDIR2,     /* /robots.txt -> /robots-moved.txt -> /robots-real.txt */
	WV_REDIR6,     /* six redirects: unavailable, so everything is allowed */
	WV_HUGE,       /* ~700 KB; a Disallow: /p/ after the 500 KiB mark */
	WV_SLOW,       /* base robots.txt; every answer delayed */
	WV_PAGE429,    /* base robots.txt; some pages 429 the first time */
	WV_PAGE503,    /* base robots.txt; some pages 503 the first time */
};

#define WEB_PERIOD 50u
#define WEB_HUGE_CUT 512000u       /* 500 KiB: where robots.txt parsing stops */
#define WEB_HUGE_LATE 640000u      /* the ignored Disallow: /p/ starts after this */
#define WEB_HUGE_LEN 700000u       /* the body is at least this long */
#define WEB_HUGE_CAP (WEB_HUGE_LEN + 4096u)
#define WEB_REDIR6_HOPS 6u

struct web_def {
	unsigned slot;         /* host index mod WEB_PERIOD */
	enum web_variant v;
	const char *name;
	unsigned delay_ms;     /* the Crawl-delay robots.txt gives our agent; 0: none */
	unsigned latency_ms;   /* every answer of the host waits this long */
};

static const struct web_def web_base_defs[4] = {
	{ 0, WV_BASE, "base-404", 0, 0 },
	{ 1, WV_BASE, "base-private", 0, 0 },
	{ 2, WV_BASE, "base-open", 0, 0 },
	{ 3, WV_BASE, "base-agent", 0, 0 },
};

static const struct web_def web_variants[] = {
	{ 3, WV_DELAY, "crawl-delay-50", 50, 0 },
	{ 4, WV_R500, "robots-500", 0, 0 },
	{ 5, WV_SLOW, "slow-20", 0, 20 },
	{ 6, WV_DELAY, "crawl-delay-100", 100, 0 },
	{ 7, WV_REDIR1, "robots-redirect-1", 0, 0 },
	{ 8, WV_MERGED, "merged-groups", 60, 0 },
	{ 9, WV_R503, "robots-503", 0, 0 },
	{ 10, WV_WILDCARD, "wildcards", 0, 0 },
	{ 11, WV_DELAY, "crawl-delay-200", 200, 0 },
	{ 12, WV_RTIMEOUT, "robots-timeout", 0, 0 },
	{ 13, WV_PAGE429, "page-429-once", 0, 0 },
	{ 14, WV_RFAIL1, "robots-fail-once", 0, 0 },
	{ 15, WV_REDIR2, "robots-redirect-2", 0, 0 },
	{ 16, WV_HUGE, "robots-huge", 0, 0 },
	{ 17, WV_R429, "robots-429", 0, 0 },
	{ 18, WV_DELAY, "crawl-delay-over-cap", 120000, 0 },
	{ 19, WV_SLOW, "slow-50", 0, 50 },
	{ 20, WV_REDIR6, "robots-redirect-6", 0, 0 },
	{ 21, WV_PAGE503, "page-503-once", 0, 0 },
	{ 22, WV_DELAY, "crawl-delay-50-slow-35", 50, 35 },
};

static const struct web_def *web_def(const struct web *w, unsigned host)
{
	if (w->politeness)
		for (size_t i = 0; i < sizeof(web_variants) / sizeof(web_variants[0]); i++)
			if (web_variants[i].slot == host % WEB_PERIOD)
				return &web_variants[i];
	return &web_base_defs[host % 4];
}

/*
 * A host none of whose pages a polite crawler fetches: robots.txt is
 * unreachable (5xx, 429, no answer: RFC 9309 2.3.1.4, complete disallow), or
 * its Crawl-delay is more than the crawler's cap (the crawler defers it).
 */
static int web_blocked(const struct web *w, unsigned host)
{
	const struct web_def *d = web_def(w, host);

	return d->v == WV_R500 || d->v == WV_R503 || d->v == WV_R429 ||
	       d->v == WV_RTIMEOUT || d->delay_ms > w->max_crawl_delay_ms;
}

/*
 * Which step of the host's robots.txt fetch path is: 0 for /robots.txt, k
 * for the k-th redirect target, -1 for a path that is not part of it.
 */
static int web_robots_hop(const struct web *w, unsigned host, const char *path)
{
	if (strcmp(path, "/robots.txt") == 0)
		return 0;
	if (!w->politeness)
		return -1;
	switch (web_def(w, host)->v) {
	case WV_REDIR1:
		return strcmp(path, "/robots-real.txt") == 0 ? 1 : -1;
	case WV_REDIR2:
		return strcmp(path, "/robots-moved.txt") == 0 ? 1 :
		       strcmp(path, "/robots-real.txt") == 0 ? 2 : -1;
	case WV_REDIR6:
		if (strncmp(path, "/robots-hop", 11) == 0 && path[11] >= '1' &&
		    (unsigned)(path[11] - '0') <= WEB_REDIR6_HOPS && strcmp(path + 12, ".txt") == 0)
			return path[11] - '0';
		return -1;
	default:
		return -1;
	}
}

/*
 * robots.txt rules that apply to w->agent: the ones of the group(s) our
 * agent obeys, as the texts in web_robots_txt() say them; a group for another
 * agent or for * that our agent does not obey is simply absent here.
 */
struct web_rule {
	int allow;
	const char *pattern;   /* "*": any run of bytes; "$" at the end: end of path */
};

#define WEB_N(a) (sizeof(a) / sizeof((a)[0]))

static const struct web_rule web_rules1[] = { { 0, "/private/" } };
static const struct web_rule web_rules2[] = { { 0, "/private/" }, { 1, "/private/open/" } };
static const struct web_rule web_rules3[] = { { 0, "/p/1" } };
static const struct web_rule web_rules_merged[] = {
	{ 0, "/private/" }, { 1, "/private/open/" }, { 0, "/go/" }, { 0, "/p/2" },
};
/* Also the order of the lines in the file. */
static const struct web_rule web_rules_wild[] = {
	{ 0, "/*.html$" },          /* every path ending in .html ... */
	{ 1, "/p/*1.html$" },       /* ... but pages ending in 1 (11 > 9 octets) */
	{ 1, "/p/*3.html" },        /* ... and in 3, with any query (10 > 9, 10 > 3) */
	{ 0, "/*?" },               /* every query */
	{ 0, "/private/*/" },       /* /private/open/ ... */
	{ 1, "/private/open/0" },   /* ... but /private/open/0.html */
	{ 0, "/private/0" },        /* a tie of 10 octets with the next: Allow wins */
	{ 1, "/*rivate/0" },
};
static const struct web_rule web_rules_huge[] = {
	{ 0, "/private/" }, { 1, "/private/open/" }, { 0, "/zz/" },
};
static const struct web_rule web_rules_redir[] = { { 0, "/p/2" }, { 0, "/private/" } };

static const struct web_rule *web_rules(const struct web *w, unsigned host, size_t *n)
{
	const struct web_def *d = web_def(w, host);

	switch (d->v) {
	case WV_DELAY: *n = WEB_N(web_rules2); return web_rules2;
	case WV_MERGED: *n = WEB_N(web_rules_merged); return web_rules_merged;
	case WV_WILDCARD: *n = WEB_N(web_rules_wild); return web_rules_wild;
	case WV_RFAIL1: *n = WEB_N(web_rules1); return web_rules1;
	case WV_REDIR1:
	case WV_REDIR2: *n = WEB_N(web_rules_redir); return web_rules_redir;
	case WV_HUGE: *n = WEB_N(web_rules_huge); return web_rules_huge;
	case WV_REDIR6: *n = 0; return NULL;
	default: break;
	}
	switch (host % 4) {
	case 1: *n = WEB_N(web_rules1); return web_rules1;
	case 2: *n = WEB_N(web_rules2); return web_rules2;
	case 3: *n = WEB_N(web_rules3); return web_rules3;
	default: *n = 0; return NULL;
	}
}

/* RFC 9309 2.2.3: does pat match path from its first byte? */
static int web_match(const char *pat, const char *s)
{
	while (*pat) {
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			if (!*pat)
				return 1;
			for (;; s++) {
				if (web_match(pat, s))
					return 1;
				if (!*s)
					return 0;
			}
		}
		if (*pat == '$' && pat[1] == '\0')
			return *s == '\0';
		if (*s != *pat)
			return 0;
		pat++;
		s++;
	}
	return 1;
}

int web_disallowed(const struct web *w, unsigned host, const char *path)
{
	size_t n = 0, best = 0;
	const struct web_rule *rules;
	int allow = 1;

	if (web_robots_hop(w, host, path) >= 0)
		return 0;
	if (w->politeness && web_blocked(w, host))
		return 1;
	if (sitemaps_disallowed(w, host, path))
		return 1;
	rules = web_rules(w, host, &n);
	/* RFC 9309 2.2.2: the longest matching rule wins, allow on a tie. */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(rules[i].pattern);

		if (!web_match(rules[i].pattern, path))
			continue;
		if (len > best || (len == best && rules[i].allow)) {
			best = len;
			allow = rules[i].allow;
		}
	}
	return !allow;
}

/* Crawl-delay seconds as robots.txt writes them: 0.05, 0.1, 120. */
static void web_delay_str(unsigned ms, char *out, size_t cap)
{
	size_t len;

	if (ms % 1000 == 0) {
		snprintf(out, cap, "%u", ms / 1000);
		return;
	}
	snprintf(out, cap, "%u.%03u", ms / 1000, ms % 1000);
	len = strlen(out);
	while (len > 0 && out[len - 1] == '0')
		out[--len] = '\0';
}

/* The agent token in a case that varies per host (it matches case-insensitively). */
static void web_agent_case(const struct web *w, unsigned host, char *agent)
{
	struct web_rng r;
	unsigned mode;
	size_t i;

	web_rng_init(&r, w, TAG_ROBOTS, host, WEB_ROBOTS, 0);
	mode = web_rng_below(&r, 3);
	for (i = 0; w->agent[i]; i++) {
		char c = w->agent[i];
		int up = mode == 1 || (mode == 2 && (i < 3 || (web_rng_next(&r) & 1)));

		if (c >= 'a' && c <= 'z' && up)
			c = (char)(c - 'a' + 'A');
		else if (c >= 'A' && c <= 'Z' && !up)
			c = (char)(c - 'A' + 'a');
		agent[i] = c;
	}
	agent[i] = '\0';
}

/* The base robots.txt, by host index mod 4 (not called for mod 0: 404). */
static void web_robots_txt(const struct web *w, unsigned host, struct web_sb *sb)
{
	char agent[WEB_AGENT_MAX + 1];

	web_sb_printf(sb, "# robots.txt for %s\n", WEB_HN(w, host));
	switch (host % 4) {
	case 1:
		web_sb_printf(sb, "User-agent: *\nDisallow: /private/\n");
		break;
	case 2:
		web_sb_printf(sb, "User-agent: otherbot\nDisallow: /\n\n"
			      "User-agent: *\nDisallow: /private/\nAllow: /private/open/\n");
		break;
	case 3:
		web_agent_case(w, host, agent);
		web_sb_printf(sb, "User-agent: %s\nDisallow: /p/1\n\n"
			      "User-agent: *\nDisallow: /\n", agent);
		break;
	}
}

/* One line of the huge robots.txt's filler: comments and rules that change nothing. */
static void web_huge_filler(struct web_sb *sb, unsigned n)
{
	switch (n % 4) {
	case 0:
		web_sb_printf(sb, "# filler %06u: %s %s %s\n", n, web_words[n % WEB_NWORDS],
			      web_words[(n / 7) % WEB_NWORDS], web_words[(n / 49) % WEB_NWORDS]);
		break;
	case 1:
		web_sb_printf(sb, "Disallow: /zz/%u/*.bak$\n", n);
		break;
	case 2:
		web_sb_printf(sb, "Allow: /private/open/%u.html\n", n);
		break;
	default:
		web_sb_printf(sb, "Disallow: /zz/archive-%u.html\n", n);
		break;
	}
}

/*
 * The huge robots.txt: our group's real rules, filler up to a comment line
 * that spans the 500 KiB mark (cutting it anywhere leaves a comment), more
 * filler, then after WEB_HUGE_LATE a Disallow: /p/ a crawler must not read.
 */
static void web_huge_robots(const struct web *w, unsigned host, struct web_sb *sb)
{
	unsigned n = 0;

	web_sb_printf(sb, "# robots.txt for %s: RFC 9309 2.5 lets a crawler stop "
		      "reading at 500 KiB, and it must read that much.\n"
		      "User-agent: %s\nDisallow: /private/\nAllow: /private/open/\n"
		      "Disallow: /zz/\n", WEB_HN(w, host), w->agent);
	while (sb->len < WEB_HUGE_CUT - 200)
		web_huge_filler(sb, n++);
	web_sb_printf(sb, "# The 500 KiB mark falls inside this comment line ");
	while (sb->len < WEB_HUGE_CUT + 100)
		web_sb_printf(sb, "-");
	web_sb_printf(sb, "\n");
	while (sb->len < WEB_HUGE_LATE)
		web_huge_filler(sb, n++);
	web_sb_printf(sb, "# Past the 500 KiB mark: a crawler must ignore the next line.\n"
		      "Disallow: /p/\n");
	while (sb->len < WEB_HUGE_LEN)
		web_huge_filler(sb, n++);
}

/* The robots.txt text of a --politeness variant (not base, not failing). */
static void web_robots_variant(const struct web *w, unsigned host, const struct web_def *d,
			       struct web_sb *sb)
{
	char agent[WEB_AGENT_MAX + 1], delay[32];

	web_sb_printf(sb, "# robots.txt for %s (%s)\n", WEB_HN(w, host), d->name);
	switch (d->v) {
	case WV_DELAY:
		web_delay_str(d->delay_ms, delay, sizeof(delay));
		web_sb_printf(sb, "User-agent: *\nDisallow: /private/\n\n"
			      "User-agent: %s\nCrawl-delay: %s\nDisallow: /private/\n"
			      "Allow: /private/open/\n", w->agent, delay);
		break;
	case WV_MERGED:
		/* Both groups naming us apply, merged (their larger Crawl-delay
		 * wins); the * group in between must be ignored. */
		web_agent_case(w, host, agent);
		web_sb_printf(sb, "User-agent: %s\nCrawl-delay: 0.03\nDisallow: /private/\n\n"
			      "User-agent: *\nDisallow: /\n\n"
			      "User-agent: otherbot\nUser-agent: %s\nCrawl-delay: 0.06\n"
			      "Allow: /private/open/\nDisallow: /go/\nDisallow: /p/2\n",
			      w->agent, agent);
		break;
	case WV_WILDCARD:
		web_sb_printf(sb, "User-agent: otherbot\nDisallow: /\n\nUser-agent: %s\n",
			      w->agent);
		for (size_t i = 0; i < WEB_N(web_rules_wild); i++)
			web_sb_printf(sb, "%s: %s\n",
				      web_rules_wild[i].allow ? "Allow" : "Disallow",
				      web_rules_wild[i].pattern);
		web_sb_printf(sb, "\nUser-agent: *\nAllow: /\n");
		break;
	case WV_RFAIL1:
		web_sb_printf(sb, "User-agent: %s\nDisallow: /private/\n", w->agent);
		break;
	case WV_REDIR1:
	case WV_REDIR2:
		web_sb_printf(sb, "User-agent: *\nDisallow: /p/2\nDisallow: /private/\n");
		break;
	case WV_REDIR6:
		/* Six redirects away: a crawler following at most five never reads it. */
		web_sb_printf(sb, "User-agent: *\nDisallow: /p/\n");
		break;
	default:
		break;
	}
}

/* The first page after k (k == -1: from 0) that robots lets us fetch. */
static int web_next_allowed(const struct web *w, unsigned host, long k, unsigned *out)
{
	char path[32];

	for (unsigned long i = (unsigned long)(k + 1); i < w->pages; i++) {
		snprintf(path, sizeof(path), "/p/%lu.html", i);
		if (!web_disallowed(w, host, path)) {
			*out = (unsigned)i;
			return 0;
		}
	}
	return -1;
}

static void web_path(const struct web_target *t, char *out, size_t cap)
{
	switch (t->kind) {
	case WEB_HOME: snprintf(out, cap, "/"); break;
	case WEB_PAGE: snprintf(out, cap, "/p/%u.html", t->k); break;
	case WEB_VARIANT: snprintf(out, cap, "/p/%u.html?v=1", t->k); break;
	case WEB_PRIVATE: snprintf(out, cap, "/private/%u.html", t->k); break;
	case WEB_OPEN: snprintf(out, cap, "/private/open/%u.html", t->k); break;
	case WEB_GO: snprintf(out, cap, "/go/%u", t->k); break;
	case WEB_MISSING: snprintf(out, cap, "/missing/%u.html", t->k); break;
	case WEB_DUP:
		snprintf(out, cap, "/dup/%u/%u.html", t->k / WEB_DUP_VARIANTS,
			 t->k % WEB_DUP_VARIANTS);
		break;
	default: snprintf(out, cap, "/robots.txt"); break;
	}
}

/* Parses a page number: decimal, no sign, no leading zero, below limit. */
static int web_number(const char *s, const char *end, unsigned limit, unsigned *out)
{
	unsigned long v = 0;

	if (s == end || end - s > 7 || (*s == '0' && end - s > 1))
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (v >= limit)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* Maps a request path to the page it names; WEB_NONE when there is none. */
static enum web_kind web_route(const struct web *w, const char *path, unsigned *k)
{
	static const struct {
		const char *pre, *suf;
		enum web_kind kind;
	} routes[] = {
		{ "/p/", ".html", WEB_PAGE },
		{ "/p/", ".html?v=1", WEB_VARIANT },
		{ "/private/open/", ".html", WEB_OPEN },
		{ "/private/", ".html", WEB_PRIVATE },
		{ "/go/", "", WEB_GO },
	};
	size_t len = strlen(path);

	if (strcmp(path, "/") == 0)
		return WEB_HOME;
	if (strcmp(path, "/robots.txt") == 0)
		return WEB_ROBOTS;
	if (w->dupes && strncmp(path, "/dup/", 5) == 0) {
		const char *slash = strchr(path + 5, '/');
		unsigned f, v;

		if (slash && web_number(path + 5, slash, w->dupes, &f) == 0 &&
		    web_number(slash + 1, slash + 2, WEB_DUP_VARIANTS, &v) == 0 &&
		    strcmp(slash + 2, ".html") == 0) {
			*k = f * WEB_DUP_VARIANTS + v;
			return WEB_DUP;
		}
		return WEB_NONE;
	}
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		size_t pl = strlen(routes[i].pre), sl = strlen(routes[i].suf);

		if (len <= pl + sl || strncmp(path, routes[i].pre, pl) != 0 ||
		    strcmp(path + len - sl, routes[i].suf) != 0)
			continue;
		if (web_number(path + pl, path + len - sl, w->pages, k) == 0)
			return routes[i].kind;
	}
	return WEB_NONE;
}

static void web_add(struct web_link *l, size_t *n, unsigned host, enum web_kind kind,
		    unsigned k)
{
	if (*n >= WEB_LINKS_MAX)
		return;
	memset(&l[*n], 0, sizeof(l[*n]));
	l[*n].to.host = host;
	l[*n].to.kind = kind;
	l[*n].to.k = k;
	(*n)++;
}

/*
 * Near-duplicate families (--dupes). Family f is one article and seven
 * pages, /dup/f/V.html: V = 0 the base, on the f-th of the hosts that may
 * carry families (host f mod N without --politeness); 1 an exact copy; 2 the
 * article inside its host's boilerplate; 3..6 the article with 1, 10, 30 and
 * 60 % of its words replaced; each variant on another of those hosts, picked
 * per (f, V). The base host's home page links the base; every family page
 * links all seven and the base host's home page, with the same anchor texts,
 * so two pages of a family differ in their text only where their articles do.
 */
enum web_dup_stream { DS_ARTICLE, DS_PARA, DS_EDIT, DS_HOST, DS_BOILER };

static void web_dup_rng(struct web_rng *r, const struct web *w, enum web_dup_stream s,
			unsigned a, unsigned b)
{
	r->w = w;
	r->tag = TAG_DUP;
	r->host = s;
	r->kind = a;
	r->k = b;
	r->i = 0;
}

/*
 * The hosts that may carry family pages: those whose /dup/ a polite crawler
 * fetches. No robots.txt rule names /dup/, so one path stands for all; it
 * leaves out the --politeness hosts that are blocked and the wildcards hosts
 * (whose robots.txt disallows every path ending in .html).
 */
static int web_dup_setup(struct web *w, char *err, size_t errlen)
{
	unsigned cap;

	w->dup_nhosts = 0;
	if (!w->dupes)
		return 0;
	for (unsigned h = 0; h < w->hosts; h++)
		if (!web_disallowed(w, h, "/dup/0/0.html"))
			w->dup_hosts[w->dup_nhosts++] = (uint16_t)h;
	cap = WEB_DUPES_PER_HOST * w->dup_nhosts;
	if (cap > WEB_DUPES_MAX)
		cap = WEB_DUPES_MAX;
	if (w->dupes > cap) {
		snprintf(err, errlen, "--dupes must be 0..%u here (%u per host that may carry "
			 "families, at most %u)", cap, WEB_DUPES_PER_HOST, WEB_DUPES_MAX);
		return -1;
	}
	return 0;
}

/* Where host is in w->dup_hosts, or -1 when it carries no families. */
static long web_dup_pos(const struct web *w, unsigned host)
{
	size_t lo = 0, hi = w->dup_nhosts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->dup_hosts[mid] < host)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->dup_nhosts && w->dup_hosts[lo] == host ? (long)lo : -1;
}

/* The host of page V of family f; variants never share the base's host if N allows. */
static unsigned web_dup_host(const struct web *w, unsigned f, unsigned v)
{
	unsigned n = w->dup_nhosts, p = f % n;
	struct web_rng r;

	if (v > 0 && n > 1) {
		web_dup_rng(&r, w, DS_HOST, v, f);
		p = (p + 1 + web_rng_below(&r, n - 1)) % n;
	}
	return w->dup_hosts[p];
}

/* The links of every page of family f on host: its seven pages, its base's home. */
static size_t web_dup_links(const struct web *w, unsigned host, unsigned f,
			    struct web_link *l)
{
	size_t n = 0;

	for (unsigned v = 0; v < WEB_DUP_VARIANTS; v++)
		web_add(l, &n, web_dup_host(w, f, v), WEB_DUP, f * WEB_DUP_VARIANTS + v);
	web_add(l, &n, web_dup_host(w, f, 0), WEB_HOME, 0);
	for (size_t i = 0; i < n; i++)
		l[i].form = l[i].to.host == host ? FORM_ROOT : FORM_ABS;
	return n;
}

/* Appends to a home page's n links the bases of the families on its host. */
static size_t web_dup_home(const struct web *w, unsigned host, struct web_link *l, size_t n)
{
	long pos = w->dupes ? web_dup_pos(w, host) : -1;

	for (unsigned long f = (unsigned long)pos; pos >= 0 && f < w->dupes;
	     f += w->dup_nhosts) {
		web_add(l, &n, host, WEB_DUP, (unsigned)f * WEB_DUP_VARIANTS);
		l[n - 1].form = FORM_ROOT;
	}
	return n;
}

/*
 * The links of page (host, kind, k); kind is HOME, PAGE, VARIANT, PRIVATE,
 * OPEN or DUP. The structural links come first and make every allowed page
 * reachable: the home page links to the first allowed page and to the next
 * host's home page, and each page to the next allowed page. A variant page
 * has its page's links with query links turned into plain ones, so the URL
 * space stays finite (and the variant is a near-duplicate of its page).
 */
static size_t web_links(const struct web *w, unsigned host, enum web_kind kind, unsigned k,
			struct web_link *l)
{
	unsigned priv = w->pages < WEB_PRIVATE_N ? w->pages : WEB_PRIVATE_N;
	enum web_kind gen = kind == WEB_VARIANT ? WEB_PAGE : kind;
	struct web_rng r;
	size_t n = 0, total;
	unsigned next;

	if (kind == WEB_DUP)
		return web_dup_links(w, host, k / WEB_DUP_VARIANTS, l);
	web_rng_init(&r, w, TAG_LINK, host, gen, k);
	if (gen == WEB_HOME) {
		if (web_next_allowed(w, host, -1, &next) == 0)
			web_add(l, &n, host, WEB_PAGE, next);
		if (host + 1 < w->hosts)
			web_add(l, &n, host + 1, WEB_HOME, 0);
		/* --politeness: a run of blocked hosts after this one is linked
		 * whole (so that each is discovered), and so is the first host
		 * after it whose pages may be fetched (so the chain goes on). */
		for (unsigned j = host + 1; w->politeness && j + 1 < w->hosts &&
		     web_blocked(w, j) && n < 8; j++)
			web_add(l, &n, j + 1, WEB_HOME, 0);
		/* Every host shows every trap once, on its home page. */
		web_add(l, &n, host, WEB_PRIVATE, 0);
		web_add(l, &n, host, WEB_OPEN, 0);
		web_add(l, &n, host, WEB_GO, web_rng_below(&r, w->pages));
		web_add(l, &n, host, WEB_MISSING, web_rng_below(&r, WEB_MISSING_N));
		web_add(l, &n, host, WEB_VARIANT, web_rng_below(&r, w->pages));
		for (unsigned i = 0; i < 3; i++)
			web_add(l, &n, host, WEB_OTHER, i);
	} else if (gen == WEB_PAGE && web_next_allowed(w, host, (long)k, &next) == 0) {
		web_add(l, &n, host, WEB_PAGE, next);
	}
	total = 5 + web_rng_below(&r, 11);
	if (total < n + 2)
		total = n + 2;
	while (n < total) {
		unsigned c = web_rng_below(&r, 100);
		unsigned other = w->hosts > 1 ? web_rng_below(&r, w->hosts) : host;

		if (c < 50)
			web_add(l, &n, host, WEB_PAGE, web_rng_below(&r, w->pages));
		else if (c < 58)
			web_add(l, &n, other, WEB_PAGE, web_rng_below(&r, w->pages));
		else if (c < 61)
			web_add(l, &n, other, WEB_HOME, 0);
		else if (c < 67)
			web_add(l, &n, host, WEB_VARIANT, web_rng_below(&r, w->pages));
		else if (c < 72)
			web_add(l, &n, host, WEB_PRIVATE, web_rng_below(&r, priv));
		else if (c < 77)
			web_add(l, &n, host, WEB_OPEN, web_rng_below(&r, priv));
		else if (c < 81)
			web_add(l, &n, host, WEB_GO, web_rng_below(&r, w->pages));
		else if (c < 84)
			web_add(l, &n, host, WEB_MISSING, web_rng_below(&r, WEB_MISSING_N));
		else if (c < 89)
			web_add(l, &n, host, WEB_OTHER, web_rng_below(&r, 3));
		else if (c < 93)
			web_add(l, &n, host, WEB_HOME, 0);
		else
			web_add(l, &n, host, WEB_PAGE, web_rng_below(&r, w->pages));
	}
	for (size_t i = 0; i < n; i++) {
		unsigned f = web_rng_below(&r, 100);

		if (l[i].to.host != host)
			l[i].form = f < 60 ? FORM_ABS : f < 85 ? FORM_ABSUP : FORM_PROTO;
		else
			l[i].form = f < 20 ? FORM_REL : f < 30 ? FORM_DOTREL : f < 40 ? FORM_UPREL :
				    f < 65 ? FORM_ROOT : f < 80 ? FORM_ABS : f < 90 ? FORM_ABSUP :
				    FORM_PROTO;
		if (l[i].to.kind == WEB_HOME && l[i].form == FORM_ABS && (f & 1))
			l[i].form = FORM_BARE;
		l[i].frag = 0;
		if (web_rng_below(&r, 6) == 0)
			l[i].frag = (unsigned char)(1 + web_rng_below(&r, 5));
		l[i].style = (unsigned char)web_rng_below(&r, 8);
		if (kind == WEB_VARIANT && l[i].to.kind == WEB_VARIANT)
			l[i].to.kind = WEB_PAGE;
	}
	/* After the rest, so that a web without --dupes draws the same numbers. */
	if (gen == WEB_HOME)
		n = web_dup_home(w, host, l, n);
	return n;
}

/* The directory relative hrefs resolve against, and the <base> that sets it. */
static const char *web_base(const struct web *w, unsigned host, enum web_kind kind,
			    unsigned k, char *tag, size_t cap)
{
	struct web_rng r;
	unsigned c;

	web_rng_init(&r, w, TAG_BASE, host, kind == WEB_VARIANT ? WEB_PAGE : kind, k);
	c = web_rng_below(&r, 6);
	tag[0] = '\0';
	/* On /p/ pages the base changes nothing; elsewhere it moves every relative link. */
	if (kind == WEB_PAGE || kind == WEB_VARIANT) {
		if (c == 0)
			snprintf(tag, cap, "<base href=\"/p/\">\n");
		return "/p/";
	}
	if (c < 2)
		snprintf(tag, cap, "<base href=\"/p/\">\n");
	else if (c == 2)
		snprintf(tag, cap, "<base href=\"http://%s:%u/p/\">\n", WEB_HN(w, host),
			 w->port);
	if (c < 3)
		return "/p/";
	return kind == WEB_HOME ? "/" : kind == WEB_PRIVATE ? "/private/" : "/private/open/";
}

static void web_href(const struct web *w, const struct web_link *l, const char *dir,
		     char *out, size_t cap)
{
	struct web_sb sb = { out, 0, cap };
	char path[64], *query;
	size_t dl = strlen(dir), depth = 0;

	out[0] = '\0';
	if (l->to.kind == WEB_OTHER) {
		if (l->to.k % 3 == 0)
			web_sb_printf(&sb, "mailto:webmaster@%s", WEB_HN(w, l->to.host));
		else if (l->to.k % 3 == 1)
			web_sb_printf(&sb, "javascript:void(0)");
		else
			web_sb_printf(&sb, "ftp://%s/pub/notes.txt", WEB_HN(w, l->to.host));
		return;
	}
	web_path(&l->to, path, sizeof(path));
	query = strchr(path, '?');
	if (query)
		*query++ = '\0';
	for (size_t i = 1; i < dl; i++)
		depth += dir[i] == '/';
	switch (l->form) {
	case FORM_ROOT:
		web_sb_printf(&sb, "%s", path);
		break;
	case FORM_ABS:
	case FORM_BARE:
		web_sb_printf(&sb, "http://%s:%u%s", WEB_HN(w, l->to.host), w->port,
			      l->form == FORM_BARE ? "" : path);
		break;
	case FORM_ABSUP:
		web_sb_printf(&sb, "HTTP://");
		for (const char *d = WEB_HN(w, l->to.host); *d; d++)
			web_sb_printf(&sb, "%c", *d >= 'a' && *d <= 'z' ? *d - 'a' + 'A' : *d);
		web_sb_printf(&sb, ":%u%s", w->port, path);
		break;
	case FORM_PROTO:
		web_sb_printf(&sb, "//%s:%u%s", WEB_HN(w, l->to.host), w->port, path);
		break;
	default:
		if (l->form != FORM_UPREL && strncmp(path, dir, dl) == 0) {
			if (l->form == FORM_DOTREL || path[dl] == '\0')
				web_sb_printf(&sb, "./");
			web_sb_printf(&sb, "%s", path + dl);
			break;
		}
		for (size_t i = 0; i < depth; i++)
			web_sb_printf(&sb, "../");
		web_sb_printf(&sb, "%s", path + 1);
		if (sb.len == 0)
			web_sb_printf(&sb, "./");
		break;
	}
	if (query)
		web_sb_printf(&sb, "?%s", query);
	if (l->frag)
		web_sb_printf(&sb, "#sec%u", l->frag);
}

/* A word of the page's vocabulary: its host's language with --multilingual. */
static const char *web_rng_word(struct web_rng *r)
{
	if (r->w->multilingual) {
		const struct web_lang *l = &web_langs[r->host % WEB_NLANGS];

		return l->words[web_rng_below(r, (unsigned)l->n)];
	}
	return web_words[web_rng_below(r, WEB_NWORDS)];
}

static void web_words_out(struct web_rng *r, struct web_sb *sb, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		web_sb_printf(sb, "%s%s", i ? " " : "", web_rng_word(r));
}

void web_host_languages(const struct web *w, FILE *out)
{
	for (unsigned h = 0; h < w->hosts; h++)
		fprintf(out, "%s\t%s\n", WEB_HN(w, h),
			w->multilingual ? web_langs[h % WEB_NLANGS].code : "eng");
}

/*
 * --page-bytes: what makes a page of real size heavy besides its words - a
 * style sheet and a script in the head, and paragraphs inside nested
 * blocks with classes and inline emphasis - so that about two thirds of the
 * bytes are markup, as on the web. It adds no link, so the truth does not
 * change.
 */
static void web_head_weight(struct web_rng *r, struct web_sb *sb, size_t bytes)
{
	size_t end = sb->len + bytes / 2;

	web_sb_printf(sb, "<style>\n");
	while (sb->len < end && sb->len + 1 < sb->cap)
		web_sb_printf(sb, ".%s-%u { margin: %upx %upx; color: #%06x; font-weight: %u; }\n",
			      web_words[web_rng_below(r, WEB_NWORDS)], web_rng_below(r, 1000),
			      web_rng_below(r, 40), web_rng_below(r, 40),
			      web_rng_below(r, 0xffffff), 100 * (1 + web_rng_below(r, 9)));
	web_sb_printf(sb, "</style>\n<script>\n");
	end = sb->len + bytes / 2;
	while (sb->len < end && sb->len + 1 < sb->cap)
		web_sb_printf(sb, "function %s%u(e) { return e && e.dataset ? e.dataset['%s'] : "
			      "null; }\n", web_words[web_rng_below(r, WEB_NWORDS)],
			      web_rng_below(r, 100000), web_words[web_rng_below(r, WEB_NWORDS)]);
	web_sb_printf(sb, "</script>\n");
}

/* --lines: the text written to sb since from, tags dropped and blanks
 * collapsed, as one expected line (nothing when it has no text). */
static void web_line_from(const struct web *w, const struct web_sb *sb, size_t from)
{
	size_t start;
	int in_tag = 0, blank = 0;

	if (!w->lines)
		return;
	web_sb_printf(w->lines, "text\t");
	start = w->lines->len;
	for (size_t i = from; i < sb->len; i++) {
		char c = sb->p[i];

		if (in_tag || c == '<') {
			in_tag = c != '>';
			continue;
		}
		if (c == ' ' || c == '\n' || c == '\t') {
			blank = 1;
			continue;
		}
		if (blank && w->lines->len > start)
			web_sb_printf(w->lines, " ");
		blank = 0;
		web_sb_printf(w->lines, "%c", c);
	}
	if (w->lines->len > start)
		web_sb_printf(w->lines, "\n");
	else
		w->lines->len = start - 5;   /* no text: no line */
}

/* --lines: one expected line as given, of kind "text" or "boiler". */
__attribute__((format(printf, 3, 4)))
static void web_line_of(const struct web *w, const char *kind, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!w->lines)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	web_sb_printf(w->lines, "%s\t%s\n", kind, line);
}
#define web_line(w, ...) web_line_of((w), "text", __VA_ARGS__)

/*
 * --blocks: a site's boilerplate, as real pages carry it - a menu before
 * the heading (a list of one-word links) or a footer of links after the
 * text - with the lines they give, of kind "boiler". The links all go to
 * the home page: the truth does not change.
 */
static void web_nav(const struct web *w, struct web_rng *r, struct web_sb *sb)
{
	web_sb_printf(sb, "<nav><ul>\n");
	for (unsigned i = 0; i < 5; i++) {
		const char *x = web_rng_word(r);

		web_sb_printf(sb, "<li><a href=\"/\">%s</a></li>\n", x);
		web_line_of(w, "boiler", "%s", x);
	}
	web_sb_printf(sb, "</ul></nav>\n");
}

static void web_footer(const struct web *w, struct web_rng *r, struct web_sb *sb)
{
	const char *a = web_rng_word(r), *b = web_rng_word(r), *c = web_rng_word(r);

	web_sb_printf(sb, "<footer><p><a href=\"/\">%s</a> \xc2\xb7 <a href=\"/\">%s</a> \xc2\xb7 "
		      "<a href=\"/\">%s</a></p></footer>\n", a, b, c);
	web_line_of(w, "boiler", "%s \xc2\xb7 %s \xc2\xb7 %s", a, b, c);
}

/*
 * --blocks: block structure beyond paragraphs, with the lines it should
 * give - a list, a table (a line per row), br, pre, entities and a no-break
 * space, what is never text (script, style, noscript, template), a
 * blockquote and nested divs. No link: the truth does not change.
 */
static void web_blocks(const struct web *w, struct web_rng *r, struct web_sb *sb)
{
	const char *x[16];

	for (unsigned i = 0; i < 16; i++)
		x[i] = web_rng_word(r);
	web_sb_printf(sb, "<ul>\n<li>%s %s</li>\n<li>%s <b>%s</b> %s\n</ul>\n", x[0], x[1],
		      x[2], x[3], x[4]);
	web_line(w, "%s %s", x[0], x[1]);
	web_line(w, "%s %s %s", x[2], x[3], x[4]);
	web_sb_printf(sb, "<table>\n<tr><td>%s</td><td>%s  %s</td></tr>\n<tr><th>%s</th>"
		      "<td>%s</td></tr>\n</table>\n", x[5], x[6], x[7], x[8], x[9]);
	web_line(w, "%s %s %s", x[5], x[6], x[7]);
	web_line(w, "%s %s", x[8], x[9]);
	web_sb_printf(sb, "<p>%s %s<br>%s<br/>\n%s</p>\n", x[10], x[11], x[12], x[13]);
	web_line(w, "%s %s", x[10], x[11]);
	web_line(w, "%s", x[12]);
	web_line(w, "%s", x[13]);
	web_sb_printf(sb, "<pre>%s   %s\n%s</pre>\n", x[14], x[15], x[0]);
	web_line(w, "%s %s", x[14], x[15]);
	web_line(w, "%s", x[0]);
	web_sb_printf(sb, "<p>%s &amp; %s &lt;%s&gt; &eacute;t&#233;&nbsp;%s</p>\n", x[1], x[2],
		      x[3], x[4]);
	web_line(w, "%s & %s <%s> \xc3\xa9t\xc3\xa9 %s", x[1], x[2], x[3], x[4]);
	web_sb_printf(sb, "<script>var s = \"<p>%s</p>\";</script><style>p { color: red; }"
		      "</style>\n<noscript><p>%s</p></noscript><template><p>%s</p></template>\n",
		      x[5], x[6], x[7]);
	web_sb_printf(sb, "<blockquote>%s %s</blockquote>\n<div>%s<div>%s <span>%s</span>"
		      "</div>%s</div>\n", x[8], x[9], x[10], x[11], x[12], x[13]);
	web_line(w, "%s %s", x[8], x[9]);
	web_line(w, "%s", x[10]);
	web_line(w, "%s %s", x[11], x[12]);
	web_line(w, "%s", x[13]);
}

static void web_heavy_paragraph(const struct web *w, struct web_rng *r, struct web_sb *sb)
{
	size_t from;
	unsigned n = 20 + web_rng_below(r, 40);

	web_sb_printf(sb, "<div class=\"row\"><div class=\"col-%u\"><p class=\"text\" "
		      "id=\"s%u\">", 1 + web_rng_below(r, 12), web_rng_below(r, 100000));
	from = sb->len;
	for (unsigned i = 0; i < n; i++) {
		const char *word = web_rng_word(r);

		switch (web_rng_below(r, 12)) {
		case 0: web_sb_printf(sb, "%s<em>%s</em>", i ? " " : "", word); break;
		case 1: web_sb_printf(sb, "%s<span class=\"k%u\">%s</span>", i ? " " : "",
				      web_rng_below(r, 50), word); break;
		case 2: web_sb_printf(sb, "%s<abbr title=\"%s %u\">%s</abbr>", i ? " " : "",
				      word, web_rng_below(r, 100000), word); break;
		default: web_sb_printf(sb, "%s%s", i ? " " : "", word); break;
		}
	}
	web_sb_printf(sb, ".");
	web_line_from(w, sb, from);
	web_sb_printf(sb, "</p></div></div>\n");
}

static void web_render(const struct web *w, unsigned host, enum web_kind kind, unsigned k,
		       struct web_sb *sb)
{
	static const char *const label[] = { "Home", "Page", "Page", "Private", "Open" };
	struct web_link links[WEB_LINKS_MAX];
	struct web_rng r;
	char base[256], href[256];
	const char *dir = web_base(w, host, kind, k, base, sizeof(base));
	size_t n = web_links(w, host, kind, k, links);
	size_t target, from;

	web_rng_init(&r, w, TAG_TEXT, host, kind == WEB_VARIANT ? WEB_PAGE : kind, k);
	target = 1200 + web_rng_below(&r, 2600);
	if (w->page_bytes)
		target = w->page_bytes / 2 + web_rng_below(&r, w->page_bytes);
	web_sb_printf(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\">\n<title>");
	from = sb->len;
	web_sb_printf(sb, "%s %u of h%04u: ", label[kind], k, host);
	web_words_out(&r, sb, 3);
	web_line_from(w, sb, from);
	web_sb_printf(sb, "</title>\n%s", base);
	if (w->page_bytes)
		web_head_weight(&r, sb, target * 3 / 10);
	web_sb_printf(sb, "</head>\n<body>\n");
	if (w->blocks)
		web_nav(w, &r, sb);
	web_sb_printf(sb, "<h1>");
	from = sb->len;
	web_words_out(&r, sb, 2 + web_rng_below(&r, 4));
	web_line_from(w, sb, from);
	web_sb_printf(sb, "</h1>\n");
	for (size_t i = 0; i < n; i++) {
		web_href(w, &links[i], dir, href, sizeof(href));
		web_sb_printf(sb, "<p>");
		from = sb->len;
		web_words_out(&r, sb, 2 + web_rng_below(&r, 7));
		web_sb_printf(sb, " ");
		switch (links[i].style < 5 ? 0 : links[i].style - 4) {
		case 0: web_sb_printf(sb, "<a href=\"%s\">", href); break;
		case 1: web_sb_printf(sb, "<a href='%s'>", href); break;
		case 2: web_sb_printf(sb, "<a class=\"nav\" href=\"%s\">", href); break;
		default: web_sb_printf(sb, "<A HREF=\"%s\">", href); break;
		}
		web_words_out(&r, sb, 1 + web_rng_below(&r, 3));
		web_sb_printf(sb, "%s ", links[i].style == 7 ? "</A>" : "</a>");
		web_words_out(&r, sb, 1 + web_rng_below(&r, 6));
		web_sb_printf(sb, ".");
		web_line_from(w, sb, from);
		web_sb_printf(sb, "</p>\n");
	}
	if (w->blocks)
		web_blocks(w, &r, sb);
	while (w->page_bytes && sb->len < target && sb->len + 1 < sb->cap)
		web_heavy_paragraph(w, &r, sb);
	while (sb->len < target) {
		web_sb_printf(sb, "<p>");
		from = sb->len;
		web_words_out(&r, sb, 1);
		for (unsigned i = 1; i < 40 && sb->len < target; i++) {
			web_sb_printf(sb, " ");
			web_words_out(&r, sb, 1);
		}
		web_sb_printf(sb, ".");
		web_line_from(w, sb, from);
		web_sb_printf(sb, "</p>\n");
	}
	if (w->blocks)
		web_footer(w, &r, sb);
	/* --hostile: the first host's home page links the quarter, after the rest. */
	if (w->hostile && host == 0 && kind == WEB_HOME)
		sb->len += hostile_home_links(w, sb->p + sb->len, sb->cap - sb->len);
	web_sb_printf(sb, "</body>\n</html>\n");
}

#define WEB_DUP_WORDS_MIN 400u
#define WEB_DUP_WORDS_MAX 800u
#define WEB_DUP_PARA_MIN 40u        /* article words per paragraph: 40..80 */
#define WEB_DUP_BOILER_PCT 9u       /* V = 2: header + footer words, % of the article's */
#define WEB_DUP_BODY_MAX 16384u     /* a family page is at most about 10 KB */

/* Replaced words per variant, % of the article's (rounded, at least 1 when set). */
static const unsigned web_dup_edit_pct[WEB_DUP_VARIANTS] = { 0, 0, 0, 1, 10, 30, 60 };

struct web_article {
	unsigned n;
	uint16_t word[WEB_DUP_WORDS_MAX];   /* indices into web_words */
};

/* Family f's article as page v shows it: v's share of positions, each a new word. */
static void web_dup_article(const struct web *w, unsigned f, unsigned v,
			    struct web_article *a)
{
	uint16_t pos[WEB_DUP_WORDS_MAX];
	struct web_rng r;
	unsigned m;

	web_dup_rng(&r, w, DS_ARTICLE, 0, f);
	a->n = WEB_DUP_WORDS_MIN + web_rng_below(&r, WEB_DUP_WORDS_MAX - WEB_DUP_WORDS_MIN + 1);
	for (unsigned i = 0; i < a->n; i++)
		a->word[i] = (uint16_t)web_rng_below(&r, WEB_NWORDS);
	m = (a->n * web_dup_edit_pct[v] + 50) / 100;
	for (unsigned i = 0; i < a->n; i++)
		pos[i] = (uint16_t)i;
	/* A partial Fisher-Yates shuffle: m distinct positions, in their own stream. */
	web_dup_rng(&r, w, DS_EDIT, v, f);
	for (unsigned i = 0; i < m; i++) {
		unsigned j = i + web_rng_below(&r, a->n - i), p = pos[j];

		pos[j] = pos[i];
		pos[i] = (uint16_t)p;
		a->word[p] = (uint16_t)((a->word[p] + 1 + web_rng_below(&r, WEB_NWORDS - 1)) %
					WEB_NWORDS);
	}
}

/*
 * Page v of family f. Visible text: the title, the paragraphs, the anchor
 * texts; no entities, and never a word character on both sides of a tag, so
 * a parser that joins adjacent text and one that separates elements read the
 * same words.
 */
static void web_dup_render(const struct web *w, unsigned f, unsigned v, struct web_sb *sb)
{
	struct web_link links[WEB_LINKS_MAX];
	struct web_article a;
	struct web_rng r;
	char href[256];
	unsigned host = web_dup_host(w, f, v);
	unsigned boiler = 0;
	size_t n = web_dup_links(w, host, f, links);

	web_dup_article(w, f, v, &a);
	web_sb_printf(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\">\n<title>Article %u</title>\n</head>\n<body>\n", f);
	if (v == 2) {
		/* The host's boilerplate: the same words on every family page there. */
		boiler = (a.n * WEB_DUP_BOILER_PCT + 50) / 100;
		web_dup_rng(&r, w, DS_BOILER, 0, host);
		web_sb_printf(sb, "<p>");
		web_words_out(&r, sb, boiler / 2);
		web_sb_printf(sb, ".</p>\n");
	}
	web_dup_rng(&r, w, DS_PARA, 0, f);
	for (unsigned i = 0; i < a.n;) {
		unsigned len = WEB_DUP_PARA_MIN + web_rng_below(&r, WEB_DUP_PARA_MIN + 1);

		if (len > a.n - i)
			len = a.n - i;
		web_sb_printf(sb, "<p>");
		for (unsigned j = 0; j < len; j++)
			web_sb_printf(sb, "%s%s", j ? " " : "", web_words[a.word[i + j]]);
		web_sb_printf(sb, ".</p>\n");
		i += len;
	}
	if (v == 2) {
		web_dup_rng(&r, w, DS_BOILER, 1, host);
		web_sb_printf(sb, "<p>");
		web_words_out(&r, sb, boiler - boiler / 2);
		web_sb_printf(sb, ".</p>\n");
	}
	web_sb_printf(sb, "<p>");
	for (size_t i = 0; i < n; i++) {
		web_href(w, &links[i], "/", href, sizeof(href));
		web_sb_printf(sb, "%s<a href=\"%s\">", i ? " " : "", href);
		if (links[i].to.kind == WEB_DUP)
			web_sb_printf(sb, "v%u</a>", links[i].to.k % WEB_DUP_VARIANTS);
		else
			web_sb_printf(sb, "home</a>");
	}
	web_sb_printf(sb, "</p>\n</body>\n</html>\n");
}

/* Pages of the page-429/503-once variants that fail the first time they are asked for. */
static int web_once(const struct web_def *d, enum web_kind kind, unsigned k)
{
	return (d->v == WV_PAGE429 || d->v == WV_PAGE503) &&
	       (kind == WEB_HOME || (kind == WEB_PAGE && k % 8 == 3));
}

/* Counters per host: robots.txt, the home page, then /p/K.html. */
size_t web_counters(const struct web *w)
{
	return w->politeness ? (size_t)w->hosts * (w->pages + 2) : 0;
}

long web_counter(const struct web *w, unsigned host, const char *path)
{
	const struct web_def *d;
	enum web_kind kind;
	unsigned k = 0;
	size_t base = (size_t)host * (w->pages + 2);

	if (!w->politeness || host >= w->hosts)
		return -1;
	d = web_def(w, host);
	if (d->v == WV_RFAIL1 && strcmp(path, "/robots.txt") == 0)
		return (long)base;
	kind = web_route(w, path, &k);
	if (!web_once(d, kind, k))
		return -1;
	return (long)(base + (kind == WEB_HOME ? 1 : 2 + (size_t)k));
}

static void web_moved(struct web_response *r, struct web_sb *sb)
{
	r->status = 301;
	r->type = "text/html; charset=utf-8";
	web_sb_printf(sb, "<!DOCTYPE html>\n<html><head><title>Moved</title></head>"
		      "<body><p>Moved to <a href=\"%s\">here</a>.</p></body></html>\n",
		      r->location);
}

static void web_failure(struct web_response *r, struct web_sb *sb, int status,
			unsigned retry_after)
{
	r->status = status;
	r->retry_after = retry_after;
	r->type = "text/html; charset=utf-8";
	web_sb_printf(sb, "<!DOCTYPE html>\n<html><head><title>Unavailable</title></head>"
		      "<body><p>Error %d: try again later.</p></body></html>\n", status);
}

/* robots.txt (and its redirect steps) of a --politeness variant. */
static void web_robots_respond(const struct web *w, unsigned h, const struct web_def *d,
			       int hop, unsigned attempt, struct web_response *r,
			       struct web_sb *sb)
{
	char *buf;

	r->type = "text/plain; charset=utf-8";
	switch (d->v) {
	case WV_R500:
		web_failure(r, sb, 500, 0);
		return;
	case WV_R503:
		web_failure(r, sb, 503, w->retry_after_s);
		return;
	case WV_R429:
		web_failure(r, sb, 429, w->retry_after_s);
		return;
	case WV_RFAIL1:
		if (attempt == 0) {
			web_failure(r, sb, 503, w->retry_after_s);
			return;
		}
		break;
	case WV_RTIMEOUT:
		r->status = 0;
		return;
	case WV_REDIR1:
		if (hop == 0) {
			snprintf(r->location, sizeof(r->location), "/robots-real.txt");
			web_moved(r, sb);
			return;
		}
		break;
	case WV_REDIR2:
		if (hop == 0) {
			snprintf(r->location, sizeof(r->location),
				 "http://%s:%u/robots-moved.txt", WEB_HN(w, h), w->port);
			web_moved(r, sb);
			return;
		}
		if (hop == 1) {
			snprintf(r->location, sizeof(r->location), "/robots-real.txt");
			web_moved(r, sb);
			return;
		}
		break;
	case WV_REDIR6:
		if ((unsigned)hop < WEB_REDIR6_HOPS) {
			/* Root-relative, then relative and absolute in turn. */
			if (hop == 0)
				snprintf(r->location, sizeof(r->location), "/robots-hop1.txt");
			else if (hop % 2)
				snprintf(r->location, sizeof(r->location), "robots-hop%d.txt",
					 hop + 1);
			else
				snprintf(r->location, sizeof(r->location),
					 "http://%s:%u/robots-hop%d.txt", WEB_HN(w, h),
					 w->port, hop + 1);
			web_moved(r, sb);
			return;
		}
		break;
	case WV_HUGE:
		buf = malloc(WEB_HUGE_CAP);
		if (!buf) {
			web_failure(r, sb, 503, w->retry_after_s);
			return;
		}
		{
			struct web_sb big = { buf, 0, WEB_HUGE_CAP };

			web_huge_robots(w, h, &big);
			r->big = buf;
			r->len = big.len;
		}
		return;
	default:
		break;
	}
	web_robots_variant(w, h, d, sb);
}

/* A family page is a big body: with boilerplate it may pass WEB_BODY_MAX. */
static void web_dup_respond(const struct web *w, unsigned k, struct web_response *r,
			    struct web_sb *sb)
{
	struct web_sb big = { malloc(WEB_DUP_BODY_MAX), 0, WEB_DUP_BODY_MAX };

	if (!big.p) {
		web_failure(r, sb, 503, w->retry_after_s);
		return;
	}
	web_dup_render(w, k / WEB_DUP_VARIANTS, k % WEB_DUP_VARIANTS, &big);
	r->big = big.p;
	r->len = big.len;
}

void web_respond(const struct web *w, const char *host, const char *path,
		 unsigned attempt, struct web_response *r)
{
	struct web_sb sb = { r->body, 0, sizeof(r->body) };
	const struct web_def *d = NULL;
	struct web_rng rng;
	unsigned h = 0, k = 0;
	int hop = -1;
	enum web_kind kind = WEB_NONE;

	r->status = 200;
	r->type = "text/html; charset=utf-8";
	r->location[0] = '\0';
	r->retry_after = 0;
	r->latency_ms = w->latency_ms;
	r->last_modified = -1;
	r->big = NULL;
	r->len = 0;
	if (w->graph) {
		/* an unknown host: no path of it is a page */
		int known = web_find_host(w, host, &h) == 0;

		graph_respond(w, known ? h : 0, known ? path : "", r);
		return;
	}
	if (web_find_host(w, host, &h) == 0) {
		d = web_def(w, h);
		r->latency_ms += d->latency_ms;
		hop = web_robots_hop(w, h, path);
		kind = hop >= 0 ? WEB_ROBOTS : web_route(w, path, &k);
		/* A family page exists on its own host only. */
		if (kind == WEB_DUP && web_dup_host(w, k / WEB_DUP_VARIANTS,
						    k % WEB_DUP_VARIANTS) != h)
			kind = WEB_NONE;
	}
	if (d && kind != WEB_ROBOTS && sitemaps_respond(w, h, path, r))
		return;
	if (kind == WEB_ROBOTS && d->v != WV_BASE && d->v != WV_SLOW && d->v != WV_PAGE429 &&
	    d->v != WV_PAGE503) {
		web_robots_respond(w, h, d, hop, attempt, r, &sb);
		if (r->big)
			return;
	} else if (kind == WEB_ROBOTS && (h % 4 != 0 || w->sitemaps)) {
		r->type = "text/plain; charset=utf-8";
		if (h % 4 != 0)
			web_robots_txt(w, h, &sb);
		sitemaps_robots(w, h, &sb);
	} else if (d && attempt == 0 && web_once(d, kind, k)) {
		web_failure(r, &sb, d->v == WV_PAGE429 ? 429 : 503, w->retry_after_s);
	} else if (kind == WEB_GO) {
		/* Location spelled absolute, root-relative or relative (RFC 9110 allows all). */
		web_rng_init(&rng, w, TAG_GO, h, WEB_GO, k);
		switch (web_rng_below(&rng, 3)) {
		case 0:
			snprintf(r->location, sizeof(r->location), "http://%s:%u/p/%u.html",
				 WEB_HN(w, h), w->port, k);
			break;
		case 1:
			snprintf(r->location, sizeof(r->location), "/p/%u.html", k);
			break;
		default:
			snprintf(r->location, sizeof(r->location), "../p/%u.html", k);
			break;
		}
		web_moved(r, &sb);
	} else if (kind == WEB_NONE || kind == WEB_ROBOTS) {
		r->status = 404;
		web_sb_printf(&sb, "<!DOCTYPE html>\n<html><head><title>Not Found</title></head>"
			      "<body><p>Not found.</p></body></html>\n");
	} else if (kind == WEB_DUP) {
		web_dup_respond(w, k, r, &sb);
		if (r->big)
			return;
	} else {
		if (w->page_bytes) {
			/* A page of real size: rendered into a body of its own. */
			sb.cap = (size_t)w->page_bytes * 2 + 16384;
			sb.p = r->big = malloc(sb.cap);
			if (!r->big) {
				sb.p = r->body;
				sb.cap = sizeof(r->body);
			}
		}
		web_render(w, h, kind, k, &sb);
	}
	r->len = sb.len;
}

void web_hostinfo(const struct web *w, FILE *out)
{
	for (unsigned h = 0; h < w->hosts; h++) {
		const struct web_def *d = web_def(w, h);

		fprintf(out, "%s\t%u\t%s\n", WEB_HN(w, h), d->delay_ms, d->name);
	}
}

/*
 * Truth: slots per host are HOME, then PAGE, VARIANT, PRIVATE, OPEN, GO (each
 * pages long), then MISSING; after all hosts' slots, one per family page
 * (--dupes), in the order of k. A slot is set when the walk fetches the URL.
 */
static size_t web_slots(const struct web *w)
{
	return 1 + 5 * (size_t)w->pages + WEB_MISSING_N;
}

static size_t web_slot(const struct web *w, const struct web_target *t)
{
	size_t s = (size_t)t->host * web_slots(w);

	if (t->kind == WEB_DUP)
		return (size_t)w->hosts * web_slots(w) + t->k;
	if (t->kind == WEB_HOME)
		return s;
	if (t->kind == WEB_MISSING)
		return s + 1 + 5 * (size_t)w->pages + t->k;
	return s + 1 + (size_t)(t->kind - WEB_PAGE) * w->pages + t->k;
}

static void web_unslot(const struct web *w, size_t s, struct web_target *t)
{
	size_t off = s % web_slots(w);

	if (s >= (size_t)w->hosts * web_slots(w)) {
		t->kind = WEB_DUP;
		t->k = (unsigned)(s - (size_t)w->hosts * web_slots(w));
		t->host = web_dup_host(w, t->k / WEB_DUP_VARIANTS, t->k % WEB_DUP_VARIANTS);
		return;
	}
	t->host = (unsigned)(s / web_slots(w));
	t->k = 0;
	if (off == 0) {
		t->kind = WEB_HOME;
	} else if (off > 5 * (size_t)w->pages) {
		t->kind = WEB_MISSING;
		t->k = (unsigned)(off - 1 - 5 * (size_t)w->pages);
	} else {
		t->kind = (enum web_kind)(WEB_PAGE + (off - 1) / w->pages);
		t->k = (unsigned)((off - 1) % w->pages);
	}
}

struct web_walk {
	const struct web *w;
	unsigned char *seen;   /* bitmap over slots */
	uint32_t *queue;       /* slots, each pushed once */
	size_t head, tail;
	uint32_t *dup_first;   /* host h's family pages are dup_order[dup_first[h] ..
				  dup_first[h + 1]) */
	uint32_t *dup_order;   /* family page numbers (k), by host */
};

/* Sorts the family pages by host (a counting sort), for web_truth_host. */
static int web_dup_index(struct web_walk *wk)
{
	const struct web *w = wk->w;
	size_t np = (size_t)w->dupes * WEB_DUP_VARIANTS;

	wk->dup_first = calloc((size_t)w->hosts + 1, sizeof(uint32_t));
	wk->dup_order = malloc((np ? np : 1) * sizeof(uint32_t));
	if (!wk->dup_first || !wk->dup_order)
		return -1;
	for (size_t k = 0; k < np; k++)
		wk->dup_first[web_dup_host(w, (unsigned)k / WEB_DUP_VARIANTS,
					   (unsigned)k % WEB_DUP_VARIANTS) + 1]++;
	for (unsigned h = 0; h < w->hosts; h++)
		wk->dup_first[h + 1] += wk->dup_first[h];
	for (size_t k = 0; k < np; k++)
		wk->dup_order[wk->dup_first[web_dup_host(w, (unsigned)k / WEB_DUP_VARIANTS,
							 (unsigned)k % WEB_DUP_VARIANTS)]++] =
			(uint32_t)k;
	/* Each dup_first[h] moved to where h + 1 starts: shift them back. */
	for (unsigned h = w->hosts; h > 0; h--)
		wk->dup_first[h] = wk->dup_first[h - 1];
	wk->dup_first[0] = 0;
	return 0;
}

/* Queues t unless seen or disallowed: a polite crawler never fetches those. */
static void web_visit(struct web_walk *wk, const struct web_target *t)
{
	char path[64];
	size_t s;

	if (t->kind == WEB_OTHER || (wk->w->in_scope && !wk->w->in_scope[t->host]))
		return;
	web_path(t, path, sizeof(path));
	if (web_disallowed(wk->w, t->host, path))
		return;
	s = web_slot(wk->w, t);
	if (wk->seen[s / 8] & (1u << (s % 8)))
		return;
	wk->seen[s / 8] |= (unsigned char)(1u << (s % 8));
	wk->queue[wk->tail++] = (uint32_t)s;
}

static int web_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const int web_status[] = { 200, 200, 200, 200, 200, 301, 404 };

/*
 * Host names are of equal length and zero-padded, so URLs sort bytewise by
 * host index first: only the paths of one host need sorting.
 */
static int web_truth_host(const struct web_walk *wk, unsigned host, FILE *out)
{
	const struct web *w = wk->w;
	size_t base = (size_t)host * web_slots(w), n = 0;
	size_t ndup = wk->dup_first[host + 1] - wk->dup_first[host];
	size_t cap = web_slots(w) + ndup + 8;
	char **paths = malloc(cap * sizeof(*paths));
	struct web_target t;
	int rc = 0;

	if (!paths)
		return -1;
	for (size_t i = 0; i < web_slots(w) + ndup; i++) {
		size_t s = i < web_slots(w) ? base + i : (size_t)w->hosts * web_slots(w) +
			   wk->dup_order[wk->dup_first[host] + i - web_slots(w)];
		char path[64];

		if (!(wk->seen[s / 8] & (1u << (s % 8))))
			continue;
		web_unslot(w, s, &t);
		web_path(&t, path, sizeof(path));
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "\t%d",
			 t.kind == WEB_DUP ? 200 : web_status[t.kind]);
		paths[n] = strdup(path);
		if (!paths[n]) {
			rc = -1;
			break;
		}
		n++;
	}
	/* A host the crawl reaches: its robots.txt names the sitemaps. */
	if (rc == 0 && n > 0 && sitemaps_truth(w, host, paths, &n, cap) < 0)
		rc = -1;
	if (rc == 0)
		qsort(paths, n, sizeof(*paths), web_cmp);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && fprintf(out, "http://%s:%u%s\n", WEB_HN(w, host), w->port,
				       paths[i]) < 0)
			rc = -1;
		free(paths[i]);
	}
	free(paths);
	return rc;
}

int web_truth(const struct web *w, FILE *out)
{
	size_t nslots = (size_t)w->hosts * web_slots(w) + (size_t)w->dupes * WEB_DUP_VARIANTS;
	struct web_walk wk = { w, calloc(nslots / 8 + 1, 1), malloc(nslots * sizeof(uint32_t)),
			       0, 0, NULL, NULL };
	struct web_link links[WEB_LINKS_MAX];
	struct web_target t;
	char **hl = NULL;
	size_t nhl = 0, ih = 0;
	int rc = 0;

	if (!wk.seen || !wk.queue || web_dup_index(&wk) < 0) {
		rc = -1;
		goto out;
	}
	for (unsigned h = 0; h < w->hosts && h < 3; h++) {
		/* A seed out of scope is refused like any other URL. */
		t = (struct web_target){ h, WEB_HOME, 0 };
		web_visit(&wk, &t);
	}
	while (wk.head < wk.tail) {
		web_unslot(w, wk.queue[wk.head++], &t);
		if (t.kind == WEB_GO) {
			t.kind = WEB_PAGE;
			web_visit(&wk, &t);
		} else if (t.kind != WEB_MISSING) {
			size_t n = web_links(w, t.host, t.kind, t.k, links);

			for (size_t i = 0; i < n; i++)
				web_visit(&wk, &links[i].to);
		}
	}
	if (w->hostile && hostile_truth(w, &hl, &nhl) < 0) {
		rc = -1;
		goto out;
	}
	/* The normal lines all start "http://h": the quarter's lines go around them. */
	for (; ih < nhl && rc == 0 && strcmp(hl[ih], "http://h") < 0; ih++)
		if (fprintf(out, "%s\n", hl[ih]) < 0)
			rc = -1;
	for (unsigned h = 0; h < w->hosts && rc == 0; h++)
		rc = web_truth_host(&wk, h, out);
	for (; ih < nhl && rc == 0; ih++)
		if (fprintf(out, "%s\n", hl[ih]) < 0)
			rc = -1;
out:
	for (size_t i = 0; i < nhl; i++)
		free(hl[i]);
	free(hl);
	free(wk.seen);
	free(wk.queue);
	free(wk.dup_first);
	free(wk.dup_order);
	return rc;
}

/*
 * Shingles for --pairs, by the word rule the crawler uses: a word is a
 * maximal run of ASCII letters and digits and bytes >= 0x80, letters lower
 * cased; a shingle is 5 consecutive words (all of them when a text has fewer).
 * Tags are dropped without separating anything, as a parser that joins text
 * nodes would; web_dup_render keeps that equal to separating at elements.
 */
#define WEB_SHINGLE_WORDS 5u

struct web_span {
	const char *p;
	size_t len;
};

struct web_shingles {
	char *text;              /* the page's words, one space apart */
	struct web_span *s;      /* into text: sorted, unique */
	size_t n;
};

static int web_span_cmp(const void *a, const void *b)
{
	const struct web_span *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int web_is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80;
}

static void web_shingles_release(struct web_shingles *sh)
{
	free(sh->text);
	free(sh->s);
	memset(sh, 0, sizeof(*sh));
}

/* The shingle set of page v of family f as served. Returns 0, or -1 out of memory. */
static int web_shingles_page(const struct web *w, unsigned f, unsigned v,
			     struct web_shingles *sh)
{
	struct web_sb html = { malloc(WEB_DUP_BODY_MAX), 0, WEB_DUP_BODY_MAX };
	size_t *start = NULL, nw = 0, tl = 0, out = 0;
	int in_tag = 0, in_word = 0;

	memset(sh, 0, sizeof(*sh));
	if (!html.p)
		return -1;
	web_dup_render(w, f, v, &html);
	sh->text = malloc(html.len + 1);
	start = malloc((html.len / 2 + 1) * sizeof(*start));
	sh->s = malloc((html.len / 2 + 1) * sizeof(*sh->s));
	if (!sh->text || !start || !sh->s) {
		free(html.p);
		free(start);
		web_shingles_release(sh);
		return -1;
	}
	for (size_t i = 0; i < html.len; i++) {
		unsigned char c = (unsigned char)html.p[i];

		if (in_tag || c == '<') {
			in_tag = c != '>';
			continue;
		}
		if (!web_is_word(c)) {
			in_word = 0;
			continue;
		}
		if (!in_word) {
			if (tl)
				sh->text[tl++] = ' ';
			start[nw++] = tl;
			in_word = 1;
		}
		sh->text[tl++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	sh->text[tl] = '\0';
	for (size_t i = 0; nw && (i + WEB_SHINGLE_WORDS <= nw || i == 0); i++) {
		size_t last = i + WEB_SHINGLE_WORDS < nw ? i + WEB_SHINGLE_WORDS : nw;

		sh->s[sh->n].p = sh->text + start[i];
		sh->s[sh->n].len = (last < nw ? start[last] - 1 : tl) - start[i];
		sh->n++;
	}
	qsort(sh->s, sh->n, sizeof(*sh->s), web_span_cmp);
	for (size_t i = 0; i < sh->n; i++)
		if (out == 0 || web_span_cmp(&sh->s[out - 1], &sh->s[i]) != 0)
			sh->s[out++] = sh->s[i];
	sh->n = out;
	free(start);
	free(html.p);
	return 0;
}

static size_t web_shingles_common(const struct web_shingles *a, const struct web_shingles *b)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n && j < b->n) {
		int c = web_span_cmp(&a->s[i], &b->s[j]);

		n += c == 0;
		i += c <= 0;
		j += c >= 0;
	}
	return n;
}

int web_pairs(const struct web *w, FILE *out)
{
	struct web_shingles sh[WEB_DUP_VARIANTS];
	int rc = 0;

	memset(sh, 0, sizeof(sh));
	for (unsigned f = 0; f < w->dupes && rc == 0; f++) {
		for (unsigned v = 0; v < WEB_DUP_VARIANTS && rc == 0; v++)
			rc = web_shingles_page(w, f, v, &sh[v]);
		for (unsigned a = 0; a < WEB_DUP_VARIANTS && rc == 0; a++) {
			for (unsigned b = a + 1; b < WEB_DUP_VARIANTS && rc == 0; b++) {
				size_t c = web_shingles_common(&sh[a], &sh[b]);
				size_t u = sh[a].n + sh[b].n - c;

				if (fprintf(out, "http://%s:%u/dup/%u/%u.html\t"
					    "http://%s:%u/dup/%u/%u.html\t%.4f\n",
					    WEB_HN(w, web_dup_host(w, f, a)), w->port, f, a,
					    WEB_HN(w, web_dup_host(w, f, b)), w->port, f, b,
					    u ? (double)c / (double)u : 1.0) < 0)
					rc = -1;
			}
		}
		for (unsigned v = 0; v < WEB_DUP_VARIANTS; v++)
			web_shingles_release(&sh[v]);
	}
	return rc;
}

void web_seeds(const struct web *w, FILE *out)
{
	for (unsigned h = 0; h < w->hosts && h < 3; h++)
		fprintf(out, "http://%s:%u/\n", WEB_HN(w, h), w->port);
}

int web_lines(struct web *w, FILE *out)
{
	struct web_sb lines = { NULL, 0, 1u << 20 }, html = { NULL, 0, 0 };
	char path[64];
	int rc = 0;

	html.cap = (w->page_bytes ? (size_t)w->page_bytes * 2 : 0) + (1u << 20);
	lines.p = malloc(lines.cap);
	html.p = malloc(html.cap);
	if (!lines.p || !html.p) {
		free(lines.p);
		free(html.p);
		return -1;
	}
	w->lines = &lines;
	for (unsigned h = 0; h < w->hosts && rc == 0; h++) {
		for (unsigned j = 0; j <= w->pages && rc == 0; j++) {
			/* The home page, then /p/0.html ... */
			struct web_target t = { h, j ? WEB_PAGE : WEB_HOME, j ? j - 1 : 0 };
			char *line, *end;

			html.len = lines.len = 0;
			web_render(w, h, t.kind, t.k, &html);
			web_path(&t, path, sizeof(path));
			for (line = lines.p; rc == 0 && line < lines.p + lines.len; line = end + 1) {
				end = memchr(line, '\n', (size_t)(lines.p + lines.len - line));
				if (!end)
					break;
				if (fprintf(out, "http://%s:%u%s\t%.*s\n", WEB_HN(w, h), w->port, path,
					    (int)(end - line), line) < 0)
					rc = -1;
			}
		}
	}
	w->lines = NULL;
	free(lines.p);
	free(html.p);
	return rc;
}

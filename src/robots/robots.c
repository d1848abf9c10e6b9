/*
 * robots.c - RFC 9309 parsing and matching. See robots.h and docs/ROBOTS.md.
 *
 * The parser walks the body line by line and keeps two rule sets while it
 * goes: the rules of groups that name our agent, and the rules of "*" groups.
 * At the end one of them is kept. Rules are stored normalised (see
 * robots_escape_pattern) and sorted most specific first, so a query stops at
 * the first rule that matches.
 *
 * A pattern is split at its "*"s into literal segments: the first must be a
 * prefix of the path, each later one is found left-most after the previous
 * one, and with a trailing "$" the last must end the path. Taking the
 * left-most place is always safe, so there is no backtracking; with memmem
 * the work is linear in path and pattern length however many "*"s there are.
 */
#include "robots/robots.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

struct robots_rule {
	size_t off;        /* into the pattern arena */
	size_t len;        /* normalised length: the rule's specificity */
	int allow;
};

/* The rules and Crawl-delay of one kind of group (ours, or "*"). */
struct robots_set {
	struct buf pats;   /* pattern bytes, back to back */
	struct buf rules;  /* struct robots_rule[] */
	long delay_ms;
};

struct robots {
	struct robots_set set;
	enum robots_escapes esc;
	struct buf sitemap_text;  /* NUL-terminated strings, back to back */
	struct buf sitemap_offs;  /* size_t[] into sitemap_text */
};

static const char hexdig[] = "0123456789ABCDEF";

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static int is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static unsigned char to_upper(unsigned char c)
{
	return (c >= 'a' && c <= 'z') ? (unsigned char)(c - 'a' + 'A') : c;
}

static int is_token_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '-';
}

static int ieq(const unsigned char *a, size_t n, const char *b)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!b[i] || to_upper(a[i]) != to_upper((unsigned char)b[i]))
			return 0;
	return b[n] == '\0';
}

static void set_init(struct robots_set *s)
{
	buf_init(&s->pats);
	buf_init(&s->rules);
	s->delay_ms = -1;
}

static void set_release(struct robots_set *s)
{
	buf_release(&s->pats);
	buf_release(&s->rules);
}

static size_t set_count(const struct robots_set *s)
{
	return s->rules.len / sizeof(struct robots_rule);
}

static const struct robots_rule *set_rule(const struct robots_set *s, size_t i)
{
	return (const struct robots_rule *)(const void *)s->rules.p + i;
}

static unsigned hex_value(unsigned char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The unreserved character "%" h1 h2 stands for (RFC 3986 2.3), or 0. */
static unsigned char unreserved_escape(unsigned char h1, unsigned char h2)
{
	unsigned char c = (unsigned char)(hex_value(h1) << 4 | hex_value(h2));

	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '-' || c == '.' || c == '_' || c == '~')
		return c;
	return 0;
}

/* Appends the normal form of the escape "%" h[0] h[1], on either side:
 * its hex digits upper-cased, or for DECODED an unreserved character's
 * escape decoded. */
static void put_escape(struct buf *out, const unsigned char *h, enum robots_escapes esc)
{
	unsigned char u = esc == ROBOTS_ESCAPES_DECODED ? unreserved_escape(h[0], h[1]) : 0;

	if (u) {
		buf_addc(out, (char)u);
		return;
	}
	buf_addc(out, '%');
	buf_addc(out, (char)to_upper(h[0]));
	buf_addc(out, (char)to_upper(h[1]));
}

/*
 * Appends the normal form of p[0..n) to out: every "%xx" upper-cased (for
 * DECODED, decoded when it is an unreserved character), and the bytes
 * encode(c, last) says percent-encoded (last: c is p's last byte).
 */
static void normal_form(struct buf *out, const unsigned char *p, size_t n,
			enum robots_escapes esc, int (*encode)(unsigned char c, int last))
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == '%' && i + 2 < n && is_hex(p[i + 1]) && is_hex(p[i + 2])) {
			put_escape(out, p + i + 1, esc);
			i += 2;
		} else if (encode(c, i + 1 == n)) {
			buf_addc(out, '%');
			buf_addc(out, hexdig[c >> 4]);
			buf_addc(out, hexdig[c & 15]);
		} else {
			buf_addc(out, (char)c);
		}
	}
}

/* A pattern's bytes written escaped (see robots_escape_pattern): non-ASCII
 * ones, and a '$' that does not end it (a literal dollar sign). */
static int pattern_encodes(unsigned char c, int last)
{
	return c >= 0x80 || (c == '$' && !last);
}

/* Appends the normal form of pattern p[0..n) to out (robots_escape_pattern). */
static void escape_pattern(struct buf *out, const unsigned char *p, size_t n,
			   enum robots_escapes esc)
{
	normal_form(out, p, n, esc, pattern_encodes);
}

static void set_add_rule(struct robots_set *s, int allow,
			 const unsigned char *p, size_t n, enum robots_escapes esc)
{
	struct robots_rule rule;

	rule.off = s->pats.len;
	escape_pattern(&s->pats, p, n, esc);
	rule.len = s->pats.len - rule.off;
	rule.allow = allow;
	buf_add(&s->rules, &rule, sizeof(rule));
}

static void set_add_delay(struct robots_set *s, long ms)
{
	if (ms > s->delay_ms)
		s->delay_ms = ms;
}

/* Most specific first; of two equally long rules, Allow first. */
static int rule_cmp(const void *a, const void *b)
{
	const struct robots_rule *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	if (x->allow != y->allow)
		return x->allow ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void set_sort(struct robots_set *s)
{
	if (set_count(s) > 1)
		qsort(s->rules.p, set_count(s), sizeof(struct robots_rule),
		      rule_cmp);
}

/*
 * Crawl-delay value: decimal seconds, fraction allowed, at millisecond
 * resolution (truncated); anything after the number is ignored. -1 when the
 * value does not start with a number.
 */
static long parse_delay_ms(const unsigned char *p, size_t n)
{
	size_t i = 0;
	long sec = 0, ms = 0, scale = 100;
	int digits = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9') {
		if (sec <= ROBOTS_MAX_CRAWL_DELAY_MS / 1000)
			sec = sec * 10 + (p[i] - '0');
		digits++;
		i++;
	}
	if (i < n && p[i] == '.') {
		for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
			ms += (p[i] - '0') * scale;
			scale /= 10;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if (sec >= ROBOTS_MAX_CRAWL_DELAY_MS / 1000)
		return ROBOTS_MAX_CRAWL_DELAY_MS;
	return sec * 1000 + ms;
}

enum robots_key {
	KEY_UNKNOWN,
	KEY_USER_AGENT,
	KEY_ALLOW,
	KEY_DISALLOW,
	KEY_SITEMAP,
	KEY_CRAWL_DELAY,
};

/* Field names, case-insensitive, with a few common misspellings (RFC 9309
 * 2.2.4 lets a parser be lenient). */
static enum robots_key classify_key(const unsigned char *k, size_t n)
{
	static const struct {
		const char *name;
		enum robots_key key;
	} names[] = {
		{ "user-agent", KEY_USER_AGENT },
		{ "useragent", KEY_USER_AGENT },
		{ "user agent", KEY_USER_AGENT },
		{ "allow", KEY_ALLOW },
		{ "disallow", KEY_DISALLOW },
		{ "dissallow", KEY_DISALLOW },
		{ "dissalow", KEY_DISALLOW },
		{ "disalow", KEY_DISALLOW },
		{ "sitemap", KEY_SITEMAP },
		{ "site-map", KEY_SITEMAP },
		{ "crawl-delay", KEY_CRAWL_DELAY },
		{ "crawldelay", KEY_CRAWL_DELAY },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ieq(k, n, names[i].name))
			return names[i].key;
	return KEY_UNKNOWN;
}

struct robots_parser {
	const char *agent;
	size_t agent_len;
	struct robots_set ours, star;
	int named_seen;    /* some group names our agent */
	int star_seen;     /* some group is "*" */
	int in_agents;     /* the last group line was a user-agent line */
	int cur_ours;      /* the current group names our agent */
	int cur_star;      /* the current group is "*" */
	struct robots *r;
};

static void on_user_agent(struct robots_parser *ps, const unsigned char *v,
			  size_t n)
{
	size_t t = 0;

	if (!ps->in_agents) {
		ps->in_agents = 1;
		ps->cur_ours = 0;
		ps->cur_star = 0;
	}
	if (n >= 1 && v[0] == '*' && (n == 1 || is_ws(v[1]))) {
		ps->cur_star = 1;
		ps->star_seen = 1;
		return;
	}
	/* The product token is the leading [a-zA-Z_-]+ of the value: in
	 * "FooBot/1.2 (+http://...)" it is "FooBot". */
	while (t < n && is_token_char(v[t]))
		t++;
	if (t && t == ps->agent_len && ieq(v, t, ps->agent)) {
		ps->cur_ours = 1;
		ps->named_seen = 1;
	}
}

static void on_rule(struct robots_parser *ps, int allow,
		    const unsigned char *v, size_t n)
{
	ps->in_agents = 0;
	if (!n)
		return; /* an empty pattern matches nothing */
	if (ps->cur_ours)
		set_add_rule(&ps->ours, allow, v, n, ps->r->esc);
	if (ps->cur_star)
		set_add_rule(&ps->star, allow, v, n, ps->r->esc);
}

static void on_crawl_delay(struct robots_parser *ps, const unsigned char *v,
			   size_t n)
{
	long ms = parse_delay_ms(v, n);

	/* Not a group line: it neither ends the user-agent lines nor starts
	 * a new group (RFC 9309 2.2.4). */
	if (ms < 0)
		return;
	if (ps->cur_ours)
		set_add_delay(&ps->ours, ms);
	if (ps->cur_star)
		set_add_delay(&ps->star, ms);
}

static void on_sitemap(struct robots_parser *ps, const unsigned char *v,
		       size_t n)
{
	struct robots *r = ps->r;
	size_t off = r->sitemap_text.len;

	if (!n || r->sitemap_offs.len / sizeof(size_t) >= ROBOTS_MAX_SITEMAPS)
		return;
	buf_add(&r->sitemap_text, v, n);
	buf_addc(&r->sitemap_text, '\0');
	buf_add(&r->sitemap_offs, &off, sizeof(off));
}

static void trim(const unsigned char **p, size_t *n)
{
	while (*n && is_ws((*p)[0])) {
		(*p)++;
		(*n)--;
	}
	while (*n && is_ws((*p)[*n - 1]))
		(*n)--;
}

static void parse_line(struct robots_parser *ps, const unsigned char *line,
		       size_t n)
{
	const unsigned char *hash, *colon, *k, *v;
	size_t kn, vn;

	hash = memchr(line, '#', n);
	if (hash)
		n = (size_t)(hash - line);
	trim(&line, &n);
	if (!n)
		return;
	colon = memchr(line, ':', n);
	if (colon) {
		k = line;
		kn = (size_t)(colon - line);
		v = colon + 1;
		vn = n - kn - 1;
	} else {
		/* "disallow /": no colon, key and value apart by white space. */
		for (kn = 0; kn < n && !is_ws(line[kn]); kn++)
			;
		if (kn == n)
			return;
		k = line;
		v = line + kn;
		vn = n - kn;
	}
	trim(&k, &kn);
	trim(&v, &vn);
	switch (classify_key(k, kn)) {
	case KEY_USER_AGENT:
		on_user_agent(ps, v, vn);
		break;
	case KEY_ALLOW:
		on_rule(ps, 1, v, vn);
		break;
	case KEY_DISALLOW:
		on_rule(ps, 0, v, vn);
		break;
	case KEY_SITEMAP:
		on_sitemap(ps, v, vn);
		break;
	case KEY_CRAWL_DELAY:
		on_crawl_delay(ps, v, vn);
		break;
	case KEY_UNKNOWN:
		break;
	}
}

static struct robots *robots_alloc(void)
{
	struct robots *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	set_init(&r->set);
	buf_init(&r->sitemap_text);
	buf_init(&r->sitemap_offs);
	return r;
}

enum cr_err robots_parse(const void *body, size_t len, const char *agent,
			 struct robots **out)
{
	return robots_parse_with(body, len, agent, ROBOTS_ESCAPES_KEPT, out);
}

enum cr_err robots_parse_with(const void *body, size_t len, const char *agent,
			      enum robots_escapes esc, struct robots **out)
{
	static const unsigned char bom[3] = { 0xEF, 0xBB, 0xBF };
	const unsigned char *p = body;
	struct robots_parser ps;
	size_t i, start;
	int cut = 0;

	if (!agent || !out || (!body && len))
		return CR_ERR_ARG;
	memset(&ps, 0, sizeof(ps));
	ps.r = robots_alloc();
	if (!ps.r)
		return CR_ERR_NOMEM;
	ps.r->esc = esc;
	ps.agent = agent;
	ps.agent_len = strlen(agent);
	set_init(&ps.ours);
	set_init(&ps.star);

	if (len > ROBOTS_MAX_BYTES) {
		/* The line the cap cuts is dropped unless it ends right there:
		 * half an Allow pattern allows more than its author meant. */
		cut = p[ROBOTS_MAX_BYTES] != '\n' && p[ROBOTS_MAX_BYTES] != '\r';
		len = ROBOTS_MAX_BYTES;
	}
	/* A UTF-8 byte order mark, or the start of one, is skipped. */
	for (start = 0; start < len && start < 3 && p[start] == bom[start];)
		start++;
	for (i = start; i < len; i++) {
		if (p[i] != '\n' && p[i] != '\r')
			continue;
		parse_line(&ps, p + start, i - start);
		if (p[i] == '\r' && i + 1 < len && p[i + 1] == '\n')
			i++;
		start = i + 1;
	}
	if (start < len && !cut)
		parse_line(&ps, p + start, len - start);

	if (ps.named_seen) {
		ps.r->set = ps.ours;
		set_release(&ps.star);
	} else {
		ps.r->set = ps.star; /* empty when there is no "*" group */
		set_release(&ps.ours);
	}
	set_sort(&ps.r->set);
	*out = ps.r;
	return CR_OK;
}

struct robots *robots_new_allow_all(void)
{
	return robots_alloc();
}

struct robots *robots_new_disallow_all(void)
{
	struct robots *r = robots_alloc();

	if (r)
		set_add_rule(&r->set, 0, (const unsigned char *)"*", 1, ROBOTS_ESCAPES_KEPT);
	return r;
}

void robots_free(struct robots **r)
{
	if (!r || !*r)
		return;
	set_release(&(*r)->set);
	buf_release(&(*r)->sitemap_text);
	buf_release(&(*r)->sitemap_offs);
	free(*r);
	*r = NULL;
}

/*
 * The path in the form patterns are compared with: "%xx" upper-cased (for
 * DECODED, decoded when it is an unreserved character), and a literal "*"
 * or "$" written "%2A" / "%24", so that a rule spelling them percent-encoded
 * matches them (RFC 9309 2.2.3). Other bytes are kept as they are: the URL
 * is expected to be percent-encoded already.
 */
static int path_encodes(unsigned char c, int last)
{
	(void)last;
	return c == '*' || c == '$';
}

static void normalise_path(struct buf *out, const unsigned char *p, size_t n,
			   enum robots_escapes esc)
{
	normal_form(out, p, n, esc, path_encodes);
}

/* Does pattern pat[0..pn) match path s[0..n), starting at its first byte? */
static int pattern_match(const unsigned char *pat, size_t pn,
			 const unsigned char *s, size_t n)
{
	const unsigned char *star;
	size_t pos, seg;
	int anchored = 0;

	if (pn && pat[pn - 1] == '$') {
		anchored = 1;
		pn--;
	}
	/* The first segment is a prefix of the path. */
	star = memchr(pat, '*', pn);
	seg = star ? (size_t)(star - pat) : pn;
	if (seg > n || memcmp(pat, s, seg))
		return 0;
	if (!star)
		return anchored ? seg == n : 1;
	pos = seg;
	pat += seg + 1;
	pn -= seg + 1;
	/* Middle segments: left-most occurrence after the previous one. */
	while ((star = memchr(pat, '*', pn)) != NULL) {
		const unsigned char *hit;

		seg = (size_t)(star - pat);
		if (seg) {
			hit = memmem(s + pos, n - pos, pat, seg);
			if (!hit)
				return 0;
			pos = (size_t)(hit - s) + seg;
		}
		pat += seg + 1;
		pn -= seg + 1;
	}
	/* Last segment: anywhere after pos, or at the very end if anchored. */
	if (!pn)
		return 1;
	if (pn > n - pos)
		return 0;
	if (anchored)
		return memcmp(s + n - pn, pat, pn) == 0;
	return memmem(s + pos, n - pos, pat, pn) != NULL;
}

static int is_robots_txt(const char *p)
{
	static const char name[] = "/robots.txt";
	size_t n = sizeof(name) - 1;

	return !strncmp(p, name, n) && (p[n] == '\0' || p[n] == '?');
}

int robots_allowed(const struct robots *r, const char *path_query)
{
	const struct robots_set *s;
	const unsigned char *p;
	struct buf path;
	size_t i, n, count;
	int allowed = 1;

	if (!r)
		return 1;
	if (!path_query || !*path_query)
		path_query = "/";
	if (is_robots_txt(path_query))
		return 1;
	s = &r->set;
	count = set_count(s);
	if (!count)
		return 1;
	buf_init(&path);
	p = (const unsigned char *)path_query;
	n = strlen(path_query);
	if (strpbrk(path_query, "%*$")) {
		normalise_path(&path, p, n, r->esc);
		p = path.p;
		n = path.len;
	}
	for (i = 0; i < count; i++) {
		const struct robots_rule *rule = set_rule(s, i);

		if (pattern_match(s->pats.p + rule->off, rule->len, p, n)) {
			allowed = rule->allow;
			break;
		}
	}
	buf_release(&path);
	return allowed;
}

long robots_crawl_delay_ms(const struct robots *r)
{
	return r ? r->set.delay_ms : -1;
}

size_t robots_sitemap_count(const struct robots *r)
{
	return r ? r->sitemap_offs.len / sizeof(size_t) : 0;
}

const char *robots_sitemap(const struct robots *r, size_t i)
{
	size_t off;

	if (i >= robots_sitemap_count(r))
		return NULL;
	memcpy(&off, r->sitemap_offs.p + i * sizeof(size_t), sizeof(off));
	return (const char *)r->sitemap_text.p + off;
}

static int is_scheme_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

enum cr_err robots_url_path(const char *url, char *out, size_t cap)
{
	const char *p, *end, *q;
	size_t n, need;
	int slash;

	if (!url || !out)
		return CR_ERR_ARG;
	end = strchr(url, '#');
	if (!end)
		end = url + strlen(url);
	p = url;
	/* "scheme://" or a bare "//" introduces an authority. */
	for (q = p; q < end && is_scheme_char((unsigned char)*q); q++)
		;
	if (q > p && end - q >= 3 && !memcmp(q, "://", 3) &&
	    ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		p = q + 3;
	else if (end - p >= 2 && p[0] == '/' && p[1] == '/')
		p += 2;
	/* The authority (maybe empty) runs to the first "/" or "?". */
	while (p < end && *p != '/' && *p != '?')
		p++;
	n = (size_t)(end - p);
	slash = (n == 0 || *p != '/');
	need = n + (size_t)slash + 1;
	if (need > cap)
		return CR_ERR_LIMIT;
	if (slash)
		*out++ = '/';
	memcpy(out, p, n);
	out[n] = '\0';
	return CR_OK;
}

enum cr_err robots_escape_pattern(const char *pattern, char *out, size_t cap)
{
	struct buf b;

	if (!pattern || !out)
		return CR_ERR_ARG;
	buf_init(&b);
	escape_pattern(&b, (const unsigned char *)pattern, strlen(pattern), ROBOTS_ESCAPES_KEPT);
	if (b.len + 1 > cap) {
		buf_release(&b);
		return CR_ERR_LIMIT;
	}
	if (b.len)
		memcpy(out, b.p, b.len);
	out[b.len] = '\0';
	buf_release(&b);
	return CR_OK;
}

int robots_agent_valid(const char *agent)
{
	const char *p;

	if (!agent || !*agent)
		return 0;
	for (p = agent; *p; p++)
		if (!is_token_char((unsigned char)*p))
			return 0;
	return 1;
}

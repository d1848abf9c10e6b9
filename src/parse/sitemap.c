#include "parse/sitemap.h"

#include <ctype.h>
#include <libxml/xmlreader.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "http/head.h"

/* What one record (url, sitemap, item, entry) holds as it is read. */
enum field { F_NONE, F_LOC, F_LASTMOD, F_CHANGEFREQ, F_PRIORITY };
#define FIELD_CAP (URL_MAX_LEN * 2)

struct reading {
	const char *base;
	sitemap_entry_fn fn;
	void *arg;
	struct sitemap_stats *st;
	int in_record, stopped;
	enum field field;
	char text[FIELD_CAP + 1];   /* the open field's text */
	size_t text_len;
	int text_long;
	char loc[FIELD_CAP + 1], lastmod[64], changefreq[32], priority[32];
	int loc_long;
};

int64_t sitemap_w3c_time(const char *s)
{
	struct tm tm;
	int n = 0, y, mo = 1, d = 1, h = 0, mi = 0, sec = 0, tzh = 0, tzm = 0, sign = 0;
	long frac_us = 0;
	const char *p;

	while (isspace((unsigned char)*s))
		s++;
	if (sscanf(s, "%4d%n", &y, &n) != 1 || n != 4)
		return -1;
	p = s + 4;
	if (*p == '-' && sscanf(p, "-%2d%n", &mo, &n) == 1 && n == 3) {
		p += 3;
		if (*p == '-' && sscanf(p, "-%2d%n", &d, &n) == 1 && n == 3)
			p += 3;
	}
	if (*p == 'T') {
		if (sscanf(p, "T%2d:%2d%n", &h, &mi, &n) != 2 || n != 6)
			return -1;
		p += 6;
		if (*p == ':' && sscanf(p, ":%2d%n", &sec, &n) == 1 && n == 3) {
			p += 3;
			if (*p == '.') {
				long scale = 100000;

				for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
					frac_us += (*p - '0') * scale;
			}
		}
		if (*p == 'Z') {
			p++;
		} else if ((*p == '+' || *p == '-') &&
			   sscanf(p + 1, "%2d:%2d%n", &tzh, &tzm, &n) == 2 && n == 5) {
			sign = *p == '-' ? -1 : 1;
			p += 6;
		} else {
			return -1;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
	    tzh > 23 || tzm > 59 || y < 1970)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	return ((int64_t)timegm(&tm) - sign * (tzh * 3600 + tzm * 60)) * 1000000 + frac_us;
}

static const char *const changefreq_words[] = { "always", "hourly", "daily", "weekly",
						"monthly", "yearly", "never" };

const char *sitemap_changefreq_name(int cf)
{
	return cf >= 1 && cf <= CHANGEFREQ_NEVER ? changefreq_words[cf - 1] : "";
}

int sitemap_changefreq(const char *s)
{
	const char *const *words = changefreq_words;
	size_t i, n;

	while (isspace((unsigned char)*s))
		s++;
	for (n = strlen(s); n && isspace((unsigned char)s[n - 1]); n--)
		;
	for (i = 0; i < sizeof(changefreq_words) / sizeof(changefreq_words[0]); i++)
		if (n == strlen(words[i]) && !strncasecmp(s, words[i], n))
			return (int)i + 1;
	return CHANGEFREQ_NONE;
}

int sitemap_priority(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	while (isspace((unsigned char)*end))
		end++;
	if (end == s || *end || !(v >= 0.0 && v <= 1.0))
		return -1;
	return (int)(v * 1000.0 + 0.5);
}

/* Hands out one entry of raw URL loc; 1 to stop. */
static int emit(struct reading *r, const char *loc, int too_long, int is_sitemap)
{
	struct sitemap_entry e;
	const char *why;
	int64_t t;

	if (r->st->entries >= SITEMAP_MAX_URLS) {
		r->st->dropped++;
		return 0;
	}
	if (too_long || !*loc || url_canon(r->base, loc, e.url, sizeof(e.url), &why) != CR_OK) {
		r->st->invalid++;
		return 0;
	}
	t = r->lastmod[0] ? sitemap_w3c_time(r->lastmod) : -1;
	if (t < 0 && r->lastmod[0] && r->st->kind == SITEMAP_RSS)
		t = http_date(r->lastmod) > 0 ? http_date(r->lastmod) * 1000000 : -1;
	e.lastmod = t > 0 ? t : 0;
	e.priority = r->priority[0] ? sitemap_priority(r->priority) : -1;
	e.changefreq = sitemap_changefreq(r->changefreq);
	e.is_sitemap = is_sitemap;
	r->st->entries++;
	return r->fn(r->arg, &e) != 0;
}

/* The kind a root element names, or NONE. */
static enum sitemap_kind root_kind(const char *name)
{
	if (!strcmp(name, "urlset"))
		return SITEMAP_URLSET;
	if (!strcmp(name, "sitemapindex"))
		return SITEMAP_INDEX;
	if (!strcmp(name, "rss") || !strcmp(name, "RDF"))
		return SITEMAP_RSS;
	return !strcmp(name, "feed") ? SITEMAP_ATOM : SITEMAP_NONE;
}

/* The record element of a kind, and which element names which field. */
static const char *record_name(enum sitemap_kind k)
{
	static const char *const names[] = { "", "url", "sitemap", "item", "entry", "" };

	return names[k];
}

static enum field field_of(enum sitemap_kind k, const char *name)
{
	if (!strcmp(name, k == SITEMAP_RSS ? "link" : "loc"))
		return k == SITEMAP_ATOM ? F_NONE : F_LOC;
	if (!strcmp(name, k == SITEMAP_RSS ? "pubDate" : k == SITEMAP_ATOM ? "updated" : "lastmod"))
		return F_LASTMOD;
	if (k == SITEMAP_URLSET && !strcmp(name, "changefreq"))
		return F_CHANGEFREQ;
	if (k == SITEMAP_URLSET && !strcmp(name, "priority"))
		return F_PRIORITY;
	return F_NONE;
}

static void open_record(struct reading *r)
{
	r->in_record = 1;
	r->loc[0] = r->lastmod[0] = r->changefreq[0] = r->priority[0] = '\0';
	r->loc_long = 0;
}

/* An Atom entry's <link href=...>: the first of rel alternate (or none). */
static void atom_link(struct reading *r, xmlTextReaderPtr x)
{
	xmlChar *rel = xmlTextReaderGetAttribute(x, BAD_CAST "rel");
	xmlChar *href = xmlTextReaderGetAttribute(x, BAD_CAST "href");

	if (href && !r->loc[0] && (!rel || !strcmp((const char *)rel, "alternate"))) {
		r->loc_long = strlen((const char *)href) > FIELD_CAP;
		snprintf(r->loc, sizeof(r->loc), "%s", (const char *)href);
	}
	xmlFree(rel);
	xmlFree(href);
}

static void on_start(struct reading *r, xmlTextReaderPtr x, const char *name, int depth)
{
	enum sitemap_kind k = r->st->kind;

	if (depth == 0) {
		r->st->kind = root_kind(name);
		return;
	}
	if (k == SITEMAP_NONE)
		return;
	if (!r->in_record && !strcmp(name, record_name(k))) {
		open_record(r);
		if (xmlTextReaderIsEmptyElement(x))
			r->in_record = 0;
		return;
	}
	if (!r->in_record)
		return;
	if (k == SITEMAP_ATOM && !strcmp(name, "link")) {
		atom_link(r, x);
		return;
	}
	r->field = xmlTextReaderIsEmptyElement(x) ? F_NONE : field_of(k, name);
	r->text_len = 0;
	r->text_long = 0;
	r->text[0] = '\0';
}

static void on_text(struct reading *r, const char *t)
{
	size_t n = strlen(t);

	if (r->field == F_NONE)
		return;
	if (r->text_len + n > FIELD_CAP) {
		r->text_long = 1;
		return;
	}
	memcpy(r->text + r->text_len, t, n + 1);
	r->text_len += n;
}

static void on_end(struct reading *r, const char *name)
{
	enum sitemap_kind k = r->st->kind;

	if (r->field != F_NONE) {
		char *t = r->text;

		while (isspace((unsigned char)*t))
			t++;
		switch (r->field) {
		case F_LOC:
			snprintf(r->loc, sizeof(r->loc), "%s", t);
			r->loc_long = r->text_long;
			break;
		case F_LASTMOD:
			snprintf(r->lastmod, sizeof(r->lastmod), "%.63s", t);
			break;
		case F_CHANGEFREQ:
			snprintf(r->changefreq, sizeof(r->changefreq), "%.31s", t);
			break;
		case F_PRIORITY:
			snprintf(r->priority, sizeof(r->priority), "%.31s", t);
			break;
		case F_NONE:
			break;
		}
		r->field = F_NONE;
		return;
	}
	if (r->in_record && !strcmp(name, record_name(k))) {
		char *e = r->loc + strlen(r->loc);

		while (e > r->loc && isspace((unsigned char)e[-1]))
			*--e = '\0';
		r->in_record = 0;
		r->stopped = emit(r, r->loc, r->loc_long, k == SITEMAP_INDEX);
	}
}

static void quiet(void *arg, const xmlError *err)
{
	(void)arg;
	(void)err;
}

/* What libxml2 sends its generic handler whatever the options (a charset
 * conversion that fails): dropped, as html.c does. */
static void quiet_generic(void *arg, const char *fmt, ...)
{
	(void)arg;
	(void)fmt;
}

static void parse_xml(struct reading *r, const char *body, size_t len)
{
	xmlTextReaderPtr x;
	int rc;

	xmlSetGenericErrorFunc(NULL, quiet_generic);
	x = xmlReaderForMemory(body, (int)len, r->base, NULL,
			       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			       XML_PARSE_NOCDATA | XML_PARSE_RECOVER);
	if (!x) {
		r->st->malformed = 1;
		return;
	}
	xmlTextReaderSetStructuredErrorHandler(x, (xmlStructuredErrorFunc)quiet, NULL);
	while (!r->stopped && (rc = xmlTextReaderRead(x)) == 1) {
		int type = xmlTextReaderNodeType(x);
		const char *name = (const char *)xmlTextReaderConstLocalName(x);

		if (type == XML_READER_TYPE_ELEMENT && name)
			on_start(r, x, name, xmlTextReaderDepth(x));
		else if ((type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
			  type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE) &&
			 xmlTextReaderConstValue(x))
			on_text(r, (const char *)xmlTextReaderConstValue(x));
		else if (type == XML_READER_TYPE_END_ELEMENT && name)
			on_end(r, name);
		if (r->st->kind == SITEMAP_NONE && xmlTextReaderDepth(x) == 0 &&
		    type == XML_READER_TYPE_ELEMENT)
			break;   /* not a sitemap's root: nothing to read */
	}
	if (!r->stopped && rc < 0)
		r->st->malformed = 1;
	xmlFreeTextReader(x);
}

/* XML 1.0 forbids C0 controls but tab, CR and LF, and one makes libxml2
 * drop the whole chunk around it; they become blanks in a copy. */
static void parse_clean_xml(struct reading *r, const char *body, size_t len)
{
	size_t i;
	char *copy;

	for (i = 0; i < len; i++)
		if ((unsigned char)body[i] < 0x20 && body[i] != '\t' && body[i] != '\n' &&
		    body[i] != '\r')
			break;
	if (i == len) {
		parse_xml(r, body, len);
		return;
	}
	copy = malloc(len);
	if (!copy) {
		r->st->malformed = 1;
		return;
	}
	for (i = 0; i < len; i++)
		copy[i] = (unsigned char)body[i] < 0x20 && body[i] != '\t' && body[i] != '\n' &&
			  body[i] != '\r' ? ' ' : body[i];
	parse_xml(r, copy, len);
	free(copy);
}

/* Plain text: one URL a line (a cut body's last line is dropped). */
static void parse_text(struct reading *r, const char *body, size_t len, int cut)
{
	size_t pos = 0;

	r->st->kind = SITEMAP_TEXT;
	while (pos < len && !r->stopped) {
		const char *nl = memchr(body + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - body) - pos : len - pos;
		char line[URL_MAX_LEN + 1];
		size_t a = 0;

		if (!nl && cut) {
			r->st->dropped++;
			break;
		}
		while (a < n && isspace((unsigned char)body[pos + a]))
			a++;
		while (n > a && isspace((unsigned char)body[pos + n - 1]))
			n--;
		if (n > a) {
			/* Too long, or holding a NUL: not a URL. */
			int bad = n - a > URL_MAX_LEN || memchr(body + pos + a, '\0', n - a);

			snprintf(line, sizeof(line), "%.*s", bad ? 0 : (int)(n - a),
				 body + pos + a);
			r->lastmod[0] = r->changefreq[0] = r->priority[0] = '\0';
			r->stopped = emit(r, line, bad, 0);
		}
		pos += (nl ? (size_t)(nl - body) - pos + 1 : len - pos);
	}
}

void sitemap_parse(const char *body, size_t len, int cut, const char *base,
		   sitemap_entry_fn fn, void *arg, struct sitemap_stats *st)
{
	struct reading *r = calloc(1, sizeof(*r));
	size_t i = 0;

	memset(st, 0, sizeof(*st));
	if (!r) {
		st->malformed = 1;
		return;
	}
	r->base = base;
	r->fn = fn;
	r->arg = arg;
	r->st = st;
	if (len >= 3 && !memcmp(body, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && isspace((unsigned char)body[i]))
		i++;
	if (len > SITEMAP_MAX_BYTES) {
		len = SITEMAP_MAX_BYTES;
		cut = 1;
	}
	if (i < len && body[i] == '<')
		parse_clean_xml(r, body, len);
	else if (i < len)
		parse_text(r, body, len, cut);
	if (cut && st->kind != SITEMAP_TEXT && st->malformed)
		st->malformed = 0;   /* the cut, not the site, broke it off */
	if (!st->entries && !st->invalid && !st->dropped)
		st->kind = SITEMAP_NONE;
	free(r);
}

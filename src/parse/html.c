#include "parse/html.h"
#include "parse/charset.h"
#include "parse/css.h"
#include "parse/htmlmeta.h"
#include "url/url.h"
#include "util/hmap.h"
#include "util/utf8.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <xxhash.h>

#define HTML_MAX_BYTES (64u << 20)
#define TITLE_MAX 1024
/* Raw hrefs kept while the page streams by; more are counted as dropped. */
#define RAW_LINKS_MAX_BYTES (8u << 20)

/* The elements the walk treats apart (tag_kind_of). */
enum tag_kind {
	TAG_OTHER = 0, TAG_A, TAG_AREA, TAG_BASE, TAG_FRAME, TAG_LINK, TAG_META, TAG_TITLE,
	TAG_SCRIPT, TAG_STYLE, TAG_NOSCRIPT, TAG_TEMPLATE,
};

/*
 * What an element name is: its kind and its layout (enum flow, below),
 * looked up once per name and page. libxml2 hands every element name out
 * of its parser's dictionary, so the same name comes back as the same
 * pointer: a slot is found by the pointer, and one strcmp confirms it (a
 * name from elsewhere only misses), where the lookups it spares took a
 * dozen - they were 3 % of a crawl's CPU.
 */
#define TAG_SLOTS 64u
#define TAG_NAME_MAX 15u

struct tag_slot {
	const char *ptr;
	char name[TAG_NAME_MAX + 1];
	uint8_t kind, flow;
};

/*
 * The page is read with libxml2's SAX interface: no tree is built, so a page
 * costs its text and its links, not a node per element. Links are kept raw
 * until the end, because <base href> and <meta name="robots"> apply to the
 * whole document wherever they stand.
 */
struct walk {
	struct html_page *page;
	const char *page_url;
	const char *agent;
	size_t max_links;
	size_t cap;
	struct buf raw;         /* raw hrefs, each NUL-terminated */
	char *base;             /* first <base href>, raw; NULL if none */
	int skip_depth;         /* inside script, style, noscript, template */
	int pre_depth;          /* inside pre, listing, textarea: its line ends are kept */
	int in_break;           /* a line break is pending before the next word */
	struct boiler_line line; /* the words of the text's last line so far */
	struct buf lines;       /* the finished lines' (struct boiler_line each) */
	int in_title;
	int title_done;
	struct hmap seen;
	struct buf text;        /* visible text, whitespace collapsed */
	int in_space;           /* a blank is pending before the next word */
	struct buf anchors;     /* one NUL-terminated anchor text per raw href */
	struct buf cur;         /* the text of the open <a> */
	int in_a;               /* an <a> with a kept href is open */
	struct buf raw_embeds;  /* raw requisite URLs, each NUL-terminated */
	struct buf style;       /* the text of the open <style> */
	int in_style;
	struct hmap seen_embeds;
	size_t embeds_cap;
	struct htmlmeta *meta; /* or NULL: no metadata wanted */
	struct tag_slot tags[TAG_SLOTS]; /* what each element name is (tag_of) */
};

static int has_token(const char *list, const char *tok)
{
	size_t tl = strlen(tok);
	const char *p = list;

	while (*p) {
		size_t n;

		while (*p && (isspace((unsigned char)*p) || *p == ','))
			p++;
		n = 0;
		while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ',')
			n++;
		if (n == tl && !strncasecmp(p, tok, tl))
			return 1;
		p += n;
	}
	return 0;
}

/*
 * A <link> whose rel names another page of the site to read: an alternate
 * or canonical version, or a place in a sequence of pages (HTML 4's
 * navigation link types, which documentation generators write: next,
 * prev, up, contents, index...). Heritrix and Nutch take every <link
 * href>; stylesheets, icons and preloads are requisites here (embeds), and
 * search, edit or pingback pages are no page of the site's text.
 */
static int page_rel(const char *rel)
{
	static const char *const kinds[] = {
		"alternate", "canonical", "next", "prev", "previous", "first", "last", "start",
		"up", "contents", "toc", "index", "chapter", "section", "subsection",
		"appendix", "glossary",
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (has_token(rel, kinds[i]))
			return 1;
	return 0;
}

static const char *attr(const xmlChar **atts, const char *name)
{
	size_t i;

	for (i = 0; atts && atts[i]; i += 2)
		if (!strcasecmp((const char *)atts[i], name))
			return atts[i + 1] ? (const char *)atts[i + 1] : "";
	return NULL;
}

static enum tag_kind tag_kind_of(const char *name)
{
	static const struct { const char *name; enum tag_kind kind; } kinds[] = {
		{ "a", TAG_A }, { "area", TAG_AREA }, { "base", TAG_BASE },
		{ "frame", TAG_FRAME }, { "iframe", TAG_FRAME }, { "link", TAG_LINK },
		{ "meta", TAG_META }, { "noscript", TAG_NOSCRIPT }, { "script", TAG_SCRIPT },
		{ "style", TAG_STYLE }, { "template", TAG_TEMPLATE }, { "title", TAG_TITLE },
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, kinds[i].name))
			return kinds[i].kind;
	return TAG_OTHER;
}

static int is_skip(enum tag_kind k)
{
	return k == TAG_SCRIPT || k == TAG_STYLE || k == TAG_NOSCRIPT || k == TAG_TEMPLATE;
}

/*
 * How an element lays its text out, as a browser's default style sheet
 * does: a block (p, li, tr, h1, div...) starts and ends a line; br ends
 * one; a gap (a table cell, an image, a form control) separates the words
 * on either side; an inline element (span, b, a...) joins its text to its
 * neighbours', so "<b>bold</b>face" stays one word, as shown.
 */
enum flow { FLOW_INLINE = 0, FLOW_BLOCK, FLOW_BREAK, FLOW_GAP, FLOW_PRE };

struct flow_tag {
	const char *name;
	enum flow flow;
};

/* Sorted by name (bsearch). */
static const struct flow_tag flow_tags[] = {
	{ "address", FLOW_BLOCK }, { "article", FLOW_BLOCK }, { "aside", FLOW_BLOCK },
	{ "audio", FLOW_GAP }, { "blockquote", FLOW_BLOCK }, { "body", FLOW_BLOCK },
	{ "br", FLOW_BREAK }, { "button", FLOW_GAP }, { "canvas", FLOW_GAP },
	{ "caption", FLOW_BLOCK }, { "center", FLOW_BLOCK }, { "dd", FLOW_BLOCK },
	{ "details", FLOW_BLOCK }, { "dialog", FLOW_BLOCK }, { "dir", FLOW_BLOCK },
	{ "div", FLOW_BLOCK }, { "dl", FLOW_BLOCK }, { "dt", FLOW_BLOCK },
	{ "embed", FLOW_GAP }, { "fieldset", FLOW_BLOCK }, { "figcaption", FLOW_BLOCK },
	{ "figure", FLOW_BLOCK }, { "footer", FLOW_BLOCK }, { "form", FLOW_BLOCK },
	{ "frame", FLOW_BLOCK }, { "frameset", FLOW_BLOCK }, { "h1", FLOW_BLOCK },
	{ "h2", FLOW_BLOCK }, { "h3", FLOW_BLOCK }, { "h4", FLOW_BLOCK }, { "h5", FLOW_BLOCK },
	{ "h6", FLOW_BLOCK }, { "header", FLOW_BLOCK }, { "hgroup", FLOW_BLOCK },
	{ "hr", FLOW_BREAK }, { "html", FLOW_BLOCK }, { "iframe", FLOW_GAP },
	{ "img", FLOW_GAP }, { "input", FLOW_GAP }, { "legend", FLOW_BLOCK },
	{ "li", FLOW_BLOCK }, { "listing", FLOW_PRE }, { "main", FLOW_BLOCK },
	{ "menu", FLOW_BLOCK }, { "meter", FLOW_GAP }, { "nav", FLOW_BLOCK },
	{ "object", FLOW_GAP }, { "ol", FLOW_BLOCK }, { "optgroup", FLOW_BLOCK },
	{ "option", FLOW_BLOCK }, { "p", FLOW_BLOCK }, { "pre", FLOW_PRE },
	{ "progress", FLOW_GAP }, { "section", FLOW_BLOCK }, { "select", FLOW_GAP },
	{ "summary", FLOW_BLOCK }, { "table", FLOW_BLOCK }, { "tbody", FLOW_BLOCK },
	{ "td", FLOW_GAP }, { "textarea", FLOW_PRE }, { "tfoot", FLOW_BLOCK },
	{ "th", FLOW_GAP }, { "thead", FLOW_BLOCK }, { "tr", FLOW_BLOCK },
	{ "ul", FLOW_BLOCK }, { "video", FLOW_GAP }, { "xmp", FLOW_PRE },
};

static int flow_cmp(const void *a, const void *b)
{
	return strcmp(((const struct flow_tag *)a)->name, ((const struct flow_tag *)b)->name);
}

static enum flow flow_of(const char *name)
{
	struct flow_tag key = { name, FLOW_INLINE };
	const struct flow_tag *t = bsearch(&key, flow_tags,
					   sizeof(flow_tags) / sizeof(flow_tags[0]),
					   sizeof(flow_tags[0]), flow_cmp);

	return t ? t->flow : FLOW_INLINE;
}

/* The slot of element name, filled on first sight. */
static const struct tag_slot *tag_of(struct walk *w, const char *name)
{
	struct tag_slot *t = &w->tags[((uintptr_t)name >> 3) % TAG_SLOTS];
	size_t n;

	if (t->ptr == name && !strcmp(t->name, name))
		return t;
	t->kind = (uint8_t)tag_kind_of(name);
	t->flow = (uint8_t)flow_of(name);
	if ((n = strlen(name)) <= TAG_NAME_MAX) {
		memcpy(t->name, name, n + 1);
		t->ptr = name;
	} else {
		t->ptr = NULL;   /* no element the walk knows is that long */
	}
	return t;
}

/* The layout an element's start (or end) asks of the text around it. */
static void flow_edge(struct walk *w, enum flow flow, int start)
{
	switch (flow) {
	case FLOW_INLINE:
		break;
	case FLOW_PRE:
		w->pre_depth += start ? 1 : (w->pre_depth > 0 ? -1 : 0);
		/* fall through */
	case FLOW_BLOCK:
		w->in_break = 1;
		break;
	case FLOW_BREAK:
		w->in_break |= start;
		break;
	case FLOW_GAP:
		w->in_space = 1;
		break;
	}
}

/* Ends the anchor text of the open <a>, if any. */
static void close_anchor(struct walk *w)
{
	if (!w->in_a)
		return;
	while (w->cur.len && w->cur.p[w->cur.len - 1] == ' ')
		w->cur.len--;
	buf_add(&w->anchors, w->cur.p, w->cur.len);
	buf_addc(&w->anchors, '\0');
	w->in_a = 0;
}

static void keep_raw(struct walk *w, const char *href, int is_a)
{
	size_t n = strlen(href);

	close_anchor(w);
	if (w->raw.len + n + 1 > RAW_LINKS_MAX_BYTES) {
		w->page->dropped++;
		return;
	}
	buf_add(&w->raw, href, n + 1);
	if (is_a) {
		w->in_a = 1;
		w->cur.len = 0;
	} else {
		buf_addc(&w->anchors, '\0');
	}
}

/* ---- requisites ---- */

static void keep_embed(struct walk *w, const char *url)
{
	size_t n = strlen(url);

	while (n && isspace((unsigned char)*url))
		url++, n--;
	if (!n || w->raw_embeds.len + n + 1 > RAW_LINKS_MAX_BYTES)
		return;
	buf_add(&w->raw_embeds, url, n + 1);
}

static void on_css_url(void *arg, const char *url)
{
	keep_embed(arg, url);
}

/* The URLs of a srcset: candidates split at commas, each a URL and its
 * descriptors (HTML's "parse a srcset attribute", without the
 * descriptors' meaning). */
static void keep_srcset(struct walk *w, const char *v)
{
	char u[URL_MAX_LEN + 1];

	while (*v) {
		size_t n = 0;

		while (*v && (isspace((unsigned char)*v) || *v == ','))
			v++;
		while (v[n] && !isspace((unsigned char)v[n]))
			n++;
		if (!n)
			break;
		if (n <= URL_MAX_LEN) {
			size_t k = n;

			while (k && v[k - 1] == ',')
				k--;
			memcpy(u, v, k);
			u[k] = '\0';
			keep_embed(w, u);
		}
		v += n;
		if (v[-1] == ',')
			continue;   /* "a.jpg, b.jpg 2x": no descriptors, the next follows */
		/* The descriptors, up to a comma outside parentheses. */
		for (int depth = 0; *v && (depth || *v != ','); v++)
			depth += *v == '(' ? 1 : *v == ')' && depth ? -1 : 0;
	}
}

static int embed_rel(const char *rel)
{
	static const char *const rels[] = { "stylesheet", "icon", "apple-touch-icon",
					    "apple-touch-icon-precomposed", "mask-icon",
					    "preload", "modulepreload" };
	size_t i;

	for (i = 0; rel && i < sizeof(rels) / sizeof(rels[0]); i++)
		if (has_token(rel, rels[i]))
			return 1;
	return 0;
}

/* The attribute of element name that names a requisite (a second one in
 * *also: video's src beside its poster), or NULL; srcset is read apart.
 * Switched on the first letter: most elements of a page are none of these. */
static const char *embed_attr(const char *name, const char **also)
{
	*also = NULL;
	switch (name[0]) {
	case 'a': return !strcmp(name, "audio") ? "src" : NULL;
	case 'b': return !strcmp(name, "body") ? "background" : NULL;
	case 'e': return !strcmp(name, "embed") ? "src" : NULL;
	case 'i': return !strcmp(name, "img") || !strcmp(name, "input") ? "src" : NULL;
	case 'o': return !strcmp(name, "object") ? "data" : NULL;
	case 's': return !strcmp(name, "source") || !strcmp(name, "script") ? "src" : NULL;
	case 't':
		if (!strcmp(name, "track"))
			return "src";
		return !strcmp(name, "table") || !strcmp(name, "td") || !strcmp(name, "th")
		       ? "background" : NULL;
	case 'v':
		if (strcmp(name, "video"))
			return NULL;
		*also = "src";
		return "poster";
	default: return NULL;
	}
}

/* The requisites an element names. */
static void element_embeds(struct walk *w, const char *name, const xmlChar **atts)
{
	const char *v, *also, *style = attr(atts, "style"), *a = embed_attr(name, &also);

	int srcset = (name[0] == 'i' && !strcmp(name, "img")) ||
		     (name[0] == 's' && !strcmp(name, "source"));

	if (srcset && (v = attr(atts, "srcset")) != NULL)
		keep_srcset(w, v);
	if (a && !strcmp(name, "input") && !((v = attr(atts, "type")) && !strcasecmp(v, "image")))
		a = NULL;
	if (a && (v = attr(atts, a)) != NULL)
		keep_embed(w, v);
	if (also && (v = attr(atts, also)) != NULL)
		keep_embed(w, v);
	if (name[0] == 'l' && !strcmp(name, "link") && embed_rel(attr(atts, "rel")) &&
	    (v = attr(atts, "href")) != NULL)
		keep_embed(w, v);
	if (style)
		css_urls(style, strlen(style), w->max_links, on_css_url, w);
}

/*
 * <meta http-equiv="refresh" content="5; url=next.html">: where a browser
 * goes next is a link of the page, as Heritrix and Nutch take it. The
 * content is read as the HTML standard's shared declarative refresh steps
 * do: a time, then ";" or "," (or blanks), an optional "url=", and the URL,
 * quoted or to the end. No URL: the page reloads itself - no link.
 */
static void refresh_link(struct walk *w, const char *c)
{
	char q = 0, buf[URL_MAX_LEN + 1];
	size_t n;

	c += strspn(c, " \t\n\r\f");
	if (!(n = strspn(c, "0123456789.")))
		return;   /* no time: not a refresh */
	c += n;
	if (*c && !strchr(";, \t\n\r\f", *c))
		return;   /* "5abc": not a refresh either */
	c += strspn(c, " \t\n\r\f");
	if (*c == ';' || *c == ',')
		c++;
	c += strspn(c, " \t\n\r\f");
	if (!strncasecmp(c, "url", 3)) {
		const char *e = c + 3 + strspn(c + 3, " \t\n\r\f");

		if (*e == '=')
			c = e + 1 + strspn(e + 1, " \t\n\r\f");
	}
	if (*c == '\'' || *c == '"')
		q = *c++;
	n = q ? strcspn(c, (char[]){ q, 0 }) : strlen(c);
	while (!q && n && strchr(" \t\n\r\f", c[n - 1]))
		n--;
	if (!n || n > URL_MAX_LEN)
		return;
	memcpy(buf, c, n);
	buf[n] = '\0';
	keep_raw(w, buf, 0);
}

static void on_start(void *ctx, const xmlChar *tag, const xmlChar **atts)
{
	struct walk *w = ctx;
	const char *name = (const char *)tag;
	const char *v = NULL;
	const struct tag_slot *t;

	if (!name)
		return;
	t = tag_of(w, name);
	if (w->meta)
		htmlmeta_start(w->meta, name, (const char *const *)atts);
	element_embeds(w, name, atts);
	flow_edge(w, (enum flow)t->flow, 1);
	if (is_skip(t->kind)) {
		w->skip_depth++;
		if (t->kind == TAG_STYLE) {
			w->in_style = 1;
			w->style.len = 0;
		}
		return;
	}
	switch (t->kind) {
	case TAG_TITLE:
		w->in_title = !w->title_done;
		break;
	case TAG_A:
	case TAG_AREA: {
		const char *rel = attr(atts, "rel");

		v = attr(atts, "href");
		if (v && rel && has_token(rel, "nofollow")) {
			w->page->nofollow++;
			v = NULL;
		}
		break;
	}
	case TAG_LINK: {
		const char *rel = attr(atts, "rel");

		if (rel && page_rel(rel))
			v = attr(atts, "href");
		break;
	}
	case TAG_FRAME:
		v = attr(atts, "src");
		break;
	case TAG_BASE: {
		const char *h = attr(atts, "href");

		if (h && !w->base)
			w->base = strdup(h);
		break;
	}
	case TAG_META: {
		const char *mn = attr(atts, "name"), *content = attr(atts, "content");
		const char *he = attr(atts, "http-equiv");

		if (mn && content && (!strcasecmp(mn, "robots") || !strcasecmp(mn, w->agent))) {
			if (has_token(content, "nofollow") || has_token(content, "none"))
				w->page->meta_nofollow = 1;
			if (has_token(content, "noindex") || has_token(content, "none"))
				w->page->meta_noindex = 1;
		}
		if (he && content && !strcasecmp(he, "refresh"))
			refresh_link(w, content);
		break;
	}
	default:
		break;
	}
	if (v)
		keep_raw(w, v, t->kind == TAG_A);
}

static void on_end(void *ctx, const xmlChar *tag)
{
	struct walk *w = ctx;
	const char *name = (const char *)tag;
	const struct tag_slot *t;

	if (!name)
		return;
	t = tag_of(w, name);
	if (w->meta)
		htmlmeta_end(w->meta, name);
	flow_edge(w, (enum flow)t->flow, 0);
	if (is_skip(t->kind)) {
		if (w->skip_depth > 0)
			w->skip_depth--;
		if (t->kind == TAG_STYLE && w->in_style) {
			css_urls((const char *)w->style.p, w->style.len, w->max_links, on_css_url,
				 w);
			w->in_style = 0;
		}
	} else if (t->kind == TAG_TITLE && w->in_title) {
		w->in_title = 0;
		w->title_done = 1;
	} else if (t->kind == TAG_A) {
		close_anchor(w);
	}
}

static void add_title(struct walk *w, const char *s, int n)
{
	struct buf *t = &w->page->title;
	int i;

	for (i = 0; i < n && t->len < TITLE_MAX; i++) {
		if (isspace((unsigned char)s[i])) {
			if (t->len && t->p[t->len - 1] != ' ')
				buf_addc(t, ' ');
			continue;
		}
		buf_addc(t, s[i]);
	}
}

static void on_text(void *ctx, const xmlChar *ch, int len)
{
	struct walk *w = ctx;
	const char *s = (const char *)ch;
	int i = 0;

	if (w->in_title) {
		add_title(w, s, len);
		return;
	}
	if (w->in_style && w->style.len < RAW_LINKS_MAX_BYTES)
		buf_add(&w->style, s, (size_t)len);
	if (w->skip_depth > 0)
		return;
	while (i < len) {
		int n;

		if (i + 1 < len && (unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] == 0xa0) {
			w->in_space = 1;   /* U+00A0, a no-break space: a blank */
			i += 2;
			continue;
		}
		if (isspace((unsigned char)s[i])) {
			/* In a pre, a line end is one. */
			if (w->pre_depth && s[i] == '\n')
				w->in_break = 1;
			else
				w->in_space = 1;
			i++;
			continue;
		}
		for (n = 1; i + n < len && !isspace((unsigned char)s[i + n]) &&
			    !((unsigned char)s[i + n] == 0xc2 && i + n + 1 < len &&
			      (unsigned char)s[i + n + 1] == 0xa0); n++)
			;
		if (w->meta)
			htmlmeta_word(w->meta, s + i, (size_t)n, w->in_space || w->in_break);
		if ((w->in_space || w->in_break) && w->text.len)
			buf_addc(&w->text, w->in_break ? '\n' : ' ');
		if (w->in_break && w->line.words) {
			buf_add(&w->lines, &w->line, sizeof(w->line));
			memset(&w->line, 0, sizeof(w->line));
		}
		w->line.words++;
		w->line.link_words += w->in_a != 0;
		if (w->in_a && w->cur.len + (size_t)n + 1 <= HTML_ANCHOR_MAX) {
			if ((w->in_space || w->in_break) && w->cur.len)
				buf_addc(&w->cur, ' ');
			buf_add(&w->cur, s + i, (size_t)n);
		}
		w->in_space = w->in_break = 0;
		buf_add(&w->text, s + i, (size_t)n);
		i += n;
	}
}

/* Keeps a link left out, for the decision log. */
static void refuse(struct html_page *p, const char *url, enum html_refusal why)
{
	p->refused[p->nrefused] = strndup(url, URL_MAX_LEN);
	if (!p->refused[p->nrefused])
		abort();
	p->refused_why[p->nrefused++] = (uint8_t)why;
}

static void add_link(struct walk *w, const char *base, const char *href, const char *anchor)
{
	char out[URL_MAX_LEN + 1];
	const char *why;
	void **slot;

	enum cr_err e;

	/* Past the cap nothing is resolved or remembered (but the first few,
	 * for the decision log): a page of a million links costs no more
	 * than one of max_links. */
	if (w->page->nlinks >= w->max_links) {
		w->page->dropped++;
		if (w->page->nrefused >= HTML_REFUSED_MAX)
			return;
		e = url_canon(base, href, out, sizeof(out), &why);
		if (e == CR_OK)
			refuse(w->page, out, HTML_MAX_LINKS);
		else if (e == CR_ERR_LIMIT)
			refuse(w->page, href, HTML_TOO_LONG);
		return;
	}
	e = url_canon(base, href, out, sizeof(out), &why);
	if (e != CR_OK) {
		w->page->dropped++;
		if (e == CR_ERR_LIMIT && w->page->nrefused < HTML_REFUSED_MAX)
			refuse(w->page, href, HTML_TOO_LONG);
		return;
	}
	slot = hmap_put(&w->seen, out, strlen(out));
	if (*slot)
		return;
	*slot = (void *)1;
	if (w->page->nlinks == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		char **nl = realloc(w->page->links, cap * sizeof(*nl));
		char **na = nl ? realloc(w->page->anchors, cap * sizeof(*na)) : NULL;

		if (nl)
			w->page->links = nl;
		if (!nl || !na)
			abort();
		w->page->anchors = na;
		w->cap = cap;
	}
	w->page->links[w->page->nlinks] = strdup(out);
	w->page->anchors[w->page->nlinks] = strdup(anchor);
	if (!w->page->links[w->page->nlinks] || !w->page->anchors[w->page->nlinks])
		abort();
	w->page->nlinks++;
}

/* Resolves the kept requisites: canonical, each once, at most max_links. */
static void resolve_embeds(struct walk *w, const char *base)
{
	struct html_page *p = w->page;
	char out[URL_MAX_LEN + 1];
	const char *why;
	size_t off = 0;

	while (off < w->raw_embeds.len && p->nembeds < w->max_links) {
		const char *raw = (const char *)w->raw_embeds.p + off;
		void **slot;

		off += strlen(raw) + 1;
		if (url_canon(base, raw, out, sizeof(out), &why) != CR_OK)
			continue;
		slot = hmap_put(&w->seen_embeds, out, strlen(out));
		if (*slot)
			continue;
		*slot = (void *)1;
		if (p->nembeds == w->embeds_cap) {
			size_t cap = w->embeds_cap ? w->embeds_cap * 2 : 16;
			char **ne = realloc(p->embeds, cap * sizeof(*ne));

			if (!ne)
				abort();
			p->embeds = ne;
			w->embeds_cap = cap;
		}
		if (!(p->embeds[p->nembeds++] = strdup(out)))
			abort();
	}
}

/* Resolves the kept hrefs against the document's base. */
static void resolve_links(struct walk *w)
{
	char base[URL_MAX_LEN + 1];
	const char *why;
	size_t off = 0, aoff = 0;

	close_anchor(w);
	memcpy(base, w->page_url, strlen(w->page_url) + 1);
	if (w->base && url_resolve(w->page_url, w->base, base, sizeof(base), &why) != CR_OK)
		memcpy(base, w->page_url, strlen(w->page_url) + 1);
	while (off < w->raw.len) {
		const char *href = (const char *)w->raw.p + off;
		const char *anchor = aoff < w->anchors.len ? (const char *)w->anchors.p + aoff : "";

		off += strlen(href) + 1;
		aoff += strlen(anchor) + 1;
		if (w->page->meta_nofollow)
			w->page->nofollow++;
		else
			add_link(w, base, href, anchor);
	}
	resolve_embeds(w, base);
}

void html_page_languages(struct html_page *p)
{
	struct buf all;

	buf_init(&all);
	buf_add(&all, p->title.p, p->title.len);
	buf_addc(&all, '\n');
	buf_add(&all, p->text.p, p->text.len);
	lang_detect((const char *)all.p, all.len, &p->lang);
	buf_release(&all);
}

static void on_cdata(void *ctx, const xmlChar *ch, int len)
{
	/* The HTML parser hands script and style bodies over as CDATA. */
	on_text(ctx, ch, len);
}

enum cr_err html_extract(const void *body, size_t len, const char *charset,
			 const char *page_url, const char *agent, size_t max_links,
			 struct html_page *out)
{
	return html_extract_meta(body, len, charset, page_url, agent, max_links, out, NULL);
}

/* libxml2 reports some errors - a charset conversion that fails, above
 * all - to its generic handler whatever the parse options say: on stderr,
 * unprefixed, once per bad page. The page's outcome is the parse's own;
 * these are dropped. */
static void quiet_generic(void *arg, const char *fmt, ...)
{
	(void)arg;
	(void)fmt;
}

/* (libxml2 2.12 made the error const: the handler is cast, as sitemap.c's) */
static void quiet_structured(void *arg, const xmlError *err)
{
	(void)arg;
	(void)err;
}

/* The walk over one page, into out (and meta, or NULL). */
static void walk_init(struct walk *w, struct html_page *out, const char *page_url,
		      const char *agent, size_t max_links, struct htmlmeta *meta)
{
	memset(w, 0, sizeof(*w));
	w->page = out;
	w->page_url = page_url;
	w->agent = agent;
	w->max_links = max_links;
	w->meta = meta;
	hmap_init(&w->seen);
	buf_init(&w->text);
	buf_init(&w->lines);
	buf_init(&w->raw);
	buf_init(&w->anchors);
	buf_init(&w->cur);
	buf_init(&w->raw_embeds);
	buf_init(&w->style);
	hmap_init(&w->seen_embeds);
}

/* What the walk found, into its page: links, text, lines and their
 * boilerplate, languages; the rest released. */
static void walk_finish(struct walk *w)
{
	struct html_page *out = w->page;

	while (out->title.len && out->title.p[out->title.len - 1] == ' ')
		out->title.len--;
	resolve_links(w);
	out->text_digest = XXH3_64bits(w->text.p, w->text.len);
	out->text = w->text;
	if (w->line.words)
		buf_add(&w->lines, &w->line, sizeof(w->line));
	out->nlines = (uint32_t)(w->lines.len / sizeof(struct boiler_line));
	if (out->nlines && !(out->boiler = malloc(out->nlines)))
		abort();
	boiler_classify((const struct boiler_line *)w->lines.p, out->nlines, out->boiler);
	buf_release(&w->lines);
	html_page_languages(out);
	buf_release(&w->raw);
	buf_release(&w->anchors);
	buf_release(&w->cur);
	buf_release(&w->raw_embeds);
	buf_release(&w->style);
	free(w->base);
	hmap_release(&w->seen);
	hmap_release(&w->seen_embeds);
}

/*
 * The whole body at once, by libxml2's pull parser: its push parser
 * (htmlParseChunk) stops at </html> and drops what follows, where a browser
 * reads on (docs/REAL_PAGES.md). len fits an int: at most HTML_MAX_BYTES.
 */
static enum cr_err parse_body(struct walk *w, const void *body, size_t len, const char *charset)
{
	int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
		   HTML_PARSE_NONET | HTML_PARSE_COMPACT;
	htmlSAXHandler sax;
	htmlParserCtxtPtr ctxt;
	char label[32] = "";

	memset(&sax, 0, sizeof(sax));
	sax.startElement = on_start;
	sax.endElement = on_end;
	sax.characters = on_text;
	sax.ignorableWhitespace = on_text;
	sax.cdataBlock = on_cdata;
	/* per thread: set where the parse runs */
	xmlSetGenericErrorFunc(NULL, quiet_generic);
	xmlSetStructuredErrorFunc(NULL, (xmlStructuredErrorFunc)quiet_structured);
	charset = charset_for_parser(charset, body, &len, label, sizeof(label));
	charset_read_in(charset, label, body, len, w->page->charset, sizeof(w->page->charset));
	ctxt = htmlCreateMemoryParserCtxt(body, (int)len);
	if (!ctxt)
		return CR_ERR_NOMEM;
	memcpy(ctxt->sax, &sax, sizeof(sax));
	ctxt->userData = w;
	htmlCtxtUseOptions(ctxt, opts);
	if (charset && charset[0]) {
		/* An encoding libxml2 does not know: let it detect one. */
		xmlCharEncodingHandlerPtr h = xmlFindCharEncodingHandler(
			charset_is_latin1(charset) ? "WINDOWS-1252" : charset);

		if (h)
			xmlSwitchToEncoding(ctxt, h);
	}
	htmlParseDocument(ctxt);
	htmlFreeParserCtxt(ctxt);
	return CR_OK;
}

enum cr_err html_extract_meta(const void *body, size_t len, const char *charset,
			      const char *page_url, const char *agent, size_t max_links,
			      struct html_page *out, struct htmlmeta *meta)
{
	struct walk w;
	struct buf clean;
	enum cr_err e;

	memset(out, 0, sizeof(*out));
	buf_init(&out->title);
	if (len > HTML_MAX_BYTES)
		len = HTML_MAX_BYTES;
	if (strlen(page_url) > URL_MAX_LEN)
		return CR_ERR_LIMIT;
	buf_init(&clean);
	charset_drop_nuls(&body, &len, charset, &clean);
	walk_init(&w, out, page_url, agent, max_links, meta);
	e = len > 0 ? parse_body(&w, body, len, charset) : CR_OK;
	buf_release(&clean);
	walk_finish(&w);
	if (e != CR_OK)
		html_page_release(out);
	return e;
}

void html_page_text(const struct html_page *p, struct buf *out)
{
	buf_add(out, p->title.p, p->title.len);
	buf_addc(out, ' ');
	buf_add(out, p->text.p, p->text.len);
}

void html_page_keep_links(struct html_page *p, uint32_t n)
{
	while (p->nlinks > n) {
		p->nlinks--;
		free(p->links[p->nlinks]);
		free(p->anchors[p->nlinks]);
	}
}

void html_page_release(struct html_page *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->nlinks; i++) {
		free(p->links[i]);
		free(p->anchors[i]);
	}
	free(p->links);
	free(p->anchors);
	for (i = 0; i < p->nembeds; i++)
		free(p->embeds[i]);
	free(p->embeds);
	for (i = 0; i < p->nrefused; i++)
		free(p->refused[i]);
	buf_release(&p->title);
	buf_release(&p->text);
	free(p->boiler);
	memset(p, 0, sizeof(*p));
}

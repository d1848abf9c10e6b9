#include "parse/html.h"
#include "url/url.h"
#include "util/hmap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <xxhash.h>

#define HTML_MAX_BYTES (64u << 20)
#define TITLE_MAX 1024

struct walk {
	struct html_page *page;
	char base[URL_MAX_LEN + 1];
	const char *agent;
	size_t max_links;
	size_t cap;
	struct hmap seen;
	struct buf text;    /* visible text, whitespace collapsed */
	int in_space;       /* a blank is pending before the next word */
};

static int has_token(const char *list, const char *tok)
{
	size_t tl = strlen(tok);
	const char *p = list;

	while (*p) {
		size_t n;

		while (*p && isspace((unsigned char)*p))
			p++;
		n = 0;
		while (p[n] && !isspace((unsigned char)p[n]))
			n++;
		if (n == tl && !strncasecmp(p, tok, tl))
			return 1;
		p += n;
	}
	return 0;
}

static const char *attr(xmlNode *n, const char *name)
{
	xmlAttr *a;

	for (a = n->properties; a; a = a->next)
		if (a->name && !strcasecmp((const char *)a->name, name) && a->children &&
		    a->children->type == XML_TEXT_NODE && a->children->content)
			return (const char *)a->children->content;
	return NULL;
}

static void add_link(struct walk *w, const char *href)
{
	char out[URL_MAX_LEN + 1];
	const char *why;
	void **slot;

	/* Past the cap nothing is resolved or remembered: a page of a
	 * million links costs no more than one of max_links. */
	if (w->page->nlinks >= w->max_links) {
		w->page->dropped++;
		return;
	}
	if (url_canon(w->base, href, out, sizeof(out), &why) != CR_OK) {
		w->page->dropped++;
		return;
	}
	slot = hmap_put(&w->seen, out, strlen(out));
	if (*slot)
		return;
	*slot = (void *)1;
	if (w->page->nlinks == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		char **nl = realloc(w->page->links, cap * sizeof(*nl));

		if (!nl)
			abort();
		w->page->links = nl;
		w->cap = cap;
	}
	w->page->links[w->page->nlinks] = strdup(out);
	if (!w->page->links[w->page->nlinks])
		abort();
	w->page->nlinks++;
}

static void feed_text(struct walk *w, const char *s)
{
	while (*s) {
		size_t n;

		if (isspace((unsigned char)*s)) {
			w->in_space = 1;
			s++;
			continue;
		}
		for (n = 1; s[n] && !isspace((unsigned char)s[n]); n++)
			;
		if (w->in_space && w->text.len)
			buf_addc(&w->text, ' ');
		w->in_space = 0;
		buf_add(&w->text, s, n);
		s += n;
	}
}

static void add_title(struct walk *w, const char *s)
{
	struct buf *t = &w->page->title;

	for (; *s && t->len < TITLE_MAX; s++) {
		if (isspace((unsigned char)*s)) {
			if (t->len && t->p[t->len - 1] != ' ')
				buf_addc(t, ' ');
			continue;
		}
		buf_addc(t, *s);
	}
}

static int is(xmlNode *n, const char *name)
{
	return n->name && !strcasecmp((const char *)n->name, name);
}

/* The next node of a depth-first walk of root's subtree (NULL at the end),
 * into n's children if descend. No recursion: a deep tree cannot blow the
 * stack. */
static xmlNode *next_node(xmlNode *n, xmlNode *root, int descend)
{
	if (descend && n->children && n->type == XML_ELEMENT_NODE)
		return n->children;
	while (n && !n->next && n != root)
		n = n->parent;
	if (!n || n == root)
		return NULL;
	return n->next;
}

/* First pass: <base href> and <meta name=robots>. */
static void scan_head(struct walk *w, xmlNode *root, int *have_base)
{
	xmlNode *n = root;

	while (n) {
		if (n->type == XML_ELEMENT_NODE) {
			if (is(n, "base") && !*have_base) {
				const char *h = attr(n, "href");
				char out[URL_MAX_LEN + 1];
				const char *why;

				if (h && url_resolve(w->base, h, out, sizeof(out), &why) == CR_OK) {
					memcpy(w->base, out, strlen(out) + 1);
					*have_base = 1;
				}
			} else if (is(n, "meta")) {
				const char *name = attr(n, "name"), *content = attr(n, "content");

				if (name && content &&
				    (!strcasecmp(name, "robots") || !strcasecmp(name, w->agent))) {
					char tmp[256];
					size_t i;

					for (i = 0; content[i] && i + 1 < sizeof(tmp); i++)
						tmp[i] = content[i] == ',' ? ' ' : content[i];
					tmp[i] = '\0';
					if (has_token(tmp, "nofollow") || has_token(tmp, "none"))
						w->page->meta_nofollow = 1;
					if (has_token(tmp, "noindex") || has_token(tmp, "none"))
						w->page->meta_noindex = 1;
				}
			}
		}
		n = next_node(n, root, 1);
	}
}

static void element(struct walk *w, xmlNode *n)
{
	const char *v = NULL;

	if (is(n, "a") || is(n, "area")) {
		const char *rel = attr(n, "rel");

		v = attr(n, "href");
		if (v && rel && has_token(rel, "nofollow")) {
			w->page->nofollow++;
			return;
		}
	} else if (is(n, "link")) {
		const char *rel = attr(n, "rel");

		if (rel && (has_token(rel, "alternate") || has_token(rel, "canonical")))
			v = attr(n, "href");
	} else if (is(n, "frame") || is(n, "iframe")) {
		v = attr(n, "src");
	}
	if (!v)
		return;
	if (w->page->meta_nofollow) {
		w->page->nofollow++;
		return;
	}
	add_link(w, v);
}

static void walk_tree(struct walk *w, xmlNode *root)
{
	xmlNode *n = root;

	while (n) {
		int skip_children = 0;

		if (n->type == XML_ELEMENT_NODE) {
			element(w, n);
			if (is(n, "script") || is(n, "style") || is(n, "noscript") ||
			    is(n, "template"))
				skip_children = 1;
			if (is(n, "title") && !w->page->title.len) {
				xmlChar *t = xmlNodeGetContent(n);

				if (t)
					add_title(w, (const char *)t);
				xmlFree(t);
				while (w->page->title.len &&
				       w->page->title.p[w->page->title.len - 1] == ' ')
					w->page->title.len--;
			}
		} else if (n->type == XML_TEXT_NODE && n->content) {
			feed_text(w, (const char *)n->content);
		}
		n = next_node(n, root, !skip_children);
	}
}

enum cr_err html_extract(const void *body, size_t len, const char *charset,
			 const char *page_url, const char *agent, size_t max_links,
			 struct html_page *out)
{
	int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
		   HTML_PARSE_NONET | HTML_PARSE_COMPACT;
	htmlDocPtr doc;
	struct walk w;
	int have_base = 0;
	xmlNode *root;

	memset(out, 0, sizeof(*out));
	buf_init(&out->title);
	if (len > HTML_MAX_BYTES)
		len = HTML_MAX_BYTES;
	if (strlen(page_url) > URL_MAX_LEN)
		return CR_ERR_LIMIT;
	doc = htmlReadMemory(body, (int)len, page_url,
			     charset && charset[0] ? charset : NULL, opts);
	if (!doc && charset && charset[0])   /* an encoding libxml2 does not know */
		doc = htmlReadMemory(body, (int)len, page_url, NULL, opts);
	if (!doc)
		return CR_ERR_FORMAT;
	memset(&w, 0, sizeof(w));
	w.page = out;
	w.agent = agent;
	w.max_links = max_links;
	memcpy(w.base, page_url, strlen(page_url) + 1);
	hmap_init(&w.seen);
	buf_init(&w.text);
	root = xmlDocGetRootElement(doc);
	if (root) {
		scan_head(&w, root, &have_base);
		walk_tree(&w, root);
	}
	out->text_digest = XXH3_64bits(w.text.p, w.text.len);
	buf_release(&w.text);
	hmap_release(&w.seen);
	xmlFreeDoc(doc);
	return CR_OK;
}

void html_page_release(struct html_page *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->nlinks; i++)
		free(p->links[i]);
	free(p->links);
	buf_release(&p->title);
	memset(p, 0, sizeof(*p));
}

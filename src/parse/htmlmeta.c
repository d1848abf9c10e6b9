#include "parse/htmlmeta.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The elements whose URL attributes WAT lists under Links, with the other
 * attributes kept beside the URL. */
struct href_tag {
	const char *tag, *attr, *path;
	const char *extras[3];
};

static const struct href_tag href_tags[] = {
	{ "a", "href", "A@/href", { "rel", "title", "target" } },
	{ "area", "href", "AREA@/href", { "rel", "alt", "title" } },
	{ "audio", "src", "AUDIO@/src", { NULL } },
	{ "embed", "src", "EMBED@/src", { "type" } },
	{ "form", "action", "FORM@/action", { "method" } },
	{ "frame", "src", "FRAME@/src", { "name" } },
	{ "iframe", "src", "IFRAME@/src", { "name", "title" } },
	{ "img", "src", "IMG@/src", { "alt", "title" } },
	{ "input", "src", "INPUT@/src", { "type" } },
	{ "object", "data", "OBJECT@/data", { "type" } },
	{ "script", "src", "SCRIPT@/src", { "type" } },
	{ "source", "src", "SOURCE@/src", { "type" } },
	{ "track", "src", "TRACK@/src", { "kind" } },
	{ "video", "src", "VIDEO@/src", { NULL } },
	{ "video", "poster", "VIDEO@/poster", { NULL } },
};

static const char *const link_extras[] = { "rel", "type", "hreflang", "media", "as", "sizes" };
static const char *const meta_names[] = { "name", "property", "http-equiv", "itemprop" };

void htmlmeta_init(struct htmlmeta *m)
{
	memset(m, 0, sizeof(*m));
	buf_init(&m->items);
	buf_init(&m->strs);
	buf_init(&m->texts);
	m->open_a = -1;
}

void htmlmeta_release(struct htmlmeta *m)
{
	buf_release(&m->items);
	buf_release(&m->strs);
	buf_release(&m->texts);
	free(m->base);
	memset(m, 0, sizeof(*m));
}

static const char *att(const char *const *atts, const char *name)
{
	size_t i;

	for (i = 0; atts && atts[i]; i += 2)
		if (!strcasecmp(atts[i], name))
			return atts[i + 1] ? atts[i + 1] : "";
	return NULL;
}

/* A value as kept: blanks at either end dropped, cut at the cap. */
static void add_str(struct buf *b, const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strnlen(s, HTMLMETA_VALUE_MAX);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	buf_add(b, s, n);
	buf_addc(b, '\0');
}

/* Starts an item; NULL past the cap. */
static struct htmlmeta_item *item_new(struct htmlmeta *m, enum htmlmeta_kind kind)
{
	struct htmlmeta_item it;

	if (m->nitems >= HTMLMETA_ITEMS_MAX ||
	    m->strs.len + m->texts.len > HTMLMETA_BYTES_MAX) {
		m->dropped++;
		return NULL;
	}
	memset(&it, 0, sizeof(it));
	it.kind = (uint8_t)kind;
	it.off = (uint32_t)m->strs.len;
	buf_add(&m->items, &it, sizeof(it));
	m->nitems++;
	return (struct htmlmeta_item *)(m->items.p + m->items.len - sizeof(it));
}

static void pair(struct htmlmeta *m, struct htmlmeta_item *it, const char *name,
		 const char *value)
{
	if (!value || it->npairs == UINT8_MAX)
		return;
	add_str(&m->strs, name);
	add_str(&m->strs, value);
	it->npairs++;
}

static void extras(struct htmlmeta *m, struct htmlmeta_item *it, const char *const *names,
		   size_t n, const char *const *atts)
{
	size_t i;

	for (i = 0; i < n && names[i]; i++)
		pair(m, it, names[i], att(atts, names[i]));
}

static void on_meta(struct htmlmeta *m, const char *const *atts)
{
	struct htmlmeta_item *it;
	const char *content = att(atts, "content"), *cs = att(atts, "charset");
	size_t i;

	if (!content && !cs)
		return;
	if (!(it = item_new(m, HTMLMETA_META)))
		return;
	for (i = 0; i < sizeof(meta_names) / sizeof(meta_names[0]); i++)
		pair(m, it, meta_names[i], att(atts, meta_names[i]));
	pair(m, it, "charset", cs);
	pair(m, it, "content", content);
}

static void on_link(struct htmlmeta *m, const char *const *atts)
{
	struct htmlmeta_item *it;
	const char *href = att(atts, "href");

	if (!href || !(it = item_new(m, HTMLMETA_LINK)))
		return;
	pair(m, it, "path", "LINK@/href");
	pair(m, it, "url", href);
	extras(m, it, link_extras, sizeof(link_extras) / sizeof(link_extras[0]), atts);
}

static void on_href(struct htmlmeta *m, const struct href_tag *t, const char *const *atts)
{
	struct htmlmeta_item *it;
	const char *url = att(atts, t->attr), *type = att(atts, "type");
	int script_in_head = m->in_head && !strcmp(t->tag, "script");

	if (!url)
		return;
	if (!strcmp(t->tag, "input") && !(type && !strcasecmp(type, "image")))
		return;
	if (!(it = item_new(m, script_in_head ? HTMLMETA_SCRIPT : HTMLMETA_HREF)))
		return;
	pair(m, it, "path", t->path);
	pair(m, it, "url", url);
	extras(m, it, t->extras, sizeof(t->extras) / sizeof(t->extras[0]), atts);
	if (!strcmp(t->tag, "a")) {
		it->has_text = 1;
		it->text_off = (uint32_t)m->texts.len;
		m->open_a = (long)m->nitems - 1;
		m->a_space = 0;
	}
}

void htmlmeta_start(struct htmlmeta *m, const char *name, const char *const *atts)
{
	size_t i;

	if (!strcmp(name, "head")) {
		m->in_head = 1;
	} else if (!strcmp(name, "body")) {
		m->in_head = 0;
	} else if (!strcmp(name, "meta")) {
		on_meta(m, atts);
	} else if (!strcmp(name, "link")) {
		on_link(m, atts);
	} else if (!strcmp(name, "base")) {
		const char *h = att(atts, "href");

		if (h && !m->base && !(m->base = strndup(h, HTMLMETA_VALUE_MAX)))
			abort();
	} else {
		if (!strcmp(name, "a"))
			m->open_a = -1;   /* an <a> inside an <a> ends the first */
		for (i = 0; i < sizeof(href_tags) / sizeof(href_tags[0]); i++)
			if (!strcmp(name, href_tags[i].tag))
				on_href(m, &href_tags[i], atts);
	}
}

void htmlmeta_end(struct htmlmeta *m, const char *name)
{
	if (!strcmp(name, "head"))
		m->in_head = 0;
	else if (!strcmp(name, "a"))
		m->open_a = -1;
}

void htmlmeta_word(struct htmlmeta *m, const char *s, size_t n, int blank)
{
	struct htmlmeta_item *it;

	if (m->open_a < 0)
		return;
	it = (struct htmlmeta_item *)(m->items.p + (size_t)m->open_a * sizeof(*it));
	if (it->text_len + n + 1 > HTMLMETA_ANCHOR_MAX)
		return;
	if (blank && it->text_len) {
		buf_addc(&m->texts, ' ');
		it->text_len++;
	}
	buf_add(&m->texts, s, n);
	it->text_len += (uint32_t)n;
}

const struct htmlmeta_item *htmlmeta_item(const struct htmlmeta *m, uint32_t i)
{
	return (const struct htmlmeta_item *)m->items.p + i;
}

void htmlmeta_pair(const struct htmlmeta *m, const struct htmlmeta_item *it, unsigned k,
		    const char **name, const char **value)
{
	const char *s = (const char *)m->strs.p + it->off;

	while (k--) {
		s += strlen(s) + 1;
		s += strlen(s) + 1;
	}
	*name = s;
	*value = s + strlen(s) + 1;
}

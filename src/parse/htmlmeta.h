/*
 * htmlmeta.h - what a page's markup says about it, as Common Crawl's WAT
 * files list it: the head's metas, <link>s and scripts, and every URL the
 * page names (links, images, frames, forms, media), each with the element
 * and attribute it came from ("A@/href", "IMG@/src") and the attributes a
 * reader of links wants (an anchor's text, rel, title; an image's alt).
 *
 * URLs are kept as written: not resolved, not canonicalised (a reader
 * resolves them against Base, or the page's URL). The parser (html.c) feeds
 * the collector element by element while it reads the page; nothing here
 * knows libxml2. Pure: no I/O.
 *
 * Life: htmlmeta_init, the parser's calls, read the items, then
 * htmlmeta_release. Caps: HTMLMETA_ITEMS_MAX items and HTMLMETA_BYTES_MAX
 * bytes of their values (more items are counted in dropped),
 * HTMLMETA_VALUE_MAX bytes of an attribute value, HTMLMETA_ANCHOR_MAX of an
 * anchor's text (html.h keeps the same).
 */
#ifndef CR_PARSE_HTMLMETA_H
#define CR_PARSE_HTMLMETA_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define HTMLMETA_ITEMS_MAX 100000
#define HTMLMETA_BYTES_MAX (16u << 20)
#define HTMLMETA_VALUE_MAX 2048
#define HTMLMETA_ANCHOR_MAX 256

/* Where an item belongs in WAT's HTML-Metadata. */
enum htmlmeta_kind {
	HTMLMETA_META = 0,    /* Head.Metas: {name|property|http-equiv|charset, content} */
	HTMLMETA_LINK = 1,    /* Head.Link: a <link> (path, url, rel, type, ...) */
	HTMLMETA_SCRIPT = 2,  /* Head.Scripts: a <script src> in the head */
	HTMLMETA_HREF = 3,    /* Links: any other URL of the page (path, url, ...) */
};

/* One item: npairs name/value pairs, each two NUL-terminated strings at
 * strs + off; an anchor's text (has_text) at texts + text_off. */
struct htmlmeta_item {
	uint8_t kind;
	uint8_t npairs;
	uint8_t has_text;
	uint32_t off;
	uint32_t text_off, text_len;
};

struct htmlmeta {
	struct buf items;       /* struct htmlmeta_item each */
	struct buf strs;
	struct buf texts;
	uint32_t nitems;
	uint32_t dropped;       /* items past HTMLMETA_ITEMS_MAX */
	char *base;             /* the first <base href>, as written, or NULL; owned */
	/* the parser's state */
	int in_head;
	long open_a;            /* the item of the open <a>, or -1 */
	int a_space;            /* a blank is pending in its text */
};

void htmlmeta_init(struct htmlmeta *m);
void htmlmeta_release(struct htmlmeta *m);

/* The parser's calls: an element starts (lower-case name; atts as libxml2
 * gives them, name/value pairs ending in NULL, borrowed for the call) or
 * ends; a word of visible text (blank: blanks came before it). */
void htmlmeta_start(struct htmlmeta *m, const char *name, const char *const *atts);
void htmlmeta_end(struct htmlmeta *m, const char *name);
void htmlmeta_word(struct htmlmeta *m, const char *s, size_t n, int blank);

/* Item i (i < m->nitems). */
const struct htmlmeta_item *htmlmeta_item(const struct htmlmeta *m, uint32_t i);
/* Its pair k (k < npairs): *name and *value borrowed from m. */
void htmlmeta_pair(const struct htmlmeta *m, const struct htmlmeta_item *it, unsigned k,
		    const char **name, const char **value);

#endif

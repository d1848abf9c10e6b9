/*
 * html.h - what a page says, read with libxml2's lenient HTML parser.
 *
 * Links come from a/area href, link href with rel alternate, canonical or a
 * navigation kind (next, prev, up, index: html.c's page_rel),
 * frame and iframe src, and the URL of a meta http-equiv=refresh; each is
 * resolved against <base href> (or the page URL) and canonicalised (url.h);
 * invalid and non-http(s) links are dropped,
 * duplicates within a page kept once, at most max_links. rel=nofollow links
 * and every link of a page whose meta robots says nofollow are not followed
 * (counted). The title and a digest of the visible text are taken too.
 *
 * Page requisites (embeds: what a browser loads to show the page, fetched
 * as Heritrix's E hops when fetch.embeds is on) are kept apart, resolved
 * and canonicalised the same way: img src and srcset, picture/video/audio
 * source src and srcset, link href with rel stylesheet, icon,
 * apple-touch-icon, mask-icon, preload or modulepreload, script src,
 * video poster, track src, input type=image src, embed src, object data,
 * a body/table/td/th background, and the url()s and @imports of style
 * attributes and <style> elements (css.h). nofollow does not apply to them
 * (a browser loads them all).
 * Pure: bytes in, data out.
 */
#ifndef CR_PARSE_HTML_H
#define CR_PARSE_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "parse/boiler.h"
#include "parse/htmlmeta.h"
#include "parse/lang.h"
#include "util/buf.h"
#include "util/error.h"

#define HTML_ANCHOR_MAX HTMLMETA_ANCHOR_MAX
/* Links left out that a page keeps for the decision log: past this many,
 * they are only counted. */
#define HTML_REFUSED_MAX 64
/* The longest charset name a page keeps (struct html_page). */
#define HTML_CHARSET_MAX 64

/* Why a link was left out (the decision log's reason). */
enum html_refusal { HTML_MAX_LINKS = 0, HTML_TOO_LONG = 1 };

struct html_page {
	struct buf title;      /* UTF-8, whitespace collapsed */
	struct buf text;       /* the visible text, UTF-8: one line ('\n') per block
				  (p, li, tr, h1, br...) and per line of a pre,
				  blanks collapsed to one space within a line, no
				  empty line, none at either end */
	uint64_t text_digest;  /* XXH3 of text */
	struct lang_result lang;   /* the languages of the title and text (lang.h) */
	uint8_t *boiler;       /* per line of text: 1 if boilerplate (boiler.h, from
				  each line's words and link words), nlines of
				  them; owned */
	uint32_t nlines;
	char **links;          /* canonical URLs, owned */
	char **anchors;        /* each link's anchor text (a's text, blanks collapsed,
				  at most HTML_ANCHOR_MAX bytes; "" for others), owned */
	uint32_t nlinks;
	char **embeds;         /* the page's requisites, canonical, owned */
	uint32_t nembeds;
	uint32_t dropped;      /* invalid, non-http(s), over max_links */
	uint32_t nofollow;     /* not followed because of nofollow */
	int meta_noindex;
	int meta_nofollow;
	/* The first HTML_REFUSED_MAX links left out for a reason the decision
	 * log names: past parse.max_links (canonical), or too long (the href
	 * as written, cut at URL_MAX_LEN bytes). Owned. */
	char *refused[HTML_REFUSED_MAX];
	uint8_t refused_why[HTML_REFUSED_MAX];   /* enum html_refusal */
	uint32_t nrefused;
	/* The charset the page was read in: HTTP's (the charset argument), else
	 * the first <meta> that names one, else a byte order mark's ("UTF-8",
	 * "UTF-16LE", "UTF-16BE"), else the sniffed "UTF-8" or "windows-1252";
	 * "" for an empty body. */
	char charset[HTML_CHARSET_MAX];
};

/* charset: from the Content-Type header, or NULL/"" to let the parser
 * detect it. agent: robots product token for <meta name="AGENT">. */
CR_WUR enum cr_err html_extract(const void *body, size_t len, const char *charset,
				const char *page_url, const char *agent, size_t max_links,
				struct html_page *out);
/* The same, and what the markup says about the page (htmlmeta.h) into
 * meta, which the caller has initialised (NULL: not wanted). */
struct htmlmeta;
CR_WUR enum cr_err html_extract_meta(const void *body, size_t len, const char *charset,
				     const char *page_url, const char *agent, size_t max_links,
				     struct html_page *out, struct htmlmeta *meta);
void html_page_release(struct html_page *p);
/* Drops every link (and its anchor text) after the first n. */
void html_page_keep_links(struct html_page *p, uint32_t n);
/* p->lang from its title and text, read together (lang.h): what an HTML
 * page gets, and a PDF's or a plain text's (doc.h). */
void html_page_languages(struct html_page *p);
/* What near-duplicate detection reads of a page: its title, a space and its
 * text, appended to out. */
void html_page_text(const struct html_page *p, struct buf *out);

#endif

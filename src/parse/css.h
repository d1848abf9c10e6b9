/*
 * css.h - the URLs a stylesheet loads: url(...) values and @import
 * strings, for page requisites (fetch.embeds).
 *
 * A scanner, not a CSS parser: comments are skipped, strings and url()
 * read with CSS's quoting and backslash escapes (a hex escape becomes its
 * character), and everything else passed over - so a selector or property
 * that merely contains the text "url(" inside a string is not taken for
 * one. What is found is raw: the caller resolves it against the sheet's URL
 * (or the page's, for a style attribute or a <style> element). No library
 * in Debian reads CSS for its URLs alone (libcroco is unmaintained), and
 * this is all of it that a crawler needs. Pure.
 */
#ifndef CR_PARSE_CSS_H
#define CR_PARSE_CSS_H

#include <stddef.h>

/* Calls fn for each URL of css[0..len) in order (url is NUL-terminated,
 * borrowed for the call; empty ones and data: URLs are skipped), at most
 * max of them; returns how many. */
size_t css_urls(const char *css, size_t len, size_t max,
		void (*fn)(void *arg, const char *url), void *arg);

#endif

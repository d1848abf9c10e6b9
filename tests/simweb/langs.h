/*
 * langs.h - the vocabularies of --multilingual: host i writes its pages in
 * language i mod WEB_NLANGS (titles, headings, paragraphs, anchor texts),
 * so a language identifier can be scored against what simweb knows. Each
 * vocabulary is common words of its language - function words among
 * them, as real text has - written for simweb.
 */
#ifndef SIMWEB_LANGS_H
#define SIMWEB_LANGS_H

#include <stddef.h>

#define WEB_NLANGS 12u

struct web_lang {
	const char *code;            /* ISO 639-3 */
	const char *const *words;
	size_t n;
};

extern const struct web_lang web_langs[WEB_NLANGS];

#endif

/*
 * lang.h - the languages a text is written in, by CLD2 (Google's Compact
 * Language Detector 2, Debian's libcld2): up to three, best first, each
 * with the share of the text's letters it covers, as ISO 639-3 codes - the
 * codes Common Crawl writes in its CDXJ `languages` field and in
 * WARC-Identified-Content-Language.
 *
 * Why CLD2: it tells some 80 languages apart from a few hundred bytes of
 * text in microseconds, finds the second and third language of a mixed
 * page, and is the detector Common Crawl's outputs use, so corpus
 * pipelines built on those read ours alike. src/parse/lang.cc is the one
 * file that speaks to it (C++).
 *
 * Pure: text in, codes out; CLD2's tables are read-only, nothing is kept.
 */
#ifndef CR_PARSE_LANG_H
#define CR_PARSE_LANG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LANG_MAX 3
#define LANG_CODE_MAX 4   /* "eng" and its NUL */

struct lang_result {
	unsigned n;                          /* languages known, best first */
	char code[LANG_MAX][LANG_CODE_MAX];  /* ISO 639-3 */
	uint8_t percent[LANG_MAX];           /* of the text's letters, 1-100 */
	int reliable;                        /* CLD2 is sure of the first */
};

/* The languages of UTF-8 text (a title and its lines, say): of all of it
 * up to 1.5 KB, else of its start, middle and end, 512 bytes each (enough
 * for CLD2; a second language only in between is missed); text past an
 * invalid byte is left out. n = 0 when none is known: too little text, or
 * only what CLD2 has no code for. */
void lang_detect(const char *text, size_t len, struct lang_result *out);

/* The ISO 639-3 code for a CLD2 code ("en", "iw", "zh-Hant", "haw"), or
 * NULL when there is none (CLD2's "un", "xxx", script-only "xx-Latn"). */
const char *lang_iso3(const char *cld2_code);

#ifdef __cplusplus
}
#endif

#endif

/*
 * utf8.h - UTF-8 well-formedness (RFC 3629): no overlong forms, no
 * surrogates, nothing above U+10FFFF. Pure.
 */
#ifndef CR_UTIL_UTF8_H
#define CR_UTIL_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (1..4; s has n > 0 bytes),
 * or 0 if it is not one. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* 1 if p[0..n) is well-formed UTF-8; with cut_ok, a sequence cut short by
 * the end (a body truncated mid-character) still counts as well-formed. */
int utf8_valid(const void *p, size_t n, int cut_ok);

/* n, less the bytes of a sequence the end cut short (0 to 3 bytes). */
size_t utf8_whole(const void *p, size_t n);

#endif

/*
 * charset.h - the encoding of an HTML page, decided before the parser sees
 * it: the charset HTTP named; else the first <meta> that names one (read
 * in the whole body, as the HTML standard and libxml2 do); else sniffed -
 * UTF-8 when the bytes are well-formed UTF-8, windows-1252 otherwise, a
 * byte order mark left to libxml2. ISO-8859-1 and US-ASCII labels are read
 * as windows-1252, as browsers do. Pure: bytes in, names out.
 */
#ifndef CR_PARSE_CHARSET_H
#define CR_PARSE_CHARSET_H

#include <stddef.h>

#include "util/buf.h"

/* 1 if l is a label of windows-1252 in the WHATWG Encoding standard
 * (ISO-8859-1, latin1, US-ASCII, cp1252, ...). */
int charset_is_latin1(const char *l);

/*
 * The charset a page is handed to libxml2 in: HTTP's (http_charset), else
 * a latin1 <meta>'s (into label, cap bytes), else NULL for another <meta>
 * (libxml2 obeys it), else the sniffed one; *len may lose a UTF-8
 * character cut at the end. label gets the <meta>'s label, "" if none.
 */
const char *charset_for_parser(const char *http_charset, const void *body, size_t *len,
			       char *label, size_t cap);

/* The charset the page is read in, as struct html_page says it: from what
 * charset_for_parser returned (read), the <meta> label it found and the
 * byte order mark. Into out (cap bytes). */
void charset_read_in(const char *read, const char *label, const unsigned char *b, size_t len,
		     char *out, size_t cap);

/* The NUL bytes of a body in an ASCII-compatible encoding left out (into
 * clean; *body and *len then point there): libxml2 stops reading at a NUL
 * inside a tag, where a browser reads on. */
void charset_drop_nuls(const void **body, size_t *len, const char *charset, struct buf *clean);

#endif

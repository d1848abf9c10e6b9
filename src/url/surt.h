/*
 * surt.h - Sort-friendly URI Reordering Transform, in its two forms: as
 * Heritrix writes it, so that a scope rule can name a domain and everything
 * under it as one prefix (surt_from_url, surt_prefix), and as CDXJ indexes
 * key their lines (surt_key). Pure.
 *
 * The Heritrix form:
 *   http://www.example.org:8080/docs/a.html  ->  http://(org,example,www,:8080)/docs/a.html
 *   http://127.0.0.1/x                        ->  http://(127.0.0.1)/x
 *
 * The host's labels are reversed, each followed by ','; an IP address is
 * kept as it is; the port follows with ':'; then ')' and the path and query.
 * https is written as http (Heritrix compares them so: a rule for a site
 * covers both schemes).
 *
 * The CDXJ form (pywb, warcio): lower-cased, no scheme, a leading "www"
 * label dropped, the labels joined by ',' without a trailing one:
 *
 *   https://www.Example.org:8443/a?b=2&a=1  ->  org,example:8443)/a?a=1&b=2
 */
#ifndef CR_URL_SURT_H
#define CR_URL_SURT_H

#include <stddef.h>

#include "util/buf.h"
#include "util/error.h"

/* The SURT form of a canonical http(s) URL (url_canon's output), written to
 * out (cap bytes with the NUL). CR_ERR_FORMAT for a URL without scheme or
 * host, CR_ERR_LIMIT when it does not fit. */
CR_WUR enum cr_err surt_from_url(const char *url, size_t len, char *out, size_t cap);

/*
 * The SURT prefix a rule's text stands for:
 *   "http://(org,example,)/docs/"  as written (https folded to http);
 *   "(org,example,"                 without scheme: "http://" is put before;
 * the host part lower-cased. CR_ERR_FORMAT (and *why) for anything else.
 */
CR_WUR enum cr_err surt_prefix(const char *text, char *out, size_t cap, const char **why);

/* 1 if text is written as a SURT prefix: "(" or "scheme://(" then host
 * characters (letters, digits, '-', '.', ',', ':', '_') up to ')' or the end. */
int surt_is_prefix(const char *text);

/*
 * The SURT form of a URL as pywb and warcio key CDXJ lines: lower-cased,
 * a leading "www" label (www, www2, ...) dropped, host labels reversed and
 * joined by ',', ":port" unless the scheme's default, ')', the path ("/"
 * when empty), and the query's parameters sorted; the fragment dropped.
 * Non-http(s) URLs stay as they are. Appended to out.
 */
void surt_key(const char *url, struct buf *out);

#endif

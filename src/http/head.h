/*
 * head.h - reading the fields of a raw HTTP response head, the bytes a
 * server sent from the status line to the blank line.
 *
 * Pure: bytes in, values out; no I/O, no clock (the time is passed in), no
 * allocation. The head is any bytes, not NUL-terminated: lines end at LF,
 * a CR before it is dropped; a line without a colon, or a folded line, is
 * not a field. Read wherever a stored or fetched response is looked at:
 * the fetch outcome (Content-Type, Location, Retry-After), parse, the
 * index (CDXJ, WAT, sniffing), `mpicrawl warc`. The HTTP message format
 * lives in this folder, below everything that reads one; the transfers are
 * fetch/http.c.
 */
#ifndef CR_HTTP_HEAD_H
#define CR_HTTP_HEAD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Value of the last field called name (case-insensitive, without the
 * colon) in head[0..len), without surrounding blanks and CR, or NULL if
 * there is none. The value is borrowed from head and not NUL-terminated;
 * *vlen gets its length (written only when found).
 */
const char *http_head_field(const void *head, size_t len, const char *name, size_t *vlen);

/*
 * Media type and charset of the head's Content-Type: type lower-case,
 * without parameters (at most tcap - 1 bytes, the rest cut); charset
 * lower-case, [A-Za-z0-9-_:.] only, from "charset=" (quoted or not; at most
 * ccap - 1 bytes). Both are "" when absent. tcap and ccap must be > 0.
 */
void http_head_content_type(const void *head, size_t len, char *type, size_t tcap,
			    char *charset, size_t ccap);

/*
 * Seconds to wait that a Retry-After value v[0..vlen) asks for: either
 * delta-seconds or an HTTP date, counted from now_s (seconds since the
 * epoch). -1 when the value is empty, longer than 63 bytes, unparseable, or
 * a date that is not after the epoch; negative too for a date already past.
 * Not capped: the caller decides how long a hold it honours.
 */
int64_t http_head_retry_after_s(const char *v, size_t vlen, int64_t now_s);

/* An HTTP date (RFC 9110 5.6.7, and the obsolete forms) in seconds since
 * the epoch, or -1. Parsed by libcurl's date parser (curl_getdate), the one
 * use of libcurl outside the transfers of fetch/http.c. */
int64_t http_date(const char *s);

#endif

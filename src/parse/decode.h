/*
 * decode.h - undoing a response's Content-Encoding, with a bound.
 *
 * WARC files keep a body as it came over the wire; the parser needs it
 * decoded. A server may send a few kilobytes that inflate to gigabytes, so
 * decoding stops at max bytes of output: the page is then parsed from what
 * was decoded and counted as too large. gzip, x-gzip, deflate (zlib or raw),
 * br (libbrotli) and zstd are decoded - what the fetcher's Accept-Encoding
 * asks for; identity and an absent field mean the body is used as it is;
 * anything else (compress, several codings) is not parsed.
 */
#ifndef CR_PARSE_DECODE_H
#define CR_PARSE_DECODE_H

#include <stddef.h>

#include "util/buf.h"

enum decode_result {
	DECODE_IDENTITY,     /* no coding: use the body as it is */
	DECODE_OK,           /* out holds the decoded body */
	DECODE_TOO_LARGE,    /* out holds the first max decoded bytes */
	DECODE_BAD,          /* corrupt data: out holds what decoded before it */
	DECODE_UNSUPPORTED,  /* a coding we do not decode */
};

/* enc: the Content-Encoding value (enclen bytes), NULL when absent. */
enum decode_result decode_body(const char *enc, size_t enclen, const unsigned char *body,
			       size_t blen, size_t max, struct buf *out);

#endif

/*
 * fetch_record.h - what fetching one URL came to: its updated crawl record
 * and what the response said (segments/N/fetch/part-P.zst). Packed and
 * unpacked as crawl_record.h says; unpacked strings are borrowed.
 */
#ifndef CR_CRAWLDB_FETCH_RECORD_H
#define CR_CRAWLDB_FETCH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "util/buf.h"
#include "util/error.h"

struct fetch_record {
	struct crawl_record rec;   /* the URL's updated record */
	const char *reason;        /* why it failed ("timeout", "dns: ..."), or "" */
	size_t reason_len;
	const char *location;      /* canonical redirect target, or "" */
	size_t location_len;
	const char *content_type;  /* media type, lower-case, no parameters */
	size_t content_type_len;
	const char *charset;       /* from Content-Type, or "" */
	size_t charset_len;
	const char *warc;          /* WARC file name (in the segment's warc/) or "" */
	size_t warc_len;
	uint64_t warc_offset;      /* offset of the response record */
	uint64_t body_len;
	int64_t latency_us;        /* request start to last byte */
};

void fetch_record_pack(const struct fetch_record *f, struct buf *out);
CR_WUR enum cr_err fetch_record_unpack(const void *p, size_t n, struct fetch_record *f);

#endif

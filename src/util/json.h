/*
 * json.h - the little JSON the crawler writes: escaped strings and objects
 * of named counters (stats.json, _SUCCESS files, readdb --dump). Appends to
 * a struct buf; nothing here allocates but the buffer.
 */
#ifndef CR_UTIL_JSON_H
#define CR_UTIL_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct json_counter {
	const char *name;
	uint64_t value;
};

/* Appends {"name":value,...} to out. */
void json_counters(const struct json_counter *c, size_t n, struct buf *out);
/* Appends s as a JSON string (quoted, escaped; invalid UTF-8 bytes become U+FFFD). */
void json_str(struct buf *out, const char *s, size_t n);

#endif

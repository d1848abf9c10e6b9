/*
 * json.h - the little JSON the crawler writes: escaped strings and objects
 * of named counters (stats.json, _SUCCESS files, readdb --dump), appended
 * to a struct buf; and reads back the members of such objects (report,
 * check, the round's snapshot) without allocating.
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

/*
 * The integer value of member key of the JSON object text[0..n) - a member
 * of the object itself, not of one nested in it. CR_OK and *out set;
 * CR_EOF when there is no such member; CR_ERR_FORMAT when the text is not
 * an object this reader can walk, or the value is not an integer.
 */
CR_WUR enum cr_err json_get_int(const char *text, size_t n, const char *key, int64_t *out);
/* The raw text [*v, *v + *len) of member key's value, e.g. a nested
 * object to look into with these same calls; results as json_get_int. */
CR_WUR enum cr_err json_get_value(const char *text, size_t n, const char *key, const char **v,
				  size_t *len);
/* The same for a string member: its value unescaped into out (at most cap
 * bytes with the NUL; CR_ERR_LIMIT if longer). */
CR_WUR enum cr_err json_get_str(const char *text, size_t n, const char *key, char *out,
				size_t cap);

#endif

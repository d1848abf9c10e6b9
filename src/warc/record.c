/*
 * record.c - reading a WARC record once read: its named fields, whether it
 * was truncated, its HTTP block split into head and payload, its digests
 * checked, and WARC dates.
 */
#include "warc/warc.h"
#include "warc/shared.h"

#include <stdio.h>
#include <string.h>
#include <time.h>


/* ---- header fields and HTTP blocks ---- */

/* Appends s[0..n) to out at *o, keeping room for the NUL. */
static void out_add(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
	if (*o + 1 >= cap)
		return;
	if (n > cap - 1 - *o)
		n = cap - 1 - *o;
	memcpy(out + *o, s, n);
	*o += n;
}

static size_t line_len(const char *h, size_t i, size_t n, size_t *next)
{
	const char *nl = memchr(h + i, '\n', n - i);
	size_t e = nl ? (size_t)(nl - h) : n;

	*next = nl ? e + 1 : n;
	if (e > i && h[e - 1] == '\r')
		e--;
	return e - i;
}

int warc_head_field(const char *h, size_t n, const char *name, char *out, size_t cap)
{
	size_t nlen = strlen(name), i, next, o = 0;

	if (cap)
		out[0] = '\0';
	line_len(h, 0, n, &i); /* the version line */
	while (i < n) {
		size_t ll = line_len(h, i, n, &next);
		const char *l = h + i, *colon;
		size_t k;

		if (ll == 0)
			break;
		colon = warc_is_ws((unsigned char)l[0]) ? NULL : memchr(l, ':', ll);
		k = colon ? (size_t)(colon - l) : 0;
		while (k > 0 && warc_is_ws((unsigned char)l[k - 1]))
			k--;
		if (colon && k == nlen && warc_ieq(l, name, nlen)) {
			size_t vs = (size_t)(colon - l) + 1;
			for (;;) {
				while (vs < ll && warc_is_ws((unsigned char)l[vs]))
					vs++;
				out_add(out, cap, &o, l + vs, ll - vs);
				i = next;
				if (i >= n || !warc_is_ws((unsigned char)h[i]))
					break;
				ll = line_len(h, i, n, &next);
				l = h + i;
				vs = 0;
				out_add(out, cap, &o, " ", 1);
			}
			while (o > 0 && warc_is_ws((unsigned char)out[o - 1]))
				o--;
			if (cap)
				out[o] = '\0';
			return 1;
		}
		i = next;
	}
	return 0;
}

int warc_record_field(const struct warc_record *rec, const char *name, char *out,
		      size_t cap)
{
	return warc_head_field(rec->head, rec->head_len, name, out, cap);
}

int warc_record_truncated(const struct warc_record *rec)
{
	char v[32];

	return warc_head_field(rec->head, rec->head_len, "WARC-Truncated", v, sizeof(v));
}

enum cr_err warc_http_split(const unsigned char *block, size_t len, int *status,
			    size_t *head_len)
{
	const char *b = (const char *)block;
	size_t i = 0, next, first = 0, hl = 0;
	int st = 0;

	for (;;) {
		size_t ll;
		if (i >= len || !memchr(b + i, '\n', len - i))
			return CR_ERR_FORMAT;
		ll = line_len(b, i, len, &next);
		if (ll == 0) {
			if (i == 0)
				return CR_ERR_FORMAT;
			hl = next;
			break;
		}
		if (i == 0)
			first = ll;
		i = next;
	}
	if (first >= 5 && memcmp(b, "HTTP/", 5) == 0) {
		const char *sp = memchr(b, ' ', first);
		size_t k;
		if (!sp)
			return CR_ERR_FORMAT;
		k = (size_t)(sp - b) + 1;
		if (k + 3 > first)
			return CR_ERR_FORMAT;
		for (i = 0; i < 3; i++) {
			if (b[k + i] < '0' || b[k + i] > '9')
				return CR_ERR_FORMAT;
			st = st * 10 + (b[k + i] - '0');
		}
		if (k + 3 < first && b[k + 3] != ' ')
			return CR_ERR_FORMAT;
	}
	*status = st;
	*head_len = hl;
	return CR_OK;
}

enum cr_err warc_record_payload(const struct warc_record *rec, const unsigned char **p,
				size_t *len)
{
	char type[32], ct[64];
	size_t k = 0, hl;
	int st;

	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	warc_record_field(rec, "Content-Type", ct, sizeof(ct));
	if ((strcmp(type, "response") == 0 || strcmp(type, "request") == 0 ||
	     strcmp(type, "revisit") == 0) &&
	    strlen(ct) >= 16 && warc_ieq(ct, "application/http", 16)) {
		if (warc_http_split(rec->block, rec->block_len, &st, &hl) != CR_OK)
			return CR_ERR_FORMAT;
		k = hl;
	}
	*p = rec->block + k;
	*len = rec->block_len - k;
	return CR_OK;
}

int warc_check_block_digest(const struct warc_record *rec)
{
	char d[256];

	if (!warc_record_field(rec, "WARC-Block-Digest", d, sizeof(d)))
		return -1;
	return warc_digest_check(d, rec->block, rec->block_len);
}

int warc_check_payload_digest(const struct warc_record *rec)
{
	char d[256], type[32];
	const unsigned char *p;
	size_t n;

	if (!warc_record_field(rec, "WARC-Payload-Digest", d, sizeof(d)))
		return -1;
	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	if (strcmp(type, "revisit") == 0)
		return -1;
	if (warc_record_payload(rec, &p, &n) != CR_OK)
		return -1;
	return warc_digest_check(d, p, n);
}

int64_t warc_parse_date(const char *s)
{
	struct tm tm;
	long us = 0, scale = 100000;
	const char *p;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	p = strchr(s, '.');
	if (p)
		for (p++; *p >= '0' && *p <= '9' && scale > 0; p++, scale /= 10)
			us += (*p - '0') * scale;
	return (int64_t)timegm(&tm) * 1000000 + us;
}

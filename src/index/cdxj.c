/*
 * cdxj.c - CDXJ lines (index.h): a record's key (surt_key), time stamp and
 * JSON fields, with Common Crawl's extra fields, and the facts of a WARC
 * record a line is made of.
 */
#include "index/index.h"
#include "http/head.h"
#include "url/surt.h"
#include "url/url.h"
#include "util/json.h"
#include "warc/warc.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The Content-Type of an HTTP head, without parameters, into out. */
static void head_mime(const unsigned char *h, size_t n, char *out, size_t cap)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i + 13 < n; i++) {
		if ((i == 0 || h[i - 1] == '\n') &&
		    !strncasecmp((const char *)h + i, "content-type:", 13)) {
			size_t j = i + 13, e, o = 0;

			while (j < n && (h[j] == ' ' || h[j] == '\t'))
				j++;
			e = j;
			while (e < n && h[e] != ';' && h[e] != '\r' && h[e] != '\n')
				e++;
			while (e > j && (h[e - 1] == ' ' || h[e - 1] == '\t'))
				e--;
			for (; j < e && o + 1 < cap; j++)
				out[o++] = (char)h[j];
			out[o] = '\0';
			return;
		}
	}
}

void index_cdxj_filename(int seg, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "segments/%05d/warc/%s", seg, name);
}

void index_cdxj_extras(const char *uri, const void *head, size_t head_len, int status,
		       const char *truncated, struct index_cdxj_extra *e)
{
	char type[128], loc[URL_MAX_LEN + 1];
	const char *v, *why;
	size_t n;

	memset(e, 0, sizeof(*e));
	http_head_content_type(head, head_len, type, sizeof(type), e->charset,
			       sizeof(e->charset));
	if (truncated)
		snprintf(e->truncated, sizeof(e->truncated), "%s", truncated);
	if (status < 300 || status > 399 ||
	    !(v = http_head_field(head, head_len, "location", &n)) || n > URL_MAX_LEN)
		return;
	memcpy(loc, v, n);
	loc[n] = '\0';
	if (url_resolve(uri, loc, e->redirect, sizeof(e->redirect), &why) != CR_OK)
		e->redirect[0] = '\0';
}

/* One of Common Crawl's fields, when it has a value. */
static void extra_field(struct buf *b, const char *name, const char *v)
{
	if (!v[0])
		return;
	buf_addf(b, ",\"%s\":", name);
	json_str(b, v, strlen(v));
}

void index_cdxj_line(struct buf *b, const char *uri, const char *date, const char *mime,
		     int status, const char *digest, uint64_t length, uint64_t offset,
		     const char *fname, const struct index_cdxj_extra *e)
{
	char ts[15];
	size_t i, k = 0;
	const char *colon = strchr(digest, ':');

	for (i = 0; date[i] && k < 14; i++)
		if (date[i] >= '0' && date[i] <= '9')
			ts[k++] = date[i];
	ts[k] = '\0';
	surt_key(uri, b);
	buf_addf(b, " %s {\"url\":", ts);
	json_str(b, uri, strlen(uri));
	if (mime[0]) {
		buf_adds(b, ",\"mime\":");
		json_str(b, mime, strlen(mime));
	}
	if (status)
		buf_addf(b, ",\"status\":\"%d\"", status);
	if (digest[0]) {
		buf_adds(b, ",\"digest\":");
		json_str(b, colon ? colon + 1 : digest, strlen(colon ? colon + 1 : digest));
	}
	buf_addf(b, ",\"length\":\"%llu\",\"offset\":\"%llu\",\"filename\":",
		 (unsigned long long)length, (unsigned long long)offset);
	json_str(b, fname, strlen(fname));
	if (e) {
		extra_field(b, "mime-detected", e->mime_detected);
		extra_field(b, "charset", e->charset);
		extra_field(b, "truncated", e->truncated);
		extra_field(b, "redirect", e->redirect);
	}
	buf_adds(b, "}");
}

int index_record_facts(const char *type, const char *ct, const unsigned char *block,
		       size_t len, char *mime, size_t cap, int *status, size_t *head)
{
	int resp = !strcmp(type, "response");

	snprintf(mime, cap, "%s", strcmp(type, "revisit") ? ct : "warc/revisit");
	*status = 0;
	*head = 0;
	if ((resp || !strcmp(type, "revisit")) && !strncasecmp(ct, "application/http", 16) &&
	    warc_http_split(block, len, status, head) == CR_OK) {
		if (resp)
			head_mime(block, *head, mime, cap);
		return 1;
	}
	return 0;
}

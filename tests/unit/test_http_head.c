/*
 * test_http_head.c - reading the fields of a raw response head
 * (http/head.h), as tables: which field a name finds (the last, any
 * case, blanks and CR off, folded or colon-less lines not fields), what a
 * Content-Type says (type and charset, cut to their caps), and how long a
 * Retry-After asks to wait.
 */
#include "http/head.h"
#include "test.h"

#include <string.h>

static void fields(void)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\n"
		"Content-Type: text/html\r\n"
		"X-Empty:\r\n"
		"location:   /first  \r\n"
		"Location: /second\r\n"
		"no colon here\r\n"
		" Folded: not a field\r\n"
		"Set-Cookie: a=1\n"
		"\r\n";
	static const struct {
		const char *name, *want;   /* want NULL: not found */
	} rows[] = {
		{ "content-type", "text/html" },
		{ "CONTENT-TYPE", "text/html" },
		{ "Location", "/second" },       /* the last of two */
		{ "X-Empty", "" },
		{ "Set-Cookie", "a=1" },         /* a line ending at LF alone */
		{ "Folded", NULL },
		{ "no colon here", NULL },
		{ "Content", NULL },             /* a prefix is not the name */
		{ "Missing", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t n = 12345;
		const char *v = http_head_field(head, sizeof(head) - 1, rows[i].name, &n);

		if (!rows[i].want) {
			CHECK(v == NULL, "%s: not a field", rows[i].name);
			continue;
		}
		CHECK(v && n == strlen(rows[i].want) && !memcmp(v, rows[i].want, n),
		      "%s: '%.*s', want '%s'", rows[i].name, v ? (int)n : 0, v ? v : "",
		      rows[i].want);
	}
	CHECK(http_head_field("", 0, "Location", NULL) == NULL, "an empty head has no field");
}

static void content_types(void)
{
	static const struct {
		const char *value, *type, *charset;
		size_t tcap, ccap;
	} rows[] = {
		{ "text/html", "text/html", "", 64, 32 },
		{ "Text/HTML; Charset=UTF-8", "text/html", "utf-8", 64, 32 },
		{ "text/html; charset=\"ISO-8859-1\"", "text/html", "iso-8859-1", 64, 32 },
		{ "text/html;charset=shift_jis;q=1", "text/html", "shift_jis", 64, 32 },
		{ "application/xhtml+xml; charset=bad<>", "application/xhtml+xml", "bad", 64, 32 },
		{ "text/html; charset=windows-1252", "text/h", "window", 7, 7 },   /* caps */
		{ "", "", "", 64, 32 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char head[256], type[64], cs[32];
		int n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n\r\n",
				 rows[i].value);

		http_head_content_type(head, (size_t)n, type, rows[i].tcap, cs, rows[i].ccap);
		CHECK(!strcmp(type, rows[i].type) && !strcmp(cs, rows[i].charset),
		      "'%s': type '%s' charset '%s', want '%s' '%s'", rows[i].value, type, cs,
		      rows[i].type, rows[i].charset);
	}
}

static void retry_after(void)
{
	static const struct {
		const char *v;
		int64_t want;
	} rows[] = {
		{ "120", 120 },
		{ "0", 0 },
		{ "  7 ", -1 },   /* blanks: http_head_field takes them off first */
		{ "", -1 },
		{ "soon", -1 },
		{ "Thu, 01 Jan 1970 00:00:00 GMT", -1 },              /* not after the epoch */
		{ "Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 - 1445412000 },
		{ "Wed, 21 Oct 2015 07:18:00 GMT", 1445411880 - 1445412000 },   /* past */
		{ "0123456789012345678901234567890123456789012345678901234567890123", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int64_t got = http_head_retry_after_s(rows[i].v, strlen(rows[i].v), 1445412000);

		CHECK(got == rows[i].want, "Retry-After '%s': %lld, want %lld", rows[i].v,
		      (long long)got, (long long)rows[i].want);
	}
}

int main(void)
{
	fields();
	content_types();
	retry_after();
	TEST_DONE();
}

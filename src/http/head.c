#include "http/head.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *http_head_field(const void *head, size_t len, const char *name, size_t *vlen)
{
	const char *p = head, *end, *found = NULL;
	size_t nl = strlen(name);

	if (len == 0)
		return NULL;
	end = p + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t ll = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (ll > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			const char *v = p + nl + 1, *ve = p + ll;

			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			found = v;
			*vlen = (size_t)(ve - v);
		}
		p += ll + 1;
	}
	return found;
}

void http_head_content_type(const void *head, size_t len, char *type, size_t tcap,
			    char *charset, size_t ccap)
{
	size_t vl = 0, i, n;
	const char *v = http_head_field(head, len, "content-type", &vl);
	const char *semi, *cs, *ve;

	type[0] = charset[0] = '\0';
	if (!v)
		return;
	ve = v + vl;
	semi = memchr(v, ';', vl);
	n = semi ? (size_t)(semi - v) : vl;
	while (n > 0 && v[n - 1] == ' ')
		n--;
	for (i = 0; i < n && i + 1 < tcap; i++)
		type[i] = (char)tolower((unsigned char)v[i]);
	type[i] = '\0';
	for (cs = v; cs + 8 <= ve; cs++) {
		if (!strncasecmp(cs, "charset=", 8)) {
			const char *s = cs + 8;
			size_t k = 0;

			/* The value may end the head: never look past ve. */
			if (s < ve && *s == '"')
				s++;
			while (s < ve && k + 1 < ccap &&
			       (isalnum((unsigned char)*s) || (*s && strchr("-_:.", *s))))
				charset[k++] = (char)tolower((unsigned char)*s++);
			charset[k] = '\0';
			break;
		}
	}
}

int64_t http_head_retry_after_s(const char *v, size_t vlen, int64_t now_s)
{
	char tmp[64];
	int64_t when;

	if (!v || vlen == 0 || vlen >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, vlen);
	tmp[vlen] = '\0';
	if (strspn(tmp, "0123456789") == vlen)
		return strtoll(tmp, NULL, 10);
	when = http_date(tmp);
	if (when <= 0)
		return -1;
	return (int64_t)when - now_s;
}

int64_t http_date(const char *s)
{
	time_t t = curl_getdate(s, NULL);

	return t <= 0 ? -1 : (int64_t)t;
}

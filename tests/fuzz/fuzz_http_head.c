/*
 * fuzz_http_head - the response-head helpers the fetcher uses
 * (http/head.h): fields, Content-Type and charset, Retry-After.
 *
 * Input: a raw response head, any bytes. The output buffers are sized as
 * the fetcher's, then tightly (sizes taken from the input). A field's value
 * must lie inside the head; type and charset must be lower-case and fit.
 */
#include "http/head.h"
#include "fuzz.h"

#include <ctype.h>

static const char *const names[] = {
	"location", "retry-after", "content-type", "x-robots-tag", "content-length", "",
};

static void check_type(const char *type, size_t tcap, const char *cs, size_t ccap)
{
	size_t i;

	if (strlen(type) >= tcap || strlen(cs) >= ccap)
		abort();
	for (i = 0; type[i]; i++)
		if (isupper((unsigned char)type[i]))
			abort();
	for (i = 0; cs[i]; i++)
		if (!islower((unsigned char)cs[i]) && !isdigit((unsigned char)cs[i]) &&
		    !strchr("-_:.", cs[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char type[128], cs[64], t2[8], c2[8];
	size_t i, vl, tcap = 1 + (size ? data[0] % 8 : 0), ccap = 1 + (size > 1 ? data[1] % 8 : 0);
	/* The head is copied so that reading one byte past it is caught. */
	uint8_t *head = size ? malloc(size) : NULL;

	if (size)
		memcpy(head, data, size);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = http_head_field(head, size, names[i], &vl);

		if (v && (v < (const char *)head || vl > size ||
			  v + vl > (const char *)head + size))
			abort();
		if (v && i == 1)
			(void)http_head_retry_after_s(v, vl, 1700000000);
	}
	http_head_content_type(head, size, type, sizeof(type), cs, sizeof(cs));
	check_type(type, sizeof(type), cs, sizeof(cs));
	http_head_content_type(head, size, t2, tcap, c2, ccap);
	check_type(t2, tcap, c2, ccap);
	if (strncmp(type, t2, tcap - 1) || strncmp(cs, c2, ccap - 1))
		abort();
	(void)http_head_retry_after_s((const char *)head, size, 1700000000);
	free(head);
	return 0;
}

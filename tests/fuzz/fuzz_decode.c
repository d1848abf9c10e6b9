/*
 * fuzz_decode - undoing a Content-Encoding with a bound (parse/decode.h).
 *
 * Input: one byte choosing the coding (gzip, x-gzip, deflate, zstd,
 * identity, br, or none), the rest the body. The output must never exceed
 * the cap (64 KiB here), whatever the body claims to inflate to.
 */
#include "fuzz.h"
#include "parse/decode.h"

static const char *const codings[] = {
	"gzip", "x-gzip", "deflate", "zstd", "identity", "br", " GZIP ", NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *enc;
	struct buf out;
	enum decode_result r;
	/* The body is copied so that reading past it is caught. */
	uint8_t *body;

	if (!size)
		return 0;
	enc = codings[data[0] % (sizeof(codings) / sizeof(codings[0]))];
	body = malloc(size - 1 ? size - 1 : 1);
	if (!body)
		return 0;
	memcpy(body, data + 1, size - 1);
	buf_init(&out);
	r = decode_body(enc, enc ? strlen(enc) : 0, body, size - 1, 65536, &out);
	if (out.len > 65536)
		abort();
	if ((r == DECODE_IDENTITY || r == DECODE_UNSUPPORTED) && out.len)
		abort();
	if (r == DECODE_TOO_LARGE && out.len != 65536)
		abort();
	buf_release(&out);
	free(body);
	return 0;
}

/*
 * digest.c - WARC digests: SHA-1 in base32 as written, and a labelled
 * digest (sha1, sha256, sha512, md5; base32, hex or base64) checked.
 */
#include "warc/warc.h"
#include "warc/shared.h"
#include "util/hex.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* ---- digests ---- */

static const char b32_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static void enc_b32(const unsigned char *p, size_t n, char *out)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		acc = (acc << 8) | p[i];
		bits += 8;
		while (bits >= 5) {
			out[o++] = b32_alpha[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits > 0)
		out[o++] = b32_alpha[(acc << (5 - bits)) & 31];
	out[o] = '\0';
}

static int b32val(int c)
{
	c = warc_lower(c);
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= '2' && c <= '7')
		return c - '2' + 26;
	return -1;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Each decoder: 1 if s[0..n) is exactly want bytes in its encoding. */
static int dec_hex(const char *s, size_t n, unsigned char *out, size_t want)
{
	size_t i;

	if (n != 2 * want)
		return 0;
	for (i = 0; i < want; i++) {
		int h = hex_value((unsigned char)s[2 * i]);
		int l = hex_value((unsigned char)s[2 * i + 1]);
		if (h < 0 || l < 0)
			return 0;
		out[i] = (unsigned char)(h << 4 | l);
	}
	return 1;
}

static int dec_radix(const char *s, size_t n, unsigned char *out, size_t want,
		     int shift, int (*val)(int))
{
	uint32_t acc = 0;
	int bits = 0;
	size_t i, o = 0;

	while (n > 0 && s[n - 1] == '=')
		n--;
	if (n != (want * 8 + (size_t)shift - 1) / (size_t)shift)
		return 0;
	for (i = 0; i < n; i++) {
		int v = val((unsigned char)s[i]);
		if (v < 0)
			return 0;
		acc = (acc << shift) | (uint32_t)v;
		bits += shift;
		if (bits >= 8) {
			if (o < want)
				out[o] = (unsigned char)(acc >> (bits - 8));
			o++;
			bits -= 8;
		}
	}
	return o == want;
}

static const EVP_MD *digest_md(const char *name, size_t n)
{
	static const struct {
		const char *name;
		const EVP_MD *(*md)(void);
	} algs[] = {
		{ "md5", EVP_md5 }, { "sha1", EVP_sha1 }, { "sha224", EVP_sha224 },
		{ "sha256", EVP_sha256 }, { "sha384", EVP_sha384 },
		{ "sha512", EVP_sha512 },
	};
	char norm[16];
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (name[i] == '-')
			continue;
		if (k + 1 >= sizeof(norm))
			return NULL;
		norm[k++] = (char)warc_lower((unsigned char)name[i]);
	}
	norm[k] = '\0';
	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcmp(norm, algs[i].name) == 0)
			return algs[i].md();
	return NULL;
}

int warc_digest_check(const char *labelled, const void *data, size_t len)
{
	unsigned char want[EVP_MAX_MD_SIZE], got[EVP_MAX_MD_SIZE];
	const char *colon, *v;
	const EVP_MD *md;
	unsigned int dlen = 0;
	size_t vlen;

	while (warc_is_ws((unsigned char)*labelled))
		labelled++;
	colon = strchr(labelled, ':');
	if (!colon)
		return -1;
	md = digest_md(labelled, (size_t)(colon - labelled));
	if (!md)
		return -1;
	v = colon + 1;
	while (warc_is_ws((unsigned char)*v))
		v++;
	vlen = strlen(v);
	while (vlen > 0 && warc_is_ws((unsigned char)v[vlen - 1]))
		vlen--;
	if (!EVP_Digest(data, len, got, &dlen, md, NULL))
		return -1;
	if ((dec_hex(v, vlen, want, dlen) ||
	     dec_radix(v, vlen, want, dlen, 5, b32val)) &&
	    memcmp(want, got, dlen) == 0)
		return 1;
	if (dec_radix(v, vlen, want, dlen, 6, b64val) && memcmp(want, got, dlen) == 0)
		return 1;
	return 0;
}

int warc_sha1_parts(const struct warc_part *parts, size_t n, char out[33])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t i;
	int ok;

	if (!c)
		return 0;
	ok = EVP_DigestInit_ex(c, EVP_sha1(), NULL);
	for (i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(c, parts[i].p, parts[i].n);
	if (ok)
		ok = EVP_DigestFinal_ex(c, md, &mdlen);
	EVP_MD_CTX_free(c);
	if (ok)
		enc_b32(md, mdlen, out);
	return ok;
}

void warc_sha1_base32(const void *data, size_t len, char out[33])
{
	struct warc_part p = { data, len };

	if (!warc_sha1_parts(&p, 1, out))
		out[0] = '\0';
}

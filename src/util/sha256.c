/*
 * sha256.c - SHA-256 digests by libcrypto, named; see sha256.h.
 */
#include "util/sha256.h"

#include <stdio.h>
#include <string.h>
#include <openssl/evp.h>

void sha256_start(struct sha256 *s)
{
	s->ctx = EVP_MD_CTX_new();
	if (s->ctx && !EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(s->ctx);
		s->ctx = NULL;
	}
}

void sha256_add(struct sha256 *s, const void *p, size_t n)
{
	if (s->ctx && !EVP_DigestUpdate(s->ctx, p, n)) {
		EVP_MD_CTX_free(s->ctx);
		s->ctx = NULL;
	}
}

enum cr_err sha256_end(struct sha256 *s, char out[SHA256_NAME_MAX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0, i;
	int ok = s->ctx && EVP_DigestFinal_ex(s->ctx, md, &len) && len == 32;

	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
	out[0] = '\0';
	if (!ok)
		return CR_ERR_LIB;
	memcpy(out, "sha256:", 8);
	for (i = 0; i < len; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
	return CR_OK;
}

void sha256_name(const void *p, size_t n, char out[SHA256_NAME_MAX])
{
	struct sha256 s;

	sha256_start(&s);
	sha256_add(&s, p, n);
	if (sha256_end(&s, out) != CR_OK)
		out[0] = '\0';
}

/*
 * sha256.h - SHA-256 digests named as WACZ's datapackage.json and the
 * warcinfo's config-digest / seeds-digest write them: "sha256:" and 64 hex
 * digits. OpenSSL's libcrypto computes; this only names.
 *
 * Life: sha256_start, sha256_add as often as needed, sha256_end (which
 * frees); or sha256_name for one buffer.
 */
#ifndef CR_UTIL_SHA256_H
#define CR_UTIL_SHA256_H

#include <stddef.h>

#include "util/error.h"

#define SHA256_NAME_MAX 72   /* "sha256:", 64 hex digits, NUL */

struct sha256 {
	void *ctx;                /* OpenSSL's EVP_MD_CTX; NULL out of memory */
};

void sha256_start(struct sha256 *s);
void sha256_add(struct sha256 *s, const void *p, size_t n);
/* The digest's name into out; CR_ERR_LIB (out "") if libcrypto failed. */
CR_WUR enum cr_err sha256_end(struct sha256 *s, char out[SHA256_NAME_MAX]);

/* The name of p's n bytes' digest. */
void sha256_name(const void *p, size_t n, char out[SHA256_NAME_MAX]);

#endif

/*
 * tls.c - tls.h over OpenSSL.
 */
#include "fetch/tls.h"

#include <stdio.h>
#include <string.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

int tls_describe(const void *ssl_ptr, char *proto, size_t proto_cap, char *cipher,
		 size_t cipher_cap)
{
	const SSL *ssl = ssl_ptr;
	const SSL_CIPHER *c;
	const char *name;

	proto[0] = cipher[0] = '\0';
	if (!ssl)
		return -1;
	switch (SSL_version(ssl)) {
	case TLS1_3_VERSION: name = "tls/1.3"; break;
	case TLS1_2_VERSION: name = "tls/1.2"; break;
	case TLS1_1_VERSION: name = "tls/1.1"; break;
	case TLS1_VERSION:   name = "tls/1.0"; break;
	case SSL3_VERSION:   name = "ssl/3.0"; break;
	default:             name = ""; break;
	}
	snprintf(proto, proto_cap, "%s", name);
	c = SSL_get_current_cipher(ssl);
	name = c ? SSL_CIPHER_standard_name(c) : NULL;
	snprintf(cipher, cipher_cap, "%s", name ? name : "");
	return 0;
}

const char *tls_verify_reason(long v)
{
	switch (v) {
	case X509_V_OK:
	case X509_V_ERR_UNSPECIFIED:   /* libcurl's own name check failed */
	case X509_V_ERR_HOSTNAME_MISMATCH:
	case X509_V_ERR_IP_ADDRESS_MISMATCH:
		return "tls:name-mismatch";
	case X509_V_ERR_CERT_HAS_EXPIRED:
	case X509_V_ERR_CRL_HAS_EXPIRED:
		return "tls:expired";
	case X509_V_ERR_CERT_NOT_YET_VALID:
		return "tls:not-yet-valid";
	default:
		return "tls:untrusted";
	}
}

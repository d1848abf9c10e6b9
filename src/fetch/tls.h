/*
 * tls.h - what the TLS library says about a connection: the only file of
 * the fetcher that includes OpenSSL's headers (libcurl is built on it in
 * Debian, and hands out its connection: http.c).
 *
 * The names written are the ones the WARC keeps (warc.h: WARC-Protocol,
 * WARC-Cipher-Suite): the protocol in the slash form the WARC-Protocol
 * proposal uses ("tls/1.3", "tls/1.2", "ssl/3.0") and the cipher suite by
 * its IANA name ("TLS_AES_256_GCM_SHA384"), as Common Crawl writes them.
 * A certificate that failed verification is named by a reason of ours, the
 * same on every run, whatever OpenSSL's wording (tls_verify_reason).
 */
#ifndef CR_FETCH_TLS_H
#define CR_FETCH_TLS_H

#include <stddef.h>

/* ssl: OpenSSL's SSL* of a connection (libcurl's CURLINFO_TLS_SSL_PTR).
 * Writes the protocol and the cipher suite ("" when unknown); 0, or -1
 * when ssl is NULL. */
int tls_describe(const void *ssl, char *proto, size_t proto_cap, char *cipher,
		 size_t cipher_cap);

/*
 * The reason a page keeps when the peer's certificate was refused, from
 * OpenSSL's verify result (libcurl's CURLINFO_SSL_VERIFYRESULT):
 *   "tls:expired"        the certificate (or one of its chain) has expired
 *   "tls:not-yet-valid"  it is not valid yet
 *   "tls:name-mismatch"  the chain is good but names another host (libcurl
 *                        checks the name itself and then says 1,
 *                        X509_V_ERR_UNSPECIFIED, or leaves 0)
 *   "tls:untrusted"      self-signed, unknown issuer, or any other refusal
 */
const char *tls_verify_reason(long verify_result);

#endif

/* tls.h: the reason a refused certificate keeps, whatever OpenSSL's words. */
#include "test.h"
#include "fetch/tls.h"

#include <string.h>
#include <openssl/x509_vfy.h>

int main(void)
{
	static const struct {
		long v;
		const char *want;
	} cases[] = {
		{ X509_V_OK, "tls:name-mismatch" },   /* libcurl's own name check */
		{ X509_V_ERR_UNSPECIFIED, "tls:name-mismatch" },   /* as 7.88 says it */
		{ X509_V_ERR_HOSTNAME_MISMATCH, "tls:name-mismatch" },
		{ X509_V_ERR_IP_ADDRESS_MISMATCH, "tls:name-mismatch" },
		{ X509_V_ERR_CERT_HAS_EXPIRED, "tls:expired" },
		{ X509_V_ERR_CERT_NOT_YET_VALID, "tls:not-yet-valid" },
		{ X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, "tls:untrusted" },
		{ X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, "tls:untrusted" },
		{ X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, "tls:untrusted" },
		{ X509_V_ERR_CERT_REVOKED, "tls:untrusted" },
		{ 9999, "tls:untrusted" },
	};
	char proto[16], cipher[80];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(tls_verify_reason(cases[i].v), cases[i].want);
	CHECK(tls_describe(NULL, proto, sizeof(proto), cipher, sizeof(cipher)) == -1 &&
	      !proto[0] && !cipher[0], "no connection: nothing described");
	TEST_DONE();
}

#include "test.h"
#include "util/addr.h"

static const struct { const char *a; int pub; } cases[] = {
	{ "8.8.8.8", 1 }, { "1.1.1.1", 1 }, { "93.184.216.34", 1 },
	{ "127.0.0.1", 0 }, { "127.1.2.3", 0 }, { "10.0.0.1", 0 }, { "172.16.0.1", 0 },
	{ "172.31.255.255", 0 }, { "172.32.0.1", 1 }, { "192.168.1.1", 0 },
	{ "169.254.169.254", 0 }, { "100.64.0.1", 0 }, { "100.128.0.1", 1 },
	{ "0.0.0.0", 0 }, { "224.0.0.1", 0 }, { "255.255.255.255", 0 },
	{ "198.18.0.1", 0 }, { "192.0.2.1", 0 },
	{ "::1", 0 }, { "::", 0 }, { "fc00::1", 0 }, { "fd12:3456::1", 0 },
	{ "fe80::1", 0 }, { "ff02::1", 0 }, { "::ffff:127.0.0.1", 0 },
	{ "::ffff:10.1.2.3", 0 }, { "::ffff:8.8.8.8", 1 }, { "2001:db8::1", 0 },
	{ "2606:4700:4700::1111", 1 }, { "64:ff9b::7f00:1", 0 }, { "2002:7f00:1::1", 0 },
	{ "64:ff9b::808:808", 1 }, { "2002:808:808::1", 1 }, { "::7f00:1", 0 },
	{ "::ffff:0:7f00:1", 0 }, { "::ffff:0:808:808", 1 }, { "100::1", 0 },
	{ "64:ff9b:1::808:808", 0 }, { "2001:2::1", 0 }, { "2001:10::1", 0 },
	{ "2001:20::1", 0 }, { "2001:30::1", 1 }, { "3fff::1", 0 }, { "3fff:fff::1", 0 },
	{ "3fff:1000::1", 1 }, { "5f00::1", 0 }, { "fec0::1", 0 }, { "ff05::2", 0 },
	/* Teredo: server 8.8.8.8, client 8.8.8.8 (XOR'd) public; either private: no. */
	{ "2001:0:808:808::f7f7:f7f7", 1 }, { "2001:0:a00:1::f7f7:f7f7", 0 },
	{ "2001:0:808:808::80ff:fffe", 0 }, { "::ffff:192.168.0.1", 0 },
	{ "FE80::1%eth0", 0 }, { "[::1]", 0 },
	{ "not-an-address", 0 },
};

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(addr_is_public_str(cases[i].a) == cases[i].pub, "%s should be %s",
		      cases[i].a, cases[i].pub ? "public" : "refused");
	{
		struct addr_list l;
		char bad[64];

		CHECK(addr_list_parse(" 127.0.0.1, 10.1.0.0/16 ,fd00::/8", &l, bad) == 0 && l.n == 3,
		      "allow list parses");
		CHECK(addr_list_has_str(&l, "127.0.0.1") && !addr_list_has_str(&l, "127.0.0.2"),
		      "a single address");
		CHECK(addr_list_has_str(&l, "10.1.255.3") && !addr_list_has_str(&l, "10.2.0.1"),
		      "an IPv4 range");
		CHECK(addr_list_has_str(&l, "fd12::1") && !addr_list_has_str(&l, "fc00::1") &&
		      !addr_list_has_str(&l, "::1"), "an IPv6 range");
		CHECK(addr_list_parse("", &l, bad) == 0 && l.n == 0 &&
		      !addr_list_has_str(&l, "127.0.0.1"), "empty list");
		CHECK(addr_list_parse("127.0.0.1, example.com", &l, bad) == -1 &&
		      !strcmp(bad, "example.com"), "a name is refused: '%s'", bad);
		CHECK(addr_list_parse("10.0.0.0/33", &l, bad) == -1, "prefix too long");
		CHECK(addr_list_parse("10.0.0.0/", &l, bad) == -1, "empty prefix");
	}
	TEST_DONE();
}

#include "config/config.h"
#include "util/minhash.h"
#include "util/addr.h"
#include "inputs/inputs.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum key_type { K_LONG, K_BOOL, K_STR, K_ENUM_PARTITION, K_ENUM_POLITENESS, K_DBL, K_CHOICE };

struct key {
	const char *name;
	enum key_type type;
	size_t off;
	size_t size;     /* for K_STR: capacity */
	long min, max;   /* for K_LONG */
	const char *def;
	const char *doc;
	const char *const *choices;   /* K_CHOICE: the words, NULL-terminated */
	/* K_STR: NULL if the value is good, else what is wrong with it. */
	const char *(*check)(const char *v);
	int path;   /* K_STR: a file; relative in a job file: to the file's folder */
};

#define L(name, field, min, max, def, doc) \
	{ name, K_LONG, offsetof(struct config, field), 0, min, max, def, doc, NULL, NULL, 0 }
#define B(name, field, def, doc) \
	{ name, K_BOOL, offsetof(struct config, field), 0, 0, 1, def, doc, NULL, NULL, 0 }
#define S(name, field, def, doc) \
	{ name, K_STR, offsetof(struct config, field), \
	  sizeof(((struct config *)0)->field), 0, 0, def, doc, NULL, NULL, 0 }
/* A string whose value check() validates. */
#define SC(name, field, def, check, doc) \
	{ name, K_STR, offsetof(struct config, field), \
	  sizeof(((struct config *)0)->field), 0, 0, def, doc, NULL, check, 0 }
/* A file name check() validates; relative in a job file: to its folder. */
#define SP(name, field, def, check, doc) \
	{ name, K_STR, offsetof(struct config, field), \
	  sizeof(((struct config *)0)->field), 0, 0, def, doc, NULL, check, 1 }
/* One of a list of words, stored as its index (an int). */
#define C(name, field, choices, def, doc) \
	{ name, K_CHOICE, offsetof(struct config, field), 0, 0, 0, def, doc, choices, NULL, 0 }
/* A real number in [min/1e9, max/1e9]. */
#define D(name, field, min, max, def, doc) \
	{ name, K_DBL, offsetof(struct config, field), 0, min, max, def, doc, NULL, NULL, 0 }

static const char *const warc_compressions[] = { "gzip", "zstd", NULL };
/* In the order of enum minhash_scheme (util/minhash.h). */
static const char *const dedup_signatures[] = { "minhash", "oph", NULL };
/* In the order of enum dns_family (fetch/dns.h) and enum http_version (fetch/http.h). */
static const char *const dns_families[] = { "auto", "ipv4", "ipv6", NULL };
static const char *const http_versions[] = { "auto", "1.1", "2", NULL };
/* In the order of enum scope_mode (scope/scope.h). */
const char *const config_scope_modes[] = { "seeds-domains", "seeds-hosts", "any", NULL };
/* In the order of enum scope_embeds (scope/scope.h). */
static const char *const scope_embeds[] = { "any-host", "in-scope", NULL };

/* dns.servers: "ip", "ip:port" or "[ipv6]:port" items, comma-separated. */
static const char *check_servers(const char *v)
{
	char item[128];

	while (*v) {
		size_t n = strcspn(v, ","), k;
		char *port = NULL, *host = item;
		unsigned char bin[16];
		long pn = 53;

		while (n && isspace((unsigned char)*v))
			v++, n--;
		if (n == 0 || n >= sizeof(item))
			return "an empty or overlong item (ip or ip:port, comma-separated)";
		memcpy(item, v, n);
		item[n] = '\0';
		for (k = n; k > 0 && isspace((unsigned char)item[k - 1]); k--)
			item[k - 1] = '\0';
		if (item[0] == '[') {
			char *rb = strchr(item, ']');

			if (!rb || (rb[1] && rb[1] != ':'))
				return "a bracketed address without its ']' or ':port'";
			*rb = '\0';
			host = item + 1;
			port = rb[1] ? rb + 2 : NULL;
		} else if (strchr(item, ':') == strrchr(item, ':') && strchr(item, ':')) {
			port = strchr(item, ':');
			*port++ = '\0';
		}
		if (port) {
			char *end;

			pn = strtol(port, &end, 10);
			if (end == port || *end)
				pn = 0;
		}
		if ((inet_pton(AF_INET, host, bin) != 1 && inet_pton(AF_INET6, host, bin) != 1) ||
		    pn < 1 || pn > 65535)
			return "not a numeric address with an optional port (ip or ip:port)";
		v += n;
		if (*v == ',')
			v++;
	}
	return NULL;
}

/* fetch.allow_addresses: addresses and CIDR ranges (util/addr.h). */
static const char *check_addresses(const char *v)
{
	struct addr_list l;
	char bad[64];

	return addr_list_parse(v, &l, bad) ? "a bad address or range" : NULL;
}

/* robots.agent: an RFC 9309 product token. */
static const char *check_agent(const char *v)
{
	if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") !=
	    strlen(v))
		return "a product token of letters, '_' and '-' (RFC 9309 2.2.1)";
	return NULL;
}

/* http.user_agent: one header value. */
static const char *check_header(const char *v)
{
	const unsigned char *p;

	if (!*v)
		return "empty";
	for (p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return "holds a control character";
	return NULL;
}

/* A warcinfo field or optional header: "" (none) or one line of text. */
static const char *check_line(const char *v)
{
	return *v ? check_header(v) : NULL;
}

/* warc.prefix: "" (made at creation), or a name that begins WARC file names:
 * letters, digits, '.', '_', '-', beginning with a letter or digit. */
const char *config_prefix_problem(const char *v)
{
	const char *p;

	if (!*v)
		return NULL;
	if (strlen(v) > 64)
		return "longer than 64 bytes";
	if (!isalnum((unsigned char)*v))
		return "does not begin with a letter or digit";
	for (p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return "holds a byte other than letters, digits, '.', '_', '-'";
	return NULL;
}

/* http.accept_encoding: "" or a comma-separated list of the codings the
 * parser undoes (parse/decode.h), optionally with q-values. */
static const char *check_codings(const char *v)
{
	static const char *const known[] = { "gzip", "deflate", "br", "zstd", "identity" };
	const char *p = v, *why = *v ? check_header(v) : NULL;

	if (why)
		return why;
	while (*p) {
		size_t n, i, ok = 0;

		p += strspn(p, " \t");
		n = strcspn(p, ",;");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			ok |= n == strlen(known[i]) && !strncasecmp(p, known[i], n);
		if (!ok)
			return "a list of gzip, deflate, br, zstd, identity (the codings mpicrawl "
			       "decodes)";
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return NULL;
}

/* Why the file at v cannot be read, naming it and the node it was read on
 * (a static buffer), into *why; or its bytes into b. */
static int read_named(const char *v, struct buf *b, const char **why)
{
	static char text[600];
	enum cr_err e = inputs_read(v, INPUTS_FILE_MAX, b);

	if (!e)
		return 0;
	snprintf(text, sizeof(text), "cannot be read on %s: %s", inputs_node(),
		 e == CR_ERR_LIMIT ? "too large" : strerror(errno));
	*why = text;
	return -1;
}

/* warc.zstd_dictionary: "" or a readable zstd dictionary (zstd --train). */
static const char *check_dictionary(const char *v)
{
	static const unsigned char magic[4] = { 0x37, 0xa4, 0x30, 0xec };
	const char *why = NULL;
	struct buf b;

	if (!*v)
		return NULL;
	buf_init(&b);
	if (!read_named(v, &b, &why) && (b.len < 4 || memcmp(b.p, magic, 4)))
		why = "not a zstd dictionary";
	buf_release(&b);
	return why;
}
/* tls.ca_file: "" or a readable PEM file: a line that begins a certificate. */
static const char *check_ca_file(const char *v)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	const char *why = NULL, *p;
	struct buf b;

	if (!*v)
		return NULL;
	buf_init(&b);
	if (!read_named(v, &b, &why)) {
		why = "holds no PEM certificate";
		for (p = buf_cstr(&b); p; p = strchr(p, '\n')) {
			p += *p == '\n';
			if (!strncmp(p, begin, sizeof(begin) - 1)) {
				why = NULL;
				break;
			}
		}
	}
	buf_release(&b);
	return why;
}
static const char *const text_formats[] = { "wet", "jsonl", "none", NULL };
/* In the order of enum score_order (score/score.h). */
/* In the order of enum refresh_policy (generate/refresh.h). */
static const char *const recrawl_policies[] = { "fixed", "adaptive", "nutch", "freshness",
						 NULL };
static const char *const generate_orders[] = { "score", "fifo", "pagerank", "hostrank", NULL };
/* In the order of text_boilerplate's values (config.h). */
static const char *const text_boilerplates[] = { "keep", "mark", "drop", NULL };

static const struct key keys[] = {
	L("politeness.delay_ms", delay_ms, 0, 3600000, "1000",
	  "minimum time between the end of one request to a host and the start of the next (ms)"),
	L("politeness.max_in_flight", max_in_flight, 1, 64, "1",
	  "most requests open at once to one host"),
	{ "politeness.by", K_ENUM_POLITENESS, offsetof(struct config, politeness_by), 0, 0, 2,
	  "host", "what the delay and max_in_flight apply to: host, domain or ip", NULL, NULL, 0 },
	L("politeness.max_crawl_delay_ms", max_crawl_delay_ms, 0, 86400000, "30000",
	  "a host whose robots.txt asks for a longer Crawl-delay is deferred (ms)"),
	L("politeness.max_host_failures", max_host_failures, 1, 1000, "5",
	  "failed requests in a row after which a host is parked for the round"),
	L("politeness.backoff_max_ms", backoff_max_ms, 0, 86400000, "60000",
	  "longest pause a failing host gets between requests (ms)"),
	B("fetch.allow_private", allow_private, "false",
	  "fetch from loopback, private, link-local and other non-public addresses"),
	L("fetch.max_connections", max_connections, 1, 100000, "256",
	  "most requests open at once per rank"),
	L("fetch.connect_timeout_s", connect_timeout_s, 1, 3600, "10",
	  "connect timeout (s)"),
	L("fetch.timeout_s", timeout_s, 1, 86400, "60",
	  "total time one request may take (s)"),
	L("fetch.low_speed_bytes", low_speed_bytes, 0, 1L << 30, "100",
	  "abort a transfer slower than this many bytes/s ..."),
	L("fetch.low_speed_time_s", low_speed_time_s, 1, 3600, "20",
	  "... for this many seconds"),
	L("fetch.max_body_bytes", max_body_bytes, 1024, 1L << 31, "10485760",
	  "body bytes kept per response; the rest is cut and the record marked truncated"),
	L("fetch.max_redirects", max_redirects, 0, 100, "5",
	  "redirects in a row followed from a link; the target after more is a trap"),
	SC("fetch.allow_addresses", allow_addresses, "", check_addresses,
	  "comma-separated addresses or CIDR ranges fetched although not public"),
	L("fetch.max_header_bytes", max_header_bytes, 4096, 16L << 20, "262144",
	  "bytes of response head read; a longer head makes the page too_large"),
	L("fetch.max_decoded_bytes", max_decoded_bytes, 1024, 1L << 31, "20971520",
	  "bytes a Content-Encoding (gzip, deflate, zstd) may decode to; the page is too_large"),
	B("fetch.parse", fetch_parse, "true",
	  "parse pages while fetching, so that the parse phase has nothing left to do"),
	B("fetch.embeds", fetch_embeds, "true",
	  "fetch each page's requisites (images, stylesheets, scripts, fonts) for replay"),
	L("fetch.max_embeds", max_embeds, 0, 100000, "200",
	  "requisites kept of one page (or stylesheet), at most"),
	L("fetch.follow_max", follow_max, 0, 1L << 31, "1000",
	  "links of a host's pages to its own origin that join its queue in the same round, "
	  "at most, per host (0: links wait for the next round)"),
	L("fetch.time_limit_s", time_limit_s, 0, 1L << 31, "0",
	  "end a fetch phase after this many seconds, leaving the rest due (0: no limit)"),
	L("comm.timeout_s", comm_timeout_s, 0, 86400, "60",
	  "a rank not heard from this long (a lost node or network) ends the job (s; 0: off, "
	  "else at least 5)"),
	L("fetch.stop_grace_s", stop_grace_s, 0, 3600, "10",
	  "on SIGTERM/SIGUSR1, time open requests get to finish before they are abandoned (s)"),
	L("fetch.max_hold_s", max_hold_s, 0, 86400, "30",
	  "a host whose next request may start only later than this leaves the round (s)"),
	L("fetch.sync_interval_ms", sync_interval_ms, 10, 3600000, "1000",
	  "how often finished URLs are made durable in the fetch journal (ms)"),
	SC("dns.servers", dns_servers, "", check_servers,
	  "comma-separated DNS servers (ip or ip:port); empty: resolv.conf and /etc/hosts"),
	C("dns.family", dns_family, dns_families, "auto",
	  "addresses used: auto (AAAA and A, libcurl races them), ipv4 or ipv6 only"),
	L("dns.timeout_ms", dns_timeout_ms, 100, 600000, "1000",
	  "timeout of the first DNS query try; each of the 3 tries doubles it (ms)"),
	L("dns.cache_ttl_s", dns_cache_ttl_s, 0, 86400 * 7, "3600",
	  "how long a resolved address is reused (s)"),
	L("dns.negative_ttl_s", dns_negative_ttl_s, 0, 86400, "300",
	  "how long a failed lookup is remembered (s)"),
	SC("robots.agent", robots_agent, "mpicrawl", check_agent,
	  "product token matched against robots.txt user-agent lines"),
	L("robots.cache_ttl_s", robots_ttl_s, 0, 86400 * 365, "86400",
	  "how long a fetched robots.txt is used before it is fetched again (s)"),
	L("robots.max_bytes", robots_max_bytes, 1024, 16L << 20, "512000",
	  "bytes of a robots.txt that are read"),
	L("robots.early_max", robots_early_max, 0, 1L << 31, "1000",
	  "robots.txt files of hosts new to the crawl asked in the round that finds a link "
	  "to them, at most, per rank and round (0: in the round that fetches them)"),
	SC("http.user_agent", user_agent, "mpicrawl/0.1", check_header,
	  "User-Agent header sent with every request"),
	SC("http.from", from, "", check_line,
	  "From header sent with every request: the operator's e-mail address (\"\": none)"),
	SC("http.accept_encoding", accept_encoding, "gzip, deflate, br, zstd", check_codings,
	  "Accept-Encoding of page requests (the WARC keeps bodies as sent); \"\": none"),
	C("http.version", http_version, http_versions, "auto",
	  "auto: HTTP/2 where a TLS server offers it by ALPN, else 1.1; 1.1; 2 (also h2c)"),
	B("tls.verify", tls_verify, "true",
	  "verify server certificates and names; false is logged and marks no page (opt-out)"),
	SP("tls.ca_file", tls_ca_file, "", check_ca_file,
	  "PEM file of the CAs trusted instead of the system's store; \"\": the system's"),
	B("url.drop_fragment", url_drop_fragment, "true",
	  "canonical URLs drop the fragment (#...)"),
	B("url.drop_userinfo", url_drop_userinfo, "true",
	  "canonical URLs drop user name and password"),
	B("url.default_port", url_default_port, "true",
	  "canonical URLs drop the scheme's default port (:80 for http, :443 for https)"),
	B("url.drop_trailing_dot", url_drop_trailing_dot, "true",
	  "canonical URLs drop the host's trailing dot (example.com. is example.com)"),
	B("url.dot_segments", url_dot_segments, "true",
	  "./ and ../ path segments are resolved"),
	B("url.normalize_escapes", url_normalize_escapes, "true",
	  "%xx of unreserved characters decoded, other escapes upper-cased"),
	B("url.drop_empty_query", url_drop_empty_query, "true",
	  "canonical URLs drop an empty query (x? is x)"),
	S("url.strip_params", url_strip_params,
	  "utm_*,fbclid,gclid,gclsrc,dclid,msclkid,mc_eid,mc_cid,yclid,igshid,_ga,_gl,"
	  "twclid,ttclid,wbraid,gbraid",
	  "query parameters dropped, comma-separated, case-insensitive, * suffix wildcard"),
	B("url.strip_session_ids", url_strip_session_ids, "true",
	  "drop ;jsessionid= and the phpsessid, sid, sessionid, jsessionid, aspsessionid* "
	  "parameters"),
	B("url.sort_query", url_sort_query, "false",
	  "canonical URLs have their query parameters sorted"),
	L("url.max_length", url_max_length, 16, 2048, "2048",
	  "longer canonical URLs are refused as invalid (too long)"),
	L("crawl.max_depth", max_depth, 0, 1000000, "0",
	  "links further than this many hops from a seed are not followed (0: no limit)"),
	L("crawl.max_rounds", max_rounds, 1, 1000000, "100",
	  "safety cap on rounds when crawl runs without --rounds"),
	L("crawl.refetch_interval_s", refetch_interval_s, 0, 1L << 31, "2592000",
	  "time until a fetched page is due again (s)"),
	C("recrawl.policy", recrawl_policy, recrawl_policies, "fixed",
	  "when a fetched page is due again: fixed (crawl.refetch_interval_s), adaptive (the "
	  "time to its next change, estimated from its visits), nutch (AdaptiveFetchSchedule) or "
	  "freshness (under generate.top_n: the refetches that most raise the collection's "
	  "expected freshness; otherwise as adaptive)"),
	L("recrawl.min_interval_s", recrawl_min_s, 0, 1L << 31, "3600",
	  "adaptive, nutch and freshness: a page is not due again sooner than this (s)"),
	L("recrawl.max_interval_s", recrawl_max_s, 1, 1L << 31, "31536000",
	  "adaptive, nutch and freshness: nor later than this (s)"),
	D("recrawl.share", recrawl_share, 0, 1000000000, "0.5",
	  "under generate.top_n: the share of the budget refetches get while new URLs wait "
	  "(each side's unused part goes to the other)"),
	L("crawl.retry_interval_s", retry_interval_s, 0, 1L << 31, "86400",
	  "time until a page that failed transiently is tried again (s)"),
	L("crawl.max_retries", max_retries, 0, 100, "3",
	  "transient failures before a page is marked gone"),
	L("generate.max_per_host", max_per_host, 0, 1L << 31, "0",
	  "most URLs of one host in one fetch list (0: no limit)"),
	L("generate.top_n", top_n, 0, 1L << 40, "0",
	  "most URLs in one round over all ranks, the highest priority first (0: no budget); "
	  "links are then not followed within the round"),
	C("generate.order", generate_order, generate_orders, "score",
	  "order of due URLs: score (OPIC cash and priors, docs/SCORING.md), fifo "
	  "(breadth first), pagerank or hostrank (mpicrawl rank's)"),
	L("rank.every_rounds", rank_every_rounds, 0, 1000000, "0",
	  "crawl runs mpicrawl rank after every this many rounds (0: never)"),
	D("score.seed_cash", score_seed_cash, 1, 1000000000000000L, "1",
	  "OPIC cash a seed enters with (times its score= setting)"),
	D("score.sitemap_weight", score_sitemap_weight, 0, 2000000000, "1",
	  "how much a sitemap <priority> weighs: cash * (1 + weight * (priority - 0.5))"),
	D("score.depth_decay", score_depth_decay, 1, 1000000000, "1",
	  "priority multiplied by this per link from the seed (1: depth does not count)"),
	D("rank.tolerance", rank_tolerance, 1, 1000000000, "0.000001",
	  "mpicrawl rank stops when a power step moves the ranks less than this (L1, they sum "
	  "to 1)"),
	L("rank.max_iterations", rank_max_iterations, 1, 10000, "100",
	  "mpicrawl rank's power steps, at most"),
	L("generate.round_s", round_s, -1, 1L << 31, "auto",
	  "seconds of each host's delays a round plans for: a host gets at most round_s / "
	  "delay + 1 URLs, followed links included (0: no plan; auto: half a delay, held "
	  "while the rounds find hosts, then growing 1.25x a round)"),
	L("partition.count", partitions, 1, 65536, "16",
	  "number of partitions; fixed when the crawl directory is created"),
	{ "partition.by", K_ENUM_PARTITION, offsetof(struct config, partition_by), 0, 0, 1,
	  "host", "partition key: host, or domain (registrable domain, via libpsl)", NULL, NULL,
	  0 },
	L("memory.budget_mb", memory_budget_mb, 16, 1L << 20, "256",
	  "memory per rank for sorting and merging (MiB)"),
	L("store.zstd_level", zstd_level, 1, 19, "3",
	  "zstd level of the crawl directory's record files"),
	L("warc.gzip_level", warc_gzip_level, 1, 9, "6",
	  "gzip level of the WARC files (1 fastest, 9 smallest)"),
	C("warc.compression", warc_compression, warc_compressions, "gzip",
	  "WARC files as gzip (.warc.gz) or zstd (.warc.zst), one member/frame per record"),
	L("warc.zstd_level", warc_zstd_level, 1, 19, "3",
	  "zstd level of .warc.zst files"),
	SP("warc.zstd_dictionary", warc_zstd_dict, "", check_dictionary,
	  "a zstd dictionary file (zstd --train) for .warc.zst; empty: none"),
	B("warc.revisits", warc_revisits, "true",
	  "a page fetched again: conditional (ETag, date); revisits for a 304 or the same body"),
	B("warc.split", warc_split, "false",
	  "redirects, 4xx and 5xx (-diagnostics) and sitemaps (-sitemaps) in WARC series of their "
	  "own, as Common Crawl keeps them apart (false: with the pages; robots.txt apart always)"),
	B("warc.metadata", warc_metadata, "true",
	  "a metadata record per page: fetch time, robots decision, outlinks"),
	L("warc.max_bytes", warc_max_bytes, 0, 1L << 50, "1073741824",
	  "a WARC file holding this many bytes is closed and the next one started (0: never)"),
	B("index.enabled", index_enabled, "true",
	  "after each round's update, write CDXJ indexes, extracted text and the link graph"),
	B("index.wat", index_wat, "false",
	  "with the index, a WAT file (Common Crawl's metadata JSON) of each WARC file; "
	  "reads the WARC files back"),
	SC("warc.prefix", warc_prefix, "", config_prefix_problem,
	  "what WARC file names begin with, fixed when the crawl directory is created (empty: "
	  "mpicrawl-TIMESTAMP-RANDOM, unique to the crawl)"),
	SC("warc.operator", warc_operator, "", check_line,
	  "warcinfo operator: who ran the crawl (a name, an e-mail address)"),
	SC("warc.is_part_of", warc_is_part_of, "", check_line,
	  "warcinfo isPartOf: the collection the crawl belongs to"),
	SC("warc.description", warc_description, "", check_line,
	  "warcinfo description: what the crawl is, in one line"),
	SC("warc.publisher", warc_publisher, "", check_line,
	  "warcinfo publisher: who publishes the collection"),
	C("text.format", text_format, text_formats, "wet",
	  "extracted text as WARC conversion records (wet), JSON lines (jsonl) or none"),
	C("text.boilerplate", text_boilerplate, text_boilerplates, "keep",
	  "boilerplate lines of the text (menus, link lists, footers): keep, mark or drop"),
	L("parse.max_links", max_links, 1, 1000000, "5000",
	  "outlinks kept per page"),
	B("parse.pdf", parse_pdf, "true",
	  "read PDFs (text, metadata, links) in a worker process of each rank"),
	L("parse.pdf_max_bytes", pdf_max_bytes, 1024, 1L << 31, "33554432",
	  "a larger PDF is not parsed (pdf:too-large)"),
	L("parse.pdf_max_pages", pdf_max_pages, 1, 1000000, "2000",
	  "pages of a PDF whose text and links are read"),
	L("parse.pdf_timeout_s", pdf_timeout_s, 1, 3600, "5",
	  "CPU time one PDF may take (s); twice that, plus a second, of wall time"),
	C("scope.embeds", scope_embeds, scope_embeds, "any-host",
	  "requisites: any-host (wherever they are) or in-scope (as links are scoped)"),
	C("scope.mode", scope_mode, config_scope_modes, "seeds-domains",
	  "URLs that may enter the CrawlDb: of the seeds' registrable domains, the seeds' "
	  "hosts, or any"),
	SP("scope.rules", scope_rules, "", NULL,
	  "a rules file (SURT prefixes, regexes), consulted before scope.mode (docs/SCOPE.md)"),
	SP("hosts.rules", hosts_rules, "", NULL,
	  "the operator's host rules: block a host, or override its delay_ms, max_in_flight, "
	  "max_per_host (docs/SCOPE.md); read again by every round"),
	B("sitemaps.enabled", sitemaps_enabled, "true",
	  "fetch the sitemaps robots.txt files name, and read sitemaps for URLs"),
	B("sitemaps.probe", sitemaps_probe, "false",
	  "also try /sitemap.xml of every site whose robots.txt was fetched"),
	L("sitemaps.refetch_interval_s", sitemaps_refetch_s, 0, 1L << 31, "86400",
	  "time until a fetched sitemap is due again (s): its news makes pages due"),
	B("log.decisions", log_decisions, "true",
	  "write each URL not fetched or not stored, with its reason, to segments/N/decisions/"),
	L("trap.max_path_segments", trap_max_segments, 0, 256, "64",
	  "a new URL whose path has more segments is a trap (0: no limit)"),
	L("trap.max_segment_repeats", trap_max_repeats, 0, 256, "3",
	  "a new URL in whose path one segment occurs more often is a trap (0: no limit)"),
	L("trap.max_query_variants", trap_max_query_variants, 0, 1L << 40, "256",
	  "URLs of one path differing only in their query beyond this are traps (0: no limit)"),
	L("crawl.max_urls_per_host", max_urls_per_host, 0, 1L << 40, "1000000",
	  "URLs of one host in the CrawlDb beyond this enter as traps (0: no limit)"),
	L("trap.demote_min_pages", demote_min_pages, 0, 1L << 40, "20",
	  "a host with at least this many pages, mostly duplicates, is demoted (0: never)"),
	D("trap.demote_duplicate_share", demote_share, 0, 1000000000, "0.9",
	  "share of duplicates among a host's pages from which it is demoted"),
	L("trap.demoted_per_round", demoted_per_round, 0, 1L << 40, "5",
	  "URLs of a demoted host in one fetch list"),
	B("seen.enabled", seen_enabled, "true",
	  "drop links to URLs the CrawlDb holds (a Bloom filter per partition) before sorting"),
	L("seen.expected_urls", seen_expected_urls, 1000, 1L << 40, "1000000",
	  "URLs the seen-set is sized for at first (whole crawl); it grows with the CrawlDb"),
	D("seen.fp_rate", seen_fp_rate, 1, 500000000, "0.0001",
	  "false-positive rate of the seen-set: the share of new links wrongly dropped"),
	B("dedup.enabled", dedup_enabled, "true",
	  "mark near-duplicate pages (MinHash, LSH) with status duplicate"),
	L("dedup.shingle_words", dedup_shingle, 1, 32, "5",
	  "words per shingle"),
	L("dedup.hashes", dedup_hashes, 16, 512, "128",
	  "MinHash values per page"),
	C("dedup.signature", dedup_signature, dedup_signatures, "oph",
	  "oph (one hash per shingle, densified) or minhash (one per value); fixed when the "
	  "crawl directory is created"),
	L("dedup.bands", dedup_bands, 1, MINHASH_BANDS_MAX, "16",
	  "LSH bands; must divide dedup.hashes"),
	D("dedup.threshold", dedup_threshold, 100000000, 1000000000, "0.8",
	  "estimated Jaccard similarity from which a page is a near-duplicate"),
	L("dedup.max_candidates", dedup_max_cand, 1, 100000, "32",
	  "earlier pages of one LSH bucket a new page is compared with"),
	L("dedup.max_runs", dedup_max_runs, 1, 32, "8",
	  "sorted runs each near-duplicate store keeps after an update (1: one file, "
	  "rewritten each round)"),
	L("update.exchange_batch_kb", exchange_batch_kb, 4, 1L << 18, "4096",
	  "bytes one rank sends to all others in one link exchange step (KiB)"),
	L("progress.interval_ms", progress_ms, 100, 3600000, "1000",
	  "how often rank 0 prints the progress line (ms)"),
	L("metrics.interval_s", metrics_interval_s, 0, 3600, "5",
	  "how often rank 0 rewrites DIR/metrics.prom, Prometheus metrics (s); 0: never"),
	S("storage.tmp_dir", tmp_dir, "",
	  "node-local scratch for each rank's sort spills (\"\": $SLURM_TMPDIR, else $TMPDIR, "
	  "else DIR/tmp on the crawl directory's filesystem)"),
	B("storage.pack", storage_pack, "true",
	  "a phase's per-partition files are gathered into a few files per rank at its end "
	  "(false: one file per partition and round, as crawls before packs)"),
	S("metrics.path", metrics_path, "",
	  "where metrics.prom is written instead of DIR/metrics.prom (a node_exporter "
	  "textfile directory's NAME.prom)"),
	{ NULL, K_LONG, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0 },
};

void config_key(size_t i, const char **name, const char **def, const char **doc)
{
	if (i >= sizeof(keys) / sizeof(keys[0])) {
		*name = NULL;
		return;
	}
	*name = keys[i].name;
	*def = keys[i].def;
	*doc = keys[i].doc;
}

/* Checks modules registered for their keys (config_register_check). */
static struct {
	const char *key;
	config_check_fn fn;
} registered[8];

void config_register_check(const char *key, config_check_fn fn)
{
	size_t i;

	for (i = 0; i < sizeof(registered) / sizeof(registered[0]); i++)
		if (!registered[i].key || !strcmp(registered[i].key, key)) {
			registered[i].key = key;
			registered[i].fn = fn;
			return;
		}
	abort();   /* a programming error: more checks than slots */
}

static const char *registered_check(const char *key, const char *v)
{
	size_t i;

	for (i = 0; i < sizeof(registered) / sizeof(registered[0]) && registered[i].key; i++)
		if (!strcmp(registered[i].key, key))
			return registered[i].fn(v);
	return NULL;
}

/* A string key: its capacity, then its check (config.c's, then the
 * module's that registered one). */
static enum cr_err set_str(const struct key *k, char *p, const char *v)
{
	const char *why = k->check ? k->check(v) : NULL;

	if (!why)
		why = registered_check(k->name, v);

	if (strlen(v) >= k->size) {
		log_err("config", "%s: value longer than %zu bytes", k->name, k->size - 1);
		return CR_ERR_ARG;
	}
	if (why) {
		log_err("config", "%s: bad value '%.200s': %s", k->name, v, why);
		return CR_ERR_ARG;
	}
	memcpy(p, v, strlen(v) + 1);
	return CR_OK;
}

/* K_LONG: an integer in [min, max]; a minimum of -1 stands for the word
 * auto (stored as -1). */
static enum cr_err set_long(const struct key *k, long *p, const char *v)
{
	char *end;
	long x;

	if (k->min == -1 && !strcmp(v, "auto")) {
		*p = -1;
		return CR_OK;
	}
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < (k->min < 0 ? 0 : k->min) || x > k->max) {
		log_err("config", "%s: bad value '%s' (an integer from %ld to %ld%s)", k->name, v,
			k->min < 0 ? 0 : k->min, k->max, k->min == -1 ? ", or auto" : "");
		return CR_ERR_ARG;
	}
	*p = x;
	return CR_OK;
}

/* K_DBL: a number in [min/1e9, max/1e9]. */
static enum cr_err set_double(const struct key *k, double *p, const char *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= (double)k->min / 1e9) ||
	    !(x <= (double)k->max / 1e9)) {
		log_err("config", "%s: bad value '%s' (a number from %g to %g)", k->name, v,
			(double)k->min / 1e9, (double)k->max / 1e9);
		return CR_ERR_ARG;
	}
	*p = x;
	return CR_OK;
}

/* One of words (NULL-terminated), stored as its index; what names the
 * words in the error line when v is none of them. */
static enum cr_err set_word(const struct key *k, int *p, const char *v,
			    const char *const *words, const char *what)
{
	size_t i;

	for (i = 0; words[i]; i++)
		if (!strcmp(v, words[i])) {
			*p = (int)i;
			return CR_OK;
		}
	log_err("config", "%s: bad value '%s' (%s)", k->name, v, what);
	return CR_ERR_ARG;
}

/* K_CHOICE: one of the key's own words, which the error line lists. */
static enum cr_err set_choice(const struct key *k, int *p, const char *v)
{
	struct buf w;
	enum cr_err e;
	size_t i;

	buf_init(&w);
	for (i = 0; k->choices[i]; i++)
		buf_addf(&w, "%s%s", i ? ", " : "", k->choices[i]);
	e = set_word(k, p, v, k->choices, buf_cstr(&w));
	buf_release(&w);
	return e;
}

static enum cr_err set_key(struct config *c, const struct key *k, const char *v)
{
	/* In the order of enum politeness_by and enum partition_by (config.h). */
	static const char *const polite[] = { "host", "domain", "ip", NULL };
	static const char *const part[] = { "host", "domain", NULL };
	static const char *const yes[] = { "false", "true", "0", "1", "no", "yes", NULL };
	char *p = (char *)c + k->off;
	enum cr_err e;

	switch (k->type) {
	case K_LONG:
		return set_long(k, (long *)p, v);
	case K_DBL:
		return set_double(k, (double *)p, v);
	case K_BOOL:
		e = set_word(k, (int *)p, v, yes, "true or false");
		if (e == CR_OK)
			*(int *)p %= 2;   /* the odd words say yes */
		return e;
	case K_STR:
		return set_str(k, p, v);
	case K_ENUM_POLITENESS:
		return set_word(k, (int *)p, v, polite, "host, domain or ip");
	case K_CHOICE:
		return set_choice(k, (int *)p, v);
	case K_ENUM_PARTITION:
		return set_word(k, (int *)p, v, part, "host or domain");
	}
	return CR_ERR_ARG;
}

void config_defaults(struct config *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; keys[i].name; i++)
		if (set_key(c, &keys[i], keys[i].def) != CR_OK)
			abort();   /* a default that does not parse is a bug */
}

enum cr_err config_set(struct config *c, const char *key, const char *value)
{
	size_t i;

	for (i = 0; keys[i].name; i++)
		if (!strcmp(keys[i].name, key)) {
			char cwd[PATH_MAX], abs[2 * PATH_MAX + 2];
			enum cr_err e;

			/* A file named relative to where the command runs: kept
			 * absolute, so the provenance copy of the configuration
			 * names it from anywhere. */
			if (keys[i].path && *value && *value != '/' && getcwd(cwd, sizeof(cwd)) &&
			    (size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, value) < sizeof(abs))
				value = abs;
			e = set_key(c, &keys[i], value);

			if (!e && !strcmp(key, "partition.count"))
				c->partitions_set = 1;
			if (!e && !strcmp(key, "dedup.signature"))
				c->dedup_signature_set = 1;
			if (!e && !strcmp(key, "partition.by"))
				c->partition_by_set = 1;
			return e;
		}
	log_err("config", "unknown key '%s'", key);
	return CR_ERR_ARG;
}

enum cr_err config_check(const struct config *c)
{
	if (c->recrawl_min_s > c->recrawl_max_s) {
		log_err("config", "recrawl.min_interval_s (%ld) is greater than "
			"recrawl.max_interval_s (%ld)", c->recrawl_min_s, c->recrawl_max_s);
		return CR_ERR_ARG;
	}
	if (c->dedup_bands > 0 && c->dedup_hashes % c->dedup_bands) {
		log_err("config", "dedup.bands (%ld) must divide dedup.hashes (%ld)",
			c->dedup_bands, c->dedup_hashes);
		return CR_ERR_ARG;
	}
	/* Ranks beat once a second: a shorter silence is no silence. */
	if (c->comm_timeout_s > 0 && c->comm_timeout_s < 5) {
		log_err("config", "comm.timeout_s must be 0 (off) or at least 5 (s), not %ld",
			c->comm_timeout_s);
		return CR_ERR_ARG;
	}
	return CR_OK;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

enum cr_err config_set_kv(struct config *c, const char *kv)
{
	char tmp[1024];
	char *eq;

	if (snprintf(tmp, sizeof(tmp), "%s", kv) >= (int)sizeof(tmp)) {
		log_err("config", "setting too long: '%.40s...'", kv);
		return CR_ERR_ARG;
	}
	eq = strchr(tmp, '=');
	if (!eq) {
		log_err("config", "'%s' is not key=value", kv);
		return CR_ERR_ARG;
	}
	*eq = '\0';
	return config_set(c, trim(tmp), trim(eq + 1));
}

/* The longest line of a config file. */
#define CONFIG_LINE_MAX 4096

static int key_index(const char *name)
{
	int i;

	for (i = 0; keys[i].name; i++)
		if (!strcmp(keys[i].name, name))
			return i;
	return -1;
}

/* One line of a config file (comment already cut, trimmed, not empty). */
static enum cr_err load_line(struct config *c, const char *path, int lineno, char *t,
			     int *first_line)
{
	char *eq = strchr(t, '='), *value, joined[CONFIG_LINE_MAX + PATH_MAX];
	int k;

	if (!eq) {
		log_err("config", "%s:%d: expected 'key = value'", path, lineno);
		return CR_ERR_ARG;
	}
	*eq = '\0';
	k = key_index(trim(t));
	if (k >= 0 && first_line[k]) {
		log_err("config", "%s:%d: '%s' is set again (first at line %d)", path, lineno,
			keys[k].name, first_line[k]);
		return CR_ERR_ARG;
	}
	value = trim(eq + 1);
	/* A file named by a job file is found beside it, wherever the job runs. */
	if (k >= 0 && keys[k].path && *value && *value != '/' && strrchr(path, '/')) {
		snprintf(joined, sizeof(joined), "%.*s/%s", (int)(strrchr(path, '/') - path), path,
			 value);
		value = joined;
	}
	if (config_set(c, trim(t), value) != CR_OK) {
		log_err("config", "%s:%d: bad setting", path, lineno);
		return CR_ERR_ARG;
	}
	first_line[k] = lineno;
	return CR_OK;
}

enum cr_err config_load(struct config *c, const char *path)
{
	int first_line[sizeof(keys) / sizeof(keys[0])] = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;
	enum cr_err e = CR_OK;
	struct stat st;
	FILE *fp;

	/* Asked first: opening a FIFO would wait for a writer. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		log_err("config", "config file '%s' is not a regular file", path);
		return CR_ERR_ARG;
	}
	fp = fopen(path, "r");
	if (!fp) {
		log_err("config", "cannot read config file '%s' on %s: %s", path, inputs_node(),
			strerror(errno));
		return CR_ERR_ARG;
	}
	while (!e && (n = fs_getline_max(&line, &cap, CONFIG_LINE_MAX, fp)) != -1) {
		char *t;

		lineno++;
		/* A byte-order mark some editors put first is not part of a key. */
		if (lineno == 1 && n >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
			memmove(line, line + 3, (size_t)n - 2);
			n -= 3;
		}
		if (n == FS_LINE_TOO_LONG) {
			log_err("config", "%s:%d: line too long (over %d bytes)", path, lineno,
				CONFIG_LINE_MAX);
			e = CR_ERR_ARG;
		} else if (memchr(line, '\0', (size_t)n)) {
			log_err("config", "%s:%d: not a text file", path, lineno);
			e = CR_ERR_ARG;
		}
		if (e)
			break;
		/* '#' starts a comment at the start of a line or after a blank,
		 * so a value such as a URL with a fragment keeps its '#'. */
		for (t = line; *t; t++)
			if (*t == '#' && (t == line || isspace((unsigned char)t[-1]))) {
				*t = '\0';
				break;
			}
		t = trim(line);
		if (*t)
			e = load_line(c, path, lineno, t, first_line);
	}
	if (!e && ferror(fp)) {
		log_err("config", "cannot read config file '%s' on %s", path, inputs_node());
		e = CR_ERR_ARG;
	}
	free(line);
	fclose(fp);
	return e;
}

void config_write(const struct config *c, char *out, size_t cap)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; keys[i].name; i++) {
		const char *p = (const char *)c + keys[i].off;

		switch (keys[i].type) {
		case K_LONG:
			if (keys[i].min == -1 && *(const long *)p == -1)
				buf_addf(&b, "%s = auto\n", keys[i].name);
			else
				buf_addf(&b, "%s = %ld\n", keys[i].name, *(const long *)p);
			break;
		case K_DBL:
			buf_addf(&b, "%s = %.10g\n", keys[i].name, *(const double *)p);
			break;
		case K_BOOL:
			buf_addf(&b, "%s = %s\n", keys[i].name,
				 *(const int *)p ? "true" : "false");
			break;
		case K_STR:
			buf_addf(&b, "%s = %s\n", keys[i].name, p);
			break;
		case K_ENUM_PARTITION:
			buf_addf(&b, "%s = %s\n", keys[i].name,
				 *(const int *)p == PARTITION_BY_DOMAIN ? "domain" : "host");
			break;
		case K_ENUM_POLITENESS:
			buf_addf(&b, "%s = %s\n", keys[i].name,
				 *(const int *)p == POLITE_BY_IP ? "ip" :
				 *(const int *)p == POLITE_BY_DOMAIN ? "domain" : "host");
			break;
		case K_CHOICE:
			buf_addf(&b, "%s = %s\n", keys[i].name, keys[i].choices[*(const int *)p]);
			break;
		}
	}
	snprintf(out, cap, "%s", buf_cstr(&b));
	buf_release(&b);
}

size_t config_warc_block_max(const struct config *c)
{
	const uint64_t least = 64u << 20;
	uint64_t n = (uint64_t)c->max_body_bytes + 2 * (uint64_t)c->max_header_bytes + 65536;

	return n > least && n < SIZE_MAX ? (size_t)n : (size_t)least;
}

/*
 * hostile.c - the hostile quarter: its hosts, their answers and their truth.
 *
 * One host per class of attack, xNNNN.D with NNNN its row of hostile_hosts,
 * so that the failures of one class never make a crawler give up on a host
 * before it tried the others (politeness.max_host_failures). Each host's
 * home page links its endpoints; h0000's home page links every home page.
 *
 * The compression bombs are built without a compression library: a deflate
 * block and a brotli meta-block run that zlib and libbrotli wrote once
 * (for 1 MiB and 128 MiB of zeros; the bytes are below), repeated, and zstd
 * RLE blocks written by hand (RFC 8878 3.1.1.2). A repeated unit is kept in
 * a buffer of at least HQ_EXPAND bytes so that sending it costs few calls.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "hostile.h"

#define HQ_DRIP_BODY 300u          /* /drip.html: body bytes, one a second */
#define HQ_DRIP_HEAD_BODY 64u      /* /drip-head.html: body bytes after the dripped head */
#define HQ_DRIP_MS 1000u
#define HQ_STALL_MS 120000u        /* /stall.html: silence after the head, then FIN */
#define HQ_STALL_DECLARED 1000u
#define HQ_CHUNK 4096u             /* /endless.html: chunk data bytes */
#define HQ_ENDLESS_CAP (64u << 20) /* ... chunk data sent before the FIN */
#define HQ_LONG_DECLARED 100000u   /* /cl-long.html: Content-Length ... */
#define HQ_LONG_SENT 2000u         /* ... and bytes sent before the FIN */
#define HQ_RESET_DECLARED 20000u   /* /reset.html: Content-Length ... */
#define HQ_RESET_SENT 4000u        /* ... bytes sent, then a pause, then RST */
#define HQ_RESET_HOLD_MS 200u
#define HQ_CHAIN 20u               /* /chain/0 .. /chain/20: 20 redirects */
#define HQ_LINKS 100000u           /* /links.html */
#define HQ_LONG_URL 65536u         /* bytes of the path of /long-url.html's link */
#define HQ_NEST 100000u            /* /nested.html: open <div>s */
#define HQ_FILLER (1u << 20)       /* unterminated comment and attribute */
#define HQ_BINARY 65536u
#define HQ_HEADERS_FEW 3000u       /* /many-headers.html: under a 256 KiB header cap */
#define HQ_HEADERS_MANY 20000u     /* /many-headers-big.html: 650 KB of head */
#define HQ_HUGE_HEADER (1u << 20)  /* /huge-header.html: one header line */
#define HQ_EXPAND 65536u
#define HQ_GZ_CHUNKS 1024u         /* of 1 MiB: 1 GiB */
#define HQ_ZST_BLOCKS 32768u       /* of 128 KiB: 4 GiB */
#define HQ_BR_UNITS 31u            /* of 128 MiB, between a head and a tail: 4 GiB */
#define HQ_TEXT_MAX 6144u          /* bodies built per request */

enum hq_class {
	HC_DRIP, HC_DRIP_HEAD, HC_STALL, HC_ENDLESS, HC_LENGTH, HC_RESET, HC_FLAP, HC_BOMBS,
	HC_REDIRECT, HC_CALENDAR, HC_PATHS, HC_SESSION, HC_LINKS, HC_LONGURL, HC_PARSER,
	HC_HEADERS, HC_DNS, HC_COUNT_
};

static const char *const hq_names[HC_COUNT_] = {
	"drip", "drip-head", "stall", "endless", "length", "reset", "flap", "bombs",
	"redirect", "calendar", "paths", "session", "links", "long-url", "parser",
	"headers", "dns",
};

/* Endpoints each host's home page links, and what a crawler records for them. */
static const struct hq_ep {
	enum hq_class host;
	const char *path;
	const char *expected;
} hq_eps[] = {
	{ HC_DRIP, "/drip.html", "timeout" },
	{ HC_DRIP_HEAD, "/drip-head.html", "timeout" },
	{ HC_STALL, "/stall.html", "timeout" },
	{ HC_ENDLESS, "/endless.html", "truncated" },
	{ HC_LENGTH, "/cl-long.html", "error" },
	{ HC_LENGTH, "/cl-short.html", "fetched" },
	{ HC_RESET, "/reset.html", "error" },
	{ HC_FLAP, "/flap.html", "error" },
	{ HC_BOMBS, "/bomb.gz.html", "too_large" },
	{ HC_BOMBS, "/bomb.br.html", "too_large" },
	{ HC_BOMBS, "/bomb.zst.html", "too_large" },
	{ HC_BOMBS, "/ok.gz.html", "fetched" },
	{ HC_BOMBS, "/ok.zst.html", "fetched" },
	{ HC_REDIRECT, "/loop/a", "redirect" },
	{ HC_REDIRECT, "/self", "redirect" },
	{ HC_REDIRECT, "/chain/0", NULL },          /* the chain: see hostile_truth */
	{ HC_REDIRECT, "/to-file", "blocked" },
	{ HC_REDIRECT, "/to-ftp", "blocked" },
	{ HC_REDIRECT, "/to-rebind", "redirect" },
	{ HC_REDIRECT, "/no-location", "gone" },
	{ HC_CALENDAR, "/cal/2026/11", "fetched" },
	{ HC_PATHS, "/a/", "fetched" },
	{ HC_SESSION, NULL, "fetched" },            /* /session?sid=<first> */
	{ HC_LINKS, "/links.html", "fetched" },
	{ HC_LONGURL, "/long-url.html", "fetched" },
	{ HC_PARSER, "/nested.html", "fetched" },
	{ HC_PARSER, "/comment.html", "fetched" },
	{ HC_PARSER, "/attr.html", "fetched" },
	{ HC_PARSER, "/bad-utf8.html", "fetched" },
	{ HC_PARSER, "/wrong-charset.html", "fetched" },
	{ HC_PARSER, "/binary.html", "fetched" },
	{ HC_HEADERS, "/many-headers.html", "fetched" },
	{ HC_HEADERS, "/many-headers-big.html", "too_large" },
	{ HC_HEADERS, "/huge-header.html", "too_large" },
};

#define HQ_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * /to-private/K: Locations already spelled as the crawler's canonical form
 * (WHATWG: default port dropped, IPv6 compressed, IPv4 numbers dotted),
 * except the last, a hex IPv4 number that canonicalises to the first.
 */
static const char *const hq_private[] = {
	"http://10.0.0.1/", "http://192.168.1.1/", "http://172.16.0.1/",
	"http://169.254.169.254/latest/meta-data/", "http://100.64.0.1/", "http://0.0.0.0/",
	"http://224.0.0.1/", "http://[::1]/", "http://[fd00::1]/", "http://[::ffff:a00:1]/",
	"http://0x0A000001/",
};
#define HQ_PRIVATE_CANON 10u   /* /to-private/K with K >= this lead to hq_private[0] */

/* The DNS host's links: name prefix, label, expected status. */
static const struct hq_dns {
	const char *name;    /* before ".D" */
	const char *expected;
} hq_dns[] = {
	{ "gone.nx", "error" },       /* NXDOMAIN */
	{ "down.sf", "error" },       /* REFUSED: dnsmasq has no server for sf.D */
	{ "silent.nr", "error" },     /* no answer: forwarded to a port that never answers */
	{ "empty.nodata", "error" },  /* NOERROR, no address (NODATA) */
	{ "rebind", "blocked" },      /* 10.0.0.1 */
};

/* The brotli bomb (libbrotli 1.0.9, quality 5, lgwin 24, 4 GiB of zeros). */
static const unsigned char hq_br_head[] = {
	0xcf, 0xff, 0xff, 0x7f, 0x00, 0x24, 0x00, 0xe2, 0xb1, 0x40, 0x72,
};
static const unsigned char hq_br_unit[] = {   /* 8 meta-blocks of 16 MiB */
	0xef, 0xff, 0xf9, 0xff, 0xff, 0x0f, 0x80, 0x04, 0x40, 0x1c, 0x16, 0x80, 0xee, 0xfd,
	0x3f, 0xff, 0xff, 0xff, 0x01, 0x90, 0x00, 0x88, 0xc3, 0x02, 0xd0, 0xbd, 0xff, 0xe7,
	0xff, 0xff, 0x3f, 0x00, 0x12, 0x00, 0x71, 0x58, 0x00, 0xba, 0xf7, 0xff, 0xfc, 0xff,
	0xff, 0x07, 0x40, 0x02, 0x20, 0x0e, 0x0b, 0x40, 0xf7, 0xfe, 0x9f, 0xff, 0xff, 0xff,
	0x00, 0x48, 0x00, 0xc4, 0x61, 0x01, 0xe8, 0xde, 0xff, 0xf3, 0xff, 0xff, 0x1f, 0x00,
	0x09, 0x80, 0x38, 0x2c, 0x00, 0xdd, 0xfb, 0x7f, 0xfe, 0xff, 0xff, 0x03, 0x20, 0x01,
	0x10, 0x87, 0x05, 0xa0, 0x7b, 0xff, 0xcf, 0xff, 0xff, 0x7f, 0x00, 0x24, 0x00, 0xe2,
	0xb0, 0x00, 0x74,
};
static const unsigned char hq_br_tail[] = {   /* the unit's first 90 bytes, then ISLAST */
	0xef, 0xff, 0xf9, 0xff, 0xff, 0x0f, 0x80, 0x04, 0x40, 0x1c, 0x16, 0x80, 0xee, 0xfd,
	0x3f, 0xff, 0xff, 0xff, 0x01, 0x90, 0x00, 0x88, 0xc3, 0x02, 0xd0, 0xbd, 0xff, 0xe7,
	0xff, 0xff, 0x3f, 0x00, 0x12, 0x00, 0x71, 0x58, 0x00, 0xba, 0xf7, 0xff, 0xfc, 0xff,
	0xff, 0x07, 0x40, 0x02, 0x20, 0x0e, 0x0b, 0x40, 0xf7, 0xfe, 0x9f, 0xff, 0xff, 0xff,
	0x00, 0x48, 0x00, 0xc4, 0x61, 0x01, 0xe8, 0xde, 0xff, 0xf3, 0xff, 0xff, 0x1f, 0x00,
	0x09, 0x80, 0x38, 0x2c, 0x00, 0xdd, 0xfb, 0x7f, 0xfe, 0xff, 0xff, 0x03, 0x20, 0x01,
	0x10, 0x87, 0x05, 0xa0, 0x7b, 0xff, 0x3f,
};

/*
 * One deflate block (zlib level 9, raw, Z_FULL_FLUSH) of 1 MiB of zeros: these
 * bytes, 1016 zero bytes, the tail (which ends with the flush's empty stored
 * block, so the next chunk starts on a byte and decodes alike).
 */
static const unsigned char hq_gz_block_head[] = {
	0xec, 0xc1, 0x31, 0x01, 0x00, 0x00, 0x00, 0xc2, 0xa0, 0xf5, 0x4f, 0x6d, 0x08, 0x5f, 0xa0,
};
#define HQ_GZ_BLOCK_ZEROS 1016u
static const unsigned char hq_gz_block_tail[] = { 0x3e, 0x03, 0x00, 0x00, 0xff, 0xff };
/* gzip: header (no name, no time, OS unix); end: a final empty block, CRC32 and
 * size mod 2^32 of 1 GiB of zeros, little-endian. */
static const unsigned char hq_gz_head[] = { 0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03 };
static const unsigned char hq_gz_tail[] = { 0x03, 0x00, 0xb0, 0xc2, 0x64, 0x5b, 0, 0, 0, 0x40 };

/* zstd: frame header (no single segment, 128 KiB window, 8-byte content size). */
static const unsigned char hq_zst_head[] = {
	0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x38, 0, 0, 0, 0, 1, 0, 0, 0,
};
static const unsigned char hq_zst_last[] = { 0x03, 0x00, 0x10, 0x00 };   /* last RLE block */

/* What follows the header lines of the header bombs: the blank line and a body. */
static const char hq_hdr_tail[] =
	"\r\n\r\n<!DOCTYPE html>\n<html><head><title>Headers</title></head>"
	"<body><p>The body after the headers.</p></body></html>\n";
#define HQ_HDR_BODY_LEN (sizeof(hq_hdr_tail) - 5)
static const char hq_long_tail[] = "\">a link of 64 KiB</a>.</p>\n</body>\n</html>\n";

struct hostile {
	char *gz_unit;      /* 64 deflate chunks: 64 MiB of zeros */
	size_t gz_unit_len;
	char *zst_unit;     /* 16384 RLE blocks: 2 GiB of zeros */
	size_t zst_unit_len;
	char *br;           /* the whole brotli bomb */
	size_t br_len;
	char *chunk_unit;   /* 16 chunks of HQ_CHUNK bytes, framed */
	size_t chunk_unit_len;
	char *links;        /* /links.html's body */
	size_t links_len;
	char *nested;       /* /nested.html's body */
	size_t nested_len;
	char *filler;       /* HQ_EXPAND bytes of words: no quote, dash or '>' */
	char *a_run;        /* HQ_EXPAND 'a's */
	char *binary;       /* HQ_BINARY pseudo-random bytes */
	char *hdr_few;      /* header lines */
	size_t hdr_few_len;
	char *hdr_many;
	size_t hdr_many_len;
};

static void hq_bytes(struct web_sb *sb, const void *p, size_t n)
{
	if (n > sb->cap - sb->len)
		n = sb->cap - sb->len;
	memcpy(sb->p + sb->len, p, n);
	sb->len += n;
}

/* The i-th number of the stream named by (seed, a, b). */
static uint64_t hq_rand(const struct web *w, uint64_t a, uint64_t b, uint64_t i)
{
	uint64_t v[4] = { w->seed, a, b, i };
	unsigned char buf[32];

	for (int j = 0; j < 4; j++)
		for (int k = 0; k < 8; k++)
			buf[j * 8 + k] = (unsigned char)(v[j] >> (8 * k));
	return XXH3_64bits(buf, sizeof(buf));
}

/* n words of the stream named by key: different keys give unrelated text. */
static void hq_words(const struct web *w, struct web_sb *sb, uint64_t key, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		web_sb_printf(sb, "%s%s", i ? " " : "", web_word(hq_rand(w, 0x68717771, key, i)));
}

static uint64_t hq_key(unsigned idx, const char *path)
{
	return XXH3_64bits(path, strlen(path)) ^ ((uint64_t)idx << 48);
}

/* A buffer of count copies of unit. */
static char *hq_repeat(const void *unit, size_t len, size_t count, size_t *out)
{
	char *p = malloc(len * count);

	if (!p)
		return NULL;
	for (size_t i = 0; i < count; i++)
		memcpy(p + i * len, unit, len);
	*out = len * count;
	return p;
}

static int hq_build_bombs(struct hostile *q)
{
	unsigned char block[sizeof(hq_gz_block_head) + HQ_GZ_BLOCK_ZEROS +
			    sizeof(hq_gz_block_tail)];
	static const unsigned char rle[4] = { 0x02, 0x00, 0x10, 0x00 };
	size_t n = 0;

	memcpy(block, hq_gz_block_head, sizeof(hq_gz_block_head));
	memset(block + sizeof(hq_gz_block_head), 0, HQ_GZ_BLOCK_ZEROS);
	memcpy(block + sizeof(hq_gz_block_head) + HQ_GZ_BLOCK_ZEROS, hq_gz_block_tail,
	       sizeof(hq_gz_block_tail));
	q->gz_unit = hq_repeat(block, sizeof(block), 64, &q->gz_unit_len);
	q->zst_unit = hq_repeat(rle, sizeof(rle), HQ_ZST_BLOCKS / 2, &q->zst_unit_len);
	q->br = malloc(sizeof(hq_br_head) + HQ_BR_UNITS * sizeof(hq_br_unit) +
		       sizeof(hq_br_tail));
	if (!q->gz_unit || !q->zst_unit || !q->br)
		return -1;
	memcpy(q->br, hq_br_head, sizeof(hq_br_head));
	n = sizeof(hq_br_head);
	for (unsigned i = 0; i < HQ_BR_UNITS; i++, n += sizeof(hq_br_unit))
		memcpy(q->br + n, hq_br_unit, sizeof(hq_br_unit));
	memcpy(q->br + n, hq_br_tail, sizeof(hq_br_tail));
	q->br_len = n + sizeof(hq_br_tail);
	return 0;
}

/* 16 chunks of text, each "1000\r\n" + HQ_CHUNK bytes + "\r\n". */
static int hq_build_chunks(struct hostile *q, const struct web *w)
{
	char data[HQ_CHUNK + 1];
	struct web_sb sb = { data, 0, sizeof(data) };
	char unit[HQ_CHUNK + 16];
	int hl;

	while (sb.len + 1 < sb.cap - 1) {
		web_sb_printf(&sb, "<p>");
		hq_words(w, &sb, 0x656e646c657373 + sb.len, 12);
		web_sb_printf(&sb, ".</p>\n");
	}
	memset(data + sb.len, '\n', HQ_CHUNK - sb.len);
	hl = snprintf(unit, sizeof(unit), "%x\r\n", HQ_CHUNK);
	memcpy(unit + hl, data, HQ_CHUNK);
	memcpy(unit + hl + HQ_CHUNK, "\r\n", 2);
	q->chunk_unit = hq_repeat(unit, (size_t)hl + HQ_CHUNK + 2, 16, &q->chunk_unit_len);
	return q->chunk_unit ? 0 : -1;
}

static char *hq_alloc_sb(struct web_sb *sb, size_t cap)
{
	sb->p = malloc(cap);
	sb->len = 0;
	sb->cap = cap;
	return sb->p;
}

static int hq_build_pages(struct hostile *q, const struct web *w)
{
	struct web_sb sb;
	uint64_t x = 0;

	/* /links.html: 100000 links, root-relative, to pages that do not exist. */
	if (!hq_alloc_sb(&sb, (size_t)HQ_LINKS * 48 + 4096))
		return -1;
	web_sb_printf(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<title>One hundred thousand links</title>\n</head>\n<body>\n<p>");
	hq_words(w, &sb, 0x6c696e6b73, 40);
	web_sb_printf(&sb, ".</p>\n");
	for (unsigned i = 0; i < HQ_LINKS; i++)
		web_sb_printf(&sb, "<a href=\"/links/%u.html\">%u</a>\n", i, i);
	web_sb_printf(&sb, "</body>\n</html>\n");
	q->links = sb.p;
	q->links_len = sb.len;

	/* /nested.html: a link home, then 100000 open <div>s around a word. */
	if (!hq_alloc_sb(&sb, (size_t)HQ_NEST * 5 + 4096))
		return -1;
	web_sb_printf(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<title>Nested elements</title>\n</head>\n<body>\n<p>");
	hq_words(w, &sb, 0x6e6573746564, 40);
	web_sb_printf(&sb, " <a href=\"/\">home</a>.</p>\n");
	for (unsigned i = 0; i < HQ_NEST; i++)
		web_sb_printf(&sb, "<div>");
	web_sb_printf(&sb, "deep\n");
	q->nested = sb.p;
	q->nested_len = sb.len;

	/* Filler: words and full stops only, so a comment or an attribute never ends. */
	if (!hq_alloc_sb(&sb, HQ_EXPAND + 1))
		return -1;
	while (sb.len + 1 < sb.cap - 1) {
		hq_words(w, &sb, 0x66696c6c6572 + sb.len, 10);
		web_sb_printf(&sb, ". ");
	}
	memset(sb.p + sb.len, ' ', HQ_EXPAND - sb.len);
	q->filler = sb.p;
	q->a_run = malloc(HQ_EXPAND);
	q->binary = malloc(HQ_BINARY);
	if (!q->a_run || !q->binary)
		return -1;
	memset(q->a_run, 'a', HQ_EXPAND);
	for (unsigned i = 0; i < HQ_BINARY; i++) {
		if (i % 8 == 0)
			x = hq_rand(w, 0x62696e, 0, i / 8);
		q->binary[i] = (char)(x >> (8 * (i % 8)));
	}

	/* Header lines: "X-Filler-NNNNN: word word\r\n". */
	for (int pass = 0; pass < 2; pass++) {
		unsigned count = pass ? HQ_HEADERS_MANY : HQ_HEADERS_FEW;

		if (!hq_alloc_sb(&sb, (size_t)count * 48 + 1))
			return -1;
		for (unsigned i = 0; i < count; i++) {
			web_sb_printf(&sb, "X-Filler-%05u: ", i);
			hq_words(w, &sb, 0x686472, 2 + i % 2);
			web_sb_printf(&sb, "\r\n");
		}
		if (pass) {
			q->hdr_many = sb.p;
			q->hdr_many_len = sb.len;
		} else {
			q->hdr_few = sb.p;
			q->hdr_few_len = sb.len;
		}
	}
	return 0;
}

struct hostile *hostile_new(const struct web *w)
{
	struct hostile *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	if (hq_build_bombs(q) < 0 || hq_build_chunks(q, w) < 0 || hq_build_pages(q, w) < 0) {
		hostile_free(q);
		return NULL;
	}
	return q;
}

void hostile_free(struct hostile *q)
{
	if (!q)
		return;
	free(q->gz_unit);
	free(q->zst_unit);
	free(q->br);
	free(q->chunk_unit);
	free(q->links);
	free(q->nested);
	free(q->filler);
	free(q->a_run);
	free(q->binary);
	free(q->hdr_few);
	free(q->hdr_many);
	free(q);
}

int hostile_find_host(const struct web *w, const char *host, unsigned *idx)
{
	unsigned v = 0;

	if (!w->hostile || host[0] != 'x')
		return -1;
	for (int i = 1; i <= 4; i++) {
		if (host[i] < '0' || host[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(host[i] - '0');
	}
	if (host[5] != '.' || strcmp(host + 6, w->domain) != 0 || v >= HC_COUNT_)
		return -1;
	*idx = v;
	return 0;
}

long hostile_counter(unsigned idx, const char *path)
{
	return idx == HC_FLAP && strcmp(path, "/flap.html") == 0 ? 0 : -1;
}

static const char *hq_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 404: return "Not Found";
	case 500: return "Internal Server Error";
	default: return "Unknown";
	}
}

/*
 * Starts r: the status line and the usual headers into r->buf. extra (may be
 * "") is more header lines; clen < 0 sends no Content-Length; blank adds the
 * empty line that ends the head.
 */
static void hq_head(struct hostile_response *r, int status, const char *type, const char *extra,
		    long long clen, int blank)
{
	struct web_sb sb = { r->buf, 0, sizeof(r->buf) };

	memset(r->seg, 0, sizeof(r->seg));
	r->nseg = 0;
	r->drip_ms = 0;
	r->drip_from = 0;
	r->hold_ms = 0;
	r->end = HOSTILE_KEEP;
	r->status = status;
	web_sb_printf(&sb, "HTTP/1.1 %d %s\r\nServer: simweb\r\n", status, hq_reason(status));
	if (type)
		web_sb_printf(&sb, "Content-Type: %s\r\n", type);
	if (clen >= 0)
		web_sb_printf(&sb, "Content-Length: %lld\r\n", clen);
	web_sb_printf(&sb, "%s%s", extra, blank ? "\r\n" : "");
	r->len = sb.len;
}

static void hq_seg(struct hostile_response *r, const void *p, size_t len, uint64_t times)
{
	if (r->nseg < HOSTILE_SEGS)
		r->seg[r->nseg++] = (struct hostile_seg){ p, len, times };
}

/* A complete response of a small body (at most HQ_TEXT_MAX bytes). */
static void hq_small(struct hostile_response *r, int status, const char *type, const char *extra,
		     const char *body, size_t blen)
{
	hq_head(r, status, type, extra, (long long)blen, 1);
	if (blen > sizeof(r->buf) - r->len)
		blen = sizeof(r->buf) - r->len;
	memcpy(r->buf + r->len, body, blen);
	r->len += blen;
}

static void hq_page_start(const struct web *w, struct web_sb *sb, unsigned idx, const char *path,
			  const char *title, unsigned words)
{
	web_sb_printf(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<title>%s</title>\n</head>\n<body>\n<p>", title);
	hq_words(w, sb, hq_key(idx, path), words);
	web_sb_printf(sb, ".</p>\n");
}

static const char hq_page_end[] = "</body>\n</html>\n";

static void hq_not_found(struct hostile_response *r)
{
	static const char body[] = "<!DOCTYPE html>\n<html><head><title>Not Found</title></head>"
				   "<body><p>Not found.</p></body></html>\n";

	hq_small(r, 404, "text/html; charset=utf-8", "", body, sizeof(body) - 1);
}

static void hq_home(const struct web *w, unsigned idx, struct hostile_response *r)
{
	char body[HQ_TEXT_MAX], title[64];
	struct web_sb sb = { body, 0, sizeof(body) };

	snprintf(title, sizeof(title), "Hostile quarter: %s", hq_names[idx]);
	hq_page_start(w, &sb, idx, "/", title, 60);
	web_sb_printf(&sb, "<ul>\n");
	for (size_t i = 0; i < HQ_N(hq_eps); i++) {
		if (hq_eps[i].host != idx)
			continue;
		if (hq_eps[i].path)
			web_sb_printf(&sb, "<li><a href=\"%s\">%s</a></li>\n", hq_eps[i].path,
				  hq_eps[i].path);
		else
			web_sb_printf(&sb, "<li><a href=\"/session?sid=%016llx\">session</a></li>\n",
				  (unsigned long long)hq_rand(w, 0x73657373, 0, 0));
	}
	if (idx == HC_REDIRECT) {
		for (size_t k = 0; k < HQ_N(hq_private); k++)
			web_sb_printf(&sb, "<li><a href=\"/to-private/%zu\">private %zu</a></li>\n", k, k);
	}
	if (idx == HC_DNS) {
		for (size_t k = 0; k < HQ_N(hq_dns); k++)
			web_sb_printf(&sb, "<li><a href=\"http://%s.%s:%u/\">%s</a></li>\n",
				  hq_dns[k].name, w->domain, w->port, hq_dns[k].name);
	}
	web_sb_printf(&sb, "<li><a href=\"http://h0000.%s:%u/\">back</a></li>\n</ul>\n%s",
		  w->domain, w->port, hq_page_end);
	hq_small(r, 200, "text/html; charset=utf-8", "", body, sb.len);
}

/* A small page with a title, words of its own and the given links paragraph. */
static void hq_text_page(const struct web *w, unsigned idx, const char *path, const char *title,
			 const char *links, const char *type, const char *extra,
			 struct hostile_response *r)
{
	char body[HQ_TEXT_MAX];
	struct web_sb sb = { body, 0, sizeof(body) };

	hq_page_start(w, &sb, idx, path, title, 60);
	web_sb_printf(&sb, "%s%s", links, hq_page_end);
	hq_small(r, 200, type, extra, body, sb.len);
}

/* A page of a trap: the same words on every page of it, so they are near-identical. */
static void hq_trap_page(const struct web *w, unsigned idx, const char *title, const char *link,
			 struct hostile_response *r)
{
	char body[HQ_TEXT_MAX];
	struct web_sb sb = { body, 0, sizeof(body) };

	hq_page_start(w, &sb, idx, "trap", title, 80);
	web_sb_printf(&sb, "<p><a href=\"%s\">next</a> <a href=\"/\">home</a></p>\n%s", link,
		  hq_page_end);
	hq_small(r, 200, "text/html; charset=utf-8", "", body, sb.len);
}

static void hq_redirect(struct hostile_response *r, int status, const char *location)
{
	char extra[512], body[1024];
	int n;

	snprintf(extra, sizeof(extra), "Location: %s\r\n", location);
	n = snprintf(body, sizeof(body), "<!DOCTYPE html>\n<html><head><title>Moved</title></head>"
		     "<body><p>Moved.</p></body></html>\n");
	hq_small(r, status, "text/html; charset=utf-8", location[0] ? extra : "", body,
		 (size_t)n);
}

/* Parses decimal digits [s, end) with no leading zero; -1 if not that. */
static long long hq_number(const char *s, const char *end)
{
	long long v = 0;

	if (s == end || end - s > 15 || (*s == '0' && end - s > 1))
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

static void hq_redirects(const struct web *w, const char *path, struct hostile_response *r)
{
	char loc[256];
	long long k;

	if (strcmp(path, "/loop/a") == 0) {
		hq_redirect(r, 301, "/loop/b");
	} else if (strcmp(path, "/loop/b") == 0) {
		hq_redirect(r, 301, "/loop/a");
	} else if (strcmp(path, "/self") == 0) {
		hq_redirect(r, 302, "/self");
	} else if (strncmp(path, "/chain/", 7) == 0 &&
		   (k = hq_number(path + 7, path + strlen(path))) >= 0 && k <= HQ_CHAIN) {
		if (k < HQ_CHAIN) {
			snprintf(loc, sizeof(loc), "/chain/%lld", k + 1);
			hq_redirect(r, 302, loc);
		} else {
			hq_text_page(w, HC_REDIRECT, path, "End of the chain",
				     "<p><a href=\"/\">home</a></p>\n",
				     "text/html; charset=utf-8", "", r);
		}
	} else if (strcmp(path, "/to-file") == 0) {
		hq_redirect(r, 301, "file:///etc/passwd");
	} else if (strcmp(path, "/to-ftp") == 0) {
		snprintf(loc, sizeof(loc), "ftp://x%04u.%s/pub/file.txt", HC_REDIRECT, w->domain);
		hq_redirect(r, 301, loc);
	} else if (strncmp(path, "/to-private/", 12) == 0 &&
		   (k = hq_number(path + 12, path + strlen(path))) >= 0 &&
		   k < (long long)HQ_N(hq_private)) {
		hq_redirect(r, 307, hq_private[k]);
	} else if (strcmp(path, "/to-rebind") == 0) {
		snprintf(loc, sizeof(loc), "http://rebind.%s:%u/", w->domain, w->port);
		hq_redirect(r, 308, loc);
	} else if (strcmp(path, "/no-location") == 0) {
		hq_redirect(r, 301, "");
	} else {
		hq_not_found(r);
	}
}

/* /cal/Y/M: a month page that links the next month, for ever. */
static void hq_calendar(const struct web *w, const char *path, struct hostile_response *r)
{
	const char *slash = strncmp(path, "/cal/", 5) == 0 ? strchr(path + 5, '/') : NULL;
	long long y = slash ? hq_number(path + 5, slash) : -1;
	long long m = slash ? hq_number(slash + 1, path + strlen(path)) : -1;
	char title[64], next[64];

	if (y < 1 || m < 1 || m > 12) {
		hq_not_found(r);
		return;
	}
	snprintf(title, sizeof(title), "Calendar %lld-%02lld", y, m);
	snprintf(next, sizeof(next), "/cal/%lld/%lld", m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1);
	hq_trap_page(w, HC_CALENDAR, title, next, r);
}

/* /a/, /a/a/, ...: each links "a/". */
static void hq_paths(const struct web *w, const char *path, struct hostile_response *r)
{
	size_t n = strlen(path);

	if (n < 3 || (n - 1) % 2 != 0) {
		hq_not_found(r);
		return;
	}
	for (size_t i = 0; i + 1 < n; i += 2) {
		if (path[i] != '/' || path[i + 1] != 'a') {
			hq_not_found(r);
			return;
		}
	}
	hq_trap_page(w, HC_PATHS, "Directory a", "a/", r);
}

/* /session?sid=<16 hex>: links the same page with a new session id. */
static void hq_session(const struct web *w, const char *path, struct hostile_response *r)
{
	char next[64];
	uint64_t sid = 0;

	if (strncmp(path, "/session?sid=", 13) != 0 || strlen(path) != 13 + 16) {
		hq_not_found(r);
		return;
	}
	for (const char *p = path + 13; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			-1;

		if (d < 0) {
			hq_not_found(r);
			return;
		}
		sid = sid << 4 | (uint64_t)d;
	}
	snprintf(next, sizeof(next), "/session?sid=%016llx",
		 (unsigned long long)hq_rand(w, 0x73657373, sid, 1));
	hq_trap_page(w, HC_SESSION, "Session", next, r);
}

/* CRC-32 (ISO-HDLC, as gzip), bitwise: only for the small page. */
static uint32_t hq_crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

static void hq_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* /ok.gz.html and /ok.zst.html: a small page, gzip (a stored block) or zstd (a raw block). */
static void hq_encoded_page(const struct web *w, const char *path, int zstd,
			    struct hostile_response *r)
{
	char page[2048], enc[2048 + 64];
	struct web_sb sb = { page, 0, sizeof(page) };
	struct web_sb e = { enc, 0, sizeof(enc) };
	unsigned char b[16];

	hq_page_start(w, &sb, HC_BOMBS, path, zstd ? "A zstd page" : "A gzip page", 120);
	web_sb_printf(&sb, "<p><a href=\"/\">home</a></p>\n%s", hq_page_end);
	if (zstd) {
		/* single segment, 4-byte content size; one raw block, the last */
		memcpy(b, "\x28\xb5\x2f\xfd\xa0", 5);
		hq_le(b + 5, sb.len, 4);
		hq_le(b + 9, (uint64_t)sb.len << 3 | 1, 3);
		hq_bytes(&e, b, 12);
		hq_bytes(&e, page, sb.len);
	} else {
		hq_bytes(&e, hq_gz_head, sizeof(hq_gz_head));
		b[0] = 0x01;   /* BFINAL, stored */
		hq_le(b + 1, sb.len, 2);
		hq_le(b + 3, ~sb.len & 0xffff, 2);
		hq_bytes(&e, b, 5);
		hq_bytes(&e, page, sb.len);
		hq_le(b, hq_crc32((const unsigned char *)page, sb.len), 4);
		hq_le(b + 4, sb.len, 4);
		hq_bytes(&e, b, 8);
	}
	hq_small(r, 200, "text/html; charset=utf-8",
		 zstd ? "Content-Encoding: zstd\r\n" : "Content-Encoding: gzip\r\n", enc, e.len);
}

static void hq_bombs(const struct hostile *q, const struct web *w, const char *path,
		     struct hostile_response *r)
{
	const char *type = "text/html; charset=utf-8";
	size_t len;

	if (strcmp(path, "/bomb.gz.html") == 0) {
		len = sizeof(hq_gz_head) + (size_t)HQ_GZ_CHUNKS / 64 * q->gz_unit_len +
		      sizeof(hq_gz_tail);
		hq_head(r, 200, type, "Content-Encoding: gzip\r\n", (long long)len, 1);
		memcpy(r->buf + r->len, hq_gz_head, sizeof(hq_gz_head));
		r->len += sizeof(hq_gz_head);
		hq_seg(r, q->gz_unit, q->gz_unit_len, HQ_GZ_CHUNKS / 64);
		hq_seg(r, hq_gz_tail, sizeof(hq_gz_tail), 1);
	} else if (strcmp(path, "/bomb.zst.html") == 0) {
		len = sizeof(hq_zst_head) + (size_t)HQ_ZST_BLOCKS * 4;
		hq_head(r, 200, type, "Content-Encoding: zstd\r\n", (long long)len, 1);
		memcpy(r->buf + r->len, hq_zst_head, sizeof(hq_zst_head));
		r->len += sizeof(hq_zst_head);
		hq_seg(r, q->zst_unit, q->zst_unit_len, 1);
		hq_seg(r, q->zst_unit, q->zst_unit_len - 4, 1);
		hq_seg(r, hq_zst_last, sizeof(hq_zst_last), 1);
	} else if (strcmp(path, "/bomb.br.html") == 0) {
		hq_head(r, 200, type, "Content-Encoding: br\r\n", (long long)q->br_len, 1);
		hq_seg(r, q->br, q->br_len, 1);
	} else if (strcmp(path, "/ok.gz.html") == 0 || strcmp(path, "/ok.zst.html") == 0) {
		hq_encoded_page(w, path, path[4] == 'z', r);
	} else {
		hq_not_found(r);
	}
}

static void hq_parser(const struct hostile *q, const struct web *w, const char *path,
		      struct hostile_response *r)
{
	char body[HQ_TEXT_MAX];
	struct web_sb sb = { body, 0, sizeof(body) };

	if (strcmp(path, "/nested.html") == 0) {
		hq_head(r, 200, "text/html; charset=utf-8", "", (long long)q->nested_len, 1);
		hq_seg(r, q->nested, q->nested_len, 1);
	} else if (strcmp(path, "/comment.html") == 0 || strcmp(path, "/attr.html") == 0) {
		int comment = path[1] == 'c';

		hq_page_start(w, &sb, HC_PARSER, path, comment ? "Unterminated comment" :
			      "Unterminated attribute", 60);
		web_sb_printf(&sb, "<p><a href=\"/\">home</a></p>\n%s", comment ? "<!-- " :
			  "<p><a title=\"");
		hq_head(r, 200, "text/html; charset=utf-8", "", (long long)(sb.len + HQ_FILLER), 1);
		memcpy(r->buf + r->len, body, sb.len);
		r->len += sb.len;
		hq_seg(r, q->filler, HQ_EXPAND, HQ_FILLER / HQ_EXPAND);
	} else if (strcmp(path, "/bad-utf8.html") == 0) {
		/* Overlong, surrogate, beyond U+10FFFF, stray continuation, 0xff, cut short. */
		hq_page_start(w, &sb, HC_PARSER, path, "Invalid UTF-8 \xc0\xaf", 60);
		web_sb_printf(&sb, "<p>ab\xed\xa0\x80 cd\xf4\x90\x80\x80 ef\x80\xbf gh\xff\xfe ij\xe2\x82"
			  " kl\xc3</p>\n<p><a href=\"/\">home \xf0\x9f</a></p>\n%s", hq_page_end);
		hq_small(r, 200, "text/html; charset=utf-8", "", body, sb.len);
	} else if (strcmp(path, "/wrong-charset.html") == 0) {
		/* Says UTF-16 in the header and Shift_JIS in the page; it is UTF-8. */
		web_sb_printf(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			  "<meta charset=\"shift_jis\">\n<title>Wrong charset</title>\n</head>\n"
			  "<body>\n<p>na\xc3\xafve caf\xc3\xa9 \xe2\x82\xac ");
		hq_words(w, &sb, hq_key(HC_PARSER, path), 60);
		web_sb_printf(&sb, ".</p>\n<p><a href=\"/\">home</a></p>\n%s", hq_page_end);
		hq_small(r, 200, "text/html; charset=utf-16le", "", body, sb.len);
	} else if (strcmp(path, "/binary.html") == 0) {
		hq_head(r, 200, "text/html", "", HQ_BINARY, 1);
		hq_seg(r, q->binary, HQ_BINARY, 1);
	} else {
		hq_not_found(r);
	}
}

static void hq_headers(const struct hostile *q, const char *path, struct hostile_response *r)
{
	const char *type = "text/html; charset=utf-8";
	long long blen = (long long)HQ_HDR_BODY_LEN;

	if (strcmp(path, "/many-headers.html") == 0 ||
	    strcmp(path, "/many-headers-big.html") == 0) {
		int big = path[13] == '-';

		hq_head(r, 200, type, "", blen, 0);
		hq_seg(r, big ? q->hdr_many : q->hdr_few, big ? q->hdr_many_len : q->hdr_few_len,
		       1);
		hq_seg(r, hq_hdr_tail + 2, sizeof(hq_hdr_tail) - 3, 1);
	} else if (strcmp(path, "/huge-header.html") == 0) {
		hq_head(r, 200, type, "X-Huge: ", blen, 0);
		hq_seg(r, q->a_run, HQ_EXPAND, HQ_HUGE_HEADER / HQ_EXPAND);
		hq_seg(r, hq_hdr_tail, sizeof(hq_hdr_tail) - 1, 1);
	} else {
		hq_not_found(r);
		return;
	}
	r->end = HOSTILE_CLOSE;
}

/* The drip, the stall, the endless body, lying lengths, the reset, the flap. */
static void hq_timing(const struct hostile *q, const struct web *w, unsigned idx,
		      const char *path, unsigned long attempt, struct hostile_response *r)
{
	char body[HQ_TEXT_MAX];
	struct web_sb sb = { body, 0, sizeof(body) };
	const char *type = "text/html; charset=utf-8";
	size_t head;

	if (idx == HC_DRIP && strcmp(path, "/drip.html") == 0) {
		hq_page_start(w, &sb, idx, path, "Drip", 60);
		sb.len = HQ_DRIP_BODY;   /* cut: the words are longer than the body */
		hq_small(r, 200, type, "", body, sb.len);
		r->drip_from = r->len - HQ_DRIP_BODY;
		r->drip_ms = HQ_DRIP_MS;
		r->end = HOSTILE_CLOSE;
	} else if (idx == HC_DRIP_HEAD && strcmp(path, "/drip-head.html") == 0) {
		hq_page_start(w, &sb, idx, path, "Drip", 20);
		sb.len = HQ_DRIP_HEAD_BODY;
		hq_small(r, 200, type, "", body, sb.len);
		r->drip_from = 0;
		r->drip_ms = HQ_DRIP_MS;
		r->end = HOSTILE_CLOSE;
	} else if (idx == HC_STALL && strcmp(path, "/stall.html") == 0) {
		hq_head(r, 200, type, "", HQ_STALL_DECLARED, 1);
		r->hold_ms = HQ_STALL_MS;
		r->end = HOSTILE_CLOSE;
	} else if (idx == HC_ENDLESS && strcmp(path, "/endless.html") == 0) {
		hq_head(r, 200, type, "Transfer-Encoding: chunked\r\n", -1, 1);
		hq_seg(r, q->chunk_unit, q->chunk_unit_len, HQ_ENDLESS_CAP / (16 * HQ_CHUNK));
		r->end = HOSTILE_CLOSE;
	} else if (idx == HC_LENGTH && strcmp(path, "/cl-long.html") == 0) {
		hq_page_start(w, &sb, idx, path, "Longer than it is", 500);
		sb.len = HQ_LONG_SENT;
		hq_head(r, 200, type, "", HQ_LONG_DECLARED, 1);
		memcpy(r->buf + r->len, body, sb.len);
		r->len += sb.len;
		r->end = HOSTILE_CLOSE;
	} else if (idx == HC_LENGTH && strcmp(path, "/cl-short.html") == 0) {
		/* A complete page, then a response the client never asked for. */
		hq_page_start(w, &sb, idx, path, "Shorter than it is", 60);
		web_sb_printf(&sb, "<p><a href=\"/\">home</a></p>\n%s", hq_page_end);
		head = sb.len;
		web_sb_printf(&sb, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 21"
			  "\r\n\r\n<p>smuggled</p>\n\n\n\n\n");
		hq_head(r, 200, type, "", (long long)head, 1);
		memcpy(r->buf + r->len, body, sb.len);
		r->len += sb.len;
		r->end = HOSTILE_CLOSE;
	} else if (idx == HC_RESET && strcmp(path, "/reset.html") == 0) {
		hq_page_start(w, &sb, idx, path, "Reset", 1000);
		sb.len = HQ_RESET_SENT;
		hq_head(r, 200, type, "", HQ_RESET_DECLARED, 1);
		memcpy(r->buf + r->len, body, sb.len);
		r->len += sb.len;
		r->hold_ms = HQ_RESET_HOLD_MS;
		r->end = HOSTILE_RESET;
	} else if (idx == HC_FLAP && strcmp(path, "/flap.html") == 0) {
		if (attempt % 2 == 0) {
			static const char err[] = "<!DOCTYPE html>\n<html><head><title>Error"
						  "</title></head><body><p>Error 500.</p>"
						  "</body></html>\n";

			hq_small(r, 500, type, "", err, sizeof(err) - 1);
		} else {
			hq_text_page(w, idx, path, "Flapping", "<p><a href=\"/\">home</a></p>\n",
				     type, "", r);
		}
	} else {
		hq_not_found(r);
	}
}

void hostile_respond(const struct hostile *q, const struct web *w, unsigned idx,
		     const char *path, unsigned long attempt, struct hostile_response *r)
{
	char body[HQ_TEXT_MAX];
	struct web_sb sb = { body, 0, sizeof(body) };

	if (strcmp(path, "/") == 0) {
		hq_home(w, idx, r);
		return;
	}
	switch (idx) {
	case HC_BOMBS:
		hq_bombs(q, w, path, r);
		return;
	case HC_REDIRECT:
		hq_redirects(w, path, r);
		return;
	case HC_CALENDAR:
		hq_calendar(w, path, r);
		return;
	case HC_PATHS:
		hq_paths(w, path, r);
		return;
	case HC_SESSION:
		hq_session(w, path, r);
		return;
	case HC_PARSER:
		hq_parser(q, w, path, r);
		return;
	case HC_HEADERS:
		hq_headers(q, path, r);
		return;
	case HC_LINKS:
		if (strcmp(path, "/links.html") == 0) {
			hq_head(r, 200, "text/html; charset=utf-8", "", (long long)q->links_len, 1);
			hq_seg(r, q->links, q->links_len, 1);
		} else {
			hq_not_found(r);
		}
		return;
	case HC_LONGURL:
		if (strcmp(path, "/long-url.html") == 0) {
			hq_page_start(w, &sb, idx, path, "A long URL", 60);
			web_sb_printf(&sb, "<p><a href=\"/\">home</a> <a href=\"/long/");
			hq_head(r, 200, "text/html; charset=utf-8", "",
				(long long)(sb.len + HQ_LONG_URL + sizeof(hq_long_tail) - 1), 1);
			memcpy(r->buf + r->len, body, sb.len);
			r->len += sb.len;
			hq_seg(r, q->a_run, HQ_EXPAND, HQ_LONG_URL / HQ_EXPAND);
			hq_seg(r, hq_long_tail, sizeof(hq_long_tail) - 1, 1);
		} else {
			hq_not_found(r);
		}
		return;
	case HC_DNS:
		hq_not_found(r);
		return;
	default:
		hq_timing(q, w, idx, path, attempt, r);
		return;
	}
}

size_t hostile_home_links(const struct web *w, char *out, size_t cap)
{
	struct web_sb sb = { out, 0, cap };

	web_sb_printf(&sb, "<p>Hostile quarter:");
	for (unsigned i = 0; i < HC_COUNT_; i++)
		web_sb_printf(&sb, " <a href=\"http://x%04u.%s:%u/\">%s</a>", i, w->domain, w->port,
			  hq_names[i]);
	web_sb_printf(&sb, ".</p>\n");
	return sb.len;
}

struct hq_lines {
	char **v;
	size_t n, cap;
	int failed;
};

__attribute__((format(printf, 2, 3)))
static void hq_line(struct hq_lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	if (l->failed)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->failed = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0)
		s = malloc((size_t)n + 1);
	if (!s) {
		l->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	l->v[l->n++] = s;
}

static int hq_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int hostile_truth(const struct web *w, char ***lines, size_t *n)
{
	struct hq_lines l = { NULL, 0, 0, 0 };
	char pre[WEB_DOMAIN_MAX + 32];
	unsigned hops = w->max_redirects < HQ_CHAIN ? w->max_redirects : HQ_CHAIN;
	size_t out = 0;

	for (unsigned i = 0; i < HC_COUNT_; i++) {
		snprintf(pre, sizeof(pre), "http://x%04u.%s:%u", i, w->domain, w->port);
		hq_line(&l, "%s/\thostile\tfetched", pre);
		if (i == HC_SESSION)
			hq_line(&l, "%s/session?sid=%016llx\thostile\tfetched", pre,
				(unsigned long long)hq_rand(w, 0x73657373, 0, 0));
	}
	for (size_t i = 0; i < HQ_N(hq_eps); i++) {
		if (!hq_eps[i].path || !hq_eps[i].expected)
			continue;
		hq_line(&l, "http://x%04u.%s:%u%s\thostile\t%s", hq_eps[i].host, w->domain,
			w->port, hq_eps[i].path, hq_eps[i].expected);
	}
	snprintf(pre, sizeof(pre), "http://x%04u.%s:%u", HC_REDIRECT, w->domain, w->port);
	hq_line(&l, "%s/loop/b\thostile\tredirect", pre);
	/* The chain: hop k is /chain/k; a crawler follows max_redirects hops. */
	for (unsigned k = 1; k <= hops; k++)
		hq_line(&l, "%s/chain/%u\thostile\t%s", pre, k, k == HQ_CHAIN ? "fetched" :
			"redirect");
	hq_line(&l, "%s/chain/0\thostile\tredirect", pre);
	if (hops < HQ_CHAIN)
		hq_line(&l, "%s/chain/%u\thostile\ttrap", pre, hops + 1);
	for (size_t k = 0; k < HQ_N(hq_private); k++) {
		hq_line(&l, "%s/to-private/%zu\thostile\tredirect", pre, k);
		if (k < HQ_PRIVATE_CANON)
			hq_line(&l, "%s\thostile\tblocked", hq_private[k]);
	}
	for (size_t k = 0; k < HQ_N(hq_dns); k++)
		hq_line(&l, "http://%s.%s:%u/\thostile\t%s", hq_dns[k].name, w->domain, w->port,
			hq_dns[k].expected);
	/* Prefixes: every URL under one that has no line of its own. */
	hq_line(&l, "http://x%04u.%s:%u/cal/*\thostile\ttrap", HC_CALENDAR, w->domain, w->port);
	hq_line(&l, "http://x%04u.%s:%u/a/a/*\thostile\ttrap", HC_PATHS, w->domain, w->port);
	hq_line(&l, "http://x%04u.%s:%u/session?sid=*\thostile\ttrap", HC_SESSION, w->domain,
		w->port);
	hq_line(&l, "http://x%04u.%s:%u/links/*\thostile\tgone", HC_LINKS, w->domain, w->port);
	hq_line(&l, "http://x%04u.%s:%u/long/*\thostile\tdropped", HC_LONGURL, w->domain,
		w->port);
	if (l.failed) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return -1;
	}
	qsort(l.v, l.n, sizeof(*l.v), hq_cmp);
	/* The rebind name is both a redirect's target and a link: one line. */
	for (size_t i = 0; i < l.n; i++) {
		if (out && strcmp(l.v[out - 1], l.v[i]) == 0)
			free(l.v[i]);
		else
			l.v[out++] = l.v[i];
	}
	*lines = l.v;
	*n = out;
	return 0;
}

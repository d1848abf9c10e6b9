/*
 * parse_record.h - what parsing one page found: title, text digest, links,
 * page-level robots flags, the MinHash signature of its text and its
 * requisites (fetch.embeds: what a browser loads to show it; a stylesheet's
 * record has these alone) (segments/N/parse/part-P.zst). Packed and unpacked
 * as crawl_record.h says;
 * unpacked strings are borrowed.
 */
#ifndef CR_CRAWLDB_PARSE_RECORD_H
#define CR_CRAWLDB_PARSE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "crawldb/crawl_record.h"
#include "util/buf.h"
#include "util/error.h"

enum parse_flag {
	PARSE_NOINDEX = 1,    /* meta robots or X-Robots-Tag: noindex */
	PARSE_NOFOLLOW = 2,   /* meta robots or X-Robots-Tag: nofollow (no links kept) */
	PARSE_REDIRECT = 4,   /* a redirect: its one link is the Location */
	PARSE_SHEET = 16,     /* a stylesheet fetched as a requisite: requisites alone */
	PARSE_SITEMAP = 8,    /* a sitemap: its links are its entries, each with a
				 parse_entry (version 5) */
};

/* Why a link was left out (the decision log's reasons "max-links",
 * "too-long"). */
enum parse_refusal { PARSE_MAX_LINKS = 0, PARSE_TOO_LONG = 1, PARSE_REFUSALS_ };

/* What a sitemap says of one entry: link_record's flags and meta. */
struct parse_entry {
	uint8_t flags;            /* enum link_flag (crawldb/link_record.h) */
	struct crawl_meta meta;
};

#define PARSE_LANGS_MAX 3

struct parse_record {
	const char *url;
	size_t url_len;
	uint32_t depth;
	uint32_t flags;       /* enum parse_flag */
	const char *title;
	size_t title_len;
	uint64_t text_digest;
	uint32_t nlinks;
	const unsigned char *links;  /* nlinks packed strings; see parse_record_link */
	size_t links_len;
	uint32_t nsig;               /* MinHash values (0: no text) */
	const uint32_t *sig;         /* for packing: nsig values */
	const unsigned char *sig_bytes; /* unpacked: nsig little-endian u32; parse_record_sig */
	uint8_t hops;                /* the page's redirect hops (crawl_record.hops) */
	uint64_t seed;               /* the page's seed (crawl_record.seed) */
	/* Links left out that the decision log names (version 5): reason
	 * (enum parse_refusal) and URL of each. For packing, the arrays; an
	 * unpacked record has the bytes (parse_record_refused). */
	uint32_t nrefused;
	const char *const *refused_urls;
	const uint8_t *refused_why;
	const unsigned char *refused;
	size_t refused_len;
	const unsigned char *entries; /* PARSE_SITEMAP: nlinks packed parse_entry;
					 see parse_record_entry */
	size_t entries_len;
	/* The page's requisites (version 6), canonical: for packing the
	 * array, unpacked the bytes (parse_record_embed). */
	uint32_t nembeds;
	const char *const *embed_urls;
	const unsigned char *embeds;
	size_t embeds_len;
	/* Its languages (version 7; none before), best first: ISO 639-3 codes
	 * and the share of the text's letters each covers, 1-100 (parse/lang.h);
	 * lang_reliable: the detector is sure of the first. */
	uint8_t nlangs;
	char langs[PARSE_LANGS_MAX][4];
	uint8_t lang_percent[PARSE_LANGS_MAX];
	uint8_t lang_reliable;
	double cash;                 /* OPIC cash its links share (score/score.h;
					version 8; 0 before) */
};

#define PARSE_SIG_MAX 1024

/* Packs a parse record; links are nlinks canonical URLs. */
void parse_record_pack(const struct parse_record *p, const char *const *links,
		       uint32_t nlinks, struct buf *out);
/* The same for a sitemap (flags PARSE_SITEMAP): entry i of entries says
 * what it said of links[i]. */
void parse_record_pack_sitemap(const struct parse_record *p, const char *const *links,
			       const struct parse_entry *entries, uint32_t nlinks,
			       struct buf *out);
CR_WUR enum cr_err parse_record_unpack(const void *p, size_t n, struct parse_record *r);
/* Value i of an unpacked record's signature. */
uint32_t parse_record_sig(const struct parse_record *r, uint32_t i);
/* Iterates the entries of an unpacked sitemap's record, in step with its
 * links: *pos starts at 0. */
CR_WUR enum cr_err parse_record_entry(const struct parse_record *r, size_t *pos,
				      struct parse_entry *e);
/* Iterates the links an unpacked record left out: *pos starts at 0. */
CR_WUR enum cr_err parse_record_refused(const struct parse_record *r, size_t *pos, int *why,
					const char **url, size_t *len);
/* Iterates the links of an unpacked parse record: *pos starts at 0. */
CR_WUR enum cr_err parse_record_link(const struct parse_record *r, size_t *pos,
				     const char **url, size_t *len);
/* The same over its requisites. */
CR_WUR enum cr_err parse_record_embed(const struct parse_record *r, size_t *pos,
				      const char **url, size_t *len);

#endif

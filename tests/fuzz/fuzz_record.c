/*
 * fuzz_record - the packed records of the crawl directory
 * (crawldb/crawl_record.h and the others): crawl (with dup_of), fetch, parse (with the MinHash
 * signature) and link records, every version the unpackers accept.
 *
 * Input: one packed record of any kind; every unpacker is tried on it.
 * Whatever unpacks must pack and unpack again to the same values, a parse
 * record's links must iterate to exactly nlinks, and the sort orders must
 * be consistent (a record equals itself; the two halves of the input
 * compare with opposite signs).
 */
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/link_record.h"
#include "crawldb/parse_record.h"
#include "fuzz.h"

#define SAME_STR(a, an, b, bn) ((an) == (bn) && (!(an) || !memcmp((a), (b), (an))))

static int same_crawl(const struct crawl_record *a, const struct crawl_record *b)
{
	return SAME_STR(a->url, a->url_len, b->url, b->url_len) && a->status == b->status &&
	       a->http_status == b->http_status && a->depth == b->depth &&
	       a->retries == b->retries && a->fetched_at == b->fetched_at &&
	       a->next_fetch == b->next_fetch && a->digest == b->digest &&
	       SAME_STR(a->dup_of, a->dup_of_len, b->dup_of, b->dup_of_len) &&
	       SAME_STR(a->reason, a->reason_len, b->reason, b->reason_len) &&
	       crawl_record_meta_same(&a->meta, &b->meta) && a->seed == b->seed;
}

static void try_crawl(const uint8_t *data, size_t size, struct buf *b)
{
	struct crawl_record r, r2;

	if (crawl_record_unpack(data, size, &r) != CR_OK)
		return;
	(void)crawl_record_status_name(r.status);
	b->len = 0;
	crawl_record_pack(&r, b);
	if (crawl_record_unpack(b->p, b->len, &r2) != CR_OK || !same_crawl(&r, &r2))
		abort();
}

static void try_fetch(const uint8_t *data, size_t size, struct buf *b)
{
	struct fetch_record f, f2;

	if (fetch_record_unpack(data, size, &f) != CR_OK)
		return;
	b->len = 0;
	fetch_record_pack(&f, b);
	if (fetch_record_unpack(b->p, b->len, &f2) != CR_OK || !same_crawl(&f.rec, &f2.rec) ||
	    !SAME_STR(f.reason, f.reason_len, f2.reason, f2.reason_len) ||
	    !SAME_STR(f.location, f.location_len, f2.location, f2.location_len) ||
	    !SAME_STR(f.content_type, f.content_type_len, f2.content_type,
		      f2.content_type_len) ||
	    !SAME_STR(f.charset, f.charset_len, f2.charset, f2.charset_len) ||
	    !SAME_STR(f.warc, f.warc_len, f2.warc, f2.warc_len) ||
	    f.warc_offset != f2.warc_offset || f.body_len != f2.body_len ||
	    f.latency_us != f2.latency_us)
		abort();
}

static void try_parse(const uint8_t *data, size_t size, struct buf *b)
{
	struct parse_record p, p2;
	uint32_t *sig;
	char **links;
	struct parse_entry *ents;
	char **rurls, **eurls;
	uint8_t *rwhy;
	const char *u;
	size_t ul, pos = 0;
	uint32_t n = 0, i;
	int has_nul = 0;
	enum cr_err e;

	if (parse_record_unpack(data, size, &p) != CR_OK)
		return;
	if (p.nlinks > size || p.nsig > PARSE_SIG_MAX || p.nsig > size / 4)
		abort();
	/* Unpacked, the signature is bytes; packing takes values. */
	sig = calloc(p.nsig + 1, sizeof(*sig));
	if (!sig)
		abort();
	for (i = 0; i < p.nsig; i++)
		sig[i] = parse_record_sig(&p, i);
	p.sig = sig;
	links = calloc(p.nlinks + 1, sizeof(*links));
	if (!links)
		abort();
	while ((e = parse_record_link(&p, &pos, &u, &ul)) == CR_OK) {
		if (n >= p.nlinks)
			abort();
		has_nul |= ul && memchr(u, 0, ul) != NULL;
		links[n++] = fuzz_strndup(u, ul);
	}
	if (e != CR_EOF || n != p.nlinks)
		abort();
	/* The links it left out, as packing takes them. */
	rurls = calloc(p.nrefused + 1, sizeof(*rurls));
	rwhy = calloc(p.nrefused + 1, 1);
	if (!rurls || !rwhy)
		abort();
	for (i = 0, pos = 0; i < p.nrefused; i++) {
		int why;

		if (parse_record_refused(&p, &pos, &why, &u, &ul) != CR_OK)
			abort();
		has_nul |= ul && memchr(u, 0, ul) != NULL;
		rurls[i] = fuzz_strndup(u, ul);
		rwhy[i] = (uint8_t)why;
	}
	p.refused_urls = (const char *const *)rurls;
	p.refused_why = rwhy;
	/* The requisites, as packing takes them. */
	eurls = calloc(p.nembeds + 1, sizeof(*eurls));
	if (!eurls)
		abort();
	for (i = 0, pos = 0; i < p.nembeds; i++) {
		if (parse_record_embed(&p, &pos, &u, &ul) != CR_OK)
			abort();
		has_nul |= ul && memchr(u, 0, ul) != NULL;
		eurls[i] = fuzz_strndup(u, ul);
	}
	if (parse_record_embed(&p, &pos, &u, &ul) != CR_EOF)
		abort();
	p.embed_urls = (const char *const *)eurls;
	/* A sitemap's entries, one a link. */
	ents = calloc(p.nlinks + 1, sizeof(*ents));
	if (!ents)
		abort();
	for (i = 0, pos = 0; (p.flags & PARSE_SITEMAP) && i < p.nlinks; i++)
		if (parse_record_entry(&p, &pos, &ents[i]) != CR_OK)
			abort();
	if ((p.flags & PARSE_SITEMAP) && parse_record_entry(&p, &pos, &ents[p.nlinks]) != CR_EOF)
		abort();
	/* Links are packed from C strings: one holding a NUL cannot repack. */
	if (!has_nul) {
		b->len = 0;
		if (p.flags & PARSE_SITEMAP)
			parse_record_pack_sitemap(&p, (const char *const *)links, ents, n, b);
		else
			parse_record_pack(&p, (const char *const *)links, n, b);
		if (parse_record_unpack(b->p, b->len, &p2) != CR_OK ||
		    !SAME_STR(p.url, p.url_len, p2.url, p2.url_len) || p.depth != p2.depth ||
		    !SAME_STR(p.title, p.title_len, p2.title, p2.title_len) ||
		    p.text_digest != p2.text_digest || p.nlinks != p2.nlinks ||
		    p.flags != p2.flags || p.nsig != p2.nsig || p.seed != p2.seed ||
		    p.hops != p2.hops || p.nrefused != p2.nrefused || p.nembeds != p2.nembeds)
			abort();
		for (i = 0, pos = 0; i < p.nembeds; i++)
			if (parse_record_embed(&p2, &pos, &u, &ul) != CR_OK ||
			    !SAME_STR(u, ul, eurls[i], strlen(eurls[i])))
				abort();
		for (i = 0, pos = 0; i < p.nrefused; i++) {
			int why;

			if (parse_record_refused(&p2, &pos, &why, &u, &ul) != CR_OK ||
			    why != rwhy[i] || !SAME_STR(u, ul, rurls[i], strlen(rurls[i])))
				abort();
		}
		for (i = 0, pos = 0; (p.flags & PARSE_SITEMAP) && i < p.nlinks; i++) {
			struct parse_entry pe;

			if (parse_record_entry(&p2, &pos, &pe) != CR_OK || pe.flags != ents[i].flags ||
			    !crawl_record_meta_same(&pe.meta, &ents[i].meta))
				abort();
		}
		for (i = 0; i < p.nsig; i++)
			if (parse_record_sig(&p2, i) != sig[i])
				abort();
		/* Compared link by link: a varint may be packed longer than
		 * needed, so the bytes can differ. */
		pos = 0;
		for (i = 0; i < n; i++)
			if (parse_record_link(&p2, &pos, &u, &ul) != CR_OK ||
			    !SAME_STR(u, ul, links[i], strlen(links[i])))
				abort();
	}
	for (i = 0; i < n; i++)
		free(links[i]);
	free(links);
	free(ents);
	for (i = 0; i < p.nrefused; i++)
		free(rurls[i]);
	free(rurls);
	for (i = 0; i < p.nembeds; i++)
		free(eurls[i]);
	free(eurls);
	free(rwhy);
	free(sig);
}

static void try_link(const uint8_t *data, size_t size, struct buf *b)
{
	struct link_record l, l2;

	if (link_record_unpack(data, size, &l) != CR_OK)
		return;
	b->len = 0;
	link_record_pack(&l, b);
	if (link_record_unpack(b->p, b->len, &l2) != CR_OK ||
	    !SAME_STR(l.url, l.url_len, l2.url, l2.url_len) || l.depth != l2.depth ||
	    l.hops != l2.hops || !SAME_STR(l.from, l.from_len, l2.from, l2.from_len) ||
	    l.flags != l2.flags || !crawl_record_meta_same(&l.meta, &l2.meta) ||
	    l.seed != l2.seed)
		abort();
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf b;
	size_t h = size / 2;

	buf_init(&b);
	try_crawl(data, size, &b);
	try_fetch(data, size, &b);
	try_parse(data, size, &b);
	try_link(data, size, &b);
	buf_release(&b);
	if (crawl_record_cmp(data, size, data, size) || link_record_cmp(data, size, data, size))
		abort();
	if (sign(crawl_record_cmp(data, h, data + h, size - h)) !=
	    -sign(crawl_record_cmp(data + h, size - h, data, h)) ||
	    sign(link_record_cmp(data, h, data + h, size - h)) !=
	    -sign(link_record_cmp(data + h, size - h, data, h)))
		abort();
	return 0;
}

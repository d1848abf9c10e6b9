#include "crawldb/parse_record.h"

#include <string.h>

#define PARSE_RECORD_V1 1
#define PARSE_RECORD_V2 2   /* V1 and the flags at the end */
#define PARSE_RECORD_V3 3   /* V2 and the MinHash signature at the end */
#define PARSE_RECORD_V4 4   /* V3 and hops (u8) at the end */
#define PARSE_RECORD_V5 5   /* V4, the seed, refused links, and a sitemap's entries */
#define PARSE_RECORD_V6 6   /* V5 and the page's requisites at the end */
#define PARSE_RECORD_V7 7   /* V6 and the page's languages at the end */
#define PARSE_RECORD_V8 8   /* V7 and the OPIC cash its links share at the end */

static void pack(const struct parse_record *p, const char *const *links,
		 const struct parse_entry *entries, uint32_t nlinks, struct buf *out)
{
	uint32_t i;

	buf_put_u8(out, PARSE_RECORD_V8);
	buf_put_str(out, p->url, p->url_len);
	buf_put_varint(out, p->depth);
	buf_put_str(out, p->title, p->title_len);
	buf_put_u64le(out, p->text_digest);
	buf_put_varint(out, nlinks);
	for (i = 0; i < nlinks; i++)
		buf_put_str(out, links[i], strlen(links[i]));
	buf_put_varint(out, p->flags);
	buf_put_varint(out, p->nsig);
	for (i = 0; i < p->nsig; i++)
		buf_put_u32le(out, p->sig[i]);
	buf_put_u8(out, p->hops);
	buf_put_varint(out, p->seed);
	buf_put_varint(out, p->nrefused);
	for (i = 0; i < p->nrefused; i++) {
		buf_put_u8(out, p->refused_why[i]);
		buf_put_str(out, p->refused_urls[i], strlen(p->refused_urls[i]));
	}
	for (i = 0; entries && i < nlinks; i++) {
		buf_put_u8(out, entries[i].flags);
		crawl_record_meta_put(&entries[i].meta, out);
	}
	buf_put_varint(out, p->nembeds);
	for (i = 0; i < p->nembeds; i++)
		buf_put_str(out, p->embed_urls[i], strlen(p->embed_urls[i]));
	/* The count, with the reliable flag in its top bit. */
	buf_put_u8(out, (uint8_t)((p->nlangs < PARSE_LANGS_MAX ? p->nlangs : PARSE_LANGS_MAX) |
				  (p->lang_reliable ? 0x80 : 0)));
	for (i = 0; i < p->nlangs && i < PARSE_LANGS_MAX; i++) {
		buf_put_str(out, p->langs[i], strnlen(p->langs[i], 3));
		buf_put_u8(out, p->lang_percent[i]);
	}
	crawl_record_cash_put(p->cash, out);
}

void parse_record_pack(const struct parse_record *p, const char *const *links,
		       uint32_t nlinks, struct buf *out)
{
	struct parse_record q = *p;

	q.flags &= ~(uint32_t)PARSE_SITEMAP;
	pack(&q, links, NULL, nlinks, out);
}

void parse_record_pack_sitemap(const struct parse_record *p, const char *const *links,
			       const struct parse_entry *entries, uint32_t nlinks,
			       struct buf *out)
{
	struct parse_record q = *p;

	q.flags |= PARSE_SITEMAP;
	pack(&q, links, entries, nlinks, out);
}

/* One refused link at rd: its reason and URL. */
static enum cr_err get_refused(struct buf_reader *rd, int *why, const char **url, size_t *len)
{
	uint8_t w;

	if (buf_get_u8(rd, &w) || w >= PARSE_REFUSALS_ || buf_get_str(rd, url, len))
		return CR_ERR_FORMAT;
	*why = w;
	return CR_OK;
}

enum cr_err parse_record_refused(const struct parse_record *r, size_t *pos, int *why,
				 const char **url, size_t *len)
{
	struct buf_reader rd;

	buf_reader_init(&rd, r->refused, r->refused_len);
	rd.off = *pos;
	if (rd.off >= rd.len)
		return CR_EOF;
	if (get_refused(&rd, why, url, len))
		return CR_ERR_FORMAT;
	*pos = rd.off;
	return CR_OK;
}

/* One entry at rd: flags and meta. */
static enum cr_err get_entry(struct buf_reader *rd, struct parse_entry *e)
{
	if (buf_get_u8(rd, &e->flags) || e->flags > 3 || crawl_record_meta_get(rd, &e->meta))
		return CR_ERR_FORMAT;
	return CR_OK;
}

/* The requisites at rd (version 6; none before), each checked. */
static enum cr_err get_embeds(struct buf_reader *rd, uint8_t v, struct parse_record *t)
{
	uint64_t ne, i;
	const char *u;
	size_t ul;

	t->nembeds = 0;
	t->embed_urls = NULL;
	t->embeds = rd->p + rd->off;
	t->embeds_len = 0;
	if (v < PARSE_RECORD_V6)
		return CR_OK;
	if (buf_get_varint(rd, &ne) || ne > rd->len)
		return CR_ERR_FORMAT;
	t->embeds = rd->p + rd->off;
	for (i = 0; i < ne; i++)
		if (buf_get_str(rd, &u, &ul))
			return CR_ERR_FORMAT;
	t->nembeds = (uint32_t)ne;
	t->embeds_len = rd->off - (size_t)(t->embeds - rd->p);
	return CR_OK;
}

/* The languages at rd (version 7; none before). */
static enum cr_err get_langs(struct buf_reader *rd, uint8_t v, struct parse_record *t)
{
	uint8_t b, i;
	const char *c;
	size_t cl;

	t->nlangs = 0;
	t->lang_reliable = 0;
	memset(t->langs, 0, sizeof(t->langs));
	if (v < PARSE_RECORD_V7)
		return CR_OK;
	if (buf_get_u8(rd, &b) || (b & 0x7f) > PARSE_LANGS_MAX)
		return CR_ERR_FORMAT;
	t->lang_reliable = b >> 7;
	for (i = 0; i < (b & 0x7f); i++) {
		if (buf_get_str(rd, &c, &cl) || cl == 0 || cl > 3 ||
		    buf_get_u8(rd, &t->lang_percent[i]))
			return CR_ERR_FORMAT;
		memcpy(t->langs[i], c, cl);
	}
	t->nlangs = b & 0x7f;
	return CR_OK;
}

/* The seed and the refused links at rd (version 5; none before). */
static enum cr_err get_seed_refused(struct buf_reader *rd, uint8_t v, struct parse_record *t)
{
	uint64_t nr, i;
	int why;
	const char *u;
	size_t ul;

	t->seed = 0;
	t->nrefused = 0;
	t->refused_urls = NULL;
	t->refused_why = NULL;
	t->refused = rd->p + rd->off;
	t->refused_len = 0;
	if (v < PARSE_RECORD_V5)
		return CR_OK;
	if (buf_get_varint(rd, &t->seed) || buf_get_varint(rd, &nr) || nr > rd->len)
		return CR_ERR_FORMAT;
	t->refused = rd->p + rd->off;
	for (i = 0; i < nr; i++)
		if (get_refused(rd, &why, &u, &ul))
			return CR_ERR_FORMAT;
	t->nrefused = (uint32_t)nr;
	t->refused_len = rd->off - (size_t)(t->refused - rd->p);
	return CR_OK;
}

/* A sitemap's entries at rd, one a link (version 5 on). */
static enum cr_err get_entries(struct buf_reader *rd, uint8_t v, struct parse_record *t)
{
	struct parse_entry e;
	uint32_t i;

	t->entries = rd->p + rd->off;
	t->entries_len = 0;
	if (!(t->flags & PARSE_SITEMAP))
		return CR_OK;
	if (v < PARSE_RECORD_V5)
		return CR_ERR_FORMAT;
	for (i = 0; i < t->nlinks; i++)
		if (get_entry(rd, &e))
			return CR_ERR_FORMAT;
	t->entries_len = rd->off - (size_t)(t->entries - rd->p);
	return CR_OK;
}

enum cr_err parse_record_unpack(const void *p, size_t n, struct parse_record *r)
{
	struct buf_reader rd;
	uint8_t v;
	uint64_t depth, nl, i;
	struct parse_record t;

	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &v) || v < PARSE_RECORD_V1 || v > PARSE_RECORD_V8 ||
	    buf_get_str(&rd, &t.url, &t.url_len) ||
	    buf_get_varint(&rd, &depth) || buf_get_str(&rd, &t.title, &t.title_len) ||
	    buf_get_u64le(&rd, &t.text_digest) || buf_get_varint(&rd, &nl) ||
	    depth > UINT32_MAX || nl > UINT32_MAX)
		return CR_ERR_FORMAT;
	t.depth = (uint32_t)depth;
	t.nlinks = (uint32_t)nl;
	t.links = rd.p + rd.off;
	t.links_len = rd.len - rd.off;
	/* Check every link now, so that iterating cannot fail later. */
	for (i = 0; i < nl; i++) {
		const char *s;
		size_t sl;

		if (buf_get_str(&rd, &s, &sl))
			return CR_ERR_FORMAT;
	}
	t.links_len = rd.off - (size_t)(t.links - rd.p);
	t.flags = 0;
	t.nsig = 0;
	t.sig_bytes = NULL;
	if (v >= PARSE_RECORD_V2) {
		uint64_t fl;

		if (buf_get_varint(&rd, &fl) || fl > UINT32_MAX)
			return CR_ERR_FORMAT;
		t.flags = (uint32_t)fl;
	}
	if (v >= PARSE_RECORD_V3) {
		uint64_t ns;

		if (buf_get_varint(&rd, &ns) || ns > PARSE_SIG_MAX || (rd.len - rd.off) / 4 < ns)
			return CR_ERR_FORMAT;
		t.nsig = (uint32_t)ns;
		t.sig_bytes = rd.p + rd.off;
		rd.off += (size_t)ns * 4;
	}
	t.hops = 0;
	if (v >= PARSE_RECORD_V4 && buf_get_u8(&rd, &t.hops))
		return CR_ERR_FORMAT;
	if (get_seed_refused(&rd, v, &t) || get_entries(&rd, v, &t) ||
	    get_embeds(&rd, v, &t) || get_langs(&rd, v, &t))
		return CR_ERR_FORMAT;
	t.cash = 0;
	if (v >= PARSE_RECORD_V8 && crawl_record_cash_get(&rd, &t.cash))
		return CR_ERR_FORMAT;
	if (rd.off != rd.len)
		return CR_ERR_FORMAT;
	*r = t;
	return CR_OK;
}

uint32_t parse_record_sig(const struct parse_record *r, uint32_t i)
{
	const unsigned char *b = r->sig_bytes + (size_t)i * 4;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

enum cr_err parse_record_entry(const struct parse_record *r, size_t *pos,
			       struct parse_entry *e)
{
	struct buf_reader rd;

	buf_reader_init(&rd, r->entries, r->entries_len);
	rd.off = *pos;
	if (rd.off >= rd.len)
		return CR_EOF;
	if (get_entry(&rd, e))
		return CR_ERR_FORMAT;
	*pos = rd.off;
	return CR_OK;
}

/* The next of the packed strings p[0..n) from *pos. */
static enum cr_err next_str(const unsigned char *p, size_t n, size_t *pos, const char **url,
			    size_t *len)
{
	struct buf_reader rd;

	buf_reader_init(&rd, p, n);
	rd.off = *pos;
	if (rd.off >= rd.len)
		return CR_EOF;
	if (buf_get_str(&rd, url, len))
		return CR_ERR_FORMAT;
	*pos = rd.off;
	return CR_OK;
}

enum cr_err parse_record_link(const struct parse_record *r, size_t *pos,
			      const char **url, size_t *len)
{
	return next_str(r->links, r->links_len, pos, url, len);
}

enum cr_err parse_record_embed(const struct parse_record *r, size_t *pos,
			       const char **url, size_t *len)
{
	return next_str(r->embeds, r->embeds_len, pos, url, len);
}

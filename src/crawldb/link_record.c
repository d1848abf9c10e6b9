#include "crawldb/link_record.h"
#include "crawldb/crawl_record.h"

#include <string.h>

void link_record_pack(const struct link_record *l, struct buf *out)
{
	buf_put_u8(out, 5);
	buf_put_str(out, l->url, l->url_len);
	buf_put_varint(out, l->depth);
	buf_put_u8(out, l->hops);
	buf_put_str(out, l->from ? l->from : "", l->from ? l->from_len : 0);
	buf_put_u8(out, l->flags);
	crawl_record_meta_put(&l->meta, out);
	buf_put_varint(out, l->seed);
	crawl_record_cash_put(l->cash, out);
}

enum cr_err link_record_unpack(const void *p, size_t n, struct link_record *l)
{
	struct buf_reader rd;
	uint8_t v;
	uint64_t depth;
	struct link_record t;

	buf_reader_init(&rd, p, n);
	memset(&t, 0, sizeof(t));
	t.from = "";
	if (buf_get_u8(&rd, &v) || v < 1 || v > 5 || buf_get_str(&rd, &t.url, &t.url_len) ||
	    buf_get_varint(&rd, &depth) || depth > UINT32_MAX ||
	    (v >= 2 && buf_get_u8(&rd, &t.hops)) ||
	    (v >= 3 && buf_get_str(&rd, &t.from, &t.from_len)) ||
	    (v >= 4 && (buf_get_u8(&rd, &t.flags) || t.flags > 7 ||
			crawl_record_meta_get(&rd, &t.meta) || buf_get_varint(&rd, &t.seed))) ||
	    (v >= 5 && crawl_record_cash_get(&rd, &t.cash)) ||
	    rd.off != rd.len || t.url_len == 0)
		return CR_ERR_FORMAT;
	t.depth = (uint32_t)depth;
	*l = t;
	return CR_OK;
}

int link_record_cmp(const void *a, size_t an, const void *b, size_t bn)
{
	int c = crawl_record_cmp(a, an, b, bn);
	struct link_record la, lb;

	if (c)
		return c;
	/* Equal URLs: a link before a requisite (a URL both linked and shown
	 * is a page: the merge keeps the first); then the smaller depth, so
	 * the merge keeps it; then the fewer redirect hops. */
	if (link_record_unpack(a, an, &la) || link_record_unpack(b, bn, &lb))
		return 0;
	/* What brings cash alone after every link: the merge takes the first
	 * link that says more. */
	if ((la.flags & LINK_CASH) != (lb.flags & LINK_CASH))
		return la.flags & LINK_CASH ? 1 : -1;
	if ((la.meta.kind == CRAWL_EMBED) != (lb.meta.kind == CRAWL_EMBED))
		return la.meta.kind == CRAWL_EMBED ? 1 : -1;
	if (la.depth != lb.depth)
		return la.depth < lb.depth ? -1 : 1;
	if (la.hops != lb.hops)
		return la.hops < lb.hops ? -1 : 1;
	/* Then a sitemap's entry before a plain link (the merge keeps the
	 * first, and the entry has news), then the bytes: a total order, so
	 * the merge keeps the same link whatever order the ranks sent them in. */
	if (la.flags != lb.flags)
		return la.flags > lb.flags ? -1 : 1;
	c = memcmp(a, b, an < bn ? an : bn);
	return c ? c : an < bn ? -1 : an > bn;
}

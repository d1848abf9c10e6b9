#include "crawldb/fetch_record.h"

#include <string.h>

#define FETCH_RECORD_V1 1
#define FETCH_RECORD_V2 2   /* V1 and hops (u8) at the end */
#define FETCH_RECORD_V3 3   /* V2 and the record's crawl_meta at the end */
#define FETCH_RECORD_V4 4   /* V3 and the fetch list's OPIC cash at the end */
#define FETCH_RECORD_V5 5   /* V4, the answer's ETag, Last-Modified and text digest */

void fetch_record_pack(const struct fetch_record *f, struct buf *out)
{
	buf_put_u8(out, FETCH_RECORD_V5);
	crawl_record_put(&f->rec, out);
	buf_put_str(out, f->reason, f->reason_len);
	buf_put_str(out, f->location, f->location_len);
	buf_put_str(out, f->content_type, f->content_type_len);
	buf_put_str(out, f->charset, f->charset_len);
	buf_put_str(out, f->warc, f->warc_len);
	buf_put_varint(out, f->warc_offset);
	buf_put_varint(out, f->body_len);
	buf_put_svarint(out, f->latency_us);
	buf_put_u8(out, f->rec.hops);
	crawl_record_meta_put(&f->rec.meta, out);
	buf_put_varint(out, f->rec.seed);
	crawl_record_cash_put(f->rec.cash, out);
	crawl_record_change_put(&f->rec, out);
}

enum cr_err fetch_record_unpack(const void *p, size_t n, struct fetch_record *f)
{
	struct buf_reader rd;
	uint8_t v;
	struct fetch_record t;

	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &v) || v < FETCH_RECORD_V1 || v > FETCH_RECORD_V5 ||
	    crawl_record_get(&rd, &t.rec) ||
	    buf_get_str(&rd, &t.reason, &t.reason_len) ||
	    buf_get_str(&rd, &t.location, &t.location_len) ||
	    buf_get_str(&rd, &t.content_type, &t.content_type_len) ||
	    buf_get_str(&rd, &t.charset, &t.charset_len) ||
	    buf_get_str(&rd, &t.warc, &t.warc_len) || buf_get_varint(&rd, &t.warc_offset) ||
	    buf_get_varint(&rd, &t.body_len) || buf_get_svarint(&rd, &t.latency_us))
		return CR_ERR_FORMAT;
	t.rec.hops = 0;
	memset(&t.rec.meta, 0, sizeof(t.rec.meta));
	t.rec.seed = 0;
	t.rec.cash = t.rec.history = 0;
	t.rec.etag = "";
	t.rec.etag_len = 0;
	t.rec.last_modified = 0;
	t.rec.text_digest = 0;
	memset(&t.rec.visits, 0, sizeof(t.rec.visits));
	if ((v >= FETCH_RECORD_V2 && buf_get_u8(&rd, &t.rec.hops)) ||
	    (v >= FETCH_RECORD_V3 && (crawl_record_meta_get(&rd, &t.rec.meta) ||
				      buf_get_varint(&rd, &t.rec.seed))) ||
	    (v >= FETCH_RECORD_V4 && crawl_record_cash_get(&rd, &t.rec.cash)) ||
	    (v >= FETCH_RECORD_V5 && crawl_record_change_get(&rd, &t.rec)) ||
	    rd.off != rd.len)
		return CR_ERR_FORMAT;
	t.rec.dup_of = t.rec.reason = "";
	t.rec.dup_of_len = t.rec.reason_len = 0;
	*f = t;
	return CR_OK;
}

/*
 * fuzz_warc - the WARC reader (warc/warc.h) on a file of any bytes: plain
 * .warc, .warc.gz (gzip members) and .warc.zst (zstd frames, optional
 * dictionary), told apart by their first bytes.
 *
 * Input: the whole file. Records are read to the end or the first error;
 * each one's fields, HTTP split, payload and digests are looked at. Then the
 * reader seeks back to the first record, which must read the same, and to an
 * offset taken from the input, which must give a record or an error. Each
 * record's WAT JSON (index/wat.h) is made, and must be an object whose
 * members can be walked to its Envelope.
 */
#include "fuzz.h"
#include "index/wat.h"
#include "util/json.h"
#include "warc/warc.h"

#define MAX_BLOCK (1u << 20)
#define MAX_RECORDS 256

static const char *const fields[] = {
	"WARC-Type", "Content-Length", "WARC-Target-URI", "Content-Type",
	"WARC-Block-Digest", "WARC-Payload-Digest", "WARC-Date", "",
};

static void wat_check(const struct warc_record *rec)
{
	struct wat_source s = { "f.warc.gz", WAT_GZIP, rec, NULL, NULL, NULL };
	const char *v;
	size_t n;
	struct buf j;

	buf_init(&j);
	wat_json(&s, &j);
	if (json_get_value((const char *)j.p, j.len, "Envelope", &v, &n) != CR_OK)
		abort();
	buf_release(&j);
}

static void look(const struct warc_record *rec)
{
	char out[256], tiny[4];
	const unsigned char *p;
	size_t i, plen, hlen;
	int status;

	if (!rec->head || rec->head_len > WARC_HEAD_MAX || rec->block_len > MAX_BLOCK ||
	    (rec->block_len && !rec->block))
		abort();
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (warc_record_field(rec, fields[i], out, sizeof(out)) && strlen(out) >= sizeof(out))
			abort();
		(void)warc_record_field(rec, fields[i], tiny, sizeof(tiny));
		if (strlen(tiny) >= sizeof(tiny))
			abort();
	}
	if (warc_http_split(rec->block, rec->block_len, &status, &hlen) == CR_OK &&
	    hlen > rec->block_len)
		abort();
	if (warc_record_payload(rec, &p, &plen) == CR_OK &&
	    (p < rec->block || p + plen > rec->block + rec->block_len))
		abort();
	(void)warc_check_block_digest(rec);
	(void)warc_check_payload_digest(rec);
	wat_check(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct warc_reader *r = NULL;
	struct warc_record rec;
	uint64_t first = 0, off;
	char *head0 = NULL;
	size_t head0_len = 0;
	int n = 0;

	if (warc_reader_open(path, MAX_BLOCK, &r) != CR_OK)
		return 0;
	while (n < MAX_RECORDS && warc_reader_next(r, &rec) == CR_OK) {
		look(&rec);
		if (n++ == 0) {
			first = rec.offset;
			head0 = fuzz_strndup(rec.head, rec.head_len);
			head0_len = rec.head_len;
		}
	}
	(void)warc_reader_shared_units(r);
	(void)warc_reader_offset(r);
	if (head0) {
		if (warc_reader_seek(r, first) != CR_OK || warc_reader_next(r, &rec) != CR_OK ||
		    rec.offset != first || rec.head_len != head0_len ||
		    memcmp(rec.head, head0, head0_len))
			abort();
	}
	off = size >= 2 ? (uint64_t)(data[size - 1] | data[size - 2] << 8) % (size + 1) : 0;
	if (warc_reader_seek(r, off) == CR_OK && warc_reader_next(r, &rec) == CR_OK)
		look(&rec);
	free(head0);
	warc_reader_free(&r);
	return 0;
}

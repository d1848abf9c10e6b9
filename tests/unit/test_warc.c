/*
 * test_warc.c - the WARC writer and reader. Writes exchanges (a chunked
 * head, a truncated body, a binary body, a body larger than the write
 * buffer), reads them back (fields, both digests, record links, offsets,
 * seeks, one gzip member per record); tears and garbles files at every byte
 * and expects CR_ERR_FORMAT or a clean end, never a crash; rewraps the
 * records as one big gzip member and as zstd frames (with and without a
 * dictionary). Then reads every sample of the conformance set ($CONFORMANCE_DIR
 * or ../shared/conformance, warc_samples/) and agrees with
 * records_derived.jsonl, expected_upstream.jsonl and digest_vectors.jsonl.
 */
#include "test.h"
#include "warc/warc.h"
#include "util/buf.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zdict.h>
#include <zlib.h>
#include <zstd.h>

static char tmp_dir[256];

/* ---- small helpers ---------------------------------------------------- */

static void tmp_path(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", tmp_dir, name);
}

/* A char array as a pointer, for CHECK_STR's NULL test. */
static const char *str(const char *s)
{
	return s;
}


static int field_is(const struct warc_record *rec, const char *name, const char *want)
{
	char v[4096];

	if (!warc_record_field(rec, name, v, sizeof(v)))
		return want == NULL;
	return want && strcmp(v, want) == 0;
}

/* Reads every record; returns the final status, counts records. */
static enum cr_err read_all(const char *path, size_t max_block, int *count)
{
	struct warc_reader *r;
	struct warc_record rec;
	enum cr_err e;

	*count = 0;
	e = warc_reader_open(path, max_block, &r);
	if (e != CR_OK)
		return e;
	while ((e = warc_reader_next(r, &rec)) == CR_OK)
		(*count)++;
	warc_reader_free(&r);
	return e;
}

/* ---- writing and reading back ------------------------------------------ */

#define NX 6

struct written {
	struct warc_exchange x[NX];
	uint64_t off[NX], len[NX];
	struct buf big;
	struct buf bin;
};

static const char req_get[] =
	"GET /index.html HTTP/1.1\r\nHost: a.example\r\nUser-Agent: mpicrawl-test\r\n"
	"Accept: */*\r\n\r\n";
static const char req_post[] =
	"POST /form HTTP/1.1\r\nHost: a.example\r\nContent-Length: 7\r\n\r\nq=hello";
static const char head_ok[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 25\r\n\r\n";
static const char body_ok[] = "<html>hello world</html>\n";
/* A Content-Length beside chunked (RFC 9112: ignored) goes with it. */
static const char head_chunked[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
	"transfer-encoding :  gzip, Chunked\r\nVary: Transfer-Encoding\r\n"
	"Transfer-Encoding-Note: chunked\r\nContent-Length-Note: 3\r\n\r\n";
static const char head_chunked_stored[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Crawler-Content-Length: 3\r\n"
	"X-Crawler-transfer-encoding :  gzip, Chunked\r\nVary: Transfer-Encoding\r\n"
	"Transfer-Encoding-Note: chunked\r\nContent-Length-Note: 3\r\n\r\n";
static const char body_chunked[] = "a body the fetcher de-chunked\n";
static const char head_trunc[] =
	"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n"
	"Content-Type: application/octet-stream\r\n\r\n";
static const char head_304[] = "HTTP/1.0 304 Not Modified\r\n\r\n";
static const char head_big[] = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n";

static void make_exchanges(struct written *wr)
{
	size_t i;

	memset(wr->x, 0, sizeof(wr->x));
	buf_init(&wr->big);
	buf_init(&wr->bin);
	/* binary, with record-like bytes inside */
	for (i = 0; i < 5000; i++)
		buf_addc(&wr->bin, (char)(test_rng() & 0xff));
	memcpy(wr->bin.p + 1000, "\r\n\r\nWARC/1.1\r\nContent-Length: 3\r\n\r\n", 35);
	memset(wr->bin.p + 2000, 0, 100);
	/* larger than the writer's 1 MiB buffer, incompressible */
	for (i = 0; i < 2600 * 1024; i++)
		buf_addc(&wr->big, (char)(test_rng() >> 7));

	wr->x[0] = (struct warc_exchange){
		.target_uri = "http://a.example/index.html",
		.date_us = 1700000000123456LL, .ip = "192.0.2.1",
		.request = req_get, .request_len = sizeof(req_get) - 1,
		.resp_head = head_ok, .resp_head_len = sizeof(head_ok) - 1,
		.body = body_ok, .body_len = sizeof(body_ok) - 1 };
	wr->x[1] = (struct warc_exchange){
		.target_uri = "http://a.example/chunked",
		.date_us = 1700000001000000LL, .ip = "2001:db8::1",
		.request = req_get, .request_len = sizeof(req_get) - 1,
		.resp_head = head_chunked, .resp_head_len = sizeof(head_chunked) - 1,
		.body = body_chunked, .body_len = sizeof(body_chunked) - 1 };
	wr->x[2] = (struct warc_exchange){
		.target_uri = "http://a.example/big.bin",
		.date_us = 1700000002000001LL, .ip = "192.0.2.1",
		.request = req_post, .request_len = sizeof(req_post) - 1,
		.resp_head = head_trunc, .resp_head_len = sizeof(head_trunc) - 1,
		.body = wr->bin.p, .body_len = wr->bin.len, .truncated = "length" };
	wr->x[3] = (struct warc_exchange){
		.target_uri = "http://b.example/a b\nc", .date_us = 0,
		.request = req_get, .request_len = sizeof(req_get) - 1,
		.resp_head = head_304, .resp_head_len = sizeof(head_304) - 1 };
	wr->x[4] = (struct warc_exchange){
		.target_uri = "http://c.example/slow", .date_us = 1700000004000000LL,
		.ip = "198.51.100.7\r\nX: y", .request = req_get,
		.request_len = sizeof(req_get) - 1, .resp_head = head_ok,
		.resp_head_len = sizeof(head_ok) - 1, .body = body_ok, .body_len = 10,
		.truncated = "time" };
	wr->x[5] = (struct warc_exchange){
		.target_uri = "https://d.example/large.png",
		.date_us = 1700000005000000LL, .ip = "192.0.2.9",
		.request = req_get, .request_len = sizeof(req_get) - 1,
		.resp_head = head_big, .resp_head_len = sizeof(head_big) - 1,
		.body = wr->big.p, .body_len = wr->big.len };
}

static enum cr_err write_file(const char *path, struct written *wr, int n)
{
	struct warc_writer *w = NULL;
	struct stat st;
	uint64_t end;
	enum cr_err e;
	int i;

	e = warc_writer_open(path, "mpicrawl-test/1.0", &w);
	if (e != CR_OK)
		return e;
	for (i = 0; i < n; i++) {
		e = warc_write_exchange(w, &wr->x[i], &wr->off[i], &wr->len[i]);
		if (e != CR_OK)
			break;
	}
	end = warc_writer_offset(w);
	if (warc_writer_close(&w) != CR_OK && e == CR_OK)
		e = CR_ERR_IO;
	CHECK(w == NULL, "close clears the writer");
	CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == end,
	      "warc_writer_offset %llu is the file's size", (unsigned long long)end);
	return e;
}

/* A UUIDv7 (RFC 9562) whose 48-bit millisecond time is within a day of
 * now: record IDs sort by time. */
static int uuid_ok(const char *s)
{
	static const char pat[] = "<urn:uuid:xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx>";
	char ms_hex[13];
	long long ms, now = (long long)time(NULL) * 1000;
	size_t i;

	if (strlen(s) != sizeof(pat) - 1)
		return 0;
	memcpy(ms_hex, s + 10, 8);
	memcpy(ms_hex + 8, s + 19, 4);
	ms_hex[12] = '\0';
	ms = strtoll(ms_hex, NULL, 16);
	if (ms < now - 86400000LL || ms > now + 86400000LL)
		return 0;
	for (i = 0; pat[i]; i++) {
		char c = s[i];
		int hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
		if (pat[i] == 'x' && !hex)
			return 0;
		if (pat[i] == 'y' && !strchr("89ab", c))
			return 0;
		if (pat[i] != 'x' && pat[i] != 'y' && pat[i] != c)
			return 0;
	}
	return 1;
}

/* The gzip member at [off, off+len) of file decompresses alone to exactly want. */
static int member_alone(const struct buf *file, uint64_t off, uint64_t len,
			const void *want, size_t want_len)
{
	z_stream zs;
	struct buf out;
	unsigned char tmp[65536];
	int ret, ok;

	if (off + len > file->len)
		return 0;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 31) != Z_OK)
		return 0;
	buf_init(&out);
	zs.next_in = file->p + off;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = tmp;
		zs.avail_out = sizeof(tmp);
		ret = inflate(&zs, Z_NO_FLUSH);
		buf_add(&out, tmp, sizeof(tmp) - zs.avail_out);
	} while (ret == Z_OK);
	ok = ret == Z_STREAM_END && zs.avail_in == 0 && out.len == want_len &&
	     memcmp(out.p, want, want_len) == 0;
	inflateEnd(&zs);
	buf_release(&out);
	return ok;
}

static void check_response(const struct warc_record *rec, const struct written *wr,
			   int i, char *resp_id)
{
	const struct warc_exchange *x = &wr->x[i];
	const char *stored = i == 1 ? head_chunked_stored : (const char *)x->resp_head;
	size_t stored_len = i == 1 ? sizeof(head_chunked_stored) - 1 : x->resp_head_len;
	char v[256], want[64], date[40];
	const unsigned char *pl;
	size_t pl_len, hl;
	int st;

	CHECK(rec->offset == wr->off[i] && rec->length == wr->len[i],
	      "exchange %d: response at %llu+%llu, writer said %llu+%llu", i,
	      (unsigned long long)rec->offset, (unsigned long long)rec->length,
	      (unsigned long long)wr->off[i], (unsigned long long)wr->len[i]);
	CHECK(rec->head_len > 9 && memcmp(rec->head, "WARC/1.1\r\n", 10) == 0,
	      "exchange %d: WARC/1.1", i);
	CHECK(field_is(rec, "WARC-Type", "response"), "exchange %d: type", i);
	CHECK(field_is(rec, "content-type", "application/http;msgtype=response"),
	      "exchange %d: content type", i);
	CHECK(warc_record_field(rec, "WARC-Record-ID", resp_id, 64) && uuid_ok(resp_id),
	      "exchange %d: record id '%s'", i, resp_id);
	CHECK(rec->block_len == stored_len + x->body_len &&
	      memcmp(rec->block, stored, stored_len) == 0 &&
	      (!x->body_len ||
	       memcmp(rec->block + stored_len, x->body, x->body_len) == 0),
	      "exchange %d: block is the stored head and the body", i);
	snprintf(v, sizeof(v), "%zu", rec->block_len);
	CHECK(field_is(rec, "Content-Length", v), "exchange %d: Content-Length", i);
	CHECK(field_is(rec, "WARC-Truncated", x->truncated), "exchange %d: truncated", i);
	CHECK(warc_check_block_digest(rec) == 1, "exchange %d: block digest", i);
	CHECK(warc_check_payload_digest(rec) == 1, "exchange %d: payload digest", i);
	CHECK(warc_record_payload(rec, &pl, &pl_len) == CR_OK && pl_len == x->body_len &&
	      (!pl_len || memcmp(pl, x->body, pl_len) == 0), "exchange %d: payload", i);
	memcpy(want, "sha1:", 5);
	warc_sha1_base32(x->body, x->body_len, want + 5);
	CHECK(field_is(rec, "WARC-Payload-Digest", want),
	      "exchange %d: payload digest is upper-case base32 sha1", i);
	CHECK(warc_http_split(rec->block, rec->block_len, &st, &hl) == CR_OK &&
	      hl == stored_len && st == (i == 3 ? 304 : 200),
	      "exchange %d: http split", i);
	CHECK(warc_record_field(rec, "WARC-Date", date, sizeof(date)) &&
	      strlen(date) == 27 && date[10] == 'T' && date[26] == 'Z',
	      "exchange %d: date '%s'", i, date);
}

/* Seek to off and read the record there: 1 if both worked. */
static int seek_next(struct warc_reader *r, uint64_t off, struct warc_record *rec)
{
	return warc_reader_seek(r, off) == CR_OK && warc_reader_next(r, rec) == CR_OK;
}

static void test_roundtrip(void)
{
	struct written wr;
	struct warc_reader *r = NULL;
	struct warc_record rec;
	struct buf file;
	char path[300], resp_ids[NX][64], v[256], info_id[64];
	uint64_t prev_end = 0;
	int i, e;

	make_exchanges(&wr);
	buf_init(&file);
	tmp_path(path, sizeof(path), "rt.warc.gz");
	CHECK(write_file(path, &wr, NX) == CR_OK, "write %s", path);
	CHECK(test_slurp(path, &file) == 0, "read back %s", path);

	CHECK(warc_reader_open(path, 8u << 20, &r) == CR_OK, "open reader");
	if (!r)
		goto out;
	/* warcinfo */
	CHECK(warc_reader_next(r, &rec) == CR_OK, "warcinfo read");
	CHECK(rec.offset == 0 && field_is(&rec, "WARC-Type", "warcinfo") &&
	      field_is(&rec, "Content-Type", "application/warc-fields") &&
	      field_is(&rec, "WARC-Filename", "rt.warc.gz"), "warcinfo fields");
	CHECK(rec.block_len > 40 && memmem(rec.block, rec.block_len,
		"software: mpicrawl-test/1.0\r\n", 29) &&
	      memmem(rec.block, rec.block_len, "format: WARC File Format 1.1\r\n", 30) &&
	      memmem(rec.block, rec.block_len, "\r\nhostname: ", 12),
	      "warcinfo block: software, format, hostname");
	CHECK(warc_check_block_digest(&rec) == 1, "warcinfo digest");
	CHECK(warc_record_field(&rec, "WARC-Record-ID", info_id, sizeof(info_id)) &&
	      uuid_ok(info_id), "warcinfo id");
	CHECK(member_alone(&file, rec.offset, rec.length, rec.head,
			   rec.head_len + rec.block_len) == 0,
	      "a member holds the record end too (CRLF CRLF)");
	prev_end = rec.offset + rec.length;
	for (i = 0; i < NX; i++) {
		struct buf whole;

		e = warc_reader_next(r, &rec);
		CHECK(e == CR_OK, "exchange %d: response read (%d)", i, e);
		if (e != CR_OK)
			break;
		check_response(&rec, &wr, i, resp_ids[i]);
		CHECK(rec.offset == prev_end, "exchange %d: members are adjacent", i);
		CHECK(field_is(&rec, "WARC-Warcinfo-ID", info_id),
		      "exchange %d: warcinfo id", i);
		buf_init(&whole);
		buf_add(&whole, rec.head, rec.head_len);
		buf_add(&whole, rec.block, rec.block_len);
		buf_add(&whole, "\r\n\r\n", 4);
		CHECK(member_alone(&file, rec.offset, rec.length, whole.p, whole.len),
		      "exchange %d: response is one gzip member alone", i);
		buf_release(&whole);
		prev_end = rec.offset + rec.length;

		e = warc_reader_next(r, &rec);
		CHECK(e == CR_OK, "exchange %d: request read", i);
		if (e != CR_OK)
			break;
		CHECK(rec.offset == prev_end, "exchange %d: request follows", i);
		prev_end = rec.offset + rec.length;
		CHECK(field_is(&rec, "WARC-Type", "request") &&
		      field_is(&rec, "Content-Type",
			       "application/http;msgtype=request") &&
		      field_is(&rec, "WARC-Concurrent-To", resp_ids[i]),
		      "exchange %d: request type, content type, WARC-Concurrent-To", i);
		CHECK(rec.block_len == wr.x[i].request_len &&
		      memcmp(rec.block, wr.x[i].request, rec.block_len) == 0,
		      "exchange %d: request block", i);
		CHECK(warc_check_block_digest(&rec) == 1 &&
		      warc_check_payload_digest(&rec) == 1,
		      "exchange %d: request digests", i);
		CHECK(warc_record_field(&rec, "WARC-Record-ID", v, sizeof(v)) &&
		      uuid_ok(v) && strcmp(v, resp_ids[i]) != 0,
		      "exchange %d: request id", i);
	}
	CHECK(warc_reader_next(r, &rec) == CR_EOF, "EOF after the last record");
	CHECK(warc_reader_next(r, &rec) == CR_EOF, "EOF again");
	CHECK(prev_end == file.len, "members cover the file (%llu of %zu)",
	      (unsigned long long)prev_end, file.len);
	CHECK(!warc_reader_shared_units(r), "one member per record");

	/* fields the writer cleaned */
	CHECK(seek_next(r, wr.off[3], &rec) &&
	      field_is(&rec, "WARC-Target-URI", "http://b.example/a%20b%0Ac") &&
	      field_is(&rec, "WARC-IP-Address", NULL) &&
	      field_is(&rec, "WARC-Date", "1970-01-01T00:00:00.000000Z"),
	      "URI escaped, no IP, epoch date");
	CHECK(seek_next(r, wr.off[0], &rec) &&
	      field_is(&rec, "WARC-Date", "2023-11-14T22:13:20.123456Z") &&
	      field_is(&rec, "WARC-IP-Address", "192.0.2.1") &&
	      field_is(&rec, "WARC-Target-URI", "http://a.example/index.html"),
	      "date in microseconds, IP, URI");
	CHECK(seek_next(r, wr.off[4], &rec) &&
	      field_is(&rec, "WARC-IP-Address", NULL) &&
	      field_is(&rec, "WARC-Truncated", "time"), "an IP with CRLF is left out");
	CHECK(seek_next(r, wr.off[1], &rec) &&
	      field_is(&rec, "WARC-IP-Address", "2001:db8::1"), "IPv6 address");

	/* seeks, backwards, to each response, then reading on */
	for (i = NX - 1; i >= 0; i--) {
		CHECK(seek_next(r, wr.off[i], &rec) &&
		      rec.offset == wr.off[i] && rec.length == wr.len[i] &&
		      field_is(&rec, "WARC-Type", "response") &&
		      field_is(&rec, "WARC-Record-ID", resp_ids[i]),
		      "seek to exchange %d", i);
		CHECK(warc_reader_next(r, &rec) == CR_OK &&
		      field_is(&rec, "WARC-Concurrent-To", resp_ids[i]),
		      "after seek %d, the request follows", i);
	}
	{
		int q = test_quiet_on();
		CHECK(warc_reader_seek(r, wr.off[2] + 1) == CR_OK &&
		      warc_reader_next(r, &rec) == CR_ERR_FORMAT, "seek into a member");
		CHECK(warc_reader_next(r, &rec) == CR_ERR_FORMAT, "errors are sticky");
		test_quiet_off(q);
	}
	CHECK(seek_next(r, wr.off[2], &rec) &&
	      field_is(&rec, "WARC-Record-ID", resp_ids[2]), "a seek clears the error");
	CHECK(warc_reader_seek(r, file.len) == CR_OK &&
	      warc_reader_next(r, &rec) == CR_EOF,
	      "seek to the end");
	CHECK(warc_reader_seek(r, file.len + 1) == CR_ERR_ARG, "seek past the end");
	warc_reader_free(&r);
	CHECK(r == NULL, "free clears");
	warc_reader_free(&r);

	/* a block cap: the big body is over 1 MiB */
	{
		int n = 0, q = test_quiet_on();
		e = read_all(path, 1u << 20, &n);
		test_quiet_off(q);
		CHECK(e == CR_ERR_LIMIT && n == 1 + 2 * 5,
		      "max_block: limit at the big record (%d after %d)", e, n);
		e = read_all(path, wr.big.len + sizeof(head_big) - 1, &n);
		CHECK(e == CR_EOF && n == 1 + 2 * NX,
		      "max_block equal to the block is fine");
	}
out:
	buf_release(&file);
	buf_release(&wr.big);
	buf_release(&wr.bin);
}

/* ---- torn and garbled files ------------------------------------------- */

struct span {
	uint64_t off, end;
};

/* The records of path as (offset, end) spans; plain ends include CRLF CRLF. */
static int spans_of(const char *path, int plain, struct span *s, int max)
{
	struct warc_reader *r;
	struct warc_record rec;
	int n = 0;

	if (warc_reader_open(path, 0, &r) != CR_OK)
		return -1;
	while (n < max && warc_reader_next(r, &rec) == CR_OK) {
		s[n].off = rec.offset;
		s[n].end = rec.offset + rec.length + (plain ? 4 : 0);
		n++;
	}
	warc_reader_free(&r);
	return n;
}

/* Every prefix of the file: records wholly inside come out, then a clean
 * end exactly at a record boundary, CR_ERR_FORMAT anywhere else. */
static void tear_everywhere(const char *what, const struct buf *file,
			    const struct span *s, int n)
{
	char path[300];
	int bad = 0, q, fd;
	size_t cut;

	tmp_path(path, sizeof(path), "torn");
	if (test_spit(path, file->p, file->len) != 0 || (fd = open(path, O_WRONLY)) < 0) {
		CHECK(0, "%s: write %s", what, path);
		return;
	}
	q = test_quiet_on();
	/* longest first, so one file is cut shorter each time */
	for (cut = file->len + 1; cut-- > 0;) {
		int count = 0, whole = 0, boundary = cut == 0, k;
		enum cr_err e;

		for (k = 0; k < n; k++) {
			if (s[k].end <= cut)
				whole++;
			if (s[k].end == cut)
				boundary = 1;
		}
		if (ftruncate(fd, (off_t)cut) != 0) {
			bad++;
			break;
		}
		e = read_all(path, 0, &count);
		if (count != whole || e != (boundary ? CR_EOF : CR_ERR_FORMAT)) {
			if (bad++ < 5)
				printf("# %s cut at %zu: %d records, status %d\n",
				       what, cut, count, e);
		}
	}
	test_quiet_off(q);
	close(fd);
	CHECK(bad == 0, "%s: every cut of %zu bytes gives whole records then EOF or "
	      "format error (%d bad)", what, file->len, bad);
}

static void test_torn(void)
{
	struct written wr;
	struct span gz[16], pl[16];
	struct buf file, plain, tmp;
	struct warc_reader *r;
	struct warc_record rec;
	char path[300], ppath[300];
	int ngz, npl, i, n, q;
	enum cr_err e;

	make_exchanges(&wr);
	buf_init(&file);
	buf_init(&plain);
	buf_init(&tmp);
	tmp_path(path, sizeof(path), "small.warc.gz");
	tmp_path(ppath, sizeof(ppath), "small.warc");
	CHECK(write_file(path, &wr, 4) == CR_OK, "write the small file");
	test_slurp(path, &file);
	ngz = spans_of(path, 0, gz, 16);
	CHECK(ngz == 9, "small file: 9 records (%d)", ngz);

	/* the same records uncompressed */
	if (warc_reader_open(path, 0, &r) == CR_OK) {
		while (warc_reader_next(r, &rec) == CR_OK) {
			buf_add(&plain, rec.head, rec.head_len);
			buf_add(&plain, rec.block, rec.block_len);
			buf_add(&plain, "\r\n\r\n", 4);
		}
		warc_reader_free(&r);
	}
	test_spit(ppath, plain.p, plain.len);
	npl = spans_of(ppath, 1, pl, 16);
	CHECK(npl == ngz && pl[npl - 1].end == plain.len, "plain copy: same records");
	for (i = 1; i < npl; i++)
		CHECK(pl[i].off == pl[i - 1].end, "plain record %d follows at +4", i);

	tear_everywhere("gzip", &file, gz, ngz);
	tear_everywhere("plain", &plain, pl, npl);

	/* garbled copies go elsewhere: small.warc is used by test_zstd */
	tmp_path(ppath, sizeof(ppath), "bad.warc");

	/* a flipped byte inside a member: format error at that member */
	for (i = 1; i < ngz; i++) {
		size_t at = (size_t)(gz[i].off + (gz[i].end - gz[i].off) / 2);
		buf_reset(&tmp);
		buf_add(&tmp, file.p, file.len);
		tmp.p[at] ^= 0x55;
		test_spit(ppath, tmp.p, tmp.len);
		q = test_quiet_on();
		n = 0;
		e = CR_OK;
		if (warc_reader_open(ppath, 0, &r) == CR_OK) {
			while ((e = warc_reader_next(r, &rec)) == CR_OK)
				n++;
			CHECK(e == CR_ERR_FORMAT && n == i &&
			      warc_reader_offset(r) == gz[i].off,
			      "flip in member %d: format error at its offset (%d, %d "
			      "records, offset %llu)", i, e, n,
			      (unsigned long long)warc_reader_offset(r));
			warc_reader_free(&r);
		}
		test_quiet_off(q);
	}

	/* plain: a Content-Length one too long, a bad version line, a head without end */
	{
		static const struct {
			const char *what;
			const char *text;
			enum cr_err want;
		} bad[] = {
			{ "Content-Length too long",
			  "WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 4\r\n\r\n"
			  "abc\r\n\r\n", CR_ERR_FORMAT },
			{ "Content-Length too short",
			  "WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 2\r\n\r\n"
			  "abc\r\n\r\n", CR_ERR_FORMAT },
			{ "no Content-Length",
			  "WARC/1.1\r\nWARC-Type: resource\r\n\r\nabc\r\n\r\n",
			  CR_ERR_FORMAT },
			{ "Content-Length not a number",
			  "WARC/1.1\r\nContent-Length: 3x\r\n\r\nabc\r\n\r\n",
			  CR_ERR_FORMAT },
			{ "huge Content-Length",
			  "WARC/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n"
			  "abc\r\n\r\n", CR_ERR_FORMAT },
			{ "bad version",
			  "WARC/x\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n",
			  CR_ERR_FORMAT },
			{ "garbage after a record",
			  "WARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
			  "HTTP/1.1 200 OK\r\n", CR_ERR_FORMAT },
			{ "fine",
			  "WARC/1.0\r\nContent-Length: 3\r\nX: a\r\n  b\r\n\r\n"
			  "abc\r\n\r\n", CR_EOF },
		};
		size_t k;

		q = test_quiet_on();
		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			test_spit(ppath, bad[k].text, strlen(bad[k].text));
			e = read_all(ppath, 0, &n);
			CHECK(e == bad[k].want, "%s: status %d", bad[k].what, e);
		}
		buf_reset(&tmp);
		buf_adds(&tmp, "WARC/1.1\r\nWARC-Type: resource\r\nX-Long: ");
		for (k = 0; k < WARC_HEAD_MAX; k++)
			buf_addc(&tmp, 'a');
		buf_adds(&tmp, "\r\nContent-Length: 0\r\n\r\n\r\n\r\n");
		test_spit(ppath, tmp.p, tmp.len);
		CHECK(read_all(ppath, 0, &n) == CR_ERR_LIMIT, "head over WARC_HEAD_MAX");
		test_spit(ppath, "\x1f\x8bnot gzip at all", 17);
		CHECK(read_all(ppath, 0, &n) == CR_ERR_FORMAT, "bad gzip data");
		test_spit(ppath, "<html>", 6);
		CHECK(warc_reader_open(ppath, 0, &r) == CR_ERR_FORMAT && r == NULL,
		      "not a WARC file");
		CHECK(warc_reader_open("/nonexistent/x.warc", 0, &r) == CR_ERR_IO,
		      "missing file");
		test_quiet_off(q);
		{
			static const char folded[] =
				"WARC/1.0\r\nContent-Length: 3\r\nX: a\r\n  b\r\n\tc \r\n"
				"\r\nabc\r\n\r\n";
			test_spit(ppath, folded, sizeof(folded) - 1);
		}
		if (warc_reader_open(ppath, 0, &r) == CR_OK) {
			char v[8];
			CHECK(warc_reader_next(r, &rec) == CR_OK &&
			      field_is(&rec, "x", "a b c"),
			      "folded field");
			CHECK(warc_record_field(&rec, "X", v, sizeof(v)) &&
			      strcmp(v, "a b c") == 0,
			      "folded field, small buffer");
			CHECK(warc_record_field(&rec, "X", v, 3) && strcmp(v, "a") == 0,
			      "field truncated to cap (then trimmed)");
			CHECK(!warc_record_field(&rec, "Y", v, sizeof(v)) && v[0] == '\0',
			      "absent field");
			CHECK(warc_check_block_digest(&rec) == -1 &&
			      warc_check_payload_digest(&rec) == -1, "no digests");
			warc_reader_free(&r);
		}
	}

	/* the whole file as one gzip member: readable, flagged, offsets of the member */
	{
		z_stream zs;
		int count = 0;

		memset(&zs, 0, sizeof(zs));
		buf_reset(&tmp);
		buf_reserve(&tmp, plain.len + 1024);
		deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
		zs.next_in = plain.p;
		zs.avail_in = (uInt)plain.len;
		zs.next_out = tmp.p;
		zs.avail_out = (uInt)(plain.len + 1024);
		CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END, "deflate one member");
		tmp.len = zs.total_out;
		deflateEnd(&zs);
		test_spit(ppath, tmp.p, tmp.len);
		q = test_quiet_on();
		if (warc_reader_open(ppath, 0, &r) == CR_OK) {
			while ((e = warc_reader_next(r, &rec)) == CR_OK) {
				CHECK(rec.offset == 0 && rec.length == tmp.len,
				      "one-member file: record %d at the member", count);
				count++;
			}
			CHECK(e == CR_EOF && count == npl && warc_reader_shared_units(r),
			      "one-member file: all %d records, flagged", count);
			warc_reader_free(&r);
		}
		test_quiet_off(q);
	}
	buf_release(&file);
	buf_release(&plain);
	buf_release(&tmp);
	buf_release(&wr.big);
	buf_release(&wr.bin);
}

/* ---- zstd: a frame per record, with and without a dictionary ------------ */

static void put_skippable(struct buf *b, uint32_t magic, const void *p, size_t n)
{
	buf_put_u32le(b, magic);
	buf_put_u32le(b, (uint32_t)n);
	buf_add(b, p, n);
}

/* One zstd frame of src appended to out, with the dictionary cd if any. */
static void zstd_frame(struct buf *out, ZSTD_CCtx *cc, const ZSTD_CDict *cd,
		       const void *src, size_t len)
{
	size_t bound = ZSTD_compressBound(len), n;

	buf_reserve(out, bound);
	if (cd)
		n = ZSTD_compress_usingCDict(cc, out->p + out->len, bound, src, len, cd);
	else
		n = ZSTD_compress2(cc, out->p + out->len, bound, src, len);
	if (!ZSTD_isError(n))
		out->len += n;
}

static void test_zstd(void)
{
	struct buf plain, out, dict, samples;
	size_t sizes[400], nsamp = 0, i;
	struct span pl[16];
	char ppath[300], zpath[300];
	int npl, variant;

	buf_init(&plain);
	buf_init(&out);
	buf_init(&dict);
	buf_init(&samples);
	tmp_path(ppath, sizeof(ppath), "small.warc");
	tmp_path(zpath, sizeof(zpath), "small.warc.zst");
	if (test_slurp(ppath, &plain) != 0 || (npl = spans_of(ppath, 1, pl, 16)) <= 0) {
		CHECK(0, "zstd: no plain file to start from");
		return;
	}
	/* a trained dictionary, from WARC-like samples */
	for (i = 0; i < 400; i++) {
		size_t before = samples.len;
		buf_addf(&samples, "WARC/1.1\r\nWARC-Type: %s\r\n"
			 "WARC-Record-ID: <urn:uuid:%08llx-1111>\r\n"
			 "WARC-Target-URI: http://h%zu.example/p/%zu\r\n"
			 "Content-Type: application/http;msgtype=response\r\n"
			 "Content-Length: %zu\r\n\r\n", i % 2 ? "response" : "request",
			 (unsigned long long)test_rng() & 0xffffffff, i % 17, i, i * 7);
		sizes[nsamp++] = samples.len - before;
	}
	buf_reserve(&dict, 16384);
	dict.len = ZDICT_trainFromBuffer(dict.p, 16384, samples.p, sizes,
					 (unsigned)nsamp);
	CHECK(!ZDICT_isError(dict.len), "train a zstd dictionary");
	if (ZDICT_isError(dict.len))
		dict.len = 0;

	for (variant = 0; variant < 3; variant++) {
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		ZSTD_CDict *cd = NULL;
		struct warc_reader *r;
		struct warc_record rec;
		uint64_t offs[16];
		int k, n = 0;
		enum cr_err e;

		buf_reset(&out);
		if (variant == 1 && dict.len) {
			put_skippable(&out, 0x184D2A5D, dict.p, dict.len);
		} else if (variant == 2 && dict.len) {
			struct buf z;
			buf_init(&z);
			buf_reserve(&z, ZSTD_compressBound(dict.len));
			z.len = ZSTD_compress(z.p, ZSTD_compressBound(dict.len), dict.p,
					      dict.len, 3);
			put_skippable(&out, 0x184D2A5D, z.p, z.len);
			buf_release(&z);
		}
		if (variant && dict.len)
			cd = ZSTD_createCDict(dict.p, dict.len, 3);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		for (k = 0; k < npl; k++) {
			if (k == 2)   /* an extension frame between records */
				put_skippable(&out, 0x184D2A50, "ext", 3);
			offs[k] = out.len;
			zstd_frame(&out, cc, cd, plain.p + pl[k].off,
				   (size_t)(pl[k].end - pl[k].off));
		}
		put_skippable(&out, 0x184D2A51, "end", 3);
		ZSTD_freeCDict(cd);
		ZSTD_freeCCtx(cc);
		test_spit(zpath, out.p, out.len);
		if (warc_reader_open(zpath, 0, &r) != CR_OK) {
			CHECK(0, "zstd variant %d: open", variant);
			continue;
		}
		while ((e = warc_reader_next(r, &rec)) == CR_OK) {
			CHECK(n < npl && rec.offset == offs[n] &&
			      rec.head_len + rec.block_len + 4 == pl[n].end - pl[n].off &&
			      memcmp(rec.head, plain.p + pl[n].off, rec.head_len) == 0 &&
			      warc_check_block_digest(&rec) != 0,
			      "zstd variant %d: record %d", variant, n);
			n++;
		}
		CHECK(e == CR_EOF && n == npl && !warc_reader_shared_units(r),
		      "zstd variant %d: %d of %d records, status %d", variant, n, npl, e);
		CHECK(seek_next(r, offs[3], &rec) &&
		      rec.offset == offs[3], "zstd variant %d: seek", variant);
		warc_reader_free(&r);
		/* a frame cut short */
		{
			int q = test_quiet_on(), cnt;
			test_spit(zpath, out.p, (size_t)offs[4] + 10);
			CHECK(read_all(zpath, 0, &cnt) == CR_ERR_FORMAT && cnt == 4,
			      "zstd variant %d: torn frame", variant);
			test_quiet_off(q);
		}
	}
	buf_release(&plain);
	buf_release(&out);
	buf_release(&dict);
	buf_release(&samples);
}

/* ---- digests and HTTP splitting ----------------------------------------- */

static void test_digest_and_http(void)
{
	static const struct {
		const char *labelled;
		int want;
	} digests[] = {
		{ "sha1:fkxgynojj7h3ifo35fpubc445epoqrxn", 1 },    /* lower case */
		{ " SHA-1:FKXGYNOJJ7H3IFO35FPUBC445EPOQRXN ", 1 }, /* label, spaces */
		{ "sha1:FKXGYNOJJ7H3IFO35FPUBC445EPOQRXM", 0 },    /* wrong */
		{ "sha1:FKXGYNOJJ7H3IFO35FPUBC445EPOQRX", 0 },     /* short */
		{ "sha1:!!", 0 },                                  /* garbage */
		{ "md5:XrY7u+Ae7tCTyyK7j1rNww==", 1 },
		{ "crc32:0d4a1185", -1 },                          /* unsupported */
		{ "FKXGYNOJJ7H3IFO35FPUBC445EPOQRXN", -1 },        /* no label */
	};
	static const struct {
		const char *msg;
		enum cr_err want;
		int status;
		size_t head_len;
	} http[] = {
		{ "HTTP/1.1 404 Not Found\r\nA: b\r\n\r\nbody", CR_OK, 404, 32 },
		{ "GET / HTTP/1.1\nHost: x\n\n", CR_OK, 0, 24 },   /* bare LF */
		{ "HTTP/1.1 200\r\n\r\n", CR_OK, 200, 16 },        /* no reason */
		{ "HTTP/1.1 200 OK\r\nA: b\r\n", CR_ERR_FORMAT, 0, 0 },
		{ "HTTP/1.1 2x0 OK\r\n\r\n", CR_ERR_FORMAT, 0, 0 },
		{ "\r\n\r\n", CR_ERR_FORMAT, 0, 0 },
		{ "", CR_ERR_FORMAT, 0, 0 },
	};
	char b32[33];
	size_t i;

	warc_sha1_base32("hello world", 11, b32);
	CHECK_STR(str(b32), "FKXGYNOJJ7H3IFO35FPUBC445EPOQRXN");
	warc_sha1_base32("", 0, b32);
	CHECK_STR(str(b32), "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
	for (i = 0; i < sizeof(digests) / sizeof(digests[0]); i++) {
		int got = warc_digest_check(digests[i].labelled, "hello world", 11);
		CHECK(got == digests[i].want, "digest '%s': %d, want %d",
		      digests[i].labelled, got, digests[i].want);
	}
	for (i = 0; i < sizeof(http) / sizeof(http[0]); i++) {
		int st = -1;
		size_t hl = 0;
		enum cr_err e = warc_http_split((const unsigned char *)http[i].msg,
						strlen(http[i].msg), &st, &hl);
		CHECK(e == http[i].want &&
		      (e != CR_OK || (st == http[i].status && hl == http[i].head_len)),
		      "http split %zu: %d, status %d, head %zu", i, e, st, hl);
	}
}

/* ---- a write error ------------------------------------------------------ */

static void test_write_error(void)
{
	struct warc_writer *w = NULL;
	struct written wr;
	uint64_t off = 0, len = 0;
	int q;

	if (access("/dev/full", W_OK) != 0)
		return;
	make_exchanges(&wr);
	q = test_quiet_on();
	if (warc_writer_open("/dev/full", "t", &w) == CR_OK) {
		enum cr_err e = CR_OK;
		int i;
		/* buffered: the error shows at a flush, then stays */
		for (i = 0; i < 3 && e == CR_OK; i++)
			e = warc_write_exchange(w, &wr.x[5], &off, &len);
		CHECK(e == CR_ERR_IO, "write to a full disk: io error (%d)", e);
		CHECK(warc_write_exchange(w, &wr.x[0], &off, &len) == CR_ERR_IO,
		      "the writer stays failed");
		CHECK(warc_writer_close(&w) == CR_ERR_IO && w == NULL,
		      "close reports it");
	} else {
		CHECK(0, "open /dev/full");
	}
	CHECK(warc_writer_open("/nonexistent/dir/x.warc.gz", "t", &w) == CR_ERR_IO && !w,
	      "open in a missing directory");
	test_quiet_off(q);
	CHECK(warc_writer_close(&w) == CR_OK && warc_writer_close(NULL) == CR_OK,
	      "close accepts NULL");
	buf_release(&wr.big);
	buf_release(&wr.bin);
}

/* ---- conformance samples ------------------------------------------------ */

/* The value after "key": in [s, e), or NULL. */
static const char *jfind(const char *s, const char *e, const char *key)
{
	char pat[96];
	size_t n;
	const char *p;

	n = (size_t)snprintf(pat, sizeof(pat), "\"%s\": ", key);
	for (p = s; p + n <= e; p++)
		if (memcmp(p, pat, n) == 0)
			return p + n;
	return NULL;
}

/* A string value (ASCII escapes only, as these files hold): 1; null/absent: 0. */
static int jstr(const char *s, const char *e, const char *key, char *out, size_t cap)
{
	const char *p = jfind(s, e, key);
	size_t o = 0;

	out[0] = '\0';
	if (!p || *p != '"')
		return 0;
	for (p++; p < e && *p != '"'; p++) {
		char c = *p;
		if (c == '\\' && p + 1 < e) {
			c = *++p;
			if (c == 'n')
				c = '\n';
			else if (c == 'r')
				c = '\r';
			else if (c == 't')
				c = '\t';
		}
		if (o + 1 < cap)
			out[o++] = c;
	}
	out[o] = '\0';
	return 1;
}

static int jnum(const char *s, const char *e, const char *key, long long *v)
{
	const char *p = jfind(s, e, key);
	char *end;

	if (!p || *p < '0' || *p > '9')
		return 0;
	*v = strtoll(p, &end, 10);
	return end != p;
}

static int read_lines(const char *path, struct buf *b)
{
	if (test_slurp(path, b) != 0)
		return -1;
	buf_cstr(b);
	return 0;
}

/* Opens sample file and returns its record number idx (0-based) in rec. */
static enum cr_err sample_record(const char *dir, const char *file, long long idx,
				 struct warc_reader **r, struct warc_record *rec)
{
	char path[1024];
	enum cr_err e;
	long long i;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	e = warc_reader_open(path, 0, r);
	if (e != CR_OK)
		return e;
	for (i = 0; i <= idx; i++)
		if ((e = warc_reader_next(*r, rec)) != CR_OK)
			return e;
	return CR_OK;
}

static int expect_check(const char *line, const char *end, const char *key,
			const char *dkey)
{
	char v[128];

	if (jstr(line, end, key, v, sizeof(v)))
		return !strncmp(v, "match", 5) ? 1 : !strcmp(v, "mismatch") ? 0 : -1;
	return -2 + !jfind(line, end, dkey);   /* digest absent: -1; else unknown: -2 */
}

static void test_records_derived(const char *dir)
{
	struct buf lines;
	char path[1024], file[256], v[512], want[512];
	const char *line, *end;
	int rows = 0, files = 0;
	char seen[16][256];
	int nseen = 0, k;

	buf_init(&lines);
	snprintf(path, sizeof(path), "%s/records_derived.jsonl", dir);
	if (read_lines(path, &lines) != 0) {
		CHECK(0, "cannot read %s", path);
		return;
	}
	for (line = (const char *)lines.p; *line; line = *end ? end + 1 : end) {
		struct warc_reader *r = NULL;
		struct warc_record rec;
		long long idx, off, len, clen;
		int want_b, want_p, got, q;
		enum cr_err e;

		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (!jstr(line, end, "file", file, sizeof(file)))
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], file); k++)
			;
		if (k == nseen && nseen < 16)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", file);
		if (!jnum(line, end, "index", &idx))
			continue;
		rows++;
		q = test_quiet_on();
		e = sample_record(dir, file, idx, &r, &rec);
		test_quiet_off(q);
		CHECK(e == CR_OK, "%s #%lld: read (%d)", file, idx, e);
		if (e != CR_OK) {
			warc_reader_free(&r);
			continue;
		}
		jnum(line, end, "offset", &off);
		jnum(line, end, "length", &len);
		CHECK((long long)rec.offset == off && (long long)rec.length == len,
		      "%s #%lld: offset/length %llu/%llu, want %lld/%lld", file, idx,
		      (unsigned long long)rec.offset, (unsigned long long)rec.length, off,
		      len);
		jstr(line, end, "warc_type", want, sizeof(want));
		CHECK(field_is(&rec, "WARC-Type", want), "%s #%lld: type %s", file, idx,
		      want);
		jstr(line, end, "warc_record_id", want, sizeof(want));
		CHECK(field_is(&rec, "WARC-Record-ID", want), "%s #%lld: id", file, idx);
		if (jstr(line, end, "warc_target_uri", want, sizeof(want)))
			CHECK(field_is(&rec, "WARC-Target-URI", want), "%s #%lld: uri",
			      file, idx);
		else
			CHECK(!warc_record_field(&rec, "WARC-Target-URI", v, sizeof(v)),
			      "%s #%lld: no uri", file, idx);
		jstr(line, end, "content_type", want, sizeof(want));
		CHECK(field_is(&rec, "Content-Type", want), "%s #%lld: content type",
		      file, idx);
		CHECK(jnum(line, end, "content_length", &clen) &&
		      (long long)rec.block_len == clen,
		      "%s #%lld: block length", file, idx);
		jstr(line, end, "warc_version", want, sizeof(want));
		CHECK(rec.head_len > strlen(want) &&
		      !memcmp(rec.head, want, strlen(want)),
		      "%s #%lld: version", file, idx);

		want_b = expect_check(line, end, "block_digest_check",
				      "warc_block_digest");
		got = warc_check_block_digest(&rec);
		CHECK(got == want_b, "%s #%lld: block digest %d, want %d", file, idx, got,
		      want_b);
		want_p = expect_check(line, end,
				      "payload_digest_vs_body_after_http_headers",
				      "warc_payload_digest");
		if (jstr(line, end, "payload_digest_check", v, sizeof(v)) &&
		    !strncmp(v, "n/a", 3))
			want_p = -1;
		got = warc_check_payload_digest(&rec);
		CHECK(got == want_p, "%s #%lld: payload digest %d, want %d", file, idx,
		      got, want_p);
		if (jstr(line, end, "http_status_line", want, sizeof(want))) {
			size_t n = strlen(want);
			CHECK(rec.block_len > n + 1 && !memcmp(rec.block, want, n) &&
			      rec.block[n] == '\r', "%s #%lld: status line", file, idx);
		}
		warc_reader_free(&r);
	}
	/* each file: exactly its rows, then a clean end */
	for (k = 0; k < nseen; k++) {
		int count = 0, nrows = 0, q;
		const char *p = (const char *)lines.p;
		char pat[300];
		enum cr_err e;

		snprintf(pat, sizeof(pat), "\"file\": \"%.255s\", \"index\"", seen[k]);
		while ((p = strstr(p, pat)) != NULL) {
			nrows++;
			p++;
		}
		snprintf(path, sizeof(path), "%.250s/%.255s", dir, seen[k]);
		q = test_quiet_on();
		e = read_all(path, 0, &count);
		test_quiet_off(q);
		CHECK(e == CR_EOF && count == nrows,
		      "%s: %d records (want %d), status %d",
		      seen[k], count, nrows, e);
		files++;
	}
	CHECK(rows == 44 - 1 && files == 8, "records_derived: %d rows of %d files", rows,
	      files);
	printf("records_derived: %d rows, %d files\n", rows, files);
	buf_release(&lines);
}

/* The objects of the "records": [...] array of one line, one at a time. */
static const char *next_object(const char *p, const char *end, const char **oend)
{
	const char *s = memchr(p, '{', (size_t)(end - p));

	if (!s)
		return NULL;
	*oend = memchr(s, '}', (size_t)(end - s));
	return *oend ? s : NULL;
}

/* An HTTP block's status code, or -1. */
static int http_status(const struct warc_record *rec)
{
	size_t hl;
	int st;

	if (warc_http_split(rec->block, rec->block_len, &st, &hl) != CR_OK)
		return -1;
	return st;
}

/* warcio's index: offset, length, type, URI, filename, status per record. */
static void upstream_index(struct warc_reader *r, const char *file, const char *line,
			   const char *end)
{
	struct warc_record rec;
	const char *o, *oe;
	char want[512];
	int n = 0;

	o = jfind(line, end, "records");
	for (; o && (o = next_object(o, end, &oe)) != NULL; o = oe) {
		long long off = -1, len = -1;

		CHECK(warc_reader_next(r, &rec) == CR_OK, "%s index #%d: read", file, n);
		jnum(o, oe, "offset", &off);
		jnum(o, oe, "length", &len);
		CHECK((long long)rec.offset == off && (long long)rec.length == len,
		      "%s index #%d: %llu+%llu, want %lld+%lld", file, n,
		      (unsigned long long)rec.offset, (unsigned long long)rec.length, off,
		      len);
		jstr(o, oe, "warc-type", want, sizeof(want));
		CHECK(field_is(&rec, "WARC-Type", want), "%s index #%d: type", file, n);
		if (jstr(o, oe, "warc-target-uri", want, sizeof(want)))
			CHECK(field_is(&rec, "WARC-Target-URI", want),
			      "%s index #%d: uri", file, n);
		if (jstr(o, oe, "warc-filename", want, sizeof(want)))
			CHECK(field_is(&rec, "WARC-Filename", want),
			      "%s index #%d: filename", file, n);
		if (jstr(o, oe, "http:status", want, sizeof(want)))
			CHECK(http_status(&rec) == (int)strtol(want, NULL, 10),
			      "%s index #%d: status", file, n);
		n++;
	}
	CHECK(n > 0 && warc_reader_next(r, &rec) == CR_EOF,
	      "%s index: %d records, then the end", file, n);
}

/* warcio check: failures, passing records, records without digests. */
static void upstream_digests(struct warc_reader *r, const char *file, const char *line,
			     const char *end)
{
	long long want_n = -1, want_exit = -1, want;
	int n = 0, fail = 0, pfail = 0, pass = 0, none = 0;
	const char *x = jfind(line, end, "expected");
	struct warc_record rec;

	while (warc_reader_next(r, &rec) == CR_OK) {
		int b = warc_check_block_digest(&rec);
		int p = warc_check_payload_digest(&rec);
		n++;
		fail += b == 0 || p == 0;
		pfail += p == 0;
		pass += (b == 1 || p == 1) && b != 0 && p != 0;
		none += b == -1 && p == -1;
	}
	jnum(x, end, "records", &want_n);
	jnum(x, end, "exit_status", &want_exit);
	CHECK(n == want_n, "%s: %d records, want %lld", file, n, want_n);
	CHECK((fail > 0) == (want_exit == 1), "%s: %d failures, exit %lld", file, fail,
	      want_exit);
	if (jnum(x, end, "digest_failures", &want))
		CHECK(fail == want, "%s: digest failures %d", file, fail);
	if (jnum(x, end, "payload_digest_failures", &want))
		CHECK(pfail == want, "%s: payload failures %d", file, pfail);
	if (jnum(x, end, "records_passing", &want))
		CHECK(pass == want, "%s: passing %d", file, pass);
	if (jnum(x, end, "records_without_digest", &want))
		CHECK(none == want, "%s: without digest %d", file, none);
}

/* The one-member file warcio refuses: we read it and flag it. */
static void upstream_load_failure(struct warc_reader *r, const char *file,
				  const char *line, const char *end)
{
	const char *t = jfind(line, end, "record_types_after_recompress");
	struct warc_record rec;
	char want[64];
	enum cr_err e;
	int n = 0, q = test_quiet_on();

	while ((e = warc_reader_next(r, &rec)) == CR_OK) {
		/* the list's strings, in order */
		const char *s = t ? strchr(t, '"') : NULL;
		const char *se = s ? strchr(s + 1, '"') : NULL;

		if (s && se && se < end) {
			snprintf(want, sizeof(want), "%.*s", (int)(se - s - 1), s + 1);
			CHECK(field_is(&rec, "WARC-Type", want), "%s #%d: type %s",
			      file, n, want);
			t = se + 1;
		}
		n++;
	}
	test_quiet_off(q);
	CHECK(e == CR_EOF && n == 6 && warc_reader_shared_units(r),
	      "%s: read anyway (%d records), flagged as one member", file, n);
}

/* The iipc CDX: seek to each line's offset; length, URL, digest, status, date. */
static void upstream_cdx(struct warc_reader *r, const char *line, const char *end)
{
	struct warc_record rec;
	const char *o, *oe;
	int n = 0;

	o = jfind(line, end, "records");
	for (; o && (o = next_object(o, end, &oe)) != NULL; o = oe) {
		char v[512], want[512], k[64], b[33], d[64];
		long long off, len;
		const unsigned char *pl;
		size_t pl_len, i, j = 0;

		jstr(o, oe, "V", v, sizeof(v));
		off = strtoll(v, NULL, 10);
		jstr(o, oe, "S", v, sizeof(v));
		len = strtoll(v, NULL, 10);
		CHECK(warc_reader_seek(r, (uint64_t)off) == CR_OK &&
		      warc_reader_next(r, &rec) == CR_OK && (long long)rec.length == len,
		      "cdx %d: record at %lld+%lld", n, off, len);
		jstr(o, oe, "a", want, sizeof(want));
		CHECK(field_is(&rec, "WARC-Target-URI", want), "cdx %d: url", n);
		jstr(o, oe, "k", k, sizeof(k));
		CHECK(warc_record_payload(&rec, &pl, &pl_len) == CR_OK, "cdx %d: payload",
		      n);
		warc_sha1_base32(pl, pl_len, b);
		CHECK_STR(str(b), k);
		jstr(o, oe, "s", v, sizeof(v));
		if (strcmp(v, "-") != 0)
			CHECK(http_status(&rec) == (int)strtol(v, NULL, 10),
			      "cdx %d: status %s", n, v);
		jstr(o, oe, "b", v, sizeof(v));
		warc_record_field(&rec, "WARC-Date", want, sizeof(want));
		for (i = 0; want[i] && j < 14; i++)
			if (want[i] >= '0' && want[i] <= '9')
				d[j++] = want[i];
		d[j] = '\0';
		CHECK_STR(str(d), v);
		n++;
	}
	CHECK(n == 4, "cdx: %d lines", n);
}

static void test_expected_upstream(const char *dir)
{
	struct buf lines;
	char path[1024], file[256], kind[64];
	const char *line, *end;
	int kinds = 0;

	buf_init(&lines);
	snprintf(path, sizeof(path), "%s/expected_upstream.jsonl", dir);
	if (read_lines(path, &lines) != 0) {
		CHECK(0, "cannot read %s", path);
		return;
	}
	for (line = (const char *)lines.p; *line; line = *end ? end + 1 : end) {
		struct warc_reader *r = NULL;
		enum cr_err e;
		int q;

		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (!jstr(line, end, "file", file, sizeof(file)) ||
		    !jstr(line, end, "kind", kind, sizeof(kind)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		q = test_quiet_on();
		e = warc_reader_open(path, 0, &r);
		test_quiet_off(q);
		CHECK(e == CR_OK, "%s: open", file);
		if (e != CR_OK)
			continue;
		kinds++;
		if (strcmp(kind, "index") == 0)
			upstream_index(r, file, line, end);
		else if (strcmp(kind, "digest_check") == 0)
			upstream_digests(r, file, line, end);
		else if (strcmp(kind, "load_failure") == 0)
			upstream_load_failure(r, file, line, end);
		else if (strcmp(kind, "cdx") == 0)
			upstream_cdx(r, line, end);
		else
			kinds--;
		warc_reader_free(&r);
	}
	CHECK(kinds == 8, "expected_upstream: %d objects checked", kinds);
	printf("expected_upstream: %d objects\n", kinds);
	buf_release(&lines);
}

static void test_digest_vectors(const char *dir)
{
	struct buf lines;
	char path[1024], in[128], alg[32], v[256], lab[300];
	const char *line, *end;
	int n = 0;

	buf_init(&lines);
	snprintf(path, sizeof(path), "%s/digest_vectors.jsonl", dir);
	if (read_lines(path, &lines) != 0) {
		CHECK(0, "cannot read %s", path);
		return;
	}
	for (line = (const char *)lines.p; *line; line = *end ? end + 1 : end) {
		static const char *const enc[] = { "base32", "hex", "base64" };
		const char *p;
		size_t i;

		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (jstr(line, end, "algorithm", alg, sizeof(alg))) {
			jstr(line, end, "input", in, sizeof(in));
			jstr(line, end, "warc_digest", v, sizeof(v));
			CHECK(warc_digest_check(v, in, strlen(in)) == 1, "vector %s", v);
			CHECK(warc_digest_check(v, "hello worle", 11) == 0,
			      "vector %s, other data", v);
			for (i = 0; i < 3; i++) {
				jstr(line, end, enc[i], v, sizeof(v));
				snprintf(lab, sizeof(lab), "%s:%s", alg, v);
				CHECK(warc_digest_check(lab, in, strlen(in)) == 1,
				      "vector %s", lab);
				n++;
			}
			if (strcmp(alg, "sha1") == 0) {
				char b32[33];
				warc_sha1_base32(in, strlen(in), b32);
				jstr(line, end, "base32", v, sizeof(v));
				CHECK_STR(str(b32), v);
			}
		} else if (jstr(line, end, "parse", v, sizeof(v))) {
			CHECK(warc_digest_check(v, "hello world", 11) == 1, "parse %s",
			      v);
			n++;
		} else if ((p = jfind(line, end, "parse_equivalent")) != NULL) {
			const char *s = strchr(p, '"'), *se;
			while (s && s < end && *s == '"' &&
			       (se = strchr(s + 1, '"')) != NULL) {
				snprintf(lab, sizeof(lab), "%.*s", (int)(se - s - 1),
					 s + 1);
				CHECK(warc_digest_check(lab, "hello world", 11) == 1,
				      "equivalent %s", lab);
				n++;
				s = se + 1;
				if (*s != ',')
					break;
				s = strchr(s, '"');
			}
		}
	}
	CHECK(n == 4 * 3 + 1 + 3, "digest_vectors: %d checked", n);
	printf("digest_vectors: %d checked\n", n);
	buf_release(&lines);
}

static void test_conformance(void)
{
	const char *conf = getenv("CONFORMANCE_DIR");
	char dir[256];

	if (!conf || !*conf)
		conf = "../shared/conformance";
	snprintf(dir, sizeof(dir), "%s/warc_samples", conf);
	if (access(dir, R_OK) != 0) {
		SKIP(3, "the WARC conformance samples are not at %s: set CONFORMANCE_DIR "
		     "to their parent folder to run them", dir);
		return;
	}
	test_records_derived(dir);
	test_expected_upstream(dir);
	test_digest_vectors(dir);
}

/* An HTTP/2 exchange over TLS: WARC-Protocol twice and WARC-Cipher-Suite on
 * both records, the request and status lines stored as HTTP/1.1 and the
 * rest of the heads as received; an HTTP/1.1 one over plain http has one
 * WARC-Protocol and no cipher. */
static void test_protocols(void)
{
	static const char req[] = "GET /x HTTP/2\r\nHost: h2.example\r\naccept: */*\r\n\r\n";
	static const char head[] = "HTTP/2 200 \r\ncontent-type: text/html\r\n"
				   "transfer-encoding: chunked\r\n\r\n";
	static const char req_stored[] =
		"GET /x HTTP/1.1\r\nHost: h2.example\r\naccept: */*\r\n\r\n";
	static const char head_stored[] = "HTTP/1.1 200 \r\ncontent-type: text/html\r\n"
					  "X-Crawler-transfer-encoding: chunked\r\n\r\n";
	struct warc_exchange x[2] = {
		{ .target_uri = "https://h2.example/x", .date_us = 1700000000000000LL,
		  .ip = "::1", .request = req, .request_len = sizeof(req) - 1,
		  .resp_head = head, .resp_head_len = sizeof(head) - 1, .body = "<p>hi",
		  .body_len = 5, .protocol = "h2", .tls = "tls/1.3",
		  .cipher = "TLS_AES_256_GCM_SHA384" },
		{ .target_uri = "http://a.example/index.html", .date_us = 1700000000000001LL,
		  .request = req_get, .request_len = sizeof(req_get) - 1,
		  .resp_head = head_ok, .resp_head_len = sizeof(head_ok) - 1,
		  .body = body_ok, .body_len = sizeof(body_ok) - 1, .protocol = "http/1.1",
		  .tls = "", .cipher = "" },
	};
	struct warc_writer *w = NULL;
	struct warc_reader *r = NULL;
	struct warc_record rec;
	char path[300];
	int i, n = 0;

	tmp_path(path, sizeof(path), "proto.warc.gz");
	CHECK(warc_writer_open(path, "mpicrawl-test/1.0", &w) == CR_OK, "open %s", path);
	for (i = 0; i < 2 && w; i++)
		CHECK(warc_write_exchange(w, &x[i], NULL, NULL) == CR_OK, "exchange %d", i);
	CHECK(warc_writer_close(&w) == CR_OK, "close");
	CHECK(warc_reader_open(path, 1 << 20, &r) == CR_OK, "reader");
	while (r && warc_reader_next(r, &rec) == CR_OK) {
		char type[32];
		int h2 = n < 3;

		n++;
		if (!warc_record_field(&rec, "WARC-Type", type, sizeof(type)) ||
		    !strcmp(type, "warcinfo"))
			continue;
		CHECK(memmem(rec.head, rec.head_len, h2 ? "\r\nWARC-Protocol: h2\r\n"
				   "WARC-Protocol: tls/1.3\r\nWARC-Cipher-Suite: "
				   "TLS_AES_256_GCM_SHA384\r\n" : "\r\nWARC-Protocol: http/1.1\r\n"
				   "WARC-Warcinfo-ID", h2 ? 88 : 43) != NULL,
		      "record %d (%s): protocol fields", n, type);
		CHECK(warc_check_block_digest(&rec) == 1, "record %d: block digest", n);
		if (!strcmp(type, "request"))
			CHECK(h2 ? rec.block_len == sizeof(req_stored) - 1 &&
			      !memcmp(rec.block, req_stored, rec.block_len)
			      : rec.block_len == sizeof(req_get) - 1,
			      "record %d: request stored as HTTP/1.1", n);
		else
			CHECK(h2 ? rec.block_len == sizeof(head_stored) - 1 + 5 &&
			      !memcmp(rec.block, head_stored, sizeof(head_stored) - 1)
			      : rec.block_len == sizeof(head_ok) - 1 + sizeof(body_ok) - 1,
			      "record %d: response stored with an HTTP/1.1 status line", n);
	}
	CHECK(n == 5, "warcinfo and two exchanges: %d records", n);
	warc_reader_free(&r);
	unlink(path);
}

/* Revisits: an identical-payload-digest one names the payload it did not
 * store, an empty one (a 204 again) too; a server-not-modified one (304)
 * has no payload to name. */
static void test_revisit_digests(void)
{
	static const char h204[] = "HTTP/1.1 204 No Content\r\nServer: t\r\n\r\n";
	static const char h304[] = "HTTP/1.1 304 Not Modified\r\nServer: t\r\n\r\n";
	struct warc_exchange x[3] = {
		{ .target_uri = "http://a.example/204", .date_us = 1700000000000000LL,
		  .request = req_get, .request_len = sizeof(req_get) - 1, .resp_head = h204,
		  .resp_head_len = sizeof(h204) - 1, .body = "", .body_len = 0,
		  .revisit_profile = WARC_PROFILE_IDENTICAL,
		  .refers_to_uri = "http://a.example/204", .refers_to_date_us = 1600000000000000LL },
		{ .target_uri = "http://a.example/p", .date_us = 1700000000000001LL,
		  .request = req_get, .request_len = sizeof(req_get) - 1, .resp_head = head_ok,
		  .resp_head_len = sizeof(head_ok) - 1, .body = body_ok,
		  .body_len = sizeof(body_ok) - 1, .revisit_profile = WARC_PROFILE_IDENTICAL,
		  .refers_to_uri = "http://a.example/p", .refers_to_date_us = 1600000000000000LL },
		{ .target_uri = "http://a.example/q", .date_us = 1700000000000002LL,
		  .request = req_get, .request_len = sizeof(req_get) - 1, .resp_head = h304,
		  .resp_head_len = sizeof(h304) - 1, .body = "", .body_len = 0,
		  .revisit_profile = WARC_PROFILE_NOT_MODIFIED,
		  .refers_to_uri = "http://a.example/q", .refers_to_date_us = 1600000000000000LL },
	};
	static const char *const want[3] = { "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "sha1:", "" };
	struct warc_writer *w = NULL;
	char path[300];
	int i;

	tmp_path(path, sizeof(path), "revisit.warc.gz");
	CHECK(warc_writer_open(path, "mpicrawl-test/1.0", &w) == CR_OK, "open %s", path);
	for (i = 0; i < 3 && w; i++) {
		const char *pd;

		CHECK(warc_write_exchange(w, &x[i], NULL, NULL) == CR_OK, "revisit %d", i);
		pd = warc_writer_last_payload_digest(w);
		CHECK(pd && !strncmp(pd, want[i], strlen(want[i])) && (want[i][0] || !pd[0]),
		      "revisit %d: payload digest '%s'", i, pd ? pd : "(null)");
	}
	CHECK(warc_writer_close(&w) == CR_OK, "close");
	unlink(path);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	test_rng_state = 0x9e3779b97f4a7c15ULL;

	snprintf(tmp_dir, sizeof(tmp_dir), "%s/test_warc.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp_dir)) {
		printf("not ok: mkdtemp %s\n", tmp_dir);
		return 1;
	}
	test_digest_and_http();
	test_roundtrip();
	test_torn();
	test_zstd();
	test_write_error();
	test_conformance();
	test_protocols();
	test_revisit_digests();
	{
		static const char *const names[] = {
			"rt.warc.gz", "small.warc.gz", "small.warc", "small.warc.zst",
			"torn", "bad.warc",
		};
		char p[300];
		size_t i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			tmp_path(p, sizeof(p), names[i]);
			unlink(p);
		}
		rmdir(tmp_dir);
	}
	TEST_DONE();
}

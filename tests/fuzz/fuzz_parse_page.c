/*
 * fuzz_parse_page - one fetched response through the parse step
 * (parse/parse.h parse_page), as the fetcher hands it over.
 *
 * Input: an HTTP response as stored in a WARC record block, "HTTP/1.1 200
 * OK" CRLF headers CRLF CRLF body; split by warc_http_split as the parse
 * phase does (input without a complete head is a 200 with no headers). The
 * fetch record is filled as the fetcher fills it: status from the code,
 * type and charset from Content-Type, a redirect's Location canonicalised.
 * The parse record written must unpack, and its links iterate to the end.
 */
#include "config/config.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/job.h"
#include "crawldb/parse_record.h"
#include "http/head.h"
#include "fuzz.h"
#include "parse/parse.h"
#include "url/url.h"
#include "warc/warc.h"

static const char page_url[] = "https://example.com/a/b.html";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct job j;
	static int ready;
	struct fetch_record fr;
	struct parse_record pr;
	char ctype[128], charset[64], loc[URL_MAX_LEN + 1];
	uint64_t c[PC_COUNT_];
	size_t hlen = 0, pos = 0, vl = 0;
	int status = 200, n = 0;
	const char *v, *why;
	struct buf out;

	if (!ready) {
		config_defaults(&j.cfg);
		j.cfg.max_links = 50;
		ready = 1;
	}
	if (warc_http_split(data, size, &status, &hlen) != CR_OK) {
		status = 200;
		hlen = 0;
	}
	memset(&fr, 0, sizeof(fr));
	memset(c, 0, sizeof(c));
	loc[0] = '\0';
	fr.rec.url = page_url;
	fr.rec.url_len = strlen(page_url);
	fr.rec.http_status = (uint16_t)(status > 0 && status < 1000 ? status : 0);
	http_head_content_type(data, hlen, ctype, sizeof(ctype), charset, sizeof(charset));
	if (status >= 200 && status < 300) {
		fr.rec.status = ST_FETCHED;
	} else if (status >= 300 && status < 400) {
		fr.rec.status = ST_GONE;
		v = http_head_field(data, hlen, "location", &vl);
		if (v && vl < URL_MAX_LEN) {
			char *raw = fuzz_strndup(v, vl);

			if (url_canon(page_url, raw, loc, sizeof(loc), &why) == CR_OK)
				fr.rec.status = ST_REDIRECT;
			free(raw);
		}
	} else {
		fr.rec.status = ST_GONE;
	}
	fr.reason = fr.warc = "";
	fr.location = loc;
	fr.location_len = strlen(loc);
	fr.content_type = ctype;
	fr.content_type_len = strlen(ctype);
	fr.charset = charset;
	fr.charset_len = strlen(charset);
	fr.body_len = size - hlen;
	buf_init(&out);
	if (parse_page(&j, &fr, data, hlen, data + hlen, size - hlen, &out, c, NULL)) {
		const char *u;
		size_t ul;
		enum cr_err e;

		if (parse_record_unpack(out.p, out.len, &pr) != CR_OK)
			abort();
		while ((e = parse_record_link(&pr, &pos, &u, &ul)) == CR_OK)
			n++;
		if (e != CR_EOF || (uint32_t)n != pr.nlinks || pr.nlinks > 50)
			abort();
	}
	buf_release(&out);
	return 0;
}

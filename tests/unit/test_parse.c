#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/job.h"
#include "crawldb/parse_record.h"
#include "parse/parse.h"
#include "test.h"

static const char page[] = "<html><head><title>t</title></head><body>"
			   "<a href=\"/a\">a</a><a href=\"/b\">b</a></body></html>";

/* Parses page with the given response head; returns the record's flags and
 * sets *links. */
static uint32_t run(const struct job *j, const char *head, uint32_t *links, uint64_t *c)
{
	struct fetch_record f;
	struct parse_record pr;
	struct buf out;
	uint32_t flags = 999;

	memset(&f, 0, sizeof(f));
	f.rec.url = "http://h.test/p";
	f.rec.url_len = strlen(f.rec.url);
	f.rec.status = ST_FETCHED;
	f.content_type = "text/html";
	f.content_type_len = 9;
	f.charset = f.reason = f.location = f.warc = "";
	buf_init(&out);
	if (parse_page(j, &f, (const unsigned char *)head, strlen(head),
		       (const unsigned char *)page, sizeof(page) - 1, &out, c, NULL) &&
	    parse_record_unpack(out.p, out.len, &pr) == CR_OK) {
		flags = pr.flags;
		*links = pr.nlinks;
	}
	buf_release(&out);
	return flags;
}

int main(void)
{
	struct job j;
	uint64_t c[PC_COUNT_] = { 0 };
	uint32_t links = 0;

	memset(&j, 0, sizeof(j));
	config_defaults(&j.cfg);
	CHECK(run(&j, "HTTP/1.1 200 OK\r\n\r\n", &links, c) == 0 && links == 2, "plain page");
	CHECK(run(&j, "HTTP/1.1 200 OK\r\nX-Robots-Tag: nofollow\r\n\r\n", &links, c) ==
	      PARSE_NOFOLLOW && links == 0, "X-Robots-Tag nofollow drops the links");
	CHECK(run(&j, "HTTP/1.1 200 OK\r\nx-robots-tag: NoIndex\r\n\r\n", &links, c) ==
	      PARSE_NOINDEX && links == 2, "noindex flags, keeps links");
	CHECK(run(&j, "HTTP/1.1 200 OK\r\nX-Robots-Tag: none\r\n\r\n", &links, c) ==
	      (PARSE_NOINDEX | PARSE_NOFOLLOW), "none is both");
	CHECK(run(&j, "HTTP/1.1 200 OK\r\nX-Robots-Tag: otherbot: noindex, nofollow\r\n\r\n",
		  &links, c) == 0 && links == 2, "a directive for another agent");
	CHECK(run(&j, "HTTP/1.1 200 OK\r\nX-Robots-Tag: MPICrawl: nofollow\r\n\r\n", &links,
		  c) == PARSE_NOFOLLOW && links == 0, "a directive for our agent");
	CHECK(c[PC_NOINDEX] == 2 && c[PC_NOFOLLOW] == 6, "counted: noindex %llu nofollow %llu",
	      (unsigned long long)c[PC_NOINDEX], (unsigned long long)c[PC_NOFOLLOW]);
	TEST_DONE();
}

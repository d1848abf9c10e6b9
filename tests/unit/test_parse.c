#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/job.h"
#include "crawldb/parse_record.h"
#include "parse/parse.h"
#include "test.h"

static const char page[] = "<html><head><title>t</title></head><body>"
			   "<a href=\"/a\">a</a><a href=\"/b\">b</a></body></html>";

/* The fetch record of an HTML page http://h.test/p with status st. */
static void html_fetch(struct fetch_record *f, int st)
{
	memset(f, 0, sizeof(*f));
	f->rec.url = "http://h.test/p";
	f->rec.url_len = strlen(f->rec.url);
	f->rec.status = (uint8_t)st;
	f->content_type = "text/html";
	f->content_type_len = 9;
	f->charset = f->reason = f->location = f->warc = "";
}

/* Parses page with the given response head; returns the record's flags and
 * sets *links. */
static uint32_t run(const struct job *j, const char *head, uint32_t *links, uint64_t *c)
{
	struct fetch_record f;
	struct parse_record pr;
	struct buf out;
	uint32_t flags = 999;

	html_fetch(&f, ST_FETCHED);
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

/* Where a cut body is read to: before a tag the cut ended in. */
static void cut_tags(void)
{
	static const struct { const char *body; size_t want; } rows[] = {
		{ "<p>a <a href=\"http://h:465", 5 },   /* inside a tag: up to its '<' */
		{ "<p>a <a href=\"/x\">li", 20 },        /* in text: all of it */
		{ "<p>a</p>", 8 },
		{ "<p>a <", 5 },
		{ "no tag at all", 13 },
		{ "<", 0 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK(parse_cut_tag((const unsigned char *)rows[i].body, strlen(rows[i].body)) ==
		      rows[i].want, "parse_cut_tag(%s)", rows[i].body);
}

/* A page cut in a link's tag: the link is not read, cut short. */
static void cut_link(const struct job *j)
{
	static const char body[] = "<html><body><a href=\"/a\">a</a> <a href=\"http://h.test:465";
	static const char head[] = "HTTP/1.1 200 OK\r\n\r\n";
	struct fetch_record f;
	struct parse_record pr;
	struct buf out;
	uint64_t c[PC_COUNT_] = { 0 };
	int st;

	for (st = 0; st < 2; st++) {
		html_fetch(&f, st ? ST_TRUNCATED : ST_FETCHED);
		buf_init(&out);
		CHECK(parse_page(j, &f, (const unsigned char *)head, strlen(head),
				 (const unsigned char *)body, sizeof(body) - 1, &out, c, NULL) &&
		      parse_record_unpack(out.p, out.len, &pr) == CR_OK &&
		      pr.nlinks == (st ? 1u : 2u), "%s: %u links",
		      st ? "truncated: the cut link left out" : "whole: both links",
		      (unsigned)pr.nlinks);
		buf_release(&out);
	}
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
	cut_tags();
	cut_link(&j);
	TEST_DONE();
}

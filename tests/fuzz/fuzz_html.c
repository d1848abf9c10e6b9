/*
 * fuzz_html - link, title and text extraction (parse/html.h).
 *
 * Input: the body of an HTML page. It is read twice: once letting libxml2
 * detect the encoding, once with a charset named by a Content-Type (picked
 * from a list by the input's size, unknown names included). Every link must
 * be a canonical http(s) URL within URL_MAX_LEN, kept once, and no more than
 * max_links of them. The first reading collects the markup's metadata too
 * (parse/htmlmeta.h), whose values and anchor texts keep to their caps.
 */
#include "fuzz.h"
#include "parse/html.h"
#include "parse/htmlmeta.h"
#include "url/url.h"

static const char *const charsets[] = {
	"utf-8", "iso-8859-1", "windows-1252", "shift_jis", "euc-jp", "utf-16", "utf-16be",
	"ucs-4", "koi8-r", "x-no-such-charset", "ascii", "gb18030",
};

static void meta_check(const struct htmlmeta *m)
{
	uint32_t i;
	unsigned k;

	if (m->nitems > HTMLMETA_ITEMS_MAX)
		abort();
	for (i = 0; i < m->nitems; i++) {
		const struct htmlmeta_item *it = htmlmeta_item(m, i);
		const char *n, *v;

		if (it->text_len > HTML_ANCHOR_MAX || it->text_off + it->text_len > m->texts.len)
			abort();
		for (k = 0; k < it->npairs; k++) {
			htmlmeta_pair(m, it, k, &n, &v);
			if (strlen(v) > HTMLMETA_VALUE_MAX)
				abort();
		}
	}
}

static void run(const uint8_t *data, size_t size, const char *charset, size_t max_links,
		int with_meta)
{
	struct html_page page;
	struct htmlmeta meta;
	uint32_t i, k;

	htmlmeta_init(&meta);
	if (html_extract_meta(data, size, charset, "http://example.com/dir/page.html?q=1",
			      "mpicrawl", max_links, &page, with_meta ? &meta : NULL) != CR_OK) {
		htmlmeta_release(&meta);
		return;
	}
	meta_check(&meta);
	htmlmeta_release(&meta);
	if (page.nlinks > max_links)
		abort();
	for (i = 0; i < page.nlinks; i++) {
		const char *l = page.links[i];

		if (!l || strlen(l) > URL_MAX_LEN ||
		    (strncmp(l, "http://", 7) && strncmp(l, "https://", 8)))
			abort();
		for (k = 0; k < i; k++)
			if (!strcmp(l, page.links[k]))
				abort();
	}
	html_page_release(&page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, NULL, 64, 1);
	run(data, size, charsets[size % (sizeof(charsets) / sizeof(charsets[0]))], 5, 0);
	return 0;
}

/*
 * test_boiler.c - which lines are boilerplate (parse/boiler.h), as a table
 * of pages: each line's words and link words, and the lines expected out.
 */
#include "test.h"
#include "parse/boiler.h"

#include <string.h>

#define L(w, lw) { w, lw }

struct page {
	const char *what;
	size_t n;
	struct boiler_line l[12];
	const char *want;   /* one char per line: 'b' boilerplate, '.' text */
};

static const struct page pages[] = {
	{ "an article between a menu and a footer", 7,
	  { L(1, 1), L(1, 1), L(1, 1), L(3, 0), L(40, 2), L(25, 0), L(5, 3) }, "bbb...b" },
	{ "a short heading between two menus", 5,
	  { L(2, 2), L(2, 2), L(3, 0), L(2, 2), L(2, 2) }, "bbbbb" },
	{ "list items and table rows inside an article", 6,
	  { L(30, 1), L(2, 0), L(3, 0), L(2, 0), L(1, 0), L(20, 0) }, "......" },
	{ "a paragraph of 6-9 words next to good text", 3,
	  { L(12, 0), L(7, 1), L(4, 4) }, "..b" },
	{ "a lone 7-word line between link lists", 3,
	  { L(3, 3), L(7, 0), L(3, 3) }, "bbb" },
	{ "link density at the bound: not bad", 1, { L(20, 10) }, "." },
	{ "just over: bad", 1, { L(20, 11) }, "b" },
	{ "a page of one short line: the edges are bad", 1, { L(3, 0) }, "b" },
	{ "empty lines count as short", 3, { L(12, 0), L(0, 0), L(12, 0) }, "..." },
	{ "no lines", 0, { L(0, 0) }, "" },
};

int main(void)
{
	size_t i, k;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		uint8_t flags[12];
		char got[13];

		memset(flags, 7, sizeof(flags));
		boiler_classify(pages[i].l, pages[i].n, flags);
		for (k = 0; k < pages[i].n; k++)
			got[k] = flags[k] == 1 ? 'b' : flags[k] == 0 ? '.' : '?';
		got[k] = '\0';
		CHECK(!strcmp(got, pages[i].want), "%s: %s, want %s", pages[i].what, got,
		      pages[i].want);
	}
	TEST_DONE();
}

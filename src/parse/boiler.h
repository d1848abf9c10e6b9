/*
 * boiler.h - which lines of a page's text are boilerplate - navigation,
 * link lists, footers - for text.boilerplate = mark | drop: a pure decision
 * over each line's word counts, in the spirit of jusText (Pomikálek,
 * "Removing Boilerplate and Duplicate Content from Web Corpora", 2011),
 * without its per-language stopword lists.
 *
 * Why: C4- and CCNet-style pipelines filter text line by line, and the
 * lines a site repeats on every page (menus, "About · Contact · Privacy")
 * are the first they throw away; a crawler that knows which words were
 * link text can say so at no cost.
 *
 * The rule, per line (a block of html.h's text):
 *   1. bad: more than half its words are link text (BOILER_LINK_DENSITY);
 *      good: BOILER_GOOD_WORDS words or more, and not bad;
 *      short: fewer than BOILER_SHORT_WORDS words, and not bad;
 *      near-good: the rest.
 *   2. a short line takes its class from its nearest non-short neighbours
 *      (the page's edges count as bad): bad on both sides - bad; good or
 *      near-good on both - good; else near-good.
 *   3. a near-good line is good when its nearest good-or-bad neighbour on
 *      either side is good, else bad.
 * Boilerplate: the lines bad at the end. So a menu of one-word links is
 * boilerplate, and so is a short heading wedged between two menus, while a
 * short line inside an article (a heading, a list item, a table row) stays.
 */
#ifndef CR_PARSE_BOILER_H
#define CR_PARSE_BOILER_H

#include <stddef.h>
#include <stdint.h>

#define BOILER_LINK_DENSITY 0.5
#define BOILER_GOOD_WORDS 10
#define BOILER_SHORT_WORDS 5

struct boiler_line {
	uint32_t words;        /* words of the line */
	uint32_t link_words;   /* ... of which inside a link */
};

/* flags[i] = 1 when line i is boilerplate, else 0 (n lines). */
void boiler_classify(const struct boiler_line *l, size_t n, uint8_t *flags);

#endif

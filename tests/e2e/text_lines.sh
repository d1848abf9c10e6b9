#!/usr/bin/env bash
# The WET's text keeps the pages' block structure. simweb --blocks serves
# pages with headings, paragraphs, a list, a table, br, pre, entities, a
# blockquote, nested divs, script/style/noscript/template in the body and,
# with --page-bytes, paragraphs full of inline elements; `simweb --lines`
# prints the lines each page should give. A crawl on 2 ranks, then, over
# every page's WET conversion record:
# - at least 99 % of the expected lines are there as whole lines (one per
#   block, blanks collapsed, entities decoded);
# - no glued word: every word of the WET is a word of the expected lines;
# - no binary: every record is UTF-8 with no control character but the
#   line end; no script, style, noscript or template text;
# - text.boilerplate (the index step run again on each segment): with mark,
#   the numbered lines of each page are its menu and footer lines
#   (simweb's "boiler" lines) on >= 99 % of the pages; with drop, no menu or
#   footer line is left and >= 99 % of the other lines are.
. "$(dirname "$0")/lib.sh"

HOSTS=6
PAGES=25
check "simweb --blocks starts" start_web web --hosts $HOSTS --pages $PAGES --blocks \
	--page-bytes 9000
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
check "simweb --lines prints the expected lines" eval '"$SIMWEB" --lines --hosts $HOSTS \
	--pages $PAGES --port "$SIMWEB_PORT" --blocks --page-bytes 9000 >"$SCRATCH/lines"'
check "crawl on 2 ranks exits 0" run_ranks 2 crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=0 --set partition.count=4 --rounds 8 >"$SCRATCH/c.out" 2>&1
tail -n 2 "$SCRATCH/c.out"

compare() {
	python3 "$ROOT/tests/e2e/text_lines.py" lines "$SCRATCH/lines" \
		"$SCRATCH"/c/segments/*/text/*.warc.wet.gz
}
check "WET lines: >= 99 % of the expected lines whole, no glued word, no binary" \
	eval 'compare >"$SCRATCH/compare" 2>&1'
cat "$SCRATCH/compare"
check "no script, style, noscript or template text in the WET" \
	eval '! zcat "$SCRATCH"/c/segments/*/text/*.warc.wet.gz | grep -aqE "var s = |color: red|^<p>"'

# text.boilerplate: the index step again, as mark, then as drop.
reindex() {
	local s
	for s in "$SCRATCH"/c/segments/*/; do
		s=$(basename "$s")
		"$MPICRAWL" index --dir "$SCRATCH/c" --segment $((10#$s)) \
			--set "text.boilerplate=$1" >>"$SCRATCH/index.out" 2>&1 || return 1
	done
}
boiler() {
	python3 "$ROOT/tests/e2e/text_lines.py" "$1" "$SCRATCH/lines" \
		"$SCRATCH"/c/segments/*/text/*.warc.wet.gz
}
check "index again with text.boilerplate=mark" reindex mark
check "mark: each page's numbered lines are its menu and footer" eval 'boiler mark >"$SCRATCH/mark" 2>&1'
cat "$SCRATCH/mark"
check "index again with text.boilerplate=drop" reindex drop
check "drop: no menu or footer line left, >= 99 % of the text kept" eval 'boiler drop >"$SCRATCH/drop" 2>&1'
cat "$SCRATCH/drop"

finish

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
#   line end; no script, style, noscript or template text.
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
	python3 - "$SCRATCH/lines" "$SCRATCH"/c/segments/*/text/*.warc.wet.gz <<'PY'
import collections, gzip, sys
want = collections.defaultdict(list)
vocab = set()
for line in open(sys.argv[1], encoding="utf-8"):
    url, _, text = line.rstrip("\n").partition("\t")
    want[url].append(text)
    vocab.update(text.split(" "))
def records(path):
    data = gzip.open(path).read()
    i = 0
    while i < len(data):
        he = data.index(b"\r\n\r\n", i)
        head = data[i:he].decode("utf-8").split("\r\n")
        f = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
        n = int(f["content-length"])
        yield f, data[he + 4:he + 4 + n]
        i = he + 4 + n + 4
pages = present = expected = glued = binary = 0
examples = []
for path in sys.argv[2:]:
    for f, block in records(path):
        if f.get("warc-type") != "conversion":
            continue
        url = f["warc-target-uri"]
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            binary += 1
            continue
        if any(ord(c) < 32 and c != "\n" for c in text):
            binary += 1
        got = collections.Counter(text.split("\n"))
        if url not in want:
            continue
        pages += 1
        for line in want[url]:
            expected += 1
            if got[line] > 0:
                got[line] -= 1
                present += 1
            elif len(examples) < 3:
                examples.append("%s: missing %r" % (url, line))
        for line in text.split("\n"):
            for word in line.split(" "):
                if word and word not in vocab:
                    glued += 1
                    if len(examples) < 6:
                        examples.append("%s: %r not a word of the page" % (url, word))
print("pages %d, expected lines %d, present %d (%.2f %%), glued words %d, binary records %d"
      % (pages, expected, present, 100.0 * present / max(expected, 1), glued, binary))
for e in examples:
    print("  " + e)
ok = pages >= 100 and present >= 0.99 * expected and glued == 0 and binary == 0
sys.exit(0 if ok else 1)
PY
}
check "WET lines: >= 99 % of the expected lines whole, no glued word, no binary" \
	eval 'compare >"$SCRATCH/compare" 2>&1'
cat "$SCRATCH/compare"
check "no script, style, noscript or template text in the WET" \
	eval '! zcat "$SCRATCH"/c/segments/*/text/*.warc.wet.gz | grep -aqE "var s = |color: red|^<p>"'

finish

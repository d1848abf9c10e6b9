#!/usr/bin/env bash
# What a crawl leaves for researchers besides its WARC files (docs/OUTPUTS.md),
# after a crawl of a small simweb on 2 ranks:
# - one CDXJ file per WARC file, sorted, equal line for line to the index
#   warcio.js writes of that WARC file (the form pywb reads);
# - WET files: every record read by warcio.js with its digests checked; one
#   conversion record per text page, duplicates flagged as the CrawlDb says;
# - `mpicrawl index --set text.format=jsonl` writes the same pages as JSON
#   lines (jq reads every line);
# - the link graph: two tab-separated URLs per line, as many as counted;
# - stats.json has an index section;
# - WAT files: one per WARC file, read by warcio.js with every digest and
#   every JSON payload checked, one metadata record per WARC record, and the
#   links of each page equal to the link graph's (tests/e2e/wat_links.py).
. "$(dirname "$0")/lib.sh"

WARCIO=$ROOT/tests/warcio
[ -d "$WARCIO/node_modules/warcio" ] ||
	(cd "$WARCIO" && npm ci --no-audit --no-fund --loglevel=error) >/dev/null 2>&1
start_web web --hosts 6 --pages 25 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 6 --pages 25 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
C=$SCRATCH/crawl
check "crawl exits 0" run_ranks 2 crawl --dir "$C" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=5 --set partition.count=4 --set index.wat=true \
	>"$SCRATCH/out" 2>&1

# The robots.txt cache keeps its two newest versions, whatever the rounds:
# three rounds of a crawl that follows no link inside a round.
check "a three-round crawl exits 0" run_ranks 2 crawl --dir "$SCRATCH/r3" \
	--seeds "$SCRATCH/seeds" --rounds 3 --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=5 \
	--set partition.count=4 --set fetch.follow_max=0 >"$SCRATCH/r3.out" 2>&1
nseg=$(ls -d "$SCRATCH"/r3/segments/[0-9]* | wc -l)
check "robots/ keeps the newest 2 versions of $nseg rounds' ($(cd "$SCRATCH/r3/robots" && echo [0-9]*))" \
	eval '[ "$nseg" -eq 3 ] && [ "$(cd "$SCRATCH/r3/robots" && echo [0-9]*)" = "00002 00003" ]'

# Every output file of a segment is named as its WARC files are, by the
# crawl's warc.prefix: two crawls' files never share a name (links/ and
# pages/ were part-PPPPP for every crawl): PREFIX-NNNNN-rRRRR, the rank of
# the fetch whose WARC files they derive from.
prefixed() {
	local prefix f bad=0
	prefix=$(basename "$(ls "$C"/segments/00001/warc/*.warc.gz | head -n 1)" |
		sed -E "s/-[0-9]{5}-r[0-9]{4}-.*//")
	for f in "$C"/segments/*/links/* "$C"/segments/*/pages/* "$C"/segments/*/text/*; do
		case $(basename "$f") in
		"$prefix"-[0-9][0-9][0-9][0-9][0-9]-r[0-9][0-9][0-9][0-9].*) ;;
		*) echo "not named by the crawl: $f"; bad=$((bad + 1)) ;;
		esac
	done
	[ -n "$prefix" ] && [ "$bad" -eq 0 ] && ls "$C"/segments/*/links/* >/dev/null &&
		ls "$C"/segments/*/pages/* >/dev/null
}
check "links, pages and text files are named by the crawl's prefix" prefixed

cdxj_ok() {
	local f n=0 bad=0 idx
	for f in "$C"/segments/*/warc/*.warc.gz; do
		n=$((n + 1))
		idx=$(dirname "$(dirname "$f")")/cdxj/$(basename "$f").cdxj
		LC_ALL=C sort -c "$idx" || { bad=$((bad + 1)); continue; }
		# warcio's fields: Common Crawl's left out, the file's name alone.
		cmp -s <(sed -E 's/,"(mime-detected|charset|truncated|redirect|languages|(wet|wat)-(filename|offset|length))":"([^"\\]|\\.)*"//g;
			s/"filename":"segments\/[0-9]+\/warc\//"filename":"/' "$idx") \
			<(cd "$WARCIO" && node check.mjs --cdxj "$f" | LC_ALL=C sort) ||
			{ bad=$((bad + 1)); echo "differs from warcio: $idx"; }
	done
	echo "cdxj: $n WARC files, $bad bad"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}
check "CDXJ per WARC file, sorted, as warcio indexes it (Common Crawl's fields aside)" cdxj_ok
# Common Crawl's fields: the file from the crawl directory, the charset of
# every HTML response, the languages of every page with text, a redirect's
# target on every 3xx with a Location.
cc_fields() {
	cat "$C"/segments/*/cdxj/*.cdxj | cut -d' ' -f3- | python3 -c '
import json, sys
n = bad = 0
for line in sys.stdin:
    r = json.loads(line)
    n += 1
    if not r["filename"].startswith("segments/") or not r["filename"].endswith(".warc.gz"):
        bad += 1
    if r.get("mime") == "text/html" and r.get("status") == "200" and not r.get("charset"):
        bad += 1
    if r.get("mime") == "text/html" and r.get("status") == "200" and r.get("mime-detected") != "text/html":
        bad += 1
    if r.get("status", "").startswith("3") and r["filename"].endswith("-diagnostics.warc.gz")             and not r.get("redirect", "").startswith("http"):
        bad += 1
print("cdxj: %d lines, %d without the fields they should have" % (n, bad))
sys.exit(1 if bad or not n else 0)'
}
check "CDXJ: filename from the crawl directory, charset, redirect, mime-detected" eval 'cc_fields >"$SCRATCH/cc" 2>&1'
cat "$SCRATCH/cc"
check "CDXJ: languages on the pages' lines (as many as WET records name one)" test \
	"$(cat "$C"/segments/*/cdxj/*.cdxj | grep -c '"languages":"')" = \
	"$(zcat "$C"/segments/*/text/*.wet.gz | grep -ac '^WARC-Identified-Content-Language: ')"
check "CDXJ lines counted in stats.json" test \
	"$(cat "$C"/segments/*/cdxj/*.cdxj | wc -l)" = \
	"$(jq -s '[.[].index.counters.cdxj_lines] | add' "$C"/segments/*/stats.json)"

wet_ok() {
	local f n=0
	for f in "$C"/segments/*/text/*.warc.wet.gz; do
		n=$((n + 1))
		(cd "$WARCIO" && node check.mjs "$f") >>"$SCRATCH/wet.list" || return 1
	done
	echo "wet: $n files"
	[ "$n" -gt 0 ]
}
check "WET files read by warcio, digests match" wet_ok
docs=$(jq -s '[.[].index.counters.text_docs] | add' "$C"/segments/*/stats.json)
dups=$(jq -s '[.[].index.counters.text_duplicates] | add' "$C"/segments/*/stats.json)
echo "text: $docs pages, $dups duplicates"
check "one conversion record per text page" \
	test "$(grep -cP '\tconversion\t' "$SCRATCH/wet.list")" = "$docs"
check "duplicates flagged in WET" test \
	"$(zcat "$C"/segments/*/text/*.wet.gz | tr -d '\r' | grep -c '^X-Mpicrawl-Duplicate-Of: ')" = "$dups"
# Every flagged page is a duplicate in the CrawlDb, of the page named.
"$MPICRAWL" readdb --dir "$C" --dump | jq -r 'select(.status=="duplicate") | .url + "\t" + .dup_of' |
	sort >"$SCRATCH/db.dups"
zcat "$C"/segments/*/text/*.wet.gz | tr -d '\r' | awk '
	/^WARC-Target-URI: / { u = $2 } /^X-Mpicrawl-Duplicate-Of: / { print u "\t" $2 }' |
	sort -u >"$SCRATCH/wet.dups"
check "flagged duplicates agree with the CrawlDb" test -z "$(comm -23 "$SCRATCH/wet.dups" "$SCRATCH/db.dups")"
check "some duplicates in this web" test "$dups" -gt 0

# The round wrote CDXJ, text and links from what the fetcher staged while it
# held each page; `mpicrawl index` derives them again from the WARC files.
# The two are the same bytes (WET: but for record IDs and dates, which are
# new each time a record is written).
check "every WARC file indexed from what the fetcher staged" test \
	"$(jq -s '[.[].index.counters.staged_files] | add' "$C"/segments/*/stats.json)" = \
	"$(jq -s '[.[].index.counters.warc_files] | add' "$C"/segments/*/stats.json)"
check "staged files removed after the index step" test -z "$(ls -d "$C"/segments/*/staged 2>/dev/null)"
mkdir -p "$SCRATCH/round"
for d in "$C"/segments/*/; do
	cp -r "$d" "$SCRATCH/round/"
done
reindex_ok() {
	local d n
	for d in "$C"/segments/*/; do
		n=$((10#$(basename "$d")))
		run_ranks 2 index --dir "$C" --segment "$n" --set index.wat=true >/dev/null 2>&1 ||
			return 1
	done
}
check "index every segment again from the WARC files" reindex_ok
# A crawl directory from before rank files and prefixed names (a copy): a
# WARC file named per partition (PREFIX-NNNNN-PPPPP-...), its links and
# pages files under part-PPPPP names - replaced by the index run again with
# the partition's prefixed names.
O=$SCRATCH/older
cp -a "$C" "$O"
w=$(ls "$O"/segments/00001/warc/*-r0000-00000-*.warc.gz | grep -v -- '-robots\.\|-diagnostics\.\|-sitemaps\.' |
	head -n 1)
ow=$(basename "$w" | sed -E 's/-r0000-/-00000-/')
mv "$w" "$O/segments/00001/warc/$ow"
rm -f "$O"/segments/00001/cdxj/"$(basename "$w")".cdxj
touch "$O/segments/00001/links/part-00000.tsv.zst" "$O/segments/00001/pages/part-00000.jsonl"
check "an older crawl's WARC file named per partition: indexed again" \
	run_ranks 2 index --dir "$O" --segment 1 >"$SCRATCH/older.out" 2>&1
pre=$(basename "$ow" | sed -E 's/-00001-00000-.*//')
check "... its partition's links and pages under the prefixed names, part-PPPPP's gone" eval \
	'[ -s "$O/segments/00001/links/$pre-00001-00000.links.tsv.zst" ] &&
	[ -s "$O/segments/00001/pages/$pre-00001-00000.pages.jsonl" ] &&
	[ -s "$O/segments/00001/cdxj/$ow.cdxj" ] &&
	[ ! -e "$O/segments/00001/links/part-00000.tsv.zst" ] &&
	[ ! -e "$O/segments/00001/pages/part-00000.jsonl" ]'
wet_norm() {
	zcat "$1" | tr -d '\r' |
		grep -vE '^(WARC-Record-ID|WARC-Warcinfo-ID|WARC-Date|WARC-Block-Digest|Content-Length):'
}
places_out() { sed -E 's/,"(wet|wat)-(filename|offset|length)":"[^"]*"//g' "$1"; }
same_outputs() {
	local d b f n=0 bad=0
	for d in "$C"/segments/*/; do
		b=$SCRATCH/round/$(basename "$d")
		for f in "$d"links/*; do
			n=$((n + 1))
			cmp -s "$f" "$b/links/$(basename "$f")" ||
				{ echo "differs: $f"; bad=$((bad + 1)); }
		done
		# The WET and WAT records' places aside: those files are written
		# again, their record IDs new, their members' lengths with them.
		for f in "$d"cdxj/*; do
			n=$((n + 1))
			cmp -s <(places_out "$f") <(places_out "$b/cdxj/$(basename "$f")") ||
				{ echo "differs: $f"; bad=$((bad + 1)); }
		done
		for f in "$d"text/*; do
			n=$((n + 1))
			cmp -s <(wet_norm "$f") <(wet_norm "$b/text/$(basename "$f")") ||
				{ echo "differs: $f"; bad=$((bad + 1)); }
		done
	done
	echo "outputs: $n files compared, $bad differ"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}
check "CDXJ (but the WET and WAT places) and links byte for byte, WET record for record, as derived again" same_outputs

# The first segment: with links followed inside the round, most pages are
# fetched there.
check "index again as JSON lines" "$MPICRAWL" index --dir "$C" --segment 1 \
	--set text.format=jsonl --set index.wat=true >"$SCRATCH/ix.out" 2>&1
check "JSON lines: every line parses, one per page" test \
	"$(zcat "$C"/segments/00001/text/*.jsonl.gz | jq -c 'select(.url and .text != null)' | wc -l)" = \
	"$(jq '.index.counters.text_docs' "$C"/segments/00001/stats.json)"

links=$(jq -s '[.[].index.counters.links] | add' "$C"/segments/*/stats.json)
check "link graph: $links edges, two URLs and an anchor text per line" test \
	"$(zstdcat "$C"/segments/*/links/*.tsv.zst | awk -F'\t' 'NF == 3 && $1 ~ /^http/ && $2 ~ /^http/' |
	   wc -l)" = "$links"
# simweb writes text inside its <a> elements: the anchor text is kept.
check "anchor text of links to pages" test \
	"$(zstdcat "$C"/segments/*/links/*.tsv.zst | awk -F'\t' '$2 ~ /\/p\/[0-9]+\.html$/ && $3 != ""' |
	   wc -l)" -gt 0
check "links counted" test "$links" -gt 0

wat_ok() {
	local f w n=0 bad=0 recs
	for f in "$C"/segments/*/warc/*.warc.gz; do
		n=$((n + 1))
		w=$(dirname "$(dirname "$f")")/wat/$(basename "$f" .warc.gz).warc.wat.gz
		[ -f "$w" ] || { echo "no WAT file for $f"; bad=$((bad + 1)); continue; }
		# As many metadata records as the WARC file has records, each naming
		# its record.
		recs=$(zcat "$f" | tr -d '\r' | grep -ac '^WARC-Record-ID: ')
		[ "$(zcat "$w" | tr -d '\r' | grep -ac '^WARC-Refers-To: ')" = "$recs" ] ||
			{ echo "records differ: $w"; bad=$((bad + 1)); }
		(cd "$WARCIO" && node check.mjs --wat "$w") >>"$SCRATCH/wat.lines" ||
			bad=$((bad + 1))
	done
	echo "wat: $n WARC files, $bad bad"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}
check "WAT per WARC file, read by warcio, every JSON payload parses" wat_ok
check "WAT records counted in stats.json" test \
	"$(zcat "$C"/segments/*/wat/*.wat.gz | tr -d '\r' | grep -ac '^WARC-Refers-To: ')" = \
	"$(jq -s '[.[].index.counters.wat_records] | add' "$C"/segments/*/stats.json)"
zstdcat "$C"/segments/*/links/*.tsv.zst >"$SCRATCH/graph.tsv"
check "WAT: each page's links, resolved, equal to the link graph's" eval \
	'python3 "$ROOT/tests/e2e/wat_links.py" "$MPICRAWL" "$SCRATCH/wat.lines" "$SCRATCH/graph.tsv" >"$SCRATCH/wl" 2>&1'
cat "$SCRATCH/wl"
# Common Crawl's structure, on one page.
zcat "$C"/segments/00001/wat/*.wat.gz | grep -a '"HTML-Metadata"' | head -n 1 >"$SCRATCH/one.json"
check "WAT: Common Crawl's structure (Container, Envelope, HTTP and HTML metadata)" test "$(jq -r '
	[.Container.Filename, .Container.Offset, .Container["Gzip-Metadata"]["Inflated-Length"],
	 .Envelope["WARC-Header-Metadata"]["WARC-Type"],
	 .Envelope["Payload-Metadata"]["HTTP-Response-Metadata"]["Response-Message"].Status,
	 .Envelope["Payload-Metadata"]["HTTP-Response-Metadata"].Headers["Content-Type"],
	 .Envelope["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"].Head.Title,
	 (.Envelope["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"].Links[0].path)] |
	map(select(. != null and . != "")) | length' "$SCRATCH/one.json")" = 8

# Each capture's WET and WAT records, from the CDXJ line's offsets alone:
# the gzip member there is a record of that URL.
places_ok() {
	cat "$C"/segments/*/cdxj/*.cdxj | cut -d' ' -f3- | python3 -c '
import gzip, json, sys
n = {"wet": 0, "wat": 0}
bad = 0
for line in sys.stdin:
    r = json.loads(line)
    for k in ("wet", "wat"):
        if k + "-offset" not in r:
            continue
        n[k] += 1
        with open(sys.argv[1] + "/" + r[k + "-filename"], "rb") as f:
            f.seek(int(r[k + "-offset"]))
            rec = gzip.decompress(f.read(int(r[k + "-length"]))).decode("utf-8", "replace")
        if "\r\nWARC-Target-URI: %s\r\n" % r["url"] not in rec:
            bad += 1
print("places: %d WET and %d WAT records found from the CDXJ, %d wrong" % (n["wet"], n["wat"], bad))
sys.exit(1 if bad or not n["wet"] or not n["wat"] else 0)' "$C"
}
check "CDXJ: each capture's WET and WAT records at the offsets it gives" eval 'places_ok >"$SCRATCH/pl" 2>&1'
cat "$SCRATCH/pl"
# (Segment 1's text is JSON lines by now: its pages have no WET place.)
check "CDXJ: as many WET places as WET records" test \
	"$(cat "$C"/segments/*/cdxj/*.cdxj | grep -c '"wet-offset"')" = \
	"$(zcat "$C"/segments/*/text/*.wet.gz | tr -d '\r' | grep -ac '^WARC-Type: conversion')"
# Indexed again without index.wat, a segment keeps no WAT file (the index
# written with index.wat=true left them, and no CDXJ line names them now).
check "index without index.wat removes the segment's WAT files" "$MPICRAWL" index \
	--dir "$C" --segment 1 >"$SCRATCH/ix2.out" 2>&1
check "no WAT file left unnamed by the CDXJ" eval \
	'test -z "$(ls "$C"/segments/00001/wat/ 2>/dev/null)" &&
	 ! grep -q wat-filename "$C"/segments/00001/cdxj/*.cdxj'
finish

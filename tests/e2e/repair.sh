#!/usr/bin/env bash
# `mpicrawl check --repair` brings a damaged crawl directory back (issue 34
# item 5), after a crawl of a small simweb:
# - crawldb/CURRENT deleted: the crawl refuses and names the repair; the
#   repair names the newest whole CrawlDb version again, check accepts the
#   directory, the crawl continues;
# - a WARC file deleted: the repair drops its CDXJ and makes the URLs it held
#   due again; check accepts the directory; the next crawl asks the server
#   for each of them again and archives them anew;
# - a byte flipped in a WARC file: `index` of its segment fails; the repair
#   keeps the file's whole records (their CDXJ lines stay), sets the damaged
#   file aside, makes the URL whose record was damaged due again; check
#   accepts the directory, `index` works, and the next crawl fetches that URL
#   again.
. "$(dirname "$0")/lib.sh"

start_web web --hosts 3 --pages 8 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 3 --pages 8 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
printf 'fetch.allow_private = true\ndns.servers = 127.0.0.1:%s\npoliteness.delay_ms = 0\npartition.count = 2\n' \
	"$DNS_PORT" >"$SCRATCH/job.conf"
C=$SCRATCH/crawl
crawl() {
	run_ranks 1 crawl --dir "$C" --seeds "$SCRATCH/seeds" --config "$SCRATCH/job.conf" \
		--rounds 20 "$@"
}
ck() { "$MPICRAWL" check --dir "$C" "$@"; }
check "crawl exits 0" eval 'crawl >"$SCRATCH/crawl1" 2>&1'

# 1. crawldb/CURRENT deleted.
cur=$(cat "$C/crawldb/CURRENT")
rm "$C/crawldb/CURRENT"
check "no CURRENT: the crawl refuses, naming check --repair" \
	expect 1 "check --dir .* --repair" crawl
check "  check names the problem (exit 1)" expect 1 "CURRENT is missing" ck
check "  check --repair names version $cur again" \
	expect 0 "names CrawlDb version $cur again" ck --repair
check "  CURRENT says $cur" test "$(cat "$C/crawldb/CURRENT")" = "$cur"
check "  check accepts the directory" eval 'ck >"$SCRATCH/ck1" 2>&1'
check "  the crawl continues (exit 0)" eval 'crawl >"$SCRATCH/crawl2" 2>&1'
# (Should the repair have failed, CURRENT is written by hand, so that the
# cases below are judged on their own.)
[ -e "$C/crawldb/CURRENT" ] || echo "$cur" >"$C/crawldb/CURRENT"

# The URLs a WARC file holds responses for, from its CDXJ file.
held() {
	cut -d' ' -f3- "$(dirname "$(dirname "$1")")/cdxj/$(basename "$1").cdxj" |
		jq -r 'select(.status != null and (.url | startswith("http"))) | .url' | sort -u
}
# The requests for each URL of file $1 in the server's log after line $2:
# the URLs never asked again, one a line.
not_asked() {
	local u hp
	while read -r u; do
		hp=$(printf '%s' "$u" | sed -E 's#^https?://([^:/]+)(:[0-9]+)?#\1\t#')
		tail -n +"$(($2 + 1))" "$SIMWEB_LOG" | cut -f3,4 | grep -qxF "$hp" || echo "$u"
	done <"$1"
}
status_of() {
	"$MPICRAWL" readdb --dir "$C" --dump | jq -r --arg u "$1" 'select(.url == $u) | .status'
}
# In a CDXJ of a segment after the first.
archived_again() {
	local u
	while read -r u; do
		cat "$C"/segments/0000[2-9]/cdxj/*.cdxj 2>/dev/null | cut -d' ' -f3- |
			jq -c --arg u "$u" 'select(.url == $u and .status != null)' | grep -q . ||
			{ echo "not archived again: $u"; return 1; }
	done <"$1"
}

# 2. A WARC file of pages deleted, and one of robots.txt responses (which no
# fetch outcome names: only its CDXJ).
W=$(pages_warcs "$C/segments/00001/warc" | head -n 1)
R=$(ls "$C"/segments/00001/warc/*-robots.warc.gz | head -n 1)
held "$W" >"$SCRATCH/lost"
echo "deleting $(basename "$W"): $(wc -l <"$SCRATCH/lost") URLs, and $(basename "$R")"
rm "$W" "$R"
check "deleted WARC file: check names it (exit 1)" expect 1 "is missing" ck
check "  check --repair makes its URLs due again" expect 0 "due again in CrawlDb version" ck --repair
check "  its CDXJ file is gone, and the robots.txt file's" test ! -e \
	"$C/segments/00001/cdxj/$(basename "$W").cdxj" -a ! -e "$C/segments/00001/cdxj/$(basename "$R").cdxj"
check "  check accepts the directory" eval 'ck >"$SCRATCH/ck2" 2>&1'
check "  a URL it held is unfetched" test "$(status_of "$(head -n 1 "$SCRATCH/lost")")" = unfetched
mark=$(wc -l <"$SIMWEB_LOG")
check "  the crawl exits 0" eval 'crawl >"$SCRATCH/crawl3" 2>&1'
check "  every URL it held is asked for again (server log)" \
	test -z "$(not_asked "$SCRATCH/lost" "$mark" | tee "$SCRATCH/missed")"
head -n 3 "$SCRATCH/missed"
check "  and archived again" archived_again "$SCRATCH/lost"
check "  check accepts the directory" eval 'ck >"$SCRATCH/ck3" 2>&1'

# 3. A byte flipped inside a response record of another pages file (a
# rank writes one a round: the first of a later segment).
for d in "$C"/segments/*/warc; do
	W=$(pages_warcs "$d" | head -n 1)
	[ -n "$W" ] && break
done
S=$(dirname "$(dirname "$W")")
SN=$((10#$(basename "$S")))
line=$(cut -d' ' -f3- "$S/cdxj/$(basename "$W").cdxj" |
	jq -c 'select(.status == "200")' | sed -n 2p)
victim=$(jq -r .url <<<"$line")
at=$(jq -r '(.offset | tonumber) + ((.length | tonumber) / 2 | floor)' <<<"$line")
held "$W" | grep -vxF "$victim" >"$SCRATCH/kept"
printf '%s\n' "$victim" >"$SCRATCH/victim"
python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))' "$W" "$at"
echo "flipped byte $at of $(basename "$W") ($victim; $(wc -l <"$SCRATCH/kept") other URLs)"
check "flipped byte: check names the file damaged (exit 1)" expect 1 "is damaged" ck
check "  index of its segment fails" expect 1 "index" "$MPICRAWL" index --dir "$C" --segment "$SN" \
	--config "$SCRATCH/job.conf"
check "  check --repair rewrites it with its whole records" \
	expect 0 "1 damaged WARC files rewritten" ck --repair
check "  the damaged file is set aside" test -f "$S/damaged/$(basename "$W")"
check "  check accepts the directory" eval 'ck >"$SCRATCH/ck4" 2>&1'
check "  index of its segment works" eval '"$MPICRAWL" index --dir "$C" --segment "$SN" \
	--config "$SCRATCH/job.conf" >"$SCRATCH/ix" 2>&1'
check "  the file's other captures are kept (its CDXJ)" \
	test "$(held "$W" | grep -cvxF "$victim")" = "$(wc -l <"$SCRATCH/kept")"
check "  the damaged capture is not in its CDXJ" test -z "$(held "$W" | grep -xF "$victim")"
check "  the damaged URL is unfetched" test "$(status_of "$victim")" = unfetched
mark=$(wc -l <"$SIMWEB_LOG")
check "  the crawl exits 0" eval 'crawl >"$SCRATCH/crawl4" 2>&1'
check "  the damaged URL is asked for again (server log)" \
	test -z "$(not_asked "$SCRATCH/victim" "$mark")"
check "  and archived again" archived_again "$SCRATCH/victim"
check "  the kept URLs are not asked again" \
	test "$(not_asked "$SCRATCH/kept" "$mark" | wc -l)" = "$(wc -l <"$SCRATCH/kept")"
check "  check accepts the directory" eval 'ck >"$SCRATCH/ck5" 2>&1'
finish

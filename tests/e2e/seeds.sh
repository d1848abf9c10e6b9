#!/usr/bin/env bash
# Per-seed settings, on 1, 2 and 4 ranks, judged from the server's log:
# - max_pages=N: never more than N pages (requests answered, robots.txt
#   aside) reached from that seed, and exactly N when it reaches more;
# - max_depth=N with scope=host: only the seed's host, at most N links out;
# - readdb --seeds agrees with the server log (each seed here keeps to its
#   own host, so a host's requests are its seed's pages);
# - the CrawlDb is the same on 1, 2 and 4 ranks;
# - a bad setting is a one-line refusal naming the line.
. "$(dirname "$0")/lib.sh"

HOSTS=8
PAGES=30
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
D=$SIMWEB_DOMAIN
printf 'http://h0000.%s:%s/\tmax_pages=12\tscope=host\n' "$D" "$SIMWEB_PORT" >"$SCRATCH/seeds"
printf 'http://h0001.%s:%s/\tscope=host\tmax_depth=1\n' "$D" "$SIMWEB_PORT" >>"$SCRATCH/seeds"
printf 'http://h0002.%s:%s/\tmax_pages=5\tscope=host\n' "$D" "$SIMWEB_PORT" >>"$SCRATCH/seeds"
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
      --set politeness.delay_ms=0 --set partition.count=8 --set dedup.enabled=false)

# pages LOG HOST: requests of HOST but robots.txt.
pages() { awk -F'\t' -v h="$2" '$3 == h && $4 != "/robots.txt"' "$1" | wc -l; }
# seed_field DIR N FIELD: FIELD of readdb --seeds' line N.
seed_field() {
	"$MPICRAWL" readdb --dir "$1" --seeds | sed -n "${2}p" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['$3'])"
}

for n in 1 2 4; do
	before=$(wc -l <"$SIMWEB_LOG")
	check "crawl on $n ranks exits 0" run_ranks "$n" crawl --dir "$SCRATCH/c$n" \
		--seeds "$SCRATCH/seeds" "${opts[@]}" --rounds 40 >"$SCRATCH/out$n" 2>&1
	sleep 0.3
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$SCRATCH/log$n"
	p0=$(pages "$SCRATCH/log$n" "h0000.$D")
	p1=$(pages "$SCRATCH/log$n" "h0001.$D")
	p2=$(pages "$SCRATCH/log$n" "h0002.$D")
	echo "ranks $n: h0000 $p0 pages, h0001 $p1, h0002 $p2"
	check "$n ranks: max_pages=12 holds, and is reached" test "$p0" -eq 12
	check "$n ranks: max_pages=5 holds, and is reached" test "$p2" -eq 5
	check "$n ranks: scope=host keeps each seed on its host" test -z \
		"$(cut -f3 "$SCRATCH/log$n" | sort -u | grep -v "^h000[012]\.$D$")"
	check "$n ranks: readdb --seeds counts what the server answered" test \
		"$(seed_field "$SCRATCH/c$n" 1 fetched) $(seed_field "$SCRATCH/c$n" 2 fetched) $(seed_field "$SCRATCH/c$n" 3 fetched)" = \
		"$p0 $p1 $p2"
	check "$n ranks: the limited seeds say max_pages, the other complete" test \
		"$(seed_field "$SCRATCH/c$n" 1 state) $(seed_field "$SCRATCH/c$n" 2 state) $(seed_field "$SCRATCH/c$n" 3 state)" = \
		"max_pages complete max_pages"
	dump_db "$SCRATCH/c$n" >"$SCRATCH/dump$n"
done
# max_depth=1: the home page and what it links, nothing deeper (depth <= 1).
check "max_depth=1: no URL of h0001 deeper than 1" test -z \
	"$(grep "h0001\.$D" "$SCRATCH/dump1" | grep -v '"depth":[01],')"
check "max_depth=1: its links past depth 1 are logged as depth" grep -q '"reason":"depth"' \
	<("$MPICRAWL" readdb --dir "$SCRATCH/c1" --decisions --segment 2)
last=$(ls "$SCRATCH/c1/segments" | tail -1)
"$MPICRAWL" readdb --dir "$SCRATCH/c1" --decisions --segment "$((10#$last))" >"$SCRATCH/last.dec" \
	2>/dev/null || true
check "the last round logs the URLs max_pages held back, all of limited seeds" test \
	"$(grep '"reason":"per-seed-limit"' "$SCRATCH/last.dec" | grep -vc "h000[02]\.$D")" -eq 0 -a \
	"$(grep -c '"reason":"per-seed-limit"' "$SCRATCH/last.dec")" -gt 0
# Every URL the limits hold back when the crawl ends has its line: those the
# last round found too (the crawl's last, empty generate leaves no segment:
# its lines go to the last one, decisions/held-*).
"$MPICRAWL" readdb --dir "$SCRATCH/c1" --dump |
	jq -r 'select(.status == "unfetched") | .url' | grep "h000[02]\.$D" | LC_ALL=C sort \
	>"$SCRATCH/waiting"
grep '"reason":"per-seed-limit"' "$SCRATCH/last.dec" | jq -r .url | LC_ALL=C sort -u \
	>"$SCRATCH/logged"
check "every URL max_pages holds back at the end has its decision line ($(wc -l \
	<"$SCRATCH/waiting") waiting, $(comm -23 "$SCRATCH/waiting" "$SCRATCH/logged" | wc -l) without)" \
	eval '[ -s "$SCRATCH/waiting" ] && [ -z "$(comm -23 "$SCRATCH/waiting" "$SCRATCH/logged")" ]'
check "... and the crawl says so" grep -q "held back by their seed's max_pages" "$SCRATCH/out1"
check "CrawlDb identical on 1 and 2 ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump2"
check "CrawlDb identical on 1 and 4 ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump4"

# mpicrawl check reads the seeds files and the decision logs whole.
cp -r "$SCRATCH/c1" "$SCRATCH/damaged"
f=$(ls "$SCRATCH"/damaged/seeds/*.zst | head -1)
truncate -s -5 "$f"
# (a pack of decision logs, or a log of a crawl before packs: bytes of its
# first log overwritten)
d=$(ls "$SCRATCH"/damaged/segments/00001/decisions/* | head -1)
printf 'XXXXXXXX' | dd of="$d" bs=1 seek=12 conv=notrunc 2>/dev/null
check "check names a damaged seeds file and a damaged decision log" expect 1 \
	"damaged seeds file '$f'.*" "$MPICRAWL" check --dir "$SCRATCH/damaged"
check "... and the decision log" grep -q "damaged decision log '.*$(basename "$d")" "$SCRATCH/err"

# A seed line with a bad setting is not injected (as an invalid URL is not),
# with its line named; its siblings are.
printf 'http://h0000.%s/\nhttp://h0001.%s/\tmax_pages=many\n' "$D" "$D" >"$SCRATCH/bad-seeds"
check "a bad seed setting is named with its line, the seed left out" expect 0 \
	"bad-seeds:2: invalid seed .*max_pages= and max_depth= take a whole number" \
	"$MPICRAWL" inject --dir "$SCRATCH/bad" --seeds "$SCRATCH/bad-seeds"
check "... and the good line injected" test "$("$MPICRAWL" readdb --dir "$SCRATCH/bad" --dump |
	grep -c url)" -eq 1
printf 'http://h0001.%s/\tmax_pages=3\tcolour=blue\n' "$D" >"$SCRATCH/bad-seeds2"
check "an unknown setting: no valid seed, exit 2" expect 2 "unknown setting" \
	"$MPICRAWL" inject --dir "$SCRATCH/bad2" --seeds "$SCRATCH/bad-seeds2"
# score=X: the seed's OPIC cash is score.seed_cash times X; a bad one names
# its line. Injected again, a known seed keeps its cash.
printf 'http://h0000.%s/	score=2.5
http://h0001.%s/
http://h0002.%s/	score=-1
' \
	"$D" "$D" "$D" >"$SCRATCH/score-seeds"
check "a bad score= is named with its line" expect 0 \
	"score-seeds:3: invalid seed .*score= takes a number from 0 to 1000000" \
	"$MPICRAWL" inject --dir "$SCRATCH/score" --seeds "$SCRATCH/score-seeds" \
	--set score.seed_cash=2
cash_of() {
	"$MPICRAWL" readdb --dir "$SCRATCH/score" --dump |
		python3 -c 'import json,sys; print(" ".join(sorted("%g" % json.loads(l)["cash"] for l in sys.stdin)))'
}
check "the seeds' cash: 2 x 2.5 and 2 x 1" test "$(cash_of)" = "2 5"
"$MPICRAWL" inject --dir "$SCRATCH/score" --seeds "$SCRATCH/score-seeds" >/dev/null 2>&1
check "injected again, the seeds keep their cash" test "$(cash_of)" = "2 5"
# A seed listed several times is one seed: its cash is not multiplied (the
# larger of its lines' score= counts). A line holding a NUL byte is no seed
# (it would be cut there): named with its line, the rest injected.
printf 'http://h0003.%s/\nhttp://h0003.%s/\tscore=3\nhttp://h0004.%s/x\0evil\n' \
	"$D" "$D" "$D" >"$SCRATCH/dup-seeds"
check "a NUL byte in a seed line is named with its line" expect 0 \
	"dup-seeds:3: invalid seed line: it holds a NUL byte" \
	"$MPICRAWL" inject --dir "$SCRATCH/dup" --seeds "$SCRATCH/dup-seeds"
check "... and no URL is cut from it" test -z \
	"$("$MPICRAWL" readdb --dir "$SCRATCH/dup" --dump | grep h0004)"
check "a seed listed twice enters once, with its larger cash" test \
	"$("$MPICRAWL" readdb --dir "$SCRATCH/dup" --dump | python3 -c \
	'import json,sys; print(" ".join("%g" % json.loads(l)["cash"] for l in sys.stdin))')" = "3"
printf 'http://h0004.%s/x\0evil\n' "$D" >"$SCRATCH/nul-seeds"
check "only a NUL line: no valid seed, exit 2" expect 2 "NUL byte" \
	"$MPICRAWL" inject --dir "$SCRATCH/nul" --seeds "$SCRATCH/nul-seeds"
finish

#!/usr/bin/env bash
# A whole crawl of a 50-host x 40-page simweb on 1, 2 and 4 ranks, judged from
# the server's request log and the output files:
# - every reachable allowed URL (simweb --truth) fetched exactly once, with
#   the status the truth says, and nothing else fetched but robots.txt (once
#   per host, also when asked early, in the round that found the host);
# - nothing disallowed fetched;
# - no two requests to one host closer than politeness.delay_ms;
# - the sorted CrawlDb dump (minus times) identical on 1, 2 and 4 ranks;
# - every WARC file reads back whole: the project's reader and zcat agree on
#   the number of response records, which equals the requests logged.
. "$(dirname "$0")/lib.sh"

HOSTS=50
PAGES=40
DELAY=20

warc_counts_agree() {
	# warc_counts_agree CRAWLDIR LOG
	local dir=$1 log=$2 ours zc logged
	ours=$(for f in "$dir"/segments/*/warc/*.warc.gz; do "$MPICRAWL" warc "$f"; done |
		awk -F'\t' '$3 == "response"' | wc -l)
	zc=$(zcat "$dir"/segments/*/warc/*.warc.gz | tr -d '\r' | grep -c '^WARC-Type: response$')
	logged=$(wc -l <"$log")
	echo "warc: reader $ours, zcat $zc, server log $logged"
	[ "$ours" -eq "$zc" ] && [ "$zc" -eq "$logged" ]
}

# One web for the three crawls (page bodies carry its port, so digests can be
# compared); each crawl's requests are the log lines it added.
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --truth --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/truth"
# The 2-rank crawl parses in its own phase, reading the pages back from the
# WARC files; the others parse while fetching. Both must give the same CrawlDb.
# origins_agree DIR: the last update's "origins" counter is the number of
# distinct scheme://authority in the CrawlDb.
origins_agree() {
	local last want got
	last=$(ls -d "$1"/segments/*/ | tail -n 1)
	got=$(grep -o '"origins":[0-9]*' "$last/_SUCCESS.update" | cut -d: -f2)
	want=$("$MPICRAWL" readdb --dir "$1" --dump |
		grep -o '"url":"[a-z]*://[^/"?#]*' | sort -u | wc -l)
	[ -n "$got" ] && [ "$got" -eq "$want" ] || { echo "origins: $got, want $want"; return 1; }
}

# plans DIR: each segment's round plan, as its _SUCCESS.generate says it.
plans() {
	local s
	for s in "$1"/segments/*/; do
		echo "$(basename "$s") $(grep -o '"round_ms":[0-9]*\(,"round_steps":[0-9]*\)\?' \
			"$s/_SUCCESS.generate")"
	done
}

for n in 1 2 4; do
	before=$(wc -l <"$SIMWEB_LOG")
	inline=true
	[ "$n" -eq 2 ] && inline=false
	check "crawl on $n ranks exits 0" run_ranks "$n" crawl --dir "$SCRATCH/crawl$n" \
		--seeds "$SCRATCH/seeds" --set fetch.allow_private=true --set fetch.parse=$inline \
		--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=$DELAY \
		--set partition.count=16 >"$SCRATCH/out$n" 2>&1
	tail -n 2 "$SCRATCH/out$n"
	sleep 0.3   # simweb flushes its log every 100 ms
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$SCRATCH/log$n"
	# Hosts found while the crawl runs have their robots.txt asked early; the
	# audit's "robots.txt once per host" shows the next round used the answer.
	check "robots.txt of new hosts asked early on $n ranks" early_robots "$SCRATCH/crawl$n"
	# ... also of hosts another rank's pages found, passed on as hints.
	[ "$n" -gt 1 ] && check "links passed on as hints on $n ranks" \
		early_hints "$SCRATCH/crawl$n"
	check "server log audit on $n ranks" audit_log "$SCRATCH/log$n" "$SCRATCH/truth" "$SIMWEB_PORT" $DELAY
	check "warc records on $n ranks" warc_counts_agree "$SCRATCH/crawl$n" "$SCRATCH/log$n"
	check "stats.json per segment on $n ranks" test -s "$SCRATCH/crawl$n/segments/00001/stats.json"
	dump_db "$SCRATCH/crawl$n" >"$SCRATCH/dump$n"
	check "update counts the CrawlDb's origins on $n ranks" origins_agree "$SCRATCH/crawl$n"
	plans "$SCRATCH/crawl$n" >"$SCRATCH/plans$n"
done
check "round plans (round_ms, round_steps) the same on 1 and 2 ranks" \
	cmp -s "$SCRATCH/plans1" "$SCRATCH/plans2"
check "round plans the same on 1 and 4 ranks" cmp -s "$SCRATCH/plans1" "$SCRATCH/plans4"
check "round plans held while the hosts grew" grep -q '"round_steps":0' "$SCRATCH/plans1"
# Re-parsing a segment from its WARC files gives the parse data the fetcher
# wrote while fetching.
check "re-parse of segment 2 from WARC" "$MPICRAWL" parse --dir "$SCRATCH/crawl1" --segment 2 \
	--set fetch.parse=false >"$SCRATCH/reparse" 2>&1
check "re-parse found the same links" test \
	"$(grep -o '"links":[0-9]*' "$SCRATCH/crawl1/segments/00002/_SUCCESS.parse")" = \
	"$(grep -o '"links":[0-9]*' "$SCRATCH/crawl4/segments/00002/_SUCCESS.parse")"
# The robots.txt cache outlives rounds in which a host has nothing due: a URL
# of the first host added after the crawl is fetched without asking for its
# robots.txt again.
before=$(wc -l <"$SIMWEB_LOG")
printf 'http://h0000.sim.test:%s/missing/late.html\n' "$SIMWEB_PORT" >"$SCRATCH/late"
"$MPICRAWL" inject --dir "$SCRATCH/crawl1" --seeds "$SCRATCH/late" >/dev/null 2>&1
check "crawl continues after a late inject" "$MPICRAWL" crawl --dir "$SCRATCH/crawl1" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=$DELAY >"$SCRATCH/late.out" 2>&1
sleep 0.3
tail -n +"$((before + 1))" "$SIMWEB_LOG" | cut -f3,4 >"$SCRATCH/late.log"
check "late URL fetched from the cached robots.txt, nothing else" test \
	"$(cat "$SCRATCH/late.log")" = "$(printf 'h0000.sim.test\t/missing/late.html')"
check "CrawlDb has the truth's URLs" test "$(wc -l <"$SCRATCH/dump1")" -gt "$(wc -l <"$SCRATCH/truth")"
check "CrawlDb identical on 1 and 2 ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump2"
check "CrawlDb identical on 1 and 4 ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump4"
finish

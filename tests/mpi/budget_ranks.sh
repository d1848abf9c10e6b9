#!/usr/bin/env bash
# generate.top_n (the round's budget over all ranks) and generate.order =
# score, on 1, 2 and 4 ranks of a 30-host x 40-page simweb:
# - three rounds under a budget of 40 URLs: each segment's fetch list holds
#   at most 40 URLs, the server log shows no more pages than that, and the
#   fetch lists and the final CrawlDb (cash included) are the same on 1, 2
#   and 4 ranks;
# - a fourth generate alone, budget 25, on copies of one crawl: the same
#   25 URLs on 1, 2 and 4 ranks, and none left out with more cash than one
#   taken (the order is cash when no sitemap or depth prior applies);
# - OPIC conserves cash on this closed web: the CrawlDb's cash sums to the
#   seeds' (1 each);
# - refetches under recrawl.policy=freshness and recrawl.share: the same
#   selection on 1, 2 and 4 ranks, the share's split, the oldest copies;
# - generate.order = fifo under the same budget takes the shallowest first.
. "$(dirname "$0")/../e2e/lib.sh"

HOSTS=30
PAGES=40
BUDGET=40
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
common=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=5 --set partition.count=16 --set generate.round_s=0)

# fetchlists DIR SEG: the segment's fetch list URLs, sorted.
fetchlists() {
	"$MPICRAWL" readdb --dir "$1" --fetchlist --segment "$2" |
		python3 -c 'import json,sys; [print(json.loads(l)["url"]) for l in sys.stdin]' |
		LC_ALL=C sort
}

for n in 1 2 4; do
	before=$(wc -l <"$SIMWEB_LOG")
	check "crawl of 3 rounds on $n ranks, top_n $BUDGET" run_ranks "$n" crawl \
		--dir "$SCRATCH/c$n" --seeds "$SCRATCH/seeds" --rounds 3 "${common[@]}" \
		--set generate.top_n=$BUDGET >"$SCRATCH/out$n" 2>&1
	sleep 0.3
	pages=$(tail -n +"$((before + 1))" "$SIMWEB_LOG" | cut -f4 | grep -vc '^/robots.txt$')
	check "at most 3 x $BUDGET pages requested on $n ranks ($pages)" \
		test "$pages" -le $((3 * BUDGET))
	for s in 1 2 3; do
		fetchlists "$SCRATCH/c$n" $s >"$SCRATCH/fl$n.$s"
	done
	check "segment 3 holds $BUDGET URLs on $n ranks, segment 2 no more" \
		test "$(wc -l <"$SCRATCH/fl$n.3")" -eq $BUDGET -a \
		"$(wc -l <"$SCRATCH/fl$n.2")" -le $BUDGET
	dump_db "$SCRATCH/c$n" >"$SCRATCH/dump$n"
done
for n in 2 4; do
	for s in 1 2 3; do
		check "segment $s's fetch list the same on 1 and $n ranks" \
			cmp -s "$SCRATCH/fl1.$s" "$SCRATCH/fl$n.$s"
	done
	check "CrawlDb the same on 1 and $n ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump$n"
done
seeds=$(wc -l <"$SCRATCH/seeds")
check "cash conserved: the CrawlDb's cash sums to $seeds seeds' 1" python3 - "$SCRATCH/dump1" \
	"$seeds" <<'PY'
import json, sys
total = sum(json.loads(l)["cash"] for l in open(sys.argv[1]))
print("cash", total)
sys.exit(abs(total - int(sys.argv[2])) > 1e-9)
PY
grep -q '"budget_capped":[1-9]' "$SCRATCH/c1/segments/00003/_SUCCESS.generate"
check "the budget left URLs for later (budget_capped counted)" test $? -eq 0

# One generate alone, on copies of one crawl, 1, 2 and 4 ranks.
for n in 1 2 4; do
	cp -a "$SCRATCH/c1" "$SCRATCH/g$n"
	check "generate alone on $n ranks, top_n 25" run_ranks "$n" generate --dir "$SCRATCH/g$n" \
		"${common[@]}" --set generate.top_n=25 >"$SCRATCH/gen$n" 2>&1
	fetchlists "$SCRATCH/g$n" 4 >"$SCRATCH/gl$n"
done
check "25 URLs taken" test "$(wc -l <"$SCRATCH/gl1")" -eq 25
check "the same 25 on 1 and 2 ranks" cmp -s "$SCRATCH/gl1" "$SCRATCH/gl2"
check "the same 25 on 1 and 4 ranks" cmp -s "$SCRATCH/gl1" "$SCRATCH/gl4"
check "none left out with more cash than one taken" python3 - "$SCRATCH/dump1" \
	"$SCRATCH/gl1" <<'PY'
import json, sys
taken = set(open(sys.argv[2]).read().split())
due = [json.loads(l) for l in open(sys.argv[1])]
due = [r for r in due if r["status"] == "unfetched" and r.get("kind") != "embed"]
low = min(r["cash"] for r in due if r["url"] in taken)
high = max((r["cash"] for r in due if r["url"] not in taken), default=0)
print("least cash taken", low, "most left", high)
sys.exit(not (len(taken) == 25 and low >= high))
PY

# Refetches under the budget, two days later: recrawl.policy=freshness
# makes every page fetched at least recrawl.min_interval_s ago a refetch
# candidate; recrawl.share=0.4 of 25 gives them 10, new URLs 15. Pages
# fetched once have no change history: each is ranked by the prior (1 /
# crawl.refetch_interval_s) and its copy's age, oldest first.
export MPICRAWL_CLOCK_OFFSET_S=172800
for n in 1 2 4; do
	cp -a "$SCRATCH/c1" "$SCRATCH/r$n"
	check "generate two days later on $n ranks, freshness, share 0.4" \
		run_ranks "$n" generate --dir "$SCRATCH/r$n" "${common[@]}" --set generate.top_n=25 \
		--set recrawl.policy=freshness --set recrawl.share=0.4 >"$SCRATCH/genr$n" 2>&1
	fetchlists "$SCRATCH/r$n" 4 >"$SCRATCH/rl$n"
done
unset MPICRAWL_CLOCK_OFFSET_S
"$MPICRAWL" readdb --dir "$SCRATCH/c1" --dump >"$SCRATCH/timed1"
check "the same 25 with refetches on 1 and 2 ranks" cmp -s "$SCRATCH/rl1" "$SCRATCH/rl2"
check "the same 25 with refetches on 1 and 4 ranks" cmp -s "$SCRATCH/rl1" "$SCRATCH/rl4"
check "10 refetches, the oldest copies; 15 others, new URLs by cash" python3 - \
	"$SCRATCH/timed1" "$SCRATCH/rl1" <<'PY'
import json, sys
taken = set(open(sys.argv[2]).read().split())
recs = [json.loads(l) for l in open(sys.argv[1])]
old = [r for r in recs if r["status"] in ("fetched", "duplicate") and "kind" not in r]
ro = [r for r in old if r["url"] in taken]
print("taken", len(taken), "refetches", len(ro))
ok = len(taken) == 25 and len(ro) == 10
newest_taken = max(r["fetched_at"] for r in ro)
oldest_left = min(r["fetched_at"] for r in old if r["url"] not in taken)
print("newest copy taken", newest_taken, "oldest left", oldest_left)
ok = ok and newest_taken <= oldest_left
new = [r for r in recs if r["status"] == "unfetched" and "kind" not in r]
rn = [r for r in new if r["url"] in taken]
low = min(r["cash"] for r in rn)
high = max((r["cash"] for r in new if r["url"] not in taken), default=0)
print("new URLs: least cash taken", low, "most left", high)
sys.exit(not (ok and low >= high))
PY
cp -a "$SCRATCH/c1" "$SCRATCH/r0"
MPICRAWL_CLOCK_OFFSET_S=172800 "$MPICRAWL" generate --dir "$SCRATCH/r0" "${common[@]}" \
	--set generate.top_n=25 --set recrawl.policy=freshness --set recrawl.share=1 \
	>"$SCRATCH/genr0" 2>&1
fetchlists "$SCRATCH/r0" 4 >"$SCRATCH/rl0"
check "recrawl.share=1: 25 refetches, no new URL" python3 - "$SCRATCH/dump1" "$SCRATCH/rl0" <<'PY'
import json, sys
taken = set(open(sys.argv[2]).read().split())
fetched = {json.loads(l)["url"] for l in open(sys.argv[1])
           if json.loads(l)["status"] in ("fetched", "duplicate")}
sys.exit(not (len(taken) == 25 and taken <= fetched))
PY
cp -a "$SCRATCH/c1" "$SCRATCH/r9"
"$MPICRAWL" generate --dir "$SCRATCH/r9" "${common[@]}" --set generate.top_n=25 \
	--set recrawl.policy=freshness --set recrawl.share=1 >"$SCRATCH/genr9" 2>&1
fetchlists "$SCRATCH/r9" 4 >"$SCRATCH/rl9"
check "within recrawl.min_interval_s of their fetch, no refetch: 25 new URLs" \
	python3 - "$SCRATCH/dump1" "$SCRATCH/rl9" <<'PY'
import json, sys
taken = set(open(sys.argv[2]).read().split())
new = {json.loads(l)["url"] for l in open(sys.argv[1])
       if json.loads(l)["status"] == "unfetched"}
sys.exit(not (len(taken) == 25 and taken <= new))
PY

cp -a "$SCRATCH/c1" "$SCRATCH/f1"
check "generate fifo, top_n 25" "$MPICRAWL" generate --dir "$SCRATCH/f1" "${common[@]}" \
	--set generate.top_n=25 --set generate.order=fifo >"$SCRATCH/genf" 2>&1
fetchlists "$SCRATCH/f1" 4 >"$SCRATCH/fl.fifo"
check "fifo takes the shallowest first" python3 - "$SCRATCH/dump1" "$SCRATCH/fl.fifo" <<'PY'
import json, sys
taken = set(open(sys.argv[2]).read().split())
due = [json.loads(l) for l in open(sys.argv[1])]
due = [r for r in due if r["status"] == "unfetched"]
deep = max(r["depth"] for r in due if r["url"] in taken)
shallow = min((r["depth"] for r in due if r["url"] not in taken), default=deep)
print("deepest taken", deep, "shallowest left", shallow)
sys.exit(not (len(taken) == 25 and deep <= shallow))
PY
finish

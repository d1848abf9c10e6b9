#!/usr/bin/env bash
# No host keeps a round open: a web whose every kind of trouble answers at
# once - simweb's politeness variants and its hostile quarter, every 429
# and 503 asking for an hour (Retry-After: 3600) - is crawled on 2 ranks
# with no fetch.time_limit_s. Checks:
# - every fetch phase ends within fetch.max_hold_s plus the request
#   timeouts (it would wait an hour for a held host otherwise);
# - the fetch phases count the hosts that left the round (held), and the
#   URLs they left get no outcome: they stay unfetched in the CrawlDb;
# - the next rounds' generate does not select them while the hold lasts
#   (counted as held), also in a new job on the same directory.
. "$(dirname "$0")/lib.sh"

HOSTS=24
PAGES=6
MAX_HOLD=8
TIMEOUT=6

start_web web --hosts $HOSTS --pages $PAGES --politeness --hostile --retry-after 3600 ||
	{ echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
opts=(--set fetch.allow_addresses=127.0.0.1 --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set dns.timeout_ms=300 --set politeness.delay_ms=0 --set fetch.connect_timeout_s=3
	--set "fetch.timeout_s=$TIMEOUT" --set fetch.low_speed_bytes=100
	--set fetch.low_speed_time_s=3 --set "fetch.max_hold_s=$MAX_HOLD"
	--set partition.count=8)
D=$SCRATCH/crawl
t0=$SECONDS
run_ranks 2 crawl --dir "$D" --seeds "$SCRATCH/seeds" "${opts[@]}" --rounds 4 \
	>"$SCRATCH/out1" 2>&1
rc=$?
echo "first job: exit $rc in $((SECONDS - t0)) s"
check "the crawl of the hostile web exits 0" test "$rc" -eq 0

# counter PHASE NAME: the counter summed over the segments' stats.json
counter() {
	python3 -c '
import json, glob, sys
print(sum(json.load(open(f)).get(sys.argv[2], {}).get("counters", {}).get(sys.argv[3], 0)
          for f in glob.glob(sys.argv[1] + "/segments/*/stats.json")))' "$D" "$1" "$2"
}
longest=$(python3 -c '
import json, glob, sys
print(max(json.load(open(f)).get("fetch", {}).get("seconds", 0)
          for f in glob.glob(sys.argv[1] + "/segments/*/stats.json")))' "$D")
bound=$((MAX_HOLD + 2 * TIMEOUT + 5))
echo "longest fetch phase: $longest s (bound $bound s); held hosts $(counter fetch held)"
check "no fetch phase waits for a held host" \
	python3 -c "import sys; sys.exit(0 if $longest <= $bound else 1)"
check "hosts left the round for their hold" test "$(counter fetch held)" -gt 0
check "generate left their URLs out while the hold lasts" test "$(counter generate held)" -gt 0
check "the URLs they left stay unfetched" bash -c \
	"'$MPICRAWL' readdb --dir '$D' --stats | grep -qE '^unfetched +[1-9]'"

# A new job on the same directory still knows the holds (robots cache).
run_ranks 2 crawl --dir "$D" "${opts[@]}" --rounds 1 >"$SCRATCH/out2" 2>&1
rc=$?
check "a second job exits 0" test "$rc" -eq 0
check "a second job also leaves the held hosts' URLs out" \
	grep -qE 'generate I segment [0-9]+: .*, [1-9][0-9]* held\)' "$SCRATCH/out2"
finish

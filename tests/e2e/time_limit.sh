#!/usr/bin/env bash
# fetch.time_limit_s ends each fetch phase on time and leaves the rest due:
# with a 200 ms delay and a 1 s limit, generate gives each host at most
# 1 s / 200 ms + 1 URLs per round, every fetch phase ends within the limit
# (plus the end of the requests in flight), and over the rounds the crawl
# still fetches every URL of the truth exactly once.
. "$(dirname "$0")/lib.sh"

start_web web --hosts 3 --pages 12 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 3 --pages 12 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --truth --hosts 3 --pages 12 --port "$SIMWEB_PORT" | cut -f1 >"$SCRATCH/truth"
check "crawl with a 1 s fetch limit" run_ranks 2 crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=200 --set fetch.time_limit_s=1 --set partition.count=4 \
	>"$SCRATCH/out" 2>&1
tail -n 2 "$SCRATCH/out"
sleep 0.3
awk -F'\t' -v port="$SIMWEB_PORT" '$4 != "/robots.txt" { print "http://" $3 ":" port $4 }' \
	"$SIMWEB_LOG" | LC_ALL=C sort >"$SCRATCH/fetched"
check "every truth URL fetched" bash -c "LC_ALL=C sort -u '$SCRATCH/fetched' | cmp -s - <(LC_ALL=C sort '$SCRATCH/truth')"
check "none fetched twice" test -z "$(uniq -d "$SCRATCH/fetched")"
check "generate kept each host within what 1 s allows" python3 - "$SCRATCH/c" <<'PY'
import json, glob, sys
worst = 0
for s in sorted(glob.glob(sys.argv[1] + "/segments/*/stats.json")):
    d = json.load(open(s))
    g = d["generate"]["counters"]
    f = d["fetch"]
    worst = max(worst, f["seconds"])
    # The limit bounds the event loop; loading the fetch list and committing
    # the files come on top (well under a second here).
    if f["seconds"] > 1.0 + 1.0:
        print("not ok: segment %d fetch took %.2f s" % (d["segment"], f["seconds"]))
        sys.exit(1)
print("longest fetch phase %.2f s" % worst)
capped = sum(json.load(open(s))["generate"]["counters"].get("politeness_capped", 0)
             for s in glob.glob(sys.argv[1] + "/segments/*/stats.json"))
sys.exit(0 if capped > 0 else 1)
PY
finish

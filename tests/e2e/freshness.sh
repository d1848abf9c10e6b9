#!/usr/bin/env bash
# Recrawls timed to change, end to end: simweb --changing (4 hosts x 25
# pages changing as Poisson processes, hourly to yearly, under a clock
# file) crawled one round a simulated day for 8 days on 2 ranks with
# generate.top_n=20 and recrawl.policy=freshness, simweb's clock and
# MPICRAWL_CLOCK_OFFSET_S moved together. From simweb's request log and
# the CrawlDb:
# - every simulated day has 20 page requests: 20 new pages on day 0, then
#   10 new and 10 refetches a day (recrawl.share 0.5);
# - the pages that change 0.1 to 1 times a day are refetched more often
#   than those that change more than 5 times a day (the optimum under
#   this budget fetches the latter never: any copy of them is stale within
#   hours; the proportional rule, recrawl.policy=adaptive, does the
#   opposite and fails this check);
# - the CrawlDb keeps first_age and the visits' Last-Modified ages, and
#   its fetch times are on the simulated clock;
# - simweb --freshness reads the log and its fetches are the log's (90
#   pages: 20 + 7 x 10 new);
# - simweb refuses --changing without --epoch, and --freshness without
#   --from/--to.
. "$(dirname "$0")/lib.sh"

HOSTS=4
PAGES=25
BUDGET=20
DAYS=8
EPOCH=$(($(date +%s) - 60))
echo 0 >"$SCRATCH/clock"
start_web web --changing --hosts $HOSTS --pages $PAGES --epoch "$EPOCH" \
	--clock-file "$SCRATCH/clock" || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --changing --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" \
	>"$SCRATCH/seeds"
"$SIMWEB" --changing --rates --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" \
	>"$SCRATCH/rates"
check "100 seeds and their rates" test "$(wc -l <"$SCRATCH/seeds")" -eq 100 -a \
	"$(wc -l <"$SCRATCH/rates")" -eq 100

ok=1
for ((d = 0; d < DAYS; d++)); do
	off=$((EPOCH + d * 86400 - $(date +%s)))
	echo "$off" >"$SCRATCH/clock.tmp" && mv "$SCRATCH/clock.tmp" "$SCRATCH/clock"
	seeds=()
	[ "$d" -eq 0 ] && seeds=(--seeds "$SCRATCH/seeds")
	MPICRAWL_CLOCK_OFFSET_S=$off run_ranks 2 crawl --dir "$SCRATCH/c" "${seeds[@]}" \
		--rounds 1 --set fetch.allow_private=true \
		--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
		--set generate.round_s=0 --set generate.top_n=$BUDGET \
		--set recrawl.policy=freshness --set crawl.refetch_interval_s=86400 \
		--set index.enabled=false --set fetch.embeds=false >>"$SCRATCH/out" 2>&1 || ok=0
done
check "8 daily rounds exit 0" test $ok -eq 1
sleep 0.3   # simweb flushes its log every 100 ms

check "at most $BUDGET pages a simulated day; new URLs take their half; refetches of middling pages before fast ones" \
	python3 - "$SIMWEB_LOG" "$SCRATCH/rates" "$EPOCH" "$BUDGET" <<'PY'
import sys
log, rates, epoch, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rate = {}
for line in open(rates):
    url, r = line.split("\t")
    rate[(url.split("/")[2].split(":")[0], "/" + url.split("/", 3)[3])] = float(r) * 86400
per_day, fetches, new_per_day = {}, {}, {}
for line in open(log):
    f = line.rstrip("\n").split("\t")
    if len(f) < 5 or not f[3].startswith("/c/") or f[4] != "200":
        continue
    day = (int(f[0]) // 1000000 - epoch) // 86400
    key = (f[2].split(":")[0], f[3])
    per_day[day] = per_day.get(day, 0) + 1
    if key not in fetches:
        new_per_day[day] = new_per_day.get(day, 0) + 1
    fetches[key] = fetches.get(key, 0) + 1
def refetched(lo, hi):
    """Refetches a page of the band, over its pages fetched at all (a page
    never reached says nothing of the policy)."""
    pages = [k for k, r in rate.items() if lo <= r < hi and k in fetches]
    return sum(fetches[k] - 1 for k in pages) / len(pages), len(pages)
mid, fast = refetched(0.1, 1), refetched(5, 1e9)
print("per day", sorted(per_day.items()), "new per day", sorted(new_per_day.items()))
print("refetches a page: 0.1 to 1 changes a day %.2f (%d pages), over 5 %.2f (%d pages)"
      % (mid[0], mid[1], fast[0], fast[1]))
ok = all(v == budget for v in per_day.values()) and len(per_day) == 8
ok = ok and new_per_day.get(0) == budget
ok = ok and all(new_per_day.get(d) == budget // 2 for d in range(1, 8))
sys.exit(not (ok and mid[0] > fast[0]))
PY

"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump >"$SCRATCH/dump"
check "the CrawlDb keeps Last-Modified ages, on the simulated clock" python3 - \
	"$SCRATCH/dump" "$EPOCH" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
epoch = int(sys.argv[2])
pages = [r for r in recs if "/c/" in r["url"]]
aged = [r for r in pages if r.get("first_age", 0) > 0]
vis_aged = [r for r in pages if any(v[2] > 0 for v in r.get("visits", []))]
late = max(r["fetched_at"] for r in pages)
print("pages", len(pages), "first_age", len(aged), "a visit's age", len(vis_aged),
      "last fetch day", (late - epoch) // 86400)
# A copy that changed less than a minute before its fetch has no age
# (update/merge.c lm_age): an hourly page, about one fetch in 60. The
# clock's epoch is the run's, so which pages do varies: a few may miss.
sys.exit(not (len(pages) == 100 and len(aged) >= 85 and vis_aged and
              (late - epoch) // 86400 == 7))
PY

T2=$((EPOCH + DAYS * 86400))
"$SIMWEB" --changing --freshness "$SIMWEB_LOG" --epoch "$EPOCH" --from "$EPOCH" --to "$T2" \
	--hosts $HOSTS --pages $PAGES >"$SCRATCH/fresh" 2>"$SCRATCH/fresh.err"
check "simweb --freshness: a share, and the log's fetches" python3 - "$SCRATCH/fresh" \
	"$SIMWEB_LOG" <<'PY'
import sys
out = dict(l.split(None, 1) for l in open(sys.argv[1]) if not l.startswith("decade"))
n = sum(1 for l in open(sys.argv[2]) if "\t/c/" in l and l.split("\t")[4] == "200")
print(out, "log", n)
sys.exit(not (0 < float(out["freshness"]) < 1 and int(out["fetches"]) == n and
              int(out["pages"]) == 100 and int(out["fetched_pages"]) == 90))
PY

"$SIMWEB" --changing --hosts 2 --pages 2 --port 0 >/dev/null 2>"$SCRATCH/e1"
check "--changing without --epoch: exit 2, one line" test $? -eq 2 -a \
	"$(wc -l <"$SCRATCH/e1")" -eq 1
"$SIMWEB" --changing --freshness "$SIMWEB_LOG" --epoch 1 --hosts 2 --pages 2 \
	>/dev/null 2>"$SCRATCH/e2"
check "--freshness without --from and --to: exit 2, one line" test $? -eq 2 -a \
	"$(wc -l <"$SCRATCH/e2")" -eq 1
finish

#!/usr/bin/env bash
# `mpicrawl status` and DIR/metrics.prom during a 2-rank crawl of the local
# web (issue 35): status and status --json every second while the crawl
# runs - every call exits 0, its JSON parses (jq), the round never goes
# back, within a round the URLs done never decrease and never pass the
# total, and the last one says complete; every metrics.prom seen passes
# `promtool check metrics`; rank 0's progress line counts every rank (its
# total is never below what generate selected for the round); --watch ends
# by itself when the job does; a damaged progress file is a note, not an
# error; bad usage exits 2, a directory that is not a crawl's 1.
. "$(dirname "$0")/lib.sh"

PROMTOOL=$(command -v promtool || true)
start_web web --hosts 6 --pages 40 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 6 --pages 40 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
C=$SCRATCH/crawl
run_ranks 2 crawl --dir "$C" --seeds "$SCRATCH/seeds" --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=300 \
	--set generate.round_s=3 --set metrics.interval_s=1 --set partition.count=4 \
	--rounds 3 >"$SCRATCH/log" 2>&1 &
crawl=$!
# From when the directory is a crawl's (mpirun may take a while to start)
# and its job holds the lock; --watch from then on must end by itself once
# the job is over.
for _ in $(seq 300); do
	[ -e "$C/crawl.meta" ] && [ -e "$C/lock" ] && break
	sleep 0.1
done
timeout 120 "$MPICRAWL" status --dir "$C" --watch 1 --json >"$SCRATCH/watch" 2>&1 &
watch=$!

calls=0 bad_rc=0 bad_json=0 bad_order=0 proms=0 bad_prom=0 running=0
last_round=0 last_done=0
while kill -0 "$crawl" 2>/dev/null; do
	calls=$((calls + 1))
	"$MPICRAWL" status --dir "$C" >"$SCRATCH/s.txt" 2>"$SCRATCH/s.err" || bad_rc=$((bad_rc + 1))
	if ! "$MPICRAWL" status --dir "$C" --json >"$SCRATCH/s.json" 2>>"$SCRATCH/s.err"; then
		bad_rc=$((bad_rc + 1))
	elif ! read -r round done total < <(jq -r '"\(.round) \(.urls.done) \(.urls.total)"' \
		"$SCRATCH/s.json" 2>/dev/null); then
		bad_json=$((bad_json + 1))
		echo "status --json did not parse: $(head -c 300 "$SCRATCH/s.json")"
	else
		if [ "$round" -lt "$last_round" ] || [ "$done" -gt "$total" ] ||
			{ [ "$round" -eq "$last_round" ] && [ "$done" -lt "$last_done" ]; }; then
			bad_order=$((bad_order + 1))
			echo "inconsistent: round $round done $done of $total after round" \
				"$last_round done $last_done"
		fi
		last_round=$round last_done=$done
		jq -e '.job == "running" and .lock.alive == true and .lock.pid > 0' \
			"$SCRATCH/s.json" >/dev/null && running=$((running + 1))
	fi
	if [ -n "$PROMTOOL" ] && cp "$C/metrics.prom" "$SCRATCH/m.prom" 2>/dev/null; then
		proms=$((proms + 1))
		"$PROMTOOL" check metrics <"$SCRATCH/m.prom" >"$SCRATCH/p.out" 2>&1 || {
			bad_prom=$((bad_prom + 1))
			echo "promtool: $(head -c 300 "$SCRATCH/p.out")"
		}
	fi
	sleep 1
done
wait "$crawl"
check "crawl exits 0" test $? -eq 0
echo "$calls status calls during the crawl, $proms metrics.prom files checked"
check "status called during the crawl (at least 4 times, $calls)" test "$calls" -ge 4
check "every status call exits 0" test "$bad_rc" -eq 0
check "every status --json parses" test "$bad_json" -eq 0
check "status --json said running, with the lock's live pid ($running times)" \
	test "$running" -ge 2
check "round never goes back; done never decreases, never exceeds total" test "$bad_order" -eq 0
check "the last status --json says complete" bash -c \
	"$MPICRAWL status --dir '$C' --json | jq -e '.job == \"complete\"' >/dev/null"
check "the last status says complete" grep -q "': complete" <("$MPICRAWL" status --dir "$C")
check "final: all URLs of the last round done" bash -c \
	"$MPICRAWL status --dir '$C' --json | jq -e '.urls.done == .urls.total and .round == 3' >/dev/null"

# --watch: ended by itself, every line JSON, the last complete.
wait "$watch"
check "status --watch ends when the job does" test $? -eq 0
check "--watch: every line parses" jq -e . "$SCRATCH/watch" >/dev/null
check "--watch: printed while running, then complete" bash -c \
	"jq -r .job '$SCRATCH/watch' | uniq | tr '\n' ' ' | grep -q 'running complete'"

# The progress line counts every rank: its total is never below what
# generate selected for its round (stats.json).
progress_totals_ok() {
	local seg sel ok=0
	for seg in 1 2 3; do
		sel=$(jq -r .generate.counters.selected "$C/segments/0000$seg/stats.json")
		grep -oE "fetch I round $seg: [0-9]+/[0-9]+ urls" "$SCRATCH/log" |
			sed -E 's|.*: [0-9]+/([0-9]+) urls|\1|' >"$SCRATCH/totals"
		[ -s "$SCRATCH/totals" ] || { echo "no progress line for round $seg"; ok=1; }
		while read -r t; do
			[ "$t" -ge "$sel" ] || { echo "round $seg: total $t < selected $sel"; ok=1; }
		done <"$SCRATCH/totals"
	done
	return $ok
}
check "progress line: total over every rank, at least generate's selected" progress_totals_ok
check "progress line: ranks reporting named" grep -q "ranks reporting" "$SCRATCH/log"

if [ -n "$PROMTOOL" ]; then
	check "metrics.prom seen during the crawl" test "$proms" -ge 3
	check "promtool check metrics accepts every metrics.prom" test "$bad_prom" -eq 0
	check "the last metrics.prom: promtool accepts it" "$PROMTOOL" check metrics <"$C/metrics.prom"
	check "the last metrics.prom: the job complete" \
		grep -qx 'mpicrawl_job{state="complete"} 1' "$C/metrics.prom"
	check "per rank samples" grep -q 'mpicrawl_fetch_requests_total{rank="1"}' "$C/metrics.prom"
else
	skip 5 "promtool not installed (Debian's prometheus package, scripts/install-deps.sh)"
fi

# Progress files: documented lines, a checksum; a damaged one is a note,
# a temporary one is never read.
P=$C/segments/00003/progress
check "progress file: its first and last lines" bash -c \
	"head -n1 '$P/r0001' | grep -qx 'mpicrawl-progress 1' && tail -n1 '$P/r0001' | grep -qE '^end [0-9a-f]{16}$'"
head -c 40 "$P/r0001" >"$P/r0001.tmp.999"
sed -i 's/^requests .*/requests 999999/' "$P/r0001"
check "a damaged progress file: exit 0 and a note" bash -c \
	"$MPICRAWL status --dir '$C' | grep -q 'note: progress file r0001 skipped: checksum mismatch'"
check "a damaged progress file in --json: a note, the rank not reporting" bash -c \
	"$MPICRAWL status --dir '$C' --json | jq -e '(.notes | length) == 1 and .ranks.reporting == 1 and .ranks.each[1] == null' >/dev/null"
check "status never reads a temporary file" bash -c \
	"! $MPICRAWL status --dir '$C' | grep -q 'r0001.tmp'"

# A job killed mid-fetch: stopped, its holder gone; the round's URLs not
# all done.
K=$SCRATCH/killed
"$MPICRAWL" crawl --dir "$K" --seeds "$SCRATCH/seeds" --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=300 \
	--set generate.round_s=3 --set partition.count=4 --rounds 1 >"$SCRATCH/klog" 2>&1 &
kpid=$!
for _ in $(seq 50); do
	[ -e "$K/segments/00001/progress/r0000" ] && break
	sleep 0.2
done
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
check "a killed job: stopped, its last job gone" bash -c \
	"$MPICRAWL status --dir '$K' | grep -q \"': stopped - its last job is gone\""
check "a killed job in --json: stopped, the round not done" bash -c \
	"$MPICRAWL status --dir '$K' --json | jq -e '.job == \"stopped\" and .lock.alive == false and .phase == \"fetch\" and .urls.done < .urls.total' >/dev/null"

check "bad usage: exit 2, one line" expect 2 "^mpicrawl status: --dir is required" "$MPICRAWL" status
check "... one line" test "$(wc -l <"$SCRATCH/err")" -eq 1
check "bad --watch: exit 2" expect 2 "--watch wants seconds" "$MPICRAWL" status --dir "$C" --watch 0
check "not a crawl directory: exit 1" expect 1 "is not a crawl directory" \
	"$MPICRAWL" status --dir "$SCRATCH"
finish

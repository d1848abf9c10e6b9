#!/usr/bin/env bash
# The read-only commands while a job writes the crawl directory (issue 35,
# round/live.h): during a 2-rank crawl of the local web that lasts some
# 20-40 s (politeness.delay_ms, links followed round by round), `report`,
# `readdb --stats`, `--seeds`, `--dump` (and `--fetchlist` of segment 1
# once generated) and `check` run every second. Every call exits 0, none
# says "damaged" (a phase's temporary files, or the files of a phase not
# committed yet, are not read), each says once on stderr that a job is
# running, a report made mid-crawl names the round in progress, and
# `check --repair` is refused. After the crawl: the report marks no round
# in progress, check finds no problem, every seed is complete, and nothing
# says a job runs.
. "$(dirname "$0")/lib.sh"

HOSTS=6
PAGES=24
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
C=$SCRATCH/crawl
L=$SCRATCH/calls
mkdir -p "$L"

run_ranks 2 crawl --dir "$C" --seeds "$SCRATCH/seeds" --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=400 \
	--set fetch.follow_max=0 --set partition.count=4 >"$SCRATCH/crawl.log" 2>&1 &
CRAWL=$!
start=$SECONDS

# call NAME args...: runs one read-only command, keeping its exit code,
# stdout and stderr under $L/NAME.{rc,out,err}.
call() {
	local name=$1
	shift
	timeout 60 "$MPICRAWL" "$@" >"$L/$name.out" 2>"$L/$name.err"
	echo $? >"$L/$name.rc"
}

# Not before the directory exists: until crawl.meta is written it is no
# crawl directory (at most 20 s).
for _ in $(seq 200); do
	[ -e "$C/crawl.meta" ] && break
	sleep 0.1
done
i=0
while kill -0 "$CRAWL" 2>/dev/null && [ $i -lt 90 ]; do
	i=$((i + 1))
	call "$i-report" report --dir "$C" --out "$L/$i-report.html"
	call "$i-stats" readdb --dir "$C" --stats
	call "$i-seeds" readdb --dir "$C" --seeds
	call "$i-check" check --dir "$C"
	call "$i-dump" readdb --dir "$C" --dump
	[ -e "$C/segments/00001/_SUCCESS.generate" ] &&
		call "$i-fetchlist" readdb --dir "$C" --fetchlist --segment 1
	if [ "$i" -eq 3 ]; then
		"$MPICRAWL" check --dir "$C" --repair >/dev/null 2>"$L/repair.err"
		echo $? >"$L/repair.code"
	fi
	sleep 1
done
wait "$CRAWL"
rc=$?
took=$((SECONDS - start))
echo "crawl: exit $rc after ${took}s, $i rounds of calls"
check "crawl exits 0" test "$rc" -eq 0 || tail -n 20 "$SCRATCH/crawl.log"
check "the crawl lasted 15 s or more (took ${took}s)" test "$took" -ge 15
check "at least 10 rounds of calls during the crawl ($i)" test "$i" -ge 10

bad_rc=$(grep -L '^0$' "$L"/*.rc | sed 's|.*/||; s|\.rc$||' | tr '\n' ' ')
check "every call during the crawl exits 0 (not: ${bad_rc:-none})" test -z "$bad_rc" ||
	for f in $bad_rc; do echo "  $f: $(head -c 300 "$L/$f.err")"; done
check "check --repair is refused while the job runs" grep -q \
	"is in use by job .*: --repair waits for it to end" "$L/repair.err"
check "... with exit 1" test "$(cat "$L/repair.code")" -eq 1
dumped=$(cat "$L"/*-dump.out | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if json.loads(l)["url"]))')
check "the dumps are JSON lines ($dumped URLs in all)" test "$dumped" -gt 0
damaged=$(grep -il damaged "$L"/*.err "$L"/*.out | sed 's|.*/||' | tr '\n' ' ')
check "no call says damaged (said by: ${damaged:-none})" test -z "$damaged" ||
	grep -ih damaged "$L"/*.err | head -n 5
calls=$(ls "$L"/*.rc | wc -l)
said=$(grep -l '^mpicrawl [a-z]*: a job is running (job .*, pid [0-9]* on host ' "$L"/*.err |
	wc -l)
check "calls say that a job is running ($said of $calls)" test "$said" -ge $((calls / 2))
twice=$(for f in "$L"/*.err; do
	[ "$(grep -c 'a job is running' "$f")" -gt 1 ] && echo "$f"
done | wc -l)
check "said once a call" test "$twice" -eq 0
mid=$(grep -l 'id="round-in-progress"><strong>round [0-9]* in progress (' "$L"/*-report.html |
	wc -l)
check "reports made mid-crawl name the round in progress ($mid)" test "$mid" -ge 3
shown=$(grep -ho 'round [0-9]* (in progress)' "$L"/*-report.html | sort -u | wc -l)
check "the round in progress is charted as such, in several rounds ($shown)" test "$shown" -ge 2
grep -ho 'showing the state committed at [^:]*:[^:]*:[^:]*: .*' "$L"/*-check.err | sort -u |
	head -n 3

# after the crawl
call after-report report --dir "$C"
call after-stats readdb --dir "$C" --stats
call after-seeds readdb --dir "$C" --seeds
call after-check check --dir "$C"
for n in report stats seeds check; do
	check "$n after the crawl exits 0" test "$(cat "$L/after-$n.rc")" -eq 0 ||
		head -c 300 "$L/after-$n.err"
done
check "nothing says a job runs after the crawl" bash -c "! cat '$L'/after-*.err | grep -q 'job is running'"
check "the report marks no round in progress" bash -c \
	"! grep -qE 'in progress|interrupted' '$C/report.html'"
check "check finds no problem" grep -q ': 0 problems left' "$L/after-check.out"
nseeds=$(grep -c . "$SCRATCH/seeds")
complete=$(grep -c '"state":"complete"' "$L/after-seeds.out")
check "every seed complete ($complete of $nseeds)" test "$complete" -eq "$nseeds"
check "readdb --stats counts the fetched pages" grep -qE '^fetched +[1-9]' "$L/after-stats.out"
finish

#!/usr/bin/env bash
# `mpicrawl stop` and quiet clean stops (issue 35):
# - `mpicrawl stop --dir D` during a fetch of a 2-rank crawl started with
#   scripts/mpicrawl-run ends the job within fetch.stop_grace_s + 5 s; the
#   script exits 75; nothing of OpenMPI's abort banner is printed;
# - the same under a bare mpirun: the ranks exit 0 (no banner), and
#   DIR/last_job records exit 75 for the run;
# - the stopped crawl, continued, ends with the CrawlDb of a crawl never
#   stopped;
# - `stop` with no job running, on a directory that is no crawl, with bad
#   usage; a stale DIR/stop does not stop the next job.
. "$(dirname "$0")/lib.sh"

HOSTS=4
PAGES=20
GRACE=3
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=150 --set partition.count=8 --set generate.round_s=0
	--set "fetch.stop_grace_s=$GRACE")
banner='Primary job|mpirun detected|non-zero exit|aborted|ORTE'

check "reference crawl exits 0" run_ranks 2 crawl --dir "$SCRATCH/ref" --seeds "$SCRATCH/seeds" \
	"${opts[@]}" >"$SCRATCH/ref.out" 2>&1
dump_db "$SCRATCH/ref" >"$SCRATCH/ref.db"

# in_fetch DIR: waits (at most 30 s) until a fetch phase is under way.
in_fetch() {
	local i
	for ((i = 0; i < 300; i++)); do
		ls "$1"/segments/*/fetch/*.journal >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# stop_run NAME CMD...: starts CMD in the background, asks it to stop with
# `mpicrawl stop` once it fetches, and sets RC and SECS (from the stop).
stop_run() {
	local name=$1 pid t0
	shift
	"$@" >"$SCRATCH/$name.out" 2>&1 &
	pid=$!
	in_fetch "$SCRATCH/$name" || echo "no fetch seen in $name"
	sleep 0.5
	t0=$SECONDS
	"$MPICRAWL" stop --dir "$SCRATCH/$name" >"$SCRATCH/$name.stop" 2>&1
	wait "$pid"
	RC=$?
	SECS=$((SECONDS - t0))
	echo "$name: exit $RC, $SECS s after the stop"
}

D=$SCRATCH/a
stop_run a "$ROOT/scripts/mpicrawl-run" -n 2 crawl --dir "$D" --seeds "$SCRATCH/seeds" "${opts[@]}"
check "stop: the request names the job" grep -q "^asked job .*pid [0-9]* on host .* to stop$" \
	"$SCRATCH/a.stop"
check "stop under mpicrawl-run: exit 75" test "$RC" -eq 75
check "stop: ended within fetch.stop_grace_s + 5 s ($SECS s)" test "$SECS" -le $((GRACE + 5))
check "stop under mpicrawl-run: no abort banner" bash -c "! grep -qE '$banner' '$SCRATCH/a.out'"
check "the control file is gone with the job" test ! -e "$D/stop"
check "last_job records the stop" grep -qx 'exit=75' "$D/last_job"
check "status says the job stopped" bash -c \
	"'$MPICRAWL' status --dir '$D' --json | jq -e '.job == \"stopped\"' >/dev/null"
check "the stopped crawl continues" run_ranks 2 crawl --dir "$D" "${opts[@]}" >"$SCRATCH/a2.out" 2>&1
dump_db "$D" >"$SCRATCH/a.db"
check "... to the CrawlDb of a crawl never stopped" cmp -s "$SCRATCH/ref.db" "$SCRATCH/a.db"
check "last_job records the end" grep -qx 'exit=0' "$D/last_job"

D=$SCRATCH/b
stop_run b timeout 300 mpirun --oversubscribe -n 2 "$MPICRAWL" crawl --dir "$D" \
	--seeds "$SCRATCH/seeds" "${opts[@]}"
check "stop under a bare mpirun: exit 0, nothing lost" test "$RC" -eq 0
check "stop under a bare mpirun: no abort banner" bash -c "! grep -qE '$banner' '$SCRATCH/b.out'"
check "stop under a bare mpirun: last_job says 75" grep -qx 'exit=75' "$D/last_job"
check "... and the log says how to read it" grep -q "75 in '.*last_job'" "$SCRATCH/b.out"

# A bare process (no launcher) exits 75 itself.
D=$SCRATCH/c
stop_run c "$MPICRAWL" crawl --dir "$D" --seeds "$SCRATCH/seeds" "${opts[@]}"
check "stop of a process without a launcher: exit 75" test "$RC" -eq 75

check "stop with no job running: exit 0, nothing to stop" bash -c \
	"'$MPICRAWL' stop --dir '$D' | grep -q 'nothing to stop'"
check "stop of a directory that is no crawl: exit 1, one line" expect 1 "not a crawl directory" \
	"$MPICRAWL" stop --dir "$SCRATCH"
check "stop without --dir: exit 2" expect 2 "--dir is required" "$MPICRAWL" stop
check "stop --wait x: exit 2" expect 2 "--wait takes seconds" "$MPICRAWL" stop --dir "$D" --wait x
printf 'pid=1\nhost=%s\n' "$(hostname)" >"$D/stop"
check "a stale control file does not stop the next job" run_ranks 1 crawl --dir "$D" \
	--rounds 1 "${opts[@]}" >"$SCRATCH/c2.out" 2>&1
check "... which removes it" test ! -e "$D/stop"
finish

#!/usr/bin/env bash
# Node-local scratch (crawldb/job.h): a rank's sort spills and the files a
# phase reads back go to storage.tmp_dir, else $SLURM_TMPDIR, else $TMPDIR -
# BASE/mpicrawl-HASH/rNNNN - and never to the crawl directory's filesystem
# when one of them is set. A crawl killed inside its first update (the kill
# hook of build/bin/mpicrawl-test) leaves each rank's folder there and no
# DIR/tmp; the resumed crawl removes them at its end. storage.tmp_dir wins
# over TMPDIR; with neither, DIR/tmp as before.
. "$(dirname "$0")/lib.sh"
MPICRAWL=$ROOT/build/bin/mpicrawl-test
[ -x "$MPICRAWL" ] || { echo "not ok: $MPICRAWL missing (make all builds it)"; finish; exit 1; }

start_web web --hosts 4 --pages 20 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 4 --pages 20 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
opts=(--seeds "$SCRATCH/seeds" --set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=0 --set partition.count=4 --set fetch.follow_max=0)
NODE=$SCRATCH/node
mkdir -p "$NODE" "$SCRATCH/other"

# Killed in update of segment 1 (after its dedup, whose files are the
# rank's scratch), every rank, by SIGKILL: nothing removes the scratch.
TMPDIR=$NODE MPICRAWL_TEST_KILL="update 1 0 -1 9" run_ranks 2 crawl --dir "$SCRATCH/c" \
	"${opts[@]}" --rounds 2 >"$SCRATCH/k.out" 2>&1
check "killed in update: each rank's scratch under TMPDIR ($(cd "$NODE" && echo mpicrawl-*/r*))" \
	eval '[ -d "$(echo "$NODE"/mpicrawl-*/r0000)" ] && [ -d "$(echo "$NODE"/mpicrawl-*/r0001)" ]'
check "... and none in the crawl directory" test ! -e "$SCRATCH/c/tmp"

# crawl_in TMP ARGS...: crawl on 2 ranks with TMPDIR=TMP
crawl_in() {
	local tmp=$1
	shift
	TMPDIR=$tmp run_ranks 2 crawl "$@"
}
check "the crawl resumed exits 0" crawl_in "$NODE" --dir "$SCRATCH/c" "${opts[@]}" --rounds 2
check "... its scratch removed at the end, none in the crawl directory" \
	eval '[ -z "$(ls -A "$NODE")" ] && [ ! -e "$SCRATCH/c/tmp" ]'

# storage.tmp_dir over TMPDIR.
TMPDIR=$NODE MPICRAWL_TEST_KILL="update 1 0 -1 9" run_ranks 2 crawl --dir "$SCRATCH/d" \
	"${opts[@]}" --rounds 1 --set "storage.tmp_dir=$SCRATCH/other" >"$SCRATCH/k2.out" 2>&1
check "storage.tmp_dir wins over TMPDIR" \
	eval '[ -d "$(echo "$SCRATCH"/other/mpicrawl-*/r0000)" ] && [ -z "$(ls -A "$NODE")" ] &&
	[ ! -e "$SCRATCH/d/tmp" ]'

# Neither: the crawl directory, as before.
(
	unset TMPDIR SLURM_TMPDIR
	MPICRAWL_TEST_KILL="update 1 0 -1 9" run_ranks 2 crawl --dir "$SCRATCH/e" "${opts[@]}" \
		--rounds 1 >"$SCRATCH/k3.out" 2>&1
)
check "no scratch named: DIR/tmp/rNNNN" test -d "$SCRATCH/e/tmp/r0000"
finish

#!/usr/bin/env bash
# The near-duplicate stores as sorted runs (src/dedup/runs.h) over a crawl of
# many rounds (links wait for the next round, a few pages per host a round):
# - every store of the last version keeps at most dedup.max_runs runs (the
#   default 8, and 2 when set so), each named in its manifest;
# - the CrawlDb and the duplicate decisions do not depend on dedup.max_runs
#   (1: one file rewritten each round, as before runs);
# - a crawl whose stores are in the layout of before runs (one file each,
#   no manifest) goes on to the same CrawlDb;
# - `mpicrawl check` accepts the crawl, names a damaged run and a missing
#   one, and --repair drops the version's stores, after which the crawl goes
#   on; the round refuses a run whose size is not its manifest's before it
#   starts.
. "$(dirname "$0")/lib.sh"

HOSTS=30
PAGES=40
FAMILIES=16
ROUNDS=12

start_web web --hosts $HOSTS --pages $PAGES --dupes $FAMILIES ||
	{ echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=0 --set politeness.max_in_flight=4 --set partition.count=4
	--set fetch.follow_max=0 --set generate.max_per_host=3 --set index.enabled=false)

# crawl NAME ROUNDS [args...]: a crawl of ROUNDS rounds on 2 ranks into $SCRATCH/NAME
crawl() {
	local name=$1 rounds=$2
	shift 2
	run_ranks 2 crawl --dir "$SCRATCH/$name" --seeds "$SCRATCH/seeds" --rounds "$rounds" \
		"${opts[@]}" "$@" >>"$SCRATCH/$name.out" 2>&1
}

# version_dir DIR: the committed CrawlDb version's folder
version_dir() {
	printf '%s/crawldb/%05d' "$1" "$(cat "$1/crawldb/CURRENT")"
}

# most_runs DIR: the most run files of one store in the committed version
most_runs() {
	local v m most=0 n
	v=$(version_dir "$1")
	for m in "$v"/*.runs; do
		n=$(find "$v" -name "$(basename "$m" .runs).[0-9]*.zst" | wc -l)
		[ "$n" -gt "$most" ] && most=$n
	done
	echo "$most"
}

check "crawl of $ROUNDS rounds exits 0" crawl ref $ROUNDS
dump_db "$SCRATCH/ref" >"$SCRATCH/ref.db"
check "it found duplicates" grep -q '"duplicate"' "$SCRATCH/ref.db"
check "each store has a manifest" test "$(ls "$(version_dir "$SCRATCH/ref")"/*.runs | wc -l)" -eq 8
most=$(most_runs "$SCRATCH/ref")
echo "most runs of a store: $most (of $ROUNDS rounds)"
check "at most 8 runs a store ($most)" test "$most" -ge 1 -a "$most" -le 8
check "no store left as one file of before" \
	test -z "$(ls "$(version_dir "$SCRATCH/ref")" | grep -E '^(lsh|sig)-[0-9]+\.zst$')"
check "mpicrawl check accepts it" "$MPICRAWL" check --dir "$SCRATCH/ref"

check "crawl with dedup.max_runs=2 exits 0" crawl two $ROUNDS --set dedup.max_runs=2
most=$(most_runs "$SCRATCH/two")
check "dedup.max_runs=2: at most 2 runs a store ($most)" test "$most" -le 2
check "dedup.max_runs=2: the same CrawlDb" cmp -s "$SCRATCH/ref.db" <(dump_db "$SCRATCH/two")

# Half the rounds with one file a store; then that file in the layout of
# before runs; then the other half with runs.
check "crawl with dedup.max_runs=1 exits 0" crawl old $((ROUNDS / 2)) --set dedup.max_runs=1
check "dedup.max_runs=1: one run a store" test "$(most_runs "$SCRATCH/old")" -eq 1
v=$(version_dir "$SCRATCH/old")
for m in "$v"/*.runs; do
	stem=$(basename "$m" .runs)
	for f in "$v/$stem".[0-9]*.zst; do
		[ -e "$f" ] && mv "$f" "$v/$stem.zst"
	done
	rm -f "$m"
done
check "stores of before are read as they are" "$MPICRAWL" check --dir "$SCRATCH/old"
check "the crawl goes on from stores of before" crawl old $((ROUNDS - ROUNDS / 2))
check "from stores of before: the same CrawlDb" \
	cmp -s "$SCRATCH/ref.db" <(dump_db "$SCRATCH/old")
check "from stores of before: now in runs" \
	test -z "$(ls "$(version_dir "$SCRATCH/old")" | grep -E '^(lsh|sig)-[0-9]+\.zst$')"

# A damaged run: a few bytes inside overwritten (the size stays).
cp -a "$SCRATCH/ref" "$SCRATCH/dmg"
run=$(ls -S "$(version_dir "$SCRATCH/dmg")"/sig-*.[0-9]*.zst | head -1)
printf 'XXXXXXXX' | dd of="$run" bs=1 seek=200 conv=notrunc status=none
check "check names the damaged run" expect 1 "$(basename "$run")" \
	"$MPICRAWL" check --dir "$SCRATCH/dmg"
# The round checks each run's size against its manifest before it starts
# (reading every run whole would cost a round the whole store): a run cut
# or grown is refused then. Damage that keeps the size is found by check,
# or by the round that reads that run - not by a round that does not.
printf 'Y' >>"$run"
run_ranks 2 crawl --dir "$SCRATCH/dmg" --rounds 1 "${opts[@]}" >"$SCRATCH/refused.out" 2>&1
rc=$?
check "the round refuses a damaged run (exit $rc)" test "$rc" -ne 0
check "... naming it" grep -q "$(basename "$run")" "$SCRATCH/refused.out"
"$MPICRAWL" check --dir "$SCRATCH/dmg" --repair >"$SCRATCH/repair.out" 2>&1
check "check --repair drops the stores" grep -q "near-duplicate stores of CrawlDb version" \
	"$SCRATCH/repair.out"
check "then check finds nothing" "$MPICRAWL" check --dir "$SCRATCH/dmg"
check "and the crawl goes on" crawl dmg 1

# A missing run.
cp -a "$SCRATCH/ref" "$SCRATCH/gone"
run=$(ls "$(version_dir "$SCRATCH/gone")"/lsh-*.[0-9]*.zst | head -1)
rm -f "$run"
check "check names a missing run" expect 1 "$(basename "$run").*missing" \
	"$MPICRAWL" check --dir "$SCRATCH/gone"
finish

#!/usr/bin/env bash
# Crash, stop and resume. A 20-host x 20-page simweb is crawled once without
# interruption (the reference); then each trial kills a crawl of the same web
# inside one phase - inject, generate, fetch, parse or update, picked in turn
# - on 1, 2 or 4 ranks: SIGKILL of every rank, SIGKILL of one rank, or
# SIGTERM / SIGUSR1 ("stop soon") of every rank or of one. It resumes with
# `mpicrawl crawl` on the same directory on 1, 2 or 4 ranks and checks:
# - the killed run exits 75 when it was asked to stop (0 if it ended first);
# - the resumed crawl exits 0, and its CrawlDb equals the reference's (the
#   whole dump but the times, lib.sh's dump_db: depth, cash and which
#   near-duplicate leads too);
# - every WARC file reads back whole (`mpicrawl warc --check`), no URL has two
#   response records, and no journal or lock is left;
# - with the default round plan (generate.round_s = auto), a fetch killed
#   inside the round and resumed on 1, 2 or 3 ranks leaves the CrawlDb of a
#   crawl that was not, so its rounds hold what the uninterrupted one's do -
#   the next round's plan is made from the robots cache that fetch writes,
#   which must hold the robots.txt of hosts whose URLs all finished before
#   the kill;
# - the server log shows no request, after the kill, for a URL whose response
#   was already committed (its surviving WARC record is dated before the
#   resumed run started).
# Kill points come from MPICRAWL_TEST_KILL with random delays: the crawler
# under test is build/bin/mpicrawl-test, bin/mpicrawl with the kill hook of
# tests/hooks/kill.c, which the crawler itself does not contain. The trials
# are seeded: RESUME_SEED=N replays a run, RESUME_TRIALS=N changes their
# number (8 by default: every phase killed, inject, generate and fetch
# twice, on 1, 2 and 4 ranks; 10 kill each twice; a run is seeded afresh,
# so runs cover other points).
# Also: the directory lock (a second job is refused, naming the holder;
# `mpicrawl unlock` refuses a live holder and clears a stale one) and an
# external SIGTERM of a running crawl (exit 75, lock released).
. "$(dirname "$0")/lib.sh"
MPICRAWL=$ROOT/build/bin/mpicrawl-test
[ -x "$MPICRAWL" ] || { echo "not ok: $MPICRAWL missing (make all builds it)"; finish; exit 1; }

HOSTS=20
PAGES=20
DELAY=10
TRIALS=${RESUME_TRIALS:-8}
SEED=${RESUME_SEED:-$(( $(date +%s) % 100000 ))}
echo "seed: $SEED (replay with RESUME_SEED=$SEED $0)"
RANDOM=$SEED
T_START=$SECONDS

start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
# No round plan (generate.round_s=0) in these trials: the damaged crawls
# below are killed at a slower delay, and a plan counted from the delay
# would give their rounds other URLs than the reference's. At this delay a
# plan would not bind anyway (half a second is 51 URLs a host); the plan is
# tried apart, below, at a delay where it does.
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=$DELAY --set partition.count=8 --set fetch.sync_interval_ms=50
	--set generate.round_s=0)

# audit DIR LOG FROM_LINE RESUME_START_US: WARC records whole and unique,
# nothing committed fetched again after the kill.
audit() {
	python3 - "$@" <<'PY'
import sys, gzip, glob, os, calendar, time
d, log, from_line, t_resume = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def records(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        he = data.index(b"\r\n\r\n", i)
        head = data[i:he].decode("utf-8", "replace").split("\r\n")
        fields = {}
        for h in head[1:]:
            k, _, v = h.partition(":")
            fields[k.strip().lower()] = v.strip()
        n = int(fields["content-length"])
        yield fields
        i = he + 4 + n + 4
def when(s):   # 2026-11-22T05:14:04.123456Z -> us
    base, _, frac = s.rstrip("Z").partition(".")
    t = calendar.timegm(time.strptime(base, "%Y-%m-%dT%H:%M:%S"))
    return t * 1000000 + int((frac + "000000")[:6])
resp = {}
for path in glob.glob(os.path.join(d, "segments", "*", "warc", "*.warc.gz")):
    if "-robots" in os.path.basename(path):
        continue
    for f in records(path):
        if f.get("warc-type") == "response":
            resp.setdefault(f["warc-target-uri"], []).append(when(f["warc-date"]))
bad = 0
twice = [u for u, ts in resp.items() if len(ts) > 1]
if twice:
    bad += 1
    print("not ok: %d URLs with two response records, e.g. %s" % (len(twice), twice[:3]))
port = None
again = []
with open(log) as fp:
    for k, line in enumerate(fp):
        f = line.rstrip("\n").split("\t")
        if k < from_line or f[3] == "/robots.txt":
            continue
        for u, ts in resp.items():
            port = port or u.split(":")[2].split("/")[0]
            break
        url = "http://%s:%s%s" % (f[2], port, f[3])
        if url in resp and min(resp[url]) < t_resume:
            again.append(url)
if again:
    bad += 1
    print("not ok: %d committed URLs fetched again after the kill, e.g. %s" % (len(again), again[:3]))
sys.exit(1 if bad else 0)
PY
}

warc_whole() {
	local f
	for f in "$1"/segments/*/warc/*.warc.gz; do
		"$MPICRAWL" warc --check "$f" >/dev/null 2>&1 || { echo "not ok: damaged $f"; return 1; }
	done
}

no_leftovers() {
	local left
	left=$(find "$1" -name '*.journal' -o -name 'lock' -o -name '*.tmp.*' | head -3)
	[ -z "$left" ] || { echo "left over: $left"; return 1; }
}

# ---- the reference ----
check "reference crawl exits 0" run_ranks 2 crawl --dir "$SCRATCH/ref" --seeds "$SCRATCH/seeds" \
	"${opts[@]}" >"$SCRATCH/ref.out" 2>&1
dump_db "$SCRATCH/ref" >"$SCRATCH/ref.db"
echo "reference: $(wc -l <"$SCRATCH/ref.db") URLs in $((SECONDS - T_START)) s"

# ---- the lock ----
holder=
stop_holder() {
	[ -n "$holder" ] && kill -KILL "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	holder=
}
if [ -n "${KEEP_SCRATCH:-}" ]; then trap stop_holder EXIT; else trap 'stop_holder; cleanup' EXIT; fi
L=$SCRATCH/locked
# (bin/mpicrawl itself, not under timeout: the signals are for it)
"$MPICRAWL" crawl --dir "$L" --seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=300 \
	>"$SCRATCH/holder.out" 2>&1 &
holder=$!
for _ in $(seq 100); do
	grep -q '^pid=' "$L/lock" 2>/dev/null && break
	sleep 0.05
done
"$MPICRAWL" crawl --dir "$L" "${opts[@]}" >/dev/null 2>"$SCRATCH/second.err"
rc=$?
check "refused with exit 1" test "$rc" -eq 1
check "the refusal names the holder" grep -q "is in use by job -, pid [0-9]* on host $(hostname)" \
	"$SCRATCH/second.err"
"$MPICRAWL" unlock --dir "$L" >/dev/null 2>"$SCRATCH/unlock.err"
check "unlock refuses a live holder on this host" test $? -eq 1
check "unlock says why" grep -q "live process on this host" "$SCRATCH/unlock.err"
sleep 0.5
kill -TERM "$holder"
wait "$holder"
rc=$?
holder=
check "SIGTERM ends a crawl with exit 75 (was $rc)" test "$rc" -eq 75
check "a stopped crawl releases its lock" test ! -e "$L/lock"
# A lock whose holder died (SIGKILL) is taken over; unlock clears it too.
"$MPICRAWL" crawl --dir "$L" "${opts[@]}" --set politeness.delay_ms=300 >/dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do
	grep -q '^pid=' "$L/lock" 2>/dev/null && break
	sleep 0.05
done
kill -KILL "$holder"
wait "$holder" 2>/dev/null
holder=
check "SIGKILL leaves the lock file" test -e "$L/lock"
check "unlock clears a stale lock" "$MPICRAWL" unlock --dir "$L"
check "and then there is none" test ! -e "$L/lock"

# ---- the trials ----
phases=(inject generate fetch parse update)
ranks=(1 2 4)
modes=(kill-all kill-one stop-all stop-one)
stopped=0
killed=0
for ((i = 0; i < TRIALS; i++)); do
	phase=${phases[i % 5]}
	n=${ranks[i % 3]}   # 1, 2 and 4 ranks, each phase on two of them
	mode=${modes[(i + i / 5) % 4]}
	rr=${ranks[RANDOM % 3]}
	seg=$((1 + RANDOM % 3))
	case $phase in
	inject) seg=0 ms=$((RANDOM % 20)) ;;
	generate) ms=$((RANDOM % 20)) ;;
	fetch) ms=$((RANDOM % 700)) ;;
	*) ms=$((RANDOM % 60)) ;;
	esac
	rank=-1
	case $mode in *-one) rank=$((RANDOM % n)) ;; esac
	sig=9
	case $mode in stop-*) sig=$((RANDOM % 2 ? 15 : 10)) ;; esac
	inline=true
	[ "$phase" = parse ] && inline=false
	dir=$SCRATCH/t$i
	t0=$SECONDS
	MPICRAWL_TEST_KILL="$phase $seg $ms $rank $sig" run_ranks "$n" crawl --dir "$dir" \
		--seeds "$SCRATCH/seeds" "${opts[@]}" --set fetch.parse=$inline >"$dir.out1" 2>&1
	rc1=$?
	case $mode in
	stop-*)
		[ "$rc1" -eq 75 ] && stopped=$((stopped + 1))
		check "trial $i: a stopped crawl exits 75 (or 0 when it ended first; was $rc1)" \
			test "$rc1" -eq 75 -o "$rc1" -eq 0 ;;
	*) [ "$rc1" -ne 0 ] && killed=$((killed + 1)) ;;
	esac
	sleep 0.3   # simweb flushes its log every 100 ms
	from=$(wc -l <"$SIMWEB_LOG")
	t_resume=$(date +%s%6N)
	run_ranks "$rr" crawl --dir "$dir" --seeds "$SCRATCH/seeds" "${opts[@]}" \
		--set fetch.parse=$inline >"$dir.out2" 2>&1
	rc2=$?
	sleep 0.3
	echo "trial $i: $mode in $phase of segment $seg after $ms ms (rank $rank, signal $sig)" \
		"on $n ranks: exit $rc1; resumed on $rr ranks: exit $rc2; $((SECONDS - t0)) s"
	check "trial $i: resumed crawl exits 0" test "$rc2" -eq 0
	dump_db "$dir" >"$dir.db"
	if ! check "trial $i: CrawlDb equals the reference's" cmp -s "$SCRATCH/ref.db" "$dir.db"; then
		diff "$SCRATCH/ref.db" "$dir.db" | head -5
		tail -n 5 "$dir.out1" "$dir.out2"
	fi
	check "trial $i: WARC files whole" warc_whole "$dir"
	check "trial $i: no URL archived twice, nothing committed fetched again" \
		audit "$dir" "$SIMWEB_LOG" "$from" "$t_resume"
	check "trial $i: no journal, lock or temporary file left" no_leftovers "$dir"
	[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$dir"
done
echo "trials: $TRIALS ($killed killed, $stopped stopped early), $((SECONDS - T_START)) s in all"

# ---- with the round plan ----
# generate.round_s = auto at a 100 ms delay: the first rounds plan 0.5 s, 6
# URLs a host, fewer than the hosts found in them have due, so what the
# robots cache says of a host (its rules: denied URLs cost no request)
# decides which of its URLs the next round takes. A crawl of 4 rounds; each
# trial kills every rank inside the fetch of segment 2 or 3 while some hosts
# have finished that round's URLs and others have not (a kill there left
# another CrawlDb in 18 of 18 trials before the robots.txt of finished hosts
# went to the resumed fetch's robots cache), resumes on 1, 2 or 3 ranks
# until segment 4 is updated, and compares the whole dump but the times.
plan_opts=("${opts[@]}" --set generate.round_s=auto --set politeness.delay_ms=100)
PLAN_ROUNDS=4
T_PLAN=$SECONDS
check "reference crawl with the round plan exits 0" run_ranks 2 crawl --dir "$SCRATCH/pref" \
	--seeds "$SCRATCH/seeds" --rounds $PLAN_ROUNDS "${plan_opts[@]}" >"$SCRATCH/pref.out" 2>&1
check "the round plan binds (some URL capped by it)" \
	grep -q '"politeness_capped":[1-9]' "$SCRATCH/pref/segments/00002/_SUCCESS.generate"
dump_db "$SCRATCH/pref" >"$SCRATCH/pref.db"
for ((i = 0; i < 4; i++)); do
	seg=$((2 + i % 2))
	ms=$((seg == 2 ? 260 + RANDOM % 220 : 280 + RANDOM % 120))
	rr=$((1 + i % 3))
	dir=$SCRATCH/p$i
	MPICRAWL_TEST_KILL="fetch $seg $ms -1 9" run_ranks 2 crawl --dir "$dir" \
		--seeds "$SCRATCH/seeds" --rounds $PLAN_ROUNDS "${plan_opts[@]}" >"$dir.out1" 2>&1
	rc1=$?
	check "plan trial $i: the kill came inside the fetch" \
		test ! -e "$dir/segments/0000$seg/_SUCCESS.fetch"
	updated=$(ls "$dir"/segments/*/_SUCCESS.update 2>/dev/null | wc -l)
	run_ranks "$rr" crawl --dir "$dir" --seeds "$SCRATCH/seeds" \
		--rounds $((PLAN_ROUNDS - updated)) "${plan_opts[@]}" >"$dir.out2" 2>&1
	rc2=$?
	echo "plan trial $i: SIGKILL in fetch of segment $seg after $ms ms on 2 ranks: exit $rc1;" \
		"resumed on $rr ranks: exit $rc2, $(grep -c 'resuming an interrupted fetch' "$dir.out2")" \
		"ranks resumed a fetch"
	check "plan trial $i: resumed crawl exits 0" test "$rc2" -eq 0
	dump_db "$dir" >"$dir.db"
	if ! check "plan trial $i: CrawlDb equals the reference's, times aside" \
		cmp -s "$SCRATCH/pref.db" "$dir.db"; then
		diff "$SCRATCH/pref.db" "$dir.db" | head -4 | cut -c 1-300
	fi
	check "plan trial $i: no journal, lock or temporary file left" no_leftovers "$dir"
	[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$dir"
done
echo "round plan: a reference and 4 trials in $((SECONDS - T_PLAN)) s"

# ---- damage between the kill and the resume ----
# Each trial kills a 2-rank crawl inside the fetch of segment 2 (SIGKILL of
# every rank; for a damaged fetch outcome file, in the parse after it),
# damages one file, and resumes. It must end with the
# reference's CrawlDb (what was lost is fetched again), or with a refusal
# that names the damaged file - never exit 0 with less.
damage() {
	local kind=$1 dir=$2 f
	case $kind in
	warc-gone) rm -rf "$dir/segments/00002/warc"; echo "segments/00002/warc" ;;
	warc-cut)
		f=$(ls -S "$dir"/segments/00002/warc/*.warc.gz 2>/dev/null | grep -v robots | head -1)
		[ -n "$f" ] && truncate -s $(($(stat -c %s "$f") / 2)) "$f"
		basename "${f:-none}" ;;
	journal-gone) rm -f "$dir"/segments/00002/fetch/*.journal; echo "journal" ;;
	seen-damaged)
		for f in "$dir"/crawldb/0000*/seen-*.bloom; do echo garbage >"$f"; done
		echo "seen" ;;
	lsh-damaged)
		for f in "$dir"/crawldb/0000*/lsh-*.zst; do echo garbage >"$f"; done
		echo "lsh-" ;;
	meta-gone) rm -f "$dir/crawl.meta"; echo "crawl.meta" ;;
	fetch-part)
		f=$(ls "$dir"/segments/00002/fetch/part-*.zst "$dir"/segments/00002/fetch/*.pack \
			2>/dev/null | head -1)
		truncate -s 30 "$f"
		basename "$f" ;;
	esac
}
for kind in warc-gone warc-cut journal-gone seen-damaged lsh-damaged meta-gone fetch-part; do
	dir=$SCRATCH/d-$kind
	# A fetch outcome file is damaged after its fetch committed: the kill
	# then comes in the parse phase (not inside the fetcher). The killed run
	# is slower (50 ms delay) so that the kill lands inside the fetch; with
	# generate.round_s=0 (opts) its rounds hold what the reference's do.
	kill_at="fetch 2 300 -1 9" parse=true
	[ "$kind" = fetch-part ] && kill_at="parse 2 20 -1 9" parse=false
	MPICRAWL_TEST_KILL="$kill_at" run_ranks 2 crawl --dir "$dir" \
		--seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=50 \
		--set fetch.parse=$parse >"$dir.out1" 2>&1
	if [ "$kind" = fetch-part ]; then
		check "damage $kind: the kill came after the fetch" test -e "$dir/segments/00002/_SUCCESS.fetch"
	else
		check "damage $kind: the kill came inside the fetch" \
			test ! -e "$dir/segments/00002/_SUCCESS.fetch"
	fi
	named=$(damage "$kind" "$dir")
	run_ranks 2 crawl --dir "$dir" --seeds "$SCRATCH/seeds" "${opts[@]}" \
		--set fetch.parse=$parse >"$dir.out2" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		dump_db "$dir" >"$dir.db"
		check "damage $kind: resumed with the reference's CrawlDb" cmp -s "$SCRATCH/ref.db" "$dir.db"
		check "damage $kind: WARC files whole" warc_whole "$dir"
	else
		check "damage $kind: refused (exit $rc), naming $named" grep -q -- "$named" "$dir.out2"
	fi
	echo "damage $kind: resumed with exit $rc"
	[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$dir" "$dir".*
done
finish

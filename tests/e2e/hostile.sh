#!/usr/bin/env bash
# A crawl of simweb's hostile quarter (--hostile: drips, stalls, endless and
# lying bodies, compression bombs, redirect escapes to other schemes and to
# private addresses, link traps, parser and header bombs, failing DNS) mixed
# with a normal web, on 2 ranks. Checks:
# - every hostile URL the truth lists ends with the status it expects (a
#   URL ending in * stands for the URLs under it: trap, gone or dropped, and
#   at most TRAP_BOUND of them fetched);
# - every normal page is still fetched as the truth says;
# - no fetch phase runs past fetch.time_limit_s (plus a second of slack);
# - peak RSS per rank stays under RSS_BOUND_MB;
# - with the sanitized build (build-san/bin/mpicrawl, made here unless
#   SANITIZE_TESTS=0), the same crawl of its own web runs clean under
#   AddressSanitizer and UndefinedBehaviorSanitizer (any report fails it;
#   leaks are left to the unit tests, see below).
# Session ids are kept in URLs here (url.strip_session_ids=false): the
# quarter's session trap needs its ids, and must end by the crawler's trap
# rules rather than by canonicalisation.
. "$(dirname "$0")/lib.sh"

HOSTS=6
PAGES=15
TIME_LIMIT=20
RSS_BOUND_MB=512
TRAP_BOUND=12
SAN_BIN=$ROOT/build-san/bin/mpicrawl

settings() {
	# settings DNS_PORT: the crawl's settings against one web (scope.mode any:
	# the quarter links to bare addresses outside the seeds' domain, and what
	# is tested is that the fetcher refuses them)
	echo --set fetch.allow_addresses=127.0.0.1 --set "dns.servers=127.0.0.1:$1" \
		--set dns.timeout_ms=300 --set politeness.delay_ms=0 \
		--set politeness.max_in_flight=4 --set fetch.connect_timeout_s=3 \
		--set fetch.timeout_s=8 --set fetch.low_speed_bytes=100 \
		--set fetch.low_speed_time_s=3 --set url.strip_session_ids=false \
		--set fetch.time_limit_s=$TIME_LIMIT --set parse.max_links=300 \
		--set partition.count=8 --set scope.mode=any
}

# crawl NAME BIN: crawls web NAME with BIN on 2 ranks, each rank under
# /usr/bin/time (peak RSS in NAME.rss.RANK).
crawl() {
	local name=$1 bin=$2 dns=$3
	"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$4" >"$SCRATCH/$name.seeds"
	# shellcheck disable=SC2046
	timeout 600 mpirun --oversubscribe -n 2 bash -c \
		'exec /usr/bin/time -f %M -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"' \
		"$SCRATCH/$name" "$bin" crawl --dir "$SCRATCH/$name.crawl" \
		--seeds "$SCRATCH/$name.seeds" --rounds 16 $(settings "$dns") \
		>"$SCRATCH/$name.out" 2>&1
	echo $? >"$SCRATCH/$name.rc"
}

start_web web --hosts $HOSTS --pages $PAGES --hostile ||
	{ echo "not ok: web did not start"; finish; exit 1; }
PORT1=$SIMWEB_PORT DNS1=$DNS_PORT
"$SIMWEB" --truth --hosts $HOSTS --pages $PAGES --hostile --port "$PORT1" >"$SCRATCH/truth"

san=0
if [ "${SANITIZE_TESTS:-1}" != 0 ]; then
	if make --no-print-directory -C "$ROOT" -j2 B=build-san SANITIZE=address,undefined \
		WERROR=1 build-san/bin/mpicrawl >"$SCRATCH/san-build.log" 2>&1; then
		san=1
	else
		echo "not ok: sanitized build"
		tail -n 20 "$SCRATCH/san-build.log"
		T_FAILED=$((T_FAILED + 1))
	fi
fi
if [ "$san" = 1 ]; then
	start_web san --hosts $HOSTS --pages $PAGES --hostile ||
		{ echo "not ok: second web did not start"; finish; exit 1; }
	PORT2=$SIMWEB_PORT DNS2=$DNS_PORT
	# Leaks are checked by the unit tests and the fuzz replays: OpenMPI keeps
	# what it allocates (in components it unloads) until exit, which LSan
	# cannot tell from ours in a whole MPI run.
	(
		export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:log_path=$SCRATCH/asan
		export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$SCRATCH/ubsan
		crawl san "$SAN_BIN" "$DNS2" "$PORT2"
	) &
	san_pid=$!
fi
crawl plain "$MPICRAWL" "$DNS1" "$PORT1"
check "crawl of the hostile quarter exits 0" test "$(cat "$SCRATCH/plain.rc")" = 0
check "the crawl ends: nothing is left due" grep -q "the crawl is complete" "$SCRATCH/plain.out"
"$MPICRAWL" readdb --dir "$SCRATCH/plain.crawl" --dump >"$SCRATCH/dump"

# Truth URLs in the crawler's canonical form (session ids stripped, ...).
cut -f1 "$SCRATCH/truth" | sed 's/\*$//' >"$SCRATCH/truth.urls"
xargs -d '\n' "$MPICRAWL" url --set url.strip_session_ids=false -- <"$SCRATCH/truth.urls" \
	>"$SCRATCH/truth.canon"

python3 - "$SCRATCH" "$TRAP_BOUND" <<'EOF' >"$SCRATCH/audit" 2>&1
import json, sys
d, bound = sys.argv[1], int(sys.argv[2])
truth = [l.rstrip("\n").split("\t") for l in open(d + "/truth")]
canon = [l.rstrip("\n") for l in open(d + "/truth.canon")]
db = {}
for line in open(d + "/dump"):
    r = json.loads(line)
    db[r["url"]] = r["status"]
bad = []
normal = hostile = 0
prefixes = []
for t, c in zip(truth, canon):
    url = t[0]
    if len(t) == 2:
        normal += 1
        want = {"200": {"fetched", "duplicate"}, "301": {"redirect"}, "404": {"gone"}}[t[1]]
        if db.get(c) not in want:
            bad.append("normal %s: %s, want %s" % (url, db.get(c), "/".join(sorted(want))))
        continue
    hostile += 1
    exp = t[2]
    if url.endswith("*"):
        prefixes.append((url, exp))
        continue
    if exp == "dropped":
        if c in db:
            bad.append("hostile %s: in the CrawlDb (%s), want dropped" % (url, db[c]))
        continue
    want = {exp, "duplicate"} if exp == "fetched" else {exp}
    if db.get(c) not in want:
        bad.append("hostile %s: %s, want %s" % (url, db.get(c), exp))
own = set(canon)
for url, exp in prefixes:
    pre = url[:-1]
    under = {u: s for u, s in db.items() if u.startswith(pre) and u not in own}
    fetched = [u for u, s in under.items() if s in ("fetched", "duplicate")]
    odd = [u for u, s in under.items()
           if s not in ("fetched", "duplicate", exp) and not (exp == "dropped")]
    if exp == "dropped" and under:
        bad.append("%s: %d URLs in the CrawlDb, want none" % (url, len(under)))
    if len(fetched) > bound:
        bad.append("%s: %d URLs fetched, bound %d" % (url, len(fetched), bound))
    if odd:
        bad.append("%s: %s is %s, want %s" % (url, odd[0], under[odd[0]], exp))
    print("%s: %d in the CrawlDb, %d fetched, %d %s" % (url, len(under), len(fetched),
          sum(1 for s in under.values() if s == exp), exp))
print("normal %d, hostile %d, problems %d" % (normal, hostile, len(bad)))
for b in bad:
    print("  " + b)
print("PASS" if not bad else "FAIL")
EOF
cat "$SCRATCH/audit"
check "every hostile URL has its status, every normal page is fetched" grep -qx PASS "$SCRATCH/audit"

longest=$(python3 -c '
import json, glob, sys
print(max(json.load(open(f)).get("fetch", {}).get("seconds", 0)
          for f in glob.glob(sys.argv[1] + "/segments/*/stats.json")))' "$SCRATCH/plain.crawl")
echo "longest fetch phase: $longest s (limit $TIME_LIMIT s)"
check "no fetch phase past the time limit" \
	python3 -c "import sys; sys.exit(0 if $longest <= $TIME_LIMIT + 1 else 1)"
# The links the parser left out are in the decision log, with their page:
# past parse.max_links (the link farm) and too long (the long-URL host).
for s in "$SCRATCH"/plain.crawl/segments/*; do
	"$MPICRAWL" readdb --dir "$SCRATCH/plain.crawl" --decisions --segment "$((10#${s##*/}))"
done >"$SCRATCH/decisions" 2>/dev/null
check "the decision log names links past parse.max_links, from the link farm" \
	grep -q '"reason":"max-links","from":"http://x0012\.' "$SCRATCH/decisions"
check "the decision log names links too long to be URLs" \
	grep -q '"reason":"too-long","from":"http://x0013\.' "$SCRATCH/decisions"
for r in 0 1; do
	kb=$(tail -n 1 "$SCRATCH/plain.rss.$r" 2>/dev/null || echo 0)
	echo "rank $r: peak RSS $((kb / 1024)) MiB (bound $RSS_BOUND_MB)"
	check "rank $r peak RSS under $RSS_BOUND_MB MiB" test "$((kb / 1024))" -lt "$RSS_BOUND_MB"
done

if [ "$san" = 1 ]; then
	wait "$san_pid"
	check "sanitized crawl exits 0" test "$(cat "$SCRATCH/san.rc")" = 0
	reports=$(cat "$SCRATCH"/asan.* "$SCRATCH"/ubsan.* 2>/dev/null | grep -c "ERROR\|runtime error")
	if [ "$reports" -gt 0 ]; then
		cat "$SCRATCH"/asan.* "$SCRATCH"/ubsan.* 2>/dev/null | head -n 60
	fi
	grep -h "runtime error" "$SCRATCH/san.out" | head -n 5
	check "no sanitizer report in the sanitized crawl" test "$reports" -eq 0 -a \
		"$(grep -c 'runtime error\|AddressSanitizer' "$SCRATCH/san.out")" -eq 0
fi
finish

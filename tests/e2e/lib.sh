# Shared by the end-to-end tests: a scratch directory removed on exit, the
# local web (simweb + dnsmasq) stopped on exit, MPI settings for root and
# oversubscription, and check/finish that print the result line tests/run.sh
# adds up. Source it; do not run it.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MPICRAWL=$ROOT/bin/mpicrawl
SIMWEB=$ROOT/bin/simweb
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A plain run of OpenMPI on a machine without a high-speed network: quiet.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_rmaps_base_oversubscribe=1
T_PASSED=0
T_FAILED=0
T_SKIPPED=0
WEBS=()
TLSWEBS=()
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/mpicrawl-test.XXXXXX")

cleanup() {
	local w
	for w in "${WEBS[@]}"; do
		"$ROOT/scripts/webenv.sh" stop "$w" >/dev/null 2>&1 || true
	done
	for w in "${TLSWEBS[@]}"; do
		"$ROOT/scripts/tlsweb.sh" stop "$w" >/dev/null 2>&1 || true
	done
	rm -rf "$SCRATCH"
}
[ -n "${KEEP_SCRATCH:-}" ] || trap cleanup EXIT

check() {
	# check "what" command...   passes when the command succeeds; returns
	# its verdict, so that `if ! check ...` can say more
	local what=$1
	shift
	if "$@"; then
		T_PASSED=$((T_PASSED + 1))
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok: $what"
		return 1
	fi
}

# skip N "why": N checks that cannot run here (the public conformance
# suites are missing), said in one line.
skip() {
	T_SKIPPED=$((T_SKIPPED + $1))
	echo "skip: $2"
}

# The conformance suites beside the repository, or where CONFORMANCE_DIR says.
CONFORMANCE_DIR=${CONFORMANCE_DIR:-$ROOT/../shared/conformance}

# expect CODE PATTERN cmd...: exit code CODE and stderr matching PATTERN
# (stdout and stderr kept in $SCRATCH/out and $SCRATCH/err).
expect() {
	local code=$1 pat=$2 rc
	shift 2
	"$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
	rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qE -- "$pat" "$SCRATCH/err"; then
		echo "got exit $rc (want $code), stderr: $(head -c 400 "$SCRATCH/err")"
		return 1
	fi
}

finish() {
	if [ "$T_SKIPPED" -gt 0 ]; then
		echo "result: $T_PASSED passed, $T_FAILED failed, $T_SKIPPED skipped"
	else
		echo "result: $T_PASSED passed, $T_FAILED failed"
	fi
	[ "$T_FAILED" -eq 0 ]
}

# start_web NAME simweb-args...: starts a web in $SCRATCH/NAME, sources its env.
start_web() {
	local name=$1
	shift
	"$ROOT/scripts/webenv.sh" start "$SCRATCH/$name" "$@" >/dev/null || return 1
	WEBS+=("$SCRATCH/$name")
	# shellcheck disable=SC1091
	. "$SCRATCH/$name/env"
}

# start_tlsweb NAME tlsweb-args...: starts nginx's HTTPS web (scripts/tlsweb.sh)
# in $SCRATCH/NAME, sources its env.
start_tlsweb() {
	local name=$1
	shift
	"$ROOT/scripts/tlsweb.sh" start "$SCRATCH/$name" "$@" >/dev/null || return 1
	TLSWEBS+=("$SCRATCH/$name")
	# shellcheck disable=SC1091
	. "$SCRATCH/$name/env"
}

# nodes_web DIR HOSTS PAGES: on the web node of the cluster in DIR
# (tests/nodes/nodes.sh, its env sourced), the local web of HOSTS x PAGES;
# sources its env, writes its seeds to $SCRATCH/seeds and the lines a crawl
# from the cluster's nodes needs (its addresses allowed, its DNS) to
# $SCRATCH/web.conf.
nodes_web() {
	local dir=$1 hosts=$2 pages=$3
	WEB_ADDR=$NODES_WEB_ADDR "$ROOT/tests/nodes/nodes.sh" exec "$dir" web \
		"$ROOT/scripts/webenv.sh" start "$dir/web" --hosts "$hosts" --pages "$pages" \
		>/dev/null || return 1
	# shellcheck disable=SC1091
	. "$dir/web/env"
	"$SIMWEB" --seeds --hosts "$hosts" --pages "$pages" --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
	printf 'fetch.allow_addresses = %s.0/24\ndns.servers = %s:%s\n' "$NODES_UPLINK" \
		"$NODES_WEB_ADDR" "$DNS_PORT" >"$SCRATCH/web.conf"
}

# run_ranks N args...: runs bin/mpicrawl on N ranks (a plain run for 1).
# Under mpirun a clean stop ends the ranks with 0 and DIR/last_job says 75
# for this run: returned, as scripts/mpicrawl-run does.
run_ranks() {
	local n=$1 a prev= dir= rc
	shift
	if [ "$n" -eq 1 ]; then
		timeout 600 "$MPICRAWL" "$@"
		return
	fi
	for a in "$@"; do
		[ "$prev" = --dir ] && dir=$a
		prev=$a
	done
	export MPICRAWL_RUN_ID="test-$$-$RANDOM-$(date +%s%N)"
	timeout 600 mpirun -x MPICRAWL_RUN_ID --oversubscribe -n "$n" "$MPICRAWL" "$@"
	rc=$?
	if [ "$rc" -eq 0 ] && [ -n "$dir" ] &&
		grep -qx "run=$MPICRAWL_RUN_ID" "$dir/last_job" 2>/dev/null; then
		rc=$(sed -n 's/^exit=\([0-9]*\)$/\1/p' "$dir/last_job")
	fi
	unset MPICRAWL_RUN_ID
	return "${rc:-0}"
}

# The CrawlDb as sorted JSON lines without the times.
# pages_warcs DIR: the WARC files of the pages series in folder DIR (not
# robots.txt, diagnostics or sitemaps), one a line.
pages_warcs() {
	ls "$1"/*.warc.gz "$1"/*.warc.zst 2>/dev/null |
		grep -vE -- '-(robots|diagnostics|sitemaps)\.warc\.(gz|zst)$'
}

early_robots() {
	# early_robots CRAWLDIR: passes when some robots.txt of a new host was asked
	# in the round that found the link (the fetch counter robots_early, summed
	# over the segments), and prints the sum
	local n
	n=$(cat "$1"/segments/*/stats.json 2>/dev/null | grep -o '"robots_early":[0-9]*' |
		awk -F: '{ s += $2 } END { print s + 0 }')
	echo "robots.txt asked early: $n"
	[ "$n" -gt 0 ]
}

early_hints() {
	# early_hints CRAWLDIR: passes when some link to another rank's new host
	# was passed on to it (the fetch counter early_hints, summed), and prints
	# the sum
	local n
	n=$(cat "$1"/segments/*/stats.json 2>/dev/null | grep -o '"early_hints":[0-9]*' |
		awk -F: '{ s += $2 } END { print s + 0 }')
	echo "links passed on as hints: $n"
	[ "$n" -gt 0 ]
}

dump_db() {
	"$MPICRAWL" readdb --dir "$1" --dump |
		sed -E 's/"fetched_at":[0-9]+,"next_fetch":[0-9]+,//' | LC_ALL=C sort
}

# audit_log LOG TRUTH PORT DELAY_MS: the server-side checks of a whole crawl:
# every truth URL fetched once with its status, nothing else but robots.txt
# (once per host), nothing disallowed, no two requests to a host closer
# than the delay.
audit_log() {
	# audit_log LOG TRUTH PORT: the server-side checks, in python3.
	python3 - "$@" <<'PY'
import sys, collections
log, truth, port, delay_ms = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
want = {}
for line in open(truth):
    url, status = line.rstrip("\n").split("\t")
    want[url] = int(status)
got = collections.Counter()
status = {}
robots = collections.Counter()
disallowed = []
starts = collections.defaultdict(list)
for line in open(log):
    f = line.rstrip("\n").split("\t")
    t0, t1, host, path, st, conn, flag = int(f[0]), int(f[1]), f[2], f[3], int(f[4]), f[5], f[6]
    starts[host].append((t0, t1))
    if flag == "disallowed":
        disallowed.append(host + path)
    if path == "/robots.txt":
        robots[host] += 1
        continue
    url = "http://%s:%s%s" % (host, port, path)
    got[url] += 1
    status[url] = st
bad = 0
missing = [u for u in want if got[u] == 0]
twice = [u for u in got if got[u] > 1]
extra = [u for u in got if u not in want]
wrong = [u for u in want if u in status and status[u] != want[u]]
close = []
for host, ts in starts.items():
    ts.sort()
    for a, b in zip(ts, ts[1:]):
        if b[0] - a[0] < delay_ms * 1000:
            close.append((host, b[0] - a[0]))
for name, items in (("missing", missing), ("fetched twice", twice), ("not in truth", extra),
                    ("wrong status", wrong), ("disallowed fetched", disallowed),
                    ("requests closer than the delay", close),
                    ("robots.txt fetched more than once", [h for h in robots if robots[h] > 1])):
    if items:
        bad += 1
        print("not ok: %d %s, e.g. %s" % (len(items), name, items[:3]))
print("audit: %d truth URLs, %d requests, %d hosts" % (len(want), sum(got.values()), len(starts)))
sys.exit(1 if bad else 0)
PY
}

#!/usr/bin/env bash
# The benchmarks behind `make bench` (docs/PERFORMANCE.md says what they
# measure and what we measured). Four of them, on this machine, loopback only:
#
#   A. Crawl throughput against wget2: one simweb (200 hosts x 250 pages) is
#      crawled completely by mpicrawl on 2 ranks and by wget2 -r with 16
#      threads; each tool's requests are the server log lines it added.
#      Both also crawl it over https, through Debian's nginx in front of
#      simweb (TLS 1.3, HTTP/2, gzip; a CA made for the run).
#   B. Scale: 10,000,000 generated seed URLs on 2 ranks under
#      memory.budget_mb=256: inject, generate, a synthetic fetch + parse
#      (bench/mkseg.c, no network) and update, each timed with peak RSS per rank.
#   C. Politeness efficiency (bench/politeness.sh): one simweb (100 hosts x 30
#      pages) crawled completely by mpicrawl on 2 ranks at the default
#      politeness (1 s delay, one request per host), then by scrapy with the
#      same delay; violations and efficiency against hosts / delay from the
#      server's request log. Takes about 6 minutes.
#   D. One core's MinHash signatures per second (pages and MB) and Bloom
#      filter lookups per second (bench/micro.c).
#   E. Harvest (bench/harvest.sh): a 20,000-page power-law simweb crawled
#      under a budget of 5 % of its pages a round, breadth first and by
#      OPIC score; the PageRank mass fetched against pages fetched, with
#      the omniscient order as the bound. About a minute.
#   F. Freshness (bench/freshness.sh): a 1,000-page simweb whose pages
#      change at rates from hourly to yearly, crawled one round a simulated
#      day for 90 days under a budget of 100 fetches a day, once per
#      recrawl.policy; the time-averaged freshness simweb measures, against
#      the optimum computed from the true rates.
#   G. Across nodes (bench/nodes.sh): one crawl on 1 node x 4 ranks and on
#      4 nodes x 1 rank of a cluster of network namespaces (tests/nodes/):
#      wall time and the bytes the ranks sent each other per round. Needs
#      root; skipped otherwise.
#   H. Weak scaling (bench/weak.sh): the URLs per rank fixed, 1, 2, 4 and 8
#      ranks on the same node harness: per round, the mean rank's CPU and
#      bytes sent, and generate + update wall. Needs root; skipped otherwise.
#
# Prints progress on stderr and, at the end, the results as markdown on
# stdout (also written to BENCH_RESULTS if set). The local web, every
# process we started and the scratch directory go away on exit
# (KEEP_SCRATCH=1 keeps the directory). Exit status: 0 measured and every
# floor met; 3 measured but a floor not met; 1 a step failed or the machine
# lacks something.
#
# Knobs (environment): BENCH_ONLY=A|B|C|D|E|F|G|H, BENCH_A_RUNS=2, BENCH_A_HOSTS=200,
# BENCH_A_PAGES=250, BENCH_A_IN_FLIGHT=4, BENCH_A_THREADS=16,
# BENCH_A_BASELINE=PATH (A also runs this mpicrawl binary - an earlier
# commit's build - interleaved with the others, for a before/after),
# BENCH_A_PAGE_SIZES="0 25000" (A runs once per simweb --page-bytes value),
# BENCH_B_HOSTS=100000, BENCH_B_PATHS=100, BENCH_B_LINKS=10,
# BENCH_B_BUDGET_MB=256, BENCH_B_PARTITIONS=64, BENCH_B_MAX_PER_HOST=0, BENCH_B_STEP_S=600,
# BENCH_C_HOSTS=100, BENCH_C_PAGES=30, BENCH_C_SCRAPY=1, BENCH_C_EFFICIENCY=0.95,
# BENCH_E_HOSTS=100, BENCH_E_PAGES=200, BENCH_E_SHARE=5, BENCH_E_ROUNDS=9, BENCH_E_FLOOR=1.3,
# BENCH_F_HOSTS=20, BENCH_F_PAGES=50, BENCH_F_BUDGET=100, BENCH_F_DAYS=90, BENCH_F_FROM=30,
# BENCH_F_FLOOR=0.95, BENCH_F_POLICIES="fixed adaptive nutch freshness",
# BENCH_G_HOSTS=60, BENCH_G_PAGES=60, BENCH_G_DELAY_MS=100,
# BENCH_DEADLINE_S=1500, BENCH_RESULTS=FILE, KEEP_SCRATCH=1.
set -u
set -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPICRAWL=$ROOT/bin/mpicrawl
SIMWEB=$ROOT/bin/simweb
WEBENV=$ROOT/scripts/webenv.sh
TIME=/usr/bin/time
RANKS=2

ONLY=${BENCH_ONLY:-}
A_HOSTS=${BENCH_A_HOSTS:-200}
A_PAGES=${BENCH_A_PAGES:-250}
A_IN_FLIGHT=${BENCH_A_IN_FLIGHT:-4}
A_THREADS=${BENCH_A_THREADS:-16}
A_RUNS=${BENCH_A_RUNS:-2}
A_BASELINE=${BENCH_A_BASELINE:-}
A_PAGE_SIZES=${BENCH_A_PAGE_SIZES:-0 25000}
B_HOSTS=${BENCH_B_HOSTS:-100000}
B_PATHS=${BENCH_B_PATHS:-100}
B_LINKS=${BENCH_B_LINKS:-10}
B_BUDGET=${BENCH_B_BUDGET_MB:-256}
B_PARTS=${BENCH_B_PARTITIONS:-64}
B_MAX_PER_HOST=${BENCH_B_MAX_PER_HOST:-0}
B_STEP_S=${BENCH_B_STEP_S:-600}
DEADLINE_S=${BENCH_DEADLINE_S:-1500}

# OpenMPI as the tests run it (tests/e2e/lib.sh): root allowed, loopback only.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_rmaps_base_oversubscribe=1
export LC_ALL=C

T_START=$SECONDS
FAILED=0
FLOOR_MISSED=0
WEB=
DU_PID=
WORK=

# Messages go to the stderr the script started with (fd 3): a trap can run
# while a command's output is redirected to a file.
exec 3>&2
say() { echo "bench: $*" >&3; }
die() {
	say "$*"
	exit 1
}

# bg_run CMD...: runs CMD in the background and waits for it, so that a
# signal reaches our trap at once rather than when CMD ends. CMD is
# /usr/bin/time over `timeout`, which leads a process group of its own.
CHILD=
bg_run() {
	local rc
	"$@" &
	CHILD=$!
	wait "$CHILD"
	rc=$?
	CHILD=
	return "$rc"
}

# Stops what bg_run started: the process group of each child of the
# /usr/bin/time it started (timeout and everything under it), then time.
stop_child() {
	local c=$CHILD p
	[ -n "$c" ] || return 0
	for p in $(pgrep -P "$c" 2>/dev/null); do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
	kill -TERM "$c" 2>/dev/null
	wait "$c" 2>/dev/null
	CHILD=
}

cleanup() {
	stop_child
	if [ -n "${DU_PID:-}" ]; then
		kill "$DU_PID" 2>/dev/null
		wait "$DU_PID" 2>/dev/null
	fi
	https_stop
	[ -n "${G_C:-}" ] && g_down
	if [ -n "$WEB" ] && [ -f "$WEB/env" ]; then
		"$WEBENV" stop "$WEB" >/dev/null 2>&1 || say "could not stop the web in $WEB"
	fi
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		if [ -n "${KEEP_SCRATCH:-}" ]; then
			say "kept $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
for v in A_HOSTS A_PAGES A_IN_FLIGHT A_THREADS A_RUNS B_HOSTS B_PATHS B_LINKS B_BUDGET B_PARTS \
	B_MAX_PER_HOST B_STEP_S DEADLINE_S; do
	is_uint "${!v}" || die "$v='${!v}' is not a number"
done
case $ONLY in "" | A | B | C | D | E | F | G | H) ;; *) die "BENCH_ONLY must be A, B, C, D, E, F, G or H" ;; esac
[ "$A_HOSTS" -le 10000 ] || die "simweb serves at most 10000 hosts"

# ---- what the machine must have ----

{ [ -x "$MPICRAWL" ] && [ -x "$SIMWEB" ]; } || die "build first: make -j2 all"
[ -f "$ROOT/build/libcore.a" ] || die "no build/libcore.a: run make -j2 all"
command -v mpirun >/dev/null || die "mpirun not found (Debian: openmpi-bin)"
command -v python3 >/dev/null || die "python3 not found"
if [ ! -x "$TIME" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		say "installing Debian package 'time' for $TIME"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null ||
			die "cannot install 'time'"
	fi
	[ -x "$TIME" ] || die "$TIME missing: install the Debian package 'time'"
fi
HAVE_WGET2=1
command -v wget2 >/dev/null || { HAVE_WGET2=0; say "wget2 not found: benchmark A runs without it"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mpicrawl-bench.XXXXXX") || die "cannot make a scratch directory"
RES=$WORK/results-latest.md
: >"$RES"
md() { printf '%s\n' "$*" >>"$RES"; }

left_s() { echo $((DEADLINE_S - (SECONDS - T_START))); }
# step_timeout CAP: seconds a step may take: CAP, or what is left of the deadline.
step_timeout() {
	local l
	l=$(left_s)
	[ "$l" -lt 1 ] && l=1
	[ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}

# The numbers /usr/bin/time wrote (the last line; a failed command adds one before).
# Prints "wall user sys maxrss_kb", or nothing.
time_of() { [ -s "$1" ] && tail -n 1 "$1" | awk 'NF >= 4 { print $1, $2, $3, $4 }'; }

# mpi_timed NAME TIMEOUT mpicrawl-args...: runs mpicrawl on $RANKS ranks with
# each rank under /usr/bin/time ($WORK/NAME.rank.R) and mpirun too
# ($WORK/NAME.time; its rusage includes the ranks it waited for). The
# output goes to $WORK/NAME.out. Returns mpirun's status.
mpi_timed() {
	local name=$1 limit=$2
	shift 2
	rm -f "$WORK/$name".time "$WORK/$name".rank.*
	bg_run "$TIME" -f '%e %U %S %M' -o "$WORK/$name.time" \
		timeout -k 10 "$limit" mpirun --oversubscribe -n "$RANKS" \
		bash -c 'exec "$1" -f "%e %U %S %M %O" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "${@:2}"' \
		"$WORK/$name.rank" "$TIME" "$MPICRAWL" "$@" >"$WORK/$name.out" 2>&1
}

# read_time FILE: sets T_WALL T_CPU (user+sys) T_RSS_MB from a /usr/bin/time file.
read_time() {
	local t
	t=$(time_of "$1")
	[ -n "$t" ] || t="0 0 0 0"
	read -r T_WALL T_CPU T_RSS_MB < <(echo "$t" |
		awk '{ printf "%s %.1f %d\n", $1, $2 + $3, $4 / 1024 }')
}

# rank_rss NAME: sets RSS_STR ("r0 / r1 / ..." peak RSS of each rank, MiB)
# and MAX_RSS_MB.
rank_rss() {
	local r
	RSS_STR=""
	MAX_RSS_MB=0
	for ((r = 0; r < RANKS; r++)); do
		read_time "$WORK/$1.rank.$r"
		RSS_STR+="${RSS_STR:+ / }$T_RSS_MB"
		[ "$T_RSS_MB" -gt "$MAX_RSS_MB" ] && MAX_RSS_MB=$T_RSS_MB
	done
}

# rank_written NAME: sets WRITTEN_MB, the bytes every rank of step NAME
# wrote to the filesystem (getrusage's blocks out, 512 bytes each).
rank_written() {
	local r b=0 o
	for ((r = 0; r < RANKS; r++)); do
		o=$(tail -n 1 "$WORK/$1.rank.$r" 2>/dev/null | awk 'NF >= 5 { print $5 }')
		b=$((b + ${o:-0}))
	done
	WRITTEN_MB=$((b * 512 / 1048576))
}

# commas N: 10000000 -> 10,000,000
commas() { echo "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }

# Helpers in python3: the server log audit and the crawl directory's phase files.
cat >"$WORK/helper.py" <<'PY'
import collections, glob, json, os, sys

def success(path):
    # The JSON object at the start of a _SUCCESS file, and whether other
    # bytes follow it (they are ignored).
    s = open(path, 'rb').read().decode('latin-1')
    try:
        d, end = json.JSONDecoder().raw_decode(s)
    except ValueError:
        return {}, True
    return d, s[end:].strip() != ''

cmd = sys.argv[1]
if cmd == 'log':
    # log LOG TRUTH PORT -> requests robots s2 s3 s4 other distinct dups covered truth extra disallowed
    log, truth, port = sys.argv[2], sys.argv[3], sys.argv[4]
    want = set(l.split('\t', 1)[0] for l in open(truth))
    got = collections.Counter()
    robots = dis = 0
    st = collections.Counter()
    for line in open(log):
        f = line.rstrip('\n').split('\t')
        if len(f) < 7:
            continue
        st[f[4][0] if f[4][:1] in '234' else 'o'] += 1
        if f[6] == 'disallowed':
            dis += 1
        if f[3] == '/robots.txt':
            robots += 1
            continue
        path = f[3]
        if path.startswith('http://') or path.startswith('HTTP://'):
            path = '/' + path.split('/', 3)[3] if path.count('/') >= 3 else '/'
        got['http://%s:%s%s' % (f[2], port, path)] += 1
    n = sum(got.values()) + robots
    covered = sum(1 for u in got if u in want)
    extra = sum(1 for u in got if u not in want)
    dups = sum(got.values()) - len(got)
    print(n, robots, st['2'], st['3'], st['4'], st['o'], len(got), dups, covered, len(want), extra, dis)
elif cmd == 'phases':
    # phases CRAWLDIR -> rounds gen_s fetch_s parse_s update_s dns_queries damaged_success_files
    secs = collections.Counter()
    dns = damaged = 0
    segs = sorted(glob.glob(os.path.join(sys.argv[2], 'segments', '*')))
    for seg in segs:
        for ph in ('generate', 'fetch', 'parse', 'update'):
            p = os.path.join(seg, '_SUCCESS.' + ph)
            if not os.path.exists(p):
                continue
            d, bad = success(p)
            damaged += bad
            secs[ph] += d.get('seconds', 0)
            dns += d.get('counters', {}).get('dns_queries', 0) if ph == 'fetch' else 0
    print(len(segs), '%.1f' % secs['generate'], '%.1f' % secs['fetch'], '%.1f' % secs['parse'],
          '%.1f' % secs['update'], dns, damaged)
PY
helper() { python3 "$WORK/helper.py" "$@"; }

# ---- the machine ----

NCPU=$(nproc)
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MEM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || REV="$REV (src/ modified)"
md "# mpicrawl benchmarks, $(date -u +%Y-%m-%dT%H:%MZ)"
md ""
md "- machine: $(nproc) CPUs ($CPU_MODEL), ${MEM_MB} MiB RAM, Linux $(uname -r)"
md "- mpicrawl $REV; $(mpirun --version 2>/dev/null | head -n 1); libcurl $(curl-config --version 2>/dev/null | awk '{ print $2 }')$([ "$HAVE_WGET2" = 1 ] && echo "; $(wget2 --version 2>/dev/null | head -n 1 | sed 's/ - .*//')")"
md "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine skew the figures)"
md ""

# ---- A: crawl throughput against wget2 ----

# Seconds of CPU the server used so far (utime + stime from /proc).
server_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' \
		"/proc/$SIMWEB_PID/stat" 2>/dev/null || echo 0
}

# a_row NAME RUN LABEL WALL CPU RSS LOGSLICE SERVER_CPU SETTINGS: audits
# the log slice; keeps the table row and the wall time of run RUN of NAME.
a_row() {
	local name=$1 run=$2 label=$3 wall=$4 cpu=$5 rss=$6 log=$7 scpu=$8 note=$9
	local n robots s2 s3 s4 dups covered want extra pps cpp
	read -r n robots s2 s3 s4 _ _ dups covered want extra _ \
		< <(helper log "$log" "$WORK/truth" "$SIMWEB_PORT") || return 1
	pps=$(awk -v n="$n" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? n / w : 0) }')
	cpp=$(awk -v n="$n" -v c="$cpu" 'BEGIN { printf "%.3f", (n > 0 ? c * 1000 / n : 0) }')
	A_ROW["$name.$run"]="| $label | @WALL@ | $n | $pps | $cpu | $cpp | $rss | $scpu | $covered / $want | $s2 / $s3 / $s4 | $robots | $dups | $extra | $note |"
	A_WALL["$name.$run"]=$wall
	A_PPS["$name.$run"]=$pps
	A_CPP["$name.$run"]=$cpp
	A_REQ["$name.$run"]=$n
	A_SCPU["$name.$run"]=$scpu
	say "A: $name run $run: $wall s, $n requests ($pps/s), CPU $cpu s, peak RSS $rss MiB"
}

# a_best NAME: sets BEST_RUN (the run of NAME with the least wall time) and
# ALL_WALLS; false if no run of NAME succeeded.
a_best() {
	local r
	BEST_RUN=
	ALL_WALLS=
	for ((r = 1; r <= A_RUNS; r++)); do
		[ -n "${A_WALL[$1.$r]:-}" ] || continue
		ALL_WALLS+="${ALL_WALLS:+, }${A_WALL[$1.$r]}"
		if [ -z "$BEST_RUN" ] ||
			awk -v a="${A_WALL[$1.$r]}" -v b="${A_WALL[$1.$BEST_RUN]}" 'BEGIN { exit !(a < b) }'; then
			BEST_RUN=$r
		fi
	done
	[ -n "$BEST_RUN" ]
}

# run_wget2 NAME RUN extra-args...: sets wall cpu rss scpu; log slice in $WORK/NAME.RUN.log
run_wget2() {
	local name=$1.$2 before lim rc scpu0
	shift 2
	mkdir -p "$WORK/$name.files"
	before=$(wc -l <"$SIMWEB_LOG")
	scpu0=$(server_cpu)
	lim=$(step_timeout 300)
	if [ "$WGET2_DNS" = hosts ]; then
		bg_run "$TIME" -f '%e %U %S %M' -o "$WORK/$name.time" timeout -k 10 "$lim" \
			unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$WORK/hosts" \
			wget2 "${WGET2_ARGS[@]}" "$@" -P "$WORK/$name.files" -i "${A_SEEDS:-$WORK/seeds}" \
			>"$WORK/$name.out" 2>&1
	else
		bg_run "$TIME" -f '%e %U %S %M' -o "$WORK/$name.time" timeout -k 10 "$lim" \
			wget2 "${WGET2_ARGS[@]}" "$@" -P "$WORK/$name.files" -i "${A_SEEDS:-$WORK/seeds}" \
			>"$WORK/$name.out" 2>&1
	fi
	rc=$?
	sleep 0.3   # simweb flushes its log every 100 ms
	scpu=$(awk -v a="$(server_cpu)" -v b="$scpu0" 'BEGIN { printf "%.1f", a - b }')
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$WORK/$name.log"
	rm -rf "$WORK/$name.files"
	# wget2 exits 8 when the server answered an error (the 404 pages): expected.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 8 ]; then
		say "A: $name failed (exit $rc); the end of its output:"
		tail -n 5 "$WORK/$name.out" >&3
		FAILED=1
		return 1
	fi
	read_time "$WORK/$name.time"
	wall=$T_WALL cpu=$T_CPU rss=$T_RSS_MB
}

# run_mpicrawl NAME RUN extra --set args...: as run_wget2, for a whole crawl
# into a fresh directory; also keeps the phase summary in A_PHASES.
run_mpicrawl() {
	local name=$1.$2 before lim rc scpu0 rounds g f p u dns damaged
	shift 2
	before=$(wc -l <"$SIMWEB_LOG")
	scpu0=$(server_cpu)
	lim=$(step_timeout 300)
	mpi_timed "$name" "$lim" crawl --dir "$WORK/$name.crawl" --seeds "${A_SEEDS:-$WORK/seeds}" \
		--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
		--set politeness.delay_ms=0 --set "politeness.max_in_flight=$A_IN_FLIGHT" "$@"
	rc=$?
	sleep 0.3
	scpu=$(awk -v a="$(server_cpu)" -v b="$scpu0" 'BEGIN { printf "%.1f", a - b }')
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$WORK/$name.log"
	if [ "$rc" -ne 0 ]; then
		say "A: $name failed (exit $rc); the end of its output:"
		tail -n 5 "$WORK/$name.out" >&3
		FAILED=1
		return 1
	fi
	read_time "$WORK/$name.time"
	wall=$T_WALL cpu=$T_CPU
	rank_rss "$name"
	rss=$RSS_STR
	read -r rounds g f p u dns damaged < <(helper phases "$WORK/$name.crawl")
	A_PHASES["$name"]="$rounds rounds; phase seconds summed over the rounds: generate $g, fetch $f, parse $p, update $u; $dns DNS lookups; $(a_warc_files "$WORK/$name.crawl")"
	DAMAGED_SUCCESS=$((DAMAGED_SUCCESS + ${damaged:-0}))
	[ "$name" = mpicrawl.1 ] && a_library_work "$WORK/$name.crawl"
	rm -rf "$WORK/$name.crawl"
}

# a_warc_files CRAWLDIR: "N WARC files, mean M MB (pages files K, mean P MB)":
# what a crawl leaves, per rank and round (issue 36: archive-sized files).
a_warc_files() {
	find "$1/segments" -path '*/warc/*' -name '*.warc.*' -printf '%s %f\n' | awk '
		{ n++; s += $1; if ($2 !~ /-(robots|diagnostics|sitemaps)\.warc/) { p++; ps += $1 } }
		END { printf "%d WARC files, mean %.1f MB (pages files %d, mean %.1f MB)",
			n, n ? s / n / 1e6 : 0, p, p ? ps / p / 1e6 : 0 }'
}

# a_library_work CRAWLDIR: sets A_LIBFLOOR to "total gzip sha1 libxml2" CPU
# seconds of the library work no crawl with the defaults can skip, measured
# by bench/micro.c on the WARC files the crawl wrote (after it, so that it
# does not disturb any timed run).
a_library_work() {
	local out
	[ -x "$WORK/micro" ] || build_tool micro || { say "A: bench/micro.c does not build"; return; }
	# shellcheck disable=SC2046
	out=$("$WORK/micro" floor $(find "$1/segments" -name '*.warc.gz' | sort)) ||
		{ say "A: micro floor failed"; return; }
	A_LIBFLOOR=$(awk '{ v[$1] = $2 } END { print v["floor_total_s"], v["floor_gzip6_s"],
		v["floor_sha1_s"], v["floor_libxml2_s"] }' <<<"$out")
	say "A: the library work of the first run's WARC files: $A_LIBFLOOR CPU s (total, gzip, SHA-1, libxml2)"
}

# a_budget FLOOR KEY WHAT LIB_S: what a wall-time floor of FLOOR x wget2
# leaves the run KEY (its fastest) to spend a request on this machine's
# CPUs, against LIB_S CPU seconds of library work it cannot skip
# (a_library_work) and wget2's own CPU a request.
a_budget() {
	local f=$1 k=$2.${3:-} w_wall=${A_BEST_WALL_wget2:-} w_cpp=${A_BEST_CPP_wget2:-}
	local req=${A_REQ[$k]:-} scpu=${A_SCPU[$k]:-} what=$4 lib=$5
	# the library work was measured on the first mpicrawl run's files
	local lreq=${A_REQ[mpicrawl.1]:-$req}
	[ -n "$w_wall" ] && [ -n "$req" ] && [ -n "$lib" ] || return 0
	md "$(awk -v f="$f" -v w="$w_wall" -v n="$NCPU" -v s="$scpu" -v r="$req" -v l="$lib" \
		-v lr="$lreq" -v z="$w_cpp" -v what="$what" 'BEGIN {
		b = (n * f * w - s) * 1000 / r; lm = l * 1000 / lr
		printf "  What %s leaves: %d CPUs x %s x wget2'"'"'s %s s, less the server'"'"'s %s CPU s, over %d requests: **%.3f CPU ms a request**. ", what, n, f, w, s, r, b
		printf "The library work no such crawl can skip (below) takes %.3f ms a request", lm
		if (lm >= b)
			printf ": more than the floor leaves."
		else if (b - lm < z)
			printf "; the %.3f ms left is less than wget2'"'"'s whole %.3f ms a request, which writes nothing.", b - lm, z
		else
			printf ", leaving %.3f ms.", b - lm
	}')"
}

# ---- A over HTTPS: nginx in front of simweb ----

# https_start: Debian's nginx as a TLS 1.3 and HTTP/2 reverse proxy in front
# of simweb, with a wildcard certificate for *.SIMWEB_DOMAIN from a CA made
# here: the same pages over the transport of the real web. Its sub_filter
# rewrites simweb's absolute links (http://hNNNN.D:SIMWEB_PORT/) and
# proxy_redirect its Location headers to https on nginx's port, so a crawl
# stays on https; every request still reaches simweb, whose log the audit
# reads. gzip on for HTML, as real servers send it. Sets HTTPS_PORT, HTTPS_CA
# and $WORK/seeds.https; false when nginx or openssl is missing or nginx
# does not come up.
https_start() {
	local d=$WORK/tls port p user='' i
	command -v nginx >/dev/null && command -v openssl >/dev/null || return 1
	mkdir -p "$d/tmp"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=mpicrawl bench CA" -addext basicConstraints=critical,CA:TRUE \
		-keyout "$d/ca.key" -out "$d/ca.pem" >/dev/null 2>&1 &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-subj "/CN=*.$SIMWEB_DOMAIN" -keyout "$d/srv.key" -out "$d/srv.csr" \
			>/dev/null 2>&1 &&
		printf 'subjectAltName=DNS:*.%s\n' "$SIMWEB_DOMAIN" >"$d/san" &&
		openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
			-CAcreateserial -days 2 -extfile "$d/san" -out "$d/srv.pem" >/dev/null 2>&1 ||
		return 1
	[ "$(id -u)" -eq 0 ] && user='user root;'
	for i in 1 2 3 4 5; do
		port=$(( ((RANDOM << 15) | RANDOM) % 40001 + 20000 ))
		https_conf "$d" "$port" "$user" >"$d/nginx.conf"
		bg_nginx "$d"
		for p in $(seq 50); do
			curl -s -o /dev/null --cacert "$d/ca.pem" \
				--resolve "h0000.$SIMWEB_DOMAIN:$port:127.0.0.1" \
				"https://h0000.$SIMWEB_DOMAIN:$port/robots.txt" && break
			sleep 0.1
		done
		if [ "$p" -lt 50 ]; then
			HTTPS_PORT=$port
			HTTPS_CA=$d/ca.pem
			sed -E "s|^http://([^/:]+):$SIMWEB_PORT|https://\\1:$port|" "$WORK/seeds" \
				>"$WORK/seeds.https"
			return 0
		fi
		https_stop
		say "A: nginx did not answer on port $port (try $i): $(head -c 200 "$d/nginx.err")"
	done
	return 1
}

# https_conf DIR PORT USER: the proxy's nginx.conf.
https_conf() {
	local d=$1 port=$2 user=$3 sp=$SIMWEB_PORT dom=$SIMWEB_DOMAIN
	cat <<CONF
$user
worker_processes 1;
daemon off;
pid $d/nginx.pid;
error_log $d/nginx.err;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $d/tmp/body;
	proxy_temp_path $d/tmp/proxy;
	fastcgi_temp_path $d/tmp/fastcgi;
	uwsgi_temp_path $d/tmp/uwsgi;
	scgi_temp_path $d/tmp/scgi;
	upstream simweb { server 127.0.0.1:$sp; keepalive 256; }
	server {
		listen 127.0.0.1:$port ssl http2;
		server_name *.$dom;
		ssl_certificate $d/srv.pem;
		ssl_certificate_key $d/srv.key;
		ssl_protocols TLSv1.3;
		ssl_session_cache shared:B:4m;
		keepalive_requests 100000;
		gzip on;
		location / {
			proxy_pass http://simweb;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host \$host:$sp;
			proxy_set_header Accept-Encoding "";
			proxy_redirect ~^http://([^/:]+):$sp(.*)\$ https://\$1:$port\$2;
			sub_filter_types *;
			sub_filter_once off;
			sub_filter "http://" "https://";
			sub_filter ".$dom:$sp" ".$dom:$port";
		}
	}
}
CONF
}

# Starts the nginx of directory $1 in the background (NGINX_PID). Not with
# NGINX in its environment: nginx reads that as sockets to inherit.
bg_nginx() {
	env -u NGINX nginx -p "$1" -c "$1/nginx.conf" -e "$1/nginx.err" </dev/null \
		>"$1/nginx.out" 2>&1 &
	NGINX_PID=$!
}

https_stop() {
	[ -n "${NGINX_PID:-}" ] || return 0
	kill -TERM "$NGINX_PID" 2>/dev/null
	wait "$NGINX_PID" 2>/dev/null
	NGINX_PID=
}

# bench_a_web PAGE_BYTES: benchmark A on one web (simweb --page-bytes
# PAGE_BYTES; 0: its small pages), with its own section of the results.
bench_a_web() {
	local page_bytes=$1 wall cpu rss scpu i run k
	declare -gA A_ROW=() A_WALL=() A_PPS=() A_CPP=() A_PHASES=() A_REQ=() A_SCPU=()
	A_LIBFLOOR=
	DAMAGED_SUCCESS=0
	say "A: starting simweb with $A_HOSTS hosts x $A_PAGES pages (--page-bytes $page_bytes)"
	WEB=$WORK/web
	"$WEBENV" start "$WEB" --hosts "$A_HOSTS" --pages "$A_PAGES" --page-bytes "$page_bytes" \
		>/dev/null || { say "A: the local web did not start"; FAILED=1; return; }
	# shellcheck disable=SC1091
	. "$WEB/env"
	"$SIMWEB" --seeds --hosts "$A_HOSTS" --pages "$A_PAGES" --port "$SIMWEB_PORT" >"$WORK/seeds"
	"$SIMWEB" --truth --hosts "$A_HOSTS" --pages "$A_PAGES" --port "$SIMWEB_PORT" >"$WORK/truth"
	HTTPS_OK=0
	if https_start; then
		HTTPS_OK=1
		say "A: nginx proxies simweb over TLS 1.3 and HTTP/2 on port $HTTPS_PORT"
	else
		say "A: no https rows: nginx in front of simweb did not start"
	fi

	# wget2 has no option for a DNS server: in a private mount namespace
	# (unshare -m, root) /etc/hosts is replaced by a copy that also lists the
	# simweb hosts; the real /etc/hosts is untouched. Without unshare, wget2
	# goes through simweb as its HTTP proxy (simweb serves absolute-form
	# requests by their authority).
	WGET2_ARGS=(--no-config -r -l 0 --span-hosts "--domains=$SIMWEB_DOMAIN"
		"--max-threads=$A_THREADS" --delete-after --no-hsts --progress=none -nv)
	WGET2_DNS=
	WGET2_DNS_TEXT=
	if [ "$HAVE_WGET2" = 1 ]; then
		{
			cat /etc/hosts
			for ((i = 0; i < A_HOSTS; i++)); do
				printf '127.0.0.1 h%04d.%s\n' "$i" "$SIMWEB_DOMAIN"
			done
		} >"$WORK/hosts"
		if unshare -m sh -c 'mount --bind "$0" /etc/hosts && getent hosts "h0000.$1" >/dev/null' \
			"$WORK/hosts" "$SIMWEB_DOMAIN" 2>/dev/null; then
			WGET2_DNS=hosts
			WGET2_DNS_TEXT="host names from a copy of /etc/hosts in a private mount namespace"
		else
			WGET2_DNS=proxy
			WGET2_DNS_TEXT="through simweb as HTTP proxy (no unshare)"
			WGET2_ARGS+=("--http-proxy=127.0.0.1:$SIMWEB_PORT")
			say "A: unshare -m is not available: wget2 uses simweb as its HTTP proxy"
		fi
	fi

	# The runs, interleaved so that a burst of other load on the machine
	# does not hit one tool only; each table row is the run with the least
	# wall time.
	for ((run = 1; run <= A_RUNS; run++)); do
		if [ "$HAVE_WGET2" = 1 ] && [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: wget2 -r, $A_THREADS threads, robots.txt obeyed (its default)"
			run_wget2 wget2 "$run" &&
				a_row wget2 "$run" "wget2 (robots on)" "$wall" "$cpu" "$rss" \
					"$WORK/wget2.$run.log" "$scpu" \
					"-r -l 0 -H -D $SIMWEB_DOMAIN --max-threads=$A_THREADS --delete-after; $WGET2_DNS_TEXT"
		fi
		if [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: mpicrawl crawl on $RANKS ranks"
			run_mpicrawl mpicrawl "$run" &&
				a_row mpicrawl "$run" "mpicrawl, $RANKS ranks" "$wall" "$cpu" "$rss" \
					"$WORK/mpicrawl.$run.log" "$scpu" \
					"delay_ms=0, max_in_flight=$A_IN_FLIGHT, dns.servers=dnsmasq; the rest default (fetch.max_connections=256, partition.count=16, warc.gzip_level=6, fetch.parse=true)"
		fi
		if [ -n "$A_BASELINE" ] && [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: the baseline mpicrawl $A_BASELINE on $RANKS ranks"
			MPICRAWL=$A_BASELINE run_mpicrawl mpicrawl-baseline "$run" &&
				a_row mpicrawl-baseline "$run" "mpicrawl baseline, $RANKS ranks" \
					"$wall" "$cpu" "$rss" "$WORK/mpicrawl-baseline.$run.log" "$scpu" \
					"as mpicrawl above, the binary $A_BASELINE"
		fi
		if [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: mpicrawl with warc.compression=zstd"
			run_mpicrawl mpicrawl-zstd "$run" --set warc.compression=zstd &&
				a_row mpicrawl-zstd "$run" "mpicrawl, $RANKS ranks, warc.compression=zstd" \
					"$wall" "$cpu" "$rss" "$WORK/mpicrawl-zstd.$run.log" "$scpu" \
					"as above, warc.compression=zstd (.warc.zst, level 3)"
		fi
		if [ "$HTTPS_OK" = 1 ] && [ "$HAVE_WGET2" = 1 ] && [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: wget2 -r over https (nginx: TLS 1.3, HTTP/2, gzip)"
			A_SEEDS=$WORK/seeds.https run_wget2 wget2-https "$run" \
				"--ca-certificate=$HTTPS_CA" --compression=identity &&
				a_row wget2-https "$run" "wget2 over https (robots on)" "$wall" "$cpu" \
					"$rss" "$WORK/wget2-https.$run.log" "$scpu" \
					"as wget2 above, the https seeds, --ca-certificate (HTTP/2 by ALPN, its default), --compression=identity (wget2 1.99.1 crashes on gzip over HTTP/2)"
		fi
		if [ "$HTTPS_OK" = 1 ] && [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: mpicrawl over https"
			A_SEEDS=$WORK/seeds.https run_mpicrawl mpicrawl-https "$run" \
				--set "tls.ca_file=$HTTPS_CA" &&
				a_row mpicrawl-https "$run" "mpicrawl over https, $RANKS ranks" "$wall" \
					"$cpu" "$rss" "$WORK/mpicrawl-https.$run.log" "$scpu" \
					"as mpicrawl above, the https seeds, tls.ca_file (http.version=auto: h2)"
		fi
		if [ "$HAVE_WGET2" = 1 ] && [ "$(left_s)" -gt 60 ]; then
			say "A: run $run: wget2 -r with robots.txt ignored"
			run_wget2 wget2-norobots "$run" --no-robots &&
				a_row wget2-norobots "$run" "wget2 (robots off)" "$wall" "$cpu" "$rss" \
					"$WORK/wget2-norobots.$run.log" "$scpu" "as wget2 above, --no-robots"
		fi
	done
	https_stop
	"$WEBENV" stop "$WEB" >/dev/null 2>&1 || say "A: could not stop the web"
	WEB=

	if [ "$page_bytes" -gt 0 ]; then
		md "## A, pages of about $((page_bytes / 1000)) KB: mpicrawl on $RANKS ranks vs wget2"
	else
		md "## A. Crawl throughput: mpicrawl on $RANKS ranks vs wget2"
	fi
	md ""
	md "simweb --hosts $A_HOSTS --pages $A_PAGES --page-bytes $page_bytes on 127.0.0.1: $(wc -l <"$WORK/truth") URLs in its truth for agent mpicrawl, plus $A_HOSTS robots.txt; seeds: the $(wc -l <"$WORK/seeds") home pages of \`simweb --seeds\`. Requests are the lines each run added to the server's request log (robots.txt included); req/s = requests / wall. CPU is user+sys of the whole process tree (for mpicrawl: mpirun and both ranks); peak RSS per process (per rank for mpicrawl). The server runs on the same 2 CPUs. Each row is the fastest of $A_RUNS runs (all runs' wall times in the last column)."
	md ""
	md "| run | wall s | requests | req/s | CPU s | CPU ms/req | peak RSS MiB | server CPU s | truth URLs fetched | 2xx / 3xx / 4xx | robots.txt | repeated | not in truth | settings | wall s, all runs |"
	md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for k in wget2 mpicrawl mpicrawl-baseline mpicrawl-zstd wget2-norobots wget2-https \
		mpicrawl-https; do
		unset "A_BEST_WALL_${k//-/_}" "A_BEST_PPS_${k//-/_}" "A_BEST_CPP_${k//-/_}"
		a_best "$k" || continue
		md "${A_ROW[$k.$BEST_RUN]/@WALL@/${A_WALL[$k.$BEST_RUN]}} $ALL_WALLS |"
		[ -n "${A_PHASES[$k.$BEST_RUN]:-}" ] && A_PHASES[$k]=${A_PHASES[$k.$BEST_RUN]}
		declare -g "A_BEST_WALL_${k//-/_}=${A_WALL[$k.$BEST_RUN]}"
		declare -g "A_BEST_PPS_${k//-/_}=${A_PPS[$k.$BEST_RUN]}"
		declare -g "A_BEST_CPP_${k//-/_}=${A_CPP[$k.$BEST_RUN]}"
		declare -g "A_BEST_RUN_${k//-/_}=$BEST_RUN"
	done
	md ""
	for k in mpicrawl mpicrawl-baseline mpicrawl-zstd mpicrawl-https; do
		[ -n "${A_PHASES[$k]:-}" ] && md "- $k (fastest run): ${A_PHASES[$k]}."
	done
	a_floors "$page_bytes"
	md ""
}

# a_floor WHAT VALUE LIMIT: one line of the floors, and FLOOR_MISSED.
a_floor() {
	local verdict=met
	if ! awk -v v="$2" -v l="$3" 'BEGIN { exit !(v <= l) }'; then
		verdict="**NOT MET**"
		FLOOR_MISSED=1
	fi
	md "- $1: **$2** (at most $3): $verdict."
}

# a_floors PAGE_BYTES: the floors of one web's runs (docs/PERFORMANCE.md).
a_floors() {
	local w_wall=${A_BEST_WALL_wget2:-} m_wall=${A_BEST_WALL_mpicrawl:-}
	local z_wall=${A_BEST_WALL_mpicrawl_zstd:-} b_wall=${A_BEST_WALL_mpicrawl_baseline:-}
	local cpp=${A_BEST_CPP_mpicrawl:-} small=1
	[ "$1" -gt 0 ] && small=0
	[ -n "$b_wall" ] && [ -n "$m_wall" ] &&
		md "- Wall time mpicrawl / the baseline binary: **$(awk -v m="$m_wall" -v b="$b_wall" 'BEGIN { printf "%.2f", (b > 0 ? m / b : 0) }')x** ($m_wall s against $b_wall s, fastest runs of each)."
	if [ -n "$w_wall" ] && [ -n "$m_wall" ]; then
		local ratio pratio
		ratio=$(awk -v m="$m_wall" -v w="$w_wall" 'BEGIN { printf "%.2f", (w > 0 ? m / w : 0) }')
		pratio=$(awk -v m="${A_BEST_PPS_mpicrawl:-0}" -v w="${A_BEST_PPS_wget2:-0}" \
			'BEGIN { printf "%.2f", (m > 0 ? w / m : 0) }')
		a_floor "Wall time mpicrawl / wget2 (robots on), every default on" "$ratio" \
			"$([ "$small" = 1 ] && echo 1.0 || echo 1.5)"
		a_budget "$([ "$small" = 1 ] && echo 1.0 || echo 1.5)" mpicrawl \
			"${A_BEST_RUN_mpicrawl:-}" "this floor" "${A_LIBFLOOR%% *}"
		md "  wget2's request rate is ${pratio}x mpicrawl's; wget2 runs with --delete-after and stores nothing, mpicrawl writes every response to WARC, parses it, indexes it and keeps its CrawlDb."
		if [ -n "$z_wall" ] && [ "$small" = 1 ]; then
			a_floor "Wall time mpicrawl with warc.compression=zstd / wget2" \
				"$(awk -v m="$z_wall" -v w="$w_wall" 'BEGIN { printf "%.2f", m / w }')" 0.8
			# with zstd the WARC's gzip is not there: SHA-1 and libxml2 only
			a_budget 0.8 mpicrawl-zstd "${A_BEST_RUN_mpicrawl_zstd:-}" "the zstd floor" \
				"$(awk '{ print $3 + $4 }' <<<"${A_LIBFLOOR:-}")"
		fi
		[ -n "$z_wall" ] && [ "$small" = 0 ] &&
			md "- Wall time mpicrawl with warc.compression=zstd / wget2: $(awk -v m="$z_wall" -v w="$w_wall" 'BEGIN { printf "%.2f", m / w }')x."
	fi
	[ -n "${A_BEST_WALL_wget2_https:-}" ] && [ -n "${A_BEST_WALL_mpicrawl_https:-}" ] &&
		md "- Over https (nginx in front of simweb: TLS 1.3, HTTP/2, gzip; the same pages): wall time mpicrawl / wget2 **$(awk -v m="$A_BEST_WALL_mpicrawl_https" -v w="$A_BEST_WALL_wget2_https" 'BEGIN { printf "%.2f", (w > 0 ? m / w : 0) }')x** ($A_BEST_WALL_mpicrawl_https s against $A_BEST_WALL_wget2_https s); CPU ms per request mpicrawl ${A_BEST_CPP_mpicrawl_https:-?}, wget2 ${A_BEST_CPP_wget2_https:-?}. The server CPU column includes simweb only, not nginx."
	[ -n "$cpp" ] && a_floor "CPU ms per request, mpicrawl (all ranks and mpirun)" "$cpp" \
		"$([ "$small" = 1 ] && echo 0.25 || echo 0.6)"
	[ -n "$A_LIBFLOOR" ] && [ -n "${A_REQ[mpicrawl.1]:-}" ] && md "$(awk -v r="${A_REQ[mpicrawl.1]}" '{
		printf "- The library work no crawl with the defaults can skip, measured on the WARC files of the first mpicrawl run (`bench/micro.c floor`, one core, CPU time): every record as one gzip member at level 6 (libdeflate) %.2f s, its SHA-1 digests %.2f s, one libxml2 pass over each HTML page with no callbacks %.2f s; in all %.2f s, **%.3f ms a request** (%.3f without the gzip, for zstd).", $2, $3, $4, $1, $1 * 1000 / r, ($3 + $4) * 1000 / r }' <<<"$A_LIBFLOOR")"
	md "- What was fetched differs: wget2 matches robots.txt groups with the token \"wget2\", so on hosts whose robots.txt names mpicrawl (index mod 4 = 3) it falls under \`User-agent: *\` / \`Disallow: /\` and fetches little there, and it ignores \`Allow:\` (no /private/open/ pages on index mod 4 = 2). With --no-robots it fetches every reachable page, a superset of mpicrawl's. \"repeated\" counts extra requests for a URL already requested; \"not in truth\" counts URLs outside simweb's truth for agent mpicrawl (disallowed for it)."
	[ "$DAMAGED_SUCCESS" -gt 0 ] && md "- $DAMAGED_SUCCESS _SUCCESS.<phase> files of these crawls carry stray bytes after their JSON (read here up to the end of the JSON object)."
	return 0
}

bench_a() {
	local pb
	for pb in $A_PAGE_SIZES; do
		[ "$(left_s)" -gt 120 ] || { say "A: no time left for --page-bytes $pb"; break; }
		bench_a_web "$pb"
	done
}

# ---- B: scale, 10M URLs ----

# build_tool NAME: builds bench/NAME.c into $WORK/NAME as the Makefile
# builds the unit tests.
build_tool() {
	local flags cc cflags ldflags libs
	flags=$(printf 'bench-print-flags:\n\t@echo "$(CC)|$(CFLAGS) $(PKG_CFLAGS)|$(LDFLAGS)|$(LIBS)"\n' |
		make -s --no-print-directory -C "$ROOT" -f Makefile -f - bench-print-flags) || return 1
	IFS='|' read -r cc cflags ldflags libs <<<"$flags"
	# shellcheck disable=SC2086
	(cd "$ROOT" && $cc $cflags $ldflags -o "$WORK/$1" "bench/$1.c" build/libcore.a $libs)
}

bench_b() {
	local dir=$WORK/scale seeds=$WORK/scale-seeds.txt n lim rss verdict
	local urls=$((B_HOSTS * B_PATHS))
	# Measured: ~85 MiB per million URLs at the peak (seed file + crawl directory).
	local need_mb=$((urls * 130 / 1000000 + 300))
	local free_mb
	free_mb=$(df -Pm "$WORK" | awk 'NR == 2 { print $4 }')
	if [ "$free_mb" -lt "$need_mb" ]; then
		say "B: needs about $need_mb MiB free in $WORK, has $free_mb: skipped (lower BENCH_B_HOSTS)"
		md "## B. Scale: skipped, $free_mb MiB free, about $need_mb MiB needed"
		FAILED=1
		return
	fi
	md "## B. Scale: $(commas "$urls") URLs on $RANKS ranks"
	md ""
	md "Seeds: http://hNNNNNN.bench.test/p/K.html, $B_HOSTS hosts x $B_PATHS paths. Settings: memory.budget_mb=$B_BUDGET, partition.count=$B_PARTS, generate.max_per_host=$B_MAX_PER_HOST and generate.round_s=0$([ "$B_MAX_PER_HOST" = 0 ] && echo " (no cap: the whole CrawlDb is due)"). The fetch and parse of the segment are synthetic (bench/mkseg.c, two processes, no network): every fetch list URL fetched with HTTP 200 and $B_LINKS outlinks, half to existing pages of other hosts, half to new /n/ pages of a neighbouring host (some found by several pages). Each mpicrawl step is its own mpirun; RSS is per rank and includes OpenMPI's own footprint."
	md ""
	md "| step | wall s | CPU s (all) | peak RSS MiB per rank | within ${B_BUDGET} MiB | records/s | written MiB | disk MiB after | result (rank 0's log line) |"
	md "|---|---|---|---|---|---|---|---|---|"

	say "B: writing $urls seed URLs"
	awk -v H="$B_HOSTS" -v P="$B_PATHS" 'BEGIN {
		for (h = 0; h < H; h++) { s = sprintf("http://h%06d.bench.test/p/", h)
			for (k = 0; k < P; k++) print s k ".html" } }' >"$seeds" ||
		{ say "B: cannot write the seed file"; FAILED=1; return; }
	local seeds_mb=$(($(stat -c %s "$seeds") / 1048576))

	build_tool mkseg || { say "B: bench/mkseg.c does not build"; FAILED=1; return; }

	# b_step NAME LABEL mpicrawl-args...: one timed mpirun and its table row.
	b_step() {
		local name=$1 label=$2 wall cpu line rate
		shift 2
		lim=$(step_timeout "$B_STEP_S")
		if [ "$lim" -lt 10 ]; then
			say "B: $name skipped: the time budget (BENCH_DEADLINE_S=$DEADLINE_S) is spent"
			md "| $label | skipped: time budget spent | | | | | | | |"
			FAILED=1
			return 1
		fi
		say "B: $name"
		if ! mpi_timed "$name" "$lim" "$@"; then
			say "B: $name failed or took longer than $lim s; the end of its output:"
			tail -n 5 "$WORK/$name.out" >&3
			md "| $label | failed (see the output above) | | | | | | | |"
			FAILED=1
			return 1
		fi
		read_time "$WORK/$name.time"
		wall=$T_WALL cpu=$T_CPU
		rank_rss "$name"
		rss=$RSS_STR
		if [ "$MAX_RSS_MB" -le "$B_BUDGET" ]; then
			verdict=yes
		else
			verdict="**no** (+$((MAX_RSS_MB - B_BUDGET)))"
			FLOOR_MISSED=1
		fi
		line=$(grep -E " $name I " "$WORK/$name.out" | tail -n 1 | sed -E 's/^[^ ]+ r[0-9]+ [a-z]+ I //')
		# The records the step moved: seeds read, URLs selected, links routed.
		n=$(echo "$line" | sed -nE 's/^([0-9]+) seeds read.*/\1/p; s/^segment [0-9]+: ([0-9]+) URLs due.*/\1/p; s/^segment [0-9]+: ([0-9]+) links routed.*/\1/p')
		rate=$(awk -v n="${n:-0}" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? n / w : 0) }')
		rank_written "$name"
		md "| $name | $wall | $cpu | $rss | $verdict | $(commas "$rate") | $(commas "$WRITTEN_MB") | $(commas "$(du -sm "$dir" | awk '{ print $1 }')") | $line |"
		say "B: $name: $wall s, CPU $cpu s, peak RSS $rss MiB"
		B_RSS["$name"]=$MAX_RSS_MB
		return 0
	}
	declare -gA B_RSS=()
	local common=(--dir "$dir" --set "memory.budget_mb=$B_BUDGET")
	b_step inject inject inject "${common[@]}" --seeds "$seeds" --set "partition.count=$B_PARTS" ||
		return
	rm -f "$seeds"
	b_step generate generate generate "${common[@]}" --set "generate.max_per_host=$B_MAX_PER_HOST" \
		--set generate.round_s=0 ||
		return

	# The synthetic fetch + parse: $RANKS processes, each a stripe of the partitions.
	say "B: synthetic fetch + parse of segment 1 (bench/mkseg.c)"
	local ok=1
	bg_run "$TIME" -f '%e %U %S %M %O' -o "$WORK/mkseg.time" \
		timeout -k 10 "$(step_timeout "$B_STEP_S")" bash -c '
		for ((s = 0; s < $2; s++)); do
			"$1" parts "$3" 1 "$s" "$2" "$4" "$5" "$6" &
		done
		rc=0
		for j in $(jobs -p); do wait "$j" || rc=1; done
		exit $rc' _ "$WORK/mkseg" "$RANKS" "$dir" "$B_HOSTS" "$B_PATHS" "$B_LINKS" \
		>"$WORK/mkseg.out" 2>&1 || ok=0
	if [ "$ok" = 1 ] && "$WORK/mkseg" mark "$dir" 1; then
		read_time "$WORK/mkseg.time"
		n=$(awk '/^mkseg: stripe/ { o += $4; l += $6 } END { printf "%d %d", o, l }' "$WORK/mkseg.out")
		md "| fetch + parse (synthetic: bench/mkseg.c, $RANKS processes, not mpicrawl) | $T_WALL | $T_CPU | $T_RSS_MB (largest process) | - | - | $(commas "$(($(tail -n 1 "$WORK/mkseg.time" | awk '{ print $5 + 0 }') * 512 / 1048576))") | $(commas "$(du -sm "$dir" | awk '{ print $1 }')") | $(commas "${n% *}") fetch outcomes, $(commas "${n#* }") links |"
	else
		say "B: bench/mkseg failed:"
		tail -n 5 "$WORK/mkseg.out" >&3
		md "| fetch + parse (synthetic) | failed | | | | | | | |"
		FAILED=1
		return
	fi
	# du every 2 s while update runs: its sort runs are the peak of disk use.
	(while sleep 2; do du -sm "$dir" 2>/dev/null; done) >"$WORK/du.samples" &
	DU_PID=$!
	b_step update update update "${common[@]}"
	local ok_update=$?
	kill "$DU_PID" 2>/dev/null
	wait "$DU_PID" 2>/dev/null
	DU_PID=
	[ "$ok_update" -eq 0 ] || return

	md ""
	md "- Rates: records/s is seeds read (inject), URLs selected (generate) or links routed (update) per wall second."
	du -sm "$dir" >>"$WORK/du.samples" 2>/dev/null
	md "- Disk: the crawl directory peaked at about $(awk '$1 > m { m = $1 } END { print m + 0 }' "$WORK/du.samples") MiB during update (sampled every 2 s; sort runs included) and holds $(du -sm "$dir" | awk '{ print $1 }') MiB after it (CrawlDb versions 1 and 2, segment 1); the seed file ($seeds_mb MiB) is removed after inject."
	if [ -n "${B_RSS[generate]:-}" ]; then
		md "- The footprint of a rank that holds little data: generate peaks at ${B_RSS[generate]} MiB (OpenMPI, libraries and generate's per-host table), an upper bound for what MPI adds to each figure."
	fi
	md ""
}

# ---- D: the hot loops of dedup and the seen-set, one core ----

bench_d() {
	md "## D. MinHash and the seen-set, one core"
	md ""
	build_tool micro || { say "D: bench/micro.c does not build"; FAILED=1; return; }
	say "D: MinHash signatures and Bloom filter lookups (bench/micro.c)"
	"$WORK/micro" minhash 2000 800 >"$WORK/micro.out" &&
		"$WORK/micro" bloom 10000000 >>"$WORK/micro.out" ||
		{ say "D: bench/micro failed"; FAILED=1; return; }
	v() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/micro.out"; }
	md "| measure | per second, one core |"
	md "|---|---|"
	md "| Signatures by one-permutation hashing (dedup.signature=oph, the default; 128 values, 5-word shingles) of $(v minhash_page_bytes)-byte texts of 800 words | $(commas "$(v oph_pages_per_s)") pages, $(v oph_mb_per_s) MB |"
	md "| Signatures by 128 hash functions (dedup.signature=minhash), the same texts | $(commas "$(v minhash_pages_per_s)") pages, $(v minhash_mb_per_s) MB |"
	md "| Bloom filter lookups (10 M URLs at 1e-4, $(($(v bloom_bytes) / 1048576)) MiB; half of the probes present) | $(commas "$(v bloom_lookups_per_s)") |"
	md "| Bloom filter adds (URL formatting included) | $(commas "$(v bloom_adds_per_s)") |"
	md ""
	md "The update phase's links/s is B's update row (links routed per wall second, seen-set and dedup included)."
	md ""
}

# ---- C: politeness efficiency ----

# shellcheck source=bench/politeness.sh
. "$ROOT/bench/politeness.sh"
# shellcheck source=bench/harvest.sh
. "$ROOT/bench/harvest.sh"
# shellcheck source=bench/freshness.sh
. "$ROOT/bench/freshness.sh"
# shellcheck source=bench/nodes.sh
. "$ROOT/bench/nodes.sh"
# shellcheck source=bench/weak.sh
. "$ROOT/bench/weak.sh"

say "scratch directory $WORK; time budget ${DEADLINE_S} s"
if [ -z "$ONLY" ] || [ "$ONLY" = A ]; then
	bench_a
fi
if [ -z "$ONLY" ] || [ "$ONLY" = B ]; then
	if [ "$(left_s)" -gt 120 ]; then
		bench_b
	else
		say "B: skipped: less than 120 s of the time budget left"
		md "## B. Scale: skipped, the time budget (BENCH_DEADLINE_S=$DEADLINE_S) was spent"
		FAILED=1
	fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = D ]; then
	bench_d
fi
if [ -z "$ONLY" ] || [ "$ONLY" = E ]; then
	if [ "$(left_s)" -gt 120 ]; then
		bench_e
	else
		say "E: skipped: less than 120 s of the time budget left"
		md "## E. Harvest: skipped, the time budget (BENCH_DEADLINE_S=$DEADLINE_S) was spent"
		FAILED=1
	fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = F ]; then
	if [ "$(left_s)" -gt 300 ]; then
		bench_f
	else
		say "F: skipped: less than 300 s of the time budget left"
		md "## F. Freshness: skipped, the time budget (BENCH_DEADLINE_S=$DEADLINE_S) was spent"
		FAILED=1
	fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = G ]; then
	if [ "$(left_s)" -gt 120 ]; then
		bench_g
	else
		say "G: skipped: less than 120 s of the time budget left"
		md "## G. One node and across nodes: skipped, the time budget (BENCH_DEADLINE_S=$DEADLINE_S) was spent"
		FAILED=1
	fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = H ]; then
	if [ "$(left_s)" -gt 240 ]; then
		bench_h
	else
		say "H: skipped: less than 240 s of the time budget left"
		md "## H. Weak scaling: skipped, the time budget (BENCH_DEADLINE_S=$DEADLINE_S) was spent"
		FAILED=1
	fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = C ]; then
	if [ "$(left_s)" -gt 300 ]; then
		bench_c
	else
		say "C: skipped: less than 300 s of the time budget left"
		md "## C. Politeness efficiency: skipped, the time budget (BENCH_DEADLINE_S=$DEADLINE_S) was spent"
		FAILED=1
	fi
fi
md "Total benchmark time: $((SECONDS - T_START)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."

echo
cat "$RES"
if [ -n "${BENCH_RESULTS:-}" ]; then
	cp "$RES" "$BENCH_RESULTS" && say "results written to $BENCH_RESULTS"
fi
if [ "$FAILED" -ne 0 ]; then
	say "a step failed; the figures above are incomplete"
	exit 1
fi
if [ "$FLOOR_MISSED" -ne 0 ]; then
	say "measured; a floor was not met (see **NOT MET** / **no** above)"
	exit 3
fi
exit 0

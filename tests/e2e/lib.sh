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
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/mpicrawl-test.XXXXXX")

cleanup() {
	local w
	for w in "${WEBS[@]}"; do
		"$ROOT/scripts/webenv.sh" stop "$w" >/dev/null 2>&1 || true
	done
	rm -rf "$SCRATCH"
}
[ -n "${KEEP_SCRATCH:-}" ] || trap cleanup EXIT

check() {
	# check "what" command...   passes when the command succeeds
	local what=$1
	shift
	if "$@"; then
		T_PASSED=$((T_PASSED + 1))
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok: $what"
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

# run_ranks N args...: runs bin/mpicrawl on N ranks (a plain run for 1).
run_ranks() {
	local n=$1
	shift
	if [ "$n" -eq 1 ]; then
		timeout 600 "$MPICRAWL" "$@"
	else
		timeout 600 mpirun --oversubscribe -n "$n" "$MPICRAWL" "$@"
	fi
}

# The CrawlDb as sorted JSON lines without the times.
dump_db() {
	"$MPICRAWL" readdb --dir "$1" --dump |
		sed -E 's/"fetched_at":[0-9]+,"next_fetch":[0-9]+,//' | LC_ALL=C sort
}

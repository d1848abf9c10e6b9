#!/usr/bin/env bash
# slurm/ across nodes: a cluster of three compute nodes on this machine
# (tests/nodes/nodes.sh: a network namespace, hostname and /tmp per node)
# with a Slurm of its own (tests/nodes/slurm.sh: slurmctld on the head
# node, a slurmd on each) and the local web on a node of its own. mpicrawl
# is installed (make install PREFIX=...) and its Slurm script submitted
# from a project directory outside the checkout, with the installed bin on
# PATH and no MPICRAWL:
# - sbatch --nodes=2 --ntasks-per-node=2 crawl.sbatch: 4 ranks on two
#   nodes (seen from the nodes' processes), the job completes, and the
#   CrawlDb equals a 1-process crawl's;
# - chain.sh passes its sbatch options to every job: two jobs, each on
#   two nodes, the second after the first;
# - a crawl that exits 69 (a node or its network lost) is requeued by
#   crawl.sbatch and continues (a stand-in binary exits 69 on the first
#   run);
# - scripts/mpicrawl-run --hostfile (installed) crawls a round on two
#   nodes from the head node, as mpirun over ssh would;
# - a node killed mid-crawl (its slurmd and the crawl's ranks on it):
#   the job ends, Slurm requeues it, it runs again on the two nodes left
#   and completes with the 1-process crawl's CrawlDb. The times are
#   printed.
# Needs root and network namespaces; otherwise it reports itself skipped.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "skip: not root (network namespaces and a Slurm need root)"
	echo "result: 0 passed, 0 failed"
	exit 0
fi
if ! why=$("$ROOT/tests/nodes/nodes.sh" can); then
	echo "skip: no nodes on this machine: $why"
	echo "result: 0 passed, 0 failed"
	exit 0
fi
PATH=$PATH:/usr/sbin:/sbin
for b in munged slurmctld slurmd sbatch; do
	command -v "$b" >/dev/null || { echo "not ok: $b not installed (scripts/install-deps.sh)"; finish; exit 1; }
done
T_START=$SECONDS
NODES=$ROOT/tests/nodes/nodes.sh
N=$SCRATCH/n
teardown() {
	"$ROOT/tests/nodes/slurm.sh" down "$N"
	"$NODES" down "$N"
	[ -n "${KEEP_SCRATCH:-}" ] || cleanup
}
trap teardown EXIT

if ! "$NODES" up "$N" 3 --keep "$SCRATCH" >/dev/null || ! "$ROOT/tests/nodes/slurm.sh" up "$N" >/dev/null; then
	echo "not ok: the cluster or its Slurm did not come up"
	finish
	exit 1
fi
# shellcheck disable=SC1091
. "$N/env"
sl() { "$ROOT/tests/nodes/slurm.sh" client "$N" "$@"; }
echo "cluster and Slurm up in $((SECONDS - T_START)) s on $NODES_NET.0/24; mpi plugins:" \
	"$(sl srun --mpi=list 2>&1 | tr -s ' \t\n' ' ')"

WEBS+=("$N/web")
if ! nodes_web "$N" 10 15; then
	echo "not ok: the web did not start on the web node"
	finish
	exit 1
fi
# No round plan (generate.round_s = 0): a round fetches all that is due
# and follows links in the round to the end, so the crawl has three rounds,
# the first 10 s long, and the node is killed in its fetch. (resume.sh
# checks fetches killed and resumed under the default plan.)
cp "$SCRATCH/web.conf" "$SCRATCH/job.conf"
cat >>"$SCRATCH/job.conf" <<EOF
politeness.delay_ms = 200
generate.round_s = 0
partition.count = 8
fetch.stop_grace_s = 2
fetch.sync_interval_ms = 100
EOF
# MPI between the nodes: over the bridge (lib.sh says loopback).
export OMPI_MCA_btl_tcp_if_include=$NODES_NET.0/24 OMPI_MCA_oob_tcp_if_include=$NODES_NET.0/24

# The reference: one process on the head node, beside the first job.
"$NODES" exec "$N" head "$MPICRAWL" crawl --dir "$SCRATCH/ref" --seeds "$SCRATCH/seeds" \
	--config "$SCRATCH/job.conf" >"$SCRATCH/ref.log" 2>&1 &
ref_pid=$!

PREFIX=$SCRATCH/prefix
make -s -C "$ROOT" install PREFIX="$PREFIX" >"$SCRATCH/install.log" 2>&1
check "make install PREFIX=... installs the binary and the Slurm scripts" \
	test -x "$PREFIX/bin/mpicrawl" -a -x "$PREFIX/share/mpicrawl/slurm/crawl.sbatch"
SBATCH_SCRIPT=$PREFIX/share/mpicrawl/slurm/crawl.sbatch
PROJECT=$SCRATCH/project
mkdir -p "$PROJECT"
cd "$PROJECT" || exit 1

# submit OPTIONS... DIR: the installed crawl.sbatch from the project
# directory, the installed bin on PATH, no MPICRAWL; prints the job id.
submit() {
	local dir=${*: -1}
	env -u MPICRAWL PATH="$PREFIX/bin:$PATH" "$ROOT/tests/nodes/slurm.sh" client "$N" \
		sbatch --parsable --time=10 "${@:1:$#-1}" "$SBATCH_SCRIPT" "$dir" "$SCRATCH/seeds" \
		"$SCRATCH/job.conf"
}
# job FIELD...: the job's fields (JobState, Restarts, ExitCode, NodeList, ...).
job() {
	local id=$1
	shift
	sl scontrol show job "$id" 2>/dev/null | tr ' ' '\n' | awk -F= -v want="$*" '
		BEGIN { n = split(want, w, " ") }
		{ v[$1] = substr($0, length($1) + 2) }
		END { for (i = 1; i <= n; i++) printf "%s%s", v[w[i]], (i < n ? " " : "\n") }'
}
# wait_state ID SECONDS STATE...: waits for one of the states (JobState);
# prints "STATE EXITCODE RESTARTS NODELIST".
wait_state() {
	local id=$1 secs=$2 i st
	shift 2
	for ((i = 0; i < secs * 2; i++)); do
		st=$(job "$id" JobState ExitCode Restarts NodeList)
		for s in "$@"; do
			case $st in "$s "*) echo "$st"; return 0 ;; esac
		done
		sleep 0.5
	done
	echo "$st"
	return 1
}
final() { wait_state "$1" "$2" COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY; }
# se "STATE EXITCODE ...": "STATE EXITCODE"
se() { awk '{ print $1, $2 }' <<<"$1"; }
# ranks_on NODE: the installed mpicrawl's processes running on NODE.
ranks_on() {
	local ns p n=0
	ns=$(awk -v n="$1" '$1 == n { print $2 }' "$N/nodes")
	for p in $(ip netns pids "$ns" 2>/dev/null); do
		[ "$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | head -n 1)" = "$PREFIX/bin/mpicrawl" ] &&
			n=$((n + 1))
	done
	echo "$n"
}
# fence_on NODE: SLURM_PMIX_FENCE in the environment of a rank on NODE.
fence_on() {
	local ns p
	ns=$(awk -v n="$1" '$1 == n { print $2 }' "$N/nodes")
	for p in $(ip netns pids "$ns" 2>/dev/null); do
		[ "$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | head -n 1)" = "$PREFIX/bin/mpicrawl" ] ||
			continue
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SLURM_PMIX_FENCE=//p'
		return
	done
}
# two_by_two "node1:2 node2:2 node3:0": two nodes ran two ranks each.
two_by_two() { [ "$(tr ' ' '\n' <<<"$1" | grep -c ':2$')" -eq 2 ]; }

# ---- two nodes, two ranks each ----
id=$(submit --nodes=2 --ntasks-per-node=2 "$SCRATCH/c1")
wait_state "$id" 30 RUNNING COMPLETED >/dev/null
seen= fence=
for _ in $(seq 120); do
	seen=$(for k in 1 2 3; do printf 'node%s:%s ' "$k" "$(ranks_on "node$k")"; done)
	two_by_two "$seen" && { fence="$(fence_on node1) $(fence_on node2)"; break; }
	[ "$(job "$id" JobState)" = RUNNING ] || break
	sleep 0.25
done
st=$(final "$id" 90)
echo "job $id: $st; ranks seen: $seen"
log=$PROJECT/mpicrawl-$id.log
check "the job completes (exit 0)" test "$(se "$st")" = "COMPLETED 0:0"
check "two ranks ran on each of two nodes" two_by_two "$seen"
check "the ranks on both nodes run with Slurm's ring fence (SLURM_PMIX_FENCE=ring)" \
	test "$fence" = "ring ring"
check "the job log says 4 ranks on 2 nodes, the installed binary, srun --mpi=pmix" \
	grep -q "on 2 nodes (.*), 4 ranks, via srun-pmix: $PREFIX/bin/mpicrawl crawl" "$log"
check "the log is in the directory sbatch ran in" test -s "$log"
check "the crawl's stats say 4 ranks" grep -q '"ranks":4,' "$SCRATCH/c1/segments/00001/stats.json"
wait "$ref_pid"
check "the 1-process reference crawl completes" test $? -eq 0
check "the crawl on 4 ranks over 2 nodes has the 1-process crawl's CrawlDb" \
	cmp -s <(dump_db "$SCRATCH/ref") <(dump_db "$SCRATCH/c1")
[ "$(se "$st")" = "COMPLETED 0:0" ] || tail -n 20 "$log"

# ---- chain.sh: the sbatch options reach every job ----
ids=$(env -u MPICRAWL PATH="$PREFIX/bin:$PATH" "$ROOT/tests/nodes/slurm.sh" client "$N" \
	"$PREFIX/share/mpicrawl/slurm/chain.sh" 2 "$SCRATCH/c1" "$SCRATCH/seeds" "$SCRATCH/job.conf" -- \
	--nodes=2 --ntasks-per-node=1 --time=5 | tr '\n' ' ')
read -r id1 id2 <<<"$ids"
st1=$(final "${id1:-0}" 60)
st2=$(final "${id2:-0}" 60)
echo "chain $ids: $st1; $st2"
check "chain.sh (installed): two jobs, both complete" \
	test "$(se "$st1")" = "COMPLETED 0:0" -a "$(se "$st2")" = "COMPLETED 0:0"
check "chain.sh: each job has two ranks on two nodes" \
	test "$(cat "$PROJECT/mpicrawl-$id1.log" "$PROJECT/mpicrawl-$id2.log" 2>/dev/null |
		grep -c 'on 2 nodes (.*), 2 ranks')" -eq 2
check "chain.sh: the second job started when the first had ended" \
	test ! "$(job "$id2" StartTime)" \< "$(job "$id1" EndTime)"

# ---- exit 69: crawl.sbatch requeues the job ----
cat >"$SCRATCH/lost-once" <<EOF
#!/bin/sh
# A crawl that loses a node on the job's first run.
[ "\${SLURM_RESTART_COUNT:-0}" -eq 0 ] && exit 69
exec "$PREFIX/bin/mpicrawl" "\$@"
EOF
chmod +x "$SCRATCH/lost-once"
id=$(MPICRAWL=$SCRATCH/lost-once "$ROOT/tests/nodes/slurm.sh" client "$N" sbatch --parsable \
	--time=5 --nodes=2 --ntasks-per-node=1 "$SBATCH_SCRIPT" "$SCRATCH/c1" "$SCRATCH/seeds" \
	"$SCRATCH/job.conf")
st=$(final "$id" 60)
echo "job $id: $st; $(grep -m1 'was lost' "$PROJECT/mpicrawl-$id.log")"
check "exit 69: crawl.sbatch requeues the job" grep -q "lost (exit 69); job $id requeued" \
	"$PROJECT/mpicrawl-$id.log"
check "exit 69: the requeued job completes" test "$(se "$st")" = "COMPLETED 0:0"
check "exit 69: the job ran twice (Restarts=$(job "$id" Restarts))" test "$(job "$id" Restarts)" -ge 1

# ---- mpicrawl-run --hostfile, from the head node ----
printf 'node2 slots=1\nnode3 slots=1\n' >"$SCRATCH/hostfile"
t0=$SECONDS
NODES_DIR=$N OMPI_MCA_plm_rsh_agent=$ROOT/tests/nodes/rsh OMPI_MCA_plm_rsh_no_tree_spawn=1 \
	timeout 120 "$NODES" exec "$N" head "$PREFIX/bin/mpicrawl-run" --hostfile "$SCRATCH/hostfile" \
	crawl --dir "$SCRATCH/c3" --seeds "$SCRATCH/seeds" --config "$SCRATCH/job.conf" --rounds 1 \
	>"$SCRATCH/run.log" 2>&1
rc=$?
echo "mpicrawl-run --hostfile (node2, node3): exit $rc in $((SECONDS - t0)) s"
check "mpicrawl-run --hostfile: a round on two nodes" test "$rc" -eq 0
check "mpicrawl-run --hostfile: two ranks" grep -q '"ranks":2,' "$SCRATCH/c3/segments/00001/stats.json"
[ "$rc" -eq 0 ] || tail -n 15 "$SCRATCH/run.log"

# ---- a node killed mid-crawl ----
id=$(submit --nodes=2 --ntasks-per-node=2 "$SCRATCH/c2")
for _ in $(seq 240); do
	[ -d "$SCRATCH/c2/segments/00001/warc" ] && break
	sleep 0.25
done
sleep 3
read -r batch nodelist <<<"$(job "$id" BatchHost NodeList)"
victim=$(sl scontrol show hostnames "$nodelist" | grep -vx "$batch" | head -n 1)
check "the crawl runs on two nodes ($nodelist; batch on $batch)" \
	test -d "$SCRATCH/c2/segments/00001/warc" -a -n "$victim"
t0=$SECONDS
"$NODES" kill "$N" "${victim:-node2}"
st=$(wait_state "$id" 90 COMPLETING REQUEUED PENDING COMPLETED FAILED NODE_FAIL)
t_end=$((SECONDS - t0))
st_run=$(wait_state "$id" 90 RUNNING COMPLETED FAILED)
t_again=$((SECONDS - t0))
st_fin=$(final "$id" 120)
t_done=$((SECONDS - t0))
echo "$victim killed: the job ended after $t_end s ($st), ran again after $t_again s" \
	"($st_run), ended after $t_done s ($st_fin)"
log=$PROJECT/mpicrawl-$id.log
if grep -q 'DUE TO NODE FAILURE' "$log"; then
	echo "ended by Slurm: node failure, requeued (--requeue)"
else
	echo "ended by the launcher: $(grep -m1 'was lost' "$log")"
fi
check "the job ends within 60 s of the node's loss (took $t_end s)" test "$t_end" -le 60
check "the job completes after a requeue" test "$(se "$st_fin")" = "COMPLETED 0:0"
check "the job ran again (Restarts=$(job "$id" Restarts))" test "$(job "$id" Restarts)" -ge 1
again=$(sl scontrol show hostnames "${st_fin##* }" | tr '\n' ' ')
check "it ran again on the two nodes left, not on $victim ($again)" \
	test "$(wc -w <<<"$again")" -eq 2 -a -n "${again##*"$victim "*}" -a -n "$victim"
check "the log says so (restart 1, 2 nodes)" grep -q "(restart [1-9]) on 2 nodes" "$log"
check "the node was lost mid-fetch: the fetch resumed" grep -q "resuming an interrupted fetch" "$log"
check "its CrawlDb equals the 1-process crawl's" cmp -s <(dump_db "$SCRATCH/ref") \
	<(dump_db "$SCRATCH/c2") ||
	diff <(dump_db "$SCRATCH/ref") <(dump_db "$SCRATCH/c2") | head -n 6 | cut -c1-300
[ "$(se "$st_fin")" = "COMPLETED 0:0" ] || grep -E 'crawl.sbatch|srun|slurmstepd' "$log" | tail -n 20

echo "nodes_slurm test: $((SECONDS - T_START)) s"
finish

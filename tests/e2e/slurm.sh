#!/usr/bin/env bash
# slurm/ on a real single-node Slurm: munged, slurmctld and slurmd from
# Debian's packages, started on loopback with their own key, config, ports,
# state and logs in the test's scratch directory (the system's /etc/munge,
# /etc/slurm and /run are not touched), stopped by PID at the end. Runs only
# as root; otherwise it reports itself skipped.
# - slurm/chain.sh submits N jobs, each after the last (afterok) - checked
#   with a stand-in sbatch that records its arguments;
# - jobs/academic.conf loads;
# - slurm/crawl.sbatch crawls a small simweb: the job completes (exit 0) and
#   the CrawlDb holds every URL of simweb's truth with its HTTP status;
# - a second crawl is requeued mid-crawl (`scontrol requeue`): the job stops
#   early (exit 75 inside), runs again, completes, and its CrawlDb equals the
#   first one's, with every WARC record whole;
# - a third is cancelled mid-fetch (`scancel`): it ends within
#   fetch.stop_grace_s + 15 s, the crawl exiting 75, and a new job on the
#   same directory completes it with the first one's CrawlDb;
# - a fourth reaches its time limit mid-fetch (--time=1 with
#   --signal=B:USR1@50): the crawl stops (75) within the grace and the job
#   requeues itself to continue.
# And without Slurm: scripts/mpicrawl-run turns a Ctrl-C (SIGINT to its
# process group) into a stop that exits 75, leaving a directory a second run
# completes; it passes --host and --hostfile to mpirun and sets mpirun's
# OOB keepalive unless the user did (a stand-in mpirun). The scripts
# across nodes: tests/e2e/nodes_slurm.sh.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: not root (a Slurm on loopback needs root)"
	echo "result: 0 passed, 0 failed"
	exit 0
fi
T_START=$SECONDS
HOSTS=10
PAGES=15

# ---- without Slurm ----
cat >"$SCRATCH/fake-sbatch" <<'EOF'
#!/usr/bin/env bash
n=$(($(wc -l <"$FAKE_LOG" 2>/dev/null || echo 0) + 1))
echo "$*" >>"$FAKE_LOG"
echo "$((100 + n));cluster"
EOF
chmod +x "$SCRATCH/fake-sbatch"
: >"$SCRATCH/fake.log"
FAKE_LOG=$SCRATCH/fake.log SBATCH=$SCRATCH/fake-sbatch "$ROOT/slurm/chain.sh" 3 /c seeds.txt \
	jobs/academic.conf 2 -- --nodes=2 >"$SCRATCH/chain.out"
export FAKE_LOG=$SCRATCH/fake.log
check "chain.sh prints 3 job ids" test "$(tr '\n' ' ' <"$SCRATCH/chain.out")" = "101 102 103 "
check "chain.sh: the first job has no dependency" \
	grep -q "^--parsable --nodes=2 $ROOT/slurm/crawl.sbatch /c seeds.txt jobs/academic.conf 2$" \
	"$SCRATCH/fake.log"
check "chain.sh: each later job waits for the one before (afterok)" \
	test "$(grep -c -- '--dependency=afterok:10[12] --kill-on-invalid-dep=yes' "$SCRATCH/fake.log")" -eq 2
# mpicrawl-run's mpirun, with a stand-in that prints its arguments and
# the OOB keepalive it got.
cat >"$SCRATCH/fake-mpirun" <<'EOF'
#!/bin/sh
echo "$*"
echo "keepalive $OMPI_MCA_oob_tcp_keepalive_time $OMPI_MCA_oob_tcp_keepalive_intvl $OMPI_MCA_oob_tcp_keepalive_probes"
EOF
chmod +x "$SCRATCH/fake-mpirun"
printf 'node1 slots=4\nnode2 slots=4\n' >"$SCRATCH/hosts"
fake_run() { env -u MPICRAWL MPIRUN="$SCRATCH/fake-mpirun" "$ROOT/scripts/mpicrawl-run" "$@" 2>&1; }
check "mpicrawl-run --hostfile: passed to mpirun, a rank per slot" test \
	"$(fake_run --hostfile "$SCRATCH/hosts" crawl --dir /c | head -n 1)" = \
	"-x MPICRAWL_RUN_ID --hostfile $SCRATCH/hosts $MPICRAWL crawl --dir /c"
check "mpicrawl-run --host with -n: both passed to mpirun" test \
	"$(fake_run -n 3 --host=node1,node2 crawl | head -n 1)" = \
	"-x MPICRAWL_RUN_ID --host node1,node2 -n 3 $MPICRAWL crawl"
check "mpicrawl-run: a hostfile it cannot read is refused (exit 2)" \
	expect 2 "cannot read the hostfile" "$ROOT/scripts/mpicrawl-run" --hostfile /nonexistent crawl
check "mpicrawl-run sets mpirun's OOB keepalive (10 s, 5 s, 3 probes)" test \
	"$(fake_run crawl | tail -n 1)" = "keepalive 10 5 3"
check "mpicrawl-run keeps a keepalive the user set" test \
	"$(OMPI_MCA_oob_tcp_keepalive_time=60 fake_run crawl | tail -n 1)" = "keepalive 60 5 3"
"$MPICRAWL" generate --dir "$SCRATCH/none" --config "$ROOT/jobs/academic.conf" >/dev/null 2>&1
check "jobs/academic.conf loads (exit 1: no crawl directory, not 2: bad config)" test $? -eq 1

# ---- a Slurm of our own ----
for b in munged slurmctld slurmd sbatch scontrol srun; do
	command -v "$b" >/dev/null || PATH=$PATH:/usr/sbin
	command -v "$b" >/dev/null || { echo "not ok: $b not installed (scripts/install-deps.sh)"; finish; exit 1; }
done
S=$SCRATCH/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 700 "$S/munge"
PIDS=()
stop_daemons() {
	local p i
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for i in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	PIDS=()
}
if [ -n "${KEEP_SCRATCH:-}" ]; then trap stop_daemons EXIT; else trap 'stop_daemons; cleanup' EXIT; fi

dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$S/munge/munge.key"
munged -F --force --key-file="$S/munge/munge.key" --socket="$S/munge/munge.sock" \
	--pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" \
	--seed-file="$S/munge/munged.seed" >"$S/munged.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do
	[ -S "$S/munge/munge.sock" ] && break
	sleep 0.1
done
check "munged started" test -S "$S/munge/munge.sock"

# Two free neighbouring ports on loopback for slurmctld and slurmd.
port=$(python3 -c '
import random, socket
for _ in range(200):
    p = random.randint(30000, 59000)
    try:
        for q in (p, p + 1):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
            s = socket.socket(); s.bind(("0.0.0.0", q)); s.close()
    except OSError:
        continue
    print(p); break')
HOST=$(hostname -s)
cat >"$S/slurm.conf" <<EOF
ClusterName=mpicrawltest
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
JobRequeue=1
KillWait=30
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
cat >"$S/cgroup.conf" <<'EOF'
CgroupPlugin=autodetect
IgnoreSystemd=yes
EOF
export SLURM_CONF=$S/slurm.conf
slurmctld -D -c -f "$SLURM_CONF" >"$S/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >"$S/slurmd.out" 2>&1 &
PIDS+=($!)
# On a loaded machine slurmd can take a while to register; a node left
# down or unknown is asked to resume. Bounded: 90 s.
up=
for i in $(seq 360); do
	state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1)
	case $state in idle*|mix*|alloc*) up=1; break ;; esac
	if [ $((i % 40)) -eq 0 ]; then
		case $state in down*|unk*|drain*)
			scontrol update NodeName="$HOST" State=RESUME >/dev/null 2>&1 ;;
		esac
	fi
	sleep 0.25
done
if ! check "slurmctld and slurmd up, node idle (was '${state:-}')" test -n "$up"; then
	tail -n 5 "$S/slurmctld.log" "$S/slurmd.log" "$S/slurmctld.out" "$S/slurmd.out" 2>/dev/null
	finish
	exit 1
fi
echo "slurm up in $((SECONDS - T_START)) s; mpi plugins: $(srun --mpi=list 2>&1 | tr -s ' \n' ' ')"

# ---- the crawls ----
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --truth --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/truth"
cat >"$SCRATCH/job.conf" <<EOF
fetch.allow_private = true
dns.servers = 127.0.0.1:$DNS_PORT
politeness.delay_ms = 100
partition.count = 8
fetch.stop_grace_s = 2
fetch.sync_interval_ms = 100
EOF

# job_state ID: STATE EXITCODE RESTARTS
job_state() {
	scontrol show job "$1" 2>/dev/null | tr ' ' '\n' |
		awk -F= '$1=="JobState"{s=$2} $1=="ExitCode"{e=$2} $1=="Restarts"{r=$2}
			END{print s, e, r}'
}
# wait_job ID SECONDS: waits for a final state, prints "STATE EXITCODE RESTARTS".
wait_job() {
	local id=$1 i st
	for ((i = 0; i < $2 * 4; i++)); do
		st=$(job_state "$id")
		case $st in COMPLETED*|FAILED*|CANCELLED*|TIMEOUT*|NODE_FAIL*|OUT_OF_MEMORY*) break ;; esac
		sleep 0.25
	done
	echo "$st"
}
truth_in_db() {
	"$MPICRAWL" readdb --dir "$1" --dump | python3 -c '
import sys, json
truth = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[1]))
db = {}
for line in sys.stdin:
    r = json.loads(line)
    db[r["url"]] = r
bad = [u for u, s in truth.items() if u not in db or str(db[u]["http_status"]) != s]
print("truth: %d URLs, %d missing or with another status %s" % (len(truth), len(bad), bad[:3]))
sys.exit(1 if bad else 0)' "$SCRATCH/truth"
}
submit() {
	sbatch --parsable --ntasks=2 --time=10 --chdir="$ROOT" --output="$SCRATCH/job-%j.log" \
		"$ROOT/slurm/crawl.sbatch" "$1" "$SCRATCH/seeds" "$SCRATCH/job.conf"
}
export MPICRAWL

id=$(submit "$SCRATCH/c1")
st=$(wait_job "$id" 60)
echo "job $id: $st; $(grep -m1 'via' "$SCRATCH/job-$id.log" 2>/dev/null)"
check "crawl job completes with exit 0" test "${st% *}" = "COMPLETED 0:0"
check "the crawl found simweb's truth" truth_in_db "$SCRATCH/c1"
[ "${st% *}" = "COMPLETED 0:0" ] || tail -n 15 "$SCRATCH/job-$id.log"

# Requeued mid-crawl: once the second round's segment exists.
id=$(submit "$SCRATCH/c2")
for _ in $(seq 240); do
	[ -d "$SCRATCH/c2/segments/00002" ] && break
	sleep 0.25
done
check "second crawl is running" test -d "$SCRATCH/c2/segments/00002"
scontrol requeue "$id"
check "scontrol requeue accepted" test $? -eq 0
# Slurm holds a requeued job back for a while (BeginTime): let it start now
# - but not within the second slurmd revoked the first run's credential:
# credential times have one-second granularity, and a run launched in that
# second is refused ("Job credential revoked") and the job fails.
for _ in $(seq 120); do
	case $(job_state "$id") in PENDING*) break ;; esac
	sleep 0.25
done
sleep 2
scontrol update JobId="$id" StartTime=now
st=$(wait_job "$id" 90)
echo "job $id: $st"
check "requeued job completes with exit 0" test "${st% *}" = "COMPLETED 0:0"
check "the job ran again (Restarts=${st##* })" test "${st##* }" -ge 1
check "the crawl stopped early once (exit 75)" grep -q "mpicrawl exited 75" "$SCRATCH/job-$id.log"
check "requeued crawl found simweb's truth" truth_in_db "$SCRATCH/c2"
check "requeued crawl's CrawlDb equals the first one's" cmp -s <(dump_db "$SCRATCH/c1") \
	<(dump_db "$SCRATCH/c2")
bad=0
for f in "$SCRATCH"/c2/segments/*/warc/*.warc.gz; do
	"$MPICRAWL" warc --check "$f" >/dev/null 2>&1 || bad=$((bad + 1))
done
check "every WARC file of the requeued crawl is whole" test "$bad" -eq 0
[ "${st% *}" = "COMPLETED 0:0" ] || tail -n 20 "$SCRATCH/job-$id.log"

# cancel_mid_fetch DIR: submits a crawl of DIR, cancels it (scancel:
# SIGTERM to every process of the job) once its second round fetches, and
# sets id, st (the job's final state) and took (seconds from scancel to the
# crawl's end, the script's last line: Slurm marks the job cancelled at
# once).
cancel_mid_fetch() {
	local t0
	id=$(submit "$1")
	for _ in $(seq 240); do
		[ -d "$1/segments/00002/warc" ] && break
		sleep 0.25
	done
	check "$(basename "$1"): the crawl is fetching" test -d "$1/segments/00002/warc"
	t0=$SECONDS
	scancel "$id"
	for _ in $(seq 240); do
		grep -q "mpicrawl exited" "$SCRATCH/job-$id.log" 2>/dev/null && break
		sleep 0.25
	done
	took=$((SECONDS - t0))
	st=$(wait_job "$id" 60)
	echo "job $id (${MPICRAWL_LAUNCH:-default launcher}): $st after scancel, $took s"
}

cancel_mid_fetch "$SCRATCH/c3"
check "scancel ends the job within fetch.stop_grace_s + 15 s (took $took s)" test "$took" -le 17
check "the cancelled crawl stopped early (exit 75)" grep -q "mpicrawl exited 75" "$SCRATCH/job-$id.log"
id=$(submit "$SCRATCH/c3")
st=$(wait_job "$id" 90)
check "a new job completes the cancelled crawl" test "${st% *}" = "COMPLETED 0:0"
check "its CrawlDb equals the first one's" cmp -s <(dump_db "$SCRATCH/c1") <(dump_db "$SCRATCH/c3")

# The same under mpirun inside the allocation: Slurm's SIGTERM reaches
# mpirun too, which must not keep the job (or the ranks) alive.
export MPICRAWL_LAUNCH=mpirun
cancel_mid_fetch "$SCRATCH/c5"
check "under mpirun, scancel ends the job within the grace + 15 s (took $took s)" test "$took" -le 17
check "under mpirun, the cancelled job exits 75" test "$(echo "$st" | cut -d' ' -f2)" = "75:0"
id=$(submit "$SCRATCH/c5")
st=$(wait_job "$id" 90)
check "under mpirun, a new job completes the cancelled crawl" test "${st% *}" = "COMPLETED 0:0"
unset MPICRAWL_LAUNCH

# The time limit, mid-fetch: a slower crawl, a limit of one minute, USR1
# when at most 50 s are left (Slurm may send it up to a minute early).
sed 's/^politeness.delay_ms = .*/politeness.delay_ms = 1000/' "$SCRATCH/job.conf" >"$SCRATCH/slow.conf"
id=$(sbatch --parsable --ntasks=2 --time=1 --signal=B:USR1@50 --chdir="$ROOT" \
	--output="$SCRATCH/job-%j.log" "$ROOT/slurm/crawl.sbatch" "$SCRATCH/c4" "$SCRATCH/seeds" \
	"$SCRATCH/slow.conf")
for _ in $(seq 400); do
	grep -q "requeued to continue" "$SCRATCH/job-$id.log" 2>/dev/null && break
	sleep 0.25
done
echo "job $id: $(grep -E 'got SIG|exited|requeued' "$SCRATCH/job-$id.log" | head -3 | tr '\n' ';')"
check "the time limit stops the crawl (USR1)" grep -q "got SIGUSR1" "$SCRATCH/job-$id.log"
check "the crawl stopped early (exit 75)" grep -q "mpicrawl exited 75" "$SCRATCH/job-$id.log"
check "the job requeued itself to continue" grep -q "requeued to continue" "$SCRATCH/job-$id.log" ||
	{ job_state "$id"; grep -vE ' r000[0-9] [a-z]+ I ' "$SCRATCH/job-$id.log" | tail -n 15; }
scancel "$id"
wait_job "$id" 60 >/dev/null
check "a stopped crawl's directory reads whole" "$MPICRAWL" check --dir "$SCRATCH/c4"
echo "slurm test: $((SECONDS - T_START)) s"
stop_daemons
finish

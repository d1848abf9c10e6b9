#!/usr/bin/env bash
# A Slurm of its own on a cluster of tests/nodes/nodes.sh: munged and
# slurmctld on the head node, one `slurmd -N nodeK` in each compute node's
# namespaces, with a key, a config, state, spool and logs of their own in
# DIR/slurm (the system's /etc/munge, /etc/slurm and /run are not touched).
# Needs root and Debian's munge, slurmctld and slurmd.
#
#   tests/nodes/slurm.sh up DIR [--slurmd-timeout S]  start it on the cluster in DIR
#   tests/nodes/slurm.sh down DIR                     stop it (idempotent)
#   tests/nodes/slurm.sh client DIR CMD...            run a Slurm command (sbatch,
#                                                     squeue, ...) on the head node
#
# up writes DIR/slurm/env (for `source`: SLURM_CONF, SLURM_DIR) and waits
# (bounded) until every node is idle; it fails, and stops what it started,
# when one is not. Clients must run on a node of the cluster (the head
# node, as a login node): the daemons listen on the bridge only. munged's
# socket is in DIR, which every node sees. The daemons are stopped by the
# PIDs DIR/slurm/pids records, never by name; what runs on a node besides
# them (slurmstepd, a job's ranks) goes with the node (nodes.sh kill/down).
#
# Short times, so that a test sees a lost node within seconds:
# SlurmdTimeout (default 10 s) marks a silent node DOWN, which ends its jobs
# (NODE_FAIL) and requeues those that may be; cred_expire=10 lets a
# requeued job start 10 s later (Slurm's default: 120 s); the main
# scheduling loop runs every 2 s (sched_interval; default 60 s); KillWait
# is 15 s. Each node has 2 CPUs.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NODES=$ROOT/tests/nodes/nodes.sh
PATH=$PATH:/usr/sbin:/sbin

die() {
	echo "nodes/slurm: $*" >&2
	exit 1
}

load() {
	[ -f "$1/env" ] || die "no cluster in '$1' (run: nodes.sh up $1 N)"
	# shellcheck disable=SC1091
	. "$1/env"
}

# on NODE CMD...: CMD on NODE.
on() {
	local node=$1
	shift
	"$NODES" exec "$NODES_DIR" "$node" "$@"
}

# start NAME NODE CMD...: starts a daemon on NODE, records its PID (nsenter
# execs the daemon: the PID is the daemon's).
start() {
	local name=$1 node=$2
	shift 2
	"$NODES" exec "$NODES_DIR" "$node" "$@" </dev/null >"$S/log/$name.out" 2>&1 &
	echo "$name $!" >>"$S/pids"
}

# Is PID one of ours, still running the program named $2?
ours() {
	local cmdline
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
	cmdline=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)
	[[ $cmdline == *"$2"* ]]
}

# cgroups NODE: slurmd will not start without cgroup file systems at
# /sys/fs/cgroup, and a node's /sys is the fresh sysfs of `ip netns exec`:
# mount there, in the node's mount namespace, what this machine has (the
# same hierarchies, not new ones).
cgroups() {
	local mounts
	mounts=$(awk '($3 == "cgroup" || $3 == "cgroup2" || $3 == "tmpfs") &&
		$2 ~ "^/sys/fs/cgroup(/|$)" { print $3, $2, $4 }' /proc/self/mounts)
	[ -n "$mounts" ] || die "this machine has no cgroup file system at /sys/fs/cgroup"
	# shellcheck disable=SC2016
	on "$1" bash -c '
		set -e
		[ "$(stat -f -c %T /sys/fs/cgroup)" = sysfs ] || exit 0
		while read -r type dir opts; do
			mkdir -p "$dir"
			mount -t "$type" -o "$opts" "$type" "$dir"
		done' cgroups <<<"$mounts" || die "cannot mount the cgroup file systems on $1"
}

write_conf() {
	local port=$1 timeout=$2 k
	cat >"$S/slurm.conf" <<EOF
ClusterName=mpcnodes$NODES_ID
SlurmctldHost=head($NODES_HEAD_ADDR)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
SlurmdTimeout=$timeout
MessageTimeout=5
KillWait=15
MinJobAge=600
EOF
	for ((k = 1; k <= NODES_N; k++)); do
		echo "NodeName=node$k NodeAddr=$NODES_NET.$((10 + k)) CPUs=2 State=UNKNOWN"
	done >>"$S/slurm.conf"
	echo "PartitionName=nodes Nodes=node[1-$NODES_N] Default=YES MaxTime=INFINITE State=UP" \
		>>"$S/slurm.conf"
	cat >"$S/cgroup.conf" <<'EOF'
CgroupPlugin=autodetect
IgnoreSystemd=yes
EOF
}

up() {
	local dir=$1 timeout=10 k i state
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--slurmd-timeout)
			[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--slurmd-timeout needs seconds"
			timeout=$2
			shift 2
			;;
		*) die "up: unknown option '$1'" ;;
		esac
	done
	for b in munged slurmctld slurmd sinfo; do
		command -v "$b" >/dev/null || die "$b is not installed (scripts/install-deps.sh)"
	done
	dir=$(cd "$dir" 2>/dev/null && pwd) || die "no directory '$1'"
	load "$dir"
	S=$dir/slurm
	[ -f "$S/pids" ] && die "'$dir' has a Slurm already; slurm.sh down it first"
	# Unix socket paths (munged's, slurmstepd's in the spool) hold 107 bytes.
	[ ${#S} -le 60 ] || die "'$S' is too long a path for the daemons' sockets"
	mkdir -p "$S/state" "$S/run" "$S/log" "$S/munge"
	for ((k = 1; k <= NODES_N; k++)); do mkdir -p "$S/spool/node$k"; done
	chmod 700 "$S/munge"
	: >"$S/pids"
	# The daemons listen in the cluster's namespaces only, where no other
	# run's are: any port does; a random one keeps two runs apart even so.
	local port=$((20000 + (0x$NODES_ID % 4000) * 10 + RANDOM % 10))
	write_conf "$port" "$timeout"
	cat >"$S/env" <<EOF
SLURM_CONF=$S/slurm.conf
SLURM_DIR=$S
EOF
	export SLURM_CONF=$S/slurm.conf

	dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$S/munge/munge.key"
	start munged head munged -F --force --key-file="$S/munge/munge.key" \
		--socket="$S/munge/munge.sock" --pid-file="$S/munge/munged.pid" \
		--log-file="$S/munge/munged.log" --seed-file="$S/munge/munged.seed"
	for i in $(seq 50); do
		[ -S "$S/munge/munge.sock" ] && break
		sleep 0.1
	done
	[ -S "$S/munge/munge.sock" ] || die "munged did not start: $(tail -n 2 "$S/log/munged.out")"
	start slurmctld head slurmctld -D -c -f "$SLURM_CONF"
	for ((k = 1; k <= NODES_N; k++)); do
		cgroups "node$k"
		start "slurmd-node$k" "node$k" slurmd -D -N "node$k" -f "$SLURM_CONF"
	done
	# Every node idle; one left down or unknown is asked to resume.
	# Bounded: 30 s.
	for i in $(seq 120); do
		state=$(on head sinfo -h -N -o '%N %t' 2>/dev/null | sort -u)
		if [ -n "$state" ] && ! grep -qvE ' (idle|mix|alloc)$' <<<"$state" &&
			[ "$(wc -l <<<"$state")" -eq "$NODES_N" ]; then
			echo "nodes/slurm: slurmctld on head, slurmd on node1..node$NODES_N (port $port)"
			return 0
		fi
		if [ $((i % 20)) -eq 0 ]; then
			on head scontrol update NodeName="node[1-$NODES_N]" State=RESUME >/dev/null 2>&1
		fi
		sleep 0.25
	done
	echo "nodes/slurm: nodes not idle after 30 s: $(tr '\n' ' ' <<<"$state")" >&2
	tail -n 3 "$S/log/slurmctld.log" "$S/log/node1.log" >&2 2>/dev/null
	return 1
}

down() {
	local dir=$1 name pid i
	S=$dir/slurm
	[ -f "$S/pids" ] || return 0
	# slurmd first, then slurmctld, then munged: each TERM, then KILL after 5 s.
	for pass in slurmd slurmctld munged; do
		while read -r name pid; do
			case $name in "$pass"*) ;; *) continue ;; esac
			ours "$pid" "$pass" || continue
			kill -TERM "$pid" 2>/dev/null
			for i in $(seq 50); do
				ours "$pid" "$pass" || break
				sleep 0.1
			done
			ours "$pid" "$pass" && kill -KILL "$pid" 2>/dev/null
		done <"$S/pids"
	done
	rm -f "$S/pids"
	return 0
}

case ${1:-} in
up)
	[ $# -ge 2 ] || die "usage: slurm.sh up DIR [--slurmd-timeout S]"
	shift
	up "$@" || { down "$(cd "$1" && pwd)"; exit 1; }
	;;
down)
	[ $# -eq 2 ] || die "usage: slurm.sh down DIR"
	down "$(cd "$2" 2>/dev/null && pwd || echo "$2")"
	;;
client)
	[ $# -ge 3 ] || die "usage: slurm.sh client DIR CMD..."
	load "$2"
	[ -f "$2/slurm/env" ] || die "no Slurm in '$2' (run: slurm.sh up $2)"
	# shellcheck disable=SC1091
	. "$2/slurm/env"
	export SLURM_CONF
	shift 2
	exec "$NODES" exec "$NODES_DIR" head "$@"
	;;
*)
	die "usage: slurm.sh up DIR [--slurmd-timeout S] | down DIR | client DIR CMD..."
	;;
esac

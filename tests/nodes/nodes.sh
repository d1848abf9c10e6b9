#!/usr/bin/env bash
# A small cluster on one machine, for the tests that must cross nodes: each
# node is a network namespace of its own, with its own hostname (a UTS
# namespace) and a mount namespace in which /tmp and /dev/shm are private
# tmpfs and /etc/hosts is the cluster's; the rest of / is shared, as a
# cluster filesystem is. Two networks, as many clusters have: the cluster
# network (MPI, Slurm) joins head and the compute nodes; the uplink (the
# way out to the web) joins them and the web. Needs root and
# iproute2's `ip netns`.
#
#   tests/nodes/nodes.sh up DIR N [--keep PATH]...   make head, web, node1..nodeN
#   tests/nodes/nodes.sh down DIR                     remove all of it (idempotent)
#   tests/nodes/nodes.sh exec DIR NODE CMD...         run CMD on NODE (env and cwd kept)
#   tests/nodes/nodes.sh cut DIR NODE [uplink]        cut NODE's links (its bridge ports
#                                                     down), or its uplink alone
#   tests/nodes/nodes.sh mend DIR NODE                ... and back up
#   tests/nodes/nodes.sh kill DIR NODE                KILL every process running on NODE
#   tests/nodes/nodes.sh can                          exit 0 if this machine can, else
#                                                     print why not and exit 1
#
# Nodes: `head` (the login node: mpirun and slurmctld run there), `web` (the
# local web and its DNS serve every node from it), node1..nodeN (the compute
# nodes). Addresses are in 198.18.0.0/15, the range set aside for
# benchmarks, with no default route: the cluster network 198.18.S.0/24
# (head .1, nodeK .(10+K)), the uplink 198.19.S.0/24 (head .1, web .2,
# nodeK .(10+K)). DIR (created) holds the run's state: env (for `source`:
# NODES_ID, NODES_NET and NODES_UPLINK (the networks' first three numbers),
# NODES_WEB_ADDR, NODES_HEAD_ADDR, NODES_N), the cluster's hosts
# file (DIR/etc/NODE.hosts, one per node, so that a test can make one node's
# differ), the namespaces' holder PIDs, and tests/nodes/rsh's map. Paths
# under /tmp that the nodes must still see (the checkout, DIR itself, a
# test's scratch) are kept: the checkout and DIR always, others by --keep.
#
# Names carry a random run id (netns mpcIDnNODE, bridges mpcbrID and
# mpcupID, ports mpcIDvK and mpcIDuK), so two runs at once do not collide;
# down removes exactly what up made, by the names and PIDs DIR records -
# also after a failed up.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() {
	echo "nodes: $*" >&2
	exit 1
}

can() {
	[ "$(id -u)" -eq 0 ] || { echo "not root"; return 1; }
	command -v ip >/dev/null || { echo "no ip (iproute2)"; return 1; }
	command -v nsenter >/dev/null && command -v unshare >/dev/null ||
		{ echo "no nsenter/unshare (util-linux)"; return 1; }
	# Names of this process's own: two probes at once do not collide.
	local t b
	t=mpcprobe$$
	b=$(printf 'mpcpb%x' $$)
	if ! ip netns add "$t" 2>/dev/null; then
		echo "ip netns add is not allowed here"
		return 1
	fi
	if ! ip link add "$b" type bridge 2>/dev/null; then
		ip netns del "$t"
		echo "cannot make a bridge here"
		return 1
	fi
	ip link del "$b"
	ip netns del "$t"
}

# node_names N: head web node1..nodeN
node_names() {
	local k
	echo head web
	for ((k = 1; k <= $1; k++)); do echo "node$k"; done
}

# node_addr NODE: its address on the cluster network (the web: on the uplink).
node_addr() {
	case $1 in
	head) echo "$NODES_NET.1" ;;
	web) echo "$NODES_UPLINK.2" ;;
	node*) echo "$NODES_NET.$((10 + ${1#node}))" ;;
	esac
}

load() {
	local dir=$1
	[ -f "$dir/env" ] || die "no cluster in '$dir' (run: nodes.sh up $dir N)"
	# shellcheck disable=SC1091
	. "$dir/env"
}

holder() {
	local pid
	pid=$(cat "$1/pid/$2" 2>/dev/null) || die "no node '$2' in '$1'"
	[ -d "/proc/$pid" ] || die "node '$2' is gone (holder $pid)"
	echo "$pid"
}

# The process that holds a node's namespaces: enters the network
# namespace, makes its own UTS and mount namespaces, sets them up, sleeps.
start_holder() {
	local dir=$1 node=$2 ns=$3 keep=$4
	# Inside: $1 node, $2 hosts file, $3 a place for the old /tmp, then the
	# paths under /tmp to keep.
	ip netns exec "$ns" unshare --uts --mount --propagation private -- bash -c '
		set -e
		node=$1 hosts=$2 old=$3
		shift 3
		hostname "$node"
		mkdir -p "$old"
		mount --rbind /tmp "$old"
		mount -t tmpfs -o mode=1777,size=1g tmpfs /tmp
		mount -t tmpfs -o mode=1777,size=1g tmpfs /dev/shm
		for p in "$@"; do
			mkdir -p "$p"
			mount --rbind "$old/${p#/tmp/}" "$p"
		done
		mount --bind "$hosts" /etc/hosts
		touch "$old/../ready"
		exec sleep infinity' nodes-holder "$node" "$dir/etc/$node.hosts" \
		"/run/mpicrawl-nodes/$NODES_ID/$node/oldtmp" $keep </dev/null >"$dir/log/$node.holder" 2>&1 &
	echo $! >"$dir/pid/$node"
	local i
	for i in $(seq 100); do
		[ -e "/run/mpicrawl-nodes/$NODES_ID/$node/ready" ] && return 0
		kill -0 "$!" 2>/dev/null || break
		sleep 0.05
	done
	die "node $node did not come up: $(tail -n 2 "$dir/log/$node.holder" 2>/dev/null)"
}

# link NS PORT DEV BRIDGE ADDR: a veth from BRIDGE (PORT) into NS (DEV).
link() {
	ip link add "$2" type veth peer name "$3" netns "$1" || die "cannot make $2"
	ip link set "$2" master "$4" up
	ip -n "$1" addr add "$5/24" dev "$3"
	ip -n "$1" link set "$3" up
}

up() {
	local dir=$1 n=$2
	shift 2
	local keeps=("$ROOT") p
	while [ $# -gt 0 ]; do
		case $1 in
		--keep) keeps+=("$2"); shift 2 ;;
		*) die "up: unknown option '$1'" ;;
		esac
	done
	[[ $n =~ ^[1-9][0-9]?$ ]] && [ "$n" -le 40 ] || die "up: N must be 1..40"
	why=$(can) || die "cannot make nodes here: $why"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	[ -f "$dir/env" ] && die "'$dir' has a cluster already; nodes.sh down it first"
	keeps+=("$dir")
	local keep=""
	for p in "${keeps[@]}"; do
		p=$(cd "$p" 2>/dev/null && pwd) || die "up: no such directory '$p'"
		case $p in /tmp/*) keep="$keep $p" ;; esac
	done
	# A run id no other run uses; the /24s picked from it (two runs may
	# share them: their bridges are not connected).
	local id i
	for i in $(seq 50); do
		id=$(printf '%04x' $((RANDOM % 65536)))
		ip netns list | grep -q "^mpc${id}" || ip link show "mpcbr$id" >/dev/null 2>&1 || break
	done
	local s=$((0x$id % 256))
	NODES_ID=$id
	NODES_NET=198.18.$s
	NODES_UPLINK=198.19.$s
	NODES_N=$n
	mkdir -p "$dir/pid" "$dir/log" "$dir/etc" "/run/mpicrawl-nodes/$id"
	cat >"$dir/env" <<EOF
NODES_DIR=$dir
NODES_ID=$id
NODES_NET=$NODES_NET
NODES_UPLINK=$NODES_UPLINK
NODES_N=$n
NODES_HEAD_ADDR=$NODES_NET.1
NODES_WEB_ADDR=$NODES_UPLINK.2
EOF
	local hosts="127.0.0.1 localhost"$'\n'
	for p in $(node_names "$n"); do hosts+="$(node_addr "$p") $p"$'\n'; done
	local br
	for br in "mpcbr$id" "mpcup$id"; do
		ip link add "$br" type bridge || die "cannot make bridge $br"
		ip link set "$br" up
	done
	local k=0
	for p in $(node_names "$n"); do
		local ns="mpc${id}n$p" port="mpc${id}v$k" up="mpc${id}u$k"
		k=$((k + 1))
		ip netns add "$ns" || die "cannot make namespace $ns"
		ip -n "$ns" link set lo up
		echo "$p $ns $port $up" >>"$dir/nodes"
		# head and the nodes on the cluster network ...
		if [ "$p" != web ]; then
			link "$ns" "$port" eth0 "mpcbr$id" "$(node_addr "$p")"
		fi
		# ... all of them and the web on the uplink.
		case $p in
		head) link "$ns" "$up" eth1 "mpcup$id" "$NODES_UPLINK.1" ;;
		web) link "$ns" "$up" eth1 "mpcup$id" "$NODES_UPLINK.2" ;;
		node*) link "$ns" "$up" eth1 "mpcup$id" "$NODES_UPLINK.$((10 + ${p#node}))" ;;
		esac
		printf '%s' "$hosts" >"$dir/etc/$p.hosts"
		start_holder "$dir" "$p" "$ns" "$keep"
	done
	echo "nodes: head, web, node1..node$n on $NODES_NET.0/24 (run $id) in $dir"
}

down() {
	local dir=$1 node ns port pid
	[ -f "$dir/env" ] || return 0
	load "$dir"
	if [ -f "$dir/nodes" ]; then
		while read -r node ns port up; do
			pid=$(cat "$dir/pid/$node" 2>/dev/null)
			# Whatever still runs on the node goes first, then its holder
			# (if that PID is still the holder: in the node's namespace).
			kill_node_procs "$ns" "$pid"
			if [ -n "$pid" ] && ip netns pids "$ns" 2>/dev/null | grep -qx "$pid"; then
				kill -KILL "$pid" 2>/dev/null
			fi
		done <"$dir/nodes"
		while read -r node ns port up; do
			ip link del "$port" 2>/dev/null
			ip link del "$up" 2>/dev/null
			ip netns del "$ns" 2>/dev/null
		done <"$dir/nodes"
	fi
	ip link del "mpcbr$NODES_ID" 2>/dev/null
	ip link del "mpcup$NODES_ID" 2>/dev/null
	rm -rf "/run/mpicrawl-nodes/$NODES_ID"
	rmdir /run/mpicrawl-nodes 2>/dev/null
	rm -f "$dir/env" "$dir/nodes"
	return 0
}

# kill_node_procs NS [HOLDER]: KILL every process in network namespace NS
# but the holder, until none is left (bounded: 5 s).
kill_node_procs() {
	local ns=$1 holder=${2:-} pids p i
	for i in $(seq 50); do
		pids=$(ip netns pids "$ns" 2>/dev/null | grep -vx "${holder:-none}")
		[ -z "$pids" ] && return 0
		for p in $pids; do kill -KILL "$p" 2>/dev/null; done
		sleep 0.1
	done
}

node_line() {
	local l
	l=$(awk -v n="$2" '$1 == n' "$1/nodes" 2>/dev/null)
	[ -n "$l" ] || die "no node '$2' in '$1'"
	echo "$l"
}

case ${1:-} in
can) can ;;
up)
	[ $# -ge 3 ] || die "usage: nodes.sh up DIR N [--keep PATH]..."
	shift
	dir=$1
	# up dies (exit) on a failure: in a subshell, so that what it made is
	# removed here, also when it is interrupted.
	trap 'exit 130' INT TERM
	if ! (up "$@"); then
		[ -f "$dir/env" ] && down "$(cd "$dir" && pwd)"
		exit 1
	fi
	;;
down)
	[ $# -eq 2 ] || die "usage: nodes.sh down DIR"
	down "$(cd "$2" 2>/dev/null && pwd || echo "$2")"
	;;
exec)
	[ $# -ge 4 ] || die "usage: nodes.sh exec DIR NODE CMD..."
	load "$2"
	pid=$(holder "$2" "$3")
	cwd=$PWD
	shift 3
	exec nsenter -t "$pid" -n -u -m --wd="$cwd" -- "$@"
	;;
cut|mend)
	[ $# -eq 3 ] || [ $# -eq 4 ] && [ "${4:-uplink}" = uplink ] ||
		die "usage: nodes.sh $1 DIR NODE [uplink]"
	load "$2"
	read -r _ _ port up < <(node_line "$2" "$3")
	state=$([ "$1" = cut ] && echo down || echo up)
	ip link set "$up" "$state" 2>/dev/null
	[ $# -eq 3 ] && ip link set "$port" "$state" 2>/dev/null
	true
	;;
kill)
	[ $# -eq 3 ] || die "usage: nodes.sh kill DIR NODE"
	load "$2"
	read -r _ ns _ < <(node_line "$2" "$3")
	kill_node_procs "$ns" "$(cat "$2/pid/$3")"
	;;
*)
	die "usage: nodes.sh up DIR N [--keep PATH]... | down DIR | exec DIR NODE CMD... |" \
		"cut|mend DIR NODE [uplink] | kill DIR NODE | can"
	;;
esac

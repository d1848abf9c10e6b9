#!/usr/bin/env bash
# Crawls across nodes: tests/nodes/nodes.sh makes a cluster on this machine
# (a network namespace per node, each with its own address, hostname, /tmp,
# /dev/shm and /etc/hosts; a cluster network for MPI and an uplink to the
# web; the rest of / shared as a cluster filesystem is), mpirun on the head
# node reaches the compute nodes through tests/nodes/rsh as it would by ssh,
# MPI talks TCP between them, and the local web serves every node from a
# node of its own. Checks:
# - the crawl on 4 nodes x 1 rank and on 2 nodes x 2 ranks ends with the
#   CrawlDb of one process on one node;
# - the 4-node crawl with two nodes' /etc/hosts naming every web host with
#   an address nothing answers on: with dns.servers set, no node reads its
#   hosts file, so nothing changes;
# - the 2 x 2 crawl started with its seeds, configuration and scope rules
#   in the first node's private /tmp, which no other node can read;
# - one node's uplink cut mid-fetch (MPI still works): that rank finds its
#   network down, the job stops within 90 s with exit 69 and a line naming
#   the node, no URL is marked failed, and the next job on the other nodes
#   ends with the CrawlDb of the uninterrupted crawl;
# - one node cut off entirely mid-fetch: the job ends within 90 s naming
#   it, its rank ends itself (comm.timeout_s), and the next job on the
#   other nodes ends with the uninterrupted crawl's CrawlDb;
# - a site that goes dark (its port unreachable from node4 mid-crawl, its
#   DNS still answering) is the site's failure, not the node's: the crawl
#   of that one site goes on to its end (exit 0) and records the errors.
# Needs root and network namespaces; otherwise it says "skip" and passes.
. "$(dirname "$0")/lib.sh"

NODES=$ROOT/tests/nodes/nodes.sh
if ! why=$("$NODES" can); then
	echo "skip: cannot make nodes here: $why"
	finish
	exit 0
fi
T0=$SECONDS
C=$SCRATCH/cluster
down() {
	"$NODES" down "$C" >/dev/null 2>&1
	[ -n "${KEEP_SCRATCH:-}" ] || cleanup
}
trap down EXIT
trap 'exit 130' INT TERM
"$NODES" up "$C" 4 --keep "$SCRATCH" >/dev/null || { echo "not ok: nodes up"; finish; exit 1; }
# shellcheck disable=SC1091
. "$C/env"

# The web, on its own node.
HOSTS=12
PAGES=10
nodes_web "$C" $HOSTS $PAGES || { echo "not ok: web"; finish; exit 1; }
cp "$SCRATCH/web.conf" "$SCRATCH/job.conf"
cat >>"$SCRATCH/job.conf" <<EOF
politeness.delay_ms = 150
partition.count = 8
fetch.connect_timeout_s = 3
fetch.low_speed_time_s = 5
dns.timeout_ms = 500
comm.timeout_s = 15
EOF

# on NODE CMD...: runs CMD on NODE.
on() {
	local node=$1
	shift
	"$NODES" exec "$C" "$node" "$@"
}

# across SECONDS NODE:SLOTS... -- mpicrawl args: mpirun from the head node,
# over TCP on the cluster network, with an OOB keepalive that lets it give
# up on a lost node in about 10 s (mpicrawl-run's 25 s, shortened for the
# test; shorter than comm.timeout_s, as docs/OPERATIONS.md asks).
across() {
	local limit=$1 spec hostfile=$SCRATCH/hostfile.$RANDOM n=0
	shift
	: >"$hostfile"
	while [ "$1" != -- ]; do
		spec=$1
		echo "${spec%:*} slots=${spec#*:}" >>"$hostfile"
		n=$((n + ${spec#*:}))
		shift
	done
	shift
	NODES_DIR=$C timeout -k 5 "$limit" "$NODES" exec "$C" head mpirun --hostfile "$hostfile" \
		-n "$n" --mca plm_rsh_agent "$ROOT/tests/nodes/rsh" --mca plm_rsh_no_tree_spawn 1 \
		--mca btl self,tcp --mca btl_tcp_if_include "$NODES_NET.0/24" \
		--mca oob_tcp_if_include "$NODES_NET.0/24" --mca oob_tcp_keepalive_time 4 \
		--mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3 \
		"$MPICRAWL" "$@"
}

# not_in WORDS FILE: FILE does not hold WORDS.
not_in() { ! grep -q -- "$1" "$2"; }

# failed_urls DIR: URLs whose status says their fetch failed.
failed_urls() {
	"$MPICRAWL" readdb --dir "$1" --dump | grep -cE '"status":"(error|timeout)"'
}

# The reference: one process on one node.
check "1 process on node1 exits 0" on node1 timeout 300 "$MPICRAWL" crawl --dir "$SCRATCH/one" \
	--seeds "$SCRATCH/seeds" --config "$SCRATCH/job.conf" >"$SCRATCH/one.log" 2>&1
dump_db "$SCRATCH/one" >"$SCRATCH/one.db"
check "the reference crawl fetched the web ($(wc -l <"$SCRATCH/one.db") URLs)" \
	test "$(grep -c '"status":"fetched"' "$SCRATCH/one.db")" -ge $((HOSTS * 5))
echo "reference: $(tail -n 1 "$SCRATCH/one.log" | cut -c 26-)"

# 4 nodes x 1 rank; node2's and node3's hosts files name every web host
# with an address nothing answers on.
for h in $(seq 0 $((HOSTS - 1))); do
	printf '%s h%04d.%s\n' "$NODES_UPLINK.99" "$h" "$SIMWEB_DOMAIN" |
		tee -a "$C/etc/node2.hosts" >>"$C/etc/node3.hosts"
done
t=$SECONDS
check "4 nodes x 1 rank: exits 0" across 300 node1:1 node2:1 node3:1 node4:1 -- crawl \
	--dir "$SCRATCH/four" --seeds "$SCRATCH/seeds" --config "$SCRATCH/job.conf" \
	>"$SCRATCH/four.log" 2>&1
echo "4 x 1: $((SECONDS - t)) s"
check "4 nodes x 1 rank: the CrawlDb of 1 process (hosts files ignored)" \
	cmp -s "$SCRATCH/one.db" <(dump_db "$SCRATCH/four")
# warc_nodes DIR: the nodes that wrote DIR's WARC files (their names end
# with the writer's host name).
warc_nodes() {
	ls "$1"/segments/*/warc/ | grep -oE -- '-node[0-9]+[.-]' | tr -d '.-' | sort -u | tr '\n' ' '
}
check "4 nodes x 1 rank: WARC files written on node1..node4 ($(warc_nodes "$SCRATCH/four"))" \
	test "$(warc_nodes "$SCRATCH/four")" = "node1 node2 node3 node4 "

# 2 nodes x 2 ranks, the job's files in node1's private /tmp.
on node1 mkdir -p /tmp/job
on node1 sh -c 'cat >/tmp/job/seeds' <"$SCRATCH/seeds"
on node1 sh -c 'cat >/tmp/job/scope.rules' <<EOF
+ .*
EOF
on node1 sh -c 'cat >/tmp/job/job.conf; echo "scope.rules = scope.rules" >>/tmp/job/job.conf' \
	<"$SCRATCH/job.conf"
check "the job's files are on node1 only" on node2 test ! -e /tmp/job/seeds
t=$SECONDS
check "2 nodes x 2 ranks, files in node1's /tmp: exits 0" across 300 node1:2 node2:2 -- crawl \
	--dir "$SCRATCH/two" --seeds /tmp/job/seeds --config /tmp/job/job.conf \
	>"$SCRATCH/two.log" 2>&1
echo "2 x 2: $((SECONDS - t)) s"
check "2 nodes x 2 ranks: the CrawlDb of 1 process" \
	cmp -s "$SCRATCH/one.db" <(dump_db "$SCRATCH/two")
check "2 nodes x 2 ranks: WARC files written on node1 and node2 ($(warc_nodes "$SCRATCH/two"))" \
	test "$(warc_nodes "$SCRATCH/two")" = "node1 node2 "
grep -m 3 -E ' [EW] ' "$SCRATCH/two.log"

# wait_fetching DIR: until a fetch of round 2 or later is under way (its
# journal exists), bounded: 60 s.
wait_fetching() {
	local i
	for i in $(seq 600); do
		compgen -G "$1/segments/0000[2-9]/fetch/*.journal" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# node_procs NODE: mpicrawl processes still running on NODE.
node_procs() {
	local ns p n=0
	ns=$(awk -v n="$1" '$1 == n { print $2 }' "$C/nodes")
	for p in $(ip netns pids "$ns" 2>/dev/null); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "^$MPICRAWL " && n=$((n + 1))
	done
	echo "$n"
}

# cut_test NAME [uplink]: cuts node3 (or its uplink alone) mid-fetch of a
# 4-node crawl; checks the end, then continues on the other three nodes.
cut_test() {
	local name=$1 how=${2:-} t rc i
	across 200 node1:1 node2:1 node3:1 node4:1 -- crawl --dir "$SCRATCH/$name" \
		--seeds "$SCRATCH/seeds" --config "$SCRATCH/job.conf" >"$SCRATCH/$name.log" 2>&1 &
	local job=$!
	check "$name: the crawl fetches round 2" wait_fetching "$SCRATCH/$name"
	"$NODES" cut "$C" node3 $how
	t=$SECONDS
	wait "$job"
	rc=$?
	echo "$name: the job ended $((SECONDS - t)) s after the cut, exit $rc"
	grep -E 'node3' "$SCRATCH/$name.log" | grep -vE '^\s*$' | head -n 4
	check "$name: the job ends within 90 s of the cut ($((SECONDS - t)) s)" \
		test $((SECONDS - t)) -le 90
	check "$name: the job exits non-zero" test "$rc" -ne 0
	check "$name: a line names node3" grep -qE 'node3' "$SCRATCH/$name.log"
	# A rank cut off ends itself within comm.timeout_s.
	for i in $(seq 400); do
		[ "$(node_procs node3)" -eq 0 ] && break
		sleep 0.25
	done
	check "$name: nothing of the crawl runs on node3 any more" test "$(node_procs node3)" -eq 0
	"$NODES" kill "$C" node3
	check "$name: no URL marked failed by the cut" test "$(failed_urls "$SCRATCH/$name")" -eq \
		"$(failed_urls "$SCRATCH/one")"
	t=$SECONDS
	check "$name: the next job on node1, node2, node4 exits 0" across 300 node1:1 node2:1 \
		node4:1 -- crawl --dir "$SCRATCH/$name" --seeds "$SCRATCH/seeds" \
		--config "$SCRATCH/job.conf" >"$SCRATCH/$name.2.log" 2>&1
	echo "$name: the next job took $((SECONDS - t)) s"
	check "$name: it ends with the uninterrupted crawl's CrawlDb" \
		cmp -s "$SCRATCH/one.db" <(dump_db "$SCRATCH/$name")
	# Mended, node3 reaches the web again before anything goes on.
	"$NODES" mend "$C" node3
	for i in $(seq 100); do
		on node3 timeout 1 bash -c "exec 3<>/dev/tcp/$NODES_WEB_ADDR/$SIMWEB_PORT" 2>/dev/null &&
			break
		sleep 0.1
	done
}

cut_test uplink uplink
check "uplink: the crawl exits 69 (a node's network was lost)" \
	grep -q 'Exit code: *69' "$SCRATCH/uplink.log"
check "uplink: node3's rank says its network is down" \
	grep -qE 'r0002 fetch W the network of this node \(node3\) looks down' "$SCRATCH/uplink.log"
cut_test cut

# A site that goes dark: the only server of a one-site crawl stops
# answering (an unreachable route for TCP to its port, from node4 only)
# while the resolver still does - which must testify.
printf 'http://h0000.%s:%s/\n' "$SIMWEB_DOMAIN" "$SIMWEB_PORT" >"$SCRATCH/one-site"
on node4 timeout 120 "$MPICRAWL" crawl --dir "$SCRATCH/dark" --seeds "$SCRATCH/one-site" \
	--config "$SCRATCH/job.conf" --set politeness.delay_ms=400 --rounds 3 \
	--set fetch.time_limit_s=15 >"$SCRATCH/dark.log" 2>&1 &
dark=$!
for _ in $(seq 100); do
	compgen -G "$SCRATCH/dark/segments/00002/fetch/*.journal" >/dev/null && break
	sleep 0.1
done
on node4 ip rule add pref 10 ipproto tcp dport "$SIMWEB_PORT" unreachable
wait "$dark"
rc=$?
on node4 ip rule del pref 10
check "a site gone dark: the crawl goes on to its end (exit $rc, not 69)" test "$rc" -eq 0
check "... it records the site's failures" test "$(failed_urls "$SCRATCH/dark")" -gt 0
check "... and no network down" not_in "looks down" "$SCRATCH/dark.log"
grep -m 2 -E ' [EW] ' "$SCRATCH/dark.log"

echo "nodes test: $((SECONDS - T0)) s"
finish

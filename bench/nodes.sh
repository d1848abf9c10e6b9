# shellcheck shell=bash
# shellcheck disable=SC2034 # FAILED and FLOOR_MISSED are run.sh's
# Benchmark G of bench/run.sh: one crawl on one node and across nodes.
# Sourced by run.sh, which provides say, md, WORK, SIMWEB, MPICRAWL,
# step_timeout, is_uint and FAILED.
#
# tests/nodes/nodes.sh makes a cluster of network namespaces on this
# machine (its own address, hostname, /tmp and /dev/shm each; MPI over TCP
# on a bridge between them; the web on a node of its own). One simweb
# (BENCH_G_HOSTS x BENCH_G_PAGES, default 60 x 60) is crawled completely
# from the head node by mpirun, twice with the same configuration:
#
#   1 node x 4 ranks    node1 slots=4, btl self,vader,tcp (shared memory)
#   4 nodes x 1 rank    node1..node4, btl self,tcp (the bridge)
#
# and reports each one's wall time, rounds, and the bytes the ranks sent
# each other per round and rank (stats.json's sent_bytes of every phase,
# summed over the segment, divided by the ranks; and the most one rank sent
# in a round), and whether the two CrawlDbs are equal. The nodes share this
# machine's cores: the figures say what crossing nodes costs the round's
# exchanges, not what more machines would bring. No floor.
#
# Knobs: BENCH_G_HOSTS=60, BENCH_G_PAGES=60, BENCH_G_DELAY_MS=100.

G_HOSTS=${BENCH_G_HOSTS:-60}
G_PAGES=${BENCH_G_PAGES:-60}
G_DELAY_MS=${BENCH_G_DELAY_MS:-100}

# nodes_mpirun CLUSTER HOSTFILE N BTL ARGS...: mpicrawl ARGS on N ranks of
# the node harness CLUSTER (tests/nodes/nodes.sh), started from its head
# node by mpirun over tests/nodes/rsh, MPI on the cluster network; at most
# 900 s. G and H (bench/weak.sh) start their crawls so.
nodes_mpirun() {
	local c=$1 hostfile=$2 n=$3 btl=$4
	shift 4
	NODES_DIR=$c timeout -k 5 "$(step_timeout 900)" "$ROOT/tests/nodes/nodes.sh" exec "$c" head \
		mpirun --hostfile "$hostfile" -n "$n" --mca plm_rsh_agent "$ROOT/tests/nodes/rsh" \
		--mca plm_rsh_no_tree_spawn 1 --mca btl "$btl" \
		--mca btl_tcp_if_include "$NODES_NET.0/24" --mca oob_tcp_if_include "$NODES_NET.0/24" \
		"$MPICRAWL" "$@"
}

# g_crawl NAME BTL HOST:SLOTS...: the crawl from the head node; its wall
# time in $WORK/g-NAME.wall.
g_crawl() {
	local name=$1 btl=$2 hostfile n=0 spec t0
	shift 2
	hostfile=$WORK/g-$name.hosts
	: >"$hostfile"
	for spec in "$@"; do
		echo "${spec%:*} slots=${spec#*:}" >>"$hostfile"
		n=$((n + ${spec#*:}))
	done
	say "G: crawling on $name"
	t0=$(date +%s%N)
	nodes_mpirun "$G_C" "$hostfile" "$n" "$btl" crawl --dir "$WORK/g-$name" \
		--seeds "$WORK/g-seeds" --config "$WORK/g.conf" >"$WORK/g-$name.out" 2>&1 ||
		{ say "G: the crawl on $name failed: $(tail -n 2 "$WORK/g-$name.out")"; return 1; }
	t0=$(($(date +%s%N) - t0))
	printf '%d.%03d\n' $((t0 / 1000000000)) $((t0 / 1000000 % 1000)) >"$WORK/g-$name.wall"
}

# g_row NAME LABEL: a table row from the crawl's stats.json files.
g_row() {
	python3 - "$WORK/g-$1" "$2" "$(cat "$WORK/g-$1.wall")" <<'PY'
import glob, json, sys
d, label, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
per_rank, most = [], 0
for f in sorted(glob.glob(d + "/segments/*/stats.json")):
    s = json.load(open(f))
    phases = [v for k, v in s.items() if isinstance(v, dict) and "seconds" in v]
    if not phases or "update" not in s:
        continue
    ranks = phases[0]["ranks"]
    sent = sum(p.get("sent_bytes", 0) for p in phases)
    per_rank.append(sent / ranks)
    most = max(most, sum(p.get("sent_bytes_rank_max", 0) for p in phases))
mean = sum(per_rank) / len(per_rank) if per_rank else 0
print("| %s | %.1f | %d | %.0f | %.0f | %.0f |" %
      (label, wall, len(per_rank), mean, max(per_rank or [0]), most))
PY
}

bench_g() {
	local why v same
	G_NODES=$ROOT/tests/nodes/nodes.sh
	md "## G. One node and across nodes"
	md ""
	for v in G_HOSTS G_PAGES G_DELAY_MS; do
		is_uint "${!v}" || { say "G: $v='${!v}' is not a number"; FAILED=1; return; }
	done
	if ! why=$("$G_NODES" can); then
		say "G: skipped: cannot make nodes here: $why"
		md "Skipped: this machine cannot make the nodes ($why)."
		md ""
		return
	fi
	G_C=$WORK/cluster
	"$G_NODES" up "$G_C" 4 --keep "$WORK" >/dev/null || { say "G: nodes up failed"; FAILED=1; return; }
	# shellcheck disable=SC1091
	. "$G_C/env"
	WEB_ADDR=$NODES_WEB_ADDR "$G_NODES" exec "$G_C" web "$ROOT/scripts/webenv.sh" start \
		"$G_C/web" --hosts "$G_HOSTS" --pages "$G_PAGES" >/dev/null ||
		{ say "G: the web did not start"; FAILED=1; g_down; return; }
	# shellcheck disable=SC1091
	. "$G_C/web/env"
	"$SIMWEB" --seeds --hosts "$G_HOSTS" --pages "$G_PAGES" --port "$SIMWEB_PORT" >"$WORK/g-seeds"
	cat >"$WORK/g.conf" <<EOF
fetch.allow_addresses = $NODES_UPLINK.0/24
dns.servers = $NODES_WEB_ADDR:$DNS_PORT
politeness.delay_ms = $G_DELAY_MS
partition.count = 16
EOF
	if g_crawl one-node self,vader,tcp node1:4 &&
		g_crawl four-nodes self,tcp node1:1 node2:1 node3:1 node4:1; then
		same=no
		cmp -s <(g_dump "$WORK/g-one-node") <(g_dump "$WORK/g-four-nodes") && same=yes
		md "simweb --hosts $G_HOSTS --pages $G_PAGES on the web node; \`mpicrawl crawl\` from the head node by mpirun (tests/nodes/rsh), \`politeness.delay_ms=$G_DELAY_MS\`, \`partition.count=16\`, until nothing is due. The four nodes are namespaces of this machine and share its $(nproc) cores. Sent: the records the ranks sent each other (\`stats.json\`'s \`sent_bytes\`, all phases of a round)."
		md ""
		md "| crawl | wall (s) | rounds | sent per round and rank, mean (bytes) | ... the largest round | one rank's most in a round |"
		md "|---|---|---|---|---|---|"
		md "$(g_row one-node '1 node x 4 ranks')"
		md "$(g_row four-nodes '4 nodes x 1 rank')"
		md ""
		md "The same CrawlDb: $same."
		[ "$same" = yes ] || FAILED=1
	else
		FAILED=1
	fi
	md ""
	g_down
}

g_dump() {
	"$MPICRAWL" readdb --dir "$1" --dump | sed -E 's/"fetched_at":[0-9]+,"next_fetch":[0-9]+,//' |
		LC_ALL=C sort
}

g_down() {
	"$G_NODES" down "$G_C" >/dev/null 2>&1
}

# shellcheck shell=bash
# shellcheck disable=SC2034 # FAILED is run.sh's
# Benchmark H of bench/run.sh: weak scaling - the URLs per rank fixed, the
# ranks 1, 2, 4 and 8 on the node harness (tests/nodes/nodes.sh: four
# network namespaces, MPI over TCP between them, the web on a node of its
# own; 8 ranks are 2 a node). Sourced by run.sh, which provides say, md,
# WORK, SIMWEB, MPICRAWL, step_timeout, is_uint and FAILED.
#
# Each run crawls a simweb of BENCH_H_HOSTS hosts per rank (x
# BENCH_H_PAGES pages) for BENCH_H_ROUNDS rounds with the same settings
# (partition.count=64, politeness.delay_ms=BENCH_H_DELAY_MS, the rest
# default), so every rank has the same work whatever the rank count. From
# each round's stats.json: the CPU of the mean rank (cpu_s / ranks, all
# phases), the bytes the mean rank sent the others (sent_bytes / ranks; comm
# counts them), and the round's overhead - generate + update wall seconds,
# the phases every rank waits for. A rank count that scales has these flat.
# The nodes share this machine's cores: 8 ranks on 2 cores, so walls grow
# with oversubscription; CPU and bytes do not. No floor.
#
# Knobs: BENCH_H_HOSTS=8 (per rank), BENCH_H_PAGES=40, BENCH_H_ROUNDS=4,
# BENCH_H_DELAY_MS=20, BENCH_H_RANKS="1 2 4 8".

H_HOSTS=${BENCH_H_HOSTS:-8}
H_PAGES=${BENCH_H_PAGES:-40}
H_ROUNDS=${BENCH_H_ROUNDS:-4}
H_DELAY_MS=${BENCH_H_DELAY_MS:-20}
H_RANKS=${BENCH_H_RANKS:-1 2 4 8}

# h_crawl N: the crawl on N ranks (spread over the 4 nodes), its web of
# N x H_HOSTS hosts; 0 or 1.
h_crawl() {
	local n=$1 hosts=$(($1 * H_HOSTS)) hostfile=$WORK/h-$1.hosts k per
	local web=$H_C/web-$1
	WEB_ADDR=$NODES_WEB_ADDR "$H_NODES" exec "$H_C" web "$ROOT/scripts/webenv.sh" start \
		"$web" --hosts "$hosts" --pages "$H_PAGES" >/dev/null ||
		{ say "H: the web of $hosts hosts did not start"; return 1; }
	# shellcheck disable=SC1090
	. "$web/env"
	"$SIMWEB" --seeds --hosts "$hosts" --pages "$H_PAGES" --port "$SIMWEB_PORT" >"$WORK/h-$n.seeds"
	cat >"$WORK/h-$n.conf" <<EOF
fetch.allow_addresses = $NODES_UPLINK.0/24
dns.servers = $NODES_WEB_ADDR:$DNS_PORT
politeness.delay_ms = $H_DELAY_MS
partition.count = 64
EOF
	: >"$hostfile"
	per=$(((n + 3) / 4))
	for ((k = 1; k <= 4 && k <= n; k++)); do
		echo "node$k slots=$per" >>"$hostfile"
	done
	say "H: $n ranks, $hosts hosts x $H_PAGES pages, $H_ROUNDS rounds"
	nodes_mpirun "$H_C" "$hostfile" "$n" self,vader,tcp crawl --dir "$WORK/h-$n" \
		--seeds "$WORK/h-$n.seeds" --rounds "$H_ROUNDS" --config "$WORK/h-$n.conf" \
		>"$WORK/h-$n.out" 2>&1
	k=$?
	WEB_ADDR=$NODES_WEB_ADDR "$H_NODES" exec "$H_C" web "$ROOT/scripts/webenv.sh" stop \
		"$web" >/dev/null 2>&1
	[ "$k" -eq 0 ] || { say "H: the crawl on $n ranks failed: $(tail -n 2 "$WORK/h-$n.out")"; return 1; }
}

# h_row N: the table row of the crawl on N ranks, from its stats.json files.
h_row() {
	python3 - "$WORK/h-$1" "$1" <<'PY'
import glob, json, sys
d, n = sys.argv[1], int(sys.argv[2])
rounds, cpu, cpu_max, sent, over, pages = 0, 0.0, 0.0, 0.0, 0.0, 0
for f in sorted(glob.glob(d + "/segments/*/stats.json")):
    s = json.load(open(f))
    if "update" not in s:
        continue
    ph = [v for v in s.values() if isinstance(v, dict) and "seconds" in v]
    rounds += 1
    cpu += sum(p.get("cpu_s", 0) for p in ph) / n
    cpu_max = max(cpu_max, sum(p.get("cpu_s_rank_max", 0) for p in ph))
    sent += sum(p.get("sent_bytes", 0) for p in ph) / n
    over += s["generate"]["seconds"] + s["update"]["seconds"]
    pages += s["fetch"]["counters"].get("fetched", 0)
r = max(rounds, 1)
print("| %d | %d | %d | %.0f | %.3f | %.3f | %.0f | %.3f |" %
      (n, rounds, pages, pages / n, cpu / r, cpu_max, sent / r, over / r))
PY
}

bench_h() {
	local why v n ok=1
	H_NODES=$ROOT/tests/nodes/nodes.sh
	md "## H. Weak scaling: ranks 1 to 8, the URLs per rank fixed"
	md ""
	for v in H_HOSTS H_PAGES H_ROUNDS H_DELAY_MS; do
		is_uint "${!v}" || { say "H: $v='${!v}' is not a number"; FAILED=1; return; }
	done
	if ! why=$("$H_NODES" can); then
		say "H: skipped: cannot make nodes here: $why"
		md "Skipped: this machine cannot make the nodes ($why)."
		md ""
		return
	fi
	H_C=$WORK/hcluster
	"$H_NODES" up "$H_C" 4 --keep "$WORK" >/dev/null || { say "H: nodes up failed"; FAILED=1; return; }
	# shellcheck disable=SC1091
	. "$H_C/env"
	md "Per rank: a simweb of $H_HOSTS hosts x $H_PAGES pages (the web has ranks x $H_HOSTS hosts, on the web node), $H_ROUNDS rounds of \`mpicrawl crawl\` from the head node by mpirun over the node harness (ranks spread over 4 nodes; 8 ranks are 2 a node), \`partition.count=64\`, \`politeness.delay_ms=$H_DELAY_MS\`. Per round, from \`stats.json\`: the mean rank's CPU (all phases), the most one rank used in a round, the bytes the mean rank sent the others, and the round's overhead (generate + update wall). The nodes share this machine's $(nproc) cores, so with more ranks than cores the walls include waiting for a core; CPU and bytes do not."
	md ""
	md "| ranks | rounds | pages fetched | per rank | CPU s per round, mean rank | most of one rank in a round | bytes sent per round, mean rank | generate + update s per round |"
	md "|---|---|---|---|---|---|---|---|"
	for n in $H_RANKS; do
		if h_crawl "$n"; then
			md "$(h_row "$n")"
		else
			md "| $n | failed | | | | | | |"
			ok=0
		fi
	done
	[ "$ok" = 1 ] || FAILED=1
	md ""
	"$H_NODES" down "$H_C" >/dev/null 2>&1
}

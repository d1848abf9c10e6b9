#!/usr/bin/env bash
# politeness.by = ip and = domain: every simweb host resolves to 127.0.0.1
# and lies under the registrable domain sim.test, so with either setting all
# hosts share one politeness budget. From the server's log: never two
# requests open at once, request starts at least the delay apart - across
# all hosts. By ip on 1 rank (hosts are grouped within a rank); by domain on
# 2 ranks with partition.by = domain, which puts a domain's hosts on one rank.
. "$(dirname "$0")/lib.sh"

DELAY=30
audit_serial() {
	python3 - "$1" "$DELAY" <<'PY'
import sys
rows = sorted((int(l.split("\t")[0]), int(l.split("\t")[1]), l.split("\t")[2])
              for l in open(sys.argv[1]))
delay = int(sys.argv[2]) * 1000
hosts = {h for _, _, h in rows}
bad = [(a[2], b[2], b[0] - a[0]) for a, b in zip(rows, rows[1:])
       if b[0] - a[0] < delay or b[0] < a[1]]
print("%d requests to %d hosts, %d too close or overlapping %s" % (len(rows), len(hosts), len(bad), bad[:3]))
sys.exit(1 if bad or len(hosts) < 4 else 0)
PY
}

start_web web --hosts 6 --pages 5 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 6 --pages 5 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
common=(--seeds "$SCRATCH/seeds" --set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=$DELAY)

before=$(wc -l <"$SIMWEB_LOG")
check "crawl with politeness.by=ip" run_ranks 1 crawl --dir "$SCRATCH/ip" "${common[@]}" \
	--set politeness.by=ip >"$SCRATCH/ip.out" 2>&1
sleep 0.3
tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$SCRATCH/ip.log"
check "by ip: one budget for all hosts of 127.0.0.1" audit_serial "$SCRATCH/ip.log"

before=$(wc -l <"$SIMWEB_LOG")
check "crawl with politeness.by=domain on 2 ranks" run_ranks 2 crawl --dir "$SCRATCH/dom" \
	"${common[@]}" --set politeness.by=domain --set partition.by=domain \
	>"$SCRATCH/dom.out" 2>&1
sleep 0.3
tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$SCRATCH/dom.log"
check "by domain: one budget for all hosts of sim.test" audit_serial "$SCRATCH/dom.log"
check "both crawls fetched the same URLs" test \
	"$(cut -f3,4 "$SCRATCH/ip.log" | sort | md5sum)" = "$(cut -f3,4 "$SCRATCH/dom.log" | sort | md5sum)"
finish

#!/usr/bin/env bash
# make demo: starts the local synthetic web (simweb) and a DNS server
# (dnsmasq) on loopback, crawls it with 2 MPI ranks, prints the summary and
# where the output is, and stops the servers.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_base_warn_component_unused=0
OUT=${DEMO_DIR:-$ROOT/demo-crawl}
WEB=$(mktemp -d "${TMPDIR:-/tmp}/mpicrawl-demo-web.XXXXXX")
HOSTS=${DEMO_HOSTS:-20}
PAGES=${DEMO_PAGES:-30}
ROUNDS=${DEMO_ROUNDS:-4}

stop() {
	scripts/webenv.sh stop "$WEB" >/dev/null 2>&1 || true
	rm -rf "$WEB"
}
trap stop EXIT

scripts/webenv.sh start "$WEB" --hosts "$HOSTS" --pages "$PAGES"
# shellcheck disable=SC1091
. "$WEB/env"
echo "demo: simweb serves $HOSTS hosts x $PAGES pages on 127.0.0.1:$SIMWEB_PORT;" \
     "dnsmasq answers *.sim.test on 127.0.0.1:$DNS_PORT"
rm -rf "$OUT"
bin/simweb --seeds --hosts "$HOSTS" --pages "$PAGES" --port "$SIMWEB_PORT" >"$WEB/seeds.txt"
echo "demo: mpirun -n 2 bin/mpicrawl crawl --dir $OUT --seeds seeds.txt --rounds $ROUNDS --config jobs/demo.conf"
mpirun --oversubscribe -n 2 bin/mpicrawl crawl --dir "$OUT" --seeds "$WEB/seeds.txt" \
	--rounds "$ROUNDS" --config jobs/demo.conf --set "dns.servers=127.0.0.1:$DNS_PORT"
echo
bin/mpicrawl readdb --dir "$OUT" --stats
echo
echo "demo: $(wc -l <"$SIMWEB_LOG") requests in the server's log"
echo "demo: WARC files:"
warcs=("$OUT"/segments/*/warc/*.warc.gz)
printf '  %s\n' "${warcs[@]:0:8}"
echo "  ... (${#warcs[@]} files)"
echo "demo: per-round counters in $OUT/segments/*/stats.json;" \
     "run 'bin/mpicrawl readdb --dir $OUT --dump' for every URL"
if "$ROOT/bin/mpicrawl" report --dir "$OUT" >/dev/null 2>&1; then
	echo "demo: charts of the crawl in $OUT/report.html; CDXJ, text and links in" \
	     "$OUT/segments/*/{cdxj,text,links}/ (docs/OUTPUTS.md)"
fi
echo "demo: the local web stops now; the crawl directory stays ('make demo' starts it afresh)"

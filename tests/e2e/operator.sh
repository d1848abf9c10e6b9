#!/usr/bin/env bash
# The operator's host rules (hosts.rules), judged from the server's log:
# - a blocked host gets no request at all, robots.txt included; its URLs
#   are blocked with reason operator in the CrawlDb and in the decision log;
# - a host given a longer delay_ms is kept to it, one given a shorter one
#   (via a *.domain rule) is fetched faster than the phase's delay;
# - the rules are read again by the next round: unblocked, the host's URLs
#   are fetched at once;
# - an address rule blocks every host that resolves into its range;
# - a bad rules file stops the job with its line named.
. "$(dirname "$0")/lib.sh"

HOSTS=6
PAGES=10
start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
D=$SIMWEB_DOMAIN
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
      --set politeness.delay_ms=150 --set partition.count=8)

cat >"$SCRATCH/hosts.rules" <<RULES
# blocked: not one request
h0001.$D block
h0002.$D delay_ms=400     # slowed down
*.$D delay_ms=0           # every other host of the web: as fast as it allows
RULES

# log_of NAME BEFORE: the server's log lines since line BEFORE.
log_of() {
	sleep 0.3   # simweb flushes its log every 100 ms
	tail -n +"$(($2 + 1))" "$SIMWEB_LOG" >"$SCRATCH/$1.log"
}

# min_gap_ms LOG HOST: the least time (ms, rounded down) between two request
# starts of HOST, as the server saw them (politeness.sh's measure).
min_gap_ms() {
	awk -F'\t' -v h="$2" '$3 == h { if (n++) { g = ($1 - s) / 1000; if (m == "" || g < m) m = g }
		s = $1 } END { print (m == "" ? 999999 : int(m)) }' "$1"
}

before=$(wc -l <"$SIMWEB_LOG")
check "crawl on 2 ranks with hosts.rules exits 0" run_ranks 2 crawl --dir "$SCRATCH/c" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set "hosts.rules=$SCRATCH/hosts.rules" \
	>"$SCRATCH/c.out" 2>&1 || tail -n 3 "$SCRATCH/c.out"
log_of c "$before"
check "no request of any kind reached the blocked host" test -z \
	"$(awk -F'\t' -v h="h0001.$D" '$3 == h' "$SCRATCH/c.log")"
"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump >"$SCRATCH/c.dump"
blocked=$(grep -c "h0001\.$D.*\"status\":\"blocked\".*\"reason\":\"operator\"" "$SCRATCH/c.dump")
check "the blocked host's URLs are blocked, reason operator ($blocked)" test "$blocked" -ge 1
check "... and none of them is anything else" test \
	"$(grep -c "\"url\":\"http://h0001\.$D" "$SCRATCH/c.dump")" -eq "$blocked"
for s in "$SCRATCH"/c/segments/*; do
	"$MPICRAWL" readdb --dir "$SCRATCH/c" --decisions --segment "$((10#${s##*/}))"
done >"$SCRATCH/c.decisions"
# each URL of the host once or more: when a link brought it, and when a
# round's fetch refused it
check "the decision log names them, reason operator" test \
	"$(grep "h0001\.$D.*\"reason\":\"operator\"" "$SCRATCH/c.decisions" | jq -r .url |
		sort -u | wc -l)" -eq "$blocked"

# The links of a crawl's last round are never fetched: their refusal is
# logged when the link comes. Every URL of the blocked host left in the
# CrawlDb by a crawl of one round is in the log.
check "one round with hosts.rules exits 0" run_ranks 2 crawl --dir "$SCRATCH/one" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set "hosts.rules=$SCRATCH/hosts.rules" \
	--rounds 1 >"$SCRATCH/one.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/one" --dump | jq -r .url | grep "^http://h0001\.$D" |
	LC_ALL=C sort >"$SCRATCH/one.urls"
"$MPICRAWL" readdb --dir "$SCRATCH/one" --decisions --segment 1 |
	jq -r 'select(.reason == "operator") | .url' | LC_ALL=C sort -u >"$SCRATCH/one.logged"
check "after the last round, every URL of the blocked host has its line ($(wc -l \
	<"$SCRATCH/one.urls") URLs, $(wc -l <"$SCRATCH/one.logged") logged)" eval \
	'[ -s "$SCRATCH/one.urls" ] && cmp -s "$SCRATCH/one.urls" "$SCRATCH/one.logged"'
"$MPICRAWL" readdb --dir "$SCRATCH/one" --decisions --segment 1 |
	jq -r 'select(.reason == "operator") | .from' >"$SCRATCH/one.from"
check "... a link's line names the page that linked it" grep -q '^http' "$SCRATCH/one.from"
slow=$(min_gap_ms "$SCRATCH/c.log" "h0002.$D")
fast=$(min_gap_ms "$SCRATCH/c.log" "h0000.$D")
echo "h0002 (delay_ms=400): min gap $slow ms; h0000 (delay_ms=0): min gap $fast ms"
check "the slowed host kept 400 ms from the server's side" test "$slow" -ge 400 -a "$slow" -lt 999999
check "the sped-up host got requests closer than the phase's 150 ms" test "$fast" -lt 150

# Steering between rounds: the block lifted, the next round fetches the host.
sed -i "/h0001/d" "$SCRATCH/hosts.rules"
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" | sed -n 2p >"$SCRATCH/again"
before=$(wc -l <"$SIMWEB_LOG")
check "the crawl goes on with the rules edited" run_ranks 1 crawl --dir "$SCRATCH/c" \
	"${opts[@]}" --set "hosts.rules=$SCRATCH/hosts.rules" >"$SCRATCH/c2.out" 2>&1 ||
	tail -n 3 "$SCRATCH/c2.out"
log_of c2 "$before"
check "the unblocked host is fetched, robots.txt first" test \
	"$(awk -F'\t' -v h="h0001.$D" '$3 == h { print $4; exit }' "$SCRATCH/c2.log")" = /robots.txt
check "... its blocked URLs fetched at once" test \
	"$("$MPICRAWL" readdb --dir "$SCRATCH/c" --dump | grep -c "h0001\.$D.*\"reason\":\"operator\"")" -eq 0

# An address rule: every host of the web resolves into 127.0.0.0/8.
printf '127.0.0.0/8 block\nh0000.%s delay_ms=0\n' "$D" >"$SCRATCH/cidr.rules"
before=$(wc -l <"$SIMWEB_LOG")
check "a crawl with an address block exits 0" run_ranks 1 crawl --dir "$SCRATCH/cidr" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set "hosts.rules=$SCRATCH/cidr.rules" \
	>"$SCRATCH/cidr.out" 2>&1
log_of cidr "$before"
check "an address block: no request at all (a name rule does not lift it)" test ! -s \
	"$SCRATCH/cidr.log"
check "... the seeds are blocked, reason operator" test "$("$MPICRAWL" readdb \
	--dir "$SCRATCH/cidr" --dump | grep -c '"status":"blocked".*"reason":"operator"')" -eq 3

printf 'h0000.%s block\nh0001.%s slow\n' "$D" "$D" >"$SCRATCH/bad.rules"
check "a bad rules file: exit 2, its line named" expect 2 "bad.rules:2: an unknown action" \
	"$MPICRAWL" crawl --dir "$SCRATCH/bad" --seeds "$SCRATCH/seeds" \
	--set "hosts.rules=$SCRATCH/bad.rules"
check "... nothing created" test ! -e "$SCRATCH/bad/crawl.meta"
finish

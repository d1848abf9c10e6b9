#!/usr/bin/env bash
# Following the crawler's own hint fixes a crawl (issue 34 item 1): URLs
# refused or failed because of the configuration are judged again as soon as
# a job runs with another configuration, whatever their next fetch time.
# Checked in the server's log and the CrawlDb:
# 1. a site on a loopback address: the crawl ends with "blocked: non-public
#    address ... set fetch.allow_private=true"; run again with the address
#    allowed, its pages are fetched;
# 2. names that do not resolve with the wrong dns.servers: the crawl ends
#    "dns: ..."; run again with the right dns.servers (and nothing else
#    changed, retry_interval_s left at a day) they are fetched;
# 3. a crawl continued without its --config: the URLs it found are refused;
#    continued with the config again, all of the web is fetched;
# 4. the same configuration again judges nothing again (no request at all);
# 5. links a narrow scope refused (seeds-hosts) are followed when the scope
#    widens (seeds-domains): the pages that had them are fetched again once,
#    and the crawl ends as one with the wide scope from the start.
. "$(dirname "$0")/lib.sh"

HOSTS=3
PAGES=5
start_web web --hosts $HOSTS --pages $PAGES ||
	{ echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
DNS="dns.servers=127.0.0.1:$DNS_PORT"
base=(--set politeness.delay_ms=0 --set partition.count=4 --set dns.timeout_ms=300)

# What the web holds for a crawl that goes right: the number of fetched URLs.
run_ranks 2 crawl --dir "$SCRATCH/ref" --seeds "$SCRATCH/seeds" "${base[@]}" \
	--set fetch.allow_addresses=127.0.0.1 --set "dns.servers=127.0.0.1:$DNS_PORT" \
	>"$SCRATCH/ref.out" 2>&1

# requests LOG: the non-robots requests in simweb's log so far
requests() { awk -F'\t' '$4 != "/robots.txt"' "$SIMWEB_LOG" | wc -l; }
# fetched DIR: URLs with status fetched in the CrawlDb
fetched() { "$MPICRAWL" readdb --dir "$1" --dump | grep -c '"status":"fetched"'; }

# ---- 1: a non-public address, then allowed ----
D=$SCRATCH/private
n0=$(requests)
run_ranks 2 crawl --dir "$D" --seeds "$SCRATCH/seeds" "${base[@]}" --set "$DNS" --rounds 2 \
	>"$SCRATCH/p1" 2>&1
check "blocked: the crawl says to set fetch.allow_private" \
	grep -q 'non-public address.*fetch.allow_private=true' "$SCRATCH/p1"
check "blocked: no page request reached the server" test "$(requests)" -eq "$n0"
run_ranks 2 crawl --dir "$D" "${base[@]}" --set "$DNS" --set fetch.allow_private=true \
	>"$SCRATCH/p2" 2>&1
rc=$?
check "allowed: exit 0" test "$rc" -eq 0
check "allowed: the seeds are fetched (server log)" test "$(requests)" -ge $((n0 + HOSTS))
all=$("$MPICRAWL" readdb --dir "$SCRATCH/ref" --dump | grep -c '"status":"fetched"')
echo "a crawl that goes right fetches $all URLs"
check "allowed: the whole web fetched" test "$(fetched "$D")" -eq "$all"
check "allowed: the hint is not repeated" bash -c "! grep -q 'non-public' '$SCRATCH/p2'"

# ---- 2: the wrong dns.servers, then the right ones ----
D=$SCRATCH/dns
n0=$(requests)
run_ranks 2 crawl --dir "$D" --seeds "$SCRATCH/seeds" "${base[@]}" \
	--set fetch.allow_addresses=127.0.0.1 --set dns.servers=127.0.0.1:9 \
	>"$SCRATCH/d1" 2>&1
check "wrong DNS: the crawl says to check dns.servers" grep -q 'dns: .*check it, and dns.servers' \
	"$SCRATCH/d1"
check "wrong DNS: nothing fetched" test "$(requests)" -eq "$n0"
run_ranks 2 crawl --dir "$D" "${base[@]}" --set fetch.allow_addresses=127.0.0.1 --set "$DNS" \
	--rounds 1 >"$SCRATCH/d2" 2>&1
check "right DNS: exit 0" test $? -eq 0
check "right DNS: the seeds are fetched (server log)" test "$(requests)" -ge $((n0 + HOSTS))
check "right DNS: fetched in the CrawlDb" test "$(fetched "$D")" -ge $HOSTS

# ---- 3: continued without its --config, then with it ----
D=$SCRATCH/conf
printf 'fetch.allow_addresses = 127.0.0.1\n%s\npoliteness.delay_ms = 0\npartition.count = 4\n%s\n' \
	"$DNS" 'generate.top_n = 6' >"$SCRATCH/web.conf"
run_ranks 2 crawl --dir "$D" --seeds "$SCRATCH/seeds" --config "$SCRATCH/web.conf" --rounds 1 \
	>"$SCRATCH/c1" 2>&1
one=$(fetched "$D")
run_ranks 2 crawl --dir "$D" --rounds 1 --set dns.timeout_ms=300 >"$SCRATCH/c2" 2>&1
check "without the config: nothing more fetched" test "$(fetched "$D")" -eq "$one"
check "without the config: URLs failed" bash -c \
	"'$MPICRAWL' readdb --dir '$D' --stats | grep -qE '^(error|blocked) +[1-9]'"
run_ranks 2 crawl --dir "$D" --config "$SCRATCH/web.conf" >"$SCRATCH/c3" 2>&1
check "with the config again: exit 0" test $? -eq 0
check "with the config again: the whole web fetched" test "$(fetched "$D")" -eq "$all"
check "with the config again: the CrawlDb of a crawl that went right" bash -c \
	"diff <('$MPICRAWL' readdb --dir '$D' --stats | tail -n +2) \
	      <('$MPICRAWL' readdb --dir '$SCRATCH/ref' --stats | tail -n +2)"

# ---- 5: a scope widened: the links it refused are followed ----
head -n 1 "$SCRATCH/seeds" >"$SCRATCH/seed1"
ok=(--set fetch.allow_addresses=127.0.0.1 --set "$DNS")
run_ranks 2 crawl --dir "$SCRATCH/wide-ref" --seeds "$SCRATCH/seed1" "${base[@]}" "${ok[@]}" \
	--set scope.mode=seeds-domains >"$SCRATCH/w0" 2>&1
D=$SCRATCH/narrow
run_ranks 2 crawl --dir "$D" --seeds "$SCRATCH/seed1" "${base[@]}" "${ok[@]}" \
	--set scope.mode=seeds-hosts >"$SCRATCH/w1" 2>&1
check "seeds-hosts: links to the other hosts refused (scope:mode)" bash -c \
	"'$MPICRAWL' readdb --dir '$D' --decisions --segment 1 | grep -q '\"scope:mode\"'"
narrow=$(fetched "$D")
run_ranks 2 crawl --dir "$D" "${base[@]}" "${ok[@]}" --set scope.mode=seeds-domains \
	>"$SCRATCH/w2" 2>&1
check "widened to seeds-domains: exit 0" test $? -eq 0
check "widened: more fetched ($narrow before, $(fetched "$D") now)" test "$(fetched "$D")" -gt "$narrow"
check "widened: the CrawlDb of a crawl that had the wide scope from the start" bash -c \
	"diff <('$MPICRAWL' readdb --dir '$D' --stats | tail -n +2) \
	      <('$MPICRAWL' readdb --dir '$SCRATCH/wide-ref' --stats | tail -n +2)"
check "config.since says the scope's refusals were judged again" grep -q ' rescoped$' "$D/config.since"
n0=$(requests)
run_ranks 2 crawl --dir "$D" "${base[@]}" "${ok[@]}" --set scope.mode=seeds-domains \
	>"$SCRATCH/w3" 2>&1
check "widened, run again: no request" test "$(requests)" -eq "$n0"

# ---- 4: the same configuration judges nothing again ----
n0=$(requests)
run_ranks 2 crawl --dir "$SCRATCH/private" "${base[@]}" --set "$DNS" \
	--set fetch.allow_private=true --rounds 1 >"$SCRATCH/p3" 2>&1
check "the same config: no request" test "$(requests)" -eq "$n0"
finish

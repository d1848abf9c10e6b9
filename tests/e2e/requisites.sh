#!/usr/bin/env bash
# Requisites of other hosts, fetched in their page's round (fetch/handoff.h),
# against Debian's nginx (scripts/tlsweb.sh): each good host's index page
# shows the next host's /img/shared.png, which no page of its own shows.
# - crawls on 1, 2 and 4 ranks: every shared.png in segment 1, the same
#   responses in every segment and the same CrawlDb on any rank count;
# - kill -9 of every rank at points inside the first fetch (before, during
#   and after the hand-off), then `crawl` again on 2 ranks: the CrawlDb of
#   the uninterrupted crawl, no page or requisite with two response records
#   (robots.txt is asked again), every WARC
#   file whole, every shared.png still in segment 1;
# - nginx's log: robots.txt before anything else of a host, no two requests
#   to a host closer than the delay (the hand-off's requests included);
# - a host reached only by a hand-off is bound by the robots cache as one of
#   the fetch lists is (its robots.txt not asked again).
. "$(dirname "$0")/lib.sh"
TEST_MPICRAWL=$ROOT/build/bin/mpicrawl-test

DELAY=60
check "tlsweb starts (nginx, dnsmasq, test CA)" start_tlsweb web --pages 6
P=$TLS_PORT
D=tls.test
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=$DELAY --set partition.count=8 --set "tls.ca_file=$TLS_CA"
	--set fetch.sync_interval_ms=50 --rounds 6)
printf '%s\n' "https://h2.$D:$P/" "https://h1.$D:$P/" "https://v6.$D:$P/" \
	"http://plain.$D:$HTTP_PORT/" >"$SCRATCH/seeds"

# "segment URL" of every response record of crawl directory $1.
responses() {
	local f s
	for f in "$1"/segments/*/warc/*.warc.gz; do
		s=${f#"$1"/segments/}
		s=${s%%/*}
		zcat "$f" | tr -d '\r' | awk -v s="$s" '
			/^WARC-Type: / { t = $2 }
			/^WARC-Target-URI: / && t == "response" { print s, $2 }'
	done | LC_ALL=C sort
}
shared_in_1() { grep -c '^00001 .*/img/shared\.png$' "$1" || true; }

for n in 1 2 4; do
	: >"$NGINX_LOG"
	check "crawl on $n ranks exits 0" run_ranks $n crawl --dir "$SCRATCH/c$n" \
		--seeds "$SCRATCH/seeds" "${opts[@]}" >"$SCRATCH/c$n.out" 2>&1
	tail -n 2 "$SCRATCH/c$n.out"
	responses "$SCRATCH/c$n" >"$SCRATCH/resp$n"
	dump_db "$SCRATCH/c$n" >"$SCRATCH/db$n"
	check "$n ranks: every shared.png fetched in segment 1 ($(shared_in_1 "$SCRATCH/resp$n") of 4)" \
		test "$(shared_in_1 "$SCRATCH/resp$n")" -eq 4
	cp "$NGINX_LOG" "$SCRATCH/nginx$n.log"
done
check "the same responses in every segment on 1, 2 and 4 ranks ($(wc -l <"$SCRATCH/resp1"))" \
	eval 'cmp -s "$SCRATCH/resp1" "$SCRATCH/resp2" && cmp -s "$SCRATCH/resp1" "$SCRATCH/resp4"'
diff "$SCRATCH/resp1" "$SCRATCH/resp4" | head -n 4
check "the same CrawlDb on 1, 2 and 4 ranks ($(wc -l <"$SCRATCH/db1") URLs)" \
	eval 'cmp -s "$SCRATCH/db1" "$SCRATCH/db2" && cmp -s "$SCRATCH/db1" "$SCRATCH/db4"'
check "nothing left unfetched after the crawl" \
	eval '! grep -q "\"status\":\"unfetched\"" "$SCRATCH/db2"'

# nginx's log of the 4-rank crawl: robots.txt first, the delay kept.
polite() {
	python3 - "$1" "$DELAY" <<'PY'
import sys, collections
log, delay = sys.argv[1], int(sys.argv[2])
starts, first, bad = collections.defaultdict(list), {}, 0
for line in open(log):
    f = line.rstrip("\n").split("\t")
    if len(f) != 22 or f[18] == "tlsweb.sh probe":
        continue
    host = f[4]
    starts[host].append(float(f[0]) - float(f[19]))
    first.setdefault(host, f[13])
for host, path in first.items():
    if path != "/robots.txt":
        print("first request of", host, "was", path); bad += 1
for host, ts in starts.items():
    ts.sort()
    for a, b in zip(ts, ts[1:]):
        if (b - a) * 1000 < delay - 1:
            print("requests to %s %.1f ms apart" % (host, (b - a) * 1000)); bad += 1
if not starts:
    print("no request of the crawl in the log (its format: scripts/tlsweb.sh)"); bad += 1
sys.exit(1 if bad else 0)
PY
}
check "nginx's log (4 ranks): robots.txt first, no request within ${DELAY} ms" \
	polite "$SCRATCH/nginx4.log"

# ---- a handed-over host's robots cache ----
# Round 1 fetches h1's home page alone (its robots.txt goes into the robots
# cache); round 2 fetches h2's, which shows h1's shared.png: handed over to
# h1's rank, which has h1 in no fetch list - the cache must still bind it:
# its robots.txt is not asked again, and the delay since round 1 holds.
: >"$NGINX_LOG"
one=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=$DELAY --set partition.count=8 --set "tls.ca_file=$TLS_CA"
	--set fetch.follow_max=0 --rounds 1)
printf 'https://%s/\tmax_depth=0\n' "h1.$D:$P" >"$SCRATCH/seeds_h1"
echo "https://h2.$D:$P/" >"$SCRATCH/seeds_h2"
check "round 1 (h1's home page, no requisites) exits 0" run_ranks 2 crawl --dir "$SCRATCH/late" \
	--seeds "$SCRATCH/seeds_h1" "${one[@]}" --set fetch.embeds=false >"$SCRATCH/late1.out" 2>&1
check "round 2 (h2's home page) exits 0" run_ranks 2 crawl --dir "$SCRATCH/late" \
	--seeds "$SCRATCH/seeds_h2" "${one[@]}" >"$SCRATCH/late2.out" 2>&1
h1_robots=$(awk -F'\t' -v h="h1.$D" '$5 == h && $14 == "/robots.txt"' "$NGINX_LOG" | wc -l)
h1_shared=$(awk -F'\t' -v h="h1.$D" '$5 == h && $14 == "/img/shared.png"' "$NGINX_LOG" | wc -l)
check "h1's shared.png fetched in round 2 ($h1_shared), its robots.txt from the cache (asked $h1_robots times)" \
	test "$h1_shared" -eq 1 -a "$h1_robots" -eq 1

# ---- kill -9 inside the first fetch, then resume ----
db_lines() {
	"$MPICRAWL" readdb --dir "$1" --dump | jq -r '"\(.url) \(.status) \(.http_status) \(.digest)"' |
		LC_ALL=C sort
}
db_lines "$SCRATCH/c2" >"$SCRATCH/ref"
fetch_ms=$(jq '.fetch.seconds * 1000 | floor' "$SCRATCH/c2/segments/00001/stats.json")
echo "first fetch of the reference: $fetch_ms ms"
for pct in 35 70 90 97; do
	ms=$((fetch_ms * pct / 100))
	k=$SCRATCH/k$pct
	MPICRAWL_TEST_KILL="fetch 1 $ms -1 9" timeout 300 mpirun --oversubscribe -x MPICRAWL_TEST_KILL \
		-n 2 "$TEST_MPICRAWL" crawl --dir "$k" --seeds "$SCRATCH/seeds" "${opts[@]}" \
		>"$k.out" 2>&1
	check "killed at $ms ms of the first fetch: crawl again on 2 ranks exits 0" \
		run_ranks 2 crawl --dir "$k" "${opts[@]}" >"$k.resume" 2>&1
	db_lines "$k" >"$k.db"
	check "killed at $ms ms: the CrawlDb of the uninterrupted crawl" cmp -s "$SCRATCH/ref" "$k.db"
	diff "$SCRATCH/ref" "$k.db" | head -n 4
	responses "$k" >"$k.resp"
	# (robots.txt is asked again by a resumed fetch: its cache is written at the end)
	check "killed at $ms ms: no page or requisite with two responses, every shared.png in segment 1" \
		eval '[ -z "$(cut -d" " -f2 "$k.resp" | grep -v "/robots\.txt$" | sort | uniq -d | head -n 1)" ] &&
		test "$(shared_in_1 "$k.resp")" -eq 4'
	check "killed at $ms ms: every WARC file whole" \
		eval 'for f in "$k"/segments/*/warc/*.warc.gz; do "$MPICRAWL" warc --check "$f" >/dev/null || exit 1; done'
done

finish

#!/usr/bin/env bash
# What a new user meets when a campaign goes wrong (issue 12's cases), each
# checked against what the crawler does and leaves behind:
# 0. the suite on a bare clone: the tests of the public conformance suites
#    report themselves skipped when the suites are absent;
# 1. a crawl directory whose crawl.meta is gone, or belongs to another
#    crawl: refused in one line, never re-initialised, the CrawlDb intact;
# 2. WARC files removed under a running fetch: the fetch is not committed,
#    and the next run fetches those URLs again;
# 3. seed files that are empty, all invalid, or start with a byte order
#    mark; `crawl --seeds` on a crawl that goes on adds the new seeds;
# 8. a seed line holding a terminal escape sequence is logged escaped;
# 9. configuration errors found before anything runs: bad dns.servers,
#    bad fetch.allow_addresses, a key set twice, a 1 MB line;
# 6. a damaged near-duplicate store or CrawlDb part is found before a round
#    spends work (no segment is generated), named with the command that
#    repairs it; a damaged seen-set is rebuilt;
# 7. `mpicrawl check` finds each damage, --repair mends what is safe, and
#    the crawl then goes on;
# 5. Ctrl-C (SIGINT to its process group) and SIGTERM to
#    scripts/mpicrawl-run stop the crawl within fetch.stop_grace_s + 15 s
#    with exit 75, and the directory continues.
. "$(dirname "$0")/lib.sh"

# one_line: stderr of the last expect is one line.
one_line() { [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err"; return 1; }; }

urls() { "$MPICRAWL" readdb --dir "$1" --dump | wc -l; }

# ---- 0: the conformance suites absent ----
skipped() {
	local out
	out=$(CONFORMANCE_DIR=/nonexistent "$@" 2>&1) || { echo "$out" | tail -3; return 1; }
	echo "$out" | grep -qE '^result: [0-9]+ passed, 0 failed, [0-9]+ skipped$' &&
		echo "$out" | grep -q '^skip: .*CONFORMANCE_DIR'
}
check "test_robots without the suites: skipped, not failed" skipped "$ROOT/build/tests/test_robots"
check "test_warc without the suites: skipped, not failed" skipped "$ROOT/build/tests/test_warc"
check "url_conformance.sh without the suites: skipped" skipped bash "$ROOT/tests/e2e/url_conformance.sh"

# ---- 3: seeds ----
D=$SCRATCH/seeds-dir
: >"$SCRATCH/empty.txt"
check "empty seed file: exit 2" expect 2 "no valid seed in .*empty.txt" \
	"$MPICRAWL" crawl --dir "$D" --seeds "$SCRATCH/empty.txt"
check "empty seed file: nothing created" test ! -e "$D"
printf '# only comments\nnot a url\nftp://x.example/\n\n' >"$SCRATCH/invalid.txt"
check "all-invalid seeds: exit 2, counted" expect 2 "no valid seed .*4 lines, 2 invalid" \
	"$MPICRAWL" crawl --dir "$D" --seeds "$SCRATCH/invalid.txt"
check "all-invalid seeds: one line" one_line
check "all-invalid seeds: nothing created" test ! -e "$D"
check "all-invalid seeds on inject: exit 2" expect 2 "no valid seed" \
	"$MPICRAWL" inject --dir "$D" --seeds "$SCRATCH/invalid.txt"
printf '\xef\xbb\xbfhttp://bom.example/\nhttp://two.example/\n' >"$SCRATCH/bom.txt"
check "BOM-prefixed seeds: injected" expect 0 "2 valid, 0 invalid, 2 new" \
	"$MPICRAWL" inject --dir "$D" --seeds "$SCRATCH/bom.txt" --set partition.count=4
check "BOM-prefixed seeds: the first URL is whole" bash -c \
	"'$MPICRAWL' readdb --dir '$D' --dump | grep -q '\"url\":\"http://bom.example/\"'"

# ---- 8: a terminal escape in a seed ----
printf 'http://ok.example/\n\033]0;pwned\007http://evil.example/\n' >"$SCRATCH/esc.txt"
"$MPICRAWL" inject --dir "$SCRATCH/esc-dir" --seeds "$SCRATCH/esc.txt" \
	--set partition.count=2 >/dev/null 2>"$SCRATCH/esc.err"
check "an escape sequence in a seed is logged escaped" grep -q 'x1b\]0;pwned\\x07' "$SCRATCH/esc.err"
check "no raw ESC or BEL reaches the terminal" bash -c "! grep -qP '[\x1b\x07]' '$SCRATCH/esc.err'"

# ---- 9: configuration errors before anything runs ----
C=$SCRATCH/cfg-dir
printf 'http://a.example/\n' >"$SCRATCH/one.txt"
check "bad dns.servers: exit 2 at once" expect 2 "dns.servers: bad value 'not-an-ip'" \
	"$MPICRAWL" crawl --dir "$C" --seeds "$SCRATCH/one.txt" --set dns.servers=not-an-ip
check "bad dns.servers: one line" one_line
check "bad dns.servers port" expect 2 "dns.servers: bad value" \
	"$MPICRAWL" crawl --dir "$C" --seeds "$SCRATCH/one.txt" --set dns.servers=127.0.0.1:99999
check "bad fetch.allow_addresses: exit 2 at once" expect 2 "fetch.allow_addresses: bad value" \
	"$MPICRAWL" crawl --dir "$C" --seeds "$SCRATCH/one.txt" --set fetch.allow_addresses=10.0.0.0/99
check "bad robots.agent" expect 2 "robots.agent: bad value" \
	"$MPICRAWL" crawl --dir "$C" --seeds "$SCRATCH/one.txt" --set "robots.agent=my bot"
check "no state after configuration errors" test ! -e "$C"
check "good dns.servers list accepted" expect 0 "" \
	"$MPICRAWL" inject --dir "$C" --seeds "$SCRATCH/one.txt" \
	--set "dns.servers=127.0.0.1:5353, [::1]:53,10.1.2.3"
printf 'politeness.delay_ms = 10\n# a comment\npoliteness.delay_ms = 20\n' >"$SCRATCH/dup.conf"
check "a key set twice names both lines" expect 2 "dup.conf:3: 'politeness.delay_ms' is set again \(first at line 1\)" \
	"$MPICRAWL" crawl --dir "$C" --config "$SCRATCH/dup.conf"
python3 -c "print('http.user_agent = ' + 'x' * (1 << 20))" >"$SCRATCH/long.conf"
check "a 1 MB line: line too long" expect 2 "long.conf:1: line too long" \
	"$MPICRAWL" crawl --dir "$C" --config "$SCRATCH/long.conf"

# ---- 1: crawl.meta gone, or another crawl's ----
start_web web --hosts 3 --pages 6 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 3 --pages 6 --port "$SIMWEB_PORT" >"$SCRATCH/web-seeds"
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=0 --set partition.count=4)
M=$SCRATCH/meta
timeout 300 "$MPICRAWL" crawl --dir "$M" --seeds "$SCRATCH/web-seeds" "${opts[@]}" --rounds 2 \
	>/dev/null 2>&1
before=$(urls "$M")
check "a crawl of two rounds" test "$before" -gt 6
mv "$M/crawl.meta" "$SCRATCH/crawl.meta.saved"
check "crawl.meta gone: refused" expect 1 "has a CrawlDb but no crawl.meta" \
	"$MPICRAWL" crawl --dir "$M" "${opts[@]}" --set partition.count=16
check "crawl.meta gone: one line" one_line
check "crawl.meta gone: not re-created" test ! -e "$M/crawl.meta"
check "crawl.meta gone: also with --seeds" expect 1 "no crawl.meta" \
	"$MPICRAWL" crawl --dir "$M" --seeds "$SCRATCH/web-seeds" "${opts[@]}"
timeout 60 "$MPICRAWL" inject --dir "$SCRATCH/other" --seeds "$SCRATCH/one.txt" \
	--set partition.count=16 >/dev/null 2>&1
cp "$SCRATCH/other/crawl.meta" "$M/crawl.meta"
check "another crawl's crawl.meta: refused" expect 1 "crawl.meta says 16 partitions" \
	"$MPICRAWL" crawl --dir "$M"
mv "$SCRATCH/crawl.meta.saved" "$M/crawl.meta"
check "crawl.meta restored: the CrawlDb is whole" test "$(urls "$M")" -eq "$before"

# ---- 3: crawl --seeds on a crawl that goes on ----
printf 'http://h0001.%s:%s/\nhttp://h0002.%s:%s/extra/new-seed\n' "$SIMWEB_DOMAIN" "$SIMWEB_PORT" \
	"$SIMWEB_DOMAIN" "$SIMWEB_PORT" >"$SCRATCH/more.txt"
check "crawl --seeds on a crawl that goes on: new seeds added" expect 0 "2 valid, 0 invalid, 1 new" \
	timeout 300 "$MPICRAWL" crawl --dir "$M" --seeds "$SCRATCH/more.txt" "${opts[@]}" --rounds 1
check "the new seed is in the CrawlDb" bash -c \
	"'$MPICRAWL' readdb --dir '$M' --dump | grep -q '/extra/new-seed'"

# ---- 6, 7: damage found before a round, mpicrawl check ----
K=$SCRATCH/check
timeout 300 "$MPICRAWL" crawl --dir "$K" --seeds "$SCRATCH/web-seeds" "${opts[@]}" --rounds 3 \
	>/dev/null 2>&1
check "check: a whole crawl directory has no problem" \
	bash -c "'$MPICRAWL' check --dir '$K' >'$SCRATCH/out'"
check "check: it read the WARC records" grep -qE '[1-9][0-9]* WARC records checked: 0 problems' \
	"$SCRATCH/out"
ver=$(cat "$K/crawldb/CURRENT")
vdir=$K/crawldb/$(printf %05d "$ver")
segs=$(ls "$K/segments" | wc -l)
lsh=$(ls "$vdir"/lsh-*.zst | head -1)
echo garbage >"$lsh"
check "a damaged store: the round refuses before generating" expect 1 "mpicrawl check --dir .* --repair" \
	"$MPICRAWL" crawl --dir "$K" "${opts[@]}" --rounds 1
check "  naming the file" grep -q "damaged file '$lsh'" "$SCRATCH/err"
check "  and no segment was generated" test "$(ls "$K/segments" | wc -l)" -eq "$segs"
check "check names the damaged store" expect 1 "damaged near-duplicate store '$lsh'" \
	"$MPICRAWL" check --dir "$K"
seen=$(ls "$vdir"/seen-*.bloom | head -1)
head -c 100 /dev/urandom >"$seen"
check "check names the damaged seen-set" expect 1 "damaged seen-set '$seen'" \
	"$MPICRAWL" check --dir "$K"
check "check --repair mends both" expect 0 "repaired: seen-set .* rebuilt" \
	"$MPICRAWL" check --dir "$K" --repair
check "  the stores dropped, said" grep -q "near-duplicate stores of CrawlDb version $ver were dropped" \
	"$SCRATCH/err"
check "after the repair, check finds nothing" "$MPICRAWL" check --dir "$K"
part=$(ls "$vdir"/part-*.zst | head -1)
truncate -s 20 "$part"
check "a damaged CrawlDb part: the round refuses" expect 1 "damaged file '$part'" \
	"$MPICRAWL" crawl --dir "$K" "${opts[@]}" --rounds 1
check "check --repair goes back a version" expect 0 "back to version $((ver - 1))" \
	"$MPICRAWL" check --dir "$K" --repair
check "the crawl goes on after the repair" expect 0 "" \
	timeout 300 "$MPICRAWL" crawl --dir "$K" "${opts[@]}" --rounds 2
check "and its CrawlDb reads whole" "$MPICRAWL" check --dir "$K"
pages_warcs "$K"/segments/00001/warc | grep -- '-00000-[^-]*\.warc' | xargs rm -f
check "check names WARC files gone" expect 1 "WARC file .* is missing" "$MPICRAWL" check --dir "$K"

# ---- 5: stopping a crawl started from a terminal ----
# stop_run SIGNAL NAME LAUNCHER...: starts LAUNCHER crawl ... as a process
# group of its own with SIGINT at its default (as an interactive shell runs
# a foreground job; a script's background jobs start with SIGINT ignored),
# signals the group once the second round fetches, and checks the exit code
# and the time it took. Links wait for the next round (fetch.follow_max=0),
# so that there is a second round to signal.
stop_run() {
	local sig=$1 name=$2 dir=$SCRATCH/stop-$2 pid t0 rc i
	shift 2
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@" crawl --dir "$dir" --seeds "$SCRATCH/web-seeds" \
		"${opts[@]}" --set politeness.delay_ms=300 --set fetch.stop_grace_s=2 \
		--set fetch.follow_max=0 >"$dir.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 240; i++)); do
		[ -d "$dir/segments/00002/warc" ] && break
		sleep 0.25
	done
	t0=$SECONDS
	kill -"$sig" -- -"$pid"
	wait "$pid"
	rc=$?
	echo "$name, SIG$sig: exit $rc after $((SECONDS - t0)) s"
	[ "$rc" -eq 75 ] && [ $((SECONDS - t0)) -le 17 ] &&
		timeout 300 "$MPICRAWL" crawl --dir "$dir" "${opts[@]}" >/dev/null 2>&1 &&
		"$MPICRAWL" check --dir "$dir" >/dev/null
}
check "Ctrl-C on scripts/mpicrawl-run: exit 75 within the grace, then the crawl continues" \
	stop_run INT run-int "$ROOT/scripts/mpicrawl-run" -n 2
check "SIGTERM to scripts/mpicrawl-run: the same" \
	stop_run TERM run-term "$ROOT/scripts/mpicrawl-run" -n 2
# The same Ctrl-C on a single process started without mpirun: it stops soon
# itself (it was a hard stop, exit 130).
check "Ctrl-C on a bare mpicrawl: exit 75 within the grace, then the crawl continues" \
	stop_run INT bare "$MPICRAWL"

# ---- 2: WARC files lost under a running fetch ----
# (links wait for the next round: segment 2 is the one to lose files in)
V=$SCRATCH/vanish
"$MPICRAWL" crawl --dir "$V" --seeds "$SCRATCH/web-seeds" "${opts[@]}" \
	--set politeness.delay_ms=300 --set fetch.follow_max=0 >"$SCRATCH/vanish.out" 2>&1 &
vpid=$!
for ((i = 0; i < 240; i++)); do
	ls "$V"/segments/00002/warc/*.warc.gz >/dev/null 2>&1 && break
	sleep 0.25
done
rm -rf "$V/segments/00002/warc"
wait "$vpid"
rc=$?
check "WARC files removed under a running fetch: not committed (exit $rc)" test "$rc" -eq 1
check "  naming what is missing" grep -q "segments/00002/warc/" "$SCRATCH/vanish.out"
check "  and no URL of the segment is committed as fetched" test ! -e "$V/segments/00002/_SUCCESS.fetch"
check "the next run fetches them again and completes" expect 0 "" \
	timeout 300 "$MPICRAWL" crawl --dir "$V" "${opts[@]}"
check "  with every fetched URL's response in the archive" "$MPICRAWL" check --dir "$V"

# ---- 10: a crawl that fetches nothing says why; --help ----
printf 'http://a.nx.sim.test:%s/\nhttp://127.0.0.1:%s/\n' "$SIMWEB_PORT" "$SIMWEB_PORT" >"$SCRATCH/dead.txt"
N=$SCRATCH/nothing
timeout 300 "$MPICRAWL" crawl --dir "$N" --seeds "$SCRATCH/dead.txt" \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set partition.count=2 >/dev/null 2>"$SCRATCH/nothing.err"
check "nothing fetched: said" grep -q 'nothing was fetched' "$SCRATCH/nothing.err"
check "nothing fetched: the blocked one, with what to do" \
	grep -q '1 blocked: non-public address (a private or loopback address: set fetch.allow_private=true' \
	"$SCRATCH/nothing.err"
check "nothing fetched: the DNS failure" grep -q '1 error: dns: nxdomain (the name did not resolve' \
	"$SCRATCH/nothing.err"
check "nothing fetched: the error waits for a retry, and the crawl says so" \
	grep -q 'complete for now; 1 URLs wait to be tried again' "$SCRATCH/nothing.err"
check "readdb --dump carries the reason" bash -c \
	"'$MPICRAWL' readdb --dir '$N' --dump | grep -q '\"reason\":\"dns: nxdomain\"'"
for cmd in crawl inject generate fetch parse update index readdb url robots warc report unlock check; do
	check "$cmd --help lists exit codes" bash -c "'$MPICRAWL' $cmd --help | grep -q 'exit codes'"
done
check "crawl --help names the keys most needed" bash -c \
	"'$MPICRAWL' crawl --help | grep -q 'dns.servers' && '$MPICRAWL' crawl --help | grep -q fetch.allow_private"
finish

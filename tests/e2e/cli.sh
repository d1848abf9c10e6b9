#!/usr/bin/env bash
# The command line on bad input: one-line errors and exit 2 for bad usage
# and configuration, exit 1 with a message naming the file for a damaged
# crawl directory, never a crash; and the url and robots tools.
. "$(dirname "$0")/lib.sh"

check "no command" expect 2 'missing command' "$MPICRAWL"
check "unknown command" expect 2 "unknown command 'frobnicate'" "$MPICRAWL" frobnicate
check "unknown option" expect 2 "unknown option '--bogus'" "$MPICRAWL" crawl --dir "$SCRATCH/c" --bogus
check "missing --dir" expect 2 '--dir is required' "$MPICRAWL" crawl --seeds x
check "bad --rounds" expect 2 "--rounds: bad value 'many'" "$MPICRAWL" crawl --dir "$SCRATCH/c" --rounds many
check "unknown config key" expect 2 "unknown key 'politeness.dealy_ms'" \
	"$MPICRAWL" crawl --dir "$SCRATCH/c" --set politeness.dealy_ms=5
check "bad config value" expect 2 "politeness.delay_ms: bad value '-5'" \
	"$MPICRAWL" crawl --dir "$SCRATCH/c" --set politeness.delay_ms=-5
check "a minimum over its maximum" expect 2 \
	"recrawl.min_interval_s .100000. is greater than recrawl.max_interval_s .10." \
	"$MPICRAWL" crawl --dir "$SCRATCH/c" --set recrawl.min_interval_s=100000 \
	--set recrawl.max_interval_s=10
printf 'politeness.delay_ms = 10\nthis line is wrong\n' >"$SCRATCH/bad.conf"
check "bad config file line" expect 2 'bad.conf:2' "$MPICRAWL" crawl --dir "$SCRATCH/c" --config "$SCRATCH/bad.conf"
head -c 5000000 /dev/zero | tr '\0' a >"$SCRATCH/long.conf"
check "a config file of one very long line" expect 2 'line too long' \
	timeout 20 "$MPICRAWL" url --config "$SCRATCH/long.conf" http://a.example/
check "a config file that is a device, not a file" expect 2 'not a regular file' \
	timeout 20 "$MPICRAWL" url --config /dev/zero http://a.example/
mkfifo "$SCRATCH/fifo.in"
check "a config file that is a FIFO: refused, not waited on" expect 2 'not a regular file' \
	timeout 20 "$MPICRAWL" crawl --dir "$SCRATCH/ff" --config "$SCRATCH/fifo.in" \
	--seeds "$SCRATCH/one"
check "a seed file that is a FIFO: refused, not waited on" expect 2 'not a regular file' \
	timeout 20 "$MPICRAWL" crawl --dir "$SCRATCH/ff" --seeds "$SCRATCH/fifo.in"
check "url --stdin: an over-long line is invalid, the next one read" bash -c \
	'{ head -c 5000000 /dev/zero | tr "\\0" a; printf "\\nhttp://b.example/\\n"; } |
	 timeout 20 "$1" url --stdin | tr "\\t\\n" " |" | grep -qx "invalid line too long|http://b.example/|"' \
	_ "$MPICRAWL"
printf '\xef\xbb\xbfpoliteness.delay_ms = 10\n' >"$SCRATCH/bom.conf"
check "a config file with a byte-order mark" "$MPICRAWL" url --config "$SCRATCH/bom.conf" \
	http://a.example/
check "an empty --dir" expect 2 'dir is empty' "$MPICRAWL" crawl --dir '' --seeds "$SCRATCH/one"
check "missing config file" expect 2 "cannot read config file" \
	"$MPICRAWL" crawl --dir "$SCRATCH/c" --config "$SCRATCH/none.conf"
printf 'http://a.example/\n' >"$SCRATCH/one"
check "dedup.bands that does not divide dedup.hashes" expect 2 'must divide' \
	"$MPICRAWL" crawl --dir "$SCRATCH/bands" --seeds "$SCRATCH/one" \
	--set dedup.hashes=16 --set dedup.bands=3
check "... before anything is made" test ! -e "$SCRATCH/bands"
check "comm.timeout_s under 5 s (ranks beat once a second)" expect 2 'comm.timeout_s must be 0' \
	"$MPICRAWL" crawl --dir "$SCRATCH/beat" --seeds "$SCRATCH/one" --set comm.timeout_s=3
check "missing seed file" expect 2 "cannot read seed file" \
	"$MPICRAWL" crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/none.txt"
check "a new crawl without seeds refused" expect 2 'give --seeds' \
	"$MPICRAWL" crawl --dir "$SCRATCH/noseeds" --set partition.count=4
check "... before anything is made" test ! -e "$SCRATCH/noseeds"
mkdir "$SCRATCH/mine" && echo notes >"$SCRATCH/mine/README"
check "a new crawl in a directory of other files refused" expect 2 'is not empty' \
	"$MPICRAWL" crawl --dir "$SCRATCH/mine" --seeds "$SCRATCH/one"
check "... nothing made there" test "$(ls "$SCRATCH/mine")" = README
check "seeds from a pipe refused" expect 2 "not a regular file" \
	"$MPICRAWL" crawl --dir "$SCRATCH/pipe" --seeds <(echo http://a.example/)
check "... before anything is made" test ! -e "$SCRATCH/pipe"
check "generate on a non-crawl directory" expect 1 'not a crawl directory' \
	"$MPICRAWL" generate --dir "$SCRATCH/nothing"

# Bad seed lines are counted and named, the good ones injected.
printf '# seeds\nhttp://a.example/\n\nnot a url\nftp://b.example/\nhttp://c.example/x\n' >"$SCRATCH/seeds"
check "inject with bad lines" expect 0 'seeds:4: invalid seed' \
	"$MPICRAWL" inject --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" --set partition.count=4
check "two seeds injected" bash -c "'$MPICRAWL' readdb --dir '$SCRATCH/c' --stats | grep -q 'unfetched  2'"
# Text after a blank is a comment ('#') or an error with its line, never the URL's.
printf 'http://d.example/ # a note\nhttp://e.example/ a note\nhttp://f.example/\tmax_pages=3 # too\n' \
	>"$SCRATCH/noted"
check "a seed's trailing text that is no comment: named with its line" expect 0 \
	'noted:2: invalid seed line: text after the URL' \
	"$MPICRAWL" inject --dir "$SCRATCH/cn" --seeds "$SCRATCH/noted"
check "... the comment is no part of the URL" test "$("$MPICRAWL" readdb --dir "$SCRATCH/cn" --dump |
	grep -o '"url":"[^"]*"' | sort | tr '\n' ' ')" = \
	'"url":"http://d.example/" "url":"http://f.example/" '
check "partition count cannot change" expect 2 'cannot change' \
	"$MPICRAWL" inject --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" --set partition.count=8
# The WARC files' prefix is the crawl's, made at creation (crawl-unique)
# or given then; bad ones and a change later are refused.
check "warc.prefix made when the crawl was created" \
	grep -qE '^warc.prefix = mpicrawl-[0-9]{14}-[0-9a-f]{6}$' "$SCRATCH/c/crawl.meta"
check "warc.prefix cannot change" expect 2 'warc.prefix is .* cannot change' \
	"$MPICRAWL" inject --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" --set warc.prefix=other
check "warc.prefix with a slash refused" expect 2 'warc.prefix: bad value' \
	"$MPICRAWL" inject --dir "$SCRATCH/c2" --seeds "$SCRATCH/seeds" --set warc.prefix=a/b
check "warc.prefix given at creation is kept" eval '"$MPICRAWL" inject --dir "$SCRATCH/c3" \
	--seeds "$SCRATCH/seeds" --set warc.prefix=MYCRAWL-2026 >/dev/null 2>&1 &&
	grep -qx "warc.prefix = MYCRAWL-2026" "$SCRATCH/c3/crawl.meta"'
check "partition.by cannot change" expect 2 'partition.by is host .* cannot change' \
	"$MPICRAWL" inject --dir "$SCRATCH/c3" --seeds "$SCRATCH/seeds" --set partition.by=domain
# A warc.prefix that could name files elsewhere is a damaged crawl.meta.
cp -a "$SCRATCH/c3" "$SCRATCH/c4"
sed -i 's|^warc.prefix = .*|warc.prefix = ../../escaped|' "$SCRATCH/c4/crawl.meta"
check "a crawl.meta warc.prefix with a path refused" expect 1 "damaged file .*warc.prefix" \
	"$MPICRAWL" inject --dir "$SCRATCH/c4" --seeds "$SCRATCH/seeds"

# A damaged CrawlDb part is named, not used.
part=$(ls "$SCRATCH"/c/crawldb/00001/part-*.zst | head -n 1)
size=$(stat -c %s "$part")
truncate -s $((size - 5)) "$part"
check "truncated CrawlDb part named" expect 1 "damaged file '$part'" \
	"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump
check "generate refuses a damaged part" expect 1 'damaged' "$MPICRAWL" generate --dir "$SCRATCH/c"
echo garbage >"$SCRATCH/c/crawldb/CURRENT"
check "damaged CURRENT named" expect 1 'CURRENT' "$MPICRAWL" readdb --dir "$SCRATCH/c" --stats

# A segment generated from a CrawlDb version that has since moved on (here by
# a second inject) is not merged into it: update refuses, naming why.
# DNS points at a closed loopback port, so nothing leaves the machine.
printf 'http://a.nx.sim.test/\n' >"$SCRATCH/s1"
printf 'http://b.nx.sim.test/\n' >"$SCRATCH/s2"
opts=(--set partition.count=2 --set dns.servers=127.0.0.1:9 --set dns.timeout_ms=100)
"$MPICRAWL" inject --dir "$SCRATCH/m" --seeds "$SCRATCH/s1" "${opts[@]}" 2>/dev/null
"$MPICRAWL" generate --dir "$SCRATCH/m" "${opts[@]}" >/dev/null 2>&1
check "fetch with failing DNS completes" expect 0 'segment 1' "$MPICRAWL" fetch --dir "$SCRATCH/m" "${opts[@]}"
ls "$SCRATCH"/m/segments/00001/warc >"$SCRATCH/warcs.before"
check "fetch of a fetched segment refused" expect 2 'already fetched' \
	"$MPICRAWL" fetch --dir "$SCRATCH/m" "${opts[@]}"
check "... its WARC files left alone" bash -c \
	"ls '$SCRATCH'/m/segments/00001/warc | cmp -s - '$SCRATCH/warcs.before'"
"$MPICRAWL" parse --dir "$SCRATCH/m" "${opts[@]}" 2>/dev/null
"$MPICRAWL" inject --dir "$SCRATCH/m" --seeds "$SCRATCH/s2" "${opts[@]}" 2>/dev/null
check "update of a stale segment refused" expect 1 'no longer current' \
	"$MPICRAWL" update --dir "$SCRATCH/m" "${opts[@]}"
cp -a "$SCRATCH/m" "$SCRATCH/m5"
check "crawl leaves a stale segment behind and goes on" bash -c '"$1" crawl --dir "$2" \
	--rounds 1 "${@:3}" >"$2.out" 2>&1 && grep -q "segment 1 .* is left as it is" "$2.out" &&
	test -e "$2/segments/00002/_SUCCESS.update"' _ "$MPICRAWL" "$SCRATCH/m5" "${opts[@]}"
# The newest segment's directory removed after its update: its number is
# not used again (the CrawlDb's stores name it).
rm -rf "$SCRATCH/m5/segments/00002"
check "a removed newest segment's number is not reused" bash -c '"$1" crawl --dir "$2" \
	--rounds 1 "${@:3}" >"$2.out2" 2>&1 && grep -q "generate I segment 3:" "$2.out2" &&
	test ! -e "$2/segments/00002"' _ "$MPICRAWL" "$SCRATCH/m5" "${opts[@]}"
check "DNS failure recorded as an error status" bash -c \
	"'$MPICRAWL' generate --dir '$SCRATCH/m' ${opts[*]} >/dev/null 2>&1 &&
	 '$MPICRAWL' fetch --dir '$SCRATCH/m' ${opts[*]} >/dev/null 2>&1 &&
	 '$MPICRAWL' parse --dir '$SCRATCH/m' ${opts[*]} >/dev/null 2>&1 &&
	 '$MPICRAWL' update --dir '$SCRATCH/m' ${opts[*]} >/dev/null 2>&1 &&
	 '$MPICRAWL' readdb --dir '$SCRATCH/m' --stats | grep -q 'error      2'"

# A generate with nothing due makes no segment and says so (exit 0, as a
# crawl that finds nothing due); a later crawl found none to "resume".
cp -a "$SCRATCH/m" "$SCRATCH/m10"
ls "$SCRATCH/m10/segments" >"$SCRATCH/segs.before"
check "generate with nothing due says so" expect 0 'nothing is due' \
	"$MPICRAWL" generate --dir "$SCRATCH/m10" "${opts[@]}"
check "... on stdout too" grep -qx 'nothing is due: no segment' "$SCRATCH/out"
check "... and makes no segment" bash -c \
	"ls '$SCRATCH/m10/segments' | cmp -s - '$SCRATCH/segs.before'"
# A segment whose fetch list is empty (an older mpicrawl's generate made
# them): the crawl names that as the cause, and goes on to a round of its own.
"$MPICRAWL" inject --dir "$SCRATCH/e" --seeds "$SCRATCH/s1" "${opts[@]}" 2>/dev/null
"$MPICRAWL" generate --dir "$SCRATCH/e" "${opts[@]}" --set storage.pack=false >/dev/null 2>&1
small=$(ls -S "$SCRATCH"/e/segments/00001/fetchlist/part-*.zst | tail -n 1)
for f in "$SCRATCH"/e/segments/00001/fetchlist/part-*.zst; do
	[ "$f" = "$small" ] || cp "$small" "$f"
done
sed -i 's/"selected":1,/"selected":0,/' "$SCRATCH/e/segments/00001/_SUCCESS.generate"
check "a crawl over an empty segment names the cause" bash -c '"$1" crawl --dir "$2" \
	--rounds 1 "${@:3}" >"$2.out" 2>&1 && grep -q "segment 1 had no URL to fetch" "$2.out" &&
	! grep -q "no URL could be fetched this round" "$2.out" &&
	test -e "$2/segments/00002/_SUCCESS.update"' _ "$MPICRAWL" "$SCRATCH/e" "${opts[@]}"

# The tools run once under mpirun: output once, no lock taken from a sibling.
check "readdb on 2 ranks prints once" test \
	"$(run_ranks 2 readdb --dir "$SCRATCH/m" --dump 2>/dev/null | wc -l)" = \
	"$("$MPICRAWL" readdb --dir "$SCRATCH/m" --dump | wc -l)"
check "check on 2 ranks" bash -c 'timeout 120 mpirun --oversubscribe -n 2 "$1" check \
	--dir "$2" >/dev/null 2>&1' _ "$MPICRAWL" "$SCRATCH/m"

# A lock that cannot be opened is said as such, not as a holder "pid 0"
# (check --repair takes the lock; check alone reads without it).
cp -a "$SCRATCH/m" "$SCRATCH/mlock" && mkdir "$SCRATCH/mlock/lock"
check "check --repair on a lock that is a directory says so" expect 1 \
	'cannot open .*lock.*Is a directory' "$MPICRAWL" check --dir "$SCRATCH/mlock" --repair
check "... and names no holder" eval '! grep -q "in use by" "$SCRATCH/err"'
check "check without --repair reads it all the same" bash -c \
	'"$1" check --dir "$2" >/dev/null 2>&1' _ "$MPICRAWL" "$SCRATCH/mlock"

# A damaged fetch list of a segment not fetched yet: --repair has it planned again.
"$MPICRAWL" inject --dir "$SCRATCH/fl" --seeds "$SCRATCH/s1" "${opts[@]}" 2>/dev/null
"$MPICRAWL" generate --dir "$SCRATCH/fl" "${opts[@]}" >/dev/null 2>&1
# (packed: the packs of the fetch lists cut)
for f in "$SCRATCH"/fl/segments/00001/fetchlist/part*; do truncate -s 40 "$f"; done
check "a damaged fetch list: check says what to do" expect 1 'repair has the next crawl' \
	"$MPICRAWL" check --dir "$SCRATCH/fl"
check "... --repair plans it again" bash -c '"$1" check --dir "$2" --repair >/dev/null 2>&1 &&
	"$1" check --dir "$2" >/dev/null 2>&1 &&
	"$1" generate --dir "$2" "${@:3}" >"$2.gen" 2>&1 && grep -q "segment 1:" "$2.gen"' \
	_ "$MPICRAWL" "$SCRATCH/fl" "${opts[@]}"

# A crawl.meta of a newer format: said so, not called damaged.
cp -a "$SCRATCH/m" "$SCRATCH/m7" && sed -i 's/^format = .*/format = 2/' "$SCRATCH/m7/crawl.meta"
check "a newer crawl.meta format named" expect 1 'made by a newer mpicrawl' \
	"$MPICRAWL" readdb --dir "$SCRATCH/m7" --stats
# A rules file named relative to where the crawl ran: provenance names it whole.
check "provenance names a relative rules file from /" bash -c 'cd "$1" &&
	printf "+http://(example,\n" >rel.scope &&
	"$2" inject --dir prov --seeds one --set scope.rules=rel.scope >/dev/null 2>&1 &&
	grep -qx "scope.rules = $1/rel.scope" prov/provenance/config-*' _ "$SCRATCH" "$MPICRAWL"

# A damaged record file: no report that would be wrong.
cp -a "$SCRATCH/m" "$SCRATCH/m8"
truncate -s 30 "$SCRATCH/m8/crawldb/$(printf %05d "$(cat "$SCRATCH/m8/crawldb/CURRENT")")/part-00000.zst"
check "report over a damaged CrawlDb part refused" expect 1 'cannot be read whole' \
	"$MPICRAWL" report --dir "$SCRATCH/m8"
check "... and not written" test ! -e "$SCRATCH/m8/report.html"

# A lost crawldb/CURRENT is damage, not an empty crawl to start over.
cp -a "$SCRATCH/m" "$SCRATCH/m3" && rm "$SCRATCH/m3/crawldb/CURRENT"
check "a lost CURRENT refused" expect 1 'CURRENT.* is missing, but CrawlDb versions' \
	"$MPICRAWL" crawl --dir "$SCRATCH/m3" --seeds "$SCRATCH/s1" "${opts[@]}"
check "... nothing written over" test ! -e "$SCRATCH/m3/crawldb/CURRENT"

check "index without a readable CrawlDb refused" expect 1 'CrawlDb .* cannot be read' \
	"$MPICRAWL" index --dir "$SCRATCH/m3"

# An output that is not a regular file is not replaced by a rename.
mkfifo "$SCRATCH/fifo"
check "report --out a fifo refused" expect 1 'not a regular file' \
	"$MPICRAWL" report --dir "$SCRATCH/m" --out "$SCRATCH/fifo"
check "wacz -o a fifo refused" expect 1 'not a regular file' \
	"$MPICRAWL" wacz --dir "$SCRATCH/m" -o "$SCRATCH/fifo"
check "... the fifo still there" test -p "$SCRATCH/fifo"

# Segment numbers end at 99999 (five digits): then one line, not a loop.
# (A URL is due, so that the first generate fills the stray segment.)
"$MPICRAWL" inject --dir "$SCRATCH/m9" --seeds "$SCRATCH/s1" "${opts[@]}" 2>/dev/null
mkdir -p "$SCRATCH/m9/segments/99999"
"$MPICRAWL" generate --dir "$SCRATCH/m9" "${opts[@]}" >/dev/null 2>&1
check "no segment after 99999" expect 1 'the last number a segment may have' \
	timeout 60 "$MPICRAWL" generate --dir "$SCRATCH/m9" "${opts[@]}"

# url and robots tools.
out=$("$MPICRAWL" url --base http://a.example/x/y.html ../z.html '#f' 'HTTP://B.EXAMPLE:80/a/./b/../c' mailto:x@y)
want=$(printf 'http://a.example/z.html\nhttp://a.example/x/y.html\nhttp://b.example/a/c\ninvalid\tnot http or https')
check "url canonical forms" test "$out" = "$want"
check "url --resolve-only keeps the fragment" test \
	"$("$MPICRAWL" url --resolve-only --base http://a.example/x/ 'y#frag')" = "http://a.example/x/y#frag"
# --stdin: BASE<TAB>HREF lines, each with its own base (none without a tab).
out=$(printf 'http://a.example/x/y.html\t../z.html\nhttp://c.example/d/\t#f\nHTTP://B.EXAMPLE:80/a/./b/../c\n\tx\n' |
	"$MPICRAWL" url --stdin)
want=$(printf 'http://a.example/z.html\nhttp://c.example/d/\nhttp://b.example/a/c\ninvalid\tnot an absolute URL')
check "url --stdin: one line per BASE<TAB>HREF line" test "$out" = "$want"
check "url --stdin --hex --resolve-only" test "$(printf '%s\t%s\n' 687474703a2f2f612e6578616d706c652f 20780979 |
	"$MPICRAWL" url --stdin --hex --resolve-only)" = "http://a.example/xy"
check "url --stdin with --base: bad usage" expect 2 "takes no --base" "$MPICRAWL" url --stdin --base http://a.example/
check "warc --check with --text: bad usage, not one of them silently" expect 2 \
	"--check and --text do not go together" "$MPICRAWL" warc --check --text "$SCRATCH/robots.txt"
printf 'User-agent: *\nDisallow: /private/\n' >"$SCRATCH/robots.txt"
out=$("$MPICRAWL" robots --agent mybot "$SCRATCH/robots.txt" http://a.example/private/x http://a.example/ok)
check "robots tool" test "$out" = "$(printf 'deny\thttp://a.example/private/x\nallow\thttp://a.example/ok')"

# wacz with bad input: a one-line reason, no file, no directory made.
check "wacz without -o" expect 2 'wacz needs --dir and -o' "$MPICRAWL" wacz --dir "$SCRATCH/c"
check "wacz with bad --segments" expect 2 "bad --segments '2-1'" \
	"$MPICRAWL" wacz --dir "$SCRATCH/c" -o "$SCRATCH/x.wacz" --segments 2-1
check "wacz of a non-crawl directory" expect 1 'not a crawl directory' \
	"$MPICRAWL" wacz --dir "$SCRATCH" -o "$SCRATCH/x.wacz"
check "wacz of a segment not indexed" expect 1 'segment 7' \
	"$MPICRAWL" wacz --dir "$SCRATCH/c" -o "$SCRATCH/x.wacz" --segments 7
check "wacz into a missing directory: refused, nothing made" expect 1 'cannot write beside' \
	"$MPICRAWL" wacz --dir "$SCRATCH/m" -o "$SCRATCH/none/x.wacz"
check "wacz of two crawls with --segments: refused" expect 2 '--segments goes with one --dir' \
	"$MPICRAWL" wacz --dir "$SCRATCH/c" --dir "$SCRATCH/m" -o "$SCRATCH/x.wacz" --segments 1
check "wacz of two crawls, the second not one: named" expect 1 'not a crawl directory' \
	"$MPICRAWL" wacz --dir "$SCRATCH/c" --dir "$SCRATCH" -o "$SCRATCH/x.wacz"
check "no WACZ and no directory left by the refusals" \
	eval '[ ! -e "$SCRATCH/x.wacz" ] && [ ! -e "$SCRATCH/none" ] &&
	[ -z "$(ls -d "$SCRATCH"/*.tmp.* "$SCRATCH"/*.work.* 2>/dev/null)" ]'
# MPICRAWL_CLOCK_OFFSET_S (docs/OPERATIONS.md, Environment): whole seconds
# or a one-line refusal before anything is made.
printf 'http://a.example/\n' >"$SCRATCH/clock-seeds"
for v in abc 1.5 '' - 99999999999 --5; do
	check "MPICRAWL_CLOCK_OFFSET_S='$v': exit 2, named" expect 2 "MPICRAWL_CLOCK_OFFSET_S" \
		env MPICRAWL_CLOCK_OFFSET_S="$v" "$MPICRAWL" crawl --dir "$SCRATCH/clock" \
		--seeds "$SCRATCH/clock-seeds"
done
check "a bad clock offset creates nothing" test ! -e "$SCRATCH/clock"
check "MPICRAWL_CLOCK_OFFSET_S=-60: accepted" env MPICRAWL_CLOCK_OFFSET_S=-60 \
	"$MPICRAWL" inject --dir "$SCRATCH/clock-past" --seeds "$SCRATCH/clock-seeds" \
	--set partition.count=2
check "MPICRAWL_CLOCK_OFFSET_S=86400: accepted" expect 0 "" env MPICRAWL_CLOCK_OFFSET_S=86400 \
	"$MPICRAWL" inject --dir "$SCRATCH/clock" --seeds "$SCRATCH/clock-seeds"
finish

#!/usr/bin/env bash
# Files per round bounded by ranks, not partitions (docs/FORMATS.md, Packs;
# fetch/segout.h): a crawl of a 20-host web with partition.count=256 on 2
# ranks, 3 rounds, leaves at most 32 files per rank and round under
# segments/ and robots/, and at most 5 % of them under 100 bytes (markers -
# _SUCCESS.*, progress/ - aside); each round's WARC files are the ranks'
# (PREFIX-NNNNN-rRRRR-...), at most one per series and rank. The same crawl
# with storage.pack=false (one file per partition, as crawls before packs)
# has the same CrawlDb, its files read alike (readdb, check), and a crawl
# directory begun that way goes on with packs. A crawl resumed after a kill
# inside a fetch writes the next attempt's files (-a1) and keeps its
# archive whole (check, warcio when it is there).
. "$(dirname "$0")/lib.sh"

start_web web --hosts 20 --pages 30 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 20 --pages 30 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
opts=(--seeds "$SCRATCH/seeds" --set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=0 --set partition.count=256 --set generate.round_s=0)

# crawl DIR ARGS...: 3 rounds on 2 ranks
crawl() {
	local dir=$1
	shift
	run_ranks 2 crawl --dir "$dir" "${opts[@]}" --rounds 3 "$@" >"$dir.out" 2>&1
}

check "the crawl (packs) exits 0" crawl "$SCRATCH/p"
check "the crawl without packs exits 0" crawl "$SCRATCH/l" --set storage.pack=false

rounds=$(ls "$SCRATCH/p/segments" | wc -l)
all=$(cd "$SCRATCH/p" && find segments robots -type f | wc -l)
small=$(cd "$SCRATCH/p" && find segments robots -type f -size -100c ! -name '_SUCCESS.*' \
	! -path '*/progress/*' | wc -l)
echo "packs: $rounds rounds, $all files under segments/ and robots/, $small under 100 bytes"
check "3 rounds" test "$rounds" -eq 3
check "at most 32 files per rank and round ($all for 2 ranks, $rounds rounds)" \
	test "$all" -le $((32 * 2 * rounds))
check "at most 5 % under 100 bytes ($small of $all)" test $((small * 100)) -le $((all * 5))
loose=$(cd "$SCRATCH/l" && find segments robots -type f | wc -l)
echo "without packs: $loose files"
check "without packs: one file per partition ($loose files)" test "$loose" -gt $((all * 5))

# Each round's WARC files are the ranks': PREFIX-NNNNN-r0000-..., -r0001-...
warcs_ok() {
	local s n bad=0
	for s in "$SCRATCH"/p/segments/*; do
		n=$(ls "$s/warc" | grep -c -- '-r000[01]-[0-9]\{5\}-')
		[ "$n" -ge 1 ] && [ "$n" -le 8 ] && [ "$n" -eq "$(ls "$s/warc" | wc -l)" ] ||
			{ echo "$(basename "$s"): $n rank files of $(ls "$s/warc" | wc -l)"; bad=1; }
	done
	return $bad
}
check "every round's WARC files are the 2 ranks' (at most one per series each)" warcs_ok
check "by default redirects and 404s are with the pages, robots.txt apart" bash -c \
	'! ls "$1"/segments/*/warc | grep -q -- "-diagnostics\.\|-sitemaps\." &&
	ls "$1"/segments/*/warc | grep -q -- "-robots\."' _ "$SCRATCH/p"

dump() { "$MPICRAWL" readdb --dir "$1" --dump | sed -E 's/"(fetch_time|modified|next_fetch|first_seen|score|pagerank)[a-z_]*":[^,}]*,?//g' | sort; }
dump "$SCRATCH/p" >"$SCRATCH/p.db"
dump "$SCRATCH/l" >"$SCRATCH/l.db"
check "the same URLs and states with and without packs ($(wc -l <"$SCRATCH/p.db") URLs)" \
	bash -c 'cut -d, -f1-3 "$1" | cmp -s - <(cut -d, -f1-3 "$2")' _ "$SCRATCH/p.db" "$SCRATCH/l.db"
check "check reads the packed crawl clean" "$MPICRAWL" check --dir "$SCRATCH/p"
check "check reads the unpacked crawl clean" "$MPICRAWL" check --dir "$SCRATCH/l"
check "readdb --fetchlist reads packed fetch lists, as unpacked ones" bash -c \
	'"$1" readdb --dir "$2" --fetchlist --segment 2 | sort >"$4.a" &&
	 "$1" readdb --dir "$3" --fetchlist --segment 2 | sort >"$4.b" &&
	 [ -s "$4.a" ] && cut -d, -f1 "$4.a" | cmp -s - <(cut -d, -f1 "$4.b")' \
	_ "$MPICRAWL" "$SCRATCH/p" "$SCRATCH/l" "$SCRATCH/fl"
check "readdb --decisions reads packed decision logs, as unpacked ones" bash -c \
	'"$1" readdb --dir "$2" --decisions --segment 2 | sort >"$4.a" &&
	 "$1" readdb --dir "$3" --decisions --segment 2 | sort >"$4.b" && cmp -s "$4.a" "$4.b"' \
	_ "$MPICRAWL" "$SCRATCH/p" "$SCRATCH/l" "$SCRATCH/dl"

# A damaged pack of the robots.txt cache: check names it, --repair writes
# empty files in its members' stead (their robots.txt asked again), check
# is clean after.
cp -a "$SCRATCH/p" "$SCRATCH/d"
rp=$(ls "$SCRATCH"/d/robots/*/part.*.pack | tail -n 1)   # the newest version: the one read
truncate -s 100 "$rp"
check "a damaged robots.txt pack: check says so (exit 1)" expect 1 "damaged" \
	"$MPICRAWL" check --dir "$SCRATCH/d"
check "... --repair mends it (exit 0)" expect 0 "robots.txt is asked again" \
	"$MPICRAWL" check --dir "$SCRATCH/d" --repair
check "... and check is clean after" "$MPICRAWL" check --dir "$SCRATCH/d"

# A directory begun without packs goes on with them: 2 rounds unpacked, the
# third packed, and its CrawlDb is the packed crawl's.
run_ranks 2 crawl --dir "$SCRATCH/m" "${opts[@]}" --rounds 2 --set storage.pack=false \
	>"$SCRATCH/m.out" 2>&1 &&
	run_ranks 2 crawl --dir "$SCRATCH/m" "${opts[@]}" --rounds 1 >>"$SCRATCH/m.out" 2>&1
check "2 rounds without packs, then 1 with" test $? -eq 0
check "... its third round packed, the first as it was" bash -c \
	'ls "$1"/segments/00003/fetch/*.pack >/dev/null 2>&1 &&
	ls "$1"/segments/00001/fetch/part-00000.zst >/dev/null' _ "$SCRATCH/m"
dump "$SCRATCH/m" >"$SCRATCH/m.db"
check "... the same URLs and states as the packed crawl" \
	bash -c 'cut -d, -f1-3 "$1" | cmp -s - <(cut -d, -f1-3 "$2")' _ "$SCRATCH/p.db" "$SCRATCH/m.db"
check "... and check is clean" "$MPICRAWL" check --dir "$SCRATCH/m"

# Killed inside a fetch (the kill hook of build/bin/mpicrawl-test), resumed:
# the next attempt's files are -a1, the archive whole.
T=$ROOT/build/bin/mpicrawl-test
if [ -x "$T" ]; then
	keep=$MPICRAWL
	MPICRAWL=$T
	MPICRAWL_TEST_KILL="fetch 2 150 -1 9" run_ranks 2 crawl --dir "$SCRATCH/k" \
		"${opts[@]}" --rounds 3 --set politeness.delay_ms=20 >"$SCRATCH/k1.out" 2>&1
	MPICRAWL=$keep
	check "killed inside the fetch of segment 2" test ! -e "$SCRATCH/k/segments/00002/_SUCCESS.fetch"
	check "resumed, the crawl exits 0" crawl "$SCRATCH/k"
	check "... the resumed attempt's WARC files are -a1" bash -c \
		'ls "$1"/segments/00002/warc | grep -q -- "-r000[01]-a1-"' _ "$SCRATCH/k"
	check "... no marks or journals left" bash -c \
		'! ls "$1"/segments/*/fetch/ | grep -q journal' _ "$SCRATCH/k"
	check "... check is clean" "$MPICRAWL" check --dir "$SCRATCH/k"
	if python3 -c 'import warcio' 2>/dev/null; then
		check "... warcio reads every WARC file of segment 2" bash -c \
			'for f in "$1"/segments/00002/warc/*; do python3 -m warcio check "$f" >/dev/null ||
			 python3 -m warcio index "$f" >/dev/null || exit 1; done' _ "$SCRATCH/k"
	fi
	check "... the same URLs as the crawl never killed" bash -c \
		'"$1" readdb --dir "$2" --dump | grep -c "\"url\"" | grep -qx "$(wc -l <"$3")"' \
		_ "$MPICRAWL" "$SCRATCH/k" "$SCRATCH/p.db"
else
	skip 6 "build/bin/mpicrawl-test is missing (make all builds it)"
fi
finish

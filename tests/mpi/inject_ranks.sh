#!/usr/bin/env bash
# inject on 1, 2 and 4 ranks gives the same CrawlDb: 30 000 seed lines (with
# duplicates and spelling variants of the same URLs) routed in small batches
# (update.exchange_batch_kb=4, so hundreds of MPI_Alltoallv steps), sorted
# and merged. Then a second inject into the same CrawlDb adds only what is new.
. "$(dirname "$0")/../e2e/lib.sh"

awk 'BEGIN {
	for (i = 0; i < 10000; i++) {
		h = i % 700; p = int(i / 7)
		printf "http://h%04d.example/p/%d.html\n", h, p
		printf "HTTP://H%04d.EXAMPLE:80/p/./%d.html#frag\n", h, p
		if (i % 3 == 0) printf "http://h%04d.example/q?x=%d\n", h, i
		else printf "  http://h%04d.example/p/%d.html  \n", h, p
	}
}' >"$SCRATCH/seeds"
want=$(awk 'BEGIN { for (i = 0; i < 10000; i++) { print (i % 700) " " int(i / 7); if (i % 3 == 0) print "q" i } }' | sort -u | wc -l)
for n in 1 2 4; do
	check "inject on $n ranks" run_ranks "$n" inject --dir "$SCRATCH/c$n" --seeds "$SCRATCH/seeds" \
		--set partition.count=16 --set update.exchange_batch_kb=4 >"$SCRATCH/out$n" 2>&1
	dump_db "$SCRATCH/c$n" >"$SCRATCH/dump$n"
done
check "unique URLs: $want" test "$(wc -l <"$SCRATCH/dump1")" -eq "$want"
check "inject identical on 1 and 2 ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump2"
check "inject identical on 1 and 4 ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump4"
printf 'http://h0000.example/p/0.html\nhttp://new.example/\n' >"$SCRATCH/more"
check "second inject on 2 ranks (continues with another rank count)" run_ranks 2 inject \
	--dir "$SCRATCH/c4" --seeds "$SCRATCH/more" >"$SCRATCH/out5" 2>&1
check "second inject adds one URL" test "$(dump_db "$SCRATCH/c4" | wc -l)" -eq $((want + 1))
check "second inject logged '1 new'" grep -q '1 new' "$SCRATCH/out5"
finish

#!/usr/bin/env bash
# Near-duplicate detection against exact Jaccard indexes, on 1, 2 and 4 ranks.
#
# simweb --dupes plants article families (an exact copy on another host,
# boilerplate around the article, 1/10/30/60 % of the words changed) next to
# its ordinary pages and their ?v=1 copies. The crawl's decisions
# (status duplicate, dup_of) are scored against the exact Jaccard index of
# every pair of crawled pages, computed here from the words
# `mpicrawl warc --text` reads out of the WARC files:
# - precision: the share of (page, dup_of) pairs whose exact Jaccard index is
#   at least the threshold (0.8): >= 0.98;
# - recall: the share of pairs at or over the threshold that ended in one
#   cluster (same representative): >= 0.95.
# Also: the duplicates and their representatives are the same on 1, 2 and 4
# ranks; copies found a round after their original are caught (the index
# persists); the planted pairs' Jaccard (simweb --pairs) is what the crawl
# read; the seen-set dropped links, the same number on every rank count.
. "$(dirname "$0")/lib.sh"

HOSTS=12
PAGES=25
FAMILIES=24

start_web web --hosts $HOSTS --pages $PAGES --dupes $FAMILIES ||
	{ echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --pairs --hosts $HOSTS --pages $PAGES --dupes $FAMILIES \
	--port "$SIMWEB_PORT" >"$SCRATCH/pairs"

# One request in flight per host: with more, the order a host's pages
# complete in decides which page a URL is first followed from inside the
# round (its depth, and whether the near-copy rule lets its links through),
# so runs may differ whatever the rank count (docs/ARCHITECTURE.md).
for n in 1 2 4; do
	check "crawl on $n ranks exits 0" run_ranks "$n" crawl --dir "$SCRATCH/crawl$n" \
		--seeds "$SCRATCH/seeds" --set fetch.allow_private=true \
		--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
		--set politeness.max_in_flight=1 --set partition.count=8 \
		>"$SCRATCH/out$n" 2>&1
	dump_db "$SCRATCH/crawl$n" >"$SCRATCH/dump$n"
done
for n in 2 4; do
	check "duplicates and representatives identical on 1 and $n ranks" \
		cmp -s <(grep '"duplicate"' "$SCRATCH/dump1") <(grep '"duplicate"' "$SCRATCH/dump$n")
	check "whole CrawlDb identical on 1 and $n ranks" cmp -s "$SCRATCH/dump1" "$SCRATCH/dump$n"
done

# The words of every crawled page, as the detector reads them.
for f in "$SCRATCH"/crawl1/segments/*/warc/*.warc.gz; do
	case $f in *-robots.warc.gz) continue ;; esac
	"$MPICRAWL" warc --text "$f"
done >"$SCRATCH/text"

python3 - "$SCRATCH" <<'EOF' >"$SCRATCH/score" 2>&1
import json, sys, glob, collections
d = sys.argv[1]
K, T = 5, 0.8

def shingles(words):
    w = words.split()
    if not w:
        return frozenset()
    if len(w) < K:
        return frozenset([" ".join(w)])
    return frozenset(" ".join(w[i:i + K]) for i in range(len(w) - K + 1))

pages = {}
for line in open(d + "/text", encoding="utf-8", errors="surrogateescape"):
    url, _, words = line.rstrip("\n").partition("\t")
    pages[url] = shingles(words)
urls = sorted(u for u in pages if pages[u])

# Exact Jaccard of every pair that shares a shingle (an inverted index).
index = collections.defaultdict(list)
for i, u in enumerate(urls):
    for s in pages[u]:
        index[s].append(i)
common = collections.Counter()
for ids in index.values():
    if len(ids) > 2000:
        continue
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            common[(ids[a], ids[b])] += 1
def jac(a, b):
    if a > b:
        a, b = b, a
    c = common.get((a, b), 0)
    return c / (len(pages[urls[a]]) + len(pages[urls[b]]) - c)
pos = {u: i for i, u in enumerate(urls)}
truth = [(a, b) for (a, b), c in common.items() if jac(a, b) >= T]

rec = {}
for line in open(d + "/dump1"):
    r = json.loads(line)
    rec[r["url"]] = r
def root(u):
    seen = 0
    while rec.get(u, {}).get("status") == "duplicate" and seen < 100:
        u = rec[u]["dup_of"]
        seen += 1
    return u

decisions = [(u, r["dup_of"]) for u, r in rec.items() if r["status"] == "duplicate"]
good = sum(1 for u, v in decisions if u in pos and v in pos and jac(pos[u], pos[v]) >= T)
same = sum(1 for a, b in truth if root(urls[a]) == root(urls[b]))
precision = good / len(decisions) if decisions else 0.0
recall = same / len(truth) if truth else 0.0
print("pages %d, pairs at >= %.2f: %d, duplicates %d, precision %.4f, recall %.4f"
      % (len(urls), T, len(truth), len(decisions), precision, recall))
for u, v in decisions:
    if u in pos and v in pos and jac(pos[u], pos[v]) < T:
        print("  wrong: %s -> %s (%.3f)" % (u, v, jac(pos[u], pos[v])))
missed = [(urls[a], urls[b]) for a, b in truth if root(urls[a]) != root(urls[b])]
for a, b in missed[:10]:
    print("  missed: %s ~ %s (%.3f)" % (a, b, jac(pos[a], pos[b])))

# The planted pairs: simweb's Jaccard is what the crawl read.
off = 0
planted = 0
for line in open(d + "/pairs"):
    a, b, j = line.split("\t")
    if a in pos and b in pos:
        planted += 1
        if abs(jac(pos[a], pos[b]) - float(j)) > 0.01:
            off += 1
            print("  planted %s ~ %s: simweb %s, read %.4f" % (a, b, j.strip(),
                  jac(pos[a], pos[b])))
print("planted pairs crawled %d, read differently %d" % (planted, off))
ok = precision >= 0.98 and recall >= 0.95 and planted > 0 and off == 0
print("PASS" if ok else "FAIL")
EOF
cat "$SCRATCH/score"
check "precision >= 0.98 and recall >= 0.95 against exact Jaccard" \
	grep -qx PASS "$SCRATCH/score"

stat_sum() {
	# stat_sum DIR KEY: the update counter KEY summed over the rounds
	python3 -c '
import json, glob, sys
print(sum(json.load(open(f)).get("update", {}).get("counters", {}).get(sys.argv[2], 0)
          for f in glob.glob(sys.argv[1] + "/segments/*/stats.json")))' "$1" "$2"
}
earlier=$(stat_sum "$SCRATCH/crawl1" duplicates_of_earlier)
echo "duplicates of pages of earlier rounds: $earlier"
check "copies found a round after their original are duplicates" test "$earlier" -gt 0
fam=$(grep -c '/dup/.*"duplicate"' "$SCRATCH/dump1")
check "each family's copy, boilerplate and 1% variants are duplicates ($fam)" \
	test "$fam" -eq $((FAMILIES * 3))
drop1=$(stat_sum "$SCRATCH/crawl1" seen_dropped)
echo "seen-set drops: $drop1"
check "the seen-set dropped known links" test "$drop1" -gt 0
for n in 2 4; do
	check "seen-set drops the same on $n ranks" \
		test "$(stat_sum "$SCRATCH/crawl$n" seen_dropped)" -eq "$drop1"
done
finish

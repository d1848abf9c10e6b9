#!/usr/bin/env bash
# mpicrawl rank on 1, 2 and 4 ranks, over a crawl of simweb's power-law web
# (--graph, 30 hosts x 50 pages):
# - page PageRank, host PageRank and host harmonic centrality agree with an
#   independent computation in python over the crawl's link graph (the
#   index step's links/*.tsv.zst), and with each other on 1, 2 and 4 ranks
#   (exactly: the sums are in fixed point);
# - the page ranks follow simweb's own PageRank of its whole web (the
#   crawl reached nearly all of it): the same best page;
# - rank/stats.json says what was computed; a directory that is not a
#   crawl, or a damaged parse part, is refused with its reason;
# - crawl ranks after every round with rank.every_rounds=1, and generate
#   with generate.order=pagerank and a budget takes the due URLs of
#   highest page rank, the same on 1 and 2 ranks.
. "$(dirname "$0")/../e2e/lib.sh"

start_web web --graph --hosts 30 --pages 50 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --graph --seeds --hosts 30 --pages 50 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --graph --pagerank --hosts 30 --pages 50 --port "$SIMWEB_PORT" >"$SCRATCH/truth"
check "crawl of the graph web" run_ranks 2 crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=0 --set generate.round_s=0 --set partition.count=8 \
	>"$SCRATCH/crawl.out" 2>&1
for n in 1 2 4; do
	check "rank on $n ranks" run_ranks "$n" rank --dir "$SCRATCH/c" --set rank.tolerance=1e-9 \
		>"$SCRATCH/rank$n.out" 2>&1
	"$MPICRAWL" readdb --dir "$SCRATCH/c" --ranks | LC_ALL=C sort >"$SCRATCH/ranks$n"
done
check "stats.json: the URLs and the steps" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(not (s["urls"] > 1400 and s["iterations"] > 5 and s["hosts"] == 30 and s["ranks"] == 4))
' "$SCRATCH/c/rank/stats.json"
# Fixed-point sums (rank.c): the same ranks, bit for bit, on any rank count.
check "the same ranks on 1 and 2 ranks, exactly" cmp -s "$SCRATCH/ranks1" "$SCRATCH/ranks2"
check "the same ranks on 1 and 4 ranks, exactly" cmp -s "$SCRATCH/ranks1" "$SCRATCH/ranks4"
check "independent PageRank and harmonic centrality agree" python3 - "$SCRATCH/c" \
	"$SCRATCH/ranks2" <<'PY'
import collections, glob, json, subprocess, sys
from urllib.parse import urlsplit
d = 0.85
edges = set()
for f in glob.glob(sys.argv[1] + "/segments/*/links/*.tsv.zst"):
    out = subprocess.run(["zstdcat", f], capture_output=True, text=True).stdout
    for line in out.splitlines():
        s, t = line.split("\t")[:2]
        if s != t:
            edges.add((s, t))
def pagerank(nodes, edges):
    out = collections.defaultdict(list)
    for s, t in edges:
        out[s].append(t)
    n = len(nodes)
    pr = {v: 1 / n for v in nodes}
    for _ in range(500):
        dang = sum(pr[v] for v in nodes if not out[v])
        nx = {v: ((1 - d) + d * dang) / n for v in nodes}
        for s, ts in out.items():
            for t in ts:
                nx[t] += d * pr[s] / len(ts)
        moved = sum(abs(nx[v] - pr[v]) for v in nodes)
        pr = nx
        if moved < 1e-13:
            break
    return pr
nodes = {u for e in edges for u in e}
pr = pagerank(nodes, edges)
host = lambda u: urlsplit(u).hostname
hedges = {(host(s), host(t)) for s, t in edges if host(s) != host(t)}
hosts = {host(u) for u in nodes}
hpr = pagerank(hosts, hedges)
hout = collections.defaultdict(set)
for s, t in hedges:
    hout[s].add(t)
harm = collections.Counter()
for s in hosts:
    dist, q = {s: 0}, [s]
    for u in q:
        for v in hout[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                harm[v] += 1 / dist[v]
                q.append(v)
got = {r["url"]: r for r in map(json.loads, open(sys.argv[2]))}
bad = 0
for u in nodes:
    r = got.get(u)
    if (not r or abs(r["page"] - pr[u] * len(nodes)) > 1e-4 * max(1, pr[u] * len(nodes))
            or abs(r["host"] - hpr[host(u)] * len(hosts)) > 1e-4
            or abs(r["harmonic"] - harm[host(u)] / (len(hosts) - 1)) > 1e-9):
        bad += 1
print("nodes", len(nodes), "hosts", len(hosts), "mismatches", bad, "extra", len(set(got) - nodes))
sys.exit(bad != 0 or len(got) != len(nodes))
PY
best_truth=$(head -n 1 "$SCRATCH/truth" | cut -f1)
best_ours=$(python3 -c 'import json,sys; print(max(map(json.loads, open(sys.argv[1])), key=lambda r: r["page"])["url"])' "$SCRATCH/ranks1")
check "the best page is simweb's best ($best_truth)" test "$best_truth" = "$best_ours"
# generate.order=pagerank under a budget, with the ranks crawl made after
# every round (rank.every_rounds=1): the 30 URLs of highest page rank among
# those due, the same on 1 and 2 ranks.
check "a crawl of 2 rounds ranking after each" run_ranks 2 crawl --dir "$SCRATCH/p" \
	--seeds "$SCRATCH/seeds" --rounds 2 --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
	--set generate.round_s=0 --set partition.count=8 --set generate.top_n=100 \
	--set generate.order=pagerank --set rank.every_rounds=1 >"$SCRATCH/p.out" 2>&1
check "crawl ranked after each round" test "$(grep -c ' rank I ' "$SCRATCH/p.out")" -eq 2
"$MPICRAWL" readdb --dir "$SCRATCH/p" --ranks >"$SCRATCH/p.ranks"
"$MPICRAWL" readdb --dir "$SCRATCH/p" --dump >"$SCRATCH/p.dump"
for n in 1 2; do
	cp -a "$SCRATCH/p" "$SCRATCH/p$n"
	check "generate by page rank on $n ranks" run_ranks "$n" generate --dir "$SCRATCH/p$n" \
		--set generate.round_s=0 --set generate.top_n=30 --set generate.order=pagerank \
		>"$SCRATCH/pg$n.out" 2>&1
	"$MPICRAWL" readdb --dir "$SCRATCH/p$n" --fetchlist --segment 3 |
		python3 -c 'import json,sys; [print(json.loads(l)["url"]) for l in sys.stdin]' |
		LC_ALL=C sort >"$SCRATCH/pg$n"
done
check "the same 30 on 1 and 2 ranks" cmp -s "$SCRATCH/pg1" "$SCRATCH/pg2"
check "the 30 of highest page rank among the due" python3 - "$SCRATCH/p.dump" \
	"$SCRATCH/p.ranks" "$SCRATCH/pg1" <<'PY'
import json, sys
due = {r["url"] for r in map(json.loads, open(sys.argv[1])) if r["status"] == "unfetched"}
rank = {r["url"]: r["page"] for r in map(json.loads, open(sys.argv[2]))}
taken = set(open(sys.argv[3]).read().split())
low = min(rank.get(u, -1) for u in taken)
high = max((rank.get(u, -1) for u in due - taken), default=-1)
print("due", len(due), "least rank taken", low, "most left", high)
sys.exit(not (len(taken) == 30 and taken <= due and low >= high))
PY
# A damaged parse part: the reason named, exit 1, on 1 and 2 ranks.
cp -a "$SCRATCH/c" "$SCRATCH/d"
part=$(ls "$SCRATCH"/d/segments/00002/parse/part* | head -n 1)
head -c 100 "$part" >"$part.cut" && mv "$part.cut" "$part"
check "a damaged parse part: exit 1, named" expect 1 "cannot read parse data" \
	"$MPICRAWL" rank --dir "$SCRATCH/d"
check "... on 2 ranks too (no hang)" expect 1 "cannot read parse data" \
	run_ranks 2 rank --dir "$SCRATCH/d"
# A damaged rank part: check names it, --repair removes it, check is clean.
cp -a "$SCRATCH/c" "$SCRATCH/r"
part=$(ls "$SCRATCH"/r/rank/part-*.zst | head -n 1)
head -c 60 "$part" >"$part.cut" && mv "$part.cut" "$part"
check "check names a damaged rank part" expect 1 "damaged rank part '.*part-" \
	"$MPICRAWL" check --dir "$SCRATCH/r"
check "... --repair removes it" expect 0 "removed: its URLs go by cash" \
	"$MPICRAWL" check --dir "$SCRATCH/r" --repair
check "... and check is clean after" test ! -e "$part" -a \
	"$("$MPICRAWL" check --dir "$SCRATCH/r" 2>/dev/null | grep -c ': 0 problems left')" = 1
mkdir -p "$SCRATCH/notcrawl"
check "a directory that is no crawl: exit 1" expect 1 "not a crawl directory" \
	"$MPICRAWL" rank --dir "$SCRATCH/notcrawl"
finish

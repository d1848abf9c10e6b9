# shellcheck shell=bash
# shellcheck disable=SC2034 # FAILED and FLOOR_MISSED are run.sh's
# Benchmark E of bench/run.sh: harvest - how much of a web's importance a
# crawl order fetches first. Sourced by run.sh, which provides say, md,
# WORK, WEB, WEBENV, SIMWEB, RANKS, mpi_timed, read_time, step_timeout,
# is_uint, FAILED and FLOOR_MISSED, and whose EXIT trap stops the web in
# $WEB.
#
# simweb --graph (BENCH_E_HOSTS x BENCH_E_PAGES, default 100 x 200 = 20,000
# pages) is a power-law web that prints every page's true PageRank
# (tests/simweb/graph.h). mpicrawl crawls it from simweb's 3 seeds on $RANKS
# ranks with a budget of BENCH_E_SHARE percent of the pages a round
# (generate.top_n), once per order:
#
#   bfs        generate.order=fifo: breadth first (the order without scores)
#   opic       generate.order=score: OPIC cash (docs/SCORING.md), the default
#   pagerank   generate.order=pagerank, rank.every_rounds=1: mpicrawl rank's
#              PageRank of the graph fetched so far, after every round
#   hostrank   generate.order=hostrank, rank.every_rounds=1: the hosts'
#              harmonic centrality, then PageRank
#
# and two references: the greedy oracle - each round the budget's URLs of
# greatest true PageRank among those found so far, best first within the
# round, computed from simweb --links without a crawl: what these rounds
# reach with perfect knowledge of the pages found (greedy, so not a proven
# bound, and best-first inside a round, which a parallel fetch is not);
# and the omniscient order - the pages by true PageRank, best first - the
# bound for any crawler at all. The curves go to a chart too
# ($WORK/harvest.svg, copied beside BENCH_RESULTS as NAME-harvest.svg,
# NAME being BENCH_RESULTS without its extension). From the server's request log (pages only,
# in the order their requests started): the PageRank mass fetched after
# each 2.5 % of the pages. The floor: at 10 % of the pages, OPIC's mass is
# at least BENCH_E_FLOOR (1.3) times BFS's.
#
# Knobs: BENCH_E_HOSTS=100, BENCH_E_PAGES=200, BENCH_E_SHARE=5,
# BENCH_E_ROUNDS=9, BENCH_E_FLOOR=1.3.

E_HOSTS=${BENCH_E_HOSTS:-100}
E_PAGES=${BENCH_E_PAGES:-200}
E_SHARE=${BENCH_E_SHARE:-5}
E_ROUNDS=${BENCH_E_ROUNDS:-9}
E_FLOOR=${BENCH_E_FLOOR:-1.3}

e_write_py() {
	cat >"$WORK/harvest.py" <<'PY'
import sys

def pagerank(path):
    pr = {}
    for line in open(path):
        url, v = line.rstrip("\n").split("\t")
        pr[url] = float(v)
    return pr

def fetched(log, port):
    """Page URLs in the order their requests started, each once."""
    rows = []
    for line in open(log):
        f = line.rstrip("\n").split("\t")
        if len(f) < 5 or f[3] == "/robots.txt":
            continue
        rows.append((int(f[0]), "http://%s:%s%s" % (f[2], port, f[3])))
    rows.sort()
    seen, out = set(), []
    for _, u in rows:
        if u not in seen:
            seen.add(u)
            out.append(u)
    return out

def curve(urls, pr, n, steps):
    """Mass fetched after each step (pages); None past what was fetched."""
    res, acc, k = [], 0.0, 0
    for s in steps:
        while k < min(s, len(urls)):
            acc += pr.get(urls[k], 0.0)
            k += 1
        res.append(acc if len(urls) >= s else None)
    return res

def greedy_oracle(links, seeds, pr, top_n, rounds):
    """Each round the top_n URLs of greatest true PageRank among those
    found and not fetched, best first: what a crawl order that knew every
    page's PageRank, but only the URLs its rounds had found, would fetch
    (greedy: a page of less PageRank that links to better ones could do
    better later, so this is a reference, not a bound)."""
    known, done, out = set(seeds), set(), []
    for _ in range(rounds):
        take = sorted((u for u in known if u not in done), key=lambda u: -pr.get(u, 0.0))
        take = take[:top_n]
        if not take:
            break
        for u in take:
            done.add(u)
            out.append(u)
        for u in take:
            known.update(links.get(u, ()))
    return out

def svg(path, names, curves, steps, n):
    """A line chart of the mass curves, self-contained SVG."""
    w, h, l, b, t, r = 640, 400, 60, 50, 30, 150
    if not steps or steps[-1] <= 0:
        return
    colours = ["#888888", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#d62728"]
    xs = lambda s: l + (w - l - r) * s / steps[-1]
    ys = lambda v: h - b - (h - b - t) * v
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (w, h),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="14">PageRank mass fetched against pages fetched</text>' % l]
    for i in range(6):
        v = i / 5
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (l, ys(v), w - r, ys(v)))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (l - 6, ys(v) + 4, v))
    for s in steps[1::2]:
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%d %%</text>' % (xs(s), h - b + 16, round(100 * s / n)))
    o.append('<text x="%d" y="%d" text-anchor="middle">pages fetched (share of the web)</text>' % ((l + w - r) // 2, h - 10))
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (l, h - b, w - r, h - b))
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (l, t, l, h - b))
    for i, (name, c) in enumerate(zip(names, curves)):
        pts = [(xs(0), ys(0))] + [(xs(s), ys(v)) for s, v in zip(steps, c) if v is not None]
        col = colours[i % len(colours)]
        o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                 % (col, " ".join("%.1f,%.1f" % p for p in pts)))
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                 % (w - r + 10, t + 18 * i + 8, w - r + 30, t + 18 * i + 8, col))
        o.append('<text x="%d" y="%d">%s</text>' % (w - r + 36, t + 18 * i + 12, name))
    o.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")

def main():
    prfile, port, share, linksfile, seedsfile, top_n, rounds, svgpath = sys.argv[1:9]
    logs = sys.argv[9:]
    pr = pagerank(prfile)
    n = len(pr)
    links = {}
    for line in open(linksfile):
        f = line.rstrip("\n").split("\t")
        links[f[0]] = f[1:]
    seeds = [l.strip() for l in open(seedsfile) if l.strip()]
    steps = [int(n * p / 1000) for p in range(25, 201, 25)]
    best = sorted(pr.values(), reverse=True)
    omni = []
    acc, k = 0.0, 0
    for s in steps:
        while k < s:
            acc += best[k]
            k += 1
        omni.append(acc)
    rows = {}
    for spec in logs:
        name, log = spec.split("=", 1)
        urls = fetched(log, port)
        rows[name] = (len(urls), curve(urls, pr, n, steps))
    go = greedy_oracle(links, seeds, pr, int(top_n), int(rounds))
    rows["greedy oracle"] = (len(go), curve(go, pr, n, steps))
    head = "| pages fetched | " + " | ".join(n_ for n_ in rows) + " | omniscient |"
    print(head)
    print("|---" * (len(rows) + 2) + "|")
    for i, s in enumerate(steps):
        cells = []
        for name in rows:
            v = rows[name][1][i]
            cells.append("-" if v is None else "%.4f" % v)
        print("| %d (%.1f %%) | %s | %.4f |" % (s, 100.0 * s / n, " | ".join(cells), omni[i]))
    svg(svgpath, list(rows) + ["omniscient"], [rows[k_][1] for k_ in rows] + [omni], steps, n)
    # the figures at 10 %: name=mass pairs, for the shell
    i10 = steps.index(int(n * 100 / 1000))
    print("AT10 " + " ".join("%s=%s" % (k_.replace(" ", "_"), "none" if rows[k_][1][i10] is None
                                         else "%.6f" % rows[k_][1][i10]) for k_ in rows)
          + " omniscient=%.6f" % omni[i10] + " "
          + " ".join("%s_pages=%d" % (k_.replace(" ", "_"), rows[k_][0]) for k_ in rows))

main()
PY
}

# e_crawl NAME ORDER [ARGS...]: one crawl of the graph web into $WORK/e.NAME.
e_crawl() {
	local name=$1 order=$2 lim before rc
	shift 2
	lim=$(step_timeout 300)
	say "E: $name: mpicrawl on $RANKS ranks, generate.order=$order, top_n=$E_TOP_N, $E_ROUNDS rounds (at most $lim s)"
	before=$(wc -l <"$SIMWEB_LOG")
	mpi_timed "e-$name" "$lim" crawl --dir "$WORK/e.$name" --seeds "$WORK/e-seeds" \
		--rounds "$E_ROUNDS" --set fetch.allow_private=true \
		--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
		--set politeness.max_in_flight=4 --set generate.round_s=0 \
		--set "generate.top_n=$E_TOP_N" --set "generate.order=$order" \
		--set index.enabled=false --set fetch.embeds=false "$@"
	rc=$?
	sleep 0.3   # simweb flushes its log every 100 ms
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$WORK/e-$name.log"
	if [ "$rc" -ne 0 ]; then
		say "E: $name: the crawl failed (exit $rc); the end of its output:"
		tail -n 5 "$WORK/e-$name.out" >&3
		FAILED=1
		return 1
	fi
	read_time "$WORK/e-$name.time"
	say "E: $name: $T_WALL s, $(grep -vc $'\t/robots.txt\t' "$WORK/e-$name.log") requests"
}

bench_e() {
	local n at10 bfs opic omni ratio v prk hrk
	for v in E_HOSTS E_PAGES E_SHARE E_ROUNDS; do
		is_uint "${!v}" || { say "E: $v='${!v}' is not a number"; FAILED=1; return; }
	done
	n=$((E_HOSTS * E_PAGES))
	E_TOP_N=$((n * E_SHARE / 100))
	[ "$E_TOP_N" -ge 1 ] || { say "E: the budget is 0 pages"; FAILED=1; return; }
	e_write_py
	md "## E. Harvest: PageRank mass fetched against pages fetched"
	md ""
	say "E: starting simweb --graph with $E_HOSTS hosts x $E_PAGES pages"
	WEB=$WORK/web-e
	"$WEBENV" start "$WEB" --graph --hosts "$E_HOSTS" --pages "$E_PAGES" >/dev/null ||
		{ say "E: the local web did not start"; md "The local web did not start."; FAILED=1; WEB=; return; }
	# shellcheck disable=SC1091
	. "$WEB/env"
	"$SIMWEB" --graph --seeds --hosts "$E_HOSTS" --pages "$E_PAGES" --port "$SIMWEB_PORT" \
		>"$WORK/e-seeds"
	"$SIMWEB" --graph --pagerank --hosts "$E_HOSTS" --pages "$E_PAGES" --port "$SIMWEB_PORT" \
		>"$WORK/e-pagerank" || { say "E: simweb --pagerank failed"; FAILED=1; return; }
	"$SIMWEB" --graph --links --hosts "$E_HOSTS" --pages "$E_PAGES" --port "$SIMWEB_PORT" \
		>"$WORK/e-links" || { say "E: simweb --links failed"; FAILED=1; return; }
	e_crawl bfs fifo || return
	e_crawl opic score || return
	e_crawl pagerank pagerank --set rank.every_rounds=1 || return
	e_crawl hostrank hostrank --set rank.every_rounds=1 || return
	python3 "$WORK/harvest.py" "$WORK/e-pagerank" "$SIMWEB_PORT" "$E_SHARE" "$WORK/e-links" \
		"$WORK/e-seeds" "$E_TOP_N" "$E_ROUNDS" "$WORK/harvest.svg" "BFS=$WORK/e-bfs.log" "OPIC=$WORK/e-opic.log" "PageRank=$WORK/e-pagerank.log" \
		"host-rank=$WORK/e-hostrank.log" >"$WORK/e-table" ||
		{ say "E: the log analysis failed"; FAILED=1; return; }
	at10=$(grep '^AT10 ' "$WORK/e-table")
	bfs=$(echo "$at10" | tr ' ' '\n' | awk -F= '$1 == "BFS" { print $2 }')
	opic=$(echo "$at10" | tr ' ' '\n' | awk -F= '$1 == "OPIC" { print $2 }')
	omni=$(echo "$at10" | tr ' ' '\n' | awk -F= '$1 == "omniscient" { print $2 }')
	prk=$(echo "$at10" | tr ' ' '\n' | awk -F= '$1 == "PageRank" { print $2 }')
	hrk=$(echo "$at10" | tr ' ' '\n' | awk -F= '$1 == "host-rank" { print $2 }')
	bb=$(echo "$at10" | tr ' ' '\n' | awk -F= '$1 == "greedy_oracle" { print $2 }')
	md "simweb --graph --hosts $E_HOSTS --pages $E_PAGES: $n pages, 4 to 16 links each (60 % to their own host), targets drawn by a power law; PageRank (damping 0.85) from simweb's own knowledge of every link. Seeds: /g/0.html of h0000 to h0002. Each crawl: \`mpirun -n $RANKS mpicrawl crawl --rounds $E_ROUNDS --set generate.top_n=$E_TOP_N\` ($E_SHARE % of the pages a round) \`--set generate.order=fifo|score|pagerank|hostrank\` (the last two with \`--set rank.every_rounds=1\`: \`mpicrawl rank\` after every round) \`--set politeness.delay_ms=0 --set generate.round_s=0 --set index.enabled=false --set fetch.embeds=false\`. Mass: the sum of the PageRank of the pages fetched (1 for the whole web), in the order the server saw the requests start. *greedy oracle*: a reference, not a bound - each round the $E_TOP_N URLs of greatest true PageRank among those the rounds before had found, best first within the round (computed from simweb --links, no crawl). *omniscient*: the pages by true PageRank, best first, as if every URL were known from the start."
	md ""
	grep -v '^AT10 ' "$WORK/e-table" >>"$RES"
	md ""
	if [ -n "${BENCH_RESULTS:-}" ]; then
		cp "$WORK/harvest.svg" "${BENCH_RESULTS%.*}-harvest.svg" &&
			md "The curves as a chart: \`$(basename "${BENCH_RESULTS%.*}")-harvest.svg\`." && md ""
	fi
	if [ "$bfs" = none ] || [ "$opic" = none ]; then
		md "- Floor **NOT MET**: a crawl fetched fewer than 10 % of the pages ($at10)."
		FLOOR_MISSED=1
		return
	fi
	ratio=$(awk -v a="$opic" -v b="$bfs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	md "At 10 % of the pages: BFS $bfs, OPIC $opic, PageRank $prk, host rank $hrk, omniscient $omni of the mass: OPIC / BFS = **$ratio** (floor $E_FLOOR), PageRank / BFS $(awk -v a="$prk" -v b="$bfs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'), host rank / BFS $(awk -v a="$hrk" -v b="$bfs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'); the greedy oracle $bb, $(awk -v a="$bb" -v b="$bfs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') times BFS."
	md ""
	say "E: at 10 % of the pages: BFS $bfs, OPIC $opic, PageRank $prk, host rank $hrk, greedy oracle $bb, omniscient $omni (OPIC / BFS $ratio)"
	if awk -v r="$ratio" -v f="$E_FLOOR" 'BEGIN { exit !(r < f) }'; then
		md "- Floor **NOT MET**: OPIC / BFS at 10 % is $ratio, under $E_FLOOR."
		FLOOR_MISSED=1
	fi
	"$WEBENV" stop "$WEB" >/dev/null 2>&1
	WEB=
}

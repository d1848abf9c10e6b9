#!/usr/bin/env bash
# URLs a cached robots.txt denies, judged by generate (issue 34 item 2): a
# static site (python3's http.server on 127.0.0.1) whose sitemap lists 10
# pages and 1000 that robots.txt disallows, the disallowed ones with the
# higher priority. Judged from the server's request log, each segment's
# stats.json, fetch lists and decision log, and the CrawlDb:
# - with generate.top_n = 5, the round after the sitemap records the 1000
#   denied (generate's robots_denied, update's decision log: robots) and
#   takes 5 allowed pages; no fetch list holds a disallowed URL, so the 10
#   pages take two rounds and the crawl is then complete;
# - the denied URLs are due again when their robots.txt is asked again
#   (robots.cache_ttl_s), not the next round: a crawl run again finds
#   nothing due;
# - with a round plan (a 20 ms delay) and no budget, every denied URL is
#   recorded in that one round: none is left for later rounds;
# - a round with nothing due but denied URLs records them and the crawl
#   goes on (a standalone generate says so);
# - the same CrawlDb and fetch lists on 1 and 2 ranks.
. "$(dirname "$0")/lib.sh"

A=$SCRATCH/a
mkdir -p "$A/p" "$A/private"
PA=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SA=http://127.0.0.1:$PA
PIDS=()
stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	PIDS=()
}
trap 'stop_servers; [ -n "${KEEP_SCRATCH:-}" ] || cleanup' EXIT

printf 'User-agent: *\nDisallow: /private/\nSitemap: %s/sitemap.xml\n' "$SA" >"$A/robots.txt"
printf '<html><body><p>The home page of a site mostly closed to crawlers.</p></body></html>\n' \
	>"$A/index.html"
python3 - "$A" "$SA" <<'PY'
import sys
root, site = sys.argv[1], sys.argv[2]
with open(root + "/sitemap.xml", "w") as f:
    f.write('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for i in range(1000):
        f.write("<url><loc>%s/private/%d.html</loc><priority>1.0</priority></url>\n" % (site, i))
    for i in range(10):
        f.write("<url><loc>%s/p/%d.html</loc><priority>0.1</priority></url>\n" % (site, i))
        with open("%s/p/%d.html" % (root, i), "w") as p:
            p.write("<html><body><p>Open page %d, words of its own: %s.</p></body></html>\n"
                    % (i, " ".join(str(i * 7 + k) for k in range(i + 3))))
    f.write("</urlset>\n")
PY

start_server() {
	(cd "$A" && exec python3 -m http.server "$PA" --bind 127.0.0.1 >>"$SCRATCH/a.log" 2>&1) &
	PIDS+=($!)
	for _ in $(seq 50); do
		curl -s -o /dev/null "$SA/robots.txt" && return 0
		sleep 0.1
	done
	return 1
}
: >"$SCRATCH/a.log"
check "a static server starts" start_server
printf '%s/\n' "$SA" >"$SCRATCH/seeds"
opts=(--set fetch.allow_private=true --set scope.mode=seeds-hosts --set partition.count=4
      --set dedup.enabled=false --set index.enabled=false)

# counter DIR SEG PHASE NAME: a counter of segment SEG's stats.json (0 if none).
counter() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(d.get(sys.argv[2], {}).get("counters", {}).get(sys.argv[3], 0))' \
		"$1/segments/$(printf %05d "$2")/stats.json" "$3" "$4"
}
# segments DIR: the crawl's segment numbers.
segments() {
	local s
	for s in "$1"/segments/*; do echo "$((10#${s##*/}))"; done
}
# denied_listed DIR: how many fetch lists entries of the crawl are disallowed.
denied_listed() {
	local s
	for s in $(segments "$1"); do
		"$MPICRAWL" readdb --dir "$1" --fetchlist --segment "$s"
	done | grep -c '/private/'
}

# ---- a budget of 5 URLs a round ----
check "crawl with generate.top_n=5 exits 0" run_ranks 1 crawl --dir "$SCRATCH/c1" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=0 \
	--set generate.top_n=5 --rounds 12 >"$SCRATCH/c1.out" 2>&1
check "... and ends complete" grep -q 'nothing is due: the crawl is complete' "$SCRATCH/c1.out"
for i in $(seq 0 9); do
	n=$(grep -c "\"GET /p/$i.html HTTP" "$SCRATCH/a.log")
	check "... open page $i fetched once ($n)" test "$n" -eq 1
done
check "... no disallowed URL asked of the server" test \
	"$(grep -c '"GET /private/' "$SCRATCH/a.log")" -eq 0
nseg=$(segments "$SCRATCH/c1" | wc -l)
# the home page and robots.txt; the sitemap; 5 and 5 open pages
check "... in 4 rounds ($nseg)" test "$nseg" -eq 4
check "... no fetch list holds a disallowed URL" test "$(denied_listed "$SCRATCH/c1")" -eq 0
sum=0
for s in $(segments "$SCRATCH/c1"); do
	sum=$((sum + $(counter "$SCRATCH/c1" "$s" generate robots_denied)))
done
check "... generate recorded the 1000 denied ($sum)" test "$sum" -eq 1000
check "... in the round after the sitemap's" test \
	"$(counter "$SCRATCH/c1" 3 generate robots_denied)" -eq 1000
check "... which took 5 open pages" test "$(counter "$SCRATCH/c1" 3 generate selected)" -eq 5
check "... none past the budget that it denied" test \
	"$(counter "$SCRATCH/c1" 3 generate budget_capped)" -eq 5
check "... the fetch saw none of them" test "$(counter "$SCRATCH/c1" 3 fetch denied)" -eq 0
"$MPICRAWL" readdb --dir "$SCRATCH/c1" --decisions --segment 3 >"$SCRATCH/dec3"
check "... the decision log names each: robots" test \
	"$(grep -c '/private/[0-9]*.html","reason":"robots"' "$SCRATCH/dec3")" -eq 1000
"$MPICRAWL" readdb --dir "$SCRATCH/c1" --dump >"$SCRATCH/dump1"
check "... the CrawlDb holds them denied" test \
	"$(grep '/private/' "$SCRATCH/dump1" | grep -c '"status":"denied"')" -eq 1000
check "... due when their robots.txt is asked again" python3 - "$SCRATCH/dump1" "$PA" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
home = [r for r in recs if r["url"].endswith(":%s/" % sys.argv[2])]
denied = [r for r in recs if "/private/" in r["url"]]
# each is due a day (robots.cache_ttl_s, in seconds here) after the
# robots.txt answer, which came in round 1 before the home page
ok = len(home) == 1 and all(r["next_fetch"] - r["fetched_at"] == 86400 for r in denied)
ok = ok and max(r["fetched_at"] for r in denied) <= home[0]["fetched_at"]
sys.exit(0 if ok else 1)
PY
before=$(wc -l <"$SCRATCH/a.log")
check "a crawl run again finds nothing due" run_ranks 1 crawl --dir "$SCRATCH/c1" \
	"${opts[@]}" --set politeness.delay_ms=0 --set generate.top_n=5 --rounds 3 \
	>"$SCRATCH/c1b.out" 2>&1
check "... says so, and asks the server nothing" test \
	"$(grep -c 'nothing is due: the crawl is complete' "$SCRATCH/c1b.out")" -eq 1 -a \
	"$(wc -l <"$SCRATCH/a.log")" -eq "$before"

# ---- the same on 2 ranks ----
check "crawl on 2 ranks exits 0" run_ranks 2 crawl --dir "$SCRATCH/c2" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=0 \
	--set generate.top_n=5 --rounds 12 >"$SCRATCH/c2.out" 2>&1
strip() { sed -E 's/"(fetched_at|next_fetch|visited_at)":[0-9]+,?//g' | LC_ALL=C sort; }
check "... the same CrawlDb as on 1 rank" test \
	"$(strip <"$SCRATCH/dump1" | md5sum)" = \
	"$("$MPICRAWL" readdb --dir "$SCRATCH/c2" --dump | strip | md5sum)"
check "... the same rounds" test "$(segments "$SCRATCH/c2" | wc -l)" -eq 4

# ---- a round plan, no budget ----
check "crawl with a 20 ms delay exits 0" run_ranks 1 crawl --dir "$SCRATCH/c3" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=20 --rounds 12 \
	>"$SCRATCH/c3.out" 2>&1
check "... and ends complete" grep -q 'nothing is due: the crawl is complete' "$SCRATCH/c3.out"
check "... every denied URL recorded in round 3" test \
	"$(counter "$SCRATCH/c3" 3 generate robots_denied)" -eq 1000
check "... no fetch list holds a disallowed URL" test "$(denied_listed "$SCRATCH/c3")" -eq 0
n=$(segments "$SCRATCH/c3" | wc -l)
check "... at most 4 rounds ($n)" test "$n" -le 4
# generate.order = fifo streams the CrawlDb in URL order (no sort): the same
check "crawl in URL order exits 0" run_ranks 1 crawl --dir "$SCRATCH/c6" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=0 \
	--set generate.order=fifo --rounds 12 >"$SCRATCH/c6.out" 2>&1
check "... every denied URL recorded in round 3, none listed" test \
	"$(counter "$SCRATCH/c6" 3 generate robots_denied)" -eq 1000 -a \
	"$(denied_listed "$SCRATCH/c6")" -eq 0

# ---- nothing due but denied URLs (scope.rules keeps the open pages out) ----
printf -- '-/p/[0-9]+\\.html$\n' >"$SCRATCH/no-open.rules"
check "a crawl of only denied URLs exits 0" run_ranks 1 crawl --dir "$SCRATCH/c4" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=0 \
	--set scope.rules="$SCRATCH/no-open.rules" --rounds 12 >"$SCRATCH/c4.out" 2>&1
check "... its third round records them and fetches nothing" test \
	"$(counter "$SCRATCH/c4" 3 generate robots_denied)" -eq 1000 -a \
	"$(counter "$SCRATCH/c4" 3 generate selected)" -eq 0
check "... and the crawl goes on to its end, complete" bash -c \
	'grep -q "nothing is due: the crawl is complete" "$1" &&
	 ! grep -q "no URL could be fetched this round" "$1"' _ "$SCRATCH/c4.out"
check "... in 3 rounds" test "$(segments "$SCRATCH/c4" | wc -l)" -eq 3
check "a standalone generate says what it denied" bash -c '"$1" crawl --dir "$2" \
	--seeds "$3" "${@:4}" --rounds 2 >/dev/null 2>&1 &&
	"$1" generate --dir "$2" "${@:4}" 2>/dev/null |
	grep -qx "segment 3: 0 URLs, 1000 denied by robots.txt"' _ "$MPICRAWL" "$SCRATCH/c5" \
	"$SCRATCH/seeds" "${opts[@]}" --set politeness.delay_ms=0 \
	--set scope.rules="$SCRATCH/no-open.rules"
stop_servers
finish

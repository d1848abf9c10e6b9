#!/usr/bin/env bash
# Bounded crawls: a simweb of 12 hosts in 4 registrable domains (--sites 4,
# hosts hNNNN.sJ.test, J = N mod 4; the seeds are h0000..h0002, so s3 holds
# no seed), each with sitemaps (--sitemaps: an index named by robots.txt, a
# gzip sitemap, pages only sitemaps list, a sitemap over the 50,000 cap, and
# entries of another host that must be refused), crawled to completion under
# each scope.mode and a rules file in
# each syntax (Heritrix SURT prefixes, Nutch regexes). Judged from the server
# log against simweb --truth --scope-hosts (the walk that never enters a host
# out of scope):
# - exactly the in-scope reachable set fetched, each URL once, no request of
#   any kind (robots.txt included) to a host out of scope;
# - the decision log accounts for every linked URL that is not in the
#   CrawlDb, names only URLs out of scope with reason scope:* (and their
#   source), and URLs robots.txt refused with reason robots;
# - stats.json counts the refusals; every case's CrawlDb is the same on 1, 2
#   and 4 ranks.
. "$(dirname "$0")/lib.sh"

HOSTS=12
PAGES=12
SITES=4

start_web web --hosts $HOSTS --pages $PAGES --sites $SITES --domain test --sitemaps ||
	{ echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --sites $SITES --domain test \
	--port "$SIMWEB_PORT" >"$SCRATCH/seeds"

# hosts_where EXPR: the host names h (index i, site s = i mod 4) for which
# the python expression EXPR holds.
hosts_where() {
	python3 - "$1" $HOSTS $SITES <<'PY'
import sys
expr, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    s = i % k
    if eval(expr, {"i": i, "s": s}):
        print("h%04d.s%d.test" % (i, s))
PY
}

cat >"$SCRATCH/surt.rules" <<'RULES'
# Heritrix SURT prefixes: first match wins.
-http://(test,s1,
+http://(test,s3,h0003,
RULES
cat >"$SCRATCH/regex.rules" <<'RULES'
# Nutch regex-urlfilter lines.
-^https?://h000[45]\.
+^https?://h0007\.s3\.test[:/]
RULES

# Each case: name, ranks, settings, the in-scope hosts.
cases=(
	"domains|1 2 4|scope.mode=seeds-domains|s != 3"
	"hosts|1 2 4|scope.mode=seeds-hosts|i < 3"
	"any|1 2 4|scope.mode=any|True"
	"surt|1 2 4|scope.rules=$SCRATCH/surt.rules|(s != 3 and s != 1) or i == 3"
	"regex|1 2 4|scope.rules=$SCRATCH/regex.rules|(s != 3 and i not in (4, 5)) or i == 7"
)

# decisions_cover DIR: every link target of the crawl's link graph is in
# its CrawlDb or in a decision log; every decision is scope:* on a host
# out of scope (SCOPE_FILE).
decisions_cover() {
	local dir=$1 scope=$2 s
	"$MPICRAWL" readdb --dir "$dir" --dump | python3 -c '
import json, sys
for l in sys.stdin: print(json.loads(l)["url"])' >"$SCRATCH/db.urls"
	: >"$SCRATCH/decisions"
	for s in "$dir"/segments/*; do
		"$MPICRAWL" readdb --dir "$dir" --decisions --segment "$((10#${s##*/}))" \
			>>"$SCRATCH/decisions" || return 1
	done
	zstdcat "$dir"/segments/*/links/*.zst | cut -f2 >"$SCRATCH/targets"
	python3 - "$SCRATCH/db.urls" "$SCRATCH/decisions" "$SCRATCH/targets" "$scope" <<'PY'
import json, sys
from urllib.parse import urlsplit
db = set(l.strip() for l in open(sys.argv[1]))
dec = [json.loads(l) for l in open(sys.argv[2])]
logged = set(d["url"] for d in dec)
scope = set(l.strip() for l in open(sys.argv[4]))
missing = [t.strip() for t in open(sys.argv[3]) if t.strip() not in db and t.strip() not in logged]
scoped = [d for d in dec if d["reason"].startswith("scope:")]
# Besides scope: robots.txt refusals of fetched hosts (their URLs are in the
# CrawlDb), and sitemap entries of other hosts (simweb's /x/ pages).
wrong = [d for d in scoped if urlsplit(d["url"]).hostname in scope] + \
        [d for d in dec if not d["reason"].startswith("scope:") and
         not (d["reason"] == "robots" and d["url"] in db) and
         not (d["reason"] == "sitemap:cross-host" and "/x/" in d["url"])]
nofrom = [d for d in scoped if not d["from"]]
print("decisions: %d lines, %d link targets unaccounted, %d wrong, %d without a source"
      % (len(dec), len(missing), len(wrong), len(nofrom)))
for x in (missing[:3], wrong[:3], nofrom[:3]):
    if x: print("  e.g.", x)
sys.exit(1 if missing or wrong or nofrom or not scoped else 0)
PY
}

for c in "${cases[@]}"; do
	IFS='|' read -r name ranks setting expr <<<"$c"
	hosts_where "$expr" >"$SCRATCH/$name.scope"
	"$SIMWEB" --truth --hosts $HOSTS --pages $PAGES --sites $SITES --domain test --sitemaps \
		--port "$SIMWEB_PORT" --scope-hosts "$SCRATCH/$name.scope" >"$SCRATCH/$name.truth"
	for n in $ranks; do
		dir=$SCRATCH/crawl-$name-$n
		before=$(wc -l <"$SIMWEB_LOG")
		check "$name: crawl on $n ranks exits 0" run_ranks "$n" crawl --dir "$dir" \
			--seeds "$SCRATCH/seeds" --set fetch.allow_private=true \
			--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
			--set "$setting" --set partition.count=8 >"$SCRATCH/out-$name-$n" 2>&1 ||
			tail -n 3 "$SCRATCH/out-$name-$n"
		sleep 0.3   # simweb flushes its log every 100 ms
		tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$SCRATCH/log"
		check "$name on $n ranks: the in-scope set fetched, once each" \
			audit_log "$SCRATCH/log" "$SCRATCH/$name.truth" "$SIMWEB_PORT" 0
		check "$name on $n ranks: no request to a host out of scope" test -z \
			"$(cut -f3 "$SCRATCH/log" | sort -u | grep -vxFf "$SCRATCH/$name.scope")"
		dump_db "$dir" >"$SCRATCH/dump-$name-$n"
		[ "$n" -gt 1 ] && check "$name: CrawlDb identical on 1 and $n ranks" \
			cmp -s "$SCRATCH/dump-$name-1" "$SCRATCH/dump-$name-$n"
		[ "$name" = any ] && continue
		check "$name on $n ranks: the decision log accounts for every link" \
			decisions_cover "$dir" "$SCRATCH/$name.scope"
	done
done
# Sitemaps (simweb --sitemaps): the pages only they list are in the truth the
# audits matched; the entries a host's robots.txt does not vouch for are not.
check "sitemap-only pages were fetched (3 a host reached)" test \
	"$(grep -c '/s/[0-9]*.html' "$SCRATCH/domains.truth")" -eq 27
check "no refused cross-host sitemap entry was ever requested" test \
	"$(cut -f4 "$SIMWEB_LOG" | grep -c '^/x/')" -eq 0
check "the refused ones are in the decision log as sitemap:cross-host" test "$(
	"$MPICRAWL" readdb --dir "$SCRATCH/crawl-any-1" --decisions --segment 3 |
	grep -c '"reason":"sitemap:cross-host"')" -gt 0
check "big.xml: 50,000 of 50,010 entries kept, 10 dropped" test "$(python3 -c '
import json, sys
print(sum(json.load(open(f))["parse"]["counters"].get("sitemap_dropped", 0) for f in sys.argv[1:]))' \
	"$SCRATCH"/crawl-domains-1/segments/*/stats.json)" -eq 10
check "stats.json counts scope refusals" python3 -c '
import json, sys
n = sum(json.load(open(f))["update"]["counters"].get("scope_mode", 0) for f in sys.argv[1:])
sys.exit(0 if n > 0 else 1)' "$SCRATCH"/crawl-domains-1/segments/*/stats.json
check "stats.json counts rule refusals" python3 -c '
import json, sys
n = sum(json.load(open(f))["update"]["counters"].get("scope_rules", 0) for f in sys.argv[1:])
sys.exit(0 if n > 0 else 1)' "$SCRATCH"/crawl-surt-1/segments/*/stats.json

# The seed the SURT rules refuse was not injected, and said so.
check "a seed refused by scope.rules is counted at inject" grep -q \
	"1 refused by scope.rules" "$SCRATCH/out-surt-1"
check "... and warned about with its line" grep -q \
	"seeds:2: refused seed .*a rule of scope.rules refuses it" "$SCRATCH/out-surt-1"

# Rules that refuse every seed: said in one line (the crawl has nothing to do).
printf -- '-http://(test,\n' >"$SCRATCH/refuse-all.rules"
check "scope.rules refusing every seed is said" expect 0 "scope.rules refused every seed" \
	"$MPICRAWL" crawl --dir "$SCRATCH/refuse-all" --seeds "$SCRATCH/seeds" \
	--set "scope.rules=$SCRATCH/refuse-all.rules"

# Bad rules files: one line naming file and line, exit 2, nothing crawled.
printf '+^ok\n+[unclosed\n' >"$SCRATCH/bad.rules"
check "a bad regex is refused with its line" expect 2 "bad.rules:2: bad regex" \
	"$MPICRAWL" crawl --dir "$SCRATCH/bad" --seeds "$SCRATCH/seeds" \
	--set "scope.rules=$SCRATCH/bad.rules"
printf 'example.org\n' >"$SCRATCH/bad2.rules"
check "a line without + or - is refused" expect 2 "bad2.rules:1: a rule starts with" \
	"$MPICRAWL" crawl --dir "$SCRATCH/bad" --seeds "$SCRATCH/seeds" \
	--set "scope.rules=$SCRATCH/bad2.rules"
check "a missing rules file is refused" expect 2 "scope.rules.*cannot read rules file" \
	"$MPICRAWL" crawl --dir "$SCRATCH/bad" --seeds "$SCRATCH/seeds" \
	--set "scope.rules=$SCRATCH/none.rules"
check "an unknown scope.mode is refused" expect 2 "scope.mode: bad value" \
	"$MPICRAWL" crawl --dir "$SCRATCH/bad" --seeds "$SCRATCH/seeds" --set scope.mode=site
check "nothing was created by the refused runs" test ! -e "$SCRATCH/bad/crawl.meta"
check "readdb --decisions needs --segment" expect 2 "needs --dir" \
	"$MPICRAWL" readdb --dir "$SCRATCH/crawl-domains-1" --decisions
check "readdb --decisions of a missing segment" expect 1 "segment 99 does not exist" \
	"$MPICRAWL" readdb --dir "$SCRATCH/crawl-domains-1" --decisions --segment 99
finish

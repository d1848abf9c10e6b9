#!/usr/bin/env bash
# Politeness and robots.txt handling, judged from the server's side: a
# 100-host simweb in --politeness mode (tests/simweb/README.md lists the host
# variants: Crawl-delay, merged groups, wildcards, robots.txt answering 5xx,
# 429 or never, redirects, a huge robots.txt, slow hosts, pages answering
# 429/503 once) crawled on 1, 2 and 4 ranks, each on a fresh web (its
# answers that change after the first request start over). From each run's
# request log:
# (a) no request flagged disallowed: no path robots.txt forbids us, and no
#     page of a host whose robots.txt is unreachable (5xx, 429, no answer) or
#     whose Crawl-delay is above politeness.max_crawl_delay_ms;
# (b) no two request starts to one host closer than its effective delay,
#     max(politeness.delay_ms, its Crawl-delay from simweb --hostinfo);
# (c) never more than politeness.max_in_flight (1) requests open to a host;
# (d) no page of a host requested before its robots.txt first answered
#     conclusively (2xx, or 4xx but 429, at the end of the redirects;
#     or the sixth redirect in a row, which makes it "unavailable");
# (e) every URL of simweb --truth fetched with the truth's status;
# (f) no request to a host sooner than a Retry-After it was given (every 429
#     and 503 simweb sends carries Retry-After: 1);
# and from the CrawlDb:
# (g) the over-cap hosts' URLs are recorded deferred (or unfetched, if found
#     in the last round), at least one per such host; so are those of hosts
#     whose robots.txt never answered usably, with the reason
#     "robots.txt unreachable: ..." (RFC 9309: disallow all for now).
# The server's times are when it read a request's first byte and when it
# handed the response's last byte to the kernel: the crawler's own request
# spans that interval, so the rules need no slack for timing noise (1 ms
# for rounding).
. "$(dirname "$0")/lib.sh"

HOSTS=100
PAGES=8
DELAY=20          # politeness.delay_ms
CAP=30000         # politeness.max_crawl_delay_ms, and simweb's --max-crawl-delay-ms
# Rounds: the deepest truth URL is 11 links from a seed; one more round for
# the robots.txt that fails once and for the pages answering 429/503 once,
# and a margin for the pages a crawler finds only behind those.
ROUNDS=16
# fetch.timeout_s bounds the robots.txt that never answers (asked again every
# round); 2 s is 40 times the slowest answer of the web (50 ms).
TIMEOUT=2

audit() {
	# audit LOG TRUTH HOSTINFO PORT DELAY_MS DUMP > RESULTS: one "ok X ..." or
	# "not ok X ..." line per check, then "info ..." lines.
	python3 - "$@" <<'PY'
import sys, re, json, collections
logf, truthf, infof, port, delay_ms, dumpf = sys.argv[1:7]
delay_us = int(delay_ms) * 1000
SLACK = 1000   # us
# (f) measures from the end time simweb logs for the 429/503, taken when its
# loop writes the log line - after the last byte left, sometimes a few ms
# later when the loop serves other connections first - while the crawler's
# hold runs from when it read that byte (seen: 999 ms of a 1 s hold).
SLACK_F = 5000   # us
robots_path = re.compile(r"^/robots(-[a-z0-9]+)?\.txt$")
want = {}
for line in open(truthf):
    url, st = line.rstrip("\n").split("\t")
    want[url] = int(st)
variant, crawl_delay = {}, {}
for line in open(infof):
    h, cd, v = line.rstrip("\n").split("\t")
    variant[h], crawl_delay[h] = v, int(cd)
reqs = collections.defaultdict(list)   # host -> [(t0, t1, path, status, flag)]
for line in open(logf):
    f = line.rstrip("\n").split("\t")
    reqs[f[2]].append((int(f[0]), int(f[1]), f[3], int(f[4]), f[6]))
for h in reqs:
    reqs[h].sort()

def host_of(x):
    return x[0] if isinstance(x, tuple) else x.split("/")[2].split(":")[0]

def report(name, bad, what, total=None):
    if bad:
        by = collections.Counter(variant.get(host_of(x), "?") for x in bad)
        print("not ok %s %d %s (by variant: %s), e.g. %s" % (
            name, len(bad), what, ", ".join("%s %d" % kv for kv in sorted(by.items())), bad[:4]))
    else:
        print("ok %s none of %s %s" % (name, total if total is not None else "", what))

nreq = sum(len(r) for r in reqs.values())
# (a)
bad = [(h, p, st) for h in reqs for (_, _, p, st, fl) in reqs[h] if fl == "disallowed"]
report("a", bad, "requests flagged disallowed", nreq)
# (b)
bad = []
for h, r in reqs.items():
    eff = max(delay_us, crawl_delay.get(h, 0) * 1000)
    for x, y in zip(r, r[1:]):
        if y[0] - x[0] < eff - SLACK:
            bad.append((h, variant.get(h), "%s->%s" % (x[2], y[2]),
                        "%.1f<%.0f ms" % ((y[0] - x[0]) / 1000, eff / 1000)))
report("b", bad, "request starts closer than the host's effective delay", nreq)
if bad:
    kinds = collections.Counter(
        "robots.txt->page" if robots_path.match(p.split("->")[0]) and not robots_path.match(p.split("->")[1])
        else "robots.txt step->robots.txt step" if robots_path.match(p.split("->")[1])
        else "page->page" for (_, _, p, _) in bad)
    print("info b: the pairs too close: %s" % dict(kinds))
# (c)
bad = []
for h, r in reqs.items():
    end = None
    for x, y in zip(r, r[1:]):
        end = x[1] if end is None else max(end, x[1])
        if y[0] < end:
            bad.append((h, y[2], "starts %.1f ms before an earlier one ended" % ((end - y[0]) / 1000)))
report("c", bad, "requests open at once with another to the same host", nreq)
# (d)
bad = []
for h, r in reqs.items():
    ok_at = None
    for (t0, t1, p, st, fl) in r:
        if robots_path.match(p):
            conclusive = (200 <= st < 300 or (400 <= st < 500 and st != 429) or
                          (variant.get(h) == "robots-redirect-6" and p == "/robots-hop5.txt"))
            if conclusive and ok_at is None:
                ok_at = t1
        elif ok_at is None or t0 < ok_at:
            bad.append((h, variant.get(h), p, "no robots.txt answer yet" if ok_at is None
                        else "%.1f ms before it" % ((ok_at - t0) / 1000)))
report("d", bad, "page requests before the host's robots.txt answered", nreq)
# (e)
got = collections.defaultdict(list)
for h, r in reqs.items():
    for (t0, t1, p, st, fl) in r:
        if not robots_path.match(p):
            got["http://%s:%s%s" % (h, port, p)].append(st)
missing = sorted(u for u in want if want[u] not in got.get(u, []))
report("e", missing, "truth URLs not fetched with the truth's status", len(want))
# A 429/503 first answer, then the page: two requests expected.
again = sorted(u for u, s in got.items() if len(s) > 1 and not (len(s) == 2 and s[0] in (429, 503)))
extra = sorted(u for u in got if u not in want)
print("info e: %d truth URLs; %d fetched more than needed (%s); %d requested that are "
      "not in the truth (%s)" % (len(want), len(again), again[:3], len(extra), extra[:3]))
# (f)
bad = []
for h, r in reqs.items():
    for i, (t0, t1, p, st, fl) in enumerate(r):
        if st not in (429, 503):
            continue
        for y in r[i + 1:]:
            if y[0] < t1 + 1000000 - SLACK_F:
                bad.append((h, variant.get(h), "%s %d" % (p, st), "then %s after %.0f ms" %
                            (y[2], (y[0] - t1) / 1000)))
            break
report("f", bad, "requests sooner than the Retry-After: 1 the host gave", nreq)
# (g)
status, reason = {}, {}
for line in open(dumpf):
    d = json.loads(line)
    status[d["url"]] = d["status"]
    reason[d["url"]] = d.get("reason", "")
bad = []
over = {h for h in crawl_delay if crawl_delay[h] > int(sys.argv[7])}
unreachable = {h for h, v in variant.items()
               if v in ("robots-500", "robots-503", "robots-429", "robots-timeout")}
deferred = set()
for u, st in status.items():
    h = u.split("/")[2].split(":")[0]
    v = variant.get(h, "")
    if h in unreachable and st == "deferred" and reason[u].startswith("robots.txt unreachable"):
        deferred.add(h)
    elif h in unreachable and st != "unfetched":
        bad.append((u, v, st + " " + reason[u]))
    if h in over and st == "deferred":
        deferred.add(h)
    elif h in over and st != "unfetched":
        bad.append((u, v, st))
known = {u.split("/")[2].split(":")[0] for u in status}
bad += [(h, variant[h], "no URL deferred") for h in sorted((over | unreachable) & known - deferred)]
report("g", bad, "URLs of over-cap or unreachable-robots hosts not deferred (with the "
       "reason)", len(status))
# Information: what each variant's hosts were asked.
per = collections.defaultdict(collections.Counter)
for h, r in reqs.items():
    for (t0, t1, p, st, fl) in r:
        per[variant.get(h, "?")]["robots" if robots_path.match(p) else "pages"] += 1
print("info requests by variant: " + "; ".join(
    "%s %d+%d" % (v, c["robots"], c["pages"]) for v, c in sorted(per.items())
    if not v.startswith("base-")))
print("info %d requests to %d hosts; statuses %s" % (nreq, len(reqs), dict(sorted(
    collections.Counter(st for r in reqs.values() for (_, _, _, st, _) in r).items()))))
PY
}

for n in 1 2 4; do
	if ! start_web "web$n" --politeness --max-crawl-delay-ms $CAP --hosts $HOSTS --pages $PAGES; then
		check "web for $n ranks starts" false
		continue
	fi
	web=(--politeness --max-crawl-delay-ms "$CAP" --hosts "$HOSTS" --pages "$PAGES" --port "$SIMWEB_PORT")
	"$SIMWEB" --seeds "${web[@]}" >"$SCRATCH/seeds$n"
	"$SIMWEB" --truth "${web[@]}" >"$SCRATCH/truth$n"
	"$SIMWEB" --hostinfo "${web[@]}" >"$SCRATCH/hostinfo$n"
	t0=$(date +%s%N)
	check "crawl on $n ranks exits 0" run_ranks "$n" crawl --dir "$SCRATCH/crawl$n" \
		--seeds "$SCRATCH/seeds$n" --rounds $ROUNDS --set fetch.allow_private=true \
		--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=$DELAY \
		--set politeness.max_in_flight=1 --set politeness.max_crawl_delay_ms=$CAP \
		--set partition.count=16 --set crawl.retry_interval_s=0 \
		--set fetch.timeout_s=$TIMEOUT >"$SCRATCH/out$n" 2>&1
	echo "crawl on $n ranks: $((($(date +%s%N) - t0) / 1000000)) ms;" \
		"$(grep -o 'CrawlDb version.*' "$SCRATCH/out$n" | tail -n 1)"
	sleep 0.3   # simweb flushes its log every 100 ms
	cp "$SIMWEB_LOG" "$SCRATCH/log$n"
	"$ROOT/scripts/webenv.sh" stop "$SCRATCH/web$n" >/dev/null 2>&1
	"$MPICRAWL" readdb --dir "$SCRATCH/crawl$n" --dump >"$SCRATCH/dump$n" 2>/dev/null
	audit "$SCRATCH/log$n" "$SCRATCH/truth$n" "$SCRATCH/hostinfo$n" "$SIMWEB_PORT" $DELAY \
		"$SCRATCH/dump$n" $CAP >"$SCRATCH/audit$n"
	sed "s/^/  [$n ranks] /" "$SCRATCH/audit$n"
	for c in a b c d e f g; do
		check "($c) on $n ranks" grep -q "^ok $c " "$SCRATCH/audit$n"
	done
	# The checks hold for the hosts whose robots.txt was asked early too.
	check "robots.txt of new hosts asked early on $n ranks" early_robots "$SCRATCH/crawl$n"
done

# A robots.txt failure an earlier job cached: a URL it holds in a later job
# is due when that robots.txt is asked again (the answer's time plus
# crawl.retry_interval_s), not a whole retry interval after the later job.
# h0004 of --politeness answers robots.txt with 500.
next_fetch() {  # next_fetch DIR URL: the URL's status and next_fetch, from readdb
	"$MPICRAWL" readdb --dir "$1" --dump 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if d["url"] == sys.argv[1]:
        print(d["status"], d["next_fetch"], d.get("reason", ""))' "$2"
}
if start_web webc --politeness --hosts 6 --pages 5; then
	R=$SCRATCH/cached
	base="http://h0004.sim.test:$SIMWEB_PORT"
	ropts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
		--set politeness.delay_ms=0 --set crawl.retry_interval_s=3600 --set fetch.follow_max=0)
	echo "$base/" >"$SCRATCH/cached-seeds1"
	echo "$base/p/1.html" >"$SCRATCH/cached-seeds2"
	timeout 120 "$MPICRAWL" crawl --dir "$R" --seeds "$SCRATCH/cached-seeds1" "${ropts[@]}" \
		--rounds 1 >/dev/null 2>&1
	read -r st1 nf1 _ < <(next_fetch "$R" "$base/")
	# the later job ten minutes on (the crawler's clock moved, not slept)
	MPICRAWL_CLOCK_OFFSET_S=600 timeout 120 "$MPICRAWL" crawl --dir "$R" \
		--seeds "$SCRATCH/cached-seeds2" "${ropts[@]}" --rounds 1 >/dev/null 2>&1
	read -r st2 nf2 why2 < <(next_fetch "$R" "$base/p/1.html")
	sleep 0.3
	asked=$(awk -F'\t' '$3 ~ /^h0004\./ && $4 == "/robots.txt"' "$SIMWEB_LOG" | wc -l)
	echo "  cached robots.txt failure: first job '$st1' due $nf1; later job '$st2' due $nf2 ($why2); robots.txt asked $asked times"
	check "cached robots.txt failure: the first URL deferred" test "$st1" = deferred
	check "  a URL of a later job deferred too, naming the answer" \
		test "$st2 $why2" = "deferred robots.txt unreachable: http 500"
	check "  the robots.txt asked once (the later job used the cache)" test "$asked" -eq 1
	check "  the later URL due with the robots.txt, not a retry interval after the later job" \
		test "$((nf2 - nf1))" -le 1 -a "$((nf2 - nf1))" -ge -1
	"$ROOT/scripts/webenv.sh" stop "$SCRATCH/webc" >/dev/null 2>&1
else
	check "web for the cached robots.txt failure starts" false
fi
finish

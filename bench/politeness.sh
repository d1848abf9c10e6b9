# shellcheck shell=bash
# shellcheck disable=SC2034 # FAILED and FLOOR_MISSED are run.sh's
# Benchmark C of bench/run.sh: politeness efficiency. Sourced by run.sh,
# which provides say, md, die, WORK, WEB, WEBENV, SIMWEB, MPICRAWL, TIME,
# RANKS, bg_run, mpi_timed, read_time, rank_rss, step_timeout, left_s,
# helper (the request log audit), FAILED and FLOOR_MISSED, and whose EXIT
# trap stops the web in $WEB and whatever bg_run started.
#
# One simweb (BENCH_C_HOSTS x BENCH_C_PAGES, default 100 x 30) is crawled
# completely by mpicrawl on $RANKS ranks with the default politeness
# (politeness.delay_ms=1000, politeness.max_in_flight=1), then by a minimal
# scrapy spider with the same delay. From the server's request log:
#
#   violations  two request starts to one host less than the delay apart (no
#               slack), a request to a host starting while another to it is
#               open, a request flagged `disallowed`;
#   efficiency  per fetch round (mpicrawl): a host "has URLs" in the round from
#               when it may be asked (the round's first request to any host,
#               or its previous request + the delay if that is later; never
#               after its own first request) to the start of its own last
#               request in the round. The bound while it has URLs is one
#               request per delay, so the round's efficiency is
#                 sum over active hosts (requests - 1) x delay
#                 / sum over active hosts (last request start - may be asked)
#               (n requests need n - 1 delays: the host's last request is
#               where its time stops). A host whose only request in a round
#               is its robots.txt (asked early: found in the round, its URLs
#               come in the next; or, rarely, one whose robots.txt denied
#               all it had) is not active in it: the log alone cannot tell
#               the two apart, and the second's window is about 0 anyway. Overall: the rounds'
#               figures weighted by their active hosts' requests; the floor
#               applies to it. Also per round,
#               the stricter window of the issue: from the round's first
#               request to the earliest last request of any active host
#               (every host still has URLs throughout), each host credited
#               with its start-to-start intervals inside the window (in
#               proportion at the edges) over its time in the window / delay.
#
# Rounds are told apart by the crawl directory: round N's requests start
# after segments/N/_SUCCESS.generate was written and before
# segments/N/_SUCCESS.fetch was; each request goes to the round whose
# generate ended last before it (the boundary is the midpoint between the
# previous fetch's end and the generate's). The log lines per round are
# checked against the fetch phase's own `requests` counter.
#
# Knobs: BENCH_C_HOSTS=100, BENCH_C_PAGES=30, BENCH_C_SCRAPY=1 (0: mpicrawl
# only), BENCH_C_EFFICIENCY=0.95 (the floor per round), BENCH_C_WHOLE=0.8
# (the floor of the whole crawl: bound / wall).

C_HOSTS=${BENCH_C_HOSTS:-100}
C_PAGES=${BENCH_C_PAGES:-30}
C_SCRAPY=${BENCH_C_SCRAPY:-1}
C_FLOOR=${BENCH_C_EFFICIENCY:-0.95}
C_WHOLE_FLOOR=${BENCH_C_WHOLE:-0.8}
C_MPICRAWL_WALL=
C_DELAY_MS=1000
C_IN_FLIGHT=1

# The log analysis, in python3.
c_write_py() {
	cat >"$WORK/politeness.py" <<'PY'
import bisect, collections, glob, json, os, statistics, sys


def read_log(path):
    """(t_start_us, t_end_us, host, path, status, flag, line) per request, by start."""
    reqs = []
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if len(f) < 7 or not f[0].isdigit() or not f[1].isdigit():
            continue
        reqs.append((int(f[0]), int(f[1]), f[2], f[3], f[4], f[6], line.rstrip('\n')))
    reqs.sort()
    return reqs


def rounds_of(crawl):
    """[(segment, generate_end_us, fetch_end_us, requests counter, fetch seconds)]."""
    out = []
    for seg in sorted(glob.glob(os.path.join(crawl, 'segments', '*'))):
        g, f = os.path.join(seg, '_SUCCESS.generate'), os.path.join(seg, '_SUCCESS.fetch')
        if not (os.path.exists(g) and os.path.exists(f)):
            continue
        s = open(f, 'rb').read().decode('latin-1')
        try:
            d, _ = json.JSONDecoder().raw_decode(s)
        except ValueError:
            d = {}
        out.append((int(os.path.basename(seg)), os.stat(g).st_mtime_ns // 1000,
                    os.stat(f).st_mtime_ns // 1000,
                    d.get('counters', {}).get('requests', -1), d.get('seconds', 0)))
    return out


def by_host(reqs):
    d = collections.defaultdict(list)
    for r in reqs:
        d[r[2]].append(r)
    return d


def audit(reqs, delay_us):
    """Violations: [(gap_us, a, b)] for starts closer than the delay,
    [(a, b)] for a request started while another to its host was open,
    [r] flagged disallowed."""
    gaps, opens = [], []
    for h, rs in by_host(reqs).items():
        for a, b in zip(rs, rs[1:]):
            if b[0] - a[0] < delay_us:
                gaps.append((b[0] - a[0], a, b))
        ends = []  # the host's requests still open when r starts
        for r in rs:
            ends = [e for e in ends if e[1] > r[0]]
            if ends:
                opens.append((ends[0], r))
            ends.append(r)
    dis = [r for r in reqs if r[5] == 'disallowed']
    return gaps, opens, dis


def gap_stats(reqs):
    g = sorted(b[0] - a[0] for rs in by_host(reqs).values() for a, b in zip(rs, rs[1:]))
    if not g:
        return 0, 0, 0
    return g[0] / 1000, g[len(g) // 100] / 1000, statistics.median(g) / 1000


def efficiency(chains, prev, delay_us):
    """chains: host -> sorted request starts (µs) in one round; prev: host ->
    start of its last request in an earlier round. A host may be asked from
    max(the round's first request, its previous request + the delay), or
    from its own first request if that came earlier (a violation)."""
    w0 = min(v[0] for v in chains.values())
    w1 = min(v[-1] for v in chains.values())
    free = {h: min(v[0], max(w0, prev.get(h, w0 - delay_us) + delay_us))
            for h, v in chains.items()}
    # per-host windows: from when the host may be asked to its last request
    den = sum(v[-1] - free[h] for h, v in chains.items())
    num = sum(len(v) - 1 for v in chains.values())
    e_host = num * delay_us / den if den > 0 else None
    # the all-hosts window: up to w1, when the first host runs out; each
    # host's start-to-start intervals in it, in proportion at the edges
    T = w1 - w0
    credit = 0.0
    span = 0
    for h, v in chains.items():
        if free[h] < w1:
            span += w1 - free[h]
        for a, b in zip(v, v[1:]):
            lo, hi = max(a, free[h]), min(b, w1)
            if hi > lo:
                credit += (hi - lo) / (b - a)
    e_all = credit * delay_us / span if T >= delay_us and span > 0 else None
    return e_host, e_all, T, credit


def fmt(x, nd=3):
    return '-' if x is None else ('%.*f' % (nd, x))


def show(r):
    return '`%s`' % r[6].replace('\t', ' ')


def host_hops(crawl, hs):
    """host -> fewest host-to-host links from a seed's host (BFS over the
    link graph of every segment; the seeds' hosts are the first hosts asked)."""
    import subprocess
    edges = collections.defaultdict(set)
    host = lambda u: u.split('/')[2].split(':')[0] if u.count('/') >= 2 else ''
    for f in glob.glob(os.path.join(crawl, 'segments', '*', 'links', '*.tsv.zst')):
        out = subprocess.run(['zstdcat', f], capture_output=True).stdout.decode('utf-8', 'replace')
        for line in out.splitlines():
            p = line.split('\t')
            if len(p) >= 2 and host(p[0]) != host(p[1]):
                edges[host(p[0])].add(host(p[1]))
    t0 = min((v[0][0] for v in hs.values()), default=0)
    seeds = [h for h, v in hs.items() if v[0][0] - t0 < 500000]
    dist = {h: 0 for h in seeds}
    todo = collections.deque(seeds)
    while todo:
        h = todo.popleft()
        for g in edges.get(h, ()):
            if g not in dist:
                dist[g] = dist[h] + 1
                todo.append(g)
    return dist


def cmd_mpicrawl(log, crawl, delay_ms, md):
    delay = int(delay_ms) * 1000
    reqs = read_log(log)
    rounds = rounds_of(crawl)
    bounds = [0 if i == 0 else (rounds[i - 1][2] + g) // 2
              for i, (_, g, _f, _n, _s) in enumerate(rounds)]
    rnd = lambda t: max(bisect.bisect_right(bounds, t) - 1, 0)
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    pages = collections.defaultdict(set)   # round -> hosts with a request not for robots.txt
    for r in reqs:
        per[rnd(r[0])][r[2]].append(r[0])
        if r[3] != '/robots.txt':
            pages[rnd(r[0])].add(r[2])
    gaps, opens, dis = audit(reqs, delay)
    cross = [x for x in gaps if rnd(x[1][0]) != rnd(x[2][0])]
    out = open(md, 'w')
    w = lambda s='': out.write(s + '\n')
    w('| round | hosts | requests | busiest host | fetch phase s | all-hosts window s | efficiency, all-hosts window | efficiency, per-host windows | median start gap ms |')
    w('|---|---|---|---|---|---|---|---|---|')
    sh = sa = wh = wa = 0.0
    mismatch = []
    prev = {}
    for i, (seg, g, f, n, secs) in enumerate(rounds):
        ch = per.get(i, {})
        cnt = sum(len(v) for v in ch.values())
        if n >= 0 and n != cnt:
            mismatch.append('round %d: %d log lines, fetch counter %d' % (seg, cnt, n))
        if not ch:
            w('| %d | 0 | 0 | - | %.1f | - | - | - | - |' % (seg, secs))
            continue
        # A host asked only for its robots.txt in a round (asked early: found
        # in the round, its URLs come in the next) had no URLs in it; its
        # robots.txt still sets when it may be asked next.
        act = {h: v for h, v in ch.items() if h in pages[i]}
        e_host, e_all, T, credit = efficiency(act, prev, delay) if act else (None, None, 0, 0)
        for h, v in ch.items():
            prev[h] = v[-1]
        gl = [b - a for v in ch.values() for a, b in zip(v, v[1:])]
        med = statistics.median(gl) / 1000 if gl else None
        if e_host is not None:
            sh += e_host * sum(len(v) for v in act.values())
            wh += sum(len(v) for v in act.values())
        if e_all is not None:
            sa += e_all * credit
            wa += credit
        w('| %d | %d | %d | %d | %.1f | %.2f | %s | %s | %s |' % (
            seg, len(ch), cnt, max(len(v) for v in ch.values()), secs, T / 1e6,
            fmt(e_all), fmt(e_host), fmt(med, 1)))
    e_host_all = sh / wh if wh else None
    e_all_all = sa / wa if wa else None
    w('| all (weighted) | %d | %d | %d | | | %s | **%s** | %s |' % (
        len(by_host(reqs)), len(reqs), max((len(v) for v in by_host(reqs).values()), default=0),
        fmt(e_all_all), fmt(e_host_all), fmt(gap_stats(reqs)[2], 1)))
    w()
    for m in mismatch:
        w('- **round boundaries uncertain**: ' + m)
    nv = len(gaps) + len(opens) + len(dis)
    if nv:
        hosts = len(set(x[1][2] for x in gaps) | set(x[1][2] for x in opens) | set(r[2] for r in dis))
        w('- **Violations: %d** on %d hosts: %d request starts less than %d ms after the previous one to the same host (%d of them across a round boundary: the last request of round N and the first of round N+1; shortest gap %.1f ms), %d requests started while another to the host was open, %d requests flagged `disallowed`. From the log (`t_start_us t_end_us host path status conn_id flag`):'
          % (nv, hosts, len(gaps), int(delay_ms), len(cross), min(x[0] for x in gaps) / 1000 if gaps else 0,
             len(opens), len(dis)))
        for gap, a, b in sorted(gaps)[:4]:
            w('  - %.1f ms apart (rounds %d and %d): %s then %s' % (
                gap / 1000, rounds[rnd(a[0])][0], rounds[rnd(b[0])][0], show(a), show(b)))
        for a, b in opens[:2]:
            w('  - open at once: %s and %s' % (show(a), show(b)))
        for r in dis[:2]:
            w('  - disallowed: %s' % show(r))
    else:
        w('- No violations: every request start to a host at least %d ms after the previous one, never two requests to a host open at once, nothing flagged `disallowed`.' % int(delay_ms))
    out.close()
    mn, p1, md_ = gap_stats(reqs)
    # The whole crawl's politeness bound: no crawler obeying the delay can be
    # done with a host before one delay per request after its first, and
    # it cannot ask the host before it is found: the discovery chain, at
    # least one delay per host on the shortest chain of links from a seed's
    # host (that host's robots.txt, then the linking page), read from the
    # crawl's link graph. The busiest host alone, without discovery, too.
    hs = by_host(reqs)
    hops = host_hops(crawl, hs)
    b_disc = max(((hops.get(h, 0) + len(v) - 1) * delay for h, v in hs.items()), default=0)
    b_busy = max(((len(v) - 1) * delay for v in hs.values()), default=0)
    print(len(reqs), len(hs), len(rounds), nv, len(gaps), len(cross), len(opens), len(dis),
          fmt(e_host_all, 4), fmt(e_all_all, 4), '%.1f' % mn, '%.1f' % md_,
          max((len(v) for v in hs.values()), default=0), len(mismatch),
          '%.2f' % (b_disc / 1e6), '%.2f' % (b_busy / 1e6))


def cmd_audit(log, delay_ms):
    delay = int(delay_ms) * 1000
    reqs = read_log(log)
    gaps, opens, dis = audit(reqs, delay)
    mn, p1, med = gap_stats(reqs)
    ex = ' then '.join(show(r) for r in sorted(gaps)[0][1:]) if gaps else '-'
    print(len(reqs), len(by_host(reqs)), len(gaps), len(set(x[1][2] for x in gaps)), len(opens), len(dis),
          '%.1f' % mn, '%.1f' % p1, '%.1f' % med,
          max((len(v) for v in by_host(reqs).values()), default=0))
    print(ex)


if sys.argv[1] == 'mpicrawl':
    cmd_mpicrawl(*sys.argv[2:6])
elif sys.argv[1] == 'audit':
    cmd_audit(*sys.argv[2:4])
PY
}

# c_scrapy_python: prints a python3 that imports scrapy (Debian's first),
# installing python3-scrapy with apt-get (as root) when none does.
c_scrapy_python() {
	local p lim
	for p in /usr/bin/python3 "$(command -v python3)"; do
		[ -x "$p" ] && "$p" -c 'import scrapy' 2>/dev/null && { echo "$p"; return 0; }
	done
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		say "C: scrapy is not installed and cannot be (needs root and apt-get)"
		return 1
	fi
	lim=$(step_timeout 240)
	say "C: installing Debian package python3-scrapy"
	if ! DEBIAN_FRONTEND=noninteractive timeout "$lim" apt-get install -y -qq python3-scrapy \
		>"$WORK/apt-scrapy.out" 2>&1; then
		DEBIAN_FRONTEND=noninteractive timeout "$lim" apt-get update -qq >>"$WORK/apt-scrapy.out" 2>&1
		DEBIAN_FRONTEND=noninteractive timeout "$lim" apt-get install -y -qq python3-scrapy \
			>>"$WORK/apt-scrapy.out" 2>&1 || {
			say "C: apt-get install python3-scrapy failed; the end of its output:"
			tail -n 3 "$WORK/apt-scrapy.out" >&3
			return 1
		}
	fi
	/usr/bin/python3 -c 'import scrapy' 2>/dev/null && { echo /usr/bin/python3; return 0; }
	say "C: python3-scrapy installed but /usr/bin/python3 cannot import scrapy"
	return 1
}

# The spider: follows every http(s) link within the simweb domain from the
# seeds, obeying robots.txt for the agent token simweb's truth is for.
c_write_spider() {
	mkdir -p "$WORK/scrapy"
	cat >"$WORK/scrapy/spider.py" <<'PY'
import os
from urllib.parse import urlsplit

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

DOMAIN = os.environ['C_DOMAIN']


def ours(links):
    # http(s) within the domain, by host name: scrapy 2.8's
    # LinkExtractor(allow_domains=...) compares the netloc, port included.
    keep = []
    for link in links:
        u = urlsplit(link.url)
        h = u.hostname or ''
        if u.scheme in ('http', 'https') and (h == DOMAIN or h.endswith('.' + DOMAIN)):
            keep.append(link)
    return keep


class SimSpider(CrawlSpider):
    name = 'simweb'
    allowed_domains = [DOMAIN]
    start_urls = [s.strip() for s in open(os.environ['C_SEEDS']) if s.strip()]
    rules = (Rule(LinkExtractor(), follow=True, process_links=ours),)
    custom_settings = {
        'ROBOTSTXT_OBEY': True,
        'ROBOTSTXT_USER_AGENT': 'mpicrawl',
        'USER_AGENT': 'scrapy-bench',
        'DOWNLOAD_DELAY': float(os.environ['C_DELAY_S']),
        'RANDOMIZE_DOWNLOAD_DELAY': False,
        'CONCURRENT_REQUESTS_PER_DOMAIN': 1,
        'CONCURRENT_REQUESTS': 200,
        'SCHEDULER_PRIORITY_QUEUE': 'scrapy.pqueues.DownloaderAwarePriorityQueue',
        'TELNETCONSOLE_ENABLED': False,
        'LOG_LEVEL': 'INFO',
        'REQUEST_FINGERPRINTER_IMPLEMENTATION': '2.7',
    }
PY
}

# c_scrapy_stat OUT KEY: a value from scrapy's closing stats dump.
c_scrapy_stat() {
	awk -v k="'$2': " '{ l = $0; sub(/^[{ ]*/, "", l) }
		index(l, k) == 1 { v = substr(l, length(k) + 1); sub(/[,}]*$/, "", v); gsub(/\047/, "", v); last = v }
		END { print last }' "$1"
}

bench_c() {
	local py lim rc before wall n rounds nv ngap ncross nopen ndis eff_h eff_a mn med busy mism
	local robots s2 s3 s4 dups covered want extra g f p u dns damaged covered_m='' dups_m=''
	local v
	for v in C_HOSTS C_PAGES C_SCRAPY; do
		is_uint "${!v}" || { say "C: $v='${!v}' is not a number"; FAILED=1; return; }
	done
	[ "$C_HOSTS" -ge 1 ] && [ "$C_HOSTS" -le 10000 ] || { say "C: BENCH_C_HOSTS must be 1..10000"; FAILED=1; return; }
	c_write_py
	md "## C. Politeness efficiency: mpicrawl on $RANKS ranks at politeness.delay_ms=$C_DELAY_MS$([ "$C_SCRAPY" = 1 ] && echo ", and scrapy")"
	md ""

	say "C: starting simweb with $C_HOSTS hosts x $C_PAGES pages"
	WEB=$WORK/web-c
	"$WEBENV" start "$WEB" --hosts "$C_HOSTS" --pages "$C_PAGES" >/dev/null ||
		{ say "C: the local web did not start"; md "The local web did not start."; FAILED=1; WEB=; return; }
	# shellcheck disable=SC1091
	. "$WEB/env"
	"$SIMWEB" --seeds --hosts "$C_HOSTS" --pages "$C_PAGES" --port "$SIMWEB_PORT" >"$WORK/c-seeds"
	"$SIMWEB" --truth --hosts "$C_HOSTS" --pages "$C_PAGES" --port "$SIMWEB_PORT" >"$WORK/c-truth"

	# ---- mpicrawl ----
	lim=$(step_timeout 420)
	say "C: mpicrawl crawl on $RANKS ranks, delay_ms=$C_DELAY_MS, max_in_flight=$C_IN_FLIGHT (about 4-5 minutes; at most $lim s)"
	before=$(wc -l <"$SIMWEB_LOG")
	mpi_timed c-mpicrawl "$lim" crawl --dir "$WORK/c.crawl" --seeds "$WORK/c-seeds" \
		--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
		--set "politeness.delay_ms=$C_DELAY_MS" --set "politeness.max_in_flight=$C_IN_FLIGHT"
	rc=$?
	sleep 0.3   # simweb flushes its log every 100 ms
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$WORK/c-mpicrawl.log"
	if [ "$rc" -ne 0 ]; then
		say "C: mpicrawl failed or took longer than $lim s (exit $rc); the end of its output:"
		tail -n 5 "$WORK/c-mpicrawl.out" >&3
		md "mpicrawl's crawl failed (exit $rc) or took longer than $lim s."
		FAILED=1
	else
		read_time "$WORK/c-mpicrawl.time"
		wall=$T_WALL
		read -r n _ rounds nv ngap ncross nopen ndis eff_h eff_a mn med busy mism bdisc bbusy \
			< <(python3 "$WORK/politeness.py" mpicrawl "$WORK/c-mpicrawl.log" "$WORK/c.crawl" \
				"$C_DELAY_MS" "$WORK/c-rounds.md")
		read -r _ robots s2 s3 s4 _ _ dups covered want extra _ \
			< <(helper log "$WORK/c-mpicrawl.log" "$WORK/c-truth" "$SIMWEB_PORT")
		covered_m="$covered / $want" dups_m=$dups
		read -r _ g f p u dns damaged < <(helper phases "$WORK/c.crawl")
		md "simweb --hosts $C_HOSTS --pages $C_PAGES (default mode) on 127.0.0.1: $(wc -l <"$WORK/c-truth") URLs in its truth for agent mpicrawl plus $C_HOSTS robots.txt; seeds: the $(wc -l <"$WORK/c-seeds") home pages of \`simweb --seeds\`. The politeness bound is hosts / delay = $C_HOSTS / ${C_DELAY_MS} ms = $(awk -v h="$C_HOSTS" -v d="$C_DELAY_MS" 'BEGIN { printf "%g", h * 1000 / d }') requests/s."
		md ""
		md "mpicrawl: \`mpirun -n $RANKS mpicrawl crawl --set politeness.delay_ms=$C_DELAY_MS --set politeness.max_in_flight=$C_IN_FLIGHT --set fetch.allow_private=true --set dns.servers=127.0.0.1:DNS_PORT\`, the rest default: **$wall s** wall, $rounds rounds, $n requests ($(awk -v n="$n" -v w="$wall" 'BEGIN { printf "%.1f", (w > 0 ? n / w : 0) }')/s, $(awk -v n="$n" -v w="$wall" -v h="$C_HOSTS" -v d="$C_DELAY_MS" 'BEGIN { printf "%.2f", (w > 0 ? n / w / (h * 1000 / d) : 0) }') of the bound over the whole crawl), $covered / $want truth URLs, $robots robots.txt, $dups repeated, $extra outside the truth; 2xx / 3xx / 4xx $s2 / $s3 / $s4. Phase seconds summed over the rounds: generate $g, fetch $f, update $u; $dns DNS lookups. The busiest host took $busy requests, so no crawler obeying the delay finishes under $(( (busy - 1) * C_DELAY_MS / 1000 )) s."
		md ""
		cat "$WORK/c-rounds.md" >>"$RES"
		md ""
		say "C: mpicrawl: $wall s, $rounds rounds, $n requests; efficiency (per-host windows) $eff_h, all-hosts windows $eff_a; $nv violations ($ncross across round boundaries), $ndis disallowed"
		if [ "${mism:-0}" -ne 0 ]; then
			say "C: the requests per round in the log do not match the fetch counters: see the results"
			FAILED=1
		fi
		if [ "$nv" -gt 0 ]; then
			md "- Floor **NOT MET**: zero violations (found $nv; see above)."
			FLOOR_MISSED=1
		else
			md "- Floor met: zero violations."
		fi
		eff_w=$(awk -v b="$bdisc" -v w="$wall" 'BEGIN { printf "%.2f", (w > 0 ? b / w : 0) }')
		md "- Whole crawl: the politeness bound is $bdisc s (for each host, one delay per request after its first, plus one delay per host on the shortest chain of links from a seed's host - its discovery chain, from the crawl's link graph; the largest over the hosts; the busiest host alone: $bbusy s); the crawl took $wall s: efficiency **$eff_w** (bound / wall)."
		if awk -v e="$eff_w" -v f="$C_WHOLE_FLOOR" 'BEGIN { exit !(e >= f) }'; then
			md "- Floor met: whole-crawl efficiency $eff_w >= $C_WHOLE_FLOOR (wall at most $(awk -v f="$C_WHOLE_FLOOR" 'BEGIN { printf "%.2f", 1 / f }')x the bound)."
		else
			md "- Floor **NOT MET**: whole-crawl efficiency $eff_w < $C_WHOLE_FLOOR."
			FLOOR_MISSED=1
		fi
		C_MPICRAWL_WALL=$wall
		if [ "$eff_h" != - ] && awk -v e="$eff_h" -v f="$C_FLOOR" 'BEGIN { exit !(e >= f) }'; then
			md "- Floor met: efficiency (per-host windows, weighted by requests) $eff_h >= $C_FLOOR."
		else
			md "- Floor **NOT MET**: efficiency (per-host windows, weighted by requests) $eff_h < $C_FLOOR."
			FLOOR_MISSED=1
		fi
		[ "$damaged" -gt 0 ] && md "- $damaged _SUCCESS.<phase> files carry stray bytes after their JSON."
		md ""
	fi
	[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$WORK/c.crawl"

	# ---- scrapy ----
	if [ "$C_SCRAPY" != 1 ]; then
		say "C: scrapy skipped (BENCH_C_SCRAPY=$C_SCRAPY)"
	elif [ "$(left_s)" -lt 150 ]; then
		say "C: scrapy skipped: less than 150 s of the time budget left"
		md "- scrapy: skipped, less than 150 s of the time budget (BENCH_DEADLINE_S=$DEADLINE_S) left."
	elif ! py=$(c_scrapy_python); then
		say "C: scrapy skipped: python3-scrapy is not available"
		md "- scrapy: skipped, python3-scrapy could not be installed."
	else
		c_write_spider
		# scrapy resolves names with the system resolver: as for wget2 in A, a
		# copy of /etc/hosts that lists the simweb hosts, bind-mounted in a
		# private mount namespace; without unshare, simweb as HTTP proxy.
		local i dns_text wrap=()
		{
			cat /etc/hosts
			for ((i = 0; i < C_HOSTS; i++)); do
				printf '127.0.0.1 h%04d.%s\n' "$i" "$SIMWEB_DOMAIN"
			done
		} >"$WORK/c-hosts"
		if unshare -m sh -c 'mount --bind "$0" /etc/hosts && getent hosts "h0000.$1" >/dev/null' \
			"$WORK/c-hosts" "$SIMWEB_DOMAIN" 2>/dev/null; then
			wrap=(unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$WORK/c-hosts")
			dns_text="host names from a copy of /etc/hosts in a private mount namespace"
		else
			wrap=(env "http_proxy=http://127.0.0.1:$SIMWEB_PORT")
			dns_text="through simweb as HTTP proxy (no unshare)"
		fi
		lim=$(step_timeout 300)
		say "C: scrapy $("$py" -c 'import scrapy; print(scrapy.__version__)'), DOWNLOAD_DELAY=$((C_DELAY_MS / 1000)), one request per host (at most $lim s)"
		before=$(wc -l <"$SIMWEB_LOG")
		bg_run "$TIME" -f '%e %U %S %M' -o "$WORK/c-scrapy.time" timeout -k 10 "$lim" \
			env -C "$WORK/scrapy" C_DOMAIN="$SIMWEB_DOMAIN" C_SEEDS="$WORK/c-seeds" \
			C_DELAY_S="$(awk -v d="$C_DELAY_MS" 'BEGIN { print d / 1000 }')" \
			"${wrap[@]}" "$py" -m scrapy runspider spider.py >"$WORK/c-scrapy.out" 2>&1
		rc=$?
		sleep 0.3
		tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$WORK/c-scrapy.log"
		if [ "$rc" -ne 0 ]; then
			say "C: scrapy failed or took longer than $lim s (exit $rc); the end of its output:"
			tail -n 5 "$WORK/c-scrapy.out" >&3
			md "- scrapy failed (exit $rc) or took longer than $lim s."
			FAILED=1
		else
			local sv sgap sghosts sopen sdis smn sp1 smed sex
			read_time "$WORK/c-scrapy.time"
			{
				read -r sv _ sgap sghosts sopen sdis smn sp1 smed _
				read -r sex
			} < <(python3 "$WORK/politeness.py" audit "$WORK/c-scrapy.log" "$C_DELAY_MS")
			read -r _ robots s2 s3 s4 _ _ dups covered want extra _ \
				< <(helper log "$WORK/c-scrapy.log" "$WORK/c-truth" "$SIMWEB_PORT")
			md "scrapy $("$py" -c 'import scrapy; print(scrapy.__version__)') (Debian python3-scrapy), a CrawlSpider following every http link within $SIMWEB_DOMAIN from the same seeds, against the same running web: ROBOTSTXT_OBEY=True with ROBOTSTXT_USER_AGENT=mpicrawl (the agent simweb's truth and its \`disallowed\` flag are for), DOWNLOAD_DELAY=$(awk -v d="$C_DELAY_MS" 'BEGIN { print d / 1000 }'), RANDOMIZE_DOWNLOAD_DELAY=False, CONCURRENT_REQUESTS_PER_DOMAIN=1, CONCURRENT_REQUESTS=200, SCHEDULER_PRIORITY_QUEUE=DownloaderAwarePriorityQueue (scrapy's choice for many domains at once); $dns_text."
			md ""
			md "| crawler | wall s | requests | req/s | of the bound | truth URLs fetched | repeated | starts < ${C_DELAY_MS} ms apart (hosts) | shortest / 1st percentile / median start gap ms | open at once | disallowed |"
			md "|---|---|---|---|---|---|---|---|---|---|---|"
			if [ -n "${wall:-}" ] && [ -n "${n:-}" ]; then
				local mp1 mgh
				read -r mgh mp1 < <(python3 "$WORK/politeness.py" audit "$WORK/c-mpicrawl.log" "$C_DELAY_MS" |
					awk 'NR == 1 { print $4, $8 }')
				md "| mpicrawl, $RANKS ranks | $wall | $n | $(awk -v n="$n" -v w="$wall" 'BEGIN { printf "%.1f", n / w }') | $(awk -v n="$n" -v w="$wall" -v h="$C_HOSTS" -v d="$C_DELAY_MS" 'BEGIN { printf "%.2f", n / w / (h * 1000 / d) }') | $covered_m | $dups_m | $ngap ($mgh) | $mn / $mp1 / $med | $nopen | $ndis |"
			fi
			md "| scrapy | $T_WALL | $sv | $(awk -v n="$sv" -v w="$T_WALL" 'BEGIN { printf "%.1f", (w > 0 ? n / w : 0) }') | $(awk -v n="$sv" -v w="$T_WALL" -v h="$C_HOSTS" -v d="$C_DELAY_MS" 'BEGIN { printf "%.2f", (w > 0 ? n / w / (h * 1000 / d) : 0) }') | $covered / $want | $dups | $sgap ($sghosts) | $smn / $sp1 / $smed | $sopen | $sdis |"
			md ""
			md "- scrapy's own figures: finish_reason $(c_scrapy_stat "$WORK/c-scrapy.out" finish_reason), $(c_scrapy_stat "$WORK/c-scrapy.out" downloader/request_count) requests, $(c_scrapy_stat "$WORK/c-scrapy.out" dupefilter/filtered) filtered as duplicates, elapsed $(c_scrapy_stat "$WORK/c-scrapy.out" elapsed_time_seconds) s; CPU $T_CPU s, peak RSS $T_RSS_MB MiB."
			if [ -n "$C_MPICRAWL_WALL" ]; then
				if awk -v m="$C_MPICRAWL_WALL" -v s="$T_WALL" 'BEGIN { exit !(m < s) }'; then
					md "- Floor met: mpicrawl's whole crawl ($C_MPICRAWL_WALL s) is shorter than scrapy's ($T_WALL s)."
				else
					md "- Floor **NOT MET**: mpicrawl's whole crawl ($C_MPICRAWL_WALL s) is not shorter than scrapy's ($T_WALL s)."
					FLOOR_MISSED=1
				fi
			fi
			[ "$sgap" -gt 0 ] && md "- scrapy's closest pair: $sex (scrapy spaces requests by the time it hands them to the downloader, not by when they reach the server; for information, not a floor)."
			md ""
			say "C: scrapy: $T_WALL s, $sv requests; $sgap starts < ${C_DELAY_MS} ms apart, $sopen open at once, $sdis disallowed"
		fi
	fi
	"$WEBENV" stop "$WEB" >/dev/null 2>&1 || say "C: could not stop the web"
	WEB=
}

#!/usr/bin/env bash
# fetch.time_limit_s ends each fetch phase on time and leaves the rest due:
# with a 200 ms delay and a 1 s limit, generate gives each host at most
# 1 s / 200 ms + 1 URLs per round, every fetch phase ends within the limit
# (plus the end of the requests in flight), and over the rounds the crawl
# still fetches every URL of the truth exactly once. And a robots.txt
# redirect chain that the limit cuts after its first hop is asked again in
# the next phase, not taken from the cut hop as "allow everything".
. "$(dirname "$0")/lib.sh"

start_web web --hosts 3 --pages 12 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 3 --pages 12 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --truth --hosts 3 --pages 12 --port "$SIMWEB_PORT" | cut -f1 >"$SCRATCH/truth"
check "crawl with a 1 s fetch limit" run_ranks 2 crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=200 --set fetch.time_limit_s=1 --set partition.count=4 \
	>"$SCRATCH/out" 2>&1
tail -n 2 "$SCRATCH/out"
sleep 0.3
awk -F'\t' -v port="$SIMWEB_PORT" '$4 != "/robots.txt" { print "http://" $3 ":" port $4 }' \
	"$SIMWEB_LOG" | LC_ALL=C sort >"$SCRATCH/fetched"
check "every truth URL fetched" bash -c "LC_ALL=C sort -u '$SCRATCH/fetched' | cmp -s - <(LC_ALL=C sort '$SCRATCH/truth')"
check "none fetched twice" test -z "$(uniq -d "$SCRATCH/fetched")"
check "generate kept each host within what 1 s allows" python3 - "$SCRATCH/c" <<'PY'
import json, glob, sys
worst = 0
for s in sorted(glob.glob(sys.argv[1] + "/segments/*/stats.json")):
    d = json.load(open(s))
    g = d["generate"]["counters"]
    f = d["fetch"]
    worst = max(worst, f["seconds"])
    # The limit bounds the event loop; loading the fetch list and committing
    # the files come on top (well under a second here).
    if f["seconds"] > 1.0 + 1.0:
        print("not ok: segment %d fetch took %.2f s" % (d["segment"], f["seconds"]))
        sys.exit(1)
print("longest fetch phase %.2f s" % worst)
capped = sum(json.load(open(s))["generate"]["counters"].get("politeness_capped", 0)
             for s in glob.glob(sys.argv[1] + "/segments/*/stats.json"))
sys.exit(0 if capped > 0 else 1)
PY
# Rounds whose pages are all cut at fetch.max_body_bytes fetched something:
# the crawl goes on (it stopped, 'no URL could be fetched this round').
check "pages cut by fetch.max_body_bytes: the crawl goes on" bash -c '"$1" crawl --dir "$2" \
	--seeds "$3" --rounds 2 --set fetch.allow_private=true --set "dns.servers=127.0.0.1:$4" \
	--set politeness.delay_ms=0 --set fetch.max_body_bytes=1024 --set fetch.follow_max=0 \
	>"$2.out" 2>&1 && grep -q "segment 1: .* 0 fetched, 0 redirects, 0 gone, .* 3 truncated" \
	"$2.out" && grep -q "fetch I segment 2: " "$2.out"' \
	_ "$MPICRAWL" "$SCRATCH/cut1k" "$SCRATCH/seeds" "$DNS_PORT"

# A server whose robots.txt redirects to rules that answer 2.5 s late the
# first time: the 1 s limit cuts the chain after its 301.
cat >"$SCRATCH/cut.py" <<'PY'
import http.server, sys, threading, time
first = threading.Event()
PAGES = {"/": b'<a href="/a.html">a</a> <a href="/private/x.html">x</a>',
         "/a.html": b"<p>a</p>", "/private/x.html": b"<p>private</p>",
         "/long": b"<p>" + b"x" * 1100 + b'</p><a href="/b.html">b</a> <a href="/bcdefgh.html">c</a>',
         "/b.html": b"<p>b</p>", "/bcdefgh.html": b"<p>c</p>"}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def answer(self, code, body=b"", ctype="text/html", loc=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if loc:
            self.send_header("Location", loc)
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        with open(sys.argv[1], "a") as log:
            log.write(self.path + "\n")
        if self.path == "/robots.txt":
            return self.answer(301, loc="/robots-real.txt")
        if self.path == "/robots-real.txt":
            if not first.is_set():
                first.set()
                time.sleep(2.5)
            return self.answer(200, b"User-agent: *\nDisallow: /private/\n", "text/plain")
        if self.path in PAGES:
            return self.answer(200, PAGES[self.path])
        self.answer(404)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$SCRATCH/cut.py" "$SCRATCH/cut.log" >"$SCRATCH/cut.port" &
CUT_PID=$!
for _ in $(seq 50); do [ -s "$SCRATCH/cut.port" ] && break; sleep 0.1; done
CUT_PORT=$(cat "$SCRATCH/cut.port")
echo "http://127.0.0.1:$CUT_PORT/" >"$SCRATCH/cut.seeds"
# The first crawl fetches nothing and says to run again; the second goes on.
for run in 1 2; do
	check "crawl $run with a robots.txt chain cut by the limit" run_ranks 1 crawl \
		--dir "$SCRATCH/cut" --seeds "$SCRATCH/cut.seeds" --rounds 4 \
		--set fetch.allow_addresses=127.0.0.1 --set politeness.delay_ms=0 \
		--set fetch.time_limit_s=1 >"$SCRATCH/cut.out$run" 2>&1
done
# A page cut by fetch.max_body_bytes inside a link's tag (at '<a href="/bc'):
# the link cut short is not read, so "/bc" is never asked; the whole link
# before it is.
cp "$SCRATCH/cut.log" "$SCRATCH/cut.log1"
echo "http://127.0.0.1:$CUT_PORT/long" >"$SCRATCH/long.seeds"
check "a crawl of a page cut inside a tag" run_ranks 1 crawl --dir "$SCRATCH/long" \
	--seeds "$SCRATCH/long.seeds" --rounds 2 --set fetch.allow_addresses=127.0.0.1 \
	--set politeness.delay_ms=0 --set fetch.max_body_bytes=1143 >"$SCRATCH/long.out" 2>&1
kill "$CUT_PID" 2>/dev/null
wait "$CUT_PID" 2>/dev/null
echo "requests: $(tr '\n' ' ' <"$SCRATCH/cut.log")"
check "the cut page's whole link fetched, the link cut short not" \
	bash -c "grep -q '^/b.html$' '$SCRATCH/cut.log' && ! grep -q '^/bc' '$SCRATCH/cut.log'"
check "the cut chain was asked again" test "$(grep -c '^/robots.txt$' "$SCRATCH/cut.log1")" -eq 2
check "its rules held: /a.html fetched, /private/ not" \
	bash -c "grep -q '^/a.html$' '$SCRATCH/cut.log1' && ! grep -q '^/private/' '$SCRATCH/cut.log1'"
finish

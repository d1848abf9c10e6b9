#!/usr/bin/env bash
# The real web's transport against a server we did not write: Debian's nginx
# (scripts/tlsweb.sh) over HTTPS with a test CA, HTTP/2 by ALPN, IPv6 on
# [::1] for a host with only an AAAA record, gzip, and three hosts whose
# certificates must be refused. A crawl on 2 ranks, then:
# - every page of the good hosts fetched (the HTTPS ones over TLS), nothing
#   else, and every requisite (images, srcset, stylesheets with their
#   @import and url(), scripts, icons) as an embed, none of them in the
#   text, those of other hosts in their page's round; h2 where nginx offers
#   it, http/1.1 where it does not; the v6 host
#   from ::1; the bad-certificate hosts with tls:expired, tls:name-mismatch,
#   tls:untrusted, counted as tls_failed;
# - the WARC: WARC-Protocol (h2 / http/1.1, tls/1.x) and WARC-Cipher-Suite on
#   responses and requests, status and request lines as HTTP/1.1,
#   WARC-IP-Address the address nginx saw; every record read by warcio.js
#   with its digests checked;
# - nginx's own log: robots.txt first on every host, nothing under the
#   disallowed /private/, no two requests to a host closer than the delay
#   (nginx's own times, no slack),
#   one connection per host and fetch phase over h2, TLS sessions resumed
#   when nginx closes a connection and from one round to the next;
# - the settings: http.version=1.1, dns.family=ipv4/ipv6, tls.verify=false
#   (logged), the system's trust store (the test CA unknown there), a bad
#   tls.ca_file.
. "$(dirname "$0")/lib.sh"

WARCIO=$ROOT/tests/warcio
DELAY=150
ROUNDS=4

# tilde: a robots.txt that names a home directory percent-encoded, as many
# sites write it, and links to it in both spellings.
mkdir -p "$SCRATCH/tilde/~joe" "$SCRATCH/tilde/~jim"
printf 'User-agent: *\nDisallow: /%%7Ejoe/\n' >"$SCRATCH/tilde/robots.txt"
printf '<a href="/%%7Ejoe/secret.html">a</a> <a href="/~joe/other.html">b</a> <a href="/%%7ejim/open.html">c</a>\n' \
	>"$SCRATCH/tilde/index.html"
for f in '~joe/secret' '~joe/other' '~jim/open'; do echo "<p>$f</p>" >"$SCRATCH/tilde/$f.html"; done
# and pages that declare no charset (nginx sends text/html alone)
printf '<a href="/w1252.html">w</a> <a href="/utf8.html">u</a>\n' >>"$SCRATCH/tilde/index.html"
printf '<html><body><p>\x93smart quotes\x94 \x80 caf\xe9</p></body></html>\n' \
	>"$SCRATCH/tilde/w1252.html"
printf '<html><body><p>Gr\xc3\xbc\xc3\x9fe \xe2\x80\x9cquoted\xe2\x80\x9d</p></body></html>\n' \
	>"$SCRATCH/tilde/utf8.html"
check "tlsweb starts (nginx, dnsmasq, test CA)" start_tlsweb tls --pages 12 \
	--site "tilde=$SCRATCH/tilde"
W=$SCRATCH/tls
P=$TLS_PORT
D=tls.test
common=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=$DELAY --set partition.count=8)
printf '%s\n' "https://h2.$D:$P/" "https://h1.$D:$P/" "https://v6.$D:$P/" \
	"https://expired.$D:$P/" "https://wrongname.$D:$P/" "https://selfsigned.$D:$P/" \
	"http://plain.$D:$HTTP_PORT/" >"$SCRATCH/seeds"
: >"$NGINX_LOG"

check "crawl of nginx over TLS on 2 ranks exits 0" run_ranks 2 crawl --dir "$SCRATCH/c" \
	--seeds "$SCRATCH/seeds" --rounds $ROUNDS "${common[@]}" --set "tls.ca_file=$TLS_CA" \
	>"$SCRATCH/c.out" 2>&1
tail -n 3 "$SCRATCH/c.out"
"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump >"$SCRATCH/db" 2>/dev/null

# The pages each good host serves outside /private/, as URLs.
for h in h2 h1 v6 plain; do
	base="https://$h.$D:$P"
	[ $h = plain ] && base="http://$h.$D:$HTTP_PORT"
	(cd "$W/www/$h" && find . -name '*.html' ! -path './private/*' | sed "s|^\./|$base/|;s|/index.html$|/|")
done | LC_ALL=C sort >"$SCRATCH/want"
jq -r 'select(.status == "fetched" and .kind == null) | .url' "$SCRATCH/db" | LC_ALL=C sort >"$SCRATCH/got"
check "every page of the good hosts fetched, nothing else ($(wc -l <"$SCRATCH/want") pages)" \
	cmp -s "$SCRATCH/want" "$SCRATCH/got"
diff "$SCRATCH/want" "$SCRATCH/got" | head -n 5
# Their requisites (fetch.embeds): images of img src and srcset, the
# stylesheet, what it @imports and its url(), the script, the icon - every
# other file the hosts serve but robots.txt.
for h in h2 h1 v6 plain; do
	base="https://$h.$D:$P"
	[ $h = plain ] && base="http://$h.$D:$HTTP_PORT"
	(cd "$W/www/$h" && find . -type f ! -name '*.html' ! -name robots.txt | sed "s|^\./|$base/|")
done | LC_ALL=C sort >"$SCRATCH/want_e"
jq -r 'select(.status == "fetched" and .kind == "embed") | .url' "$SCRATCH/db" |
	LC_ALL=C sort >"$SCRATCH/got_e"
check "every requisite fetched as an embed ($(wc -l <"$SCRATCH/want_e"), css imports and url() too)" \
	cmp -s "$SCRATCH/want_e" "$SCRATCH/got_e"
diff "$SCRATCH/want_e" "$SCRATCH/got_e" | head -n 5
# /img/shared.png of each good host is shown only by another host's index
# page, a seed: handed to the rank of its host, it is fetched in round 1.
shared=$(for f in "$SCRATCH"/c/segments/00001/warc/*.warc.gz; do zcat "$f"; done | tr -d '\r' |
	grep -a '^WARC-Target-URI: .*/img/shared\.png$' | sort -u | wc -l)
check "requisites of other hosts fetched in their page's round ($shared of 4 shared.png in segment 1)" \
	test "$shared" -eq 4
check "no requisite in the extracted text" \
	eval '! zcat "$SCRATCH"/c/segments/*/text/*.gz | grep -a "^WARC-Target-URI: " | grep -qE "\.(css|js|png|ico|svg)"'

reason_of() { jq -r --arg u "$1" 'select(.url == $u) | "\(.status) \(.reason)"' "$SCRATCH/db"; }
check "expired certificate: error tls:expired" \
	test "$(reason_of "https://expired.$D:$P/")" = "error tls:expired"
check "certificate for another name: error tls:name-mismatch" \
	test "$(reason_of "https://wrongname.$D:$P/")" = "error tls:name-mismatch"
check "self-signed certificate: error tls:untrusted" \
	test "$(reason_of "https://selfsigned.$D:$P/")" = "error tls:untrusted"
# New URLs of those hosts in a later job: the robots cache keeps why their
# robots.txt failed, and the URLs say it too (not a bare "robots.txt").
printf '%s\n' "https://expired.$D:$P/later.html" "https://wrongname.$D:$P/later.html" \
	>"$SCRATCH/seeds_later"
run_ranks 2 crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds_later" --rounds 1 "${common[@]}" \
	--set "tls.ca_file=$TLS_CA" >"$SCRATCH/c_later.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump >"$SCRATCH/db" 2>/dev/null
check "a later URL of the expired host: error tls:expired (robots cache)" \
	test "$(reason_of "https://expired.$D:$P/later.html")" = "error tls:expired"
check "a later URL of the misnamed host: error tls:name-mismatch (robots cache)" \
	test "$(reason_of "https://wrongname.$D:$P/later.html")" = "error tls:name-mismatch"
reason_of "https://expired.$D:$P/later.html"
tls_failed=$(jq -s '[.[] | .fetch.counters.tls_failed // 0] | add' \
	"$SCRATCH"/c/segments/*/stats.json)
check "tls_failed counts the three refused hosts ($tls_failed)" test "$tls_failed" -ge 3

# The WARC records of the pages: head fields per host, as "host field" lines.
for f in "$SCRATCH"/c/segments/*/warc/*.warc.gz; do
	zcat "$f" | tr -d '\r' | awk -v want="$D" '
		/^WARC\/1\.1$/ { type = ""; uri = "" }
		/^WARC-Type: / { type = $2 }
		/^WARC-Target-URI: / { split($2, a, "/"); host = a[3]; sub(/:.*/, "", host) }
		/^WARC-Protocol: |^WARC-Cipher-Suite: |^WARC-IP-Address: / &&
			(type == "response" || type == "request") {
			v = $2; if ($1 == "WARC-Cipher-Suite:") v = "cipher"
			print type, host, $1, v }
		/^HTTP\/[0-9.]+ [0-9]/ { print "status-line", host, $1 }
		/^GET [^ ]+ HTTP\// { print "request-line", host, $3 }'
done | sort | uniq -c >"$SCRATCH/fields"
has() { grep -qE "^ +[0-9]+ $1\$" "$SCRATCH/fields"; }
check "h2 host: responses over h2 and TLS with a cipher suite" \
	eval 'has "response h2.$D WARC-Protocol: h2" && has "response h2.$D WARC-Protocol: tls/1.[23]" &&
	has "response h2.$D WARC-Cipher-Suite: cipher" && has "request h2.$D WARC-Protocol: h2"'
check "h1 host: http/1.1 over TLS, never h2" \
	eval 'has "response h1.$D WARC-Protocol: http/1.1" && has "response h1.$D WARC-Protocol: tls/1.[23]" &&
	! has "response h1.$D WARC-Protocol: h2"'
check "v6 host (AAAA only): h2 from ::1" \
	eval 'has "response v6.$D WARC-Protocol: h2" && has "response v6.$D WARC-IP-Address: ::1" &&
	! grep -q "v6.$D WARC-IP-Address: 127" "$SCRATCH/fields"'
check "h1 host from 127.0.0.2, as DNS said" has "response h1.$D WARC-IP-Address: 127.0.0.2"
check "plain host: http/1.1, no TLS fields" \
	eval 'has "response plain.$D WARC-Protocol: http/1.1" && ! grep -q "plain.$D WARC-Protocol: tls" "$SCRATCH/fields" &&
	! grep -q "plain.$D WARC-Cipher" "$SCRATCH/fields"'
check "status and request lines stored as HTTP/1.1 (h2 too)" \
	eval '! grep -E "(status|request)-line .* HTTP/(2|3)" "$SCRATCH/fields" && has "status-line h2.$D HTTP/1.1"'
sed 's/^/  /' "$SCRATCH/fields" | head -n 40
# gzip on the wire (nginx's gzip on): the WARC keeps the body as sent, and
# the text was read from it decoded.
check "HTML responses archived gzip-coded as nginx sent them, text read decoded" \
	eval '"$MPICRAWL" warc --check $(pages_warcs "$SCRATCH"/c/segments/00001/warc) >/dev/null &&
	zcat "$SCRATCH"/c/segments/*/warc/*.warc.gz | tr -d "\r" | grep -aic "^content-encoding: gzip" | grep -qv "^0$" &&
	zcat "$SCRATCH"/c/segments/*/text/*.gz | grep -aq "The h2 test site"'

if [ ! -d "$WARCIO/node_modules/warcio" ]; then
	(cd "$WARCIO" && npm ci --no-audit --no-fund --loglevel=error) >"$SCRATCH/npm.log" 2>&1 ||
		cat "$SCRATCH/npm.log"
fi
check "every record read by warcio.js, digests checked" \
	eval '(cd "$WARCIO" && node check.mjs "$SCRATCH"/c/segments/*/warc/*.warc.gz) >"$SCRATCH/warcio.out" 2>"$SCRATCH/warcio.err"'
head -n 3 "$SCRATCH/warcio.err"

# nginx's log: robots first, nothing disallowed, the delay, connections.
audit_nginx() {
	python3 - "$NGINX_LOG" "$DELAY" <<'PY'
import sys, collections
log, delay_ms = sys.argv[1], int(sys.argv[2])
starts = collections.defaultdict(list)
first = {}
bad = 0
conns = collections.defaultdict(set)
reused = collections.Counter()
for line in open(log):
    f = line.rstrip("\n").split("\t")
    if len(f) != 22 or f[18] == "tlsweb.sh probe":
        continue
    end, host, proto, path = float(f[0]), f[4], f[6], f[13]
    start = end - float(f[19])
    starts[host].append(start)
    first.setdefault(host, path)
    conns[(host, proto)].add(f[10])
    if f[9] == "r":
        reused[host] += 1
    if path.startswith("/private/"):
        print("disallowed fetched:", host, path); bad += 1
for host, path in first.items():
    if path != "/robots.txt":
        print("first request of", host, "was", path); bad += 1
close = 0
for host, ts in starts.items():
    ts.sort()
    for a, b in zip(ts, ts[1:]):
        if (b - a) * 1000 < delay_ms:
            close += 1
            print("requests to %s %.1f ms apart" % (host, (b - a) * 1000))
bad += close
print("hosts", len(starts), "requests", sum(map(len, starts.values())),
      "connections", {"%s %s" % k: len(v) for k, v in sorted(conns.items())},
      "resumed", dict(reused))
if not starts:
    print("no request of the crawl in the log (its format: scripts/tlsweb.sh)"); bad += 1
sys.exit(1 if bad else 0)
PY
}
check "nginx's log: robots.txt first, nothing disallowed, no request within ${DELAY} ms" \
	eval 'audit_nginx >"$SCRATCH/audit" 2>&1'
cat "$SCRATCH/audit" | tail -n 4
phases=$(awk -F'\t' -v h="h2.$D" '$5 == h && $19 != "tlsweb.sh probe" { print $11 }' "$NGINX_LOG" | sort -u | wc -l)
rounds=$(ls -d "$SCRATCH"/c/segments/*/warc | wc -l)
check "h2 host: at most one connection per fetch phase ($phases connections, $rounds phases)" \
	test "$phases" -ge 1 -a "$phases" -le "$rounds"
check "h1 host: TLS sessions resumed after nginx closed connections" \
	eval 'awk -F"\t" -v h="h1.$D" "\$5 == h && \$10 == \"r\"" "$NGINX_LOG" | grep -q .'
# The rounds run in one process per rank, which keeps its TLS sessions: the
# h1 host (always on the same rank) has one full handshake in the whole
# crawl - later rounds' connections resume too.
full_h1=$(awk -F'\t' -v h="h1.$D" '$5 == h && $10 != "r" && $19 != "tlsweb.sh probe" { print $11 }' "$NGINX_LOG" | sort -u | wc -l)
check "h1 host: one full TLS handshake in $rounds rounds ($full_h1), every other connection resumed" \
	test "$full_h1" -eq 1

# Three requests in flight per host, no delay: over h2 they share one
# connection; over HTTP/1.1 each needs its own.
printf '%s\n' "https://h2.$D:$P/" "https://h1.$D:$P/" >"$SCRATCH/seeds1"
: >"$NGINX_LOG"
check "crawl with politeness.max_in_flight=3 exits 0" run_ranks 1 crawl --dir "$SCRATCH/c1" \
	--seeds "$SCRATCH/seeds1" --rounds 1 "${common[@]}" --set "tls.ca_file=$TLS_CA" \
	--set politeness.delay_ms=0 --set politeness.max_in_flight=3 >"$SCRATCH/c1.out" 2>&1
conns() { awk -F'\t' -v h="$1.$D" '$5 == h && $19 != "tlsweb.sh probe" { print $11 }' "$NGINX_LOG" | sort -u | wc -l; }
reqs() { awk -F'\t' -v h="$1.$D" '$5 == h && $19 != "tlsweb.sh probe"' "$NGINX_LOG" | wc -l; }
check "h2: $(reqs h2) requests, 3 at a time, on $(conns h2) connection" \
	test "$(conns h2)" -eq 1 -a "$(reqs h2)" -gt 3
check "http/1.1: $(reqs h1) requests on $(conns h1) connections" test "$(conns h1)" -gt 1

# http.version=1.1 and dns.family=ipv4: h2 host over HTTP/1.1, v6 host has no address.
printf '%s\n' "https://h2.$D:$P/robots.txt" "https://v6.$D:$P/" >"$SCRATCH/seeds2"
: >"$NGINX_LOG"
check "crawl with http.version=1.1 dns.family=ipv4 exits 0" run_ranks 1 crawl \
	--dir "$SCRATCH/c2" --seeds "$SCRATCH/seeds2" --rounds 1 "${common[@]}" \
	--set "tls.ca_file=$TLS_CA" --set http.version=1.1 --set dns.family=ipv4 \
	>"$SCRATCH/c2.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c2" --dump >"$SCRATCH/db" 2>/dev/null
check "http.version=1.1: nginx saw HTTP/1.1 only" \
	eval 'awk -F"\t" "\$5 ~ /^h2\\./ && \$19 != \"tlsweb.sh probe\" { print \$7 }" "$NGINX_LOG" | sort -u | grep -qx "HTTP/1.1" &&
	! awk -F"\t" "{ print \$7 }" "$NGINX_LOG" | grep -q "HTTP/2"'
check "dns.family=ipv4: the AAAA-only host has no address" \
	test "$(reason_of "https://v6.$D:$P/")" = "error dns: no address"

# dns.family=ipv6: the A-only host has no address, the v6 one is fetched.
printf '%s\n' "https://h2.$D:$P/" "https://v6.$D:$P/" >"$SCRATCH/seeds3"
check "crawl with dns.family=ipv6 exits 0" run_ranks 1 crawl --dir "$SCRATCH/c3" \
	--seeds "$SCRATCH/seeds3" --rounds 1 "${common[@]}" --set "tls.ca_file=$TLS_CA" \
	--set dns.family=ipv6 >"$SCRATCH/c3.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c3" --dump >"$SCRATCH/db" 2>/dev/null
check "dns.family=ipv6: the A-only host has no address, the AAAA one fetched" \
	eval 'test "$(reason_of "https://h2.$D:$P/")" = "error dns: no address" &&
	test "$(reason_of "https://v6.$D:$P/")" = "fetched null"'

# An IPv6 literal URL: fetched from [::1] (no name to resolve), its links
# too; a site where nothing listens: its URLs wait with the reason.
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '%s\n' "http://[::1]:$HTTP_PORT/" "http://plain.$D:$closed/" >"$SCRATCH/seeds-v6lit"
: >"$NGINX_LOG"
check "crawl of an IPv6 literal URL exits 0" run_ranks 1 crawl --dir "$SCRATCH/cv6" \
	--seeds "$SCRATCH/seeds-v6lit" --rounds 2 "${common[@]}" >"$SCRATCH/cv6.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/cv6" --dump >"$SCRATCH/db" 2>/dev/null
check "  http://[::1]:PORT/ fetched" test "$(reason_of "http://[::1]:$HTTP_PORT/")" = "fetched null"
check "  and pages it links ($(grep -c '"url":"http://\[::1\]:[0-9]*/page-' "$SCRATCH/db") fetched)" \
	test "$(grep '"url":"http://\[::1\]:[0-9]*/page-' "$SCRATCH/db" | grep -c '"status":"fetched"')" -ge 3
check "  nginx saw them on ::1" eval 'awk -F"\t" "\$3 == \"::1\" && \$14 ~ /^\/page-/" "$NGINX_LOG" | grep -q .'
check "  the closed port's site waits, saying why: $(reason_of "http://plain.$D:$closed/")" \
	test "$(reason_of "http://plain.$D:$closed/")" = \
	"deferred robots.txt unreachable: Couldn't connect to server"

# A robots.txt redirected to another host (moved -> plain): that host's
# name resolved by the crawler's own DNS (dns.servers; the system's does
# not know it), and its rules applied to moved's URLs.
printf '%s\n' "http://moved.$D:$HTTP_PORT/" >"$SCRATCH/seeds-moved"
: >"$NGINX_LOG"
check "crawl of a site whose robots.txt is on another host exits 0" run_ranks 2 crawl \
	--dir "$SCRATCH/cm" --seeds "$SCRATCH/seeds-moved" --rounds 2 "${common[@]}" \
	--set fetch.embeds=false >"$SCRATCH/cm.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/cm" --dump >"$SCRATCH/db" 2>/dev/null
check "  its pages fetched ($(reason_of "http://moved.$D:$HTTP_PORT/page-001.html"))" \
	test "$(reason_of "http://moved.$D:$HTTP_PORT/page-001.html")" = "fetched null"
check "  its /private/ denied by the other host's robots.txt" \
	test "$(reason_of "http://moved.$D:$HTTP_PORT/private/report-001.html")" = "denied robots.txt"
check "  nginx: moved's robots.txt answered 301, then plain's asked" eval \
	'awk -F"\t" "\$19 != \"tlsweb.sh probe\" && \$14 == \"/robots.txt\" { print \$5, \$15 }" "$NGINX_LOG" |
	tr "\n" " " | grep -q "^moved.$D 301 plain.$D 200 "'

# RFC 9309 2.2.2: an escaped unreserved character in a rule is the
# character. "Disallow: /%7Ejoe/" keeps out both spellings of the links
# (the crawler's URLs have ~); /~jim/ stays open.
printf '%s\n' "https://tilde.$D:$P/" >"$SCRATCH/seeds-tilde"
: >"$NGINX_LOG"
check "crawl of a robots.txt with %7E exits 0" run_ranks 1 crawl --dir "$SCRATCH/ct" \
	--seeds "$SCRATCH/seeds-tilde" --rounds 2 "${common[@]}" --set "tls.ca_file=$TLS_CA" \
	>"$SCRATCH/ct.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/ct" --dump >"$SCRATCH/db" 2>/dev/null
check "Disallow: /%7Ejoe/ denies /~joe/ in both spellings" \
	eval 'test "$(reason_of "https://tilde.$D:$P/~joe/secret.html")" = "denied robots.txt" &&
	test "$(reason_of "https://tilde.$D:$P/~joe/other.html")" = "denied robots.txt"'
check "  and /~jim/ is fetched" test "$(reason_of "https://tilde.$D:$P/~jim/open.html")" = "fetched null"
check "  nginx saw no request under /~joe/ or /%7Ejoe/" \
	eval '! awk -F"\t" "\$5 ~ /^tilde\\./" "$NGINX_LOG" | grep -qi "/\(~\|%7e\)joe/"'
wet_text() {  # wet_text DIR URL: the text of URL's WET record
	for f in "$1"/segments/*/text/*.wet.gz; do zcat "$f"; done | python3 -c '
import re, sys
d = sys.stdin.buffer.read().decode("utf-8", "replace")
for m in re.finditer(r"WARC-Target-URI: (\S+).*?\r\n\r\n(.*?)\r\n\r\n", d, re.S):
    if m.group(1) == sys.argv[1]:
        print(m.group(2).strip().splitlines()[-1])' "$2"
}
check "pages with no charset: windows-1252 read as such ($(wet_text "$SCRATCH/ct" "https://tilde.$D:$P/w1252.html"))" \
	test "$(wet_text "$SCRATCH/ct" "https://tilde.$D:$P/w1252.html")" = "“smart quotes” € café"
check "  and UTF-8 as UTF-8 ($(wet_text "$SCRATCH/ct" "https://tilde.$D:$P/utf8.html"))" \
	test "$(wet_text "$SCRATCH/ct" "https://tilde.$D:$P/utf8.html")" = "Grüße “quoted”"
check "  mpicrawl robots says the same" eval '"$MPICRAWL" robots "$SCRATCH/tilde/robots.txt" \
	"https://t/%7Ejoe/x" "https://t/~joe/x" "https://t/~jim/x" | cut -f1 | tr "\n" " " |
	grep -qx "deny deny allow "'

# Refetches ask If-None-Match where the last answer had an ETag and
# If-Modified-Since with the last answer's Last-Modified, as it was sent:
# h1 (if_modified_since before) and v6 (nginx's default, exact: 304 only
# when the date is the file's own) answer 304 to both, archived as
# server-not-modified revisits; h2 (no ETag, conditions ignored) answers
# 200 with the same bytes, archived as an identical-payload-digest revisit
# - never a made-up 304 with a 200 line.
printf '%s\n' "https://h1.$D:$P/" "https://h2.$D:$P/" "https://v6.$D:$P/" >"$SCRATCH/seeds8"
refetch=(--seeds "$SCRATCH/seeds8" --rounds 1 "${common[@]}" --set "tls.ca_file=$TLS_CA"
	--set crawl.refetch_interval_s=1 --set fetch.follow_max=0 --set fetch.embeds=false
	--set generate.round_s=0)
check "a crawl and its refetch 2 s later exit 0" eval 'run_ranks 1 crawl --dir "$SCRATCH/c8" \
	"${refetch[@]}" >"$SCRATCH/c8.out" 2>&1 && sleep 2 && : >"$NGINX_LOG" &&
	run_ranks 1 crawl --dir "$SCRATCH/c8" "${refetch[@]}" >>"$SCRATCH/c8.out" 2>&1'
revisits() {
	pages_warcs "$SCRATCH"/c8/segments/00002/warc | xargs zcat | tr -d '\r' | awk '
		/^WARC-Type: / { t = $2 } /^WARC-Target-URI: / { u = $2 }
		/^WARC-Profile: / { p = $2; sub(/.*\//, "", p) }
		/^HTTP\/1\.1 [0-9]+/ && t == "revisit" { print u, p, $2 }
		tolower($0) ~ /^if-modified-since: / { print u, "asked by date" }
		tolower($0) ~ /^if-none-match: / { print u, "asked by etag" }'
}
revisits >"$SCRATCH/revisits"
check "h1: 304, a server-not-modified revisit with its 304 status line" \
	grep -q "^https://h1.$D:$P/ server-not-modified 304$" "$SCRATCH/revisits"
check "h2: 200 with the same body, an identical-payload-digest revisit" \
	grep -q "^https://h2.$D:$P/ identical-payload-digest 200$" "$SCRATCH/revisits"
check "v6: 304 by its ETag, a server-not-modified revisit" \
	grep -q "^https://v6.$D:$P/ server-not-modified 304$" "$SCRATCH/revisits"
check "h2 asked If-Modified-Since, h1 and v6 both; nginx logged 304, 200, 304" \
	eval 'test "$(grep " asked" "$SCRATCH/revisits" | LC_ALL=C sort | tr "\n" " ")" = "https://h1.$D:$P/ asked by date https://h1.$D:$P/ asked by etag https://h2.$D:$P/ asked by date https://v6.$D:$P/ asked by date https://v6.$D:$P/ asked by etag " &&
	test "$(awk -F"\t" "\$14 == \"/\" { print \$5, \$15 }" "$NGINX_LOG" | sort | tr "\n" " ")" = "h1.$D 304 h2.$D 200 v6.$D 304 "'
cat "$SCRATCH/revisits"
# If-None-Match: the ETag of the first answer, as the CrawlDb kept it (but
# for W/: nginx weakens the ETag of what it gzips, and a 304 has the strong
# one); none to h2, which sends none. One visit each, none a change.
"$MPICRAWL" readdb --dir "$SCRATCH/c8" --dump >"$SCRATCH/db8" 2>/dev/null
etag_v6=$(jq -r "select(.url == \"https://v6.$D:$P/\") | .etag" "$SCRATCH/db8")
check "v6's ETag kept ($etag_v6) and sent back as If-None-Match" \
	eval 'test -n "$etag_v6" -a "$etag_v6" != null &&
	test "$(awk -F"\t" "\$14 == \"/\" && \$5 == \"v6.$D\" { print \$21 }" "$NGINX_LOG" |
		sed "s/\\\\x22/\"/g; s|^W/||")" = "${etag_v6#W/}" &&
	test "$(awk -F"\t" "\$14 == \"/\" && \$5 == \"h2.$D\" { print \$21 }" "$NGINX_LOG")" = "-"'
# If-Modified-Since: each page's Last-Modified as the CrawlDb kept it,
# in the form nginx sent it.
ims_ok() {
	local h lm
	for h in h1 h2 v6; do
		lm=$(jq -r "select(.url == \"https://$h.$D:$P/\") | .last_modified" "$SCRATCH/db8")
		[ -n "$lm" ] && [ "$lm" != null ] || return 1
		[ "$(awk -F"\t" -v h="$h.$D" '$14 == "/" && $5 == h { print $22 }' "$NGINX_LOG")" = \
			"$(LC_ALL=C date -u -d "@$lm" '+%a, %d %b %Y %H:%M:%S GMT')" ] || return 1
	done
}
check "If-Modified-Since is the Last-Modified each first answer sent" ims_ok
check "one visit each, unchanged; h2 without an ETag" \
	eval 'test "$(jq -c "select(.url | endswith(\":$P/\")) | [.url, .visits[0][1], .etag]" "$SCRATCH/db8" |
		LC_ALL=C sort | tr "\n" " ")" = "[\"https://h1.$D:$P/\",0,$(jq -c "select(.url == \"https://h1.$D:$P/\") | .etag" "$SCRATCH/db8")] [\"https://h2.$D:$P/\",0,null] [\"https://v6.$D:$P/\",0,$(jq -c "select(.url == \"https://v6.$D:$P/\") | .etag" "$SCRATCH/db8")] "'

# A TLS client meeting a server that speaks plain HTTP: the handshake fails.
printf '%s\n' "https://plain.$D:$HTTP_PORT/" >"$SCRATCH/seeds7"
check "crawl of an https URL on a plain-http port exits 0" run_ranks 1 crawl --dir "$SCRATCH/c7" \
	--seeds "$SCRATCH/seeds7" --rounds 1 "${common[@]}" --set "tls.ca_file=$TLS_CA" \
	>"$SCRATCH/c7.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c7" --dump >"$SCRATCH/db" 2>/dev/null
check "no TLS server there: error tls:handshake" \
	test "$(reason_of "https://plain.$D:$HTTP_PORT/")" = "error tls:handshake"

# The system's trust store does not know the test CA; tls.verify=false is
# the logged opt-out.
printf '%s\n' "https://h2.$D:$P/" "https://expired.$D:$P/" >"$SCRATCH/seeds4"
check "crawl with the system's trust store exits 0" run_ranks 1 crawl --dir "$SCRATCH/c4" \
	--seeds "$SCRATCH/seeds4" --rounds 1 "${common[@]}" >"$SCRATCH/c4.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c4" --dump >"$SCRATCH/db" 2>/dev/null
check "system trust store: the test CA's host is tls:untrusted" \
	test "$(reason_of "https://h2.$D:$P/")" = "error tls:untrusted"
check "crawl with tls.verify=false exits 0" run_ranks 1 crawl --dir "$SCRATCH/c5" \
	--seeds "$SCRATCH/seeds4" --rounds 1 "${common[@]}" --set tls.verify=false \
	>"$SCRATCH/c5.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c5" --dump >"$SCRATCH/db" 2>/dev/null
check "tls.verify=false: the expired host is fetched, and the opt-out is logged" \
	eval 'test "$(reason_of "https://expired.$D:$P/")" = "fetched null" &&
	grep -q "tls.verify = false" "$SCRATCH/c5.out"'
check "a tls.ca_file that is not a PEM file: one-line error, exit 2" \
	expect 2 "tls.ca_file" "$MPICRAWL" crawl --dir "$SCRATCH/c6" --seeds "$SCRATCH/seeds4" \
	--set tls.ca_file="$SCRATCH/seeds4"
check "a tls.ca_file that does not exist: one-line error, exit 2" \
	expect 2 "tls.ca_file.*cannot be read" "$MPICRAWL" crawl --dir "$SCRATCH/c6" \
	--seeds "$SCRATCH/seeds4" --set tls.ca_file=/nonexistent/ca.pem
finish

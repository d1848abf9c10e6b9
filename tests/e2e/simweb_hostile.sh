#!/usr/bin/env bash
# simweb --hostile: the hostile quarter (tests/simweb/README.md, "Hostile
# quarter"), probed from the client side with curl and a raw-socket reader.
# - --truth: the normal lines unchanged, the quarter's lines sorted in among
#   them, and what the server answers agrees with each line's class;
# - each class of endpoint: the bytes, headers and timing bounds the README
#   promises (drips, stall, endless and lying bodies, reset, flapping 500,
#   bombs that are a few bytes on the wire and GiBs decoded, redirects, traps,
#   parser and header bombs);
# - a normal page is answered at once while drips and a stall hold
#   connections open; the server stays up with bounded memory;
# - the DNS names of webenv.sh: NXDOMAIN, REFUSED, no answer, NODATA and a
#   name that rebinds to 10.0.0.1;
# - without --hostile none of the quarter exists.
# Requests go to 127.0.0.1 with a Host header; dnsmasq is asked directly.
. "$(dirname "$0")/lib.sh"

PIDS=()
on_exit() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${KEEP_SCRATCH:-}" ] || cleanup
}
trap on_exit EXIT
trap 'exit 130' INT TERM

web=(--hosts 8 --pages 20)
if ! start_web hostile "${web[@]}" --hostile; then
	check "webenv starts simweb --hostile" false
	finish
	exit
fi
PORT=$SIMWEB_PORT
D=$SIMWEB_DOMAIN
S=$SCRATCH

# get HOST PATH [curl args...]: GETs from 127.0.0.1 with a Host header.
get() {
	local host=$1 path=$2
	shift 2
	curl -s -H "Host: $host" "$@" "http://127.0.0.1:$PORT$path"
}
code() { get "$1" "$2" -o /dev/null -w '%{http_code}' --max-time 5; }

# raw HOST PATH SECONDS: one request on a plain socket, read until the peer
# closes, resets or SECONDS pass; prints key=value facts about what came.
raw() {
	python3 - "$PORT" "$1" "$2" "$3" <<'PY'
import socket, sys, time
port, host, path, limit = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
s = socket.create_connection(("127.0.0.1", port))
t0 = time.monotonic()
s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
data, first, end = b"", None, "timeout"
while True:
    left = limit - (time.monotonic() - t0)
    if left <= 0:
        break
    s.settimeout(left)
    try:
        b = s.recv(1 << 20)
    except socket.timeout:
        break
    except ConnectionResetError:
        end = "reset"
        break
    if not b:
        end = "close"
        break
    if first is None:
        first = time.monotonic() - t0
    data += b
t = time.monotonic() - t0
head, sep, body = data.partition(b"\r\n\r\n")
lines = head.split(b"\r\n") if sep else []
cl = [l for l in lines if l.lower().startswith(b"content-length:")]
print("bytes=%d head=%d body=%d end=%s time=%.2f first=%.2f headers=%d longest=%d cl=%s smuggled=%d"
      % (len(data), len(head) + len(sep) if sep else 0, len(body) if sep else 0, end, t,
         first if first is not None else -1, max(len(lines) - 1, 0),
         max((len(l) for l in lines), default=0), cl[0].split(b":")[1].strip().decode() if cl else "-",
         body.count(b"HTTP/1.1 200 OK")))
PY
}
# fact FACTS KEY: the value of KEY in raw's output.
fact() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# --- Truth --------------------------------------------------------------------
"$SIMWEB" --truth "${web[@]}" --port "$PORT" >"$S/truth0"
"$SIMWEB" --truth "${web[@]}" --hostile --port "$PORT" >"$S/truth"
check "truth sorted" bash -c "LC_ALL=C sort -c '$S/truth'"
check "truth: normal lines unchanged" bash -c "grep -v '	hostile	' '$S/truth' | cmp -s - '$S/truth0'"
check "truth: quarter lines are URL, hostile, EXPECTED" \
	bash -c "grep '	hostile	' '$S/truth' | awk -F'\t' 'NF != 3 || \$3 !~ /^(fetched|redirect|gone|error|blocked|truncated|too_large|timeout|trap|dropped)\$/ { bad++ } END { exit bad || NR < 80 }'"
check "seeds unchanged" bash -c "cmp -s <('$SIMWEB' --seeds ${web[*]} --port $PORT) \
	<('$SIMWEB' --seeds ${web[*]} --hostile --port $PORT)"
check "--max-redirects moves the chain's end" \
	bash -c "'$SIMWEB' --truth ${web[*]} --hostile --max-redirects 20 --port $PORT |
		grep -q '/chain/20	hostile	fetched'"
check "--max-redirects 0 refused" \
	bash -c "'$SIMWEB' --truth ${web[*]} --hostile --max-redirects 0 --port $PORT >/dev/null 2>&1; [ \$? -eq 2 ]"

# Every concrete URL of the quarter's own hosts answers as its class says.
judge_truth() {
	local url expected host path c bad=0 loc
	while IFS=$'\t' read -r url _ expected; do
		case $url in
		http://x0*) ;;
		*) continue ;;
		esac
		[[ $url == *'*' ]] && continue
		host=${url#http://}
		path=/${host#*/}
		host=${host%%/*}
		host=${host%:*}
		case $path in
		/drip*|/stall.html|/endless.html|/cl-long.html|/reset.html|/flap.html) continue ;;
		/many-headers-big.html|/huge-header.html) continue ;;
		esac
		c=$(code "$host" "$path")
		loc=$(get "$host" "$path" -D - -o /dev/null --max-time 5 | tr -d '\r' |
			sed -n 's/^[Ll]ocation: //p')
		case $expected in
		fetched|too_large) [ "$c" = 200 ] ;;
		redirect|trap) [[ $c == 30[1278] ]] && [ -n "$loc" ] ;;
		blocked) [[ $c == 30[1278] ]] && [[ $loc != http* ]] ;;
		gone) [[ $c == 30[1278] || $c == 404 ]] && [ -z "$loc" ] ;;
		*) false ;;
		esac || { echo "$url: $expected, served $c '$loc'"; bad=1; }
	done <"$S/truth"
	return $bad
}
check "served answers agree with the truth" judge_truth

# --- Home pages -----------------------------------------------------------------
get "h0000.$D" / >"$S/h0000"
check "h0000's home links all 17 quarter hosts" \
	test "$(grep -o "href=\"http://x00[0-9][0-9]\.$D:$PORT/\"" "$S/h0000" | sort -u | wc -l)" -eq 17
check "h0001's home does not" bash -c "! curl -s -H 'Host: h0001.$D' http://127.0.0.1:$PORT/ |
	grep -q x0000"
check "quarter robots.txt is 404" test "$(code "x0000.$D" /robots.txt)" = 404
check "unknown quarter path is 404" test "$(code "x0009.$D" /cal/2026/13)" = 404

# --- Slow answers, while a normal page is served at once ----------------------
raw "x0000.$D" /drip.html 3 >"$S/drip" & PIDS+=($!)
raw "x0001.$D" /drip-head.html 3 >"$S/driphead" & PIDS+=($!)
raw "x0002.$D" /stall.html 3 >"$S/stall" & PIDS+=($!)
for _ in $(seq 10); do
	get "x0000.$D" /drip.html -o /dev/null --max-time 3 & PIDS+=($!)
done
sleep 0.5
t=$(get "h0001.$D" /p/3.html -o /dev/null -w '%{time_total}' --max-time 5)
check "a normal page within 0.5 s while 13 slow connections are open ($t s)" le "$t" 0.5
t=$(get "x0012.$D" /links.html -o /dev/null -w '%{time_total}' --max-time 5)
check "a 3.8 MB page within 2 s meanwhile ($t s)" le "$t" 2
wait "${PIDS[@]}" 2>/dev/null
PIDS=()
f=$(cat "$S/drip")
check "drip: head at once ($f)" le "$(fact "$f" first)" 0.5
check "drip: Content-Length 300, 3 or 4 body bytes in 3 s" \
	bash -c "[ '$(fact "$f" cl)' = 300 ] && [ $(fact "$f" body) -ge 3 ] && [ $(fact "$f" body) -le 4 ]"
f=$(cat "$S/driphead")
check "drip-head: 3 or 4 bytes of the head in 3 s ($f)" \
	bash -c "[ $(fact "$f" bytes) -ge 3 ] && [ $(fact "$f" bytes) -le 4 ] && [ $(fact "$f" head) -eq 0 ]"
f=$(cat "$S/stall")
check "stall: the head, then nothing for 3 s ($f)" \
	bash -c "[ $(fact "$f" head) -gt 0 ] && [ $(fact "$f" body) -eq 0 ] && [ $(fact "$f" end) = timeout ]"

# --- Endless and lying bodies, reset, flapping ---------------------------------
r=$(get "x0003.$D" /endless.html -o "$S/endless" -D "$S/endless.h" -w '%{size_download} %{time_total}' --max-time 20; echo " $?")
check "endless: chunked, 64 MiB then a close without the last chunk ($r)" \
	bash -c "grep -qi '^transfer-encoding: chunked' '$S/endless.h' && [ '$(cut -d' ' -f1,3 <<<"$r")' = '67108864 18' ]"
check "endless: within 10 s" le "$(cut -d' ' -f2 <<<"$r")" 10
check "endless: readable text" bash -c "head -c 4096 '$S/endless' | grep -q '^<p>'"
rm -f "$S/endless"
f=$(raw "x0004.$D" /cl-long.html 5)
check "cl-long: 2000 of 100000 bytes, then FIN ($f)" \
	bash -c "[ '$(fact "$f" cl)' = 100000 ] && [ $(fact "$f" body) -eq 2000 ] && [ $(fact "$f" end) = close ]"
f=$(raw "x0004.$D" /cl-short.html 5)
check "cl-short: more body than Content-Length, a smuggled response in it ($f)" \
	bash -c "[ $(fact "$f" body) -gt $(fact "$f" cl) ] && [ $(fact "$f" smuggled) -eq 1 ]"
r=$(get "x0004.$D" /cl-short.html -o "$S/short" --max-time 5; echo $?)
check "cl-short: curl takes Content-Length bytes, a whole page" \
	bash -c "[ $r -eq 0 ] && tail -n 1 '$S/short' | grep -q '</html>'"
f=$(raw "x0005.$D" /reset.html 5)
check "reset: 4000 of 20000 bytes, then RST after about 0.2 s ($f)" \
	bash -c "[ $(fact "$f" body) -eq 4000 ] && [ $(fact "$f" end) = reset ]" &&
	check "reset: within 1 s" le "$(fact "$f" time)" 1
codes=$(for _ in 1 2 3 4; do code "x0006.$D" /flap.html; echo; done | tr '\n' ' ')
check "flap alternates 500 and 200 ($codes)" \
	bash -c "[[ '$codes' == '500 200 500 200 ' || '$codes' == '200 500 200 500 ' ]]"

# --- Bombs ---------------------------------------------------------------------
for b in gz br zst; do
	get "x0007.$D" "/bomb.$b.html" -o "$S/bomb.$b" -D "$S/bomb.$b.h" --max-time 10
done
check "gzip bomb: Content-Encoding gzip, 1061908 bytes" bash -c \
	"grep -qi '^content-encoding: gzip' '$S/bomb.gz.h' && [ \$(stat -c %s '$S/bomb.gz') -eq 1061908 ]"
check "gzip bomb: a valid gzip of 1 GiB" bash -c \
	"gzip -t <'$S/bomb.gz' && gzip -l <'$S/bomb.gz' | grep -q ' 1073741824 '"
check "brotli bomb: Content-Encoding br, 3233 bytes" bash -c \
	"grep -qi '^content-encoding: br' '$S/bomb.br.h' && [ \$(stat -c %s '$S/bomb.br') -eq 3233 ]"
check "brotli bomb: decodes past 256 MiB" bash -c \
	"[ \$(curl -s --compressed -H 'Host: x0007.$D' http://127.0.0.1:$PORT/bomb.br.html |
		head -c 268435456 | wc -c) -eq 268435456 ]"
check "zstd bomb: Content-Encoding zstd, 131086 bytes" bash -c \
	"grep -qi '^content-encoding: zstd' '$S/bomb.zst.h' && [ \$(stat -c %s '$S/bomb.zst') -eq 131086 ]"
if command -v zstd >/dev/null; then
	check "zstd bomb: a valid frame of 4 GiB" bash -c \
		"zstd -q -t '$S/bomb.zst' && zstd -lv '$S/bomb.zst' 2>/dev/null | grep -q '4294967296 B'"
fi
check "ok.gz: a page in gzip" bash -c \
	"curl -s --compressed -H 'Host: x0007.$D' http://127.0.0.1:$PORT/ok.gz.html | tail -n 1 | grep -q '</html>'"
check "ok.zst: a page in zstd" bash -c \
	"curl -s --compressed -H 'Host: x0007.$D' http://127.0.0.1:$PORT/ok.zst.html | tail -n 1 | grep -q '</html>'"
rm -f "$S"/bomb.*

# --- Redirects -----------------------------------------------------------------
loc() { get "x0008.$D" "$1" -D - -o /dev/null --max-time 5 | tr -d '\r' | sed -n 's/^[Ll]ocation: //p'; }
check "loop: a -> b -> a" bash -c "[ '$(loc /loop/a)' = /loop/b ] && [ '$(loc /loop/b)' = /loop/a ]"
check "self -> self" test "$(loc /self)" = /self
r=$(get "x0008.$D" /chain/0 -L --max-redirs 20 -o /dev/null -w '%{http_code} %{num_redirects}' --max-time 5)
check "chain: 20 hops to a 200 ($r)" test "$r" = "200 20"
r=$(get "x0008.$D" /chain/0 -L --max-redirs 5 -o /dev/null --max-time 5; echo $?)
check "chain: a client stopping at 5 hops gives up" test "$r" -eq 47
check "to-file" test "$(loc /to-file)" = file:///etc/passwd
check "to-ftp" test "$(loc /to-ftp)" = "ftp://x0008.$D/pub/file.txt"
check "to-private: 11 private targets" bash -c "for k in \$(seq 0 10); do
	curl -s -D - -o /dev/null -H 'Host: x0008.$D' http://127.0.0.1:$PORT/to-private/\$k; done |
	tr -d '\r' | grep -c '^Location: http://' | grep -qx 11"
check "to-private/7 is [::1]" test "$(loc /to-private/7)" = "http://[::1]/"
check "to-rebind" test "$(loc /to-rebind)" = "http://rebind.$D:$PORT/"
check "no-location: a 301 without Location" bash -c \
	"[ '$(code "x0008.$D" /no-location)' = 301 ] && [ -z '$(loc /no-location)' ]"

# --- Traps ---------------------------------------------------------------------
# follow HOST PATH N: follows the "next" link N times; prints the paths.
follow() {
	local host=$1 path=$2 n=$3 next
	for _ in $(seq "$n"); do
		echo "$path"
		next=$(get "$host" "$path" --max-time 5 | grep -o '<a href="[^"]*">next' | head -n 1 |
			sed 's/<a href="//; s/">next//')
		[ -n "$next" ] || return 1
		case $next in
		/*) path=$next ;;
		*) path=${path%/*}/$next ;;
		esac
	done
}
follow "x0009.$D" /cal/2026/11 30 >"$S/cal"
check "calendar: 30 months on, each a new one" bash -c \
	"[ \$(sort -u '$S/cal' | wc -l) -eq 30 ] && grep -qx /cal/2029/4 '$S/cal'"
follow "x0010.$D" /a/ 20 >"$S/paths"
check "paths: /a/a/.../ 20 deep" bash -c "[ \$(tail -n 1 '$S/paths' | grep -o a | wc -l) -eq 20 ]"
first=$(grep -o 'session?sid=[0-9a-f]\{16\}' "$S/truth" | head -n 1)
follow "x0011.$D" "/$first" 20 >"$S/sess"
check "session: 20 pages, 20 session ids" test "$(sort -u "$S/sess" | wc -l)" -eq 20
get "x0012.$D" /links.html --max-time 5 >"$S/links"
check "links: 100000 distinct links" \
	test "$(grep -o 'href="/links/[0-9]*\.html"' "$S/links" | sort -u | wc -l)" -eq 100000
check "links: their targets are 404" test "$(code "x0012.$D" /links/99999.html)" = 404
check "long-url: a link with a 64 KiB path" test \
	"$(get "x0013.$D" /long-url.html --max-time 5 | grep -o 'href="/long/a*"' | wc -c)" -eq $((65536 + 14))

# --- Parser bombs and bad text ---------------------------------------------------
check "nested: 100000 open divs" test \
	"$(get "x0014.$D" /nested.html --max-time 5 | grep -o '<div>' | wc -l)" -eq 100000
check "comment: never closed, 1 MiB after it" bash -c "get() { curl -s -H 'Host: x0014.$D' http://127.0.0.1:$PORT/comment.html; }
	[ \$(get | wc -c) -gt 1048576 ] && get | tr '\n' ' ' | grep -q '<!--' && ! get | tr '\n' ' ' | grep -q -- '-->'"
check "attr: never closed" bash -c "curl -s -H 'Host: x0014.$D' http://127.0.0.1:$PORT/attr.html |
	tr '\n' ' ' | grep -o 'title=\".*' | tail -c +8 | grep -qv '\"'"
check "bad-utf8: not UTF-8" bash -c "! curl -s -H 'Host: x0014.$D' http://127.0.0.1:$PORT/bad-utf8.html |
	python3 -c 'import sys; sys.stdin.buffer.read().decode(\"utf-8\")' 2>/dev/null"
check "wrong-charset: says utf-16le, is UTF-8 and says shift_jis" bash -c \
	"curl -s -D - -H 'Host: x0014.$D' http://127.0.0.1:$PORT/wrong-charset.html |
	tr -d '\r' | grep -q '^Content-Type: text/html; charset=utf-16le' &&
	curl -s -H 'Host: x0014.$D' http://127.0.0.1:$PORT/wrong-charset.html | grep -q 'charset=\"shift_jis\"'"
check "binary: 64 KiB with NULs as text/html" bash -c \
	"[ \"\$(curl -s -o /dev/null -w '%{size_download} %{content_type}' -H 'Host: x0014.$D' http://127.0.0.1:$PORT/binary.html)\" = '65536 text/html' ] &&
	[ \$(curl -s -H 'Host: x0014.$D' http://127.0.0.1:$PORT/binary.html | tr -dc '\0' | wc -c) -gt 100 ]"

# --- Header bombs ---------------------------------------------------------------
f=$(raw "x0015.$D" /many-headers.html 5)
check "many-headers: over 3000 header lines, under 256 KiB ($f)" \
	bash -c "[ $(fact "$f" headers) -gt 3000 ] && [ $(fact "$f" head) -lt 262144 ] && [ $(fact "$f" end) = close ]"
f=$(raw "x0015.$D" /many-headers-big.html 5)
check "many-headers-big: over 20000 header lines, over 512 KiB ($f)" \
	bash -c "[ $(fact "$f" headers) -gt 20000 ] && [ $(fact "$f" head) -gt 524288 ]"
f=$(raw "x0015.$D" /huge-header.html 5)
check "huge-header: one header line of 1 MiB ($f)" \
	bash -c "[ $(fact "$f" longest) -gt 1048576 ] && [ $(fact "$f" body) -gt 0 ]"

# --- DNS ------------------------------------------------------------------------
# dns NAME: "rcode answers" from the web's dnsmasq, or "none" after 1.5 s.
dns() {
	python3 - "$DNS_PORT" "$1" <<'PY'
import socket, struct, sys
port, name = int(sys.argv[1]), sys.argv[2]
q = struct.pack(">HHHHHH", 0x5eb2, 0x0100, 1, 0, 0, 0)
q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
q += struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.5)
s.sendto(q, ("127.0.0.1", port))
try:
    r = s.recv(512)
except socket.timeout:
    print("none")
    sys.exit()
ans = struct.unpack(">H", r[6:8])[0]
ip = ".".join(str(b) for b in r[-4:]) if ans else "-"
print(r[3] & 15, ans, ip)
PY
}
check "dns: x0000 -> 127.0.0.1" test "$(dns "x0000.$D")" = "0 1 127.0.0.1"
check "dns: gone.nx NXDOMAIN" test "$(dns "gone.nx.$D")" = "3 0 -"
check "dns: down.sf REFUSED" test "$(dns "down.sf.$D")" = "5 0 -"
check "dns: empty.nodata NOERROR, no address" test "$(dns "empty.nodata.$D")" = "0 0 -"
check "dns: silent.nr no answer" test "$(dns "silent.nr.$D")" = none
check "dns: rebind -> 10.0.0.1" test "$(dns "rebind.$D")" = "0 1 10.0.0.1"

# --- The server ------------------------------------------------------------------
check "simweb still up" kill -0 "$SIMWEB_PID"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$SIMWEB_PID/status")
check "simweb peak memory under 64 MB (${hwm} kB)" test "${hwm:-999999}" -lt 65536
check "log: the reset and the cut drips logged 200" bash -c \
	"grep -q '	/reset.html	200	' '$SIMWEB_LOG' && grep -c '	/drip.html	200	' '$SIMWEB_LOG' | grep -qx 11"

# Without --hostile the quarter does not exist.
"$SIMWEB" "${web[@]}" --port 0 --port-file "$S/port0" 2>/dev/null & PIDS+=($!)
for _ in $(seq 50); do
	[ -s "$S/port0" ] && break
	sleep 0.1
done
P0=$(cat "$S/port0" 2>/dev/null)
check "without --hostile: x0000 is 404" test \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "Host: x0000.$D" "http://127.0.0.1:$P0/")" = 404
check "without --hostile: h0000 links no quarter" bash -c \
	"! curl -s -H 'Host: h0000.$D' http://127.0.0.1:$P0/ | grep -q 'Hostile quarter'"

finish

#!/usr/bin/env bash
# `mpicrawl report` after a crawl of a small simweb: DIR/report.html is one
# self-contained page (no outside URL) with its 9 SVG charts, and headless
# Chromium renders it: the page's script counts the charts into the DOM
# (--dump-dom), no console error is logged, and the screenshot is not blank
# (pixel variance, the PNG decoded by python3's zlib).
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
start_web web --hosts 4 --pages 15 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 4 --pages 15 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
C=$SCRATCH/crawl
check "crawl exits 0" run_ranks 1 crawl --dir "$C" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=5 --set partition.count=4 >"$SCRATCH/out" 2>&1
check "report exits 0" "$MPICRAWL" report --dir "$C"
R=$C/report.html
check "report.html written" test -s "$R"
check "9 SVG charts" test "$(grep -c '<svg ' "$R")" -eq 9
check "self-contained: no outside resources" bash -c \
	"! grep -Eq '(src|href)=\"(https?:)?//' '$R'"
check "pages per round charted" grep -q 'Pages fetched per round' "$R"
n1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fetch"]["counters"]["fetched"])' \
	"$C/segments/00001/stats.json")
check "round 1's bar is stats.json's fetched count ($n1)" grep -q "<title>round 1: $n1 pages</title>" "$R"
check "report of a non-crawl directory fails" bash -c "! '$MPICRAWL' report --dir '$SCRATCH' 2>/dev/null"

if [ -z "$CHROMIUM" ]; then
	check "chromium installed (scripts/install-deps.sh)" false
	finish
	exit 1
fi
chrome() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$SCRATCH/chrome" --enable-logging=stderr --v=0 "$@"
}
chrome --dump-dom "file://$R" >"$SCRATCH/dom.html" 2>"$SCRATCH/chrome.err"
check "chromium ran the page: 9 charts in the DOM" grep -q 'data-charts="9"' "$SCRATCH/dom.html"
chrome --screenshot="$SCRATCH/shot.png" --window-size=1400,1800 "file://$R" \
	>/dev/null 2>>"$SCRATCH/chrome.err"
check "no console errors" bash -c "! grep -iE 'CONSOLE.*(error|uncaught)' '$SCRATCH/chrome.err'"
png_not_blank() {
	python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h, ct = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ct = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4, 0: 1, 4: 2}[ct]
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
vals = []
i = 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        vals.extend(line[0:stride:bpp * 4])
mean = sum(vals) / len(vals)
var = sum((v - mean) ** 2 for v in vals) / len(vals)
dark = sum(1 for v in vals if v < 128) / len(vals)
print("screenshot %dx%d: mean %.1f, variance %.1f, dark share %.3f" % (w, h, mean, var, dark))
sys.exit(0 if var > 100 and dark > 0.005 else 1)
PY
}
check "screenshot is not blank" png_not_blank "$SCRATCH/shot.png"
finish

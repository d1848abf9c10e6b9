#!/usr/bin/env bash
# Compressed bodies on the wire (http.accept_encoding), against a server of
# python3's http.server that answers with bodies the real compressors made
# (gzip, zlib and raw deflate through python's zlib, the brotli and zstd
# commands):
# - page requests ask for "gzip, deflate, br, zstd"; robots.txt requests ask
#   for nothing (its answer is read as it comes);
# - every coded page is parsed: the pages only its links reach are fetched,
#   and its words are in the WET text;
# - the WARC keeps each body as sent: the CDXJ digest of a coded page is the
#   SHA-1 of the coded bytes, and warcio.js reads every record with its
#   digests;
# - a robots.txt the server gzips although nobody asked is still obeyed;
# - a coding mpicrawl does not decode is archived and not parsed;
# - with http.accept_encoding="" nothing is asked for;
# - the CDXJ names the charset a page was read in (its <meta>'s, its BOM's,
#   the sniffed UTF-8) when the Content-Type names none.
. "$(dirname "$0")/lib.sh"

command -v brotli >/dev/null && command -v zstd >/dev/null ||
	{ echo "not ok: the brotli and zstd commands are missing (make deps)"; finish; exit 1; }
WARCIO=$ROOT/tests/warcio
[ -d "$WARCIO/node_modules/warcio" ] ||
	(cd "$WARCIO" && npm ci --no-audit --no-fund --loglevel=error) >/dev/null 2>&1

W=$SCRATCH/site
mkdir -p "$W"
page() {
	# page NAME WORD LINK...: an HTML page whose text holds WORD
	local name=$1 word=$2 l
	shift 2
	{
		printf '<!DOCTYPE html><html><head><title>%s</title></head><body>\n' "$name"
		printf '<p>This page is coded and says %s in its text.</p>\n' "$word"
		for l in "$@"; do
			printf '<p><a href="%s">%s</a></p>\n' "$l" "$l"
		done
		printf '</body></html>\n'
	} >"$W/$name.html"
}
page index homeword gz.html zlib.html raw.html br.html zst.html compress.html secret.html \
	meta.html bom.html
# Charsets the server's Content-Type does not name: a <meta>'s, a BOM's.
printf '<html><head><meta charset="koi8-r"><title>m</title></head><body><p>\xf3\xcc\xcf\xd7\xcf</p></body></html>\n' \
	>"$W/meta.html"
printf '\xef\xbb\xbf<html><head><title>b</title></head><body><p>caf\xc3\xa9</p></body></html>\n' \
	>"$W/bom.html"
for c in gz zlib raw br zst compress; do
	page "$c" "word${c}page" "leaf-$c.html"
	page "leaf-$c" "word${c}leaf"
done
page secret secretword
printf 'User-agent: *\nDisallow: /secret\n' >"$W/robots.txt"
python3 - "$W" <<'PY'
import sys, zlib, gzip
d = sys.argv[1]
def put(name, data):
    open(d + "/" + name, "wb").write(data)
put("gz.html.coded", gzip.compress(open(d + "/gz.html", "rb").read()))
put("zlib.html.coded", zlib.compress(open(d + "/zlib.html", "rb").read()))
c = zlib.compressobj(9, zlib.DEFLATED, -15)
put("raw.html.coded", c.compress(open(d + "/raw.html", "rb").read()) + c.flush())
put("robots.txt.coded", gzip.compress(open(d + "/robots.txt", "rb").read()))
put("compress.html.coded", b"\x1f\x9d\x90" + open(d + "/compress.html", "rb").read())
PY
brotli -c "$W/br.html" >"$W/br.html.coded"
zstd -q -c "$W/zst.html" >"$W/zst.html.coded"

cat >"$SCRATCH/server.py" <<'PY'
import http.server, sys, os
root, log = sys.argv[1], open(sys.argv[2], "a", buffering=1)
codings = {"gz.html": "gzip", "zlib.html": "deflate", "raw.html": "deflate", "br.html": "br",
           "zst.html": "zstd", "compress.html": "compress", "robots.txt": "gzip"}
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        name = self.path.lstrip("/") or "index.html"
        log.write("%s\t%s\n" % (self.path, self.headers.get("Accept-Encoding", "-")))
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        coding = codings.get(name)
        body = open(path + ".coded" if coding else path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain" if name.endswith(".txt") else "text/html")
        if coding:
            self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[3], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$SCRATCH/server.py" "$W" "$SCRATCH/requests" "$SCRATCH/port" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; cleanup' EXIT
for ((i = 0; i < 50; i++)); do
	[ -s "$SCRATCH/port" ] && break
	sleep 0.1
done
PORT=$(cat "$SCRATCH/port")
echo "http://127.0.0.1:$PORT/" >"$SCRATCH/seeds"
C=$SCRATCH/crawl
check "crawl exits 0" run_ranks 1 crawl --dir "$C" --seeds "$SCRATCH/seeds" \
	--set fetch.allow_private=true --set politeness.delay_ms=0 --set partition.count=2 \
	>"$SCRATCH/out" 2>&1
tail -n 3 "$SCRATCH/out"

asked() { awk -F'\t' -v p="$1" '$1 == p { print $2 }' "$SCRATCH/requests" | head -n 1; }
check "a page asks for gzip, deflate, br, zstd" test "$(asked /gz.html)" = "gzip, deflate, br, zstd"
check "robots.txt asks for no coding" test "$(asked /robots.txt)" = "-"
for c in gz zlib raw br zst; do
	check "a page behind the $c page is reached" test -n "$(asked "/leaf-$c.html")"
done
check "a robots.txt sent gzipped is obeyed: /secret.html not asked" test -z "$(asked /secret.html)"
check "a coding not decoded: archived, its links not followed" \
	test -n "$(asked /compress.html)" -a -z "$(asked /leaf-compress.html)"

wet_words() { zcat "$C"/segments/*/text/*.wet.gz | tr -d '\r'; }
for c in gz zlib raw br zst; do
	check "the $c page's text is decoded in the WET" grep -q "word${c}page" <(wet_words)
done
check "no text of the page coded with compress" test -z "$(wet_words | grep wordcompresspage)"
# warc --text prints the words dedup signs: of the decoded page.
text_words() { for f in "$C"/segments/*/warc/*.warc.gz; do "$MPICRAWL" warc --text "$f"; done; }
for c in gz zlib raw br zst; do
	check "warc --text decodes the $c page" grep -q "word${c}page" <(text_words)
done

# The WARC keeps bodies as sent: the payload digest is that of the coded file.
digests_ok() {
	python3 - "$W" "$C" <<'PY'
import sys, glob, json, hashlib, base64
w, c = sys.argv[1], sys.argv[2]
cdx = {}
for f in glob.glob(c + "/segments/*/cdxj/*.cdxj"):
    for line in open(f):
        j = json.loads(line.split(" ", 2)[2])
        cdx[j["url"].split("/", 3)[3]] = j.get("digest")
bad = 0
for name in ["gz.html", "zlib.html", "raw.html", "br.html", "zst.html", "compress.html",
             "robots.txt"]:
    want = base64.b32encode(hashlib.sha1(open(w + "/" + name + ".coded", "rb").read()).digest()).decode()
    if cdx.get(name) != want:
        print("payload of %s: %s, want the coded bytes' %s" % (name, cdx.get(name), want))
        bad += 1
sys.exit(1 if bad else 0)
PY
}
check "the WARC keeps every body as sent (payload digests of the coded bytes)" digests_ok
warcio_ok() {
	local f
	for f in "$C"/segments/*/warc/*.warc.gz; do
		(cd "$WARCIO" && node check.mjs "$f") >/dev/null || return 1
	done
}
check "warcio.js reads every record, digests checked" warcio_ok
stats() { jq -s "[.[].parse.counters.$1] | add" "$C"/segments/*/stats.json; }
check "decoded bodies counted: 5, and 1 not decodable" \
	test "$(stats decoded)" -eq 5 -a "$(stats undecodable)" -eq 1

# The CDXJ names the charset each page was read in when HTTP names none
# (Common Crawl's index writes the detected one): a <meta>'s, a BOM's, the
# sniffed UTF-8 - from what the fetcher staged, and read back by `index`.
charset_of() {
	cat "$C"/segments/*/cdxj/*.cdxj | cut -d' ' -f3- |
		jq -r --arg p "/$1" 'select(.url | endswith($p)) | .charset // "none"' | head -n 1
}
charsets_ok() {
	test "$(charset_of meta.html)" = koi8-r -a "$(charset_of bom.html)" = UTF-8 \
		-a "$(charset_of gz.html)" = UTF-8 -a "$(charset_of robots.txt)" = none ||
		{ echo "charsets: meta $(charset_of meta.html), bom $(charset_of bom.html)," \
			"gz $(charset_of gz.html), robots.txt $(charset_of robots.txt)"; return 1; }
}
check "CDXJ charset of pages whose Content-Type names none: <meta>, BOM, UTF-8" charsets_ok
check "  the same when the segment is indexed again from its WARC files" eval \
	'"$MPICRAWL" index --dir "$C" --segment 1 >"$SCRATCH/ix.out" 2>&1 && charsets_ok'

# Asking for nothing.
: >"$SCRATCH/requests"
check "a crawl with http.accept_encoding=\"\" exits 0" run_ranks 1 crawl --dir "$SCRATCH/plain" \
	--seeds "$SCRATCH/seeds" --set fetch.allow_private=true --set politeness.delay_ms=0 \
	--set partition.count=2 --set 'http.accept_encoding=' >"$SCRATCH/out2" 2>&1
check "  and its pages ask for no coding" test "$(asked /gz.html)" = "-"
check "a coding mpicrawl cannot decode is refused as a setting" \
	expect 2 "http.accept_encoding" "$MPICRAWL" crawl --dir "$SCRATCH/bad" \
	--seeds "$SCRATCH/seeds" --set 'http.accept_encoding=gzip, compress'
finish

#!/usr/bin/env bash
# A crawl replayed in ReplayWeb.page, in headless Chromium: is the archive a
# real snapshot of the site? The nginx test web (scripts/tlsweb.sh, 4 pages)
# is crawled on 2 ranks with its requisites (fetch.embeds, the default) and
# again with fetch.embeds=false; tests/replay/replay.mjs (puppeteer-core,
# Debian's chromium, ReplayWeb.page's ui.js and sw.js from its npm tarball,
# tests/replay/setup.sh) replays them from loopback, the replay browser
# resolving no other name, and loads the same pages from the live web:
# (a) every page replays, status 200 and its live title, and all its images
#     load (img src and srcset, a logo.svg, another host's image);
# (b) its stylesheet applies: the computed font-family of html and body
#     (from the @import-ed base.css) and body's background colour and image
#     (style.css, url(/img/bg.png), which loads) are the live page's, and
#     not Chromium's defaults;
# (c) every URL of the CDXJ - pages, requisites, robots.txt, the 301, 403 and
#     404 diagnostics - replays with the status the CDXJ records, as the page
#     (mp_) and as the original bytes (id_): those bytes are the live
#     server's, a redirect goes where nginx sent it, the Content-Type is the
#     CDXJ's mime; a URL not in the archive replays as ReplayWeb.page's own
#     404, so the check can fail;
# (d) the crawl without requisites replays its pages with no image loaded
#     and no stylesheet: the requisites are what makes (a) and (b) work.
# Both replay sources are checked: a WACZ (`mpicrawl wacz`: the WARC
# files as written plus mpicrawl's own CDXJ as its index, read by range
# requests - this tests the CDXJ's offsets and lengths - and its pages list,
# which must be the crawl's pages, with every file's sha256 in
# datapackage.json checked) and one .warc.gz
# concatenated from the crawl's WARC files (gzip members, so valid;
# ReplayWeb.page indexes it itself - this tests the records alone).
. "$(dirname "$0")/lib.sh"

RDIR=$ROOT/tests/replay
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	skip 28 "replay in ReplayWeb.page needs chromium, node and npm (scripts/install-deps.sh)"
	finish
	exit
fi
export CHROMIUM

check "tlsweb starts (nginx, dnsmasq, test CA)" start_tlsweb web --pages 4
[ -n "${TLS_PORT:-}" ] || { finish; exit 1; }
D=$TLS_DOMAIN
P=$TLS_PORT
H=https://h2.$D:$P
# The site, a page that is not there (404), and a folder without its slash
# (301 to /img/, which nginx refuses: 403): the diagnostics series too.
printf '%s\n' "$H/" "$H/nosuch.html" "$H/img" >"$SCRATCH/seeds"
common=(--seeds "$SCRATCH/seeds" --rounds 4 --set fetch.allow_private=true
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set "tls.ca_file=$TLS_CA"
	--set politeness.delay_ms=20 --set partition.count=4 --set scope.mode=seeds-hosts)
check "crawl with requisites on 2 ranks exits 0" run_ranks 2 crawl --dir "$SCRATCH/c" \
	"${common[@]}" >"$SCRATCH/c.out" 2>&1
check "crawl with fetch.embeds=false on 2 ranks exits 0" run_ranks 2 crawl \
	--dir "$SCRATCH/n" "${common[@]}" --set fetch.embeds=false >"$SCRATCH/n.out" 2>&1

# What the archive holds, from the CDXJ: "URL STATUS MIME FILE".
cdxj() { cat "$1"/segments/*/cdxj/*.cdxj 2>/dev/null | cut -d' ' -f3- |
	jq -r '"\(.url) \(.status) \(.mime) \(.filename)"' | LC_ALL=C sort; }
cdxj "$SCRATCH/c" >"$SCRATCH/c.cdxj"
cdxj "$SCRATCH/n" >"$SCRATCH/n.cdxj"
awk '$2 == "200" && $3 == "text/html" && $4 !~ /-(robots|diagnostics)\.warc/ { print $1 }' \
	"$SCRATCH/c.cdxj" >"$SCRATCH/pages"
{
	cut -d' ' -f1 "$SCRATCH/c.cdxj" "$SCRATCH/n.cdxj" | LC_ALL=C sort -u
	echo "$H/never-crawled.html"
} >"$SCRATCH/urls"
echo "archived: $(wc -l <"$SCRATCH/c.cdxj") URLs, $(wc -l <"$SCRATCH/pages") pages;" \
	"without requisites: $(wc -l <"$SCRATCH/n.cdxj") URLs"

# mime-detected: HTML (gzip-coded by nginx) and images by their bytes.
sniffed() {
	cat "$SCRATCH"/c/segments/*/cdxj/*.cdxj | cut -d' ' -f3- |
		jq -r 'select(.status == "200") | "\(.mime) \(."mime-detected")"' | sort | uniq -c |
		tee "$SCRATCH/sniffed"
	! awk '($2 == "text/html" || $2 == "image/png") && $2 != $3 { bad = 1 } END { exit !bad }' \
		"$SCRATCH/sniffed" && grep -q ' image/png image/png$' "$SCRATCH/sniffed" &&
		grep -q ' text/html text/html$' "$SCRATCH/sniffed"
}
check "CDXJ mime-detected: HTML and PNG responses named so by their bytes" eval 'sniffed >"$SCRATCH/sn" 2>&1'
cat "$SCRATCH/sn"

# The replay sources.
check "mpicrawl wacz packs the crawl (its WARC files, CDXJ and pages)" \
	eval '"$MPICRAWL" wacz --dir "$SCRATCH/c" -o "$SCRATCH/crawl.wacz" --title "tlsweb" \
	>"$SCRATCH/wacz.out" 2>&1'
cat "$SCRATCH/wacz.out"
# The package as WACZ 1.1.1 says: every resource's size and sha256, the
# digest of datapackage.json, entries stored; its pages are the crawl's.
wacz_ok() {
	python3 - "$SCRATCH/crawl.wacz" "$SCRATCH/pages" <<'PY'
import hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
dp = json.loads(z.read("datapackage.json"))
bad = []
for r in dp["resources"]:
    data = z.read(r["path"])
    if "sha256:" + hashlib.sha256(data).hexdigest() != r["hash"] or len(data) != r["bytes"]:
        bad.append(r["path"])
    names.discard(r["path"])
dig = json.loads(z.read("datapackage-digest.json"))
if dig["hash"] != "sha256:" + hashlib.sha256(z.read("datapackage.json")).hexdigest():
    bad.append("datapackage-digest.json")
names -= {"datapackage.json", "datapackage-digest.json"}
stored = all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
lines = z.read("pages/pages.jsonl").decode().splitlines()
head, pages = json.loads(lines[0]), [json.loads(l) for l in lines[1:]]
want = set(l.strip() for l in open(sys.argv[2]) if l.strip())
got = set(p["url"] for p in pages)
print("wacz: %d resources, version %s, %d pages (crawl: %d), bad: %s, unlisted: %s, stored: %s"
      % (len(dp["resources"]), dp.get("wacz_version"), len(pages), len(want), bad,
         sorted(names), stored))
ok = (not bad and not names and stored and dp.get("wacz_version") == "1.1.1" and
      head.get("format") == "json-pages-1.0" and got == want and
      all(p.get("ts") and p.get("id") and "title" in p for p in pages))
sys.exit(0 if ok else 1)
PY
}
check "the WACZ: hashes and sizes right, entries stored, its pages list the crawl's pages" \
	eval 'wacz_ok >"$SCRATCH/wacz.check" 2>&1'
cat "$SCRATCH/wacz.check"
# Both crawls in one package: every WARC file of each (their names are
# crawl-unique), every CDXJ line of each naming a file the package holds,
# every capture of a URL crawled by both, and both pages lists.
check "mpicrawl wacz --dir --dir packs two crawls" eval '"$MPICRAWL" wacz --dir "$SCRATCH/c" \
	--dir "$SCRATCH/n" -o "$SCRATCH/both.wacz" >"$SCRATCH/both.out" 2>&1'
cat "$SCRATCH/both.out"
merged_ok() {
	python3 - "$SCRATCH/both.wacz" "$SCRATCH/c" "$SCRATCH/n" <<'PY'
import glob, json, os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
arch = set(n[len("archive/"):] for n in z.namelist() if n.startswith("archive/"))
warcs, lines, pages = set(), [], 0
for d in sys.argv[2:]:
    warcs |= set(os.path.basename(f) for f in glob.glob(d + "/segments/*/warc/*.warc.gz"))
    for f in glob.glob(d + "/segments/*/cdxj/*.cdxj"):
        for l in open(f):
            k, ts, j = l.rstrip("\n").split(" ", 2)
            r = json.loads(j)
            lines.append((k, ts, r["url"], os.path.basename(r["filename"]), r["offset"]))
    for f in glob.glob(d + "/segments/*/pages/*.jsonl"):
        pages += sum(1 for l in open(f) if '"format"' not in l)
got = []
for l in z.read("indexes/index.cdxj").decode().splitlines():
    k, ts, j = l.split(" ", 2)
    r = json.loads(j)
    got.append((k, ts, r["url"], r["filename"], r["offset"]))
both = {}
for t in got:
    both.setdefault(t[2], set()).add(t[3].split("-00001-")[0])
twice = sum(1 for u in both if len(both[u]) == 2)
npages = len(z.read("pages/pages.jsonl").decode().splitlines()) - 1
print("merged: %d WARC files (crawls: %d), %d CDXJ lines (crawls: %d), %d pages (crawls: %d), "
      "%d URLs captured by both, %d lines naming no file in the package"
      % (len(arch), len(warcs), len(got), len(lines), npages, pages, twice,
         sum(1 for t in got if t[3] not in arch)))
ok = arch == warcs and sorted(got) == sorted(lines) and npages == pages and twice > 0 and \
    all(t[3] in arch for t in got)
sys.exit(0 if ok else 1)
PY
}
check "the merged WACZ holds every WARC file, capture and page of both crawls" \
	eval 'merged_ok >"$SCRATCH/merged.check" 2>&1'
cat "$SCRATCH/merged.check"
# Crawls whose WARC files share names cannot share a package: refused, named.
mkdir -p "$SCRATCH/same"
cp -r "$SCRATCH/n/." "$SCRATCH/same/"
check "two crawls with one warc.prefix: wacz refuses, names the file, writes nothing" \
	eval '! "$MPICRAWL" wacz --dir "$SCRATCH/n" --dir "$SCRATCH/same" -o "$SCRATCH/same.wacz" \
	2>"$SCRATCH/same.err" && grep -q "two WARC files are named" "$SCRATCH/same.err" &&
	test ! -e "$SCRATCH/same.wacz"'
# A WARC file lost after indexing: its CDXJ lines would not replay.
cp -r "$SCRATCH/same" "$SCRATCH/lost"
rm "$(ls -S "$SCRATCH"/lost/segments/*/warc/*.warc.gz | head -1)"
check "a WARC file lost: wacz refuses, names it, writes nothing" \
	eval '! "$MPICRAWL" wacz --dir "$SCRATCH/lost" -o "$SCRATCH/lost.wacz" \
	2>"$SCRATCH/lost.err" && grep -q "which is not there" "$SCRATCH/lost.err" &&
	test ! -e "$SCRATCH/lost.wacz"'
cat "$SCRATCH"/c/segments/*/warc/*.warc.gz >"$SCRATCH/crawl.warc.gz"
cat "$SCRATCH"/n/segments/*/warc/*.warc.gz >"$SCRATCH/noembeds.warc.gz"

# The live server's answer for every URL: "URL STATUS SHA256 LOCATION".
while read -r u; do
	: >"$SCRATCH/body"
	curl -s --max-time 5 --compressed --cacert "$TLS_CA" -A "mpicrawl replay.sh" \
		--resolve "h2.$D:$P:127.0.0.1" --resolve "h1.$D:$P:127.0.0.2" \
		--resolve "v6.$D:$P:[::1]" -o "$SCRATCH/body" \
		-w '%{http_code} %{redirect_url}\n' "$u" </dev/null >"$SCRATCH/w" ||
		echo "000 " >"$SCRATCH/w"
	read -r st loc <"$SCRATCH/w"
	echo "$u $st $(sha256sum <"$SCRATCH/body" | cut -d' ' -f1) ${loc:--}"
done <"$SCRATCH/urls" >"$SCRATCH/live"

RWP=$(timeout -k 5 120 "$RDIR/setup.sh" 2>"$SCRATCH/setup.err")
check "tests/replay set up (npm ci, ReplayWeb.page $(basename "${RWP:-none}" | sed 's/^.replaywebpage-//'))" \
	test -n "$RWP" -a -f "$RWP/sw.js"
[ -n "$RWP" ] || cat "$SCRATCH/setup.err"
t0=$SECONDS
check "replay.mjs runs: 3 sources, $(wc -l <"$SCRATCH/pages") pages each, live pages, $(wc -l <"$SCRATCH/urls") URLs" \
	eval '(cd "$RDIR" && timeout -k 5 80 node replay.mjs --rwp "$RWP" --source "$SCRATCH/crawl.wacz" \
		--source "$SCRATCH/crawl.warc.gz" --source "$SCRATCH/noembeds.warc.gz" \
		--pages "$SCRATCH/pages" --urls "$SCRATCH/urls" --tmp "$SCRATCH/replay" --timeout 70 \
		--live "MAP h2.$D 127.0.0.1, MAP h1.$D 127.0.0.2, MAP v6.$D [::1], MAP plain.$D 127.0.0.1") \
		>"$SCRATCH/replay.json" 2>"$SCRATCH/replay.err"'
echo "replay.mjs: $((SECONDS - t0)) s"
grep -v '^replay: ' "$SCRATCH/replay.err" | head -n 10

# verdict KIND SOURCE: one of the checks below on replay.json, with its figures.
verdict() {
	python3 - "$1" "$2" "$SCRATCH/replay.json" "$SCRATCH/c.cdxj" "$SCRATCH/n.cdxj" \
		"$SCRATCH/live" "$H/never-crawled.html" "$SCRATCH/pages" <<'PY'
import json, sys
kind, source, rjson, c_cdxj, n_cdxj, live_file, control, pages_file = sys.argv[1:]
try:
    r = json.load(open(rjson))
except ValueError:
    print("  replay.mjs wrote no report"); sys.exit(1)
src = next((s for s in r.get("sources", []) if s["source"] == source), None)
if src is None:
    print("  no replay of %s" % source); sys.exit(1)
def table(path):
    t = {}
    for line in open(path):
        url, st, mime, fn = line.split()
        t[url] = {"status": int(st), "mime": mime, "file": fn}
    return t
arch = table(n_cdxj if source.startswith("noembeds") else c_cdxj)
full = table(c_cdxj)
live_bytes = {}
for line in open(live_file):
    url, st, sha, loc = line.split()
    live_bytes[url] = {"status": int(st), "sha256": sha, "location": None if loc == "-" else loc}
live = {p["url"]: p.get("facts") for p in r.get("live", [])}
dflt = r["defaults"]
STYLE = ("html_font", "body_font", "body_bg_color", "body_bg_image", "bg_loaded")
bad = []
pages = src["pages"]
if kind == "pages":
    for p in pages:
        f, lf = p.get("facts"), live.get(p["url"])
        if not f or f.get("status") != 200 or not lf or f["title"] != lf["title"]:
            bad.append("%s: %s" % (p["url"], p.get("error") or (f and (f.get("status"), f["title"]))))
    print("  %s: %d pages replayed with status 200 and their live titles, %s ms to the first"
          % (source, len(pages) - len(bad), src.get("load_ms")))
elif kind == "images":
    n = loaded = 0
    for p in pages:
        f, lf = p.get("facts") or {"images": []}, live.get(p["url"]) or {"images": []}
        n += len(f["images"]); loaded += sum(im["loaded"] for im in f["images"])
        if [im["src"] for im in f["images"]] != [im["src"] for im in lf["images"]]:
            bad.append("%s: images %s, live %s" % (p["url"], [im["src"] for im in f["images"]],
                                                   [im["src"] for im in lf["images"]]))
        if not lf["images"] or not all(im["loaded"] for im in lf["images"]):
            bad.append("%s: live images did not all load" % p["url"])
    if n == 0 or loaded != n:
        bad.append("%d of %d images loaded" % (loaded, n))
    print("  %s: %d of %d images loaded on %d pages (live: %d)"
          % (source, loaded, n, len(pages), sum(len(f["images"]) for f in live.values() if f)))
elif kind == "style":
    for p in pages:
        f, lf = p.get("facts"), live.get(p["url"])
        if not f or not lf:
            bad.append("%s: not replayed or not live" % p["url"]); continue
        for k in STYLE:
            if f[k] != lf[k]:
                bad.append("%s: %s %r, live %r" % (p["url"], k, f[k], lf[k]))
        for k in ("html_font", "body_font", "body_bg_color", "body_bg_image"):
            if f[k] == dflt[k]:
                bad.append("%s: %s %r is Chromium's default" % (p["url"], k, f[k]))
        if not f["bg_loaded"]:
            bad.append("%s: background image did not load" % p["url"])
    f = pages[0].get("facts") or {}
    print("  %s: html/body font %s, body background %s %s (loaded %s); Chromium's defaults: %s, %s"
          % (source, f.get("html_font"), f.get("body_bg_color"), f.get("body_bg_image"),
             f.get("bg_loaded"), dflt["html_font"], dflt["body_bg_color"]))
elif kind == "statuses":
    got = {u["url"]: u for u in src.get("urls", [])}
    by = {}
    for url, a in sorted(arch.items()):
        g = got.get(url, {})
        by.setdefault(a["status"], 0)
        by[a["status"]] += 1
        if g.get("status") != a["status"] or g.get("status_id") != a["status"]:
            bad.append("%s: replayed %s (id_ %s), CDXJ %s %s" % (url, g.get("status"),
                       g.get("status_id"), a["status"], g.get("error", "")))
    if src.get("urls_error"):
        bad.append(src["urls_error"])
    print("  %s: %d of %d archived URLs replay with their CDXJ status (%s)"
          % (source, len(arch) - len(bad), len(arch),
             ", ".join("%d x %d" % (n, s) for s, n in sorted(by.items()))))
elif kind == "bytes":
    got = {u["url"]: u for u in src.get("urls", [])}
    n = 0
    for url, a in sorted(arch.items()):
        g, l = got.get(url, {}), live_bytes[url]
        if 300 <= a["status"] < 400:
            if g.get("location") != l["location"] or not l["location"]:
                bad.append("%s: redirect to %s, live %s" % (url, g.get("location"), l["location"]))
        else:
            if g.get("sha256") != l["sha256"]:
                bad.append("%s: %s bytes, not the live ones" % (url, g.get("bytes")))
            if (g.get("content_type") or "").split(";")[0].strip() != a["mime"]:
                bad.append("%s: Content-Type %s, CDXJ %s" % (url, g.get("content_type"), a["mime"]))
        n += 1
    print("  %s: %d URLs: bodies (id_) are the live server's, redirects go where nginx sent them, "
          "types are the CDXJ's" % (source, n - len(bad)))
elif kind == "pagelist":
    a = src.get("api_pages") or {}
    want = set(l.strip() for l in open(pages_file) if l.strip())
    got = a.get("urls") or []
    if a.get("error") or set(got) != want or len(got) != len(want):
        bad.append("pages %s, crawl's %s %s" % (sorted(got), sorted(want), a.get("error", "")))
    print("  %s: ReplayWeb.page lists %d pages (%s), the crawl's %d"
          % (source, len(got), a.get("api"), len(want)))
elif kind == "control":
    g = next((u for u in src.get("urls", []) if u["url"] == control), {})
    if g.get("status") != 404 or g.get("sha256") == live_bytes[control]["sha256"]:
        bad.append("%s replayed %s" % (control, g))
    print("  %s: a URL not in the archive replays %s (%s), not nginx's 404"
          % (source, g.get("status"), g.get("content_type")))
elif kind == "missing":
    got = {u["url"]: u for u in src.get("urls", [])}
    req = [u for u in full if u not in arch]
    for u in req:
        if got.get(u, {}).get("status") != 404:
            bad.append("%s replayed %s" % (u, got.get(u, {}).get("status")))
    if not req:
        bad.append("no requisite missing from the crawl without requisites")
    print("  %s: %d requisites not archived, all replay 404" % (source, len(req) - len(bad)))
elif kind == "bare":
    n = loaded = 0
    for p in pages:
        f = p.get("facts")
        if not f or f.get("status") != 200:
            bad.append("%s: not replayed: %s" % (p["url"], p.get("error"))); continue
        n += len(f["images"]); loaded += sum(im["loaded"] for im in f["images"])
        for k in ("html_font", "body_font", "body_bg_color", "body_bg_image"):
            if f[k] != dflt[k]:
                bad.append("%s: %s %r, not Chromium's default" % (p["url"], k, f[k]))
        if f["bg_loaded"]:
            bad.append("%s: a background image loaded" % p["url"])
    if n == 0 or loaded != 0:
        bad.append("%d of %d images loaded" % (loaded, n))
    f = (pages[0].get("facts") or {}) if pages else {}
    print("  %s: %d pages, %d of %d images loaded, font %s, background %s"
          % (source, len(pages), loaded, n, f.get("html_font"), f.get("body_bg_color")))
for b in bad[:8]:
    print("  not ok: " + b)
sys.exit(1 if bad else 0)
PY
}
check "crawl.wacz: ReplayWeb.page's pages list is the crawl's pages" verdict pagelist crawl.wacz
for s in crawl.wacz crawl.warc.gz; do
	check "$s: every page replays (200, live title)" verdict pages $s
	check "$s: (a) every image of every page loads, the live page's images" verdict images $s
	check "$s: (b) the stylesheet applies: fonts and background as live, not defaults" verdict style $s
	check "$s: (c) every archived URL replays with its CDXJ status" verdict statuses $s
	check "$s: (c) the replayed bytes are the live server's" verdict bytes $s
	check "$s: a URL not in the archive replays ReplayWeb.page's 404" verdict control $s
done
check "noembeds.warc.gz: its pages, robots.txt and diagnostics replay with their status" \
	verdict statuses noembeds.warc.gz
check "noembeds.warc.gz: the requisites are not there (404)" verdict missing noembeds.warc.gz
check "noembeds.warc.gz: (d) no image loads, no stylesheet applies" verdict bare noembeds.warc.gz
n_err=$(jq '[.sources[].page_errors[]] | length' "$SCRATCH/replay.json" 2>/dev/null)
check "no script error in the replayed pages (${n_err:-?})" test "${n_err:-1}" -eq 0
# What ReplayWeb.page's service worker logs about the records it reads: a
# record not found at the CDXJ's offset, a wrong digest, a parse error.
jq -r '.worker_console[]?' "$SCRATCH/replay.json" >"$SCRATCH/sw.log" 2>/dev/null
check "ReplayWeb.page's service worker read every record ($(wc -l <"$SCRATCH/sw.log") log lines)" \
	eval '! grep -iE "no warc record|wrong digest|error|fail" "$SCRATCH/sw.log"'
echo "pages loaded again for ReplayWeb.page's first-load race:" \
	"$(jq '[.sources[].pages[].reloads // [] | length] | add' "$SCRATCH/replay.json" 2>/dev/null)"
echo "ReplayWeb.page $(jq -r .replaywebpage "$SCRATCH/replay.json" 2>/dev/null)," \
	"$(jq -r .browser "$SCRATCH/replay.json" 2>/dev/null), replay.mjs $(jq -r .ms "$SCRATCH/replay.json" 2>/dev/null) ms"
finish

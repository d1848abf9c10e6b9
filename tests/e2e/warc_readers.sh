#!/usr/bin/env bash
# Our WARC files read by a reader of the outside world, and the outside
# world's WARC files read by ours:
# - a crawl of a small simweb (gzip), then the same crawl with
#   warc.compression=zstd and a small warc.max_bytes (files rotate);
# - every record of every WARC file read by warcio.js (npm, pinned in
#   tests/warcio/package-lock.json): it parses, WARC-Block-Digest and
#   WARC-Payload-Digest (sha1 base32) match, warcio parses each HTTP head;
#   offsets, lengths, types and URIs equal what `mpicrawl warc` lists
#   (for .warc.zst, read through `zstd -dc`, types and URIs);
# - `mpicrawl warc --check` passes on every file; response records equal the
#   pages in the fetch outcomes;
# - the conformance samples (../shared/conformance/warc_samples/, or
#   $CONFORMANCE_DIR) read by `mpicrawl warc --check` agree with
#   records_derived.jsonl and expected_upstream.jsonl.
. "$(dirname "$0")/lib.sh"

WARCIO=$ROOT/tests/warcio
CONF=$CONFORMANCE_DIR

if [ ! -d "$WARCIO/node_modules/warcio" ]; then
	(cd "$WARCIO" && npm ci --no-audit --no-fund --loglevel=error) >"$SCRATCH/npm.log" 2>&1 ||
		{ cat "$SCRATCH/npm.log"; }
fi
check "warcio.js installed (npm ci in tests/warcio)" test -d "$WARCIO/node_modules/warcio"

# read_all CRAWLDIR: every WARC file through warcio and through our reader.
read_all() (
	set -o pipefail
	local dir=$1 f n=0 bad=0 ours theirs
	for f in "$dir"/segments/*/warc/*.warc.*; do
		n=$((n + 1))
		theirs=$(cd "$WARCIO" && node check.mjs "$f" 2>>"$SCRATCH/warcio.err") ||
			{ bad=$((bad + 1)); echo "warcio: $f"; continue; }
		ours=$("$MPICRAWL" warc --check "$f" 2>>"$SCRATCH/ours.err" | sed 's/\tok$//') ||
			{ bad=$((bad + 1)); echo "mpicrawl warc --check: $f"; continue; }
		echo "$ours" >>"$SCRATCH/records.$(basename "$dir")"
		case $f in
		*.zst)
			theirs=$(echo "$theirs" | cut -f3-)
			ours=$(echo "$ours" | cut -f3-) ;;
		esac
		[ "$theirs" = "$ours" ] || { bad=$((bad + 1)); echo "readers disagree on $f";
			diff <(echo "$theirs") <(echo "$ours") | head -n 5; }
	done
	echo "readers: $n files of $dir, $bad disagreeing or failing"
	head -n 5 "$SCRATCH/warcio.err" "$SCRATCH/ours.err" 2>/dev/null
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
)

# responses_match_outcomes CRAWLDIR: response records (robots.txt aside)
# equal the outcomes that name a WARC file.
responses_match_outcomes() {
	local dir=$1 resp outcomes
	resp=$(grep -P '\tresponse\t' "$SCRATCH/records.$(basename "$dir")" |
		grep -vc '/robots.txt$')
	outcomes=$(jq -s '[.[] | .fetch.counters | (.fetched + .redirect + .gone + .error)] | add' \
		"$dir"/segments/*/stats.json 2>/dev/null)
	echo "responses $resp, fetch outcomes with a response at most $outcomes"
	[ "$resp" -gt 0 ] && [ "$resp" -le "$outcomes" ]
}

start_web web --hosts 6 --pages 25 || { echo "not ok: web did not start"; finish; exit 1; }
"$SIMWEB" --seeds --hosts 6 --pages 25 --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
common=(--seeds "$SCRATCH/seeds" --set fetch.allow_private=true
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=5 --set partition.count=4)

check "gzip crawl (warc.split) exits 0" run_ranks 2 crawl --dir "$SCRATCH/gz" "${common[@]}" \
	--set warc.split=true >"$SCRATCH/gz.out" 2>&1
check "gzip: warcio and mpicrawl read every record alike" read_all "$SCRATCH/gz"
check "gzip: response records match the fetch outcomes" responses_match_outcomes "$SCRATCH/gz"
check "gzip: no .warc.zst written" test -z "$(ls "$SCRATCH"/gz/segments/*/warc/*.zst 2>/dev/null)"
check "gzip: a metadata record per page, concurrent to its response, and one of the run's provenance" bash -c '
	m=$(grep -P "\tmetadata\t" "$1" | grep -vc "urn:x-mpicrawl:provenance$")
	p=$(grep -Pc "\tmetadata\turn:x-mpicrawl:provenance$" "$1")
	r=$(grep -P "\tresponse\t" "$1" | grep -vc "/robots.txt$")
	echo "metadata $m, responses $r, provenance $p"; [ "$m" -gt 0 ] && [ "$m" -eq "$r" ] &&
	[ "$p" -eq 1 ]' _ "$SCRATCH/records.gz"

check "gzip, warc.split: redirects and 404s in the -diagnostics files, not with the pages" bash -c '
	n=$(zcat "$1"/segments/*/warc/*-diagnostics.warc.gz | grep -ac "^HTTP/1\.1 \(30[1278]\|404\) ")
	bad=$(for f in "$1"/segments/*/warc/*.warc.gz; do
		case $f in *-robots.*|*-diagnostics.*) ;; *) zcat "$f" ;; esac
	done | grep -ac "^HTTP/1\.1 \(30[1278]\|404\) ")
	echo "diagnostics $n, in page files $bad"; [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]' _ "$SCRATCH/gz"

# A month later everything is due again: simweb answers with the same bytes,
# so each page becomes a revisit (identical payload) of its first capture.
cp -r "$SCRATCH/gz" "$SCRATCH/again"
check "the crawl a month later exits 0" env MPICRAWL_CLOCK_OFFSET_S=2700000 \
	"$MPICRAWL" crawl --dir "$SCRATCH/again" --rounds 1 "${common[@]}" >"$SCRATCH/again.out" 2>&1
check "again: warcio and mpicrawl read every record alike" read_all "$SCRATCH/again"
revisits=$(grep -Pc '\trevisit\t' "$SCRATCH/records.again")
echo "revisit records: $revisits"
check "again: unchanged pages are revisit records" test "$revisits" -gt 0
check "again: a revisit names the capture it repeats" bash -c '
	zcat "$1"/segments/00*/warc/*.warc.gz | tr -d "\r" | awk "
		/^WARC-Type: revisit/ { r++ } /^WARC-Refers-To-Target-URI: / { t++ }
		/^WARC-Profile: http:\/\/netpreserve.org\/warc\/1.1\/revisit\/identical-payload-digest/ { p++ }
		END { exit !(r > 0 && t == r && p == r) }"' _ "$SCRATCH/again"

check "zstd crawl with rotation exits 0" run_ranks 1 crawl --dir "$SCRATCH/zst" "${common[@]}" \
	--set warc.compression=zstd --set warc.max_bytes=4096 >"$SCRATCH/zst.out" 2>&1
check "zstd: only .warc.zst written" test -z "$(ls "$SCRATCH"/zst/segments/*/warc/*.gz 2>/dev/null)"
check "zstd: files rotated at warc.max_bytes" \
	test "$(ls "$SCRATCH"/zst/segments/00002/warc/ | grep -c -- '-00001-[^-]*\(-robots\)\?\.warc\.zst$')" -gt 0
# Files rotate between a page's response and its metadata record: the
# outcome still names the response's file (check reads it there).
check "zstd: every outcome names its response's file" \
	bash -c '"$1" check --dir "$2" >"$2.check" 2>&1 || { tail -3 "$2.check"; exit 1; }' \
	_ "$MPICRAWL" "$SCRATCH/zst"
check "zstd: every frame carries content size and checksum" bash -c '
	for f in "$1"/segments/*/warc/*.warc.zst; do
		zstd -lv "$f" 2>/dev/null | grep -q "Check: XXH64" || { echo "no checksum: $f"; exit 1; }
		zstd -t -q "$f" || exit 1
	done' _ "$SCRATCH/zst"
check "zstd: warcio and mpicrawl read every record alike" read_all "$SCRATCH/zst"
check "zstd: the same responses as the gzip crawl" test \
	"$(grep -P '\tresponse\t' "$SCRATCH/records.zst" | cut -f4 | sort | md5sum)" = \
	"$(grep -P '\tresponse\t' "$SCRATCH/records.gz" | cut -f4 | sort | md5sum)"

# ---- the conformance samples, read by our reader ----
conformance() {
	python3 - "$MPICRAWL" "$CONF/warc_samples" <<'PY'
import json, subprocess, sys, collections
mp, base = sys.argv[1], sys.argv[2]
bad = 0
def run(f, check=True):
    p = subprocess.run([mp, "warc"] + (["--check"] if check else []) + [base + "/" + f],
                       capture_output=True, text=True)
    rows = [l.split("\t") for l in p.stdout.splitlines() if not l.startswith("records:")]
    return p.returncode, rows, p.stderr
def no(msg):
    global bad
    bad += 1
    print("not ok:", msg)
derived = collections.defaultdict(list)
for l in open(base + "/records_derived.jsonl"):
    d = json.loads(l)
    if "index" in d:
        derived[d["file"]].append(d)
n = 0
for f, recs in derived.items():
    recs.sort(key=lambda d: d["index"])
    rc, rows, err = run(f)
    if len(rows) != len(recs):
        no("%s: %d records, expected %d" % (f, len(rows), len(recs)))
        continue
    for d, r in zip(recs, rows):
        n += 1
        want = [str(d["offset"]), str(d["length"]), d["warc_type"], d["warc_target_uri"] or "-"]
        if r[:4] != want:
            no("%s record %d: %s, expected %s" % (f, d["index"], r[:4], want))
        checks = [d.get(k, "") for k in ("block_digest_check", "payload_digest_check",
                                         "payload_digest_vs_body_after_http_headers")]
        want_ok = not any(c.startswith("mismatch") for c in checks)
        if (r[4] == "ok") != want_ok:
            no("%s record %d: %s, expected digests %s" % (f, d["index"], r[4], checks))
for l in open(base + "/expected_upstream.jsonl"):
    d = json.loads(l)
    f, kind, exp = d["file"], d["kind"], d.get("expected", {})
    rc, rows, err = run(f, kind != "index")
    if kind == "index":
        for i, e in enumerate(d["records"]):
            r = rows[i] if i < len(rows) else ["?"] * 4
            if [int(r[0]), int(r[1]), r[2]] != [e["offset"], e["length"], e["warc-type"]] or \
               r[3] != e.get("warc-target-uri", "-"):
                no("%s index record %d: %s, expected %s" % (f, i, r, e))
        n += 1
    elif kind == "digest_check":
        fails = sum(1 for r in rows if r[4] != "ok")
        if (rc != 0) != (exp["exit_status"] != 0) or len(rows) != exp["records"] or \
           fails != exp.get("digest_failures", exp.get("payload_digest_failures", 0)):
            no("%s: rc %d, %d records, %d bad; expected %s" % (f, rc, len(rows), fails, exp))
        n += 1
    elif kind == "load_failure":
        types = [r[2] for r in rows]
        if rc == 0 or "not one gzip member" not in err or \
           types != exp["record_types_after_recompress"]:
            no("%s: rc %d, types %s: not flagged as one member" % (f, rc, types))
        n += 1
    elif kind == "cdx":
        by_off = {int(r[0]): r for r in rows}
        for e in d["records"]:
            r = by_off.get(int(e["V"]))
            if not r or int(r[1]) != int(e["S"]) or r[3] != e["a"]:
                no("%s: CDX line at %s: %s" % (f, e["V"], r))
        n += 1
print("conformance: %d checks, %d failed" % (n, bad))
sys.exit(1 if bad or n == 0 else 0)
PY
}
if [ -d "$CONF/warc_samples" ]; then
	check "conformance samples: mpicrawl warc agrees with the expectation files" conformance
else
	skip 1 "the WARC conformance samples are not at $CONF/warc_samples: set CONFORMANCE_DIR to their parent folder to run them"
fi
finish

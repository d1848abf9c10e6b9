#!/usr/bin/env bash
# Sitemaps against a real static server (python3's http.server, one per
# site, on 127.0.0.1 and 127.0.0.2), judged from the servers' request logs
# and the CrawlDb:
# - robots.txt names a sitemap index; the index's sitemaps (one of them
#   gzipped, one an RSS feed, one a URL list) are fetched, and every page
#   listed only there is fetched;
# - a sitemap listing another site's pages: refused unless that site's
#   robots.txt names the sitemap (sitemap:cross-host in the decision log);
# - a sitemap of 50,010 URLs: 50,000 used, 10 counted as dropped;
# - lastmod, priority and changefreq land in the CrawlDb; a later lastmod
#   makes a fetched page due again, and only that page is fetched again;
# - sitemaps are archived in their own WARC series (warc.split); a sitemap:
#   seed works;
# - the CrawlDb is the same on 1 and 2 ranks.
. "$(dirname "$0")/lib.sh"

A=$SCRATCH/a
B=$SCRATCH/b
mkdir -p "$A/maps" "$A/p" "$B/p"
PA=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PB=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2", 0)); print(s.getsockname()[1])')
SA=http://127.0.0.1:$PA
SB=http://127.0.0.2:$PB
PIDS=()
stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	PIDS=()
}
trap 'stop_servers; [ -n "${KEEP_SCRATCH:-}" ] || cleanup' EXIT

# Site A: a home page linking one page; everything else only in sitemaps.
printf 'User-agent: *\nDisallow: /private/\nDisallow: /maps/gen/\nSitemap: %s/maps/index.xml\n' \
	"$SA" >"$A/robots.txt"
printf '<html><body><a href="/p/linked.html">linked</a></body></html>\n' >"$A/index.html"
for f in linked only1 only2 only3 only4 only5 only6; do
	printf '<html><body><p>%s page of site a, with words of its own: %s %s.</p></body></html>\n' \
		"$f" "$f" "$(echo "$f" | rev)" >"$A/p/$f.html"
done
cat >"$A/maps/index.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>$SA/maps/a.xml</loc></sitemap>
  <sitemap><loc>$SA/maps/b.xml.gz</loc></sitemap>
  <sitemap><loc>$SA/maps/feed.rss</loc></sitemap>
  <sitemap><loc>$SA/maps/list.txt</loc></sitemap>
  <sitemap><loc>$SA/maps/big.xml</loc></sitemap>
</sitemapindex>
XML
write_a_xml() {   # write_a_xml LASTMOD
	cat >"$A/maps/a.xml" <<XML
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>$SA/p/only1.html</loc><lastmod>$1</lastmod><changefreq>daily</changefreq><priority>0.9</priority></url>
  <url><loc>$SA/p/linked.html</loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>$SB/p/b1.html</loc></url>
  <url><loc>$SA/private/no.html</loc></url>
</urlset>
XML
}
write_a_xml 2024-01-01
# (a.xml is in /maps/ and lists /p/ pages: outside its directory, they are
#  its to list because site A's robots.txt names the index that lists it)
printf '<urlset><url><loc>%s/p/only2.html</loc></url></urlset>' "$SA" | gzip >"$A/maps/b.xml.gz"
printf '<rss version="2.0"><channel><item><link>%s/p/only3.html</link><pubDate>Fri, 01 Mar 2024 00:00:00 GMT</pubDate></item></channel></rss>\n' "$SA" >"$A/maps/feed.rss"
printf '%s/p/only4.html\n%s/p/only5.html\n' "$SA" "$SA" >"$A/maps/list.txt"
python3 - "$A/maps/big.xml" "$SA" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("<urlset>\n")
    for i in range(50010):
        f.write("<url><loc>%s/maps/gen/%d.html</loc></url>\n" % (sys.argv[2], i))
    f.write("</urlset>\n")
PY
# Site B: names site A's a2 sitemap in its robots.txt (a cross-submission).
printf 'User-agent: *\nAllow: /\nSitemap: %s/maps/a2.xml\n' "$SA" >"$B/robots.txt"
printf '<html><body>b</body></html>\n' >"$B/index.html"
printf '<html><body>b1 page</body></html>\n' >"$B/p/b1.html"
printf '<html><body>b2 page</body></html>\n' >"$B/p/b2.html"
printf '<urlset><url><loc>%s/p/b2.html</loc></url><url><loc>%s/maps/only6.html</loc></url></urlset>\n' \
	"$SB" "$SA" >"$A/maps/a2.xml"
printf '<html><body>only6, beside the sitemap that lists it</body></html>\n' >"$A/maps/only6.html"

start_servers() {
	(cd "$A" && exec python3 -m http.server "$PA" --bind 127.0.0.1 >>"$SCRATCH/a.log" 2>&1) &
	PIDS+=($!)
	(cd "$B" && exec python3 -m http.server "$PB" --bind 127.0.0.2 >>"$SCRATCH/b.log" 2>&1) &
	PIDS+=($!)
	for _ in $(seq 50); do
		curl -s -o /dev/null "$SA/robots.txt" && curl -s -o /dev/null "$SB/robots.txt" && return 0
		sleep 0.1
	done
	return 1
}
: >"$SCRATCH/a.log"
: >"$SCRATCH/b.log"
check "two static servers start" start_servers
printf '%s/\n%s/\n' "$SA" "$SB" >"$SCRATCH/seeds"
opts=(--set fetch.allow_private=true --set politeness.delay_ms=0 --set scope.mode=seeds-hosts
      --set partition.count=8 --set dedup.enabled=false)
# requested LOG PATH: how often PATH was asked of a server (its log lines).
requested() { grep -c "\"GET $2 HTTP" "$1"; }

check "crawl on 1 rank exits 0" run_ranks 1 crawl --dir "$SCRATCH/c1" --seeds "$SCRATCH/seeds" \
	--set warc.split=true \
	"${opts[@]}" --rounds 8 >"$SCRATCH/c1.out" 2>&1
check "... the index, its four sitemaps and the big one fetched once each" test \
	"$(for m in index.xml a.xml b.xml.gz feed.rss list.txt big.xml; do
		requested "$SCRATCH/a.log" "/maps/$m"; done | sort -u)" = 1
for f in only1 only2 only3 only4 only5; do
	check "... $f.html, listed only in a sitemap, fetched" test \
		"$(requested "$SCRATCH/a.log" "/p/$f.html")" -eq 1
done
check "... a disallowed entry is not fetched" test "$(requested "$SCRATCH/a.log" /private/no.html)" -eq 0
check "... a cross-host entry site B's robots.txt does not vouch for: not fetched" test \
	"$(requested "$SCRATCH/b.log" /p/b1.html)" -eq 0
check "... one it does (site B names a2.xml): fetched" test \
	"$(requested "$SCRATCH/b.log" /p/b2.html)" -eq 1
check "... an entry of a2.xml in a2's own directory: fetched" test \
	"$(requested "$SCRATCH/a.log" /maps/only6.html)" -eq 1
"$MPICRAWL" readdb --dir "$SCRATCH/c1" --dump >"$SCRATCH/dump1"
gen=$(grep -c '/maps/gen/' "$SCRATCH/dump1")
check "big.xml: 50,000 of its 50,010 URLs used ($gen in the CrawlDb, none fetched: disallowed)" \
	test "$gen" -eq 50000 -a "$(grep -c '"GET /maps/gen/' "$SCRATCH/a.log")" -eq 0
check "the CrawlDb keeps lastmod, priority and changefreq" grep -q \
	"only1.html\".*\"lastmod\":1704067200,\"priority\":0.900,\"changefreq\":\"daily\"" "$SCRATCH/dump1"
check "sitemaps are of kind sitemap" test "$(grep -c '"kind":"sitemap"' "$SCRATCH/dump1")" -eq 7
dropped=$(python3 -c 'import json,sys; print(sum(json.load(open(f))["parse"]["counters"].get("sitemap_dropped", 0) for f in sys.argv[1:]))' "$SCRATCH"/c1/segments/*/stats.json)
check "stats.json counts the 10 dropped entries ($dropped)" test "$dropped" -eq 10
for s in "$SCRATCH"/c1/segments/*; do
	"$MPICRAWL" readdb --dir "$SCRATCH/c1" --decisions --segment "$((10#${s##*/}))"
done >"$SCRATCH/decisions"
check "the decision log names the refused cross-host entry" grep -q \
	"\"url\":\"$SB/p/b1.html\",\"reason\":\"sitemap:cross-host\",\"from\":\"$SA/maps/a.xml\"" \
	"$SCRATCH/decisions"
check "sitemaps are archived in their own WARC series" test \
	"$(zcat "$SCRATCH"/c1/segments/*/warc/*-sitemaps.warc.gz | tr -d '\r' |
	   grep -c '^WARC-Type: response$')" -eq 7

# The same crawl on 2 ranks: the same CrawlDb (times aside).
check "crawl on 2 ranks exits 0" run_ranks 2 crawl --dir "$SCRATCH/c2" --seeds "$SCRATCH/seeds" \
	"${opts[@]}" --rounds 8 >"$SCRATCH/c2.out" 2>&1
"$MPICRAWL" readdb --dir "$SCRATCH/c2" --dump >"$SCRATCH/dump2"
check "1 and 2 ranks: the same URLs, kinds and metadata" test \
	"$(sed -E 's/"(fetched_at|next_fetch|lastmod)":[0-9]+,?//g' "$SCRATCH/dump1" | LC_ALL=C sort | md5sum)" = \
	"$("$MPICRAWL" readdb --dir "$SCRATCH/c2" --dump | sed -E 's/"(fetched_at|next_fetch|lastmod)":[0-9]+,?//g' | LC_ALL=C sort | md5sum)"

# A later lastmod: the page is fetched again, and nothing else is (a crawl
# whose sitemaps are due again after 1 s).
check "a crawl re-reading its sitemaps after 1 s exits 0" run_ranks 1 crawl --dir "$SCRATCH/c4" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" --set sitemaps.refetch_interval_s=1 --rounds 5 \
	>"$SCRATCH/c4.out" 2>&1
sleep 2
write_a_xml "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
sleep 1
before=$(wc -l <"$SCRATCH/a.log")
check "a later crawl exits 0" run_ranks 1 crawl --dir "$SCRATCH/c4" "${opts[@]}" \
	--set sitemaps.refetch_interval_s=1 --rounds 2 >"$SCRATCH/c4b.out" 2>&1
tail -n +"$((before + 1))" "$SCRATCH/a.log" | grep -o '"GET [^ ]*' | grep -v '/maps/' | sort >"$SCRATCH/again"
check "the page whose lastmod moved is fetched again, and only it" test \
	"$(cat "$SCRATCH/again")" = "\"GET /p/only1.html"

# A sitemap seed.
printf 'sitemap:%s/maps/list.txt\n' "$SA" >"$SCRATCH/sm-seed"
check "a sitemap: seed is read for URLs" run_ranks 1 crawl --dir "$SCRATCH/c3" \
	--seeds "$SCRATCH/sm-seed" "${opts[@]}" --set sitemaps.enabled=false --rounds 3 \
	>"$SCRATCH/c3.out" 2>&1
check "... its pages are in the CrawlDb, fetched" test "$("$MPICRAWL" readdb --dir "$SCRATCH/c3" \
	--dump | grep -c '/p/only[45].html","status":"fetched"')" -eq 2
stop_servers
finish

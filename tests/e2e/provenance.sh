#!/usr/bin/env bash
# Provenance (src/crawldb/provenance.h): a crawl of nginx's test web
# (scripts/tlsweb.sh) on 2 ranks with warc.operator, warc.is_part_of,
# warc.description, warc.publisher and http.from set, then:
# - nginx's log: every request, robots.txt's too, carried the From header;
# - every WARC file's warcinfo names the operator, collection, description,
#   publisher, robots policy and agent, User-Agent, From, the software with
#   its git revision, and config-digest / seeds-digest equal to the sha256
#   of DIR/provenance/config-*.txt and of the seed file kept there;
# - one metadata record in the run holds the configuration and the seeds;
# - every WARC-Record-ID is a UUIDv7 whose time lies within the crawl;
# - a seed file of megabytes is copied whole, the record keeping 1 MiB of it;
# - a crawl run again from the provenance files alone (--config, --seeds)
#   writes the same digests and ends with the same CrawlDb;
# - a control character in warc.operator is refused (exit 2).
. "$(dirname "$0")/lib.sh"

check "tlsweb starts (nginx, dnsmasq, test CA)" start_tlsweb web --pages 3
D=tls.test
printf '%s\n' "https://h2.$D:$TLS_PORT/" "https://h1.$D:$TLS_PORT/" >"$SCRATCH/seeds"
FROM="crawl-ops@example.org"
opts=(--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT"
	--set politeness.delay_ms=20 --set partition.count=4 --set "tls.ca_file=$TLS_CA"
	--set "http.from=$FROM" --set "warc.operator=Jane Doe <jane@example.org>"
	--set "warc.is_part_of=Test collection 7" --set "warc.description=nginx test web, 2 hosts"
	--set "warc.publisher=Example Archive")
: >"$NGINX_LOG"
t0=$(date +%s%3N)
check "crawl on 2 ranks with provenance keys exits 0" run_ranks 2 crawl --dir "$SCRATCH/c" \
	--seeds "$SCRATCH/seeds" "${opts[@]}" >"$SCRATCH/c.out" 2>&1
t1=$(date +%s%3N)
tail -n 1 "$SCRATCH/c.out"

check "nginx's log: every request carried From: $FROM ($(wc -l <"$NGINX_LOG") requests)" \
	eval '[ -s "$NGINX_LOG" ] && awk -F"\t" -v f="$FROM" "\$19 != \"tlsweb.sh probe\" && \$18 != f { bad++ } END { exit bad > 0 }" "$NGINX_LOG"'

# The warcinfo fields of every WARC file, as "NAME: VALUE" lines (sorted, unique).
for f in "$SCRATCH"/c/segments/*/warc/*.warc.gz; do
	zcat "$f" | tr -d '\r' | awk '/^WARC-Type: warcinfo/ { w = 1 } w && /^$/ { n++ } w && n == 1 && /: / { print } n == 2 { exit }'
done | sort | uniq -c >"$SCRATCH/info"
nfiles=$(ls "$SCRATCH"/c/segments/*/warc/*.warc.gz | wc -l)
every() { grep -qE "^ +$nfiles $1\$" "$SCRATCH/info"; }
cfg_sha=$(sha256sum "$SCRATCH"/c/provenance/config-*.txt | cut -d' ' -f1)
seeds_sha=$(cat "$SCRATCH"/c/provenance/seeds-*.txt | sha256sum | cut -d' ' -f1)
check "provenance/ holds the run's configuration and its seed file, as given" \
	eval '[ "$(ls "$SCRATCH"/c/provenance/config-*.txt | wc -l)" -eq 1 ] &&
	cmp -s "$SCRATCH/seeds" "$SCRATCH"/c/provenance/seeds-*.txt'
check "every warcinfo ($nfiles files): operator, isPartOf, description, publisher" \
	eval 'every "operator: Jane Doe <jane@example.org>" && every "isPartOf: Test collection 7" &&
	every "description: nginx test web, 2 hosts" && every "publisher: Example Archive"'
check "every warcinfo: robots policy and agent, User-Agent, From, software with its revision" \
	eval 'every "robots: obey; agent=mpicrawl" && every "http-header-user-agent: mpicrawl/0.1" &&
	every "http-header-from: $FROM" && grep -qE "^ +$nfiles software: mpicrawl/0.1 \(git [0-9a-f]{7}" "$SCRATCH/info"'
check "every warcinfo: config-digest and seeds-digest are the provenance files' sha256" \
	eval 'every "config-digest: sha256:$cfg_sha" && every "seeds-digest: sha256:$seeds_sha"'
sed 's/^/  /' "$SCRATCH/info"

# Once in the run: a metadata record of the configuration and the seeds.
prov_record() {
	for f in "$SCRATCH"/c/segments/*/warc/*.warc.gz; do zcat "$f"; done | tr -d '\r' |
		awk '/^WARC-Target-URI: urn:x-mpicrawl:provenance$/ { n++; on = 1; next }
			on && /^WARC\/1\.1$/ { on = 0 } on && /^(config|seed): / { print }
			END { print "records: " n }'
}
prov_record >"$SCRATCH/prov"
check "one provenance metadata record: the run's configuration and seeds, line for line" \
	eval 'grep -qx "records: 1" "$SCRATCH/prov" &&
	[ "$(sed -n "s/^config: //p" "$SCRATCH/prov")" = "$(cat "$SCRATCH"/c/provenance/config-*.txt)" ] &&
	[ "$(sed -n "s/^seed: //p" "$SCRATCH/prov")" = "$(cat "$SCRATCH/seeds")" ]'

# WARC-Record-IDs: UUIDv7, their 48-bit millisecond times within the crawl.
uuid7() {
	for f in "$SCRATCH"/c/segments/*/warc/*.warc.gz; do zcat "$f"; done | tr -d '\r' |
		sed -n 's/^WARC-Record-ID: <urn:uuid:\(.*\)>$/\1/p' | python3 -c '
import sys
t0, t1 = int(sys.argv[1]), int(sys.argv[2])
ids = [l.strip() for l in sys.stdin if l.strip()]
bad = [u for u in ids if u[14] != "7" or u[19] not in "89ab" or
       not t0 - 1000 <= int(u.replace("-", "")[:12], 16) <= t1 + 1000]
print("record ids: %d, not UUIDv7 of the crawl'"'"'s time: %d %s" % (len(ids), len(bad), bad[:2]))
sys.exit(1 if bad or not ids else 0)' "$t0" "$t1"
}
check "every WARC-Record-ID a UUIDv7 of the crawl's time" eval 'uuid7 >"$SCRATCH/uuid" 2>&1'
cat "$SCRATCH/uuid"

# The crawl again, from its provenance alone.
check "crawl again from provenance/ alone (--config, --seeds) exits 0" run_ranks 2 crawl \
	--dir "$SCRATCH/again" --config "$(ls "$SCRATCH"/c/provenance/config-*.txt)" \
	--seeds "$(ls "$SCRATCH"/c/provenance/seeds-*.txt)" >"$SCRATCH/again.out" 2>&1
again_info() {
	zcat "$SCRATCH"/again/segments/00001/warc/*.warc.gz | tr -d '\r' | grep -aE '^(config|seeds)-digest: ' | sort -u
}
check "the same config-digest and seeds-digest" \
	test "$(again_info)" = "$(printf 'config-digest: sha256:%s\nseeds-digest: sha256:%s' "$cfg_sha" "$seeds_sha")"
db() { "$MPICRAWL" readdb --dir "$1" --dump | jq -r '"\(.url) \(.status) \(.http_status)"' | LC_ALL=C sort; }
check "the same CrawlDb ($(db "$SCRATCH/c" | wc -l) URLs)" eval '[ "$(db "$SCRATCH/c")" = "$(db "$SCRATCH/again")" ]'

# A seed file of 2.4 MiB (a seed and 40,000 comment lines, one of them
# 200 KB long): copied whole to provenance/, while the run's record keeps
# its first 1 MiB of lines and counts the rest.
{
	echo "https://h2.$D:$TLS_PORT/"
	head -c 200000 /dev/zero | tr '\0' x | sed 's/^/# long /'
	echo
	for i in $(seq 1 40000); do echo "# comment line $i of the big seed file, some 60 bytes"; done
} >"$SCRATCH/big-seeds"
check "crawl with a 2.4 MiB seed file exits 0" run_ranks 1 crawl --dir "$SCRATCH/big" \
	--seeds "$SCRATCH/big-seeds" --rounds 1 "${opts[@]}" --set fetch.embeds=false \
	--set fetch.follow_max=0 >"$SCRATCH/big.out" 2>&1
check "the seed file copied whole" cmp -s "$SCRATCH/big-seeds" "$SCRATCH"/big/provenance/seeds-*.txt
for f in "$SCRATCH"/big/segments/*/warc/*.warc.gz; do zcat "$f"; done | tr -d '\r' |
	awk '/^WARC-Target-URI: urn:x-mpicrawl:provenance$/ { on = 1; next }
		on && /^WARC\/1\.1$/ { on = 0 } on && /^seed/ { print }' >"$SCRATCH/big.prov"
check "the record: at most 1 MiB of seed lines (and a line's tail), the rest counted" \
	eval 'test "$(wc -c <"$SCRATCH/big.prov")" -lt 1200000 &&
	test "$(head -n 1 "$SCRATCH/big.prov")" = "seed: https://h2.$D:$TLS_PORT/" &&
	omitted=$(sed -n "s/^seed-lines-omitted: //p" "$SCRATCH/big.prov") &&
	test "$((omitted + $(grep -c "^seed: " "$SCRATCH/big.prov")))" -eq "$(wc -l <"$SCRATCH/big-seeds")"'

check "a control character in warc.operator: refused" expect 2 'warc.operator' \
	"$MPICRAWL" crawl --dir "$SCRATCH/bad" --seeds "$SCRATCH/seeds" --set "warc.operator=$(printf 'a\tb')"

finish

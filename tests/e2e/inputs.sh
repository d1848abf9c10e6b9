#!/usr/bin/env bash
# The job's inputs read by rank 0 alone, and names resolved alike on every
# node:
# - a crawl on 2 ranks whose seeds, config file and the files it names
#   (scope.rules, hosts.rules, tls.ca_file, warc.zstd_dictionary, named
#   relative to the config file) only rank 0 can read - the other rank runs
#   in a mount namespace of its own with an empty tmpfs over their folder, as
#   a node without the launching node's private /tmp - succeeds, applies the
#   rules on every rank, and gives the CrawlDb of a 1-process crawl;
# - a missing config or seed file on 2 ranks: exit 2, no hang, one line
#   naming the file and rank 0's node;
# - with dns.servers set, a node's /etc/hosts is not read: under a hosts
#   file that gives a simweb host a wrong address (bind-mounted in a mount
#   namespace), the crawl still fetches from the DNS server's answer.
. "$(dirname "$0")/lib.sh"

HOSTS=8
PAGES=10
NODE=$(hostname)
PRIVATE=$SCRATCH/private
mkdir -p "$PRIVATE"

# A rank other than 0 sees an empty PRIVATE, as another node would.
cat >"$SCRATCH/rank.sh" <<'SH'
#!/bin/sh
private=$1
shift
if [ "${OMPI_COMM_WORLD_RANK:-0}" != 0 ]; then
	exec unshare -m sh -c 'mount -t tmpfs tmpfs "$0" && exec "$@"' "$private" "$@"
fi
exec "$@"
SH
chmod +x "$SCRATCH/rank.sh"
if ! unshare -m sh -c 'mount -t tmpfs tmpfs "$0"' "$PRIVATE" 2>/dev/null; then
	skip 14 "no private mount namespace here (unshare -m needs root)"
	finish
	exit
fi

start_web web --hosts $HOSTS --pages $PAGES || { echo "not ok: web did not start"; finish; exit 1; }
D=$SIMWEB_DOMAIN
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$PRIVATE/seeds"
# h0002 out of scope, h0001 blocked by the operator.
printf -- '-http://(test,sim,h0002,\n' >"$PRIVATE/scope.rules"
printf 'h0001.%s block\n' "$D" >"$PRIVATE/hosts.rules"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$SCRATCH/ca.key" -out "$PRIVATE/ca.pem" \
	-subj /CN=inputs-test -days 1 >/dev/null 2>&1
mkdir -p "$SCRATCH/samples"
for i in $(seq 1 200); do
	seq "$i" 7 $((i * 40)) | sed 's/^/<p>page text /' >"$SCRATCH/samples/$i.html"
done
zstd -q --train "$SCRATCH"/samples/*.html --maxdict=8192 -o "$PRIVATE/pages.dict" 2>/dev/null
cat >"$PRIVATE/job.conf" <<CONF
fetch.allow_private = true
dns.servers = 127.0.0.1:$DNS_PORT
politeness.delay_ms = 20
partition.count = 8
scope.rules = scope.rules
hosts.rules = hosts.rules
tls.ca_file = ca.pem
warc.compression = zstd
warc.zstd_dictionary = pages.dict
CONF
check "the other rank cannot read the inputs" \
	env OMPI_COMM_WORLD_RANK=1 "$SCRATCH/rank.sh" "$PRIVATE" test ! -e "$PRIVATE/job.conf"

check "crawl on 2 ranks, inputs on rank 0's node only, exits 0" \
	timeout 600 mpirun --oversubscribe -n 2 "$SCRATCH/rank.sh" "$PRIVATE" "$MPICRAWL" crawl \
	--dir "$SCRATCH/c2" --seeds "$PRIVATE/seeds" --config "$PRIVATE/job.conf" \
	>"$SCRATCH/c2.out" 2>&1 || tail -n 5 "$SCRATCH/c2.out"
check "the same crawl as one process exits 0" run_ranks 1 crawl --dir "$SCRATCH/c1" \
	--seeds "$PRIVATE/seeds" --config "$PRIVATE/job.conf" >"$SCRATCH/c1.out" 2>&1 ||
	tail -n 5 "$SCRATCH/c1.out"
dump_db "$SCRATCH/c1" >"$SCRATCH/dump1"
dump_db "$SCRATCH/c2" >"$SCRATCH/dump2"
check "the CrawlDb of 2 ranks is the one of 1 process ($(wc -l <"$SCRATCH/dump1") URLs)" \
	cmp -s "$SCRATCH/dump1" "$SCRATCH/dump2"
check "scope.rules held on every rank: no URL of h0002" \
	test "$(grep -c "\"url\":\"http://h0002\.$D" "$SCRATCH/dump2")" -eq 0
check "hosts.rules held on every rank: h0001 blocked" \
	grep -q "h0001\.$D.*\"status\":\"blocked\".*\"reason\":\"operator\"" "$SCRATCH/dump2"
check "... and pages of the other hosts fetched" \
	test "$(grep -c '"status":"fetched"' "$SCRATCH/dump2")" -ge $(((HOSTS - 2) * 2))
# Each rank wrote its WARC files with the dictionary rank 0 read.
warcs_read() {
	local f n=0
	for f in "$1"/segments/*/warc/*.warc.zst; do
		"$MPICRAWL" warc "$f" >/dev/null || return 1
		n=$((n + 1))
	done
	echo "$n zstd WARC files read whole"
	[ "$n" -ge 2 ]
}
check "the WARC files (zstd, with the dictionary) read whole" warcs_read "$SCRATCH/c2"

# A missing file: exit 2 on every rank, one line naming it and the node.
check "a missing config file on 2 ranks: exit 2, file and node named" expect 2 \
	"cannot read config file '$PRIVATE/none.conf' on $NODE: No such file or directory" \
	timeout 120 mpirun --oversubscribe -n 2 "$SCRATCH/rank.sh" "$PRIVATE" "$MPICRAWL" \
	crawl --dir "$SCRATCH/c3" --seeds "$PRIVATE/seeds" --config "$PRIVATE/none.conf"
check "... said once" test "$(grep -c 'cannot read config file' "$SCRATCH/err")" -eq 1
check "a missing seed file on 2 ranks: exit 2, file and node named" expect 2 \
	"cannot read seed file '$PRIVATE/none' on $NODE: No such file or directory" \
	timeout 120 mpirun --oversubscribe -n 2 "$SCRATCH/rank.sh" "$PRIVATE" "$MPICRAWL" \
	crawl --dir "$SCRATCH/c3" --seeds "$PRIVATE/none" --config "$PRIVATE/job.conf"
check "... nothing made" test ! -e "$SCRATCH/c3"

# hosts.rules is read again by every round: removed while round 1 fetches,
# it is bad input to round 2 - one line, exit 2, on 2 ranks.
printf 'h0001.%s block\n' "$D" >"$SCRATCH/gone.rules"
run_ranks 2 crawl --dir "$SCRATCH/gone" --seeds "$PRIVATE/seeds" --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set "hosts.rules=$SCRATCH/gone.rules" \
	--set politeness.delay_ms=1000 >"$SCRATCH/out" 2>"$SCRATCH/err" &
gone=$!
for _ in $(seq 200); do
	compgen -G "$SCRATCH/gone/segments/00001/fetch/*.journal" >/dev/null && break
	sleep 0.05
done
rm "$SCRATCH/gone.rules"
wait "$gone"
rc=$?
check "hosts.rules removed during round 1: round 2 exits 2 (got $rc), the file named once" \
	test "$rc" -eq 2 -a "$(grep -c "cannot read host rules '$SCRATCH/gone.rules' on $NODE" \
	"$SCRATCH/err")" -eq 1

# dns.servers: the server's answer, whatever this node's /etc/hosts says.
{ cat /etc/hosts; printf '127.0.0.2 h0000.%s\n' "$D"; } >"$SCRATCH/hosts"
printf 'http://h0000.%s:%s/\n' "$D" "$SIMWEB_PORT" >"$SCRATCH/seed0"
check "a crawl under a hosts file that names h0000 wrongly exits 0" \
	timeout 300 unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$SCRATCH/hosts" \
	"$MPICRAWL" crawl --dir "$SCRATCH/dns" --seeds "$SCRATCH/seed0" --rounds 1 \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=20 >"$SCRATCH/dns.out" 2>&1
check "... and fetches h0000 from the DNS server's address" grep -q \
	"\"url\":\"http://h0000\.$D:$SIMWEB_PORT/\".*\"status\":\"fetched\"" \
	<(dump_db "$SCRATCH/dns")
finish

#!/usr/bin/env bash
# simweb --dupes: the near-duplicate families (tests/simweb/README.md).
# - the family pages are served (200) on their own hosts only, and the base
#   host's home page links the base;
# - --truth lists every family page with 200, sorted, F*7 lines more than
#   without --dupes and otherwise the same; --seeds unchanged;
# - --pairs: base/copy 1.0000, near variants (1-3) >= 0.85, far ones (4-6)
#   <= 0.6, and the values agree with the shingles of the pages as served,
#   read by an HTML parser.
# Runs bin/simweb alone (no DNS): requests go to 127.0.0.1 with a Host header.
. "$(dirname "$0")/lib.sh"

HOSTS=8
PAGES=20
F=5
WEB_PID=

stop_simweb() {
	if [ -n "$WEB_PID" ]; then
		kill "$WEB_PID" 2>/dev/null
		wait "$WEB_PID" 2>/dev/null
		WEB_PID=
	fi
}

on_exit() {
	stop_simweb
	[ -n "${KEEP_SCRATCH:-}" ] || cleanup
}
trap on_exit EXIT
trap 'exit 130' INT TERM

web=(--hosts "$HOSTS" --pages "$PAGES")
"$SIMWEB" "${web[@]}" --dupes "$F" --port 0 --port-file "$SCRATCH/port" \
	2>"$SCRATCH/simweb.err" &
WEB_PID=$!
for _ in $(seq 50); do
	[ -s "$SCRATCH/port" ] && break
	sleep 0.1
done
if ! [ -s "$SCRATCH/port" ]; then
	echo "simweb did not start: $(head -c 300 "$SCRATCH/simweb.err")"
	check "simweb starts" false
	finish
	exit
fi
PORT=$(cat "$SCRATCH/port")

"$SIMWEB" --truth "${web[@]}" --port "$PORT" >"$SCRATCH/truth0"
"$SIMWEB" --truth "${web[@]}" --dupes "$F" --port "$PORT" >"$SCRATCH/truth"
"$SIMWEB" --pairs "${web[@]}" --dupes "$F" --port "$PORT" >"$SCRATCH/pairs"

# fetch URL FILE: GETs URL from 127.0.0.1 with its host in a Host header;
# prints the status, the body goes to FILE.
fetch() {
	local rest=${1#http://}
	curl -s -o "$2" -w '%{http_code}' -H "Host: ${rest%%/*}" "http://127.0.0.1:$PORT/${rest#*/}"
}

# Every page of family 0, as --pairs names them.
cut -f1,2 "$SCRATCH/pairs" | tr '\t' '\n' | grep '/dup/0/' | LC_ALL=C sort -u >"$SCRATCH/fam0"
check "family 0 has 7 pages" test "$(wc -l <"$SCRATCH/fam0")" -eq 7
i=0
while read -r url; do
	check "$url served" test "$(fetch "$url" "$SCRATCH/page$i")" = 200
	check "$url is Article 0" grep -q '<title>Article 0</title>' "$SCRATCH/page$i"
	i=$((i + 1))
done <"$SCRATCH/fam0"
base=$(grep '/dup/0/0\.html$' "$SCRATCH/fam0")
base_host=${base#http://}
base_host=${base_host%%/*}
check "base host's home served" test "$(fetch "http://$base_host/" "$SCRATCH/home")" = 200
check "base host's home links the base" grep -q 'href="/dup/0/0.html"' "$SCRATCH/home"
other=$(printf 'h%04d.sim.test:%s' $(( (10#${base_host:1:4} + 1) % HOSTS )) "$PORT")
check "a family page on another host is 404" \
	test "$(fetch "http://$other/dup/0/0.html" "$SCRATCH/x")" = 404
check "a variant past 6 is 404" test "$(fetch "http://$base_host/dup/0/7.html" "$SCRATCH/x")" = 404

# Truth and seeds.
check "truth has F*7 more lines" \
	test $(($(wc -l <"$SCRATCH/truth") - $(wc -l <"$SCRATCH/truth0"))) -eq $((F * 7))
check "truth lists every family page with 200" \
	test "$(grep -cE '/dup/[0-9]+/[0-6]\.html	200$' "$SCRATCH/truth")" -eq $((F * 7))
check "truth lists family 0 as --pairs names it" \
	bash -c "cut -f1 '$SCRATCH/truth' | grep '/dup/0/' | cmp -s - '$SCRATCH/fam0'"
check "truth sorted" bash -c "LC_ALL=C sort -c '$SCRATCH/truth'"
check "truth otherwise unchanged" \
	bash -c "grep -v '/dup/' '$SCRATCH/truth' | cmp -s - '$SCRATCH/truth0'"
check "seeds unchanged" bash -c "cmp -s <('$SIMWEB' --seeds ${web[*]} --port $PORT) \
	<('$SIMWEB' --seeds ${web[*]} --dupes $F --port $PORT)"

# Pairs: 21 per family; the base against each variant.
check "21 pairs per family" test "$(wc -l <"$SCRATCH/pairs")" -eq $((F * 21))
judge() {
	awk -F'\t' '
	$1 ~ /\/0\.html$/ {
		v = $2; sub(/.*\//, "", v); sub(/\.html$/, "", v)
		if ((v == 1 && $3 != "1.0000") || (v >= 2 && v <= 3 && $3 < 0.85) ||
		    (v >= 4 && $3 > 0.6)) { print "variant " v ": " $0; bad++ }
		n++
	}
	END { exit !(n == '"$F"' * 6 && bad == 0) }' "$SCRATCH/pairs"
}
check "pairs: copy 1.0000, near >= 0.85, far <= 0.6" judge

# The Jaccard values of family 0 from the pages as served: text nodes of
# Python's HTML parser, the crawler's word rule, 5-word shingles.
recount() {
	python3 - "$SCRATCH" <<'PY'
import re, sys
from html.parser import HTMLParser
d = sys.argv[1]
urls = open(d + "/fam0").read().split()
def shingles(path):
    class P(HTMLParser):
        text = []
        def handle_data(self, data):
            self.text.append(data)
    p = P()
    p.text = []
    p.feed(open(path, encoding="utf-8").read())
    w = [m.lower() for m in re.findall(rb"[A-Za-z0-9\x80-\xff]+",
                                        "".join(p.text).encode())]
    return {tuple(w[i:i + 5]) for i in range(max(1, len(w) - 4))}
sh = {u: shingles("%s/page%d" % (d, i)) for i, u in enumerate(urls)}
bad = 0
for line in open(d + "/pairs"):
    a, b, j = line.rstrip("\n").split("\t")
    if a in sh and b in sh:
        got = "%.4f" % (len(sh[a] & sh[b]) / len(sh[a] | sh[b]))
        if got != j:
            print("pairs says", j, "served pages give", got, a, b)
            bad += 1
sys.exit(bad != 0)
PY
}
check "pairs match the served pages" recount

check "--dupes above the cap refused" \
	bash -c "'$SIMWEB' --truth --hosts 2 --pages 2 --dupes 9 --port 1 >/dev/null 2>&1; [ \$? -eq 2 ]"

stop_simweb
finish

#!/usr/bin/env bash
# Language identification by CLD2 (src/parse/lang.cc). simweb --multilingual
# writes host i's pages in language i mod 12 (eng, deu, fra, spa, ita, por,
# nld, swe, pol, fin, tur, ces: tests/simweb/langs.c); `simweb --languages`
# says which. A crawl on 2 ranks, then:
# - the WET's WARC-Identified-Content-Language names the host's language
#   first on at least 95 % of the pages, in every one of the 12 languages;
# - each page's metadata record (languages-cld2) names the same language;
# - the text output as JSON lines (text.format=jsonl) carries the languages
#   with their percentages.
. "$(dirname "$0")/lib.sh"

HOSTS=24
PAGES=10
check "simweb --multilingual starts" start_web web --hosts $HOSTS --pages $PAGES --multilingual
"$SIMWEB" --seeds --hosts $HOSTS --pages $PAGES --port "$SIMWEB_PORT" >"$SCRATCH/seeds"
"$SIMWEB" --languages --hosts $HOSTS --pages $PAGES --multilingual >"$SCRATCH/langs"
common=(--seeds "$SCRATCH/seeds" --set fetch.allow_private=true
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0
	--set partition.count=4 --rounds 8)
check "crawl on 2 ranks exits 0" run_ranks 2 crawl --dir "$SCRATCH/c" "${common[@]}" \
	>"$SCRATCH/c.out" 2>&1
tail -n 1 "$SCRATCH/c.out"

# "URL code" of each WET record / metadata record.
wet_langs() {
	zcat "$SCRATCH"/c/segments/*/text/*.warc.wet.gz | tr -d '\r' | awk '
		/^WARC\/1\.1$/ { if (u != "") print u, l; u = ""; l = "-" }
		/^WARC-Type: conversion/ { conv = 1 }
		/^WARC-Target-URI: / { u = $2 }
		/^WARC-Identified-Content-Language: / { split($2, a, ","); l = a[1] }
		END { if (u != "") print u, l }' | LC_ALL=C sort
}
meta_langs() {
	for f in "$SCRATCH"/c/segments/*/warc/*.warc.gz; do zcat "$f"; done | tr -d '\r' | awk '
		/^WARC\/1\.1$/ { t = "" }
		/^WARC-Type: / { t = $2 }
		/^WARC-Target-URI: / { u = $2 }
		/^languages-cld2: / && t == "metadata" {
			match($0, /"code-iso-639-3":"[a-z]+"/)
			print u, substr($0, RSTART + 18, RLENGTH - 19) }' | LC_ALL=C sort
}
wet_langs >"$SCRATCH/wet"
meta_langs >"$SCRATCH/meta"
score() {
	python3 - "$SCRATCH/langs" "$SCRATCH/wet" <<'PY'
import collections, sys
want = dict(l.split() for l in open(sys.argv[1]))
right, total = collections.Counter(), collections.Counter()
wrong = []
for line in open(sys.argv[2]):
    url, got = line.split()
    host = url.split("/")[2].split(":")[0]
    lang = want[host]
    total[lang] += 1
    if got == lang:
        right[lang] += 1
    elif len(wrong) < 5:
        wrong.append("%s: %s, want %s" % (url, got, lang))
n, r = sum(total.values()), sum(right.values())
print("pages %d, identified %d (%.1f %%); per language: %s" % (n, r, 100.0 * r / max(n, 1),
      " ".join("%s %d/%d" % (k, right[k], total[k]) for k in sorted(total))))
for w in wrong:
    print("  " + w)
sys.exit(0 if n >= 200 and r >= 0.95 * n and len(total) == 12 and
         all(right[k] > 0 for k in total) else 1)
PY
}
check "WET: the host's language first on >= 95 % of the pages, all 12 languages" \
	eval 'score >"$SCRATCH/score" 2>&1'
cat "$SCRATCH/score"
check "metadata records: the same languages as the WET ($(wc -l <"$SCRATCH/meta") records)" \
	eval '[ -s "$SCRATCH/meta" ] && [ -z "$(LC_ALL=C join -v 1 "$SCRATCH/meta" "$SCRATCH/wet")" ] &&
	[ -z "$(LC_ALL=C comm -23 "$SCRATCH/meta" "$SCRATCH/wet")" ]'

check "crawl with text.format=jsonl exits 0" run_ranks 1 crawl --dir "$SCRATCH/j" "${common[@]}" \
	--set text.format=jsonl >"$SCRATCH/j.out" 2>&1
check "JSON lines: languages with percentages, the first as language" \
	eval 'zcat "$SCRATCH"/j/segments/00001/text/*.jsonl.gz | head -n 20 |
	jq -e "select(.languages | length > 0) | (.languages[0].code == .language) and
	(.languages[0].percent > 0)" >/dev/null'

finish

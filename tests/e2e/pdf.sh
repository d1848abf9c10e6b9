#!/usr/bin/env bash
# Documents beyond HTML (issue 37; parse/pdf.h, parse/pdfworker.h,
# parse/doc.h): real PDFs of Debian's documentation packages (pdfTeX of
# several years, Apache FOP, Ghostscript; 1 to 397 pages), a PDF with link
# annotations made here, a PDF served as application/octet-stream, a plain
# text and hostile PDFs, linked from an HTML index page that nginx serves
# (scripts/tlsweb.sh --site), crawled on 2 ranks (each under /usr/bin/time),
# then:
# - each real PDF: a WET conversion record whose words agree with
#   pdftotext's for at least 98 % of them (as multisets), and its page
#   count, title (when it has one) and PDF version in its metadata record;
#   its CDXJ line says mime-detected application/pdf;
# - links.pdf: its two URI annotations (one absolute, one relative) in the
#   link graph with the words under them as anchor text, both targets
#   fetched; the WAT has its PDF-Metadata;
# - sniffed.bin (a PDF by its signature alone) and notes.txt (text/plain,
#   its language English) have WET records;
# - a PDF cut by fetch.max_body_bytes is recorded truncated;
# - hostile PDFs end with their reason in the CrawlDb: encrypted
#   pdf:encrypted, random bytes after a signature pdf:malformed, a
#   decompression bomb and an endless content stream pdf:timeout (or
#   pdf:memory), a string of 320 MiB pdf:memory; a corrupt xref, a deep
#   nesting and a PDF cut in half are read if poppler can, else have a
#   pdf:* reason; every other page is parsed, the crawl completes, the
#   peak RSS of each rank and of each of its workers stays under
#   RSS_BOUND_MB.
# What a PDF costs is measured apart (bench/pdfcost.c, docs/PERFORMANCE.md).
. "$(dirname "$0")/lib.sh"

PY=$ROOT/tests/e2e/pdf.py
RSS_BOUND_MB=512
# NAME=FILE: real PDFs of Debian's documentation (scripts/install-deps.sh)
REAL=(
	libtasn1=/usr/share/doc/libtasn1-doc/libtasn1.pdf            # pdfTeX 1.40.24
	mimeinfo=/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf  # pdfTeX 1.40.22
	sqlite=/usr/share/doc/sqlite3/copyright-release.pdf          # Ghostscript 6.51
	crc=/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz             # MiKTeX pdfTeX 1.40.10
	nettle=/usr/share/doc/nettle-dev/nettle.pdf.gz               # pdfTeX 1.40.21
	bzip2=/usr/share/doc/bzip2/manual.pdf.gz                     # pdfTeX 1.40.14
	valgrind=/usr/share/doc/valgrind/valgrind_manual.pdf.gz      # Apache FOP 2.6
)
CUT=/usr/share/doc/zsh-common/zsh.pdf    # 1.9 MB: cut by fetch.max_body_bytes
missing=()
for r in "${REAL[@]}" "x=$CUT"; do
	[ -f "${r#*=}" ] || missing+=("${r#*=}")
done
check "Debian's PDFs, pdftotext and qpdf are installed (scripts/install-deps.sh)${missing[*]:+: missing ${missing[*]}}" \
	eval '[ ${#missing[@]} -eq 0 ] && command -v pdftotext >/dev/null && command -v qpdf >/dev/null'
if [ ${#missing[@]} -gt 0 ] || ! command -v qpdf >/dev/null; then
	finish
	exit
fi

SITE=$SCRATCH/site
mkdir -p "$SITE/docs" "$SCRATCH/ref"
check "tlsweb serves the site" start_tlsweb web --pages 1 --site "pdf=$SITE"
BASE=https://pdf.$TLS_DOMAIN:$TLS_PORT

# The site: real PDFs, the made ones, a text, the targets of links.pdf.
for r in "${REAL[@]}"; do
	name=${r%%=*} f=${r#*=}
	case $f in
	*.gz) zcat "$f" >"$SITE/$name.pdf" ;;
	*) cp "$f" "$SITE/$name.pdf" ;;
	esac
done
cp "$CUT" "$SITE/zsh.pdf"
python3 "$PY" make "$SITE" "$BASE" "$SITE/nettle.pdf"
qpdf --encrypt user-pw owner-pw 256 -- "$SITE/links.pdf" "$SITE/hostile/encrypted.pdf"
printf 'Target one, reached from a link annotation of links.pdf.\n' >"$SITE/target1.html"
printf '<title>Target two</title><p>Reached from a relative URI of links.pdf.</p>\n' \
	>"$SITE/docs/target2.html"
cat >"$SITE/notes.txt" <<'EOF'
These are plain notes about the crawl of documents beyond HTML pages.
A plain text has no markup: its lines are its text, and its language is
found by the same detector that reads the pages, which should say English.
EOF
{
	echo '<!doctype html><title>Documents</title><h1>Documents</h1><ul>'
	for f in "$SITE"/*.pdf "$SITE"/hostile/*.pdf "$SITE/sniffed.bin" "$SITE/notes.txt"; do
		rel=${f#"$SITE"/}
		echo "<li><a href=\"$rel\">$rel</a>"
	done
	echo '</ul>'
} >"$SITE/index.html"
echo "$BASE/" >"$SCRATCH/seeds"

T0=$SECONDS
# shellcheck disable=SC2016
check "crawl on 2 ranks completes" eval 'timeout 600 mpirun --oversubscribe -n 2 bash -c \
	'"'"'exec /usr/bin/time -f "%M %U %S" -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"'"'"' \
	"$SCRATCH/c" "$MPICRAWL" crawl --dir "$SCRATCH/c" --seeds "$SCRATCH/seeds" --rounds 4 \
	--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
	--set politeness.delay_ms=0 --set partition.count=4 --set "tls.ca_file=$TLS_CA" \
	--set index.wat=true --set fetch.max_body_bytes=1600000 --set parse.pdf_timeout_s=3 \
	>"$SCRATCH/c.out" 2>&1 && grep -q "the crawl is complete" "$SCRATCH/c.out"'
echo "crawled in $((SECONDS - T0)) s"
tail -n 3 "$SCRATCH/c.out" | cut -c1-200
"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump >"$SCRATCH/db" 2>/dev/null
python3 "$PY" wet "$SCRATCH"/c/segments/*/text/*.warc.wet.gz >"$SCRATCH/wet"
zstdcat "$SCRATCH"/c/segments/*/links/*.tsv.zst >"$SCRATCH/links" 2>/dev/null
for f in "$SCRATCH"/c/segments/*/warc/*.warc.gz; do zcat "$f"; done | tr -d '\r' >"$SCRATCH/warcs"
cat "$SCRATCH"/c/segments/*/cdxj/*.cdxj >"$SCRATCH/cdxj"

# The metadata record's NAME: VALUE lines of URL.
meta_of() {
	awk -v u="WARC-Target-URI: $1" '/^WARC\/1\.1$/ { t = 0; h = 1; m = 0 }
		h && /^WARC-Type: metadata$/ { t = 1 } h && $0 == u { m = 1 }
		h && /^$/ { h = 0; on = t && m; next } on && /^WARC\/1\.1$/ { on = 0 }
		on && /^pdf-/ { print }' "$SCRATCH/warcs"
}
text_of() {
	jq -r --arg u "$1" 'select(.url == $u) | .text' "$SCRATCH/wet"
}
status_of() {
	jq -r --arg u "$1" 'select(.url == $u) | "\(.status) \(.reason // "")"' "$SCRATCH/db"
}

# Each real PDF against pdftotext and pdfinfo.
for r in "${REAL[@]}"; do
	name=${r%%=*} u=$BASE/$name.pdf
	pdftotext -enc UTF-8 "$SITE/$name.pdf" "$SCRATCH/ref/$name.txt"
	text_of "$u" >"$SCRATCH/ref/$name.wet"
	agree=$(python3 "$PY" words "$SCRATCH/ref/$name.txt" "$SCRATCH/ref/$name.wet")
	pages=$(pdfinfo "$SITE/$name.pdf" | sed -n 's/^Pages: *//p')
	title=$(pdfinfo "$SITE/$name.pdf" | sed -n 's/^Title: *//p')
	meta_of "$u" >"$SCRATCH/ref/$name.meta"
	check "$name.pdf: WET words agree with pdftotext's: $agree (share, both, pdftotext's)" \
		eval '[ -s "$SCRATCH/ref/$name.wet" ] && awk "{ exit !(\$1 >= 0.98) }" <<<"$agree"'
	check "$name.pdf: metadata record says $pages pages${title:+, title '$title'}" \
		eval 'grep -qx "pdf-pages: $pages" "$SCRATCH/ref/$name.meta" &&
		{ [ -z "$title" ] || grep -qxF "pdf-title: $title" "$SCRATCH/ref/$name.meta"; } &&
		grep -q "^pdf-version: 1\.[0-9]" "$SCRATCH/ref/$name.meta"'
	check "$name.pdf: CDXJ mime-detected application/pdf, a language in its WET record" \
		eval 'grep -F "{\"url\":\"$u\"" "$SCRATCH/cdxj" | grep -q "\"mime-detected\":\"application/pdf\"" &&
		[ -n "$(jq -r --arg u "$u" "select(.url == \$u) | .language" "$SCRATCH/wet")" ]'
done

# links.pdf: its URIs in the link graph, their targets fetched.
for t in "$BASE/target1.html|Target one, absolute" "$BASE/docs/target2.html|Target two, relative"; do
	a=${t#*|} t=${t%|*}
	check "links.pdf -> $t in the link graph ('$a'), fetched ($(status_of "$t"))" \
		eval 'grep -qxF "$BASE/links.pdf	$t	$a" "$SCRATCH/links" &&
		[ "$(status_of "$t")" = "fetched " ]'
done
# ... in the round that read links.pdf: the host's queue had ended before
# its answer came (the PDF read apart, fetch/docs.h), and takes turns again.
seg_of() {
	local d
	for d in "$SCRATCH"/c/segments/*/; do
		if zcat "$d"warc/*.warc.gz 2>/dev/null | tr -d '\r' | grep -qxF "WARC-Target-URI: $1"; then
			basename "$d"
			return
		fi
	done
}
check "links.pdf's targets fetched in its round ($(seg_of "$BASE/links.pdf"): $(seg_of "$BASE/target1.html") $(seg_of "$BASE/docs/target2.html"))" \
	eval '[ -n "$(seg_of "$BASE/links.pdf")" ] &&
	[ "$(seg_of "$BASE/target1.html")" = "$(seg_of "$BASE/links.pdf")" ] &&
	[ "$(seg_of "$BASE/docs/target2.html")" = "$(seg_of "$BASE/links.pdf")" ]'
check "links.pdf: title in its metadata and its WET record" \
	eval 'meta_of "$BASE/links.pdf" | grep -qx "pdf-title: Links of the test" &&
	text_of "$BASE/links.pdf" | head -n 1 | grep -qx "Links of the test"'
check "links.pdf: the WAT's PDF-Metadata" \
	eval 'zcat "$SCRATCH"/c/segments/*/wat/*.wat.gz | grep -a "\"WARC-Target-URI\":\"$BASE/links.pdf\"" |
	grep -q "\"PDF-Metadata\":{\"Title\":\"Links of the test\""'
check "sniffed.bin (application/octet-stream, a PDF by its signature): WET text" \
	eval 'text_of "$BASE/sniffed.bin" | grep -q "recognised by its signature"'
check "notes.txt (text/plain): WET text, language eng" \
	eval '[ "$(jq -r --arg u "$BASE/notes.txt" "select(.url == \$u) | .language" "$SCRATCH/wet")" = eng ] &&
	text_of "$BASE/notes.txt" | grep -q "found by the same detector"'
check "zsh.pdf (cut by fetch.max_body_bytes): truncated ($(status_of "$BASE/zsh.pdf"))" \
	eval 'status_of "$BASE/zsh.pdf" | grep -q "^truncated"'

# Hostile PDFs: each with its reason, or read.
declare -A want=([encrypted]='pdf:encrypted' [garbage]='pdf:malformed'
	[bomb]='pdf:(timeout|memory)' [endless]='pdf:(timeout|memory)' [memory]='pdf:memory'
	[badxref]='(|pdf:.*)' [nested]='(|pdf:.*)' [truncated]='(|pdf:.*)')
# badxref.pdf is links.pdf but for its xref: read, it is a near-duplicate.
for h in "${!want[@]}"; do
	s=$(status_of "$BASE/hostile/$h.pdf")
	check "hostile/$h.pdf: fetched (or a duplicate), reason ${want[$h]} ($s)" \
		eval '[[ "$s" =~ ^(fetched|duplicate)\ ${want[$h]}$ ]]'
done
check "the metadata record of encrypted.pdf says pdf-error and pdf-encrypted" \
	eval 'meta_of "$BASE/hostile/encrypted.pdf" | grep -qx "pdf-error: pdf:encrypted" &&
	meta_of "$BASE/hostile/encrypted.pdf" | grep -qx "pdf-encrypted: true"'
# (links.pdf or hostile/badxref.pdf, its copy, is the duplicate: whichever
# came second)
nparsed=$(jq -r 'select((.status == "fetched" or .status == "duplicate") and
	(.reason // "") == "") | .url' "$SCRATCH/db" |
	grep -cv /hostile/)
nwet=$(jq -r '.url' "$SCRATCH/wet" | grep -cv /hostile/)
check "every other page has its text: $nwet WET records of $nparsed fetched pages" \
	test "$nwet" -eq "$nparsed"
# The fetch loop does not wait for the worker (fetch/docs.h): the site's
# PDFs, linked from one page, are all asked within a second by nginx's log,
# though the hostile ones take the worker seconds each (the loop waited for
# each PDF before: 3 s and more between two of them).
span=$(awk -F'\t' '$14 ~ /\.pdf$/ { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
	END { printf "%.3f %d", hi - lo, n }' "$NGINX_LOG")
check "the PDFs were asked without waiting for the worker: ${span% *} s for ${span#* } of them" \
	eval '[ "${span#* }" -ge 15 ] && awk -v s="${span% *}" "BEGIN { exit !(s < 1.0) }"'
for r in 0 1; do
	read -r kb _ <"$SCRATCH/c.rss.$r" 2>/dev/null || kb=0
	# /usr/bin/time's figure is the largest of the rank and its workers
	# (wait4 counts a process's children's too): each stays under it
	check "rank $r and its PDF workers: peak RSS $((kb / 1024)) MiB, under $RSS_BOUND_MB MiB" \
		test "$((kb / 1024))" -lt "$RSS_BOUND_MB"
done
grep -oE '(pdfs|pdf_failed|texts)=[0-9]+' "$SCRATCH/c.out" | sort | uniq -c | head -n 6

# One PDF again, with the keys that keep PDFs from being read: over
# parse.pdf_max_bytes it is fetched with pdf:too-large; with parse.pdf off
# it is archived, not read - no text, and no parse failure either.
echo "$BASE/sqlite.pdf" >"$SCRATCH/seeds1"
for k in small off; do
	case $k in
	small) key=parse.pdf_max_bytes=1024 ;;
	off) key=parse.pdf=false ;;
	esac
	timeout 120 "$MPICRAWL" crawl --dir "$SCRATCH/$k" --seeds "$SCRATCH/seeds1" --rounds 1 \
		--set fetch.allow_private=true --set "dns.servers=127.0.0.1:$DNS_PORT" \
		--set "tls.ca_file=$TLS_CA" --set crawl.max_depth=0 --set "$key" \
		>"$SCRATCH/$k.out" 2>&1
	"$MPICRAWL" readdb --dir "$SCRATCH/$k" --dump >"$SCRATCH/$k.db" 2>/dev/null
done
s_small=$(jq -r '"\(.status) \(.reason // "")"' "$SCRATCH/small.db")
s_off=$(jq -r '"\(.status) \(.reason // "")"' "$SCRATCH/off.db")
check "over parse.pdf_max_bytes: fetched, pdf:too-large ($s_small)" \
	test "$s_small" = "fetched pdf:too-large"
check "parse.pdf=false: fetched, no reason ($s_off), no WET text, no parse failure counted" \
	eval '[ "$s_off" = "fetched " ] &&
	[ "$(python3 "$PY" wet "$SCRATCH"/off/segments/*/text/*.warc.wet.gz | grep -c .)" -eq 0 ] &&
	[ "$(jq -r ".counters.parse_failed // .parse_failed // 0" "$SCRATCH"/off/segments/00001/_SUCCESS.index)" = 0 ]'

finish

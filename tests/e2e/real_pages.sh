#!/usr/bin/env bash
# Link extraction and coverage against real HTML that others wrote: Debian's
# HTML documentation (Sphinx, DocBook, AsciiDoc, texi2any, the SQLite and
# vim generators, gtk-doc; UTF-8 and ISO-8859-1 pages) served as it is
# installed by Debian's nginx (scripts/tlsweb.sh --site), one HTTPS host per
# package. A crawl of all of it on 2 ranks, then (docs/REAL_PAGES.md):
# - the link graph against an independent extractor (tests/e2e/real_pages.py:
#   Python's html.parser on the served files, resolved and canonicalised by
#   `mpicrawl url --stdin`): agreement |both| / |either| of the (source,
#   target) pairs at least 99.5 %, every difference listed by its class;
# - the WET's text lines against html.parser's by the same layout rules:
#   at least 99.5 % of its lines whole, foreign words under 0.5 %;
# - coverage against wget2 (-r, robots.txt obeyed, no page requisites) on
#   the same server: every HTML page wget2 fetched, mpicrawl fetched too;
# - the WAT files read by warcio.js, each page's links equal to the link
#   graph's.
# The packages come from scripts/install-deps.sh.
. "$(dirname "$0")/lib.sh"

# NAME=ROOT: the host NAME.tls.test serves the directory ROOT.
SITES=(
	python=/usr/share/doc/python3.11/html       # python3-doc: Sphinx
	postgresql=/usr/share/doc/postgresql-doc-15/html   # DocBook XSL
	git=/usr/share/doc/git-doc                  # AsciiDoc
	sqlite=/usr/share/doc/sqlite3               # sqlite3-doc: its own Tcl generator
	zsh=/usr/share/doc/zsh-common/html          # zsh-doc: texi2any
	debref=/usr/share/debian-reference          # debian-reference-en: DocBook
	vim=/usr/share/doc/vim/html                 # vim-doc: ISO-8859-1, HTML 3.2 style
	ncurses=/usr/share/doc/ncurses-doc/html     # ncurses-doc: man2html, hand-written
	libxslt=/usr/share/doc/libxslt1-dev/html    # libxslt1-dev: ISO-8859-1, old gtk-doc
)
PY=$ROOT/tests/e2e/real_pages.py
T0=$SECONDS

missing=()
site_args=()
for s in "${SITES[@]}"; do
	[ -f "${s#*=}/index.html" ] || missing+=("${s#*=}")
	site_args+=(--site "$s")
done
check "Debian's documentation is installed (scripts/install-deps.sh)${missing[*]:+: missing ${missing[*]}}" \
	test ${#missing[@]} -eq 0
if [ ${#missing[@]} -gt 0 ]; then
	finish
	exit
fi

check "tlsweb serves ${#SITES[@]} sites" start_tlsweb web --pages 1 "${site_args[@]}"
for s in "${SITES[@]}"; do
	printf '%s\t%s\thttps://%s.%s:%s\n' "${s%%=*}" "${s#*=}" "${s%%=*}" "$TLS_DOMAIN" "$TLS_PORT"
done >"$SCRATCH/sites"
cut -f3 "$SCRATCH/sites" | sed 's|$|/|' >"$SCRATCH/seeds"
: >"$NGINX_LOG"

# HTTP/2 by ALPN, the default (REAL_PAGES_HTTP=1.1 for HTTP/1.1): with
# libcurl 7.88.1's 16 KiB receive buffer one of these responses (Python's
# library/ftplib.html) stalled until its low-speed timer ended it as a
# timeout; the fetcher's 64 KiB buffer avoids it (docs/REAL_PAGES.md).
check "crawl of the real pages on 2 ranks completes" eval 'run_ranks 2 crawl --dir "$SCRATCH/c" \
	--seeds "$SCRATCH/seeds" --rounds 12 --set fetch.allow_private=true \
	--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
	--set partition.count=8 --set "tls.ca_file=$TLS_CA" --set index.wat=true \
	--set "http.version=${REAL_PAGES_HTTP:-auto}" >"$SCRATCH/c.out" 2>&1 &&
	grep -q "the crawl is complete" "$SCRATCH/c.out"'
grep -E ' (fetch|update) I segment' "$SCRATCH/c.out" | sed 's/^[^ ]* r0000 /  /' | cut -c1-200
echo "crawled by $((SECONDS - T0)) s"
"$MPICRAWL" readdb --dir "$SCRATCH/c" --dump >"$SCRATCH/db" 2>/dev/null
bad=$(jq -r 'select(.status == "error" or .status == "timeout") | "\(.url) \(.reason)"' "$SCRATCH/db")
check "no page failed or timed out${bad:+: $(echo "$bad" | head -n 3 | tr '\n' ' ')}" test -z "$bad"
zstdcat "$SCRATCH"/c/segments/*/links/*.tsv.zst >"$SCRATCH/links" 2>/dev/null

# a. The links of every page, against the independent extractor.
check "links: agreement with html.parser >= 99.5 % of (source, target) pairs" \
	eval 'python3 "$PY" links "$MPICRAWL" "$SCRATCH/db" "$SCRATCH/links" "$SCRATCH/sites" \
	"$SCRATCH" >"$SCRATCH/links.out" 2>&1'
cat "$SCRATCH/links.out"
echo "links compared by $((SECONDS - T0)) s"

# d. The WAT's links of every page (as written, resolved here) against the
# link graph: the same reading of the page, so equal.
check "WAT: every page's links equal the link graph's" eval '(cd "$ROOT/tests/warcio" &&
	node check.mjs --wat "$SCRATCH"/c/segments/*/wat/*.wat.gz) >"$SCRATCH/wat.lines" &&
	python3 "$ROOT/tests/e2e/wat_links.py" "$MPICRAWL" "$SCRATCH/wat.lines" "$SCRATCH/links" \
	>"$SCRATCH/wat.out" 2>&1'
cat "$SCRATCH/wat.out"

# c. The WET's lines of every page, against html.parser's by the same
# layout rules (docs/OUTPUTS.md).
check "text: the WET's lines against html.parser's on the same files" \
	eval 'python3 "$PY" text "$SCRATCH/sites" "$SCRATCH" "$SCRATCH"/c/segments/*/text/*.warc.wet.gz \
	>"$SCRATCH/text.out" 2>&1'
cat "$SCRATCH/text.out"

# b. wget2 on the same server. It cannot be given a DNS server: it reads
# the names from tlsweb's hosts file, bind-mounted over /etc/hosts in a
# private mount namespace, with an nsswitch.conf of files only, so that no
# name it meets in a page is looked up anywhere else. Gzip off: wget2
# 1.99.1 crashes (SIGSEGV) on gzip over HTTP/2 (docs/REAL_PAGES.md).
printf 'hosts: files\n' >"$SCRATCH/nsswitch.conf"
if unshare -m sh -c 'mount --bind "$0" /etc/hosts && mount --bind "$1" /etc/nsswitch.conf &&
	getent hosts "python.$2" >/dev/null' "$TLSWEB_HOSTS" "$SCRATCH/nsswitch.conf" \
	"$TLS_DOMAIN" 2>/dev/null; then
	mkdir -p "$SCRATCH/wget2"
	timeout -k 5 120 unshare -m sh -c 'mount --bind "$0" /etc/hosts &&
		mount --bind "$1" /etc/nsswitch.conf && shift && exec "$@"' \
		"$TLSWEB_HOSTS" "$SCRATCH/nsswitch.conf" \
		wget2 --no-config -r -l 0 --max-threads=4 --delete-after --no-hsts --progress=none \
		-nv --compression=identity "--ca-certificate=$TLS_CA" -P "$SCRATCH/wget2" \
		-i "$SCRATCH/seeds" >"$SCRATCH/wget2.out" 2>&1
	rc=$?
	# 8: the server answered an error (the 404s of broken links): expected.
	check "wget2 -r crawls the same sites (exit $rc)" test "$rc" -eq 0 -o "$rc" -eq 8
	check "coverage: mpicrawl fetched every HTML page wget2 fetched" \
		eval 'python3 "$PY" cover "$SCRATCH/db" "$NGINX_LOG" "$SCRATCH/sites" "$SCRATCH" \
		>"$SCRATCH/cover.out" 2>&1'
	cat "$SCRATCH/cover.out"
else
	skip 2 "wget2 comparison: no private mount namespace here (unshare -m needs root)"
fi
echo "wall time: $((SECONDS - T0)) s"
finish

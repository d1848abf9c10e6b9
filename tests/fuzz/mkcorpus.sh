#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets, tests/fuzz/corpus/TARGET/:
# text seeds here, binary ones (records, record files, WARC files) with
# tests/fuzz/mkcorpus.c and the project's own writers. Run once; the output
# is committed, so a run only replaces the files it writes (regression
# inputs added by hand stay). Needs the plain build (make all).
set -euo pipefail
cd "$(dirname "$0")/../.."
C=tests/fuzz/corpus
for t in tests/fuzz/fuzz_*.c; do
	mkdir -p "$C/$(basename "$t" .c)"
done

# robots.txt bodies, and BODY NUL AGENT NUL PATH... inputs.
R=$C/fuzz_robots
printf 'User-agent: *\nDisallow: /private\nAllow: /private/ok\nCrawl-delay: 1.5\n' >"$R/basic"
printf 'User-agent: mpicrawl\nUser-agent: other\nDisallow: /*.php$\nAllow: /$\n\nUser-agent: *\nDisallow: /\n\nSitemap: https://example.com/s.xml\n' >"$R/groups"
printf '\xef\xbb\xbfuser-agent : MPICRAWL/2.0 # us\r\ndisallow:/a%%2fb\r\nDISALLOW: /%%7euser\r\ncrawl-delay: 99999999999\r\n' >"$R/bom-crlf"
printf 'Disallow: /before-any-group\nUser-agent: *\nDisallow: /a*b*c\nAllow: /a*b$\n' >"$R/wildcards"
printf 'User-agent: fuzzbot\nDisallow: /x\nAllow: /x/y*\n\0fuzzbot\0/x/y/z?q\0/x%%2a\0http://example.com/x?y#f\0//host/x\0' >"$R/agent-paths"

# scope.rules files: RULES [NUL URL]...
S=$C/fuzz_scope_rules
printf -- '-http://(org,example,)/private/\n+http://(org,example,\n(com,partner,\n\0http://example.org/private/x\0https://sub.example.org/\0http://shop.partner.com/' >"$S/surt"
printf -- '-^(file|ftp|mailto):\n-\\.(gif|jpg|png)$\n-[?*!@=]\n-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n+^https?://([a-z0-9-]+\\.)*example\\.org/\n\0http://example.org/a/b/a/c/a/d\0http://example.org/x.png' >"$S/nutch"
printf -- '-(0|00)+$\n\0http://a.test/000000000000000000000000000000000000000000000000000000000000!' >"$S/limit"
printf -- '+ok\n+[\n' >"$S/bad-regex"

# Sitemaps: the body.
M=$C/fuzz_sitemap
printf '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/a?x=1&amp;y=2</loc><lastmod>2024-03-01T10:00:30+02:00</lastmod><changefreq>weekly</changefreq><priority>0.8</priority></url></urlset>\n' >"$M/urlset"
printf '<sitemapindex><sitemap><loc>https://example.org/s1.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>' >"$M/index"
printf '<rss version="2.0"><channel><item><link>https://example.org/news/1</link><pubDate>Fri, 01 Mar 2024 00:00:00 GMT</pubDate></item></channel></rss>' >"$M/rss"
printf '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="edit" href="/e"/><link href="post/1"/><updated>2024-03-01T00:00:00Z</updated></entry></feed>' >"$M/atom"
printf 'https://example.org/t1\n  /t2  \r\nnot://a\n' >"$M/text"

# URLs: BASE LF HREF, or one URL.
U=$C/fuzz_url
printf 'http://a/b/c/d;p?q\n../../g' >"$U/rfc3986"
printf 'HTTPS://User:Pw@EXAMPLE.com:443/%%7Efoo/./bar/../baz?%%41=1#frag' >"$U/canon"
printf 'http://example.com/dir/page.html\n  //other.example/x\t/y  ' >"$U/scheme-relative"
printf 'https://xn--nxasmq6b.example/\n?only-query' >"$U/idn-query"
printf 'http://[2001:db8::1]:8080/a\n#frag' >"$U/ipv6"
printf 'http://example.com/\njavascript:alert(1)' >"$U/bad-scheme"

# Stylesheets.
K=$C/fuzz_css
printf '@import url(base.css);\nbody{background:url("a b.png")}\n/* url(x) */ a{b:url(\\31 .png)}\n@font-face{src:url(f.woff2) format("woff2")}\n' >"$K/basic"
printf 'x{y:url(' >"$K/open-url"
printf "@import 'unterminated\n" >"$K/unterminated"

# HTML pages.
H=$C/fuzz_html
cat >"$H/links.html" <<'HTML'
<!DOCTYPE html><html><head><title>  A   page </title>
<base href="http://example.com/base/">
<link rel="canonical" href="/canon"><link rel="stylesheet" href="/s.css">
</head><body><p>Some <b>text</b> here.</p>
<a href="a.html">a</a> <a href="a.html#x">again</a> <a href="mailto:x@y">m</a>
<a rel="nofollow" href="/nf">nf</a> <area href="../area"><iframe src="//cdn.example/f"></iframe>
<script>var a = "<a href='/no'>";</script><style>p{}</style></body></html>
HTML
cat >"$H/meta-robots.html" <<'HTML'
<html><head><meta name="robots" content="noindex, nofollow"><meta name="mpicrawl" content="none">
<meta charset="iso-8859-1"><title>caf&eacute; &#233;</title></head><body><a href=x>x</a></body></html>
HTML
printf '<html><head><meta http-equiv="Content-Type" content="text/html; charset=shift_jis"><title>\x93\xfa\x96\x7b</title></head><body><a href="/\x83e">t</a></body>' >"$H/sjis.html"
printf '\xff\xfe<\0a\0 \0h\0r\0e\0f\0=\0/\0u\0>\0' >"$H/utf16le-bom.html"
printf '<a href="http://a/%%zz"><a href=" http://b/\n x "><frame src="https://c:99999/"><a href="http://[::1/">' >"$H/bad-links.html"

# Response heads.
D=$C/fuzz_http_head
printf 'HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; Charset="UTF-8"\r\nContent-Length: 10\r\n\r\n' >"$D/content-type"
printf 'HTTP/1.1 503 Busy\r\nRetry-After: 120\r\nRetry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n\r\n' >"$D/retry-after"
printf 'HTTP/1.1 301 Moved\nlocation:   /new?x \t\nX-Robots-Tag: mpicrawl: nofollow\nX-Robots-Tag: noindex\n\n' >"$D/location-lf"
printf 'HTTP/1.0 200\r\ncontent-type:application/xhtml+xml;charset=' >"$D/cut-charset"

# Whole responses for parse_page.
P=$C/fuzz_parse_page
printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=iso-8859-1\r\nX-Robots-Tag: mpicrawl: noindex, nofollow\r\n\r\n<a href="/x">caf\xe9</a>' >"$P/x-robots-tag"
printf 'HTTP/1.1 302 Found\r\nLocation: ../elsewhere?a=b\r\n\r\n' >"$P/redirect"
printf 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n' >"$P/not-html"
printf '<html><a href="no-head.html">no head at all</a>' >"$P/no-head"

# The fuzz target rule without a main to add builds any tests/fuzz/X.c.
make --no-print-directory FUZZ_MAIN= build/fuzz/mkcorpus >/dev/null
build/fuzz/mkcorpus "$C"
du -sh "$C"/* | sed 's/^/  /'

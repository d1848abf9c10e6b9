#!/usr/bin/env bash
# Starts and stops a local HTTPS test web served by Debian's real nginx, with
# a dnsmasq for its names, everything on loopback. Unlike webenv.sh's simweb
# this is a real TLS stack: HTTP/2 and HTTP/1.1 picked by ALPN, SNI, session
# resumption, gzip, and certificates that must fail verification.
#
#   scripts/tlsweb.sh start DIR [--pages N] [--site NAME=ROOT]...
#                       (N pages per good host, default 20)
#   scripts/tlsweb.sh stop DIR
#
# start makes a test CA with openssl in DIR/pki (ca.pem, ca.key, EC P-256) and
# signs a certificate for each good host with it (subjectAltName = the name),
# plus three bad ones: expired.pem (signed by the CA, valid only
# 2020-01-01..2020-02-01), wrongname.pem (signed by the CA for other.example)
# and selfsigned.pem (not from the CA). One nginx serves, on one free TCP port
# TLS_PORT (SNI picks the certificate) and one free TCP port HTTP_PORT:
#
#   h2.tls.test          127.0.0.1:TLS_PORT  TLS, ALPN h2 or http/1.1
#   h1.tls.test          127.0.0.2:TLS_PORT  TLS, http/1.1 only (no http2 there);
#                                            a connection closes after 6 requests;
#                                            304 for any If-Modified-Since not
#                                            before Last-Modified (nginx's
#                                            default, elsewhere: only the same
#                                            date)
#   v6.tls.test          [::1]:TLS_PORT      TLS, h2; DNS has only AAAA ::1
#   expired.tls.test     127.0.0.1:TLS_PORT  expired certificate
#   wrongname.tls.test   127.0.0.1:TLS_PORT  certificate for other.example
#   selfsigned.tls.test  127.0.0.1:TLS_PORT  self-signed certificate
#   plain.tls.test       127.0.0.1:HTTP_PORT plain HTTP; also the only server
#                                            of [::1]:HTTP_PORT (http://[::1]:PORT/)
#   moved.tls.test       127.0.0.1:HTTP_PORT plain's pages, but its robots.txt
#                                            redirects (301) to plain's: a
#                                            robots.txt on another host
#
# h2 is the default server of 127.0.0.1:TLS_PORT (no or unknown SNI gets its
# certificate). TLS 1.2 and 1.3, a shared session cache (sessions resume),
# gzip on for text/html, text/css, application/javascript and image/svg+xml
# from 20 bytes. The content is in DIR/www/HOST/, the same on every start: for
# each good host (h2, h1, v6, plain) a robots.txt (User-agent: * /
# Disallow: /private/), index.html, page-001.html .. page-N.html that link one
# another (relative, absolute-path and absolute-URL links, fragment links, one
# link to the next good host, one into the forbidden /private/, whose pages
# exist), each with its own text and the requisites /style.css (which
# @imports /base.css and uses /img/bg.png), /img/pK.png and /img/pK@2x.png
# (srcset), /app.js and /favicon.ico; index.html also shows /img/logo.svg and
# the next good host's /img/shared.png (shown by no page of its own). The
# bad-certificate hosts serve an index.html and a robots.txt.
#
# --site NAME=ROOT (repeatable) adds a host serving a directory that is
# already there, as it is: https://NAME.tls.test:TLS_PORT/ on 127.0.0.1, TLS
# with ALPN h2 or http/1.1, a certificate from the test CA for NAME.tls.test
# (DIR/pki/site-NAME.pem), the directory ROOT as its document root (nginx's
# defaults: index.html for a directory, 403 for a directory without one,
# symbolic links followed, 404 for anything missing - robots.txt too unless
# ROOT has one) and DNS A 127.0.0.1 for its name. tests/e2e/real_pages.sh
# serves Debian's HTML documentation this way. NAME is one DNS label (a-z,
# 0-9, -) and none of the hosts above; ROOT must not hold a double quote, a
# dollar sign, a backslash, a semicolon or braces (nginx syntax).
# The types nginx knows, for the sites' files: .html and .htm text/html,
# .css, .txt, .js, .png, .gif, .jpg/.jpeg, .svg, .ico, .pdf, .xml; anything
# else is application/octet-stream.
#
# dnsmasq on a free UDP port of 127.0.0.1 answers A 127.0.0.1 for h2, expired,
# wrongname, selfsigned, plain and moved, A 127.0.0.2 for h1, AAAA ::1 (and for an A
# query NOERROR without an answer, NODATA) for v6, and NXDOMAIN for any other
# name under tls.test; names outside it get REFUSED (there is no upstream).
# Its answers have TTL 0. A client that cannot be given a DNS server (wget2)
# can read the same names from DIR/hosts, a file in the form of /etc/hosts
# (one address and name a line, every host above and every site), e.g.
# bind-mounted over /etc/hosts in a private mount namespace (unshare -m, as
# tests/e2e/real_pages.sh runs wget2).
#
# start writes DIR/env (TLS_PORT, HTTP_PORT, DNS_PORT, NGINX_PID, DNSMASQ_PID,
# TLS_CA, NGINX_LOG, TLS_DOMAIN, TLSWEB_PAGES, TLSWEB_SITES - the sites' NAMEs,
# blank-separated, in the order given - and TLSWEB_HOSTS, DIR/hosts) for
# `source` once nginx answers, and logs to DIR/nginx.err (nginx's error log; its stdout and stderr go to
# DIR/nginx.out) and DIR/dnsmasq.err. NGINX_LOG, DIR/access.log,
# has one line per request, tab-separated, in this column order:
#
#    1 $msec              request end, seconds.milliseconds since the epoch
#    2 $remote_addr       3 $server_addr       4 $server_port
#    5 $host              6 $ssl_server_name (SNI)
#    7 $server_protocol   (HTTP/1.1, HTTP/2.0)
#    8 $ssl_protocol      9 $ssl_cipher        10 $ssl_session_reused (r or .)
#   11 $connection       12 $connection_requests
#   13 $request_method   14 $request_uri       15 $status
#   16 $body_bytes_sent  17 $http_accept_encoding
#   18 $http_from        19 $http_user_agent   20 $request_time (s.ms; the
#                        request started at $msec - $request_time)
#   21 $http_if_none_match   22 $http_if_modified_since
#
# An empty value is "-"; nginx escapes quotes, backslashes and control bytes
# (a tab too) in values as \xHH, so a line always has 22 fields. The log
# starts with start's readiness probes, GET / on h2, h1, v6, plain and each
# site with User-Agent "tlsweb.sh probe" (more if nginx was slow to come up). A
# connection whose TLS handshake fails (a client refusing a bad certificate)
# sends no request, so it leaves no line.
#
# The CA and certificates are made anew on every start (TLS_CA changes). The
# programs can be overridden with NGINX_BIN and DNSMASQ.
#
# stop kills exactly the PIDs in DIR/env, never by name, and waits for them
# to go. A failed start stops what it started and exits non-zero.
set -euo pipefail

# Not NGINX: nginx reads that variable as sockets inherited from an old
# master (its binary upgrade), so nginx is also started without it.
NGINX_BIN=${NGINX_BIN:-/usr/sbin/nginx}
DNSMASQ=${DNSMASQ:-/usr/sbin/dnsmasq}
DOMAIN=tls.test

die() {
	echo "tlsweb: $*" >&2
	exit 1
}

# is_ours, is_gone, stop_pid
# shellcheck source=scripts/procs.sh
. "$(dirname "${BASH_SOURCE[0]}")/procs.sh"

# A random port in 20000..60000.
random_port() {
	echo $(( ((RANDOM << 15) | RANDOM) % 40001 + 20000 ))
}

# Asks dnsmasq on 127.0.0.1:PORT for NAME of TYPE (A or AAAA); true when the
# answer is WANT: an address (the only one), nodata or nxdomain.
dns_is() {
	python3 - "$@" <<'EOF' 2>/dev/null
import ipaddress, socket, struct, sys
port, name, qtype, want = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
t = {'A': 1, 'AAAA': 28}[qtype]
q = struct.pack('>HHHHHH', 0x7153, 0x0100, 1, 0, 0, 0)
q += b''.join(bytes([len(p)]) + p.encode() for p in name.split('.')) + b'\0'
q += struct.pack('>HH', t, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
s.sendto(q, ('127.0.0.1', port))
r = s.recv(512)
if r[:2] != q[:2]:
    sys.exit(1)
rcode, ancount = r[3] & 15, struct.unpack('>H', r[6:8])[0]
if want == 'nxdomain':
    sys.exit(0 if rcode == 3 and ancount == 0 else 1)
if want == 'nodata':
    sys.exit(0 if rcode == 0 and ancount == 0 else 1)
addrs, i = [], len(q)
for _ in range(ancount):
    i += 2 if r[i] & 0xc0 == 0xc0 else r[i:].index(0) + 1
    rtype, _, _, rdlen = struct.unpack('>HHIH', r[i:i + 10])
    if rtype == t:
        addrs.append(str(ipaddress.ip_address(r[i + 10:i + 10 + rdlen])))
    i += 10 + rdlen
sys.exit(0 if rcode == 0 and addrs == [str(ipaddress.ip_address(want))] else 1)
EOF
}

# True when nothing listens on TCP PORT of each ADDR.
tcp_free() {
	python3 - "$@" <<'EOF' 2>/dev/null
import socket, sys
port = int(sys.argv[1])
for addr in sys.argv[2:]:
    s = socket.socket(socket.AF_INET6 if ':' in addr else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.close()
EOF
}

# The test CA and the server certificates, in DIR/pki.
make_pki() {
	local pki=$1 host
	rm -rf "$pki"
	mkdir -p "$pki/newcerts"
	: >"$pki/index.txt"
	echo 1000 >"$pki/serial"
	cat >"$pki/openssl.cnf" <<EOF
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = unused
[ v3_ca ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[ selfsigned ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = \$ENV::SAN
[ ca ]
default_ca = testca
[ testca ]
dir = $pki
database = \$dir/index.txt
new_certs_dir = \$dir/newcerts
serial = \$dir/serial
certificate = \$dir/ca.pem
private_key = \$dir/ca.key
default_md = sha256
default_days = 825
policy = policy_any
unique_subject = no
copy_extensions = none
[ policy_any ]
commonName = supplied
[ server ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = \$ENV::SAN
EOF
	local log=$pki/openssl.log cnf=$pki/openssl.cnf
	local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
	SAN=DNS:unused openssl req -config "$cnf" -x509 "${ec[@]}" -extensions v3_ca \
		-keyout "$pki/ca.key" -out "$pki/ca.pem" -days 3650 \
		-subj "/O=mpicrawl/CN=mpicrawl tlsweb test CA" >>"$log" 2>&1 ||
		die "openssl could not make the CA (see $log)"
	# FILE:NAME, NAME the certificate's subject and only DNS name (in tls.test
	# unless it has a dot); expired is valid only in January 2020.
	local certs=(h2:h2 h1:h1 v6:v6 expired:expired wrongname:other.example) site
	for site in "${SITES[@]}"; do
		certs+=("site-${site%%=*}:${site%%=*}")
	done
	for host in "${certs[@]}"; do
		local file=${host%%:*} cn=${host#*:} dates=(-days 825)
		[ "$cn" = other.example ] || cn=$cn.$DOMAIN
		[ "$file" = expired ] && dates=(-startdate 20200101000000Z -enddate 20200201000000Z)
		if ! SAN=DNS:$cn openssl req -config "$cnf" -new "${ec[@]}" \
			-keyout "$pki/$file.key" -out "$pki/$file.csr" -subj "/CN=$cn" >>"$log" 2>&1 ||
			! SAN=DNS:$cn openssl ca -config "$cnf" -batch -notext -extensions server \
				"${dates[@]}" -in "$pki/$file.csr" -out "$pki/$file.pem" >>"$log" 2>&1; then
			die "openssl could not make the $file certificate (see $log)"
		fi
	done
	SAN=DNS:selfsigned.$DOMAIN openssl req -config "$cnf" -x509 "${ec[@]}" \
		-extensions selfsigned -keyout "$pki/selfsigned.key" -out "$pki/selfsigned.pem" \
		-days 825 -subj "/CN=selfsigned.$DOMAIN" >>"$log" 2>&1 ||
		die "openssl could not make the self-signed certificate (see $log)"
	chmod 600 "$pki"/*.key
}

# The pages of every host, in DIR/www/HOST/ (same content for the same N).
make_www() {
	local www=$1 pages=$2 tls_port=$3 http_port=$4
	rm -rf "$www"
	python3 - "$www" "$pages" "$tls_port" "$http_port" "$DOMAIN" <<'EOF'
import os, random, struct, sys, zlib
www, pages, tls_port, http_port, domain = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]

def png(w, h, rgb, alpha=False):
    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data +
                struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff))
    px = bytes(rgb) + (b'\xff' if alpha else b'')
    rows = b''.join(b'\0' + b''.join(px if (x // 4 + y // 4) % 2 else
                                     bytes(255 - c for c in px[:3]) + px[3:]
                                     for x in range(w)) for y in range(h))
    ihdr = struct.pack('>IIBBBBB', w, h, 8, 6 if alpha else 2, 0, 0, 0)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) +
            chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))

def ico(data):
    # One 16x16 32-bit image stored as PNG (valid in ICO since Windows Vista).
    return struct.pack('<HHHBBBBHHII', 0, 1, 1, 16, 16, 0, 0, 1, 32, len(data), 22) + data

def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data.encode() if isinstance(data, str) else data)

WORDS = '''abacus amber anchor apple arbor arrow aspen autumn badger bamboo basalt
beacon birch bison bramble breeze bronze cactus canyon carbon cedar cellar
chalk cherry cinder citrus clover cobalt comet copper coral cotton crane
crystal cypress dahlia delta desert dune eagle ember falcon feather fern
fjord flint forest fossil garnet geyser ginger glacier granite harbor hazel
heron hollow horizon indigo island ivory jasmine juniper kelp kestrel lagoon
lantern laurel lava lemon lichen lily linen lotus magnet maple marble meadow
meteor mint moss nectar nickel nutmeg oasis obsidian ocean olive onyx orchid
otter paper pebble pepper pine plum prairie quartz quill raven reef ridge
river saffron sage salmon sandstone sapphire shale silver slate sparrow spruce
summit thistle thunder timber topaz tulip tundra valley velvet walnut willow
winter yarrow zephyr'''.split()
VERBS = '''gathers follows measures crosses shelters hides reflects carries
outlines frames borders warms shadows greets circles anchors'''.split()

def sentence(rnd):
    n = rnd.randint(7, 14)
    words = [rnd.choice(WORDS) for _ in range(n)]
    words.insert(rnd.randint(1, n - 2), rnd.choice(VERBS))
    return ' '.join(words).capitalize() + '.'

def paragraph(rnd):
    return ' '.join(sentence(rnd) for _ in range(rnd.randint(4, 7)))

GOOD = ['h2', 'h1', 'v6', 'plain']

def base(host):
    if host == 'plain':
        return 'http://plain.%s:%s' % (domain, http_port)
    return 'https://%s.%s:%s' % (host, domain, tls_port)

def name(i):
    return 'page-%03d.html' % i

def head(title, host):
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<title>%s</title>\n<link rel="stylesheet" href="/style.css">\n'
            '<link rel="icon" href="/favicon.ico">\n<script src="/app.js"></script>\n'
            '</head>\n<body id="top" class="host-%s">\n' % (title, host))

for hi, host in enumerate(GOOD):
    d = os.path.join(www, host)
    other = GOOD[(hi + 1) % len(GOOD)]
    write(d + '/robots.txt', 'User-agent: *\nDisallow: /private/\n')
    write(d + '/base.css', 'html { font-family: Georgia, serif; line-height: 1.5; }\n'
          'body { margin: 2em auto; max-width: 42em; color: #222; }\n'
          'a { color: #1a4d8f; } a:visited { color: #5a2d82; }\n')
    write(d + '/style.css', '@import url(/base.css);\n'
          'body { background: #fdfcf8 url(/img/bg.png) repeat; }\n'
          'h1 { font-size: 1.6em; border-bottom: 1px solid #ccc; }\n'
          'nav ul { list-style: square; } img { border: 1px solid #999; }\n')
    write(d + '/app.js', '"use strict";\ndocument.addEventListener("DOMContentLoaded", '
          'function () {\n  var n = document.querySelectorAll("a").length;\n'
          '  document.body.setAttribute("data-links", String(n));\n});\n')
    write(d + '/favicon.ico', ico(png(16, 16, (30 + 50 * hi, 90, 160), alpha=True)))
    write(d + '/img/bg.png', png(8, 8, (250, 248, 240)))
    write(d + '/img/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="64" '
          'height="64" viewBox="0 0 64 64"><title>%s</title><circle cx="32" cy="32" '
          'r="28" fill="#1a4d8f"/><text x="32" y="38" font-size="16" '
          'text-anchor="middle" fill="#fff">%s</text></svg>\n' % (host, host))
    rnd = random.Random('%s-index' % host)
    links = ''.join('<li><a href="%s">Page %d</a></li>\n' % (name(i), i)
                    for i in range(1, min(pages, 5) + 1))
    write(d + '/index.html', head('%s.%s: start' % (host, domain), host) +
          '<h1>The %s test site</h1>\n<p><img src="/img/logo.svg" alt="logo" '
          'width="64" height="64"> <img src="%s/img/shared.png" alt="%s" width="8" '
          'height="8"></p>\n<p>%s</p>\n<nav><ul>\n%s</ul></nav>\n'
          '</body>\n</html>\n' % (host, base(other), other, paragraph(rnd), links))
    # Shown only by the previous host's index: a requisite of another host.
    write(d + '/img/shared.png', png(8, 8, (200, 40 + 50 * hi, 40)))
    for i in range(1, pages + 1):
        rnd = random.Random('%s-%d' % (host, i))
        nxt, prv = i % pages + 1, (i - 2) % pages + 1
        far, frag = (i * 7) % pages + 1, (i * 3) % pages + 1
        topic = ' '.join(rnd.choice(WORDS) for _ in range(2))
        body = ('<h1>%s: page %d, %s</h1>\n'
                '<p><img src="/img/p%d.png" srcset="/img/p%d.png 1x, /img/p%d@2x.png 2x" '
                'alt="figure %d" width="16" height="16"></p>\n'
                '<p>%s</p>\n<h2 id="part-2">Part two</h2>\n<p>%s</p>\n'
                '<nav><ul>\n'
                '<li><a href="%s">next (relative)</a></li>\n'
                '<li><a href="/%s">previous (absolute path)</a></li>\n'
                '<li><a href="%s/%s">further on (absolute URL)</a></li>\n'
                '<li><a href="./%s#part-2">part two of page %d (fragment)</a></li>\n'
                '<li><a href="#part-2">part two of this page</a></li>\n'
                '<li><a href="/">home</a></li>\n'
                '<li><a href="%s/%s">the same page on %s</a></li>\n'
                '<li><a href="/private/report-%03d.html">private report</a></li>\n'
                '</ul></nav>\n<p><a href="#top">top</a></p>\n'
                % (host, i, topic, i, i, i, i, paragraph(rnd), paragraph(rnd),
                   name(nxt), name(prv), base(host), name(far), name(frag), frag,
                   base(other), name(i), other, i))
        write('%s/%s' % (d, name(i)),
              head('%s, page %d: %s' % (host, i, topic), host) + body + '</body>\n</html>\n')
        write('%s/private/report-%03d.html' % (d, i),
              head('private report %d' % i, host) + '<h1>Private</h1>\n<p>%s</p>\n'
              '</body>\n</html>\n' % paragraph(rnd))
        color = ((i * 53 + hi * 40) % 256, (i * 97) % 256, (i * 151 + 60) % 256)
        write('%s/img/p%d.png' % (d, i), png(16, 16, color))
        write('%s/img/p%d@2x.png' % (d, i), png(32, 32, color))

for host in ['expired', 'wrongname', 'selfsigned']:
    d = os.path.join(www, host)
    write(d + '/robots.txt', 'User-agent: *\nDisallow: /private/\n')
    write(d + '/index.html', '<!DOCTYPE html>\n<html lang="en">\n<head>\n'
          '<meta charset="utf-8">\n<title>%s.%s</title>\n</head>\n<body>\n'
          '<h1>%s</h1>\n<p>A client that verifies certificates must not see this '
          'page: the certificate of %s.%s is bad on purpose.</p>\n</body>\n</html>\n'
          % (host, domain, host, host, domain))
EOF
}

# DIR/nginx.conf for the ports.
make_conf() {
	local dir=$1 tls_port=$2 http_port=$3 user='' host listen extra site
	[ "$(id -u)" -eq 0 ] && user='user root;'
	{
		cat <<EOF
# Written by scripts/tlsweb.sh: the test web of DIR/www, loopback only.
$user
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
lock_file $dir/nginx.lock;
error_log $dir/nginx.err notice;
events {
	worker_connections 512;
}
http {
	types {
		text/html html htm;
		text/css css;
		text/plain txt;
		application/javascript js;
		image/png png;
		image/gif gif;
		image/jpeg jpg jpeg;
		image/svg+xml svg;
		image/x-icon ico;
		application/pdf pdf;
		application/xml xml;
	}
	default_type application/octet-stream;
	log_format tlsweb "\$msec\t\$remote_addr\t\$server_addr\t\$server_port\t\$host\t\$ssl_server_name\t\$server_protocol\t\$ssl_protocol\t\$ssl_cipher\t\$ssl_session_reused\t\$connection\t\$connection_requests\t\$request_method\t\$request_uri\t\$status\t\$body_bytes_sent\t\$http_accept_encoding\t\$http_from\t\$http_user_agent\t\$request_time\t\$http_if_none_match\t\$http_if_modified_since";
	access_log $dir/access.log tlsweb;
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	sendfile on;
	keepalive_timeout 30s;
	server_tokens off;
	gzip on;
	gzip_types text/css application/javascript image/svg+xml;
	gzip_min_length 20;
	gzip_vary on;
	ssl_protocols TLSv1.2 TLSv1.3;
	ssl_prefer_server_ciphers off;
	ssl_session_cache shared:TLSWEB:1m;
	ssl_session_timeout 10m;
	ssl_session_tickets on;
EOF
		for host in h2 h1 v6 expired wrongname selfsigned; do
			extra=''
			case $host in
			# h2 sends no ETag and ignores If-Modified-Since: a
			# refetch gets the same bytes again, with a 200.
			h2) listen="127.0.0.1:$tls_port ssl http2 default_server"
			    extra='etag off; if_modified_since off;' ;;
			# h1 closes a connection after 6 requests: a client
			# reconnects and may resume its TLS session; it answers
			# an If-Modified-Since at or after the file's date 304.
			h1) listen="127.0.0.2:$tls_port ssl"
			    extra='keepalive_requests 6; if_modified_since before;' ;;
			v6) listen="[::1]:$tls_port ssl http2" ;;
			*) listen="127.0.0.1:$tls_port ssl http2" ;;
			esac
			cat <<EOF
	server {
		listen $listen;
		server_name $host.$DOMAIN;
		ssl_certificate $dir/pki/$host.pem;
		ssl_certificate_key $dir/pki/$host.key;
		root $dir/www/$host;
		$extra
	}
EOF
		done
		for site in "${SITES[@]}"; do
			cat <<EOF
	server {
		listen 127.0.0.1:$tls_port ssl http2;
		server_name ${site%%=*}.$DOMAIN;
		ssl_certificate $dir/pki/site-${site%%=*}.pem;
		ssl_certificate_key $dir/pki/site-${site%%=*}.key;
		root "${site#*=}";
	}
EOF
		done
		cat <<EOF
	server {
		listen 127.0.0.1:$http_port default_server;
		listen [::1]:$http_port default_server;
		server_name plain.$DOMAIN;
		root $dir/www/plain;
	}
	server {
		listen 127.0.0.1:$http_port;
		server_name moved.$DOMAIN;
		root $dir/www/plain;
		location = /robots.txt { return 301 http://plain.$DOMAIN:$http_port/robots.txt; }
	}
}
EOF
	} >"$dir/nginx.conf"
}

# The first line of nginx's complaint about its start.
nginx_error() {
	local f=("$1/nginx.err" "$1/nginx.out")
	grep -h -m 1 -E '\[(emerg|alert|crit)\]' "${f[@]}" 2>/dev/null ||
		grep -h -m 1 . "${f[@]}" 2>/dev/null || echo "no message in ${f[0]}"
}

# True when nginx serves each good host (TLS ones verified with the CA).
nginx_answers() {
	local dir=$1 tls_port=$2 http_port=$3
	if ! command -v curl >/dev/null; then
		(exec 3<>"/dev/tcp/127.0.0.1/$tls_port") 2>/dev/null
		return
	fi
	local c=(curl -sf -o /dev/null --max-time 2 -A "tlsweb.sh probe" --cacert "$dir/pki/ca.pem")
	local site name
	"${c[@]}" --resolve "h2.$DOMAIN:$tls_port:127.0.0.1" "https://h2.$DOMAIN:$tls_port/" &&
		"${c[@]}" --resolve "h1.$DOMAIN:$tls_port:127.0.0.2" "https://h1.$DOMAIN:$tls_port/" &&
		"${c[@]}" --resolve "v6.$DOMAIN:$tls_port:[::1]" "https://v6.$DOMAIN:$tls_port/" &&
		"${c[@]}" --resolve "plain.$DOMAIN:$http_port:127.0.0.1" "http://plain.$DOMAIN:$http_port/" ||
		return 1
	# A site answers with its certificate; any status will do (its root
	# may have no index.html).
	for site in "${SITES[@]}"; do
		name=${site%%=*}.$DOMAIN
		curl -s -o /dev/null --max-time 2 -A "tlsweb.sh probe" --cacert "$dir/pki/ca.pem" \
			--resolve "$name:$tls_port:127.0.0.1" "https://$name:$tls_port/" || return 1
	done
}

# The sites of --site, NAME=ROOT each with ROOT absolute.
SITES=()
add_site() {
	local name=${1%%=*} root=${1#*=} s
	[[ $1 == *=* ]] || die "--site wants NAME=ROOT, not '$1'"
	[[ $name =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] ||
		die "--site: '$name' is not one DNS label (a-z, 0-9, -)"
	case $name in
	h2 | h1 | v6 | expired | wrongname | selfsigned | plain)
		die "--site: $name is a host of tlsweb already" ;;
	esac
	for s in "${SITES[@]}"; do
		[ "${s%%=*}" != "$name" ] || die "--site: $name given twice"
	done
	[ -d "$root" ] || die "--site $name: no directory $root"
	root=$(cd "$root" && pwd)
	case $root in
	*[\"\$\\\;{}]* | *[[:cntrl:]]*)
		die "--site $name: nginx cannot be given the directory $root" ;;
	esac
	SITES+=("$name=$root")
}

# What start has running, stopped when it fails.
DNS_PID=
WEB_PID=
cleanup() {
	stop_pid "$WEB_PID" nginx
	stop_pid "$DNS_PID" dnsmasq
}

start() {
	local dir=$1
	shift
	local pages=20
	while [ $# -gt 0 ]; do
		case $1 in
		--pages=*) pages=${1#--pages=} ;;
		--pages)
			[ $# -ge 2 ] || die "--pages needs a number"
			pages=$2
			shift
			;;
		--site=*) add_site "${1#--site=}" ;;
		--site)
			[ $# -ge 2 ] || die "--site needs NAME=ROOT"
			add_site "$2"
			shift
			;;
		*) die "unknown option $1 (usage: tlsweb.sh start DIR [--pages N] [--site NAME=ROOT]...)" ;;
		esac
		shift
	done
	[[ $pages =~ ^[0-9]{1,4}$ ]] || die "--pages wants a number from 1 to 9999, not '$pages'"
	pages=$((10#$pages))
	[ "$pages" -ge 1 ] || die "--pages wants a number from 1 to 9999, not 0"

	[ -x "$NGINX_BIN" ] || die "nginx not found at $NGINX_BIN (install Debian's nginx-light or nginx)"
	[ -x "$DNSMASQ" ] || die "dnsmasq not found at $DNSMASQ (install Debian's dnsmasq-base)"
	command -v openssl >/dev/null || die "openssl not found"
	command -v python3 >/dev/null || die "python3 not found"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	if [ -f "$dir/env" ]; then
		# shellcheck disable=SC1091,SC2153
		(source "$dir/env" && is_ours "$NGINX_PID" nginx) &&
			die "$dir already has a running web; stop it first"
	fi
	rm -f "$dir/env" "$dir/nginx.pid" "$dir/dnsmasq.pid"
	mkdir -p "$dir/tmp"
	trap cleanup EXIT

	make_pki "$dir/pki"

	local user=()
	[ "$(id -u)" -eq 0 ] && user=(--user=root)
	local dns_port="" port pid host site site_records=()
	for site in "${SITES[@]}"; do
		site_records+=("--host-record=${site%%=*}.$DOMAIN,127.0.0.1")
	done
	for _ in $(seq 20); do
		port=$(random_port)
		"$DNSMASQ" --keep-in-foreground --no-resolv --no-hosts --conf-file=/dev/null \
			--pid-file="$dir/dnsmasq.pid" --port="$port" --listen-address=127.0.0.1 \
			--bind-interfaces --local="/$DOMAIN/" \
			--host-record="h2.$DOMAIN,127.0.0.1" --host-record="h1.$DOMAIN,127.0.0.2" \
			--host-record="v6.$DOMAIN,::1" --host-record="expired.$DOMAIN,127.0.0.1" \
			--host-record="wrongname.$DOMAIN,127.0.0.1" \
			--host-record="selfsigned.$DOMAIN,127.0.0.1" \
			--host-record="plain.$DOMAIN,127.0.0.1" --host-record="moved.$DOMAIN,127.0.0.1" \
			"${site_records[@]}" \
			"${user[@]}" </dev/null >"$dir/dnsmasq.err" 2>&1 &
		pid=$!
		for _ in $(seq 30); do
			kill -0 "$pid" 2>/dev/null || break
			if dns_is "$port" "h2.$DOMAIN" A 127.0.0.1; then
				dns_port=$port
				DNS_PID=$pid
				break 2
			fi
			sleep 0.1
		done
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	[ -n "$dns_port" ] || die "dnsmasq did not start (see $dir/dnsmasq.err)"
	if ! dns_is "$dns_port" "h1.$DOMAIN" A 127.0.0.2 ||
		! dns_is "$dns_port" "v6.$DOMAIN" AAAA ::1 ||
		! dns_is "$dns_port" "v6.$DOMAIN" A nodata ||
		! dns_is "$dns_port" "h2.$DOMAIN" AAAA nodata ||
		! dns_is "$dns_port" "nosuch.$DOMAIN" A nxdomain; then
		die "dnsmasq on port $dns_port gives wrong answers"
	fi

	local tls_port="" http_port="" tp hp up
	for _ in $(seq 10); do
		tp=$(random_port)
		hp=$(random_port)
		if [ "$tp" = "$hp" ] || ! tcp_free "$tp" 127.0.0.1 127.0.0.2 ::1 ||
			! tcp_free "$hp" 127.0.0.1 ::1; then
			continue
		fi
		make_conf "$dir" "$tp" "$hp"
		make_www "$dir/www" "$pages" "$tp" "$hp"
		: >"$dir/nginx.err"
		env -u NGINX "$NGINX_BIN" -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx.err" \
			</dev/null >"$dir/nginx.out" 2>&1 &
		WEB_PID=$!
		up=
		for _ in $(seq 100); do
			kill -0 "$WEB_PID" 2>/dev/null || break
			if nginx_answers "$dir" "$tp" "$hp"; then
				up=1
				break
			fi
			sleep 0.1
		done
		if [ -n "$up" ]; then
			tls_port=$tp
			http_port=$hp
			break
		fi
		stop_pid "$WEB_PID" nginx
		wait "$WEB_PID" 2>/dev/null || true
		WEB_PID=
		# Someone took a port between the check and the bind: try others.
		grep -qs 'Address already in use' "$dir/nginx.err" "$dir/nginx.out" ||
			die "nginx did not start: $(nginx_error "$dir")"
	done
	[ -n "$tls_port" ] || die "nginx found no free ports (see $dir/nginx.err)"

	cat >"$dir/env.tmp" <<EOF
TLS_PORT=$tls_port
HTTP_PORT=$http_port
DNS_PORT=$dns_port
NGINX_PID=$WEB_PID
DNSMASQ_PID=$DNS_PID
TLS_CA=$dir/pki/ca.pem
NGINX_LOG=$dir/access.log
TLS_DOMAIN=$DOMAIN
TLSWEB_PAGES=$pages
TLSWEB_SITES="${SITES[*]%%=*}"
TLSWEB_HOSTS=$dir/hosts
EOF
	{
		echo "# The names of the tlsweb in $dir, as its dnsmasq answers them."
		for host in h2 expired wrongname selfsigned plain "${SITES[@]%%=*}"; do
			echo "127.0.0.1 $host.$DOMAIN"
		done
		echo "127.0.0.2 h1.$DOMAIN"
		echo "::1 v6.$DOMAIN"
	} >"$dir/hosts"
	mv "$dir/env.tmp" "$dir/env"
	trap - EXIT
}

stop() {
	local dir=$1
	[ -f "$dir/env" ] || die "no $dir/env: nothing started there"
	# shellcheck disable=SC1091
	source "$dir/env"
	stop_pid "${NGINX_PID:-}" nginx
	stop_pid "${DNSMASQ_PID:-}" dnsmasq
	rm -f "$dir/env"
}

case ${1:-} in
start)
	[ $# -ge 2 ] || die "usage: tlsweb.sh start DIR [--pages N] [--site NAME=ROOT]..."
	shift
	start "$@"
	;;
stop)
	[ $# -eq 2 ] || die "usage: tlsweb.sh stop DIR"
	stop "$2"
	;;
*)
	die "usage: tlsweb.sh start DIR [--pages N] [--site NAME=ROOT]... | stop DIR"
	;;
esac

#!/usr/bin/env bash
# Installs what tests/replay needs into tests/replay/node_modules (ignored by
# git, kept between runs), and prints the directory that holds ReplayWeb.page:
#
#   - puppeteer-core by `npm ci` from package-lock.json (no browser download:
#     replay.mjs drives Debian's /usr/bin/chromium);
#   - ReplayWeb.page's built ui.js and sw.js (and its LICENSE and
#     package.json), taken from the npm tarball of the version package.json
#     names under "replaywebpage". `npm install replaywebpage` would pull its
#     whole build tooling (and fails to resolve a dependency); a static replay
#     page needs only these two files. The tarball comes by `npm pack`, and
#     its sha512 must be the one package.json pins.
#
#   tests/replay/setup.sh      prints e.g. .../node_modules/.replaywebpage-2.5.3
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"

die() {
	echo "replay/setup.sh: $*" >&2
	exit 1
}

command -v node >/dev/null || die "node not found"
command -v npm >/dev/null || die "npm not found"
if [ ! -f node_modules/puppeteer-core/package.json ] ||
	[ "$(node -p 'require("./node_modules/puppeteer-core/package.json").version')" != \
		"$(node -p 'require("./package-lock.json").packages["node_modules/puppeteer-core"].version')" ]; then
	npm ci --no-audit --no-fund --loglevel=error >&2 || die "npm ci failed"
fi

version=$(node -p 'require("./package.json").replaywebpage.version')
want=$(node -p 'require("./package.json").replaywebpage.integrity')
dest=$HERE/node_modules/.replaywebpage-$version
if [ ! -f "$dest/sw.js" ] || [ ! -f "$dest/ui.js" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/rwp-pack.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	npm pack "replaywebpage@$version" --pack-destination "$tmp" --loglevel=error >/dev/null ||
		die "npm pack replaywebpage@$version failed"
	tgz=$tmp/replaywebpage-$version.tgz
	[ -f "$tgz" ] || die "npm pack wrote no $tgz"
	got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
	[ "$got" = "$want" ] || die "replaywebpage-$version.tgz has $got, package.json pins $want"
	mkdir -p "$tmp/x"
	tar -xzf "$tgz" -C "$tmp/x" package/ui.js package/sw.js package/LICENSE package/package.json ||
		die "replaywebpage-$version.tgz lacks ui.js or sw.js"
	rm -rf "$dest.tmp"
	mv "$tmp/x/package" "$dest.tmp"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
fi
echo "$dest"

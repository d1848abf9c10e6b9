#!/usr/bin/env bash
# Installs the Debian packages mpicrawl needs to build, test and run the demo,
# when any is missing. Needs root (or sudo) only when something is missing.
set -euo pipefail
pkgs=(build-essential pkg-config libopenmpi-dev openmpi-bin libcurl4-openssl-dev
      libc-ares-dev libxml2-dev libzstd-dev libxxhash-dev libpsl-dev libidn2-dev zlib1g-dev
      libssl-dev libpcre2-dev libdeflate-dev libbrotli-dev libcld2-dev libzip-dev libmagic-dev libpoppler-glib-dev poppler-utils qpdf brotli dnsmasq-base nginx wget2 clang libclang-rt-dev python3 time zstd jq chromium
      slurmctld slurmd slurm-client munge
      # promtool, which tests/e2e/status.sh checks every metrics.prom with
      # (the file node_exporter's textfile collector reads; docs/OPERATIONS.md)
      prometheus
      # Real HTML written by others, served by tests/e2e/real_pages.sh
      # (docs/REAL_PAGES.md): Debian's documentation.
      python3-doc postgresql-doc-15 git-doc sqlite3-doc zsh-doc debian-reference-en vim-doc
      ncurses-doc libxslt1-dev)
missing=()
# The tests read our WARC files with warcio.js (tests/warcio, npm ci): node
# and npm from Debian, unless a node with its npm is installed already.
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Starts and stops the local web the tests and the demo crawl: a dnsmasq that
# answers *.sim.test with 127.0.0.1 (and NXDOMAIN for *.nx.sim.test) on a
# free high UDP port, and bin/simweb on a free TCP port, both on loopback.
# For simweb's hostile quarter (tests/simweb/README.md) dnsmasq also answers
# *.rebind.sim.test and rebind.sim.test with 10.0.0.1 (DNS rebinding),
# REFUSED for *.sf.sim.test (a server failure: no upstream for it), nothing
# at all for *.nr.sim.test (forwarded to port 9 of loopback, which never
# answers: the resolver times out), and NOERROR without an address (NODATA)
# for empty.nodata.sim.test (other *.nodata.sim.test names: NXDOMAIN).
#
#   scripts/webenv.sh start DIR [simweb args...]   e.g. --hosts 8 --pages 20
#   scripts/webenv.sh stop DIR
#
# WEB_ADDR (default 127.0.0.1) is the IPv4 address both listen on and the
# one dnsmasq answers with: the node tests (tests/nodes/) serve their
# cluster from an address of its own.
#
# start writes DIR/env (SIMWEB_PORT, DNS_PORT, SIMWEB_PID, DNSMASQ_PID,
# SIMWEB_LOG, SIMWEB_DOMAIN, SIMWEB_ADDR) for `source`, and logs to DIR/simweb.log (the
# request log), DIR/simweb.err and DIR/dnsmasq.err. stop kills exactly the
# PIDs in DIR/env, never by name, and waits for them to go.
set -euo pipefail

DNSMASQ=${DNSMASQ:-/usr/sbin/dnsmasq}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIMWEB=${SIMWEB:-$ROOT/bin/simweb}
ADDR=${WEB_ADDR:-127.0.0.1}

die() {
	echo "webenv: $*" >&2
	exit 1
}

# is_ours, is_gone, stop_pid
# shellcheck source=scripts/procs.sh
. "$(dirname "${BASH_SOURCE[0]}")/procs.sh"

# Asks dnsmasq for h0000.DOMAIN; true when it answers ADDR.
dns_answers() {
	local port=$1 domain=$2
	if command -v python3 >/dev/null; then
		python3 - "$port" "h0000.$domain" "$ADDR" <<'EOF' 2>/dev/null
import socket, struct, sys
port, name, addr = int(sys.argv[1]), sys.argv[2], sys.argv[3]
q = struct.pack('>HHHHHH', 0x5eb1, 0x0100, 1, 0, 0, 0)
q += b''.join(bytes([len(p)]) + p.encode() for p in name.split('.')) + b'\0'
q += struct.pack('>HH', 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
s.sendto(q, (addr, port))
r = s.recv(512)
sys.exit(0 if r[:2] == q[:2] and r[3] & 15 == 0 and socket.inet_aton(addr) in r[len(q):] else 1)
EOF
	else
		ss -uln 2>/dev/null | grep -q "$ADDR:$port "
	fi
}

start() {
	local dir=$1
	shift
	local domain=sim.test prev='' a
	for a in "$@"; do
		case $a in
		--domain=*) domain=${a#--domain=} ;;
		*) [ "$prev" = --domain ] && domain=$a ;;
		esac
		prev=$a
	done
	domain=${domain,,}

	[ -x "$DNSMASQ" ] || die "dnsmasq not found at $DNSMASQ (install Debian's dnsmasq-base)"
	[ -x "$SIMWEB" ] || die "simweb not found at $SIMWEB (run: make bin/simweb)"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	if [ -f "$dir/env" ]; then
		# shellcheck disable=SC1091
		(source "$dir/env" && is_ours "$SIMWEB_PID" simweb) &&
			die "$dir already has a running web; stop it first"
	fi
	rm -f "$dir/env" "$dir/simweb.port"

	local user=()
	[ "$(id -u)" -eq 0 ] && user=(--user=root)
	local dns_port="" dns_pid=""
	for _ in $(seq 20); do
		local port=$(( ((RANDOM << 15) | RANDOM) % 40001 + 20000 ))
		"$DNSMASQ" --keep-in-foreground --no-resolv --no-hosts --conf-file=/dev/null \
			--pid-file="$dir/dnsmasq.pid" --port="$port" --listen-address="$ADDR" \
			--bind-interfaces --address="/$domain/$ADDR" --address="/nx.$domain/" \
			--address="/rebind.$domain/10.0.0.1" --server="/sf.$domain/#" \
			--server="/nr.$domain/127.0.0.1#9" --local="/nodata.$domain/" \
			--txt-record="empty.nodata.$domain,hostile" \
			"${user[@]}" </dev/null >"$dir/dnsmasq.err" 2>&1 &
		local pid=$!
		for _ in $(seq 30); do
			kill -0 "$pid" 2>/dev/null || break
			if dns_answers "$port" "$domain"; then
				dns_port=$port
				dns_pid=$pid
				break 2
			fi
			sleep 0.1
		done
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	[ -n "$dns_port" ] || die "dnsmasq did not start (see $dir/dnsmasq.err)"

	"$SIMWEB" "$@" --bind "$ADDR" --port 0 --port-file "$dir/simweb.port" --log "$dir/simweb.log" \
		</dev/null >"$dir/simweb.err" 2>&1 &
	local web_pid=$! web_port=
	for _ in $(seq 100); do
		if [ -s "$dir/simweb.port" ]; then
			web_port=$(cat "$dir/simweb.port")
			break
		fi
		kill -0 "$web_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$web_port" ] || ! (exec 3<>"/dev/tcp/$ADDR/$web_port") 2>/dev/null; then
		stop_pid "$web_pid" simweb
		stop_pid "$dns_pid" dnsmasq
		die "simweb did not start: $(head -n 1 "$dir/simweb.err" 2>/dev/null)"
	fi

	cat >"$dir/env.tmp" <<EOF
SIMWEB_PORT=$web_port
DNS_PORT=$dns_port
SIMWEB_PID=$web_pid
DNSMASQ_PID=$dns_pid
SIMWEB_LOG=$dir/simweb.log
SIMWEB_DOMAIN=$domain
SIMWEB_ADDR=$ADDR
EOF
	mv "$dir/env.tmp" "$dir/env"
}

stop() {
	local dir=$1
	[ -f "$dir/env" ] || die "no $dir/env: nothing started there"
	# shellcheck disable=SC1091
	source "$dir/env"
	stop_pid "${SIMWEB_PID:-}" simweb
	stop_pid "${DNSMASQ_PID:-}" dnsmasq
	rm -f "$dir/env"
}

case ${1:-} in
start)
	[ $# -ge 2 ] || die "usage: webenv.sh start DIR [simweb args...]"
	shift
	start "$@"
	;;
stop)
	[ $# -eq 2 ] || die "usage: webenv.sh stop DIR"
	stop "$2"
	;;
*)
	die "usage: webenv.sh start DIR [simweb args...] | stop DIR"
	;;
esac

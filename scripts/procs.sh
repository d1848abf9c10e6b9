# Shared by webenv.sh and tlsweb.sh (source it): stopping exactly the
# daemons a start launched, by PID, never by name.

# Is PID alive and running the program named $2? Guards against a reused PID.
is_ours() {
	local pid=$1 name=$2
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name"
}

# Gone, or a zombie: once start has exited nobody may reap our daemons soon.
is_gone() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ]
}

# Sends TERM, waits up to ~5 s, then KILL: a stuck process must not outlive the test.
stop_pid() {
	local pid=$1 name=$2
	is_ours "$pid" "$name" || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		is_gone "$pid" && return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	for _ in $(seq 20); do
		is_gone "$pid" && return 0
		sleep 0.1
	done
}

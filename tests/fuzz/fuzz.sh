#!/usr/bin/env bash
# make fuzz: runs each libFuzzer target of DIR/fuzz/ for SECONDS.
#   tests/fuzz/fuzz.sh DIR SECONDS TARGET...
# Inputs come from DIR/corpus/TARGET (new finds are written there, outside
# git) and the seeds in tests/fuzz/corpus/TARGET; tests/fuzz/TARGET.dict is
# used when present. A crash stops the run: its input is kept as
# DIR/crashes/TARGET-crash-..., its path printed, and the exit is non-zero.
# The targets' own log lines are silenced (-close_fd_mask=2); libFuzzer's
# output and sanitizer reports go to DIR/logs/TARGET.log.
set -u
cd "$(dirname "$0")/../.."
dir=$1 secs=$2
shift 2
mkdir -p "$dir/crashes" "$dir/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
for t in "$@"; do
	bin=$dir/fuzz/$t
	[ -x "$bin" ] || { echo "fuzz: no target $bin" >&2; exit 2; }
	mkdir -p "$dir/corpus/$t"
	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
	log=$dir/logs/$t.log
	printf '%-22s %4ss ... ' "$t" "$secs"
	before=$(ls "$dir/crashes" | wc -l)
	nice -n 10 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=2 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$dir/crashes/$t-" \
		"$dir/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "CRASH (exit $rc)"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 5 | sed 's/^/  /'
		ls -t "$dir/crashes" | head -n $(( $(ls "$dir/crashes" | wc -l) - before )) |
			sed "s|^|  input: $dir/crashes/|"
		echo "  log: $log"
		exit 1
	fi
	echo "ok: ${runs:-?} runs, corpus $(ls "$dir/corpus/$t" | wc -l) files"
done

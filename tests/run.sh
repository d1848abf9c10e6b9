#!/usr/bin/env bash
# Runs the whole suite: unit programs, then the scripts in tests/e2e/ and
# tests/mpi/. Each prints "result: P passed, F failed" as its last result line;
# a program that exits non-zero without one counts as one failure. Ends with
# the summary line "N passed, N failed" and exits non-zero if anything failed.
#
#   tests/run.sh                 everything (make test)
#   tests/run.sh NAME...         only these: "unit" (every unit program, built
#                                first), "lint", a unit program (test_merge),
#                                a script of tests/e2e or tests/mpi (stop,
#                                e2e/stop.sh, mpi/budget_ranks) - tests/README.md
set -u
cd "$(dirname "$0")/.."
# The public conformance suites live beside the repository (../shared/).
if [ -z "${CONFORMANCE_DIR:-}" ] && [ -d ../shared/conformance ]; then
	CONFORMANCE_DIR=$(cd ../shared/conformance && pwd)
	export CONFORMANCE_DIR
fi
passed=0
failed=0
skipped=0
failed_names=()

run_one() {
	local name=$1; shift
	local log
	log=$(mktemp)
	local start=$SECONDS
	"$@" >"$log" 2>&1
	local rc=$?
	local line
	line=$(grep -E '^result: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	local p=0 f=0 s=0
	if [ -n "$line" ]; then
		p=$(echo "$line" | sed -E 's/^result: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
		f=$(echo "$line" | sed -E 's/^result: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
		s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
		s=${s:-0}
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	printf '%-40s %5d passed %3d failed  %4ds%s\n' "$name" "$p" "$f" $((SECONDS - start)) \
		"$([ "$s" -gt 0 ] && echo "  ($s skipped)")"
	if [ "$f" -ne 0 ]; then
		failed_names+=("$name")
		grep -E '^not ok' "$log" | head -n 20
		tail -n 30 "$log" | sed 's/^/    /'
	fi
	rm -f "$log"
}

# named NAME: runs what NAME names (see the top), or says it names nothing.
named() {
	local n=${1%.sh} t
	case $n in
	unit)
		make --no-print-directory -j2 unit >/dev/null || { failed=$((failed + 1)); return; }
		for t in build/tests/test_*; do
			[ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
		done
		return ;;
	lint) run_one "lint" bash scripts/lint.sh; return ;;
	esac
	n=${n#unit/}
	if [ -x "build/tests/$n" ]; then
		run_one "unit/$n" "build/tests/$n"
		return
	fi
	for t in "tests/$n.sh" "tests/e2e/$n.sh" "tests/mpi/$n.sh"; do
		if [ -f "$t" ] && [ "$(basename "$t")" != lib.sh ]; then
			run_one "${t#tests/}" bash "$t"
			return
		fi
	done
	echo "tests/run.sh: '$1' names no test (unit, lint, test_NAME, or a script of tests/e2e or tests/mpi)" >&2
	exit 2
}

if [ $# -gt 0 ]; then
	for a in "$@"; do
		named "$a"
	done
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

run_one "lint" bash scripts/lint.sh
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer:
# any report fails the program (halt_on_error), leaks included.
if [ "${SANITIZE_TESTS:-1}" != 0 ]; then
	if make --no-print-directory -j2 B=build-san SANITIZE=address,undefined WERROR=1 unit \
		>build-san.log 2>&1; then
		for t in build-san/tests/test_*; do
			[ -x "$t" ] || continue
			ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
			UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
				run_one "asan/$(basename "$t")" "$t"
		done
	else
		echo "sanitizer build failed:"
		tail -n 20 build-san.log
		failed=$((failed + 1))
	fi
fi
# The fuzz targets once over each file of their seed corpora
# (tests/fuzz/corpus/TARGET), with tests/fuzz/replay.c in place of libFuzzer:
# under the sanitizers in build-san/, or plain in build/ when
# SANITIZE_TESTS=0. make fuzz is the real fuzzing (docs/FUZZING.md).
if [ "${SANITIZE_TESTS:-1}" != 0 ]; then
	fuzz_b=build-san
	fuzz_flags=(SANITIZE=address,undefined)
else
	fuzz_b=build
	fuzz_flags=()
fi
if make --no-print-directory -j2 B=$fuzz_b "${fuzz_flags[@]}" WERROR=1 fuzz-bins \
	>>build-san.log 2>&1; then
	for t in "$fuzz_b"/fuzz/fuzz_*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		[ -d "tests/fuzz/corpus/$name" ] || continue
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			run_one "fuzz/$name" "$t" "tests/fuzz/corpus/$name"
	done
else
	echo "fuzz target build failed:"
	tail -n 20 build-san.log
	failed=$((failed + 1))
fi
for t in tests/mpi/*.sh tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	[ "$(basename "$t")" = lib.sh ] && continue
	run_one "${t#tests/}" bash "$t"
done

if [ ${#failed_names[@]} -gt 0 ]; then
	echo "failed: ${failed_names[*]}"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$skipped checks skipped: the public conformance suites (robots.txt, URL, WARC)" \
		"were not found at ${CONFORMANCE_DIR:-../shared/conformance}; to run them, set" \
		"CONFORMANCE_DIR to the folder that holds them and run make test again"
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]

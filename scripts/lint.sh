#!/usr/bin/env bash
# Source checks in the spirit of curl's checksrc: banned functions, MPI only
# in src/comm/, line length; then the shape of src/ (scripts/lint_shape.py):
# functions of at most 100 lines, each third-party library included by its
# one wrapper file, the fetch event loop under 700 lines, exported symbols
# named after their module. Prints each finding as FILE:LINE: what, and ends
# with the result line tests/run.sh reads.
set -u
cd "$(dirname "$0")/.."
findings=0
files=$(git ls-files 'src/*.c' 'src/*.h' 'tests/*.c' 'tests/*.h' 'bench/*.c' 2>/dev/null)
[ -n "$files" ] || files=$(find src tests -name '*.[ch]')
report() {
	echo "$1"
	findings=$((findings + 1))
}
while IFS= read -r hit; do
	report "$hit: banned function (use snprintf/strtol/memcpy with a length)"
done < <(grep -nE '(^|[^_a-zA-Z0-9])(strcpy|strcat|sprintf|vsprintf|atoi|atol|strtok|gets)[[:space:]]*\(' $files /dev/null |
	grep -v '^tests/' | cut -d: -f1,2)
while IFS= read -r hit; do
	report "$hit: <mpi.h> outside src/comm/"
done < <(grep -ln '<mpi.h>' $files /dev/null | grep -v '^src/comm/')
while IFS= read -r hit; do
	report "$hit: line longer than 100 columns"
done < <(awk '{ gsub(/\t/, "        "); if (length($0) > 100) print FILENAME ":" FNR }' $(echo "$files" | grep '^src/'))
while IFS= read -r hit; do
	report "$hit"
done < <(python3 scripts/lint_shape.py | grep -v '^lint: ')
# A script that stops at the first failure (set -e) of a pipeline
# (pipefail) must not pipe into head: head may leave before the writer is
# done, whose SIGPIPE then ends the script (exit 141) - make demo did so in
# 5 runs of 8.
while IFS= read -r f; do
	while IFS= read -r hit; do
		report "$f:$hit: '| head' under set -e and pipefail (SIGPIPE ends the script)"
	done < <(grep -nE '\|[[:space:]]*head([[:space:]]|$)' "$f" | cut -d: -f1)
done < <(grep -lE '^[[:space:]]*set -[a-z]*e[a-z]*o pipefail|^[[:space:]]*set -o pipefail' \
	$(git ls-files 'scripts/*' 'slurm/*' 'bench/*.sh' 'tests/*.sh' 2>/dev/null) /dev/null |
	xargs -r grep -lE '^[[:space:]]*set -[a-z]*e' /dev/null)
# Every environment variable the code reads (getenv in src/) and every
# MPICRAWL_* one the scripts read is in docs/OPERATIONS.md's Environment
# table: MPICRAWL_CLOCK_OFFSET_S was documented only in passing.
while IFS= read -r var; do
	grep -q "^| \`$var\` |" docs/OPERATIONS.md ||
		report "docs/OPERATIONS.md: environment variable $var is read but not documented"
done < <({ grep -ohE 'getenv\("[A-Z_]+"\)' $(echo "$files" | grep '^src/') /dev/null |
	sed -E 's/getenv\("([A-Z_]+)"\)/\1/'
	git ls-files 'scripts/*' 'slurm/*' 2>/dev/null | xargs -r grep -ohE '\bMPICRAWL_[A-Z_]+'; } |
	sort -u)
if [ "$findings" -eq 0 ]; then
	echo "result: 1 passed, 0 failed"
else
	echo "result: 0 passed, 1 failed ($findings findings)"
	exit 1
fi

#!/usr/bin/env bash
# Submits a crawl campaign as a chain of N Slurm jobs, each starting when the
# one before it ended well (--dependency=afterok), each continuing the crawl
# in CRAWL_DIR where the last stopped (docs/OPERATIONS.md):
#
#   slurm/chain.sh N CRAWL_DIR SEEDS CONFIG [ROUNDS] [-- SBATCH_OPTIONS...]
#
# e.g. slurm/chain.sh 10 /scratch/crawl1 seeds.txt jobs/academic.conf 2 -- \
#          --nodes=2 --ntasks-per-node=16 --time=12:00:00
#
# A job that reaches its time limit stops early and requeues itself (see
# slurm/crawl.sbatch), so the chain waits for it; a job that fails (exit 1 or
# 2) ends the chain: the jobs after it are cancelled (--kill-on-invalid-dep).
# The sbatch options (the nodes and ranks of each job, its time limit...)
# go to every job as given. Prints the job ids, one per line. SBATCH
# (default: sbatch) and CRAWL_SBATCH (default: crawl.sbatch beside this
# script, in a checkout or an installation) may be overridden.
set -euo pipefail
usage() {
	echo "usage: slurm/chain.sh N CRAWL_DIR SEEDS CONFIG [ROUNDS] [-- SBATCH_OPTIONS...]" >&2
	exit 2
}
[ $# -ge 4 ] || usage
n=$1
shift
[[ $n =~ ^[1-9][0-9]*$ ]] || usage
args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	args+=("$1")
	shift
done
[ $# -gt 0 ] && shift
if [ ${#args[@]} -lt 3 ] || [ ${#args[@]} -gt 4 ]; then usage; fi
SBATCH=${SBATCH:-sbatch}
script=${CRAWL_SBATCH:-$(cd "$(dirname "$(readlink -f "$0")")" && pwd)/crawl.sbatch}
prev=
for ((i = 1; i <= n; i++)); do
	dep=()
	[ -n "$prev" ] && dep=(--dependency="afterok:$prev" --kill-on-invalid-dep=yes)
	prev=$("$SBATCH" --parsable "${dep[@]}" "$@" "$script" "${args[@]}")
	prev=${prev%%;*}
	echo "$prev"
done

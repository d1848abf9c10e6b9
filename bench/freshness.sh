# shellcheck shell=bash
# shellcheck disable=SC2034 # FAILED and FLOOR_MISSED are run.sh's
# Benchmark F of bench/run.sh: freshness - how current a budgeted crawl
# keeps its copies of pages that change. Sourced by run.sh, which provides
# say, md, WORK, WEB, WEBENV, SIMWEB, RANKS, mpi_timed, step_timeout,
# is_uint, FAILED and FLOOR_MISSED, and whose EXIT trap stops the web in
# $WEB.
#
# simweb --changing (BENCH_F_HOSTS x BENCH_F_PAGES, default 20 x 50 = 1,000
# pages) serves pages that change as Poisson processes of rates spread
# log-uniformly from hourly to yearly, under a simulated clock it reads
# from a file (tests/simweb/changing.h). Each simulated day d (0 to
# BENCH_F_DAYS - 1) the benchmark sets the clock of simweb and of mpicrawl
# (MPICRAWL_CLOCK_OFFSET_S) to the epoch + d days and runs one round,
# `mpicrawl crawl --rounds 1` with generate.top_n = BENCH_F_BUDGET, once
# per recrawl.policy:
#
#   fixed       every page every pages / budget days (crawl.refetch_interval_s):
#               the uniform rule, oldest copies first
#   adaptive    due after 1 / its estimated change rate: the proportional rule
#   nutch       Nutch's AdaptiveFetchSchedule
#   freshness   the marginal freshness of a fetch now (docs/SCORING.md)
#
# All four with crawl.refetch_interval_s = pages / budget days (the prior
# of a page without history) and the default recrawl.share. simweb then
# computes from its request log and its own change times the time-averaged
# freshness of each crawl's copies over days BENCH_F_FROM to BENCH_F_DAYS;
# python computes, from the true rates, what regular refetches at the
# optimum's frequencies (Cho and Garcia-Molina's allocation for the same
# budget), uniform and proportional frequencies would give. The floor:
# freshness's measured freshness is at least BENCH_F_FLOOR (0.95) of the
# optimum's and above every other policy's.
#
# Knobs: BENCH_F_HOSTS=20, BENCH_F_PAGES=50, BENCH_F_BUDGET=100,
# BENCH_F_DAYS=90, BENCH_F_FROM=30, BENCH_F_FLOOR=0.95,
# BENCH_F_POLICIES="fixed adaptive nutch freshness".

F_HOSTS=${BENCH_F_HOSTS:-20}
F_PAGES=${BENCH_F_PAGES:-50}
F_BUDGET=${BENCH_F_BUDGET:-100}
F_DAYS=${BENCH_F_DAYS:-90}
F_FROM=${BENCH_F_FROM:-30}
F_FLOOR=${BENCH_F_FLOOR:-0.95}
F_POLICIES=${BENCH_F_POLICIES:-fixed adaptive nutch freshness}

f_write_py() {
	cat >"$WORK/freshness.py" <<'PY'
"""Expected freshness of regular refetches at given frequencies, from the
true change rates: the optimum for a budget, uniform and proportional."""
import math, sys

def fresh(r, f):
    if r <= 0:
        return 1.0
    if f <= 0:
        return 0.0
    return (f / r) * -math.expm1(-r / f)

def h(x):
    return -math.expm1(-x) - x * math.exp(-x)

def freq_at(r, mu, fmax):
    """The frequency whose marginal freshness (1/r) h(r/f) is mu."""
    if mu * r >= 1:
        return 0.0
    lo, hi = 0.0, 1.0
    while h(hi) < mu * r:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if h(mid) < mu * r:
            lo = mid
        else:
            hi = mid
    return min(r / ((lo + hi) / 2), fmax)

def optimum(rates, budget, fmax):
    lo, hi = 0.0, max(1 / r for r in rates)
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(freq_at(r, mid, fmax) for r in rates) > budget:
            lo = mid
        else:
            hi = mid
    return [freq_at(r, hi, fmax) for r in rates]

def main():
    rates_file, budget_per_day = sys.argv[1], float(sys.argv[2])
    rates = [float(l.split("\t")[1]) for l in open(rates_file) if l.strip()]
    n = len(rates)
    budget = budget_per_day / 86400.0       # fetches a second
    fmax = 1 / 86400.0                      # one round a day: at most daily
    opt = optimum(rates, budget, fmax)
    uni = [budget / n] * n
    total = sum(rates)
    prop = [budget * r / total for r in rates]
    # proportional within the daily cap, the excess spread again
    for _ in range(50):
        over = sum(max(0.0, f - fmax) for f in prop)
        prop = [min(f, fmax) for f in prop]
        free = sum(r for r, f in zip(rates, prop) if f < fmax)
        if over <= 0 or free <= 0:
            break
        prop = [f + over * r / free if f < fmax else f for r, f in zip(rates, prop)]
    for name, fs in (("optimum", opt), ("uniform", uni), ("proportional", prop)):
        print("%s %.6f" % (name, sum(fresh(r, f) for r, f in zip(rates, fs)) / n))

main()
PY
}

# f_crawl POLICY: the days of one crawl of the changing web under POLICY.
f_crawl() {
	local policy=$1 d now off lim before rc
	local dir=$WORK/f.$policy
	F_WALL=0
	before=$(wc -l <"$SIMWEB_LOG")
	for ((d = 0; d < F_DAYS; d++)); do
		now=$(date +%s)
		off=$((F_EPOCH + d * 86400 - now))
		echo "$off" >"$WORK/f-clock.tmp" && mv "$WORK/f-clock.tmp" "$WORK/f-clock"
		lim=$(step_timeout 120)
		local seeds=()
		[ "$d" -eq 0 ] && seeds=(--seeds "$WORK/f-seeds")
		MPICRAWL_CLOCK_OFFSET_S=$off mpi_timed "f-$policy" "$lim" crawl --dir "$dir" \
			"${seeds[@]}" --rounds 1 --set fetch.allow_private=true \
			--set "dns.servers=127.0.0.1:$DNS_PORT" --set politeness.delay_ms=0 \
			--set politeness.max_in_flight=4 --set generate.round_s=0 \
			--set "generate.top_n=$F_BUDGET" --set "recrawl.policy=$policy" \
			--set "crawl.refetch_interval_s=$F_INTERVAL" \
			--set index.enabled=false --set fetch.embeds=false
		rc=$?
		if [ "$rc" -ne 0 ]; then
			say "F: $policy: day $d: the crawl failed (exit $rc); the end of its output:"
			tail -n 5 "$WORK/f-$policy.out" >&3
			FAILED=1
			return 1
		fi
		read_time "$WORK/f-$policy.time"
		F_WALL=$(awk -v a="$F_WALL" -v b="$T_WALL" 'BEGIN { print a + b }')
	done
	sleep 0.3   # simweb flushes its log every 100 ms
	tail -n +"$((before + 1))" "$SIMWEB_LOG" >"$WORK/f-$policy.log"
	say "F: $policy: $F_DAYS rounds in $F_WALL s, $(grep -c $'\t/c/' "$WORK/f-$policy.log") page requests"
}

# f_measure POLICY: simweb's freshness of the crawl's copies; sets F_VALUE.
f_measure() {
	local policy=$1
	"$SIMWEB" --changing --freshness "$WORK/f-$policy.log" --epoch "$F_EPOCH" \
		--from "$((F_EPOCH + F_FROM * 86400))" --to "$((F_EPOCH + F_DAYS * 86400))" \
		--hosts "$F_HOSTS" --pages "$F_PAGES" >"$WORK/f-$policy.fresh" ||
		{ say "F: simweb --freshness failed for $policy"; FAILED=1; return 1; }
	F_VALUE=$(awk '$1 == "freshness" { print $2 }' "$WORK/f-$policy.fresh")
	F_FETCHES=$(awk '$1 == "fetches" { print $2 }' "$WORK/f-$policy.fresh")
}

bench_f() {
	local v n policy best_other=0 best_name=none mine=none opt uni prop
	for v in F_HOSTS F_PAGES F_BUDGET F_DAYS F_FROM; do
		is_uint "${!v}" || { say "F: $v='${!v}' is not a number"; FAILED=1; return; }
	done
	n=$((F_HOSTS * F_PAGES))
	[ "$F_BUDGET" -ge 1 ] && [ "$F_FROM" -lt "$F_DAYS" ] ||
		{ say "F: the budget is 0 or BENCH_F_FROM is not before BENCH_F_DAYS"; FAILED=1; return; }
	F_INTERVAL=$((n * 86400 / F_BUDGET))
	F_EPOCH=$(($(date +%s) - 60))
	f_write_py
	md "## F. Freshness: a budgeted crawl of pages that change"
	md ""
	echo 0 >"$WORK/f-clock"
	say "F: starting simweb --changing with $F_HOSTS hosts x $F_PAGES pages"
	WEB=$WORK/web-f
	"$WEBENV" start "$WEB" --changing --hosts "$F_HOSTS" --pages "$F_PAGES" \
		--epoch "$F_EPOCH" --clock-file "$WORK/f-clock" >/dev/null ||
		{ say "F: the local web did not start"; md "The local web did not start."; FAILED=1; WEB=; return; }
	# shellcheck disable=SC1091
	. "$WEB/env"
	"$SIMWEB" --changing --seeds --hosts "$F_HOSTS" --pages "$F_PAGES" --port "$SIMWEB_PORT" \
		>"$WORK/f-seeds"
	"$SIMWEB" --changing --rates --hosts "$F_HOSTS" --pages "$F_PAGES" --port "$SIMWEB_PORT" \
		>"$WORK/f-rates" || { say "F: simweb --rates failed"; FAILED=1; return; }
	python3 "$WORK/freshness.py" "$WORK/f-rates" "$F_BUDGET" >"$WORK/f-bounds" ||
		{ say "F: the bounds' computation failed"; FAILED=1; return; }
	opt=$(awk '$1 == "optimum" { print $2 }' "$WORK/f-bounds")
	uni=$(awk '$1 == "uniform" { print $2 }' "$WORK/f-bounds")
	prop=$(awk '$1 == "proportional" { print $2 }' "$WORK/f-bounds")
	md "simweb --changing --hosts $F_HOSTS --pages $F_PAGES: $n pages, each changing as a Poisson process, the rates spread log-uniformly from once an hour to once a year; no links (the seeds are every page). One round a simulated day for $F_DAYS days: \`mpirun -n $RANKS mpicrawl crawl --rounds 1 --set generate.top_n=$F_BUDGET --set recrawl.policy=P --set crawl.refetch_interval_s=$F_INTERVAL\` ($F_BUDGET fetches a day; every page every $((n / F_BUDGET)) days under the fixed policy) \`--set politeness.delay_ms=0 --set generate.round_s=0 --set index.enabled=false --set fetch.embeds=false\`, simweb's clock and MPICRAWL_CLOCK_OFFSET_S set to the epoch + d days before round d. Freshness: the share of pages whose copy (the version simweb last served the crawler) is current, averaged over days $F_FROM to $F_DAYS, computed by simweb from its log and its change times (\`simweb --changing --freshness\`). The bounds: the expected freshness of regular refetches at the optimum's frequencies for the same budget (Cho and Garcia-Molina's allocation, at most daily), at one frequency for all (uniform) and in proportion to the true rates (proportional), computed from simweb's true rates."
	md ""
	md "| policy | freshness | of the optimum | page fetches in the window | wall (s) |"
	md "|---|---|---|---|---|"
	for policy in $F_POLICIES; do
		f_crawl "$policy" || return
		f_measure "$policy" || return
		md "| $policy | $F_VALUE | $(awk -v a="$F_VALUE" -v b="$opt" 'BEGIN { r = 0; if (b > 0) r = a / b; printf "%.3f", r }') | $F_FETCHES | $F_WALL |"
		if [ "$policy" = freshness ]; then
			mine=$F_VALUE
		elif awk -v a="$F_VALUE" -v b="$best_other" 'BEGIN { exit !(a > b) }'; then
			best_other=$F_VALUE
			best_name=$policy
		fi
	done
	md "| *bound:* optimum, true rates | $opt | 1 | | |"
	md "| *bound:* uniform, true rates | $uni | $(awk -v a="$uni" -v b="$opt" 'BEGIN { r = 0; if (b > 0) r = a / b; printf "%.3f", r }') | | |"
	md "| *bound:* proportional, true rates | $prop | $(awk -v a="$prop" -v b="$opt" 'BEGIN { r = 0; if (b > 0) r = a / b; printf "%.3f", r }') | | |"
	md ""
	md "By change rate (changes a day), freshness of each policy's copies:"
	md ""
	f_decades
	md ""
	say "F: freshness $mine, best other $best_name $best_other, optimum $opt"
	if [ "$mine" = none ]; then
		return
	fi
	if awk -v m="$mine" -v o="$opt" -v f="$F_FLOOR" 'BEGIN { exit !(m < f * o) }'; then
		md "- Floor **NOT MET**: freshness $mine is under $F_FLOOR of the optimum $opt."
		FLOOR_MISSED=1
	else
		md "- Floor met: freshness $mine is at least $F_FLOOR of the optimum $opt."
	fi
	if awk -v m="$mine" -v b="$best_other" 'BEGIN { exit !(m <= b) }'; then
		md "- Floor **NOT MET**: $best_name ($best_other) is at least as fresh as freshness ($mine)."
		FLOOR_MISSED=1
	elif [ "$best_name" != none ]; then
		md "- Floor met: above every other policy (the best, $best_name, $best_other)."
	fi
	"$WEBENV" stop "$WEB" >/dev/null 2>&1
	WEB=
}

# The rate-decade lines of every policy's simweb output, side by side.
f_decades() {
	local policy head="| changes a day |" rule="|---|"
	for policy in $F_POLICIES; do
		head="$head $policy |"
		rule="$rule---|"
	done
	md "$head"
	md "$rule"
	awk -v pol="$F_POLICIES" -v dir="$WORK" '
		BEGIN {
			np = split(pol, p, " ")
			for (i = 1; i <= np; i++) {
				f = dir "/f-" p[i] ".fresh"
				while ((getline line < f) > 0) {
					split(line, x, " ")
					if (x[1] != "decade")
						continue
					key = x[2] " to " x[3]
					if (!(key in seen)) {
						seen[key] = 1
						order[++nk] = key
						pages[key] = x[4]
					}
					cell[key, i] = sprintf("%.3f (%d fetches)", x[5], x[6])
				}
				close(f)
			}
			for (k = 1; k <= nk; k++) {
				row = "| " order[k] " (" pages[order[k]] " pages) |"
				for (i = 1; i <= np; i++)
					row = row " " cell[order[k], i] " |"
				print row
			}
		}' >>"$RES"
}

#!/usr/bin/env bash
# Wall and CPU time of a healthy `cgwatch check` against `ps -eLo pid,tid,stat,wchan`, side by
# side in one run: the two commands alternate, RUNS times each, with N extra sleeping threads
# (tests/live/manythreads.c). Prints the medians and the ratio of the medians, cgwatch / ps.
# "Healthy": a config whose thresholds (a day) nothing reaches, so that tasks stuck on a
# shared machine do not turn the check into a diagnosis; it still reads every thread's stat,
# and sched for every D and R one.
# usage: sudo bench/check.sh [THREADS...]   (default 30000)   env: RUNS (default 9), CGWATCH
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-9}
CGW=${CGWATCH:-build/cgwatch}
. bench/lib.sh
[ $# -gt 0 ] || set -- 30000
bench_init
bench_healthy_conf "$tmp/healthy.conf"


printf '%-8s %-30s %12s %12s\n' threads tool "wall ms" "CPU ms"
for load in "$@"; do
	bench_load_start "$load"
	: >"$tmp/cgw"; : >"$tmp/ps"
	for ((i = 0; i < RUNS; i++)); do
		bench_run "$CGW" check --config "$tmp/healthy.conf" >>"$tmp/cgw"
		bench_run ps -eLo pid,tid,stat,wchan >>"$tmp/ps"
	done
	bench_load_stop
	cw=$(cut -d' ' -f1 "$tmp/cgw" | bench_median); cc=$(cut -d' ' -f2 "$tmp/cgw" | bench_median)
	pw=$(cut -d' ' -f1 "$tmp/ps" | bench_median); pc=$(cut -d' ' -f2 "$tmp/ps" | bench_median)
	printf '%-8s %-30s %12.0f %12.0f\n' "$total" "cgwatch check (healthy)" \
		"$(echo "$cw * 1000" | bc -l)" "$(echo "$cc * 1000" | bc -l)"
	printf '%-8s %-30s %12.0f %12.0f\n' "$total" "ps -eLo pid,tid,stat,wchan" \
		"$(echo "$pw * 1000" | bc -l)" "$(echo "$pc * 1000" | bc -l)"
	printf '%-8s %-30s %12.2f %12.2f\n' "$total" "ratio cgwatch / ps" \
		"$(echo "$cw / $pw" | bc -l)" "$(echo "$cc / $pc" | bc -l)"
done

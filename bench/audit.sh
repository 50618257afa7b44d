#!/usr/bin/env bash
# Wall and CPU time of `cgwatch audit` against the bare reads a user would otherwise do for
# the same questions, side by side in one run: `ps -eLo policy,psr,pcpu` (which thread is
# real-time, on which CPU, with how much of it) and one `cat` of every /proc/*/task/*/stat.
# The three alternate, RUNS times each, with N extra sleeping threads (tests/live/manythreads.c).
# Prints the medians and the ratios of the medians, cgwatch / ps. The audit's wall time holds
# its sampling windows (0.25 s for the real-time threads' share, and on a host with cgroup v1
# hierarchies 0.25 s of cgroup event counts and ~0.3 s closing the perf counters); its CPU
# time is the reading.
# usage: sudo bench/audit.sh [THREADS...]   (default 30000)   env: RUNS (default 7), CGWATCH
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-7}
CGW=${CGWATCH:-build/cgwatch}
. bench/lib.sh
[ $# -gt 0 ] || set -- 30000
bench_init

catstat() { cat /proc/[0-9]*/task/[0-9]*/stat; }

printf '%-8s %-34s %12s %12s\n' threads tool "wall ms" "CPU ms"
for load in "$@"; do
	bench_load_start "$load"
	: >"$tmp/cgw"; : >"$tmp/ps"; : >"$tmp/cat"
	for ((i = 0; i < RUNS; i++)); do
		bench_run "$CGW" audit >>"$tmp/cgw"
		bench_run ps -eLo policy,psr,pcpu >>"$tmp/ps"
		bench_run catstat >>"$tmp/cat"
	done
	bench_load_stop
	for t in cgw ps cat; do
		eval "${t}w=\$(cut -d' ' -f1 \"\$tmp/$t\" | bench_median); ${t}c=\$(cut -d' ' -f2 \"\$tmp/$t\" | bench_median)"
	done
	line() { printf '%-8s %-34s %12.0f %12.0f\n' "$total" "$1" "$(echo "$2 * 1000" | bc -l)" "$(echo "$3 * 1000" | bc -l)"; }
	line "cgwatch audit" "$cgww" "$cgwc"
	line "ps -eLo policy,psr,pcpu" "$psw" "$psc"
	line "cat /proc/*/task/*/stat" "$catw" "$catc"
	printf '%-8s %-34s %12.2f %12.2f\n' "$total" "ratio cgwatch / ps" \
		"$(echo "$cgww / $psw" | bc -l)" "$(echo "$cgwc / $psc" | bc -l)"
done

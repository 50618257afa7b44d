#!/usr/bin/env bash
# Wall and CPU time of `cgwatch audit` against the bare reads a user would otherwise do for
# the same questions, side by side in one run: `ps -eLo policy,psr,pcpu` (which thread is
# real-time, on which CPU, with how much of it) and one `cat` of every /proc/*/task/*/stat.
# The three alternate, RUNS times each, with N extra sleeping threads (bench/threads.c).
# Prints the medians and the ratios of the medians, cgwatch / ps. The audit's wall time holds
# its sampling windows (0.25 s for the real-time threads' share, and on a host with cgroup v1
# hierarchies 0.25 s of cgroup event counts and ~0.3 s closing the perf counters); its CPU
# time is the reading.
# usage: sudo bench/audit.sh [THREADS...]   (default 30000)   env: RUNS (default 7), CGWATCH
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-7}
CGW=${CGWATCH:-build/cgwatch}
mkdir -p build
cc -O2 -pthread -o build/bench-threads bench/threads.c || exit 1
[ $# -gt 0 ] || set -- 30000
tmp=$(mktemp -d)
LOAD_PID=
cleanup() {
	[ -n "${LOAD_PID:-}" ] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
catstat() { cat /proc/[0-9]*/task/[0-9]*/stat; }

printf '%-8s %-34s %12s %12s\n' threads tool "wall ms" "CPU ms"
for load in "$@"; do
	coproc LOAD { exec build/bench-threads "$load"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
	: >"$tmp/cgw"; : >"$tmp/ps"; : >"$tmp/cat"
	for ((i = 0; i < RUNS; i++)); do
		run "$CGW" audit >>"$tmp/cgw"
		run ps -eLo policy,psr,pcpu >>"$tmp/ps"
		run catstat >>"$tmp/cat"
	done
	kill "${LOAD_PID:-}" 2>/dev/null
	wait "${LOAD_PID:-}" 2>/dev/null
	LOAD_PID=
	for t in cgw ps cat; do
		eval "${t}w=\$(cut -d' ' -f1 \"\$tmp/$t\" | median); ${t}c=\$(cut -d' ' -f2 \"\$tmp/$t\" | median)"
	done
	line() { printf '%-8s %-34s %12.0f %12.0f\n' "$total" "$1" "$(echo "$2 * 1000" | bc -l)" "$(echo "$3 * 1000" | bc -l)"; }
	line "cgwatch audit" "$cgww" "$cgwc"
	line "ps -eLo policy,psr,pcpu" "$psw" "$psc"
	line "cat /proc/*/task/*/stat" "$catw" "$catc"
	printf '%-8s %-34s %12.2f %12.2f\n' "$total" "ratio cgwatch / ps" \
		"$(echo "$cgww / $psw" | bc -l)" "$(echo "$cgwc / $psc" | bc -l)"
done

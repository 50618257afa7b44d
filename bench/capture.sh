#!/usr/bin/env bash
# What recording costs: a healthy `cgwatch check` against `cgwatch check --capture DIR` (every
# file the scan reads is recorded as read, then only the findings' and the host files are
# written), and against what a support engineer would otherwise run to keep the state of every
# thread: `cat` of every thread's stat and stack into a file (xargs: no argument-list limit). Side by side in one run: the
# three alternate, RUNS times each, with N extra sleeping threads (tests/live/manythreads.c). Prints
# the medians of wall and CPU time (user + sys), CPU µs per thread, and the peak RSS.
# "Healthy": thresholds (a day) nothing reaches, so tasks stuck on a shared machine do not
# turn the check into a diagnosis.
# usage: sudo bench/capture.sh [THREADS...]   (default 5000 30000)   env: RUNS (default 7), CGWATCH
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-7}
CGW=${CGWATCH:-build/cgwatch}
. bench/lib.sh
[ $# -gt 0 ] || set -- 5000 30000
bench_init
bench_healthy_conf "$tmp/healthy.conf"

# one run: "wall_s cpu_s maxrss_kib" (GNU time: 10 ms resolution)
run() {
	/usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$@" >/dev/null 2>&1
	awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' "$tmp/t"
}

printf '%-8s %-36s %9s %9s %14s %9s\n' threads tool "wall ms" "CPU ms" "CPU µs/thread" "RSS KiB"
for load in "$@"; do
	bench_load_start "$load"
	: >"$tmp/check"; : >"$tmp/capture"; : >"$tmp/byhand"
	for ((i = 0; i < RUNS; i++)); do
		run "$CGW" check --config "$tmp/healthy.conf" >>"$tmp/check"
		rm -rf "$tmp/cap"
		run "$CGW" check --config "$tmp/healthy.conf" --capture "$tmp/cap" >>"$tmp/capture"
		run bash -c 'printf "%s\0" /proc/[0-9]*/task/[0-9]*/stat /proc/[0-9]*/task/[0-9]*/stack |
			xargs -0 cat >"$1" 2>/dev/null; :' bash "$tmp/byhand.txt" >>"$tmp/byhand"
	done
	bench_load_stop
	for t in check capture byhand; do
		case $t in
		check) name="cgwatch check (healthy)" ;;
		capture) name="cgwatch check --capture DIR" ;;
		byhand) name="cat every stat and stack > file" ;;
		esac
		w=$(cut -d' ' -f1 "$tmp/$t" | bench_median); c=$(cut -d' ' -f2 "$tmp/$t" | bench_median)
		m=$(cut -d' ' -f3 "$tmp/$t" | bench_median)
		printf '%-8s %-36s %9.0f %9.0f %14.2f %9s\n' "$total" "$name" \
			"$(echo "$w * 1000" | bc -l)" "$(echo "$c * 1000" | bc -l)" \
			"$(echo "$c * 1000000 / $total" | bc -l)" "$m"
	done
done

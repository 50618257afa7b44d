#!/usr/bin/env bash
# Cost of one full scan of every thread: cgwatch check against what a user would otherwise run
# (ps -eLo with state, ps with wchan, top -H), in the same run, at several thread counts.
# Prints CPU time per thread (user+sys, µs) and peak RSS, median of RUNS runs. cgwatch runs
# with thresholds (a day) that nothing reaches: a healthy check, even on a shared machine
# where other tasks are stuck.
# usage: sudo bench/scan.sh [THREADS...]   (default 2000 10000)   needs: gcc, GNU time
set -u
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
CGW=${CGWATCH:-build/cgwatch}
mkdir -p build
cc -O2 -pthread -o build/bench-threads tests/live/manythreads.c || exit 1
conf=$(mktemp)
LOAD_PID=
trap 'rm -f "$conf"; [ -z "${LOAD_PID:-}" ] || kill "$LOAD_PID" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
printf '[thresholds]\nblocked_warning = 86400\nblocked_critical = 86400\nstarved = 86400\n' >"$conf"
[ $# -gt 0 ] || set -- 2000 10000

measure() {   # prints "cpu_us_per_thread maxrss_kib" (medians)
	local n=$1; shift
	local i u s m cpu=() rss=() tf
	tf=$(mktemp)
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -o "$tf" -f '%U %S %M' "$@" >/dev/null 2>&1
		read -r u s m < <(tail -1 "$tf")
		cpu+=("$(echo "($u + $s) * 1000000 / $n" | bc -l)")
		rss+=("$m")
	done
	rm -f "$tf"
	printf '%s %s\n' "$(printf '%s\n' "${cpu[@]}" | sort -g | sed -n "$((RUNS / 2 + 1))p")" \
		"$(printf '%s\n' "${rss[@]}" | sort -g | sed -n "$((RUNS / 2 + 1))p")"
}

printf '%-8s %-34s %14s %10s\n' threads tool "CPU µs/thread" "max RSS KiB"
for load in "$@"; do
	coproc LOAD { exec build/bench-threads "$load"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
	for tool in "cgwatch check|$CGW check --config $conf" "ps -eLo pid,tid,stat|ps -eLo pid,tid,stat" \
	            "ps -eLo pid,tid,stat,wchan|ps -eLo pid,tid,stat,wchan" "top -H -b -n1|top -H -b -n1"; do
		name=${tool%%|*}
		read -r -a cmd <<<"${tool#*|}"
		read -r cpu rss < <(measure "$total" "${cmd[@]}")
		printf '%-8s %-34s %14.2f %10s\n' "$total" "$name" "$cpu" "$rss"
	done
	kill "$LOAD_PID" 2>/dev/null
	wait "$LOAD_PID" 2>/dev/null
done

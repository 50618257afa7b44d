#!/usr/bin/env bash
# Wall and CPU time of a healthy `cgwatch check` against `ps -eLo pid,tid,stat,wchan`, side by
# side in one run: the two commands alternate, RUNS times each, with N extra sleeping threads
# (bench/threads.c). Prints the medians and the ratio of the medians, cgwatch / ps.
# "Healthy": a config whose thresholds (a day) nothing reaches, so that tasks stuck on a
# shared machine do not turn the check into a diagnosis; it still reads every thread's stat,
# and sched for every D and R one.
# usage: sudo bench/check.sh [THREADS...]   (default 30000)   env: RUNS (default 9), CGWATCH
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-9}
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
cat >"$tmp/healthy.conf" <<'EOF'
[thresholds]
blocked_warning = 86400
blocked_critical = 86400
starved = 86400
EOF

# one run: "wall_s cpu_s" (bash's time: ms resolution; CPU is user + sys of the command)
run() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-8s %-30s %12s %12s\n' threads tool "wall ms" "CPU ms"
for load in "$@"; do
	coproc LOAD { exec build/bench-threads "$load"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
	: >"$tmp/cgw"; : >"$tmp/ps"
	for ((i = 0; i < RUNS; i++)); do
		run "$CGW" check --config "$tmp/healthy.conf" >>"$tmp/cgw"
		run ps -eLo pid,tid,stat,wchan >>"$tmp/ps"
	done
	kill "${LOAD_PID:-}" 2>/dev/null
	wait "${LOAD_PID:-}" 2>/dev/null
	LOAD_PID=
	cw=$(cut -d' ' -f1 "$tmp/cgw" | median); cc=$(cut -d' ' -f2 "$tmp/cgw" | median)
	pw=$(cut -d' ' -f1 "$tmp/ps" | median); pc=$(cut -d' ' -f2 "$tmp/ps" | median)
	printf '%-8s %-30s %12.0f %12.0f\n' "$total" "cgwatch check (healthy)" \
		"$(echo "$cw * 1000" | bc -l)" "$(echo "$cc * 1000" | bc -l)"
	printf '%-8s %-30s %12.0f %12.0f\n' "$total" "ps -eLo pid,tid,stat,wchan" \
		"$(echo "$pw * 1000" | bc -l)" "$(echo "$pc * 1000" | bc -l)"
	printf '%-8s %-30s %12.2f %12.2f\n' "$total" "ratio cgwatch / ps" \
		"$(echo "$cw / $pw" | bc -l)" "$(echo "$cc / $pc" | bc -l)"
done

#!/usr/bin/env bash
# What measuring run-queue latency costs a busy host: the daemon (`cgwatch run`, scan interval
# 1 s, healthy thresholds, recorder off) with [latency] runq = no, schedstat and auto (the
# sched_switch program), RUNS times each, alternating, in one run, each under
#   - a fork storm: ITER forks and execs of /bin/true from a shell (its wall and CPU time);
#   - a context-switch storm: bench/pingpong.c, two threads pinned to CPU 1 handing a byte
#     over two pipes SWITCH_ITER times (2 SWITCH_ITER switches; its wall and CPU time,
#     getrusage: the tracepoint's cost lands in the task that switches, so CPU per switch
#     against runq = no is what the program costs a switch).
# The daemon's CPU share is its CPU time (utime + stime of /proc/PID/stat: all its threads,
# 10 ms ticks) over the storm's wall time; and over IDLE_S (10) seconds of no storm. Prints the medians and their quartiles.
# usage: sudo bench/latency.sh   env: RUNS (5), ITER (2000), SWITCH_ITER (200000),
#        IDLE_S (10), CGWATCH (build/cgwatch)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
RUNS=${RUNS:-5}
ITER=${ITER:-2000}
SWITCH_ITER=${SWITCH_ITER:-200000}
CGW=${CGWATCH:-build/cgwatch}
[ "$(id -u)" = 0 ] || { echo "bench/latency.sh: run as root" >&2; exit 1; }
[ -x "$CGW" ] || { echo "bench/latency.sh: $CGW missing: make first" >&2; exit 1; }
bench_init
cc -O2 -Wall -pthread -o "$tmp/pp" bench/pingpong.c || exit 1
DPID=
stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}
trap 'stop_daemon; bench_cleanup' EXIT

# start_daemon MODE: `cgwatch run` with [latency] runq = MODE, once it has scanned twice
start_daemon() {
	local d=$tmp/$1 i
	mkdir -p "$d"
	cat >"$d/conf" <<EOC
[scan]
interval = 1
[thresholds]
blocked_warning = 86400
blocked_critical = 86400
starved = 86400
[reports]
dir = $d/reports
[run]
state_dir = $d/state
metrics_file = $d/m.prom
lock_memory = no
[bundle]
auto = no
dir = $d/bundles
[recorder]
enabled = no
[latency]
runq = $1
EOC
	"$CGW" run --config "$d/conf" </dev/null >/dev/null 2>"$d/err" &
	DPID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q '^cgwatch_scans_total [2-9]' "$d/m.prom" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "bench/latency.sh: the daemon ($1) did not scan twice in 10 s: $(tail -c 300 "$d/err")" >&2
	exit 1
}
# the daemon's CPU time, ns: utime + stime of /proc/PID/stat, all its threads, those that
# ended too (the writers, the audit), in clock ticks
TCK=$(getconf CLK_TCK)
dcpu() { awk -v t="$TCK" '{ sub(/^.*\) /, ""); printf "%d", ($12 + $13) * 1e9 / t }' "/proc/$DPID/stat"; }
forks() {
	local i=0
	while [ $i -lt "$ITER" ]; do /bin/true; i=$((i + 1)); done
}
# one storm under the running daemon: "wall_s cpu_s daemon_share_%" into $tmp/KIND.MODE
storm() {
	local kind=$1 mode=$2 c0 c1 res
	c0=$(dcpu)
	if [ "$kind" = fork ]; then
		res=$(bench_run forks)
	else
		res=$("$tmp/pp" 1 "$SWITCH_ITER" | awk '{ v[$1] = $2 } END { print v["wall_s"], v["cpu_s"] }')
	fi
	c1=$(dcpu)
	awk -v r="$res" -v a="$c0" -v b="$c1" 'BEGIN { split(r, x, " "); printf "%s %s %.3f\n", x[1], x[2], (b - a) / 1e9 / x[1] * 100 }' \
		>>"$tmp/$kind.$mode"
}

IDLE_S=${IDLE_S:-10}
idle() {
	local c0 c1
	c0=$(dcpu)
	sleep "$IDLE_S"
	c1=$(dcpu)
	awk -v a="$c0" -v b="$c1" -v w="$IDLE_S" 'BEGIN { printf "%s 0 %.3f\n", w, (b - a) / 1e9 / w * 100 }' >>"$tmp/idle.$1"
}
MODES=(no schedstat auto)
for ((r = 0; r < RUNS; r++)); do
	for m in "${MODES[@]}"; do
		start_daemon "$m"
		idle "$m"
		storm fork "$m"
		storm switch "$m"
		stop_daemon
	done
done
src=$(grep -m1 'run-queue latency' "$tmp/auto/err" | sed 's/^cgwatch: run-queue latency: //')
quart() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f..%.3f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'; }
col() { cut -d' ' -f"$2" "$tmp/$1" | bench_median; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each, medians (Q1..Q3)"
echo "runq = auto: $src"
printf '%-50s %8s %8s %17s %10s %12s %14s\n' "storm, [latency] runq" "wall s" "CPU s" "CPU s Q1..Q3" \
	"per s" "CPU/op" "daemon CPU %"
for m in "${MODES[@]}"; do
	printf '%-50s %8s %8s %17s %10s %12s %14s\n' "idle host (${IDLE_S} s), runq = $m" - - - - - \
		"$(col "idle.$m" 3) ($(cut -d' ' -f3 "$tmp/idle.$m" | quart))"
done
for k in fork switch; do
	for m in "${MODES[@]}"; do
		w=$(col "$k.$m" 1); c=$(col "$k.$m" 2); d=$(col "$k.$m" 3)
		if [ "$k" = fork ]; then n=$ITER; label="fork storm ($ITER forks+execs), runq = $m"
		else n=$((2 * SWITCH_ITER)); label="switch storm ($n switches), runq = $m"; fi
		printf '%-50s %8.3f %8.3f %17s %10.0f %9.3f us %14s\n' "$label" "$w" "$c" \
			"$(cut -d' ' -f2 "$tmp/$k.$m" | quart)" "$(echo "$n / $w" | bc -l)" \
			"$(echo "$c * 1000000 / $n" | bc -l)" "$d ($(cut -d' ' -f3 "$tmp/$k.$m" | quart))"
	done
done

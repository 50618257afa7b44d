#!/usr/bin/env bash
# The daemon's steady-state scan CPU through each of its sources, side by side in one run:
# `cgwatch run` with [scan] source = auto (the task walker, the open-coded task iterator), the
# same with BPF_PROG_TEST_RUN refused by a seccomp filter (tests/live/nobpf --test-run: the
# walker cannot run, the iter/task program is the source, as on a kernel before 6.7), and with
# source = proc (stat fds kept open and pread: the floor of any /proc reader), each scanning
# every second for DURATION seconds at each thread count, alternating ROUNDS times. The
# thresholds are a day, which no task reaches: the steady state of a healthy host, even on a
# shared machine where other jobs' tasks are stuck. Then, at each count, the walker's runs per
# walk and its longest run (CHECKS runs of `check --verbose`: its "task walk" line): the
# longest a run holds its CPU (RCU read lock, no preemption; `[scan] source = walker`: a check
# loads the iterator only by default). Memory: the daemon's VmRSS and
# VmLck (it locks its memory: lock_memory = yes) at the end of each run.
# usage: bench/bpfscan.sh [THREADS...]   (default 10000 30000; as root)
# env: DURATION (20), ROUNDS (2), CHECKS (10), CGWATCH (build/cgwatch)
set -u
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-2}
CHECKS=${CHECKS:-10}
CGW=${CGWATCH:-build/cgwatch}
mkdir -p build
cc -O2 -pthread -o build/bench-threads tests/live/manythreads.c || exit 1
tests/live/build.sh && [ -x tests/live/bin/nobpf ] || exit 1
[ $# -gt 0 ] || set -- 10000 30000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in auto iter proc; do
	cat >"$tmp/$src.conf" <<EOC
[scan]
interval = 1
source = ${src/iter/auto}
[thresholds]
blocked_warning = 86400
blocked_critical = 86400
starved = 86400
[reports]
dir = $tmp/reports-$src
[run]
state_dir = $tmp/state-$src
lock_memory = yes
[recorder]
# the flight recorder on, as by default, in an instance of its own (not a service's)
instance = cgwbench$$$src
[pressure]
# no PSI triggers: on a host under pressure a trigger adds scans (CPU per scan is per 1 s)
cpu = no
memory = no
io = no
EOC
done
# `check` loads the walker only when told to (one scan would not repay its verification)
cat >"$tmp/walker.conf" <<EOC
[scan]
source = walker
[thresholds]
blocked_warning = 86400
blocked_critical = 86400
starved = 86400
EOC

# the CPU time of all its threads, s: the scheduler's own count (schedstat, ns), not the
# ticks of utime and stime (10 ms each: a scan of a few ms is seen or not)
cpu_s() { cat /proc/$1/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%.6f\n", t / 1e9 }'; }

printf '%-8s %-34s %16s %12s %12s\n' threads "cgwatch run (interval 1 s)" "CPU ms per scan" "RSS KiB" \
	"locked KiB"
for load in "$@"; do
	coproc LOAD { exec build/bench-threads "$load"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
	ulimit -n 65536 2>/dev/null   # as the unit does (LimitNOFILE=); else the fd cache is capped
	for ((round = 0; round < ROUNDS; round++)); do
		for src in auto iter proc; do
			wrap=()
			[ "$src" = iter ] && wrap=(tests/live/bin/nobpf --test-run)
			"${wrap[@]}" "$CGW" run --config "$tmp/$src.conf" 2>"$tmp/$src.log" &
			d=$!
			sleep 3                           # first scans: fds opened, program loaded
			c0=$(cpu_s $d)
			sleep "$DURATION"
			c1=$(cpu_s $d)
			rss=$(awk '/^VmRSS/ {print $2}' /proc/$d/status)
			lck=$(awk '/^VmLck/ {print $2}' /proc/$d/status)
			kill -TERM $d; wait $d 2>/dev/null
			said=$(grep -m1 'scan source: ' "$tmp/$src.log")
			case $said in
			*"task walker loaded"*) said="bpf: task walker" ;;
			*"task iterator loaded"*) said="bpf: iter/task program" ;;
			*"scan source: /proc"*) said="/proc (fds kept, pread)" ;;
			*) said="? (no scan source said)" ;;
			esac
			printf '%-8s %-34s %16.3f %12s %12s\n' "$total" "$said ($src)" \
				"$(echo "($c1 - $c0) * 1000 / $DURATION" | bc -l)" "$rss" "$lck"
		done
	done
	runs=() longest=0
	for ((i = 0; i < CHECKS; i++)); do
		# two walks a check: the one that tries the walker when it loads, and the scan
		while read -r line; do
			runs+=("$(sed -E 's/.* in ([0-9]+) runs.*/\1/' <<<"$line")")
			ms=$(sed -E 's/.*the longest ([0-9.]+) ms.*/\1/' <<<"$line")
			longest=$(echo "if ($ms > $longest) $ms else $longest" | bc -l)
		done < <("$CGW" check --verbose --config "$tmp/walker.conf" 2>&1 >/dev/null | grep 'task walk: ')
	done
	printf '%-8s task walker: %s runs a walk (%d walks), the longest run %.3f ms\n' \
		"$total" "$(printf '%s\n' "${runs[@]}" | sort -n | uniq | paste -sd/)" "${#runs[@]}" "$longest"
	kill "$LOAD_PID" 2>/dev/null
	wait "$LOAD_PID" 2>/dev/null
done

#!/usr/bin/env bash
# The daemon's steady-state scan CPU through the BPF task iterator against the /proc scan
# (stat fds kept open and pread: the floor of any /proc reader), side by side in one run:
# `cgwatch run` with [scan] source = auto (the iterator) and with source = proc, each scanning
# every second for DURATION seconds at each thread count, alternating ROUNDS times. The
# thresholds are a day, which no task reaches: the steady state of a healthy host, even on a
# shared machine where other jobs' tasks are stuck.
# usage: bench/bpfscan.sh [THREADS...]   (default 10000 30000; as root)
# env: DURATION (20), ROUNDS (2), CGWATCH (build/cgwatch)
set -u
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-2}
CGW=${CGWATCH:-build/cgwatch}
mkdir -p build
cc -O2 -pthread -o build/bench-threads bench/threads.c || exit 1
[ $# -gt 0 ] || set -- 10000 30000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
for src in auto proc; do
	cat >"$tmp/$src.conf" <<EOC
[scan]
interval = 1
source = $src
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

cpu_s() { awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

printf '%-8s %-34s %16s %12s\n' threads "cgwatch run (interval 1 s)" "CPU ms per scan" "RSS KiB"
for load in "$@"; do
	coproc LOAD { exec build/bench-threads "$load"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
	ulimit -n 65536 2>/dev/null   # as the unit does (LimitNOFILE=); else the fd cache is capped
	for ((round = 0; round < ROUNDS; round++)); do
		for src in auto proc; do
			"$CGW" run --config "$tmp/$src.conf" 2>"$tmp/$src.log" &
			d=$!
			sleep 3                           # first scans: fds opened, program loaded
			c0=$(cpu_s $d)
			sleep "$DURATION"
			c1=$(cpu_s $d)
			rss=$(awk '/^VmRSS/ {print $2}' /proc/$d/status)
			kill -TERM $d; wait $d 2>/dev/null
			said=$(grep -m1 -o 'scan source: [a-z/]*' "$tmp/$src.log")
			printf '%-8s %-34s %16.3f %12s\n' "$total" "${said:-scan source: /proc} ($src)" \
				"$(echo "($c1 - $c0) * 1000 / $DURATION" | bc -l)" "$rss"
		done
	done
	kill "$LOAD_PID" 2>/dev/null
	wait "$LOAD_PID" 2>/dev/null
done

#!/usr/bin/env bash
# What the daemon costs on a healthy host: CPU per scan and resident memory of `cgwatch run`
# scanning every second for DURATION seconds, against a `ps -eLo pid,tid,stat` loop at the
# same interval (what a watch/cron job would run), in the same run, at several thread counts.
# usage: bench/daemon.sh [THREADS...]   (default 2000 10000; as root)   env: DURATION (20)
set -u
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20}
CGW=${CGWATCH:-build/cgwatch}
mkdir -p build
cc -O2 -pthread -o build/bench-threads tests/live/manythreads.c || exit 1
[ $# -gt 0 ] || set -- 2000 10000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
cat >"$tmp/c.conf" <<EOC
[scan]
interval = 1
[reports]
dir = $tmp/reports
[run]
state_dir = $tmp/state
lock_memory = yes
[recorder]
# the flight recorder on, as by default, in an instance of its own (not a service's)
instance = cgwbench$$
[pressure]
# no PSI triggers: on a host under pressure a trigger adds scans, and this compares one scan
# a second with what a watch job would run
cpu = no
memory = no
io = no
EOC

cpu_s() { awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

printf '%-8s %-30s %16s %12s %12s\n' threads tool "CPU ms per scan" "RSS KiB" "locked KiB"
for load in "$@"; do
	coproc LOAD { exec build/bench-threads "$load"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)

	ulimit -n 65536 2>/dev/null   # as the unit does (LimitNOFILE=); else the fd cache is capped
	"$CGW" run --config "$tmp/c.conf" 2>/dev/null &
	d=$!
	sleep 2                                   # first scan, fds opened
	c0=$(cpu_s $d)
	sleep "$DURATION"
	c1=$(cpu_s $d)
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$d/status)
	lck=$(awk '/^VmLck/ {print $2}' /proc/$d/status)
	kill -TERM $d; wait $d 2>/dev/null
	printf '%-8s %-30s %16.2f %12s %12s\n' "$total" "cgwatch run (interval 1 s)" \
		"$(echo "($c1 - $c0) * 1000 / $DURATION" | bc -l)" "$rss" "$lck"

	# the loop a user would otherwise run; RSS is ps's peak
	t0=$(date +%s.%N); u0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	maxrss=0
	for ((i = 0; i < DURATION; i++)); do
		/usr/bin/time -o "$tmp/t" -f '%M' ps -eLo pid,tid,stat >/dev/null
		m=$(tail -1 "$tmp/t"); [ "$m" -gt "$maxrss" ] && maxrss=$m
	done
	u1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	printf '%-8s %-30s %16.2f %12s %12s\n' "$total" "ps -eLo pid,tid,stat, each s" \
		"$(echo "($u1 - $u0) * 1000 / $hz / $DURATION" | bc -l)" "$maxrss" -
	kill "$LOAD_PID" 2>/dev/null
	wait "$LOAD_PID" 2>/dev/null
done

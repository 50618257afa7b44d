#!/usr/bin/env bash
# What the flight recorder costs a busy host: a cgroup churn loop (ITER times mkdir, cat of
# tasks, rmdir on a private v1 named hierarchy: three forks and execs each, so a fork storm
# too) timed with the recorder off, on (tracepoints only, as the daemon runs it by default)
# and on with the cpuset.mems opens (a syscall tracepoint on every openat, filtered in the
# kernel), RUNS times each, alternating, in one run. The recorder is tests/live/recorder/
# recdrive.c on cgwatch's objects, in an instance of its own (cgwbenchPID), ring 1024 KiB per
# CPU. The loop's CPU is what the cpuacct controller (v1) counts for a cgroup of its own,
# in ns (without one: its shell's and children's user + system time, `times`, in 10 ms
# ticks): a tracepoint's cost lands in the task that hits it. Prints the medians, the events recorded
# per run and per second, the extra CPU per event and per second of churn, and the time one
# readout of the ring (read + parse) takes.
# LOOP=py: the same mkdir, read of tasks, rmdir from one python3 process, without forks: far
# more events per CPU second, so the recorder's share shows if it is there.
# LOOP=storm: a fork storm and nothing else, ITER forks and execs of /bin/true from the shell
# (no cgroup event: what the recorder costs a host that forks, where its tracepoints are not
# hit, and where the cpuset.mems filter runs on every openat of each exec).
# CPU/iter is the extra CPU per iteration (per fork and exec, for the storm).
# usage: sudo bench/recorder.sh   env: RUNS (default 5), ITER (default 300; switch: SWITCH_ITER,
#        100000), LOOP (fork | py | storm | switch), BUF (switch: 256),
#        BUILD (build)
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-5}
ITER=${ITER:-300}; [ "${LOOP:-}" = switch ] && ITER=${SWITCH_ITER:-100000}
OBJ=${BUILD:-build}/obj
[ "$(id -u)" = 0 ] || { echo "bench/recorder.sh: run as root" >&2; exit 1; }
[ -f "$OBJ/source-recorder.o" ] || { echo "bench/recorder.sh: make first" >&2; exit 1; }
tmp=$(mktemp -d)
NAME=cgwbench$$
cleanup() {
	local d
	for d in "$tmp"/hier/c*; do [ -d "$d" ] && rmdir "$d"; done
	mountpoint -q "$tmp/hier" && umount "$tmp/hier"
	[ -n "${ACCT:-}" ] && [ -d "$ACCT" ] && rmdir "$ACCT"
	[ -d "/sys/kernel/tracing/instances/$NAME" ] && rmdir "/sys/kernel/tracing/instances/$NAME"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# the quartiles of a column, "Q1..Q3": the spread the medians are compared against
quart() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f..%.3f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'; }

# LOOP=switch: sched_switch in a private instance filtered in the kernel to CPU 1 (CPU &
# CPUS{1}, as the recorder's [recorder] sched_switch sets it), under a context-switch storm
# (bench/pingpong.c: two threads pinned to one CPU handing a byte over two pipes, ITER round
# trips, 2 ITER switches) on CPU 1 (filtered in) and on CPU 0 (filtered out: the tracepoint
# runs, the filter drops the event), off and on alternating, RUNS times each, in one run.
# CPU is the storm's own (getrusage: both threads, user + system: the tracepoint's cost lands
# in the task that switches out). Prints the medians, CPU per switch, the events recorded per
# second and how long the ring of buffer_kb (BUF, default 256 KiB, the daemon's) on CPU 1
# takes to fill at that rate (its per_cpu/cpu1/stats: entries held when it overran).
if [ "${LOOP:-fork}" = switch ]; then

	BUF=${BUF:-256}
	I=/sys/kernel/tracing/instances/$NAME
	cc -O2 -Wall -pthread -o "$tmp/pp" bench/pingpong.c || exit 1
	mkdir "$I" || exit 1
	echo 0 >"$I/tracing_on"; echo "$BUF" >"$I/buffer_size_kb"; echo mono >"$I/trace_clock"
	echo 'CPU & CPUS{1}' >"$I/events/sched/sched_switch/filter" || exit 1
	echo 1 >"$I/events/sched/sched_switch/enable" || exit 1
	: >"$tmp/off1"; : >"$tmp/on1"; : >"$tmp/off0"; : >"$tmp/on0"
	pp() { "$tmp/pp" "$1" "$ITER" | awk '{ v[$1] = $2 } END { print v["wall_s"], v["cpu_s"] }'; }
	for ((r = 0; r < RUNS; r++)); do
		for c in 1 0; do
			echo 0 >"$I/tracing_on"
			echo "$(pp $c) 0 0" >>"$tmp/off$c"
			: >"$I/trace"; echo 1 >"$I/tracing_on"
			res=$(pp $c); echo 0 >"$I/tracing_on"
			ent=$(awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' "$I/per_cpu/cpu1/stats")
			ent0=$(awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' "$I/per_cpu/cpu0/stats")
			echo "$res $ent $ent0" >>"$tmp/on$c"
			[ $c = 1 ] && awk '/^entries:/ { print $2 }' "$I/per_cpu/cpu1/stats" >>"$tmp/held"
		done
	done
	col() { cut -d' ' -f"$2" "$tmp/$1" | median; }
	held=$(median <"$tmp/held")
	printf '%-50s %7s %7s %15s %9s %9s %10s %11s %12s\n' "switch storm, $ITER round trips ($((2 * ITER)) switches)" \
		"wall s" "CPU s" "CPU s Q1..Q3" "CPU 1 ev" "CPU 0 ev" "events/s" "CPU/switch" "ring fills"
	for c in 1 0; do
		for m in off on; do
			w=$(col $m$c 1); cs=$(col $m$c 2); ev=$(col $m$c 3); ev0=$(col $m$c 4)
			label="storm on CPU $c, sched_switch $m"
			[ $m = on ] && label="$label (CPU & CPUS{1})"
			extra=-; fill=-; eps=-
			if [ $m = on ]; then
				extra=$(printf '%+.3f us' "$(echo "($cs - $(col off$c 2)) * 1000000 / (2 * $ITER)" | bc -l)")
				eps=$(printf '%.0f' "$(echo "$ev / $w" | bc -l)")
				[ "$ev" -gt 0 ] && fill=$(printf '%.3f s' "$(echo "$held / ($ev / $w)" | bc -l)")
			fi
			printf '%-50s %7.3f %7.3f %15s %9s %9s %10s %11s %12s\n' "$label" "$w" "$cs" \
				"$(cut -d' ' -f2 "$tmp/$m$c" | quart)" "$ev" "$ev0" "$eps" "$extra" "$fill"
		done
	done
	echo "ring on CPU 1: ${BUF} KiB holds $held sched_switch events (per_cpu/cpu1/stats entries after the storm there)"
	exit 0
fi

objs=()
for o in "$OBJ"/*.o; do
	n=$(basename "$o" .o)
	[ "$n" != main ] && { [ -f "src/$n.c" ] || [[ "$n" == *-builtin ]]; } && objs+=("$o")
done
read -r -a cfl <<<"$(make -s print-cflags)"
read -r -a lib <<<"$(make -s print-libs)"
cc -O2 -D_GNU_SOURCE -include "$OBJ/../config.h" -Isrc "${cfl[@]}" -o "$tmp/recdrive" \
	tests/live/recorder/recdrive.c "${objs[@]}" "${lib[@]}" || exit 1

mkdir "$tmp/hier"
mount -t cgroup -o "none,name=$NAME" cgroup "$tmp/hier" || exit 1
# the loop's CPU in ns: a cpuacct cgroup of its own (v1), else `times` (10 ms ticks)
ACCT=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuacct(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if [ -n "$ACCT" ] && mkdir "$ACCT/$NAME"; then
	ACCT=$ACCT/$NAME
else
	ACCT=
fi
cat >"$tmp/churn.sh" <<EOS
[ -z "$ACCT" ] || echo \$\$ >"$ACCT/cgroup.procs" || exit 1
EOS
if [ "${LOOP:-fork}" = storm ]; then
	cat >>"$tmp/churn.sh" <<EOS
i=0
while [ \$i -lt $ITER ]; do
	/bin/true || exit 1
	i=\$((i + 1))
done
EOS
elif [ "${LOOP:-fork}" = fork ]; then
	cat >>"$tmp/churn.sh" <<EOS
i=0
while [ \$i -lt $ITER ]; do
	mkdir "$tmp/hier/c\$i" && cat "$tmp/hier/c\$i/tasks" >/dev/null && rmdir "$tmp/hier/c\$i" || exit 1
	i=\$((i + 1))
done
EOS
else
	cat >>"$tmp/churn.sh" <<EOS
python3 -c 'import os
for i in range($ITER):
    d = "$tmp/hier/c%d" % i
    os.mkdir(d); open(d + "/tasks").read(); os.rmdir(d)' || exit 1
EOS
fi
cat >>"$tmp/churn.sh" <<EOS
times >"$tmp/times"
[ -z "$ACCT" ] || cat "$ACCT/cpuacct.usage" >"$tmp/usage"
EOS
# CPU seconds of the loop (its shell and children), from `times`
cpu() {
	if [ -n "$ACCT" ]; then
		awk -v b="$(cat "$tmp/base")" '{ printf "%.6f\n", ($1 - b) / 1e9 }' "$tmp/usage"
		return
	fi
	awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } } END { printf "%.3f\n", s }' "$tmp/times"
}
base() { if [ -n "$ACCT" ]; then cat "$ACCT/cpuacct.usage" >"$tmp/base"; fi; }
now() { date +%s.%N; }

: >"$tmp/off"; : >"$tmp/on"; : >"$tmp/onc"
for ((r = 0; r < RUNS; r++)); do
	base; t0=$(now); sh "$tmp/churn.sh" || exit 1; t1=$(now)
	echo "$(echo "$t1 - $t0" | bc -l) $(cpu) 0 0" >>"$tmp/off"
	for m in on onc; do
		flag=; [ $m = onc ] && flag=-c
		base; "$tmp/recdrive" $flag -n "$NAME" -b 1024 run "$tmp/churn.sh" 600 >"$tmp/out" || exit 1
		w=$(awk '/^t0 / { a = $2 } /^t1 / { b = $2 } END { printf "%.3f", b - a }' "$tmp/out")
		ev=$(sed -n 's/^read rc=0 events=\([0-9]*\) .*/\1/p' "$tmp/out")
		ms=$(sed -n 's/^read .* ms=\([0-9.]*\)$/\1/p' "$tmp/out")
		echo "$w $(cpu) $ev $ms" >>"$tmp/$m"
	done
done
col() { cut -d' ' -f"$2" "$tmp/$1" | median; }
offw=$(col off 1); offc=$(col off 2)
printf '%-34s %7s %7s %13s %7s %9s %12s %11s %9s %8s\n' "${LOOP:-fork} loop, $ITER iterations" "wall s" "CPU s" "CPU s Q1..Q3" events "events/s" "CPU/event" "CPU/iter" "CPU ms/s" "read ms"
printf '%-34s %7.3f %7.3f %13s %7s %9s %12s %11s %9s %8s\n' "recorder off" "$offw" "$offc" "$(cut -d' ' -f2 "$tmp/off" | quart)" - - - - - -
for m in on onc; do
	w=$(col $m 1); c=$(col $m 2); ev=$(col $m 3); ms=$(col $m 4)
	label="recorder on"; [ $m = onc ] && label="recorder on + cpuset.mems opens"
	perev=-
	[ "${ev:-0}" -gt 0 ] && perev=$(printf '%.2f us' "$(echo "($c - $offc) * 1000000 / $ev" | bc -l)")
	printf '%-34s %7.3f %7.3f %13s %7d %9.0f %12s %8.2f us %9.1f %8.1f\n' "$label" "$w" "$c" \
		"$(cut -d' ' -f2 "$tmp/$m" | quart)" "$ev" \
		"$(echo "$ev / $w" | bc -l)" "$perev" "$(echo "($c - $offc) * 1000000 / $ITER" | bc -l)" \
		"$(echo "($c - $offc) * 1000 / $w" | bc -l)" "$ms"
done

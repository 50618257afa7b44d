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
# usage: sudo bench/recorder.sh   env: RUNS (default 5), ITER (default 300), LOOP (fork | py | storm),
#        BUILD (build)
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-5}
ITER=${ITER:-300}
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
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# the quartiles of a column, "Q1..Q3": the spread the medians are compared against
quart() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f..%.3f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'; }
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

#!/usr/bin/env bash
# The cost of the unwinder's sandbox: `cgwatch check` wall time with user stacks unwound in
# the checking process (BEFORE: a build before the sandbox) and in a sandboxed child per
# report (AFTER), their checks alternating, and with no user stacks at all (ustack_max = 0,
# AFTER's binary: what the checks cost without unwinding). Cases as bench/ustack.sh: a
# process of tests/live/ustackhold blocked under an uninitialised FUSE mount with one thread;
# 200 threads in identical stacks; 20 processes of one thread each. RUNS checks each (default
# 9); prints the medians, and AFTER's own account (--verbose: the child's first answer after
# its fork, and the whole sandboxed part).
# usage: sudo CGWATCH="BEFORE AFTER" bench/ustackbox.sh     env: RUNS
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-9}
read -r -a CGWS <<<"${CGWATCH:?CGWATCH=\"BEFORE AFTER\": two binaries}"
[ "${#CGWS[@]}" = 2 ] || { echo "CGWATCH names two binaries" >&2; exit 2; }
tests/live/build.sh || exit 1
B=tests/live/bin
. bench/lib.sh
tmp=$(mktemp -d)
pids=() fpid= n=0
cleanup() { bench_fuse_stop; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
printf '[scan]\nustack_max = 1000\n' >"$tmp/on.conf"
printf '[scan]\nustack_max = 0\n' >"$tmp/off.conf"
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'; }

run_case() {    # NAME: RUNS checks of each kind, alternating
	local name=$1 i k t0 t1
	sleep 1.5
	: >"$tmp/w0"; : >"$tmp/w1"; : >"$tmp/w2"; : >"$tmp/first"; : >"$tmp/all"
	for ((i = 0; i < RUNS; i++)); do
		for k in 0 1 2; do
			local bin=${CGWS[$((k == 0 ? 0 : 1))]} conf=$tmp/on.conf
			[ "$k" = 2 ] && conf=$tmp/off.conf
			t0=$(date +%s%N)
			"$bin" check --config "$conf" --threshold 1 --verbose --format json >/dev/null 2>"$tmp/err"
			t1=$(date +%s%N)
			echo "$(( (t1 - t0) / 1000 ))" | awk '{ print $1 / 1000 }' >>"$tmp/w$k"
			[ "$k" = 1 ] && sed -n 's/.*user stacks, sandboxed: .* answer \([0-9.]*\) ms after its fork, \([0-9.]*\) ms in all/\1 \2/p' "$tmp/err" |
				while read -r a b; do echo "$a" >>"$tmp/first"; echo "$b" >>"$tmp/all"; done
		done
	done
	printf '%-34s %10s %10s %12s %14s %12s\n' "$name" "$(med <"$tmp/w0") ms" "$(med <"$tmp/w1") ms" \
		"$(med <"$tmp/w2") ms" "$(med <"$tmp/first") ms" "$(med <"$tmp/all") ms"
}
start() { "$B/ustackhold-O2" "$@" >/dev/null & pids+=($!); }

printf '%-34s %10s %10s %12s %14s %12s\n' case BEFORE AFTER "no ustack" "child's 1st" sandboxed
bench_fuse_up
start statn "$tmp/mnt$n/x" 1
run_case "1 thread"
bench_fuse_stop
bench_fuse_up
start statn "$tmp/mnt$n/x" 200
run_case "200 identical threads, 1 process"
bench_fuse_stop
bench_fuse_up
for i in $(seq 20); do start statn "$tmp/mnt$n/x" 1; done
run_case "20 processes, 1 thread each"
bench_fuse_stop

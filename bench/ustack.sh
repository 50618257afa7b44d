#!/usr/bin/env bash
# The cost of user stacks: `cgwatch check --verbose` logs how long its unwinds took. Cases,
# each a process of tests/live/ustackhold (-O2 -g) blocked under an uninitialised FUSE mount:
# one thread; 200 threads in identical stacks (one unwind, 199 shared); 20 processes of one
# thread each (20 unwinds of the same binary, each its own address space). RUNS checks each
# (default 7); prints the median of the logged unwind time and the counts. CGWATCH may name
# several binaries (space-separated), compared in the same run: each case's checks alternate
# between them, one line per binary.
# usage: sudo bench/ustack.sh     env: RUNS, CGWATCH
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-7}
read -r -a CGWS <<<"${CGWATCH:-build/cgwatch}"
tests/live/build.sh || exit 1
B=tests/live/bin
. bench/lib.sh
tmp=$(mktemp -d)
pids=() fpid= n=0
cleanup() { bench_fuse_stop; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
printf '[scan]\nustack_max = 1000\n' >"$tmp/c.conf"

run_case() {    # NAME: RUNS checks per binary, the median of the logged time
	local name=$1 i b
	sleep 1.5
	for ((i = 0; i < RUNS; i++)); do
		for b in "${!CGWS[@]}"; do
			"${CGWS[b]}" check --config "$tmp/c.conf" --threshold 1 --verbose --format json 2>&1 \
				>/dev/null | sed -n "s/.*user stacks: \(.*\)/$b \1/p"
		done
	done | sort -t' ' -k1,1n -k9,9g | awk -v n="$name" -v r="$RUNS" -v names="${CGWS[*]}" '
		BEGIN { split(names, nm, " ") }
		{ l[$1, ++c[$1]] = $0 }
		END { for (b = 0; b in c; b++) { s = l[b, int((c[b] + 1) / 2)]; sub(/^[0-9]+ /, "", s)
			printf "%-34s %-40s %s\n", n, nm[b + 1], s } }'
}
start() { "$B/ustackhold-O2" "$@" >/dev/null & pids+=($!); }

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

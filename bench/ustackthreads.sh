#!/usr/bin/env bash
# The cost of a check that unwinds the user stacks of one process with many blocked threads:
# tests/live/ustackhold (-O2 -g) with N threads each in stat under an uninitialised FUSE mount
# (identical stacks: one unwind, the others share it), against what a person would otherwise
# run on that process: `cat /proc/PID/task/*/stack` (kernel stacks only), and eu-stack and gdb
# when installed (both attach with ptrace, which waits for every thread to stop: a thread in
# D never does, so each is killed after ATTACH_SECONDS and said so). The check and the cat
# alternate, RUNS times each; wall and CPU (user + sys) time from bash's `time`, medians. The
# last binary runs a third time per round with ustack_max = 0: the same check without user
# stacks, what the rest of it costs. CGWATCH may name several binaries (space-separated),
# compared in the same run; each one's first check logs its unwinds (--verbose).
# usage: sudo bench/ustackthreads.sh [THREADS...]   (default 20 200 2000)
#        env: RUNS (default 7), CGWATCH, ATTACH_SECONDS (default 10)
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-7}
ATTACH_SECONDS=${ATTACH_SECONDS:-10}
read -r -a CGWS <<<"${CGWATCH:-build/cgwatch}"
. bench/lib.sh
[ $# -gt 0 ] || set -- 20 200 2000
tests/live/build.sh || exit 1
B=tests/live/bin
tmp=$(mktemp -d)
hold= fpid= n=0
# each case under a mount of its own: killing its FUSE server first releases every waiter
stop_all() {
	[ -n "$fpid" ] && kill -9 "$fpid" 2>/dev/null && wait "$fpid" 2>/dev/null
	[ -n "$hold" ] && kill -9 "$hold" 2>/dev/null && wait "$hold" 2>/dev/null
	fpid= hold=
	grep -q " $tmp/mnt$n " /proc/self/mountinfo && umount -l "$tmp/mnt$n"
}
cleanup() {
	stop_all
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
printf '[scan]\nustack_max = 1000\n' >"$tmp/c.conf"
printf '[scan]\nustack_max = 0\n' >"$tmp/c0.conf"
LAST=${CGWS[${#CGWS[@]} - 1]}
in_d() { awk '$3 == "D"' /proc/"$1"/task/*/stat 2>/dev/null | wc -l; }
ms() { echo "$1 * 1000" | bc -l; }
row() { printf '%-8s %-48s %16s %8s\n' "$@"; }

row threads tool "wall ms" "CPU ms"
for N in "$@"; do
	n=$((n + 1))
	mkdir "$tmp/mnt$n"
	"$B/fusehold" "$tmp/mnt$n" >"$tmp/f$n.out" &
	fpid=$!
	for i in $(seq 50); do grep -q mounted "$tmp/f$n.out" && break; sleep 0.1; done
	"$B/ustackhold-O2" statn "$tmp/mnt$n/x" "$N" >/dev/null &
	hold=$!
	for i in $(seq 300); do [ "$(in_d "$hold")" -ge "$N" ] && break; sleep 0.1; done
	[ "$(in_d "$hold")" -ge "$N" ] || { echo "setup: $N threads not blocked" >&2; exit 1; }
	sleep 1.5                          # past --threshold 1
	for b in "${!CGWS[@]}"; do
		"${CGWS[b]}" check --config "$tmp/c.conf" --threshold 1 --verbose --format json \
			2>&1 >/dev/null | sed -n "s/.*user stacks: /  ${CGWS[b]//\//\\/}: user stacks: /p"
		: >"$tmp/cgw$b"
	done
	: >"$tmp/cat"; : >"$tmp/nou"
	for ((i = 0; i < RUNS; i++)); do
		for b in "${!CGWS[@]}"; do
			bench_run "${CGWS[b]}" check --config "$tmp/c.conf" --threshold 1 --format json \
				>>"$tmp/cgw$b"
		done
		bench_run "$LAST" check --config "$tmp/c0.conf" --threshold 1 --format json >>"$tmp/nou"
		bench_run sh -c "cat /proc/$hold/task/*/stack" >>"$tmp/cat"
	done
	for b in "${!CGWS[@]}"; do
		row "$N" "cgwatch check (${CGWS[b]})" \
			"$(printf %.0f "$(ms "$(cut -d' ' -f1 "$tmp/cgw$b" | bench_median)")")" \
			"$(printf %.0f "$(ms "$(cut -d' ' -f2 "$tmp/cgw$b" | bench_median)")")"
	done
	row "$N" "  the last, with ustack_max = 0" \
		"$(printf %.0f "$(ms "$(cut -d' ' -f1 "$tmp/nou" | bench_median)")")" \
		"$(printf %.0f "$(ms "$(cut -d' ' -f2 "$tmp/nou" | bench_median)")")"
	row "$N" "cat /proc/PID/task/*/stack" \
		"$(printf %.0f "$(ms "$(cut -d' ' -f1 "$tmp/cat" | bench_median)")")" \
		"$(printf %.0f "$(ms "$(cut -d' ' -f2 "$tmp/cat" | bench_median)")")"
	# once each: an attach that does not return is killed (its ptrace detaches with it)
	for tool in "eu-stack -p $hold" "gdb -p $hold -batch -nx -ex 'thread apply all bt'"; do
		command -v "${tool%% *}" >/dev/null || continue
		t=$(bench_run timeout -s KILL "$ATTACH_SECONDS" sh -c "$tool")
		w=$(cut -d' ' -f1 <<<"$t") c=$(cut -d' ' -f2 <<<"$t")
		if [ "$(echo "$w >= $ATTACH_SECONDS" | bc -l)" = 1 ]; then
			row "$N" "${tool/$hold/PID}" ">$((ATTACH_SECONDS * 1000)) (killed)" \
				"$(printf %.0f "$(ms "$c")")"
		else
			row "$N" "${tool/$hold/PID}" "$(printf %.0f "$(ms "$w")")" \
				"$(printf %.0f "$(ms "$c")")"
		fi
	done
	stop_all
done

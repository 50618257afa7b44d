#!/bin/bash
# live-youngclock: a task that blocked the moment it started is timed exactly, whichever CPU
# it blocked on and whichever CPU check runs on.
#
# Such a task has been blocked as long as it has existed: its duration equals its age (stat
# start time against /proc/uptime), and cgwatch caps durations by the age. se.exec_start is
# on the scheduler clock of the task's CPU, which leaves out that CPU's IRQ and steal time:
# the CPUs' clocks drift apart (here CPU 1 0.26 s behind CPU 0 after 35 minutes of uptime).
# Measured against "now" on another CPU's clock, the duration can pass the age by that drift.
# Two children of tests/live/fusehold block on uninitialised FUSE mounts, one pinned to CPU 0,
# one to CPU 1; then `check --threshold 1` runs pinned to CPU 0, then to CPU 1. Each run must
# list both children, blocked_bound exact, blocked_s within 10 % of the truth (as live-fuse).
# The PASS line says how far apart the two clocks were: with less than the age cap's slack
# (0.1 s) apart, the run cannot show an error of that kind.
. "$(dirname "$0")/lib.sh"
live_init youngclock
live_require_root
live_require_fuse
live_require_tools jq timeout awk taskset
live_require_helpers fusehold
live_require_binary
live_mktemp
grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null || [ "$(nproc --all)" -ge 2 ] ||
	live_skip "needs a second CPU"

# clock_offset CPU: that CPU's scheduler clock minus the boot clock (s), from a reader put
# there: its own se.exec_start, then /proc/uptime (10 ms steps).
clock_offset() {
	taskset -c "$1" awk '$1 == "se.exec_start" { e = $3 }
		END { getline u < "/proc/uptime"; split(u, a, " "); printf "%.3f", e / 1000 - a[1] }' /proc/self/sched
}

declare -A CHILD T_START HELPER    # HELPER: used by the cleanups (eval)
for c in 0 1; do
	mkdir "$LIVE_TMP/mnt$c" || live_fail "mkdir $LIVE_TMP/mnt$c"
	live_on_exit "live_umount '$LIVE_TMP/mnt$c'"
	live_on_exit "live_kill_task \"\${CHILD[$c]}\""
	live_on_exit "live_kill_wait \"\${HELPER[$c]}\""
	taskset -c "$c" "$LIVE_BIN/fusehold" "$LIVE_TMP/mnt$c" --child --name "cgw-young$c" \
		>"$LIVE_TMP/helper$c.out" 2>"$LIVE_TMP/helper$c.err" 3>&- &
	HELPER[$c]=$!
done
for c in 0 1; do
	child_line() { grep -q '^child ' "$LIVE_TMP/helper$c.out"; }
	live_wait_for 5 child_line || live_fail "setup: no child on CPU $c: $(cat "$LIVE_TMP/helper$c.out" "$LIVE_TMP/helper$c.err")"
	read -r _ CHILD[$c] T_START[$c] < <(grep '^child ' "$LIVE_TMP/helper$c.out")
	in_d() { [ "$(live_task_state "${CHILD[$c]}")" = D ]; }
	live_wait_for 5 in_d || live_fail "setup: child ${CHILD[$c]} (CPU $c) not in D: $(live_task_state "${CHILD[$c]}")"
	cpu=$(awk '{ sub(/.*\) /, ""); print $37 }' "/proc/${CHILD[$c]}/stat")
	[ "$cpu" = "$c" ] || live_fail "setup: child ${CHILD[$c]} blocked on CPU $cpu, want $c"
done
drift=$(awk -v a="$(clock_offset 0)" -v b="$(clock_offset 1)" 'BEGIN { printf "%.2f", a - b }')
sleep 2

ALL=$(taskset -pc $$ | sed 's/.*: //')
live_on_exit "taskset -pc '$ALL' $$ >/dev/null"
problems=()
for r in 0 1; do
	OUT=$LIVE_TMP/check$r.json ERR=$LIVE_TMP/check$r.err
	taskset -pc "$r" $$ >/dev/null || live_fail "cannot pin the test to CPU $r"
	live_cgwatch "$OUT" "$ERR" check --format json --threshold 1    # starts on CPU $r
	taskset -pc "$ALL" $$ >/dev/null
	live_json_check "$OUT" "check on CPU $r"
	for c in 0 1; do
		lo=$(awk -v s="${T_START[$c]}" -v t="$CG_T_BEFORE" 'BEGIN { printf "%.3f", t - s }')
		hi=$(awk -v s="${T_START[$c]}" -v t="$CG_T_AFTER" 'BEGIN { printf "%.3f", t - s }')
		task=$(live_task_json "$OUT" "${CHILD[$c]}")
		if [ -z "$task" ]; then
			problems+=("check on CPU $r: child ${CHILD[$c]} blocked on CPU $c for $lo..$hi s (as long as it has existed) is not listed (scan.untimed $(jq .scan.untimed "$OUT"))")
			continue
		fi
		got=$(jq -r '"\(.blocked_s) \(.blocked_bound // "exact") \(.age_s // "-")"' <<<"$task")
		read -r b bound age <<<"$got"
		[ "$bound" = exact ] && awk -v b="$b" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(b >= 0.9 * lo && b <= 1.1 * hi) }' ||
			problems+=("check on CPU $r: child ${CHILD[$c]} blocked on CPU $c: blocked_s $b ($bound, age_s $age), truth $lo..$hi s")
	done
done
what="CPU 0's scheduler clock $drift s ahead of CPU 1's"
[ ${#problems[@]} = 0 ] || live_fail "${#problems[@]} wrong: $(printf '%s; ' "${problems[@]}")$what"
awk -v d="$drift" 'BEGIN { exit !(d < 0.12 && d > -0.12) }' && what="$what: too close to show an error against the age cap"
live_pass "$what"

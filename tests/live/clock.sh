#!/bin/bash
# live-clock: blocked time across CPUs. A task blocks on CPU 0 (an uninitialised FUSE mount);
# cgwatch starts on CPU 1, free to run on both. Each CPU's scheduler clock leaves out its own
# interrupt and steal time, so the two drift apart (0.3 s after an hour on this VM): read
# naively, the blocked time is off by that drift. cgwatch reads "now" on the task's own CPU:
# the blocked time must be within 0.1 s of the truth. Needs two CPUs.
. "$(dirname "$0")/lib.sh"
live_init_fuse clock jq timeout awk taskset
grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null || [ "$(nproc --all)" -ge 2 ] ||
	live_skip "needs a second CPU"

MNT=$LIVE_TMP/mnt
mkdir "$MNT" || live_fail "mkdir $MNT"
live_on_exit 'live_umount "$MNT"'
live_on_exit 'live_kill_task "$CHILD"'
live_on_exit 'live_kill_wait "$HELPER"'

taskset -c 0 "$LIVE_BIN/fusehold" "$MNT" --child >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- &
HELPER=$!
child_line() { grep -q '^child ' "$LIVE_TMP/helper.out"; }
live_wait_for 5 child_line || live_fail "setup: no child: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err")"
read -r _ CHILD T_START < <(grep '^child ' "$LIVE_TMP/helper.out")
in_d() { [ "$(live_task_state "$CHILD")" = D ]; }
live_wait_for 5 in_d || live_fail "setup: child $CHILD not in D"
sleep 2

OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
# start on CPU 1, then allow both: where it starts is where its own clock is read first
T_BEFORE=$(live_now)
taskset -c 1 sh -c 'taskset -pc 0,1 $$ >/dev/null && exec "$@"' sh \
	timeout 20 "$CGWATCH" check --format json --threshold 1 >"$OUT" 2>"$ERR"
T_AFTER=$(live_now)
live_json_check "$OUT" "check --format json --threshold 1"
b=$(jq -r --argjson t "$CHILD" '.tasks[] | select(.tid == $t) | .blocked_s' "$OUT")
[ -n "$b" ] || live_fail "child $CHILD not reported: $(live_summary "$OUT")"
awk -v b="$b" -v s="$T_START" -v lo="$T_BEFORE" -v hi="$T_AFTER" \
	'BEGIN { exit !(b >= lo - s - 0.1 && b <= hi - s + 0.1) }' ||
	live_fail "child $CHILD blocked on CPU 0: blocked_s=$b, truth $(awk -v s="$T_START" -v lo="$T_BEFORE" -v hi="$T_AFTER" 'BEGIN { printf "%.3f..%.3f", lo - s, hi - s }') s (±0.1 s)"
live_pass

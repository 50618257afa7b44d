#!/bin/bash
# live-daemon-exactdur: a task moved while still queued, its se.exec_start reset to 0, gets its
# duration from the task iterator. 40 children blocked on a FUSE mount while shuffled between
# CPUs under 2 busy loops (dmn_block_forgotten) until some sleep in D with se.exec_start 0.
# `cgwatch check --all --threshold 1` through /proc ([scan] source = proc) cannot time them:
# they are counted in scan.untimed and never "exact". Through the iterator (source = auto, in
# the initial PID namespace: DMN_PIDNS=0), each of them is listed with an exact duration
# timed from sched_info.last_arrival (`duration_from`, the reset kept as `exec_start_reset`),
# between the time since all were in D
# and the time since the first was forked (+ 0.3 s).
DMN_PIDNS=${DMN_PIDNS_EXACTDUR:-0}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-exactdur
dmn_require
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the iterator cannot load here"
N=40 COMM=cgw-exact0
dmn_hogs 2
dmn_block_forgotten "$N" "$COMM"
dmn_hogs_stop
sleep 1.5
dmn_exec0
[ "$EXEC0" -gt 0 ] || live_skip "no child left in D with se.exec_start 0 once the loops stopped"
ids=$(tr ' ' '\n' <<<"$EXEC0_KIDS" | jq -s -c .)

printf '[scan]\nsource = proc\n' >"$LIVE_TMP/proc.conf"
printf '[scan]\nsource = auto\n' >"$LIVE_TMP/auto.conf"
for src in proc auto; do
	live_cgwatch "$LIVE_TMP/$src.json" "$LIVE_TMP/$src.err" check --format json --all --threshold 1 \
		--config "$LIVE_TMP/$src.conf"
	live_json_check "$LIVE_TMP/$src.json" "check ($src)"
	eval "A_$src=$CG_T_BEFORE B_$src=$CG_T_AFTER"
done
[ "$(jq -r .scan.source "$LIVE_TMP/auto.json")" = bpf ] ||
	live_fail "auto: the iterator was not used: $(jq -r '.scan.source_why' "$LIVE_TMP/auto.json")"

# through /proc: none of them exact
exact_proc=$(jq -c --argjson k "$ids" '[.tasks[]? | select(.tid as $t | $k | index($t)) | select(.blocked_bound == "exact") | .tid]' "$LIVE_TMP/proc.json")
[ "$exact_proc" = "[]" ] || live_fail "proc: tasks with se.exec_start 0 timed exact: $exact_proc"

# through the iterator: every one still in D and not run since exact, from last_arrival, in range
lo=$(awk -v a="$A_auto" -v d="$T_ALLD" 'BEGIN { printf "%.3f", a - d - 0.3 }')
hi=$(awk -v b="$B_auto" -v s="$T_START" 'BEGIN { printf "%.3f", b - s + 0.3 }')
got=$(jq -c --argjson k "$ids" '[.tasks[]? | select(.tid as $t | $k | index($t)) | {tid, blocked_s, blocked_bound, duration_from, exec_start_reset}]' "$LIVE_TMP/auto.json")
n=$(jq 'length' <<<"$got")
[ "$n" -gt 0 ] || live_fail "auto: none of the $EXEC0 tasks with se.exec_start 0 ($EXEC0_KIDS) listed: $(jq -c '.scan' "$LIVE_TMP/auto.json" | head -c 400)"
bad=$(jq -c --argjson lo "$lo" --argjson hi "$hi" '[.[] | select(.blocked_bound != "exact" or .duration_from != "sched_info.last_arrival" or .exec_start_reset != true or .blocked_s < $lo or .blocked_s > $hi)]' <<<"$got")
[ "$bad" = "[]" ] || live_fail "auto: want exact from sched_info.last_arrival within $lo..$hi s: $(head -c 700 <<<"$bad")"
live_pass "$n of $EXEC0 tasks with se.exec_start 0 timed exact from sched_info.last_arrival ($lo..$hi s); /proc: untimed $(jq .scan.untimed "$LIVE_TMP/proc.json")"

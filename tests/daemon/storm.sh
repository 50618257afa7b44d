#!/bin/bash
# live-daemon-storm: 200 tasks blocked at once on one uninitialised FUSE mount
# (tests/live/fusehold mounts it, bin/statmany forks 200 children that each
# stat() the mount point: all 200 wait in fuse_get_req). `cgwatch run` (warning 2 s, critical 4 s, update_interval 300 s as
# in production) must make one fuse-wait incident of them and say so in a
# handful of messages (at most 5; here opened, escalated, resolved), never one
# per task: the messages and reports count the 200 tasks ("and 199 more
# tasks"). Messages come from a private journald when it can be started here
# (rate limiting off: nothing is hidden), else from the daemon's stderr.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-storm
dmn_require
dmn_journald optional
dmn_conf incidents.update_interval=300
N=200

MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
# Reverse order at exit: kill fusehold (releases all 200), statmany, unmount.
live_on_exit 'live_umount "$MNT"'
live_on_exit 'live_kill_wait "$STORM"'
live_on_exit 'live_kill_wait "$HELPER"'
"$LIVE_BIN/fusehold" "$MNT" >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- &
HELPER=$!
mounted() { grep -q '^mounted' "$LIVE_TMP/helper.out"; }
live_wait_for 5 mounted || live_fail "setup: fusehold: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err")"
# stat() of the mount point: each child sends its own GETATTR and waits in
# fuse_get_req. (Names under it would leave all but one in fuse_lock_inode,
# behind the first one's lookup: see statmany.c.)
"$DMN_BIN/statmany" "$MNT" "$N" --name cgw-storm >"$LIVE_TMP/storm.out" 2>"$LIVE_TMP/storm.err" 3>&- &
STORM=$!
forked() { grep -q "^forked $N\$" "$LIVE_TMP/storm.out"; }
live_wait_for 10 forked || live_fail "setup: statmany: $(grep -v '^child' "$LIVE_TMP/storm.out" | head -5) $(cat "$LIVE_TMP/storm.err")"
T_START=$(awk '$1 == "start" { print $2 }' "$LIVE_TMP/storm.out")
mapfile -t KIDS < <(awk '$1 == "child" { print $2 }' "$LIVE_TMP/storm.out")
all_stuck() {
	local k n=0
	for k in "${KIDS[@]}"; do
		[ "$(live_task_state "$k")" = D ] && n=$((n + 1))
	done
	STUCK=$n
	[ "$n" = "$N" ]
}
live_wait_for 5 all_stuck || live_fail "setup: only $STUCK of $N children in D"
T_FORKED=$(live_now)

dmn_start daemon
dmn_wait_state opened 1 $((DMN_WARN + 5)) ||
	live_fail "no \"opened\" within $((DMN_WARN + 5)) s with $N tasks stuck; messages: [$(dmn_digest)]; $(dmn_ctx)"
dmn_wait_state escalated 1 $((DMN_CRIT + 3)) ||
	live_fail "no \"escalated\" with $N tasks stuck $(live_elapsed_since "$T_START") s; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 1.5
dmn_require_alive "during the storm"
live_kill_wait "$HELPER" 5 || live_fail "fusehold did not die"
HELPER=
released() { grep -q '^released ' "$LIVE_TMP/storm.out"; }
live_wait_for 10 released || live_fail "the $N children were not all released after the FUSE fd closed: $(tail -1 "$LIVE_TMP/storm.out")"
rel=$(grep '^released ' "$LIVE_TMP/storm.out")
[ "$rel" = "released $N OK=0 ENOTCONN=$N OTHER=0" ] || live_fail "children released with '$rel', want all ENOTCONN"
dmn_wait_state resolved 1 5 ||
	live_fail "no \"resolved\" within 5 s of releasing the $N tasks; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 1.5
dmn_collect
dmn_require_alive "after the storm"

total=$(jq length "$LIVE_TMP/msgs.json")
incs=$(dmn_incidents)
[ "$(wc -l <<<"$incs")" = 1 ] && [ -n "$incs" ] ||
	live_fail "$N tasks on one FUSE mount: want one incident, got $(wc -l <<<"$incs"): $(tr '\n' ' ' <<<"$incs" | head -c 300)"
INC=$incs
[ "$(dmn_get 'true' CGWATCH_SIGNATURE)" = fuse-wait ] || live_fail "incident $INC is not fuse-wait: [$(dmn_digest 300)]"
[ "$total" -le 5 ] || live_fail "$total incident messages for $N tasks, want at most 5: [$(dmn_digest 600)]"
states=$(dmn_states "$INC")
[ "$states" = "opened escalated resolved" ] || live_fail "states of $INC: '$states', want 'opened escalated resolved'"
# The messages name one task and count the others, in every state.
# "opened" counts the tasks past the threshold at that scan: the 200 started blocking over a
# spread of forks, so the others join at the next scans.
for st in opened escalated resolved; do
	msg=$(dmn_get ".CGWATCH_STATE == \"$st\"" MESSAGE)
	more=$(sed -n 's/.*(and \([0-9]*\) more tasks).*/\1/p' <<<"$msg")
	if [ "$st" = opened ]; then
		# a loaded machine forks the 200 over a second or more: any count is right here,
		# as long as it is a count of the others (escalated, 2 s later, must have all)
		[ -z "$more" ] || { [ "$more" -ge 1 ] && [ "$more" -le $((N - 1)) ]; } ||
			live_fail "\"opened\" MESSAGE counts a wrong number of other tasks: '$msg'"
	else
		[ "$more" = $((N - 1)) ] ||
			live_fail "\"$st\" MESSAGE does not count the other $((N - 1)) tasks: '$msg'"
	fi
	pid=$(dmn_get ".CGWATCH_STATE == \"$st\"" CGWATCH_PID)
	printf '%s\n' "${KIDS[@]}" | grep -qx -- "$pid" || live_fail "\"$st\" CGWATCH_PID=$pid is not one of the stuck children"
done
dmn_check_reports "$INC" fuse-wait
# The incident may remember fewer tasks than it counts (bounded memory), but
# it counts each of the 200 once, and lists no task twice.
for st in opened escalated resolved; do
	rep=$(dmn_get ".CGWATCH_STATE == \"$st\"" CGWATCH_REPORT)
	got=$(jq -r '[(.incident.tasks_total // (.incident.tasks | length)), (.incident.tasks | length), ([.incident.tasks[].pid] | unique | length)] | map(tostring) | join(" ")' "$rep")
	read -r total listed distinct <<<"$got"
	want=$N
	[ "$st" = opened ] && [ "$total" -ge 1 ] && [ "$total" -le "$N" ] && want=$total
	[ "$total" = "$want" ] && [ "$listed" = "$distinct" ] && [ "$listed" -le "$N" ] ||
		live_fail "$st report $rep: incident counts $total tasks (want $N), lists $listed, $distinct distinct"
done
rep=$(dmn_get '.CGWATCH_STATE == "escalated"' CGWATCH_REPORT)
got=$(jq '[.findings[0].tasks[]?] | unique | length' "$rep")
[ "$got" = "$N" ] || live_fail "escalated report $rep: its finding lists $got tasks, want $N"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "SIGTERM after the storm: exit status $DMN_STOP_RC after $DMN_STOP_SEC s; $(dmn_ctx)"

live_pass

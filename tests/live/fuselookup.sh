#!/bin/bash
# live-fuselookup: a second stat() of the name a first one is looking up under an uninitialised
# FUSE mount waits for that lookup in d_alloc_parallel, no FUSE frame on its stack. It is the
# same hang: the report lists it in the mount's fuse-wait finding (cause "mount MNT"), with an
# evidence line naming the task whose lookup it waits for, and no finding is unknown.
. "$(dirname "$0")/lib.sh"
live_init_fuse fuselookup jq timeout stat

# the first lookup: fusehold's child, blocked in fuse_get_req on $MNT/x
live_fuse_child
# the second, of the same name
stat "$MNT/x" >/dev/null 2>&1 3>&- &
SECOND=$!
# d_wait_lookup sleeps uninterruptibly: only the end of the first lookup (the helper's death)
# lets it take the kill
live_on_exit 'live_kill_wait "$HELPER"; HELPER=; live_kill_task "$SECOND"'
_in_lookup_wait() { [ "$(live_task_state "$SECOND")" = D ] && grep -qE 'd_alloc_parallel|d_wait_lookup' "/proc/$SECOND/stack"; }
if ! live_wait_for 5 _in_lookup_wait; then
	st=$(tr '\n' ' ' <"/proc/$SECOND/stack" 2>/dev/null)
	[ "$(live_task_state "$SECOND")" = D ] && live_skip "this kernel waits elsewhere for the same name: $st"
	live_fail "setup: second stat $SECOND not in D: state=$(live_task_state "$SECOND") stack=$st"
fi

sleep 2
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --format json --threshold 1
live_json_check "$OUT" "check --format json --threshold 1"

sig=$(jq -r --argjson t "$SECOND" '[.tasks[]? | select(.tid == $t)][0].signature // "none"' "$OUT")
[ "$sig" = fuse-wait ] ||
	live_fail "second stat $SECOND has signature '$sig', want fuse-wait; findings: $(jq -c '[.findings[]? | {id, cause, tasks}]' "$OUT" | head -c 400)"
got=$(jq -r --argjson t "$SECOND" '[.findings[]? | select(.id == "fuse-wait" and ((.tasks // []) | index($t)))][0] | "\(.cause) \(.tasks | index('"$CHILD"') != null)"' "$OUT")
[ "$got" = "mount $MNT true" ] ||
	live_fail "second stat $SECOND: its fuse-wait finding has cause/first-task '$got', want 'mount $MNT true' (one finding with $CHILD)"
jq -e --arg w "PID $SECOND waits for another task's lookup of the same name (d_alloc_parallel) on the mount $MNT, where PID $CHILD waits in fuse-wait" \
	'[.findings[]?.evidence[]? | select(. == $w)] | length == 1' "$OUT" >/dev/null ||
	live_fail "no evidence line for $SECOND naming $CHILD's lookup: $(jq -c --arg p "PID $SECOND" '[.findings[]?.evidence[]? | select(startswith($p))]' "$OUT" | head -c 400)"
other=$(jq -r '[.findings[]? | select(.id == "unknown") | .tasks[]] | join(",")' "$OUT")
[ -z "$other" ] || live_fail "tasks still unknown: $other"

live_kill_wait "$HELPER" 5 || live_fail "helper $HELPER did not die"
HELPER=
live_wait_for 3 _live_gone_or_zombie "$SECOND" || live_fail "second stat $SECOND not released: state=$(live_task_state "$SECOND")"
SECOND=
live_pass

#!/bin/bash
# live-vfork: a vfork parent waiting for its child (D, kernel_clone) is not a
# hang: signature vfork-wait, vfork_child names the child's pid, only
# info-severity findings, exit 0.
. "$(dirname "$0")/lib.sh"
live_init vfork
live_require_root
live_require_tools jq timeout awk
live_require_helpers vforkhold
live_require_binary
live_mktemp

live_on_exit 'live_kill_task "$CHILD"'
live_on_exit 'live_kill_wait "$HELPER"'

"$LIVE_BIN/vforkhold" 30 >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- &
HELPER=$!
both() { grep -q '^parent ' "$LIVE_TMP/helper.out" && grep -q '^child ' "$LIVE_TMP/helper.out"; }
live_wait_for 5 both || live_fail "setup: helper output: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err")"
PARENT=$(awk '/^parent /{print $2}' "$LIVE_TMP/helper.out")
CHILD=$(awk '/^child /{print $2}' "$LIVE_TMP/helper.out")
[ "$PARENT" = "$HELPER" ] || live_fail "setup: parent tid $PARENT is not the helper pid $HELPER"

in_vfork() { [ "$(live_task_state "$PARENT")" = D ] && grep -q kernel_clone "/proc/$PARENT/stack"; }
live_wait_for 3 in_vfork ||
	live_fail "setup: parent $PARENT not in D with kernel_clone: state=$(live_task_state "$PARENT") stack=$(tr '\n' ' ' <"/proc/$PARENT/stack")"

sleep 2
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --threshold 1 --format json
live_json_check "$OUT" "check --threshold 1 --format json"

task=$(live_task_json "$OUT" "$PARENT")
[ -n "$task" ] || live_fail "vfork parent $PARENT not in tasks[] (rc $CG_RC): $(live_summary "$OUT")"
sig=$(jq -r '.signature' <<<"$task")
[ "$sig" = vfork-wait ] || live_fail "parent $PARENT signature '$sig', want vfork-wait; task=$(head -c 400 <<<"$task")"
# vfork_child: the child's pid, as a number (or an object with a pid/tid).
vc=$(jq -r '.vfork_child | if type == "object" then (.pid // .tid) else . end' <<<"$task")
[ "$vc" = "$CHILD" ] || live_fail "parent $PARENT vfork_child is $(jq -c '.vfork_child' <<<"$task"), want $CHILD"
f=$(live_findings_for "$OUT" "$PARENT")
[ -n "$f" ] || live_fail "parent $PARENT: no finding lists it; $(live_summary "$OUT")"
bad=$(tr ',' '\n' <<<"$f" | grep -v ':info$' | tr '\n' ' ')
[ -z "$bad" ] || live_fail "parent $PARENT: findings with severity other than info: $bad"
[ "$CG_RC" = 0 ] || live_fail "exit code $CG_RC, want 0 (vfork-wait is info-only); $(live_summary "$OUT")"

live_pass

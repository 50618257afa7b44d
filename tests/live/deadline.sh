#!/bin/bash
# live-deadline: the read deadline ([scan] read_timeout) on a real blocking
# read. A copy of tests/fixtures/unreadable-stack (PID 1 in D for 50 s) gets
# proc/1/task/1/stack as an empty file with a stuck FUSE mounted on it
# (fusehold --file: every open/read of it blocks in fuse_get_req). With
# read_timeout = 1, `check --root` must still return quickly (< 5 s), report
# task 1 with stack_error "stack unreadable: timed out after 1 s", signature
# unknown, blocked_s 50, exit 1; and leave no task of its own blocked there.
. "$(dirname "$0")/lib.sh"
live_init_fuse deadline jq timeout awk

FIXTURE=$LIVE_REPO/tests/fixtures/unreadable-stack
ROOT=$LIVE_TMP/root
STACK=$ROOT/proc/1/task/1/stack
CONF=$LIVE_TMP/cgwatch.conf
[ -d "$FIXTURE/proc/1/task/1" ] || live_fail "setup: fixture $FIXTURE missing"
cp -a "$FIXTURE" "$ROOT" || live_fail "setup: cp -a $FIXTURE $ROOT"
[ ! -e "$STACK" ] || live_fail "setup: fixture unexpectedly has proc/1/task/1/stack"
: >"$STACK" || live_fail "setup: could not create $STACK"
live_conf_check "$CONF" "read_timeout = 1"
live_fusehold helper --file "$STACK"
# Do not touch $STACK from here on until the helper is dead: any access blocks.

OUT=$LIVE_TMP/check.json ERR=$LIVE_TMP/check.err
T0=$(live_now)
timeout -k 2 20 "$CGWATCH" check --root "$ROOT" --config "$CONF" --format json >"$OUT" 2>"$ERR" 3>&-
RC=$?
ELAPSED=$(live_elapsed_since "$T0")
CG_RC=$RC

no_leftover() { LEFT=$(live_cgwatch_leftover); [ -z "$LEFT" ]; }
live_wait_for 1 no_leftover

msg="rc=$RC elapsed=${ELAPSED}s stderr=$(head -c 300 "$ERR" | cat -v)"
[ "$RC" != 124 ] && [ "$RC" != 137 ] || live_fail "cgwatch check did not return within 20 s (killed by timeout): $msg"
awk -v e="$ELAPSED" 'BEGIN { exit !(e < 5) }' || live_fail "check took too long with read_timeout = 1: $msg"
awk -v e="$ELAPSED" 'BEGIN { exit !(e >= 0.9) }' ||
	live_fail "check returned before the 1 s read deadline could pass: $msg; $(live_summary "$OUT")"
live_json_check "$OUT" "check --root (stuck stack) --format json"

task=$(live_task_json "$OUT" 1)
[ -n "$task" ] || live_fail "task 1 not in tasks[]: $msg; $(live_summary "$OUT")"
serr=$(jq -r '.stack_error // "(none)"' <<<"$task")
sig=$(jq -r '.signature' <<<"$task")
blocked=$(jq -r '.blocked_s' <<<"$task")
[ "$serr" = "stack unreadable: timed out after 1 s" ] ||
	live_fail "task 1 stack_error is '$serr', want 'stack unreadable: timed out after 1 s': $msg"
[ "$sig" = unknown ] || live_fail "task 1 signature is '$sig', want unknown; task=$(head -c 400 <<<"$task")"
awk -v b="$blocked" 'BEGIN { exit !(b ~ /^[0-9.]+$/ && b >= 49.8 && b <= 50.2) }' ||
	live_fail "task 1 blocked_s=$blocked, want 50 (the captured tree's value)"
[ "$RC" = 1 ] || live_fail "exit code $RC, want 1: $msg"
[ -z "$LEFT" ] || live_fail "cgwatch exited but left tasks behind: $LEFT ($msg)"

live_pass

#!/bin/bash
# live-stuckroot: `check --root DIR` where DIR is an uninitialised FUSE mount
# (every lookup under it blocks in fuse_get_req) must not hang: it gives up
# after its 2 s risky-read deadline, exits 3 and says on stderr which root
# and that it timed out; and it leaves no task of its own blocked there.
. "$(dirname "$0")/lib.sh"
live_init_fuse stuckroot timeout awk

ROOT=$LIVE_TMP/root
mkdir "$ROOT" || live_fail "mkdir $ROOT"
live_fusehold helper "$ROOT"
# Do not touch $ROOT from here on until the helper is dead: any lookup blocks.

ERR=$LIVE_TMP/check.err
T0=$(live_now)
timeout -k 2 20 "$CGWATCH" check --root "$ROOT" >"$LIVE_TMP/check.out" 2>"$ERR" 3>&-
RC=$?
ELAPSED=$(live_elapsed_since "$T0")

# Tasks running the cgwatch binary still blocked on the stuck mount?
no_leftover() { LEFT=$(live_cgwatch_leftover); [ -z "$LEFT" ]; }
live_wait_for 1 no_leftover

msg="rc=$RC elapsed=${ELAPSED}s stderr=$(head -c 300 "$ERR" | cat -v)"
awk -v e="$ELAPSED" 'BEGIN { exit !(e < 6) }' || live_fail "check --root on a stuck root took too long: $msg"
[ "$RC" = 3 ] || live_fail "exit code $RC, want 3: $msg"
grep -qF -- "$ROOT" "$ERR" || live_fail "stderr does not name the root $ROOT: $msg"
grep -qiE 'time[sd]? ?-?out|deadline' "$ERR" || live_fail "stderr does not mention a timeout: $msg"
[ -z "$LEFT" ] || live_fail "cgwatch exited but left tasks behind: $LEFT ($msg)"

live_pass

#!/bin/bash
# live-watchdog: the whole-check bound ([scan] check_timeout). A copy of
# tests/fixtures/unreadable-stack gets a stuck FUSE mounted on
# proc/self/mountinfo (fusehold --file), which cgwatch reads without a
# per-read deadline, so only the check_timeout watchdog can end the check.
# With check_timeout = 2, `check --root` must return in < 6 s (and not before
# the 2 s have passed), exit 3, say "check_timeout" on stderr, and leave no
# task of its own blocked there.
. "$(dirname "$0")/lib.sh"
live_init_fuse watchdog timeout awk

FIXTURE=$LIVE_REPO/tests/fixtures/unreadable-stack
ROOT=$LIVE_TMP/root
MI=$ROOT/proc/self/mountinfo
CONF=$LIVE_TMP/cgwatch.conf
[ -d "$FIXTURE/proc/self" ] || live_fail "setup: fixture $FIXTURE missing"
cp -a "$FIXTURE" "$ROOT" || live_fail "setup: cp -a $FIXTURE $ROOT"
# The mount point must be a regular file holding a real mountinfo.
if [ -L "$MI" ] || [ ! -f "$MI" ]; then
	rm -f -- "$MI" && cp /proc/self/mountinfo "$MI" || live_fail "setup: could not create $MI"
fi
live_conf_check "$CONF" "check_timeout = 2"
live_fusehold helper --file "$MI"
# Do not touch $MI from here on until the helper is dead: any access blocks.

ERR=$LIVE_TMP/check.err
T0=$(live_now)
timeout -k 2 20 "$CGWATCH" check --root "$ROOT" --config "$CONF" >"$LIVE_TMP/check.out" 2>"$ERR" 3>&-
RC=$?
ELAPSED=$(live_elapsed_since "$T0")

no_leftover() { LEFT=$(live_cgwatch_leftover); [ -z "$LEFT" ]; }
live_wait_for 1 no_leftover

msg="rc=$RC elapsed=${ELAPSED}s stderr=$(head -c 300 "$ERR" | cat -v) stdout=$(head -c 200 "$LIVE_TMP/check.out" | cat -v)"
[ "$RC" != 124 ] && [ "$RC" != 137 ] || live_fail "cgwatch check did not return within 20 s (killed by timeout): $msg"
awk -v e="$ELAPSED" 'BEGIN { exit !(e < 6) }' || live_fail "check took too long with check_timeout = 2: $msg"
awk -v e="$ELAPSED" 'BEGIN { exit !(e >= 1.9) }' || live_fail "check returned before check_timeout (2 s) passed: $msg"
[ "$RC" = 3 ] || live_fail "exit code $RC, want 3: $msg"
grep -qF check_timeout "$ERR" || live_fail "stderr does not mention check_timeout: $msg"
[ -z "$LEFT" ] || live_fail "cgwatch exited but left tasks behind: $LEFT ($msg)"

live_pass

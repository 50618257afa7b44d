#!/bin/bash
# live-capturefrozen: a sleeper frozen in a v1 freezer cgroup (state D, its nanosleep stack:
# only freezer.state tells). `check --capture DIR` then `check --root DIR`: the same findings
# (frozen, info, cause "cgroup ...") and times within 0.1 s; the tree holds the freezer.state
# the live run read, under sys/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init capturefrozen
live_require_root
live_require_tools jq timeout awk find stat
live_require_binary
live_mktemp

FZ=/sys/fs/cgroup/freezer
[ -f "$FZ/tasks" ] || live_skip "no cgroup v1 freezer hierarchy at $FZ"
CG=$FZ/cgwatch-capture-$$
live_on_exit 'rmdir_cg'
live_on_exit 'live_kill_wait "$SLEEPER"'
live_on_exit 'thaw'
thaw() { [ -d "$CG" ] || return 0; echo THAWED >"$CG/freezer.state" || live_cleanup_error "could not thaw $CG"; }
rmdir_cg() { [ -d "$CG" ] || return 0; live_wait_for 3 rmdir "$CG" 2>/dev/null || live_cleanup_error "could not rmdir $CG"; }

mkdir "$CG" || live_fail "setup: mkdir $CG failed"
sleep 1000 3>&- &
SLEEPER=$!
echo "$SLEEPER" >"$CG/cgroup.procs" || live_fail "setup: could not move $SLEEPER into $CG"
asleep() { [ "$(live_task_state "$SLEEPER")" = S ]; }
live_wait_for 3 asleep || live_fail "setup: sleeper $SLEEPER not asleep"
echo FROZEN >"$CG/freezer.state" || live_fail "setup: could not write FROZEN"
is_frozen() { [ "$(cat "$CG/freezer.state")" = FROZEN ] && [ "$(live_task_state "$SLEEPER")" = D ]; }
live_wait_for 5 is_frozen || live_fail "setup: $CG not frozen, or $SLEEPER not in D"

sleep 2
CAP=$LIVE_TMP/cap
capture_run "$CAP" --threshold 1
f=$(jq -c --argjson c "$SLEEPER" '[.findings[]? | select(.tasks | index($c))][0] // empty' "$LIVE_TMP/live.json")
[ "$(jq -r '.id + " " + .severity' <<<"$f")" = "frozen info" ] ||
	live_fail "live finding of $SLEEPER: $(head -c 300 <<<"$f"), want frozen info"
capture_compare
capture_modes "$CAP"
[ "$(cat "$CAP${CG}/freezer.state" 2>/dev/null)" = FROZEN ] ||
	live_fail "the tree lacks ${CG#/}/freezer.state reading FROZEN"
live_pass "$NCMP findings replayed alike"

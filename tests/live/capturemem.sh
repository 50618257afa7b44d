#!/bin/bash
# live-capturemem: a capture keeps the path a blocked task's syscall names, and nothing that
# follows it in the task's memory. ustackhold stat MNT/x 0 blocks in stat() on a FUSE mount
# that never answers; its path is argv[2], followed in memory by argv[3] ("0") and its
# environment, which holds a secret (SECRET=...). `check --capture DIR`: the capture has
# cgwatch/mem/TID-ADDR holding the path and its NUL exactly, no file of the tree holds the
# secret, and `check --root DIR` replays the same finding, its cause the same mount.
. "$(dirname "$0")/lib.sh"
live_init_fuse capturemem jq timeout grep
live_require_helpers ustackhold-O2
MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" || live_fail "setup: mkdir"
live_fusehold fh "$MNT"
SECRET=hunter2-$$-capturemem
env -i SECRET="$SECRET" "$LIVE_BIN/ustackhold-O2" stat "$MNT/x" 0 >"$LIVE_TMP/prog.out" 2>"$LIVE_TMP/prog.err" 3>&- </dev/null &
PROG=$!
live_on_exit 'live_kill_wait "$PROG"'
_blocked() { local t; t=$(awk '$1 == "blocked" { print $2 }' "$LIVE_TMP/prog.out"); [ -n "$t" ] && [ "$(live_task_state "$t")" = D ]; }
live_wait_for 5 _blocked || live_fail "setup: ustackhold stat: $(cat "$LIVE_TMP/prog.out" "$LIVE_TMP/prog.err")"
TID=$(awk '$1 == "blocked" { print $2 }' "$LIVE_TMP/prog.out")
grep -qa "$SECRET" "/proc/$PROG/environ" || live_fail "setup: the secret is not in the task's environment"
sleep 1.2
printf '[thresholds]\nblocked_warning = 1\n' >"$LIVE_TMP/c.conf"
live_cgwatch "$LIVE_TMP/live.json" "$LIVE_TMP/live.err" check --format json --config "$LIVE_TMP/c.conf" --capture "$LIVE_TMP/cap"
[ "$CG_RC" = 1 ] || live_fail "check --capture: exit $CG_RC: $(head -c 300 "$LIVE_TMP/live.err")"
f=$(ls "$LIVE_TMP/cap/cgwatch/mem/$TID-"* 2>/dev/null | head -1)
[ -n "$f" ] || live_fail "no cgwatch/mem/$TID-* in the capture: $(ls "$LIVE_TMP/cap/cgwatch/mem" 2>&1 | head -c 200)"
printf '%s\0' "$MNT/x" | cmp -s - "$f" ||
	live_fail "$(basename "$f") is not the path and its NUL: $(head -c 120 "$f" | tr '\0' '|')"
if grep -rlaF "$SECRET" "$LIVE_TMP/cap" >"$LIVE_TMP/leak" 2>/dev/null; then
	live_fail "the environment's secret is in the capture: $(head -3 "$LIVE_TMP/leak" | tr '\n' ' ')"
fi
live_cgwatch "$LIVE_TMP/replay.json" "$LIVE_TMP/replay.err" check --format json --config "$LIVE_TMP/c.conf" --root "$LIVE_TMP/cap"
cause() { jq -r --argjson t "$TID" '[.findings[] | select(.tasks | index($t)) | .id + " " + (.cause // "none")][0]' "$1"; }
a=$(cause "$LIVE_TMP/live.json") b=$(cause "$LIVE_TMP/replay.json")
[ "$a" = "fuse-wait mount $MNT" ] || live_fail "live: $a, want fuse-wait mount $MNT"
[ "$a" = "$b" ] || live_fail "the replay says $b, the live check $a"
live_pass "$(basename "$f"): the path and its NUL only; no secret in the capture; replayed: $b"

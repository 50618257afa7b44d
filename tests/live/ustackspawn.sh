#!/bin/bash
# live-ustackspawn: the user stack of posix_spawn's parent. glibc spawns with clone (clone3 on
# newer ones) and CLONE_VFORK, and ends that function's unwind info before the syscall (the
# child's frame differs), so the parent's pc, blocked in the kernel until its child execs, is
# covered by no FDE: the unwinder must step over it through the return address at sp, as over
# a syscall stub with no unwind info, on to posix_spawn, middle_spawn, outer and main
# (tests/live/ustackhold.c spawn: the child waits in a file action's open of a FIFO).
. "$(dirname "$0")/lib.sh"
live_init ustackspawn
live_require_root
live_require_tools jq timeout awk
live_require_helpers ustackhold-O2
live_require_binary
live_mktemp

FIFO=$LIVE_TMP/fifo
mkfifo "$FIFO" || live_fail "setup: mkfifo $FIFO"
"$LIVE_BIN/ustackhold-O2" spawn "$FIFO" >"$LIVE_TMP/sp.out" 2>"$LIVE_TMP/sp.err" 3>&- </dev/null &
P=$!
live_on_exit 'live_kill_wait "$P"'
# first (cleanups run in reverse): a writer's open releases the child's open, and it execs
live_on_exit '{ exec 9<>"$FIFO"; sleep 0.2; exec 9>&-; } 2>/dev/null'
_blocked() { grep -q '^blocked ' "$LIVE_TMP/sp.out" && [ "$(live_task_state "$P")" = D ]; }
live_wait_for 5 _blocked ||
	live_fail "setup: ustackhold spawn: $(cat "$LIVE_TMP/sp.out" "$LIVE_TMP/sp.err") state $(live_task_state "$P")"
read -r _ RA_OUTER _ < <(grep '^chain ' "$LIVE_TMP/sp.out")
sleep 1

OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --threshold 0.5 --format json
live_json_check "$OUT" "check --format json"
f=$(jq -r --argjson t "$P" '[.tasks[]? | select(.tid == $t)][0] |
	[.ustack[]? | "\(.symbol // "-")@\(.module | split("/") | last)"] | join(" ")' "$OUT")
err=$(jq -r --argjson t "$P" '[.tasks[]? | select(.tid == $t)][0].ustack_error // ""' "$OUT")
[[ "$f" =~ ^(__clone3|clone3|__clone|clone)@libc\.so\.6\ (.*\ )?middle_spawn@ustackhold-O2\ outer@ustackhold-O2\ main@ustackhold-O2 ]] ||
	live_fail "posix_spawn parent $P: user frames '$f', want clone < ... < middle_spawn < outer < main; error: $err"
got=$(jq -r --argjson t "$P" '[.tasks[]? | select(.tid == $t)][0].ustack | map(select(.symbol == "outer"))[0].pc' "$OUT")
[ "$((got))" = "$((RA_OUTER))" ] ||
	live_fail "posix_spawn parent $P: outer's pc $got, want the return address into it, $RA_OUTER"
live_pass "$f"

#!/bin/bash
# live-ustacktimeout: a target whose mmap lock other threads of it keep taking for writing
# (tests/live/ustackhold.c mmaphold: two threads, mprotect in a loop over 4 GiB of small
# pages each, each call a hold of about 0.1 s) while its main thread is a vfork parent in D. With
# read_timeout = 0.05 s, shorter than a hold: every check returns in well under a second
# per unwind (the scan keeps its pace), the unwind times out, and the report says why:
# "user stack unreadable: timed out after 0.05 s (its mmap lock is held or waited for)",
# in JSON and in the text under the task.
LIVE_BUDGET=${LIVE_BUDGET:-90}     # touching 8 GiB takes a while on a loaded host
. "$(dirname "$0")/lib.sh"
live_init ustacktimeout
live_require_root
live_require_tools jq timeout awk
live_require_helpers ustackhold-O2
live_require_binary
live_mktemp
avail=$(awk '/^MemAvailable:/{print int($2 / 1048576)}' /proc/meminfo)
[ "${avail:-0}" -ge 12 ] || live_skip "needs 12 GiB of available memory (the writers touch 8 GiB), $avail here"

"$LIVE_BIN/ustackhold-O2" mmaphold 40 >"$LIVE_TMP/h.out" 2>"$LIVE_TMP/h.err" 3>&- </dev/null &
HOLD=$!
live_on_exit "live_kill_wait $HOLD 10"
_ready() { grep -q '^blocked ' "$LIVE_TMP/h.out" && [ "$(live_task_state "$HOLD")" = D ]; }
live_wait_for 60 _ready || live_fail "setup: ustackhold mmaphold: $(cat "$LIVE_TMP/h.out" "$LIVE_TMP/h.err")"
sleep 1.2

CONF=$LIVE_TMP/c.conf
printf '[scan]\nread_timeout = 0.05\nustack_max = 1000\n' >"$CONF"
want="user stack unreadable: timed out after 0.05 s (its mmap lock is held or waited for)"
for i in 1 2 3; do
	OUT=$LIVE_TMP/r$i.json
	live_cgwatch "$OUT" "$OUT.err" check --config "$CONF" --threshold 1 --format json
	live_json_check "$OUT" "check #$i"
	took=$(awk -v a="$CG_T_BEFORE" -v b="$CG_T_AFTER" 'BEGIN { printf "%.2f", b - a }')
	awk -v t="$took" 'BEGIN { exit !(t < 3) }' || live_fail "check #$i took $took s under the mmap lock holds"
	e=$(jq -r --argjson t "$HOLD" '[.tasks[]? | select(.tid == $t)][0].ustack_error // "none"' "$OUT")
	[ "$e" = "$want" ] || live_fail "check #$i: ustack_error '$e', want '$want'; $(live_summary "$OUT")"
done
TXT=$LIVE_TMP/r.txt
live_cgwatch "$TXT" "$TXT.err" check --config "$CONF" --threshold 1
grep -A8 "^  PID $HOLD " "$TXT" | grep -qF "$want" ||
	live_fail "text: '$want' not under PID $HOLD: $(grep -A8 "PID $HOLD " "$TXT" | head -c 500)"
live_pass "3 checks within 3 s each, the unwind timed out and said why"

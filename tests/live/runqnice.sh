#!/bin/bash
# live-runqnice: the waits of a task that asked for less CPU are told apart. On CPU 1, a
# SCHED_OTHER busy loop at nice 10 beside one at nice 0 (tests/live/spin, 0 priority): the
# scheduler gives the niced loop about a tenth of the CPU, so it waits tens of ms each time
# (52 ms seen), as it asked to. `cgwatch runq --interval 3` must count those waits in CPU 1's
# low_count (the sched_switch program's waits of nice > 0, SCHED_BATCH and SCHED_IDLE tasks),
# name the niced loop with nice 10 among the longest waits, and give the others' p99
# (full_p99_ms) apart: below the p99 of every wait and below 20 ms (the nice 0 loop waits one
# slice of the niced one, a few ms). The daemon pages on that p99 (runq_p99_ms) unless an
# RT task held the CPU. SKIPs without BPF (the schedstat fallback reads no nice) or a second
# CPU.
LIVE_BUDGET=${LIVE_BUDGET:-30}
. "$(dirname "$0")/lib.sh"
live_init runqnice
live_require_root
live_require_tools jq timeout taskset nice
live_require_helpers spin
live_require_binary
live_mktemp
[ "$(nproc --all)" -ge 2 ] && grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null ||
	live_skip "needs a second CPU online"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"
live_on_exit 'live_hard_kill "$NICED"; live_hard_kill "$FULL"'
nice -n 10 "$LIVE_BIN/spin" 1 0 8 >"$LIVE_TMP/niced.out" 2>&1 </dev/null &
NICED=$!
"$LIVE_BIN/spin" 1 0 8 >"$LIVE_TMP/full.out" 2>&1 </dev/null &
FULL=$!
live_wait_for 3 grep -q '^spinning ' "$LIVE_TMP/niced.out" || live_fail "setup: niced spinner: $(cat "$LIVE_TMP/niced.out")"
live_wait_for 3 grep -q '^spinning ' "$LIVE_TMP/full.out" || live_fail "setup: spinner: $(cat "$LIVE_TMP/full.out")"
timeout -k 1 10 "$CGWATCH" runq --interval 3 >"$LIVE_TMP/runq.json" 2>"$LIVE_TMP/runq.err" 3>&- ||
	live_fail "cgwatch runq failed: $(head -c 300 "$LIVE_TMP/runq.err")"
[ "$(jq -r .source "$LIVE_TMP/runq.json")" = sched_switch ] ||
	live_skip "run-queue latency is not measured by the sched_switch program here: $(jq -r .why "$LIVE_TMP/runq.json" | head -c 300)"
c1=$(jq -c '.cpus[] | select(.cpu == 1)' "$LIVE_TMP/runq.json")
[ -n "$c1" ] || live_fail "no CPU 1 in: $(head -c 400 "$LIVE_TMP/runq.json")"
got=$(jq -c '{count, low_count, p99_ms, full_p99_ms, max_ms, full_max_ms, waited: [.waited[] | [.comm, .nice, .ms]]}' <<<"$c1")
jq -e '(.low_count | type) == "number" and .low_count > 0 and .low_count < .count' <<<"$c1" >/dev/null ||
	live_fail "CPU 1's waits of the nice 10 loop are not counted apart (low_count): $got"
jq -e --argjson n "$NICED" '[.waited[] | select(.tid == $n)] | length > 0 and all(.nice == 10)' <<<"$c1" >/dev/null ||
	live_fail "the nice 10 loop $NICED is not among CPU 1's longest waits with nice 10: $got"
jq -e '.full_p99_ms < .p99_ms and .full_p99_ms < 20 and .full_max_ms <= .max_ms' <<<"$c1" >/dev/null ||
	live_fail "CPU 1's other waits' p99 (full_p99_ms) is not apart, below 20 ms: $got"
live_pass "CPU 1: $(jq -r '"\(.count) waits, \(.low_count) of the nice 10 loop; p99 \(.p99_ms) ms, the others\u0027 \(.full_p99_ms) ms; max \(.max_ms) ms, the others\u0027 \(.full_max_ms) ms"' <<<"$c1")"

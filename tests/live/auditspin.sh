#!/bin/bash
# live-auditspin: `cgwatch audit` and real-time spinners. A SCHED_FIFO/50 spinner (spin) pinned
# to CPU 1:
#  1. with RT throttling off (kernel.sched_rt_runtime_us = -1, set for this test and restored
#     on every exit): on a kernel with the fair server (debugfs sched/fair_server, else 6.12
#     or later) rt-spinner-fair-server (warning), its evidence saying how long a drain
#     waits; without one rt-spinner-unthrottled (critical); either one's evidence naming the
#     spinner on CPU 1 with at least half of the CPU over the window (the fair server takes
#     up to 50 ms a second when other threads want CPU 1), exit 1;
#  2. with throttling on (950000) and a lower-priority SCHED_FIFO/10 spinner on CPU 1 too:
#     rt-spinner (warning) instead, saying the fair server covers SCHED_OTHER threads only and
#     naming the SCHED_FIFO/10 one as runnable below it with nothing to run it;
# and with the spinners gone, rt.spinners is 0 and no rt-* hazard is named.
# The test and cgwatch stay on CPU 0; each spinner lives a few seconds at most.
. "$(dirname "$0")/lib.sh"
LIVE_BUDGET=40
live_init auditspin
live_require_root
live_require_tools jq timeout taskset
live_require_helpers spin
live_require_binary
live_mktemp
grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null || [ "$(nproc --all)" -ge 2 ] ||
	live_skip "needs a second CPU"
RT=/proc/sys/kernel/sched_rt_runtime_us
OLD_RT=$(cat "$RT") || live_skip "no $RT"
live_on_exit 'echo "$OLD_RT" > "$RT" || live_cleanup_error "sched_rt_runtime_us not restored to $OLD_RT"'
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"
live_on_exit 'live_kill_wait "$HIGH"'
live_on_exit 'live_kill_wait "$LOW"'

hazards() { jq -r '[.hazards[].id] | join(",")' "$1"; }
# what runs a kworker beside a spinner with throttling off: the fair server, when CPU 1 has
# one with a runtime (debugfs; where unreadable, the kernel has it from 6.12)
FS=/sys/kernel/debug/sched/fair_server/cpu1/runtime
if [ -r "$FS" ]; then
	[ "$(cat "$FS")" -gt 0 ] && FAIR=1 || FAIR=0
else
	rel=$(uname -r) maj=${rel%%.*} min=${rel#*.} min=${min%%[!0-9]*}
	(( maj > 6 || (maj == 6 && min >= 12) )) && FAIR=1 || FAIR=0
fi
if [ $FAIR = 1 ]; then
	WANT=rt-spinner-fair-server NOT=rt-spinner-unthrottled
else
	WANT=rt-spinner-unthrottled NOT=rt-spinner-fair-server
fi

# 1. throttling off
echo -1 > "$RT" || live_fail "setup: cannot write -1 to $RT"
live_spin HIGH 1 50 4
OUT=$LIVE_TMP/off.json ERR=$LIVE_TMP/off.err
live_cgwatch "$OUT" "$ERR" audit --format json
echo "$OLD_RT" > "$RT"            # at once: the spinner keeps CPU 1 only as long as needed
live_kill_wait "$HIGH"
jq -e '.schema == "cgwatch.audit/1"' "$OUT" >/dev/null || live_fail "throttling off: not a cgwatch.audit/1 document (rc $CG_RC): $(head -c 300 "$OUT")"
[ "$CG_RC" = 1 ] || live_fail "throttling off: exit $CG_RC, want 1 ($(hazards "$OUT"))"
ev=$(jq -r --arg id "$WANT" '.hazards[] | select(.id == $id) | .evidence[]' "$OUT")
[ -n "$ev" ] || live_fail "throttling off: no $WANT (fair server: $FAIR); hazards: $(hazards "$OUT"); rt.spinners: $(jq -c '.facts["rt.spinners"]' "$OUT"); kernel.fair_server: $(jq -c '.facts["kernel.fair_server"]' "$OUT")"
jq -e --arg id "$NOT" '[.hazards[].id] | index($id) | not' "$OUT" >/dev/null ||
	live_fail "throttling off: $NOT named too (fair server: $FAIR): $(hazards "$OUT")"
[ $FAIR = 0 ] || grep -qE "waits about 0\.[0-9]+ s .*stalls about that long, not until the spinner stops$" <<<"$ev" ||
	live_fail "throttling off: no stall computed from the fair server: $(head -c 600 <<<"$ev")"
grep -qE "^CPU 1 \([a-z_, ]+\): $HIGH \(spin\) SCHED_FIFO/50 used ([5-9][0-9]|100) % of the CPU over 0\.[0-9]+ s \((its CPU ran it throughout, with no context switch; [0-9]+ ms of it accounted|its accounted CPU time)" <<<"$ev" ||
	live_fail "throttling off: the evidence does not name spinner $HIGH on CPU 1: $(head -c 400 <<<"$ev")"
grep -q '^kernel.sched_rt_runtime_us = -1 ' <<<"$ev" || live_fail "throttling off: no sysctl line: $ev"
jq -e '[.hazards[].id] | index("rt-spinner") | not' "$OUT" >/dev/null ||
	live_fail "throttling off: rt-spinner named too: $(hazards "$OUT")"

# 2. throttling on, a lower-priority RT task under the spinner
[ "$(cat "$RT")" -ge 0 ] || echo 950000 > "$RT"
live_spin LOW 1 10 4
live_spin HIGH 1 50 3
sleep 0.3
OUT=$LIVE_TMP/on.json ERR=$LIVE_TMP/on.err
live_cgwatch "$OUT" "$ERR" audit --format json
live_kill_wait "$HIGH"
live_kill_wait "$LOW"
ev=$(jq -r '.hazards[] | select(.id == "rt-spinner") | .evidence[]' "$OUT")
[ -n "$ev" ] || live_fail "throttling on: no rt-spinner; hazards: $(hazards "$OUT"); rt.spinners: $(jq -c '.facts["rt.spinners"]' "$OUT")"
jq -e '[.hazards[].id] | index("rt-spinner-unthrottled") | not' "$OUT" >/dev/null ||
	live_fail "throttling on: rt-spinner-unthrottled named: $(hazards "$OUT")"
grep -qE "^CPU 1: $LOW \(spin\) SCHED_FIFO/10 is runnable there below it: neither RT throttling nor the fair server gives it CPU time$" <<<"$ev" ||
	live_fail "throttling on: the lower-priority spinner $LOW is not named: $(head -c 600 <<<"$ev")"
jq -e '.hazards[] | select(.id == "rt-spinner") | .summary | test("fair server gives SCHED_OTHER") and test("lower-priority real-time thread on that CPU gets nothing")' "$OUT" >/dev/null ||
	live_fail "throttling on: the summary does not say what the fair server covers"

# 3. no spinner: quiet for these rules
OUT=$LIVE_TMP/none.json ERR=$LIVE_TMP/none.err
live_cgwatch "$OUT" "$ERR" audit --format json
[ "$(jq '.facts["rt.spinners"].value' "$OUT")" = 0 ] ||
	live_fail "no spinner: rt.spinners = $(jq -c '.facts["rt.spinners"]' "$OUT")"
jq -e '[.hazards[].id | select(startswith("rt-"))] == []' "$OUT" >/dev/null ||
	live_fail "no spinner: $(hazards "$OUT")"
live_pass

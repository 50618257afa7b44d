#!/bin/bash
# live-daemon-latencyhog: a CPU held by a real-time hog pages though it makes few waits. In the
# initial PID namespace (DMN_PIDNS=0: the run-queue tasks it names are the host's), scans every
# 2 s, [latency] as shipped (runq_p99_ms 50 on runq_scans 2, runq_min_waits 20), pressure off
# (its own tests): on CPU 1 a SCHED_OTHER busy loop (tests/live/spin, bounded), then a
# SCHED_FIFO/99 busy loop there for 15 s (bounded; it dies with the test). With RT throttling
# as the kernel ships it (kernel.sched_rt_runtime_us 950000, not changed here: SKIP when it is
# -1, where the fair loop would never run, and no wait would end) the fair loop gets 50 ms a
# second and waits about 950 ms, once: fewer waits than runq_min_waits, which alone kept this
# CPU from ever opening an incident. A wait 4 times runq_p99_ms or more behind an RT task that
# ran half as long passes (diagnose-latency.c), so:
#   - a runq-latency incident on cpu 1 opens within 14 s of the hog, pointing to starved, its
#     evidence naming the hog as what held CPU 1 ("held: CPU 1 ran PID HOG (latencyhog)
#     SCHED_FIFO/99") and the fair loop among the waits.
# The test and the daemon stay on CPU 0.
DMN_PIDNS=0
LIVE_BUDGET=${LIVE_BUDGET:-60}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-latencyhog
dmn_require nofuse
live_require_tools taskset jq
live_require_helpers spin
[ "$(nproc --all)" -ge 2 ] && grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null ||
	live_skip "needs a second CPU online"
RT=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null)
[ -n "$RT" ] || live_skip "no kernel.sched_rt_runtime_us"
[ "$RT" != -1 ] || live_skip "RT throttling is off (kernel.sched_rt_runtime_us = -1): a fair task beside a FIFO hog never runs, and its wait never ends"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"
cp "$LIVE_BIN/spin" "$LIVE_TMP/latencyhog" || live_fail "setup: cp spin"   # a name of its own
live_on_exit 'live_hard_kill "$HOG"; live_hard_kill "$FAIR"'
"$LIVE_BIN/spin" 1 0 40 >"$LIVE_TMP/fair.out" 2>&1 </dev/null &
FAIR=$!
live_wait_for 3 grep -q '^spinning ' "$LIVE_TMP/fair.out" || live_fail "setup: fair loop: $(cat "$LIVE_TMP/fair.out")"
dmn_conf scan.interval=2 run.pin_housekeeping=no latency.runq_p99_ms= pressure.cpu=no pressure.memory=no \
	pressure.io=no   # latency.runq_p99_ms empty: the built-in 50 ms
dmn_start hog
measured() { grep -q 'run-queue latency: ' "${DMN_ERRS[-1]}"; }
live_wait_for 10 measured || live_fail "the daemon did not say how it measures run-queue latency: $(dmn_ctx)"
grep -q 'run-queue latency: .*sched_switch' "${DMN_ERRS[-1]}" ||
	live_skip "run-queue latency is not measured by the sched_switch program here: $(grep 'run-queue latency' "${DMN_ERRS[-1]}" | head -c 300)"
"$LIVE_TMP/latencyhog" 1 99 15 >"$LIVE_TMP/hog.out" 2>&1 </dev/null &
HOG=$!
live_wait_for 3 grep -q '^spinning ' "$LIVE_TMP/hog.out" || live_fail "setup: hog: $(cat "$LIVE_TMP/hog.out")"
T0=$(live_now)
cpu1() { jq -c '[.findings[] | select(.id == "runq-latency" and .cause == "cpu 1")][0] // empty' "$1"; }
opened() {
	local f
	for f in "$DMN_REPORTS"/*-runq-latency*-opened.json; do
		[ -f "$f" ] && FD=$(cpu1 "$f") && [ -n "$FD" ] && return 0
	done
	return 1
}
live_wait_for 14 opened || live_fail "a FIFO/99 hog on CPU 1 beside a fair loop opened no runq-latency incident on cpu 1 within 14 s: $(ls "$DMN_REPORTS" 2>/dev/null | head -5); $(dmn_ctx "" 600)"
took=$(live_elapsed_since "$T0")
dmn_require_alive "with the hog"
ev=$(jq -r '.evidence[]' <<<"$FD")
jq -e '.family == "starved"' <<<"$FD" >/dev/null ||
	live_fail "the finding points to $(jq -r '.family // "nothing"' <<<"$FD"), want starved: $(head -c 900 <<<"$ev")"
grep -qE "^held: CPU 1 ran PID $HOG \(latencyhog\) SCHED_FIFO/99 for [0-9.]+ ms" <<<"$ev" ||
	live_fail "the evidence does not name the hog $HOG as what held CPU 1: $(head -c 900 <<<"$ev")"
grep -qE "^waited: PID $FAIR \(spin\) SCHED_OTHER waited [0-9.]+ ms for CPU 1" <<<"$ev" ||
	live_fail "the evidence does not name the fair loop $FAIR among the waits: $(head -c 900 <<<"$ev")"
line=$(grep -m1 '^CPU 1: ' <<<"$ev")
live_hard_kill "$HOG"
HOG=
dmn_stop TERM 5
live_pass "opened $took s after the hog, pointing to starved: $(head -c 300 <<<"$line")"

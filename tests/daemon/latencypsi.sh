#!/bin/bash
# live-daemon-latencypsi: a pressure crossing opens a latency incident. In the initial PID
# namespace (DMN_PIDNS=0: the run-queue tasks it names are the host's), scans every 1 s,
# [pressure] cpu = some 1900ms 2s (a task waiting for a CPU 95 % of 2 s), memory and io off,
# runq-latency off (runq_p99_ms = 0: this test is about pressure). Three CPU hogs per CPU
# (tests/live/hog, bounded, killed on exit):
#   - a pressure-stall incident with cause "pressure cpu" opens within 15 s; its opened
#     report's finding says "cpu pressure crossed its threshold: cpu ..." (the PSI source's
#     sentence), the system-wide averages ("/proc/pressure/cpu: cpu some avg10 ..."), what held
#     the CPU that waited most ("held: CPU N ran ...") and the family it points to;
#     its alert reads "pressure-stall on pressure cpu, naming ...";
#   - the hogs stopped, it resolves within 25 s (avg10 decays over about 10 s).
DMN_PIDNS=0
LIVE_BUDGET=${LIVE_BUDGET:-80}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-latencypsi
dmn_require nofuse
[ -r /proc/pressure/cpu ] || live_skip "no /proc/pressure/cpu (a kernel without PSI, or psi=0)"
dmn_journald optional
dmn_conf scan.interval=1 pressure.cpu="some 1900ms 2s" pressure.memory=no pressure.io=no \
	latency.runq_p99_ms=0 audit.interval=0
dmn_start psi
ERR=${DMN_ERRS[-1]}
reports() { ls "$DMN_REPORTS"/*-pressure-stall*-"$1".json 2>/dev/null; }
fcpu() { jq -c '[.findings[] | select(.id == "pressure-stall" and .cause == "pressure cpu")][0] // empty' "$1"; }
opened() { local f; for f in $(reports opened); do FD=$(fcpu "$f"); [ -n "$FD" ] && REP=$f && return 0; done; return 1; }
wait_for() {   # by the clock: the hogs slow each look
	local end=$((SECONDS + $1)); shift
	while [ $SECONDS -lt $end ]; do "$@" && return 0; sleep 0.3; done
	"$@"
}
sleep 2
dmn_hogs "$(($(nproc) * 3))"
T0=$(live_now)
wait_for 15 opened || live_fail "no pressure-stall incident on \"pressure cpu\" within 15 s of $(($(nproc) * 3)) hogs: $(ls "$DMN_REPORTS" | head -5); $(grep -m3 pressure "$ERR" | tr '\n' '|'); $(dmn_ctx "" 300)"
took=$(live_elapsed_since "$T0")
ev=$(jq -r '.evidence[]' <<<"$FD")
grep -qE '^cpu pressure crossed its threshold: cpu ' <<<"$ev" ||
	live_fail "no 'cpu pressure crossed its threshold: ...' line: $(head -c 900 <<<"$ev")"
grep -qE '^/proc/pressure/cpu: cpu some avg10 [0-9.]+ %' <<<"$ev" ||
	live_fail "no system-wide averages line: $(head -c 900 <<<"$ev")"
grep -qE '^held: CPU [0-9]+ \(p99 wait [0-9.]+ ms, the highest\) ran ' <<<"$ev" ||
	live_fail "no line saying what held the CPU that waited most: $(head -c 900 <<<"$ev")"
grep -qE '^points to ' <<<"$ev" || live_fail "no family line: $(head -c 900 <<<"$ev")"
jq -e '.tasks | length > 0' <<<"$FD" >/dev/null || live_fail "the finding holds no task: $FD"
if [ "$DMN_JOURNALD" = 1 ]; then
	sel='.CGWATCH_SIGNATURE == "pressure-stall" and .CGWATCH_CAUSE == "pressure cpu" and .CGWATCH_STATE == "opened"'
	dmn_wait_msg 5 "$sel" || live_fail "no journal message opening pressure-stall with CGWATCH_CAUSE pressure cpu: $(dmn_digest)"
	msg=$(dmn_msgs "select($sel) | .MESSAGE")
else
	msg=$(grep 'pressure-stall on pressure cpu' "$ERR")
fi
grep -qE 'pressure-stall on pressure cpu, naming .*: incident [^ ]+ opened, warning' <<<"$msg" ||
	live_fail "the alert does not read 'pressure-stall on pressure cpu, naming ...': $(head -c 300 <<<"$msg")"
dmn_hogs_stop
INC=$(jq -r .incident.id "$REP")
resolved() { ls "$DMN_REPORTS/$INC"-[0-9]*-resolved.json >/dev/null 2>&1; }
wait_for 25 resolved || live_fail "the pressure cpu incident did not resolve within 25 s of the hogs' end: $(grep -h '^some' /proc/pressure/cpu); $(ls "$DMN_REPORTS" | grep pressure | tail -3)"
live_pass "opened $took s after the hogs, $(grep -m1 '^points to' <<<"$ev" | cut -c1-60)...; resolved after them"

#!/bin/bash
# live-daemon-pressure: a PSI trigger wakes the daemon. With [scan] interval = 60 the scan after
# the first is due 60 s later; [pressure] cpu = some 1900ms 2s (a task waiting for a CPU 95 %
# of 2 s), memory and io off. Then three CPU hogs per CPU (tests/live/hog, for at most
# LIVE_BUDGET s, killed on exit):
#   - the daemon registered the kernel's trigger at start ("pressure triggers: cpu some
#     1900ms 2s");
#   - the trigger fires and the daemon says "cpu pressure: some 1.9 s in 2 s passed: scanning
#     now";
#   - its second scan (cgwatch_scans_total 2 in the metrics file) is there within 2 s of that
#     line, not 60 s later;
#   - the metrics carry cgwatch_pressure_avg10_ratio{resource="cpu",kind="some"}, a cpu
#     cgwatch_pressure_stall_seconds_total between /proc/pressure/cpu's total before the
#     daemon started and after that scan, and cgwatch_pressure_crossed{resource="cpu"} 1.
# This host may be under CPU pressure already (other sessions): the trigger may then fire before
# the hogs start. What is measured, the time from the trigger's event to the scan, is the same.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-pressure
dmn_require nofuse
[ -r /proc/pressure/cpu ] || live_skip "no /proc/pressure/cpu (a kernel without PSI, or psi=0)"
PROM=$LIVE_TMP/cgwatch.prom
dmn_conf scan.interval=60 run.metrics_file="$PROM" pressure.cpu="some 1900ms 2s" \
	pressure.memory=no pressure.io=no audit.interval=0
total_s() { awk '/^some / { sub("total=", "", $5); printf "%.6f", $5 / 1e6 }' /proc/pressure/cpu; }
T0_TOTAL=$(total_s)
dmn_start daemon
ERR=${DMN_ERRS[-1]}

scans() { sed -n 's/^cgwatch_scans_total \([0-9]*\)$/\1/p' "$PROM" 2>/dev/null; }
first() { [ -n "$(scans)" ]; }
live_wait_for 10 first || {
	dmn_require_alive "waiting for the first scan"
	live_fail "no metrics file with cgwatch_scans_total after 10 s; $(dmn_ctx)"
}
grep -q 'pressure triggers: cpu some 1900ms 2s' "$ERR" ||
	live_fail "the daemon did not register the cpu trigger: $(grep -m2 'pressure' "$ERR" | tr '\n' '|'); $(dmn_ctx)"
cpu_total() { sed -n 's/^cgwatch_pressure_stall_seconds_total{resource="cpu",kind="some"} //p' "$1"; }

dmn_hogs "$(($(nproc) * 3))"
T_HOGS=$(live_now)
line='cpu pressure: some 1.9 s in 2 s passed: scanning now'
# poll the log and the metrics together: the time the line is first seen, then the time the
# second scan's metrics are
t_line= t_scan=
for ((i = 0; i < 400; i++)); do          # 20 s
	if [ -z "$t_line" ] && grep -qF "$line" "$ERR"; then t_line=$(live_now); fi
	if [ -n "$t_line" ] && [ "$(scans)" -ge 2 ] 2>/dev/null; then t_scan=$(live_now); break; fi
	dmn_alive || break
	sleep 0.05
done
dmn_require_alive "waiting for the trigger"
[ -n "$t_line" ] || live_fail "no \"$line\" within 20 s of $(($(nproc) * 3)) hogs on $(nproc) CPUs (/proc/pressure/cpu: $(head -1 /proc/pressure/cpu)); scans: $(scans); $(dmn_ctx)"
[ -n "$t_scan" ] || live_fail "the trigger fired (\"$line\") but no second scan came within $(dmn_fcalc "$(live_now) - $t_line") s (interval 60 s): scans $(scans)"
lag=$(dmn_fcalc "$t_scan - $t_line")
dmn_fcmp "$lag" '<=' 2 || live_fail "the second scan came $lag s after the trigger's line, want <= 2 s"
cp "$PROM" "$LIVE_TMP/scan2.prom"
T1_TOTAL=$(total_s)
grep -q '^cgwatch_pressure_avg10_ratio{resource="cpu",kind="some"} [0-9.]*$' "$LIVE_TMP/scan2.prom" ||
	live_fail "no cpu avg10 gauge in the metrics: $(grep -m3 pressure "$LIVE_TMP/scan2.prom" | tr '\n' '|')"
grep -q '^cgwatch_pressure_crossed{resource="cpu"} 1$' "$LIVE_TMP/scan2.prom" ||
	live_fail "the scan the trigger ran does not mark cpu crossed: $(grep crossed "$LIVE_TMP/scan2.prom" | tr '\n' '|')"
t2=$(cpu_total "$LIVE_TMP/scan2.prom")
dmn_fcmp "$t2" '>=' "$T0_TOTAL" && dmn_fcmp "$t2" '<=' "$T1_TOTAL" ||
	live_fail "cpu stall seconds $t2 in the metrics, not within /proc/pressure/cpu's $T0_TOTAL (before the daemon) .. $T1_TOTAL (after its scan)"
dmn_hogs_stop
dmn_stop
live_pass "trigger to scan $lag s (interval 60 s), hogs started $(dmn_fcalc "$t_line - $T_HOGS") s before the trigger's line; cpu stall $T0_TOTAL <= $t2 <= $T1_TOTAL s"

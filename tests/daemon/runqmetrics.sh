#!/bin/bash
# live-daemon-runqmetrics: the daemon's run-queue latency in its metrics file parses as
# Prometheus text format (tests/promcheck.py: HELP and TYPE lines, buckets non-decreasing,
# +Inf last and equal to _count, no series twice), with cgwatch_runq_latency_seconds per CPU
# group and cgwatch_runq_latency_p99_seconds per CPU; the histogram is cumulative (its
# _count never falls between two reads and grows while tasks wake). The daemon logs its
# source once ("run-queue latency: sched_switch ..."). With [latency] runq = no: none of
# those series, and the log says so. In the initial PID namespace (DMN_PIDNS=0): the
# sched_switch program sees the host's tasks either way.
DMN_PIDNS=${DMN_PIDNS_RUNQMETRICS:-0}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-runqmetrics
dmn_require nofuse
command -v python3 >/dev/null || live_skip "python3 is needed for tests/promcheck.py"
PROMCHECK=$(cd "$(dirname "$0")/.." && pwd)/promcheck.py
PROM=$LIVE_TMP/cgwatch.prom
dmn_conf run.metrics_file="$PROM" latency.runq=auto
dmn_start auto
count() { awk '/^cgwatch_runq_latency_seconds_count\{cpus="housekeeping"\}/ { print $2 }' "$PROM" 2>/dev/null; }
have() { [ -n "$(count)" ]; }
live_wait_for 10 have || live_fail "no cgwatch_runq_latency_seconds_count in $PROM within 10 s: $(tail -c 300 "$LIVE_TMP/auto.err")"
c1=$(count)
sleep 2                                   # a few more scans (interval 0.5 s)
c2=$(count)
cp "$PROM" "$LIVE_TMP/auto.prom"
out=$(python3 "$PROMCHECK" "$LIVE_TMP/auto.prom" metrics) || live_fail "the metrics file: $out"
awk -v a="$c1" -v b="$c2" 'BEGIN { exit !(b > a) }' ||
	live_fail "cgwatch_runq_latency_seconds_count did not grow over 2 s of scans: $c1 then $c2"
n=$(grep -c '^cgwatch_runq_latency_p99_seconds{cpu="[0-9]*"}' "$LIVE_TMP/auto.prom")
[ "$n" = "$(nproc)" ] || live_fail "cgwatch_runq_latency_p99_seconds: $n CPUs, want $(nproc)"
said=$(grep -c '^cgwatch: run-queue latency: ' "$LIVE_TMP/auto.err")
[ "$said" = 1 ] || live_fail "the daemon said its run-queue latency source $said times, want once"
src=$(grep -m1 '^cgwatch: run-queue latency: ' "$LIVE_TMP/auto.err" | cut -c29-)
dmn_stop
[ "$DMN_STOP_RC" = 0 ] || live_fail "auto: exit $DMN_STOP_RC on SIGTERM"

rm -f "$PROM"
dmn_conf run.metrics_file="$PROM" latency.runq=no run.state_dir="$LIVE_TMP/state2"
dmn_start off
scanned() { grep -q '^cgwatch_scans_total [2-9]' "$PROM" 2>/dev/null; }
live_wait_for 10 scanned || live_fail "off: no metrics file with 2 scans within 10 s"
! grep -q '^cgwatch_runq_' "$PROM" || live_fail "off: runq series with [latency] runq = no: $(grep -m1 '^cgwatch_runq_' "$PROM")"
grep -q 'run-queue latency: not measured (\[latency\] runq = no)' "$LIVE_TMP/off.err" ||
	live_fail "off: the log does not say run-queue latency is off: $(tail -c 300 "$LIVE_TMP/off.err")"
out=$(python3 "$PROMCHECK" "$PROM" metrics-off) || live_fail "off: $out"
dmn_stop
live_pass "source: $src; count $c1 -> $c2 over 2 s; metrics parse"

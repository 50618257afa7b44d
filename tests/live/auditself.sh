#!/bin/bash
# live-auditself: `cgwatch audit` of this machine as it is. It exits 0, or 1 naming only
# hazards that are true here: each named hazard is checked against the kernel's own files
# (or cgwatch's capabilities) by this script, independently of cgwatch; a hazard it cannot
# check fails the test. The PASS line lists what was named. Text and JSON agree on the ids.
. "$(dirname "$0")/lib.sh"
live_init auditself
live_require_root
live_require_tools jq timeout
live_require_binary
live_mktemp
OUT=$LIVE_TMP/a.json ERR=$LIVE_TMP/a.err
live_cgwatch "$OUT" "$ERR" audit --format json
rc=$CG_RC
[ "$rc" = 0 ] || [ "$rc" = 1 ] || live_fail "exit $rc: $(head -c 300 "$ERR")"
jq -e '.schema == "cgwatch.audit/1" and .live == true' "$OUT" >/dev/null || live_fail "not a live cgwatch.audit/1 document"
ids=$(jq -r '.hazards[].id' "$OUT")
want=0
jq -e '[.hazards[].severity] | any(. != "info")' "$OUT" >/dev/null && want=1
[ "$rc" = "$want" ] || live_fail "exit $rc, want $want with hazards: $ids"
k() { cat "/proc/sys/kernel/$1"; }
caps=$(awk '/^CapEff/ { print $2 }' /proc/$$/status)   # cgwatch runs with this shell's rights
cap() { (( (0x$caps >> $1) & 1 )); }
for id in $ids; do
	case $id in
	hung-task-reports-off) [ "$(k hung_task_timeout_secs)" = 0 ] ;;
	hung-task-warnings-used-up) [ "$(k hung_task_warnings)" = 0 ] ;;
	hung-task-panic-short) [ "$(k hung_task_panic)" != 0 ] && [ "$(k hung_task_timeout_secs)" -le 60 ] ;;
	softlockup-panic) [ "$(k softlockup_panic)" != 0 ] ;;
	lockup-detector-off) [ "$(k soft_watchdog)" = 0 ] ;;
	lockup-detector-off-all) [ "$(k watchdog)" = 0 ] ;;
	workqueue-watchdog-off) [ "$(cat /sys/module/workqueue/parameters/watchdog_thresh)" = 0 ] ;;
	rt-spinner-unthrottled | rt-spinner-fair-server) [ "$(k sched_rt_runtime_us)" = -1 ] && ps -eLo cls= | grep -qE 'FF|RR' ;;
	rt-spinner | cgwatch-spun) ps -eLo cls= | grep -qE 'FF|RR' ;;
	cgwatch-no-perf) [ "$(k perf_event_paranoid)" -gt -1 ] && ! cap 21 && ! cap 38 ;;
	cgwatch-no-stacks) ! cap 21 ;;
	cgwatch-no-kmsg) [ "$(k dmesg_restrict)" = 1 ] && ! cap 34 ;;
	# a memory.stat held open by some process (the count itself is the kernel's, via perf)
	rstat-contended | rstat-reader-many-cpus)
		find /proc/[0-9]*/fd -lname '*/memory.stat' 2>/dev/null | grep -q . ;;
	*) false ;;
	esac || live_fail "hazard $id named, but this script finds it untrue here (or does not know it)"
done
text=$(timeout 30 "$CGWATCH" audit 2>/dev/null | grep -oE '^(CRITICAL|WARNING|INFO) [a-z0-9-]+' | awk '{print $2}' | sort)
[ "$text" = "$(sort <<<"$ids")" ] || live_fail "text names '$text', JSON '$ids'"
live_pass "exit $rc${ids:+, hazards: $(tr '\n' ' ' <<<"$ids" | sed 's/ $//')}"

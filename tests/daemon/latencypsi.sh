#!/bin/bash
# live-daemon-latencypsi: a pressure crossing opens a latency incident. In the initial PID
# namespace (DMN_PIDNS=0: the run-queue tasks it names are the host's), scans every 1 s,
# [pressure] cpu = some 500ms 2s (a task waiting for a CPU 25 % of 2 s), memory and io off,
# runq-latency off (runq_p99_ms = 0: this test is about pressure), page_after = 0 (fair hogs
# point to no known mechanism, which would otherwise page after 60 s). Three CPU hogs per CPU
# (tests/live/hog, bounded, killed on exit), started once the daemon has scanned, moved into
# a cgroup v2 of the test's own (removed at the end):
#   - a pressure-stall incident with cause "pressure cpu" opens within 15 s; its reports'
#     finding says "cpu pressure crossed its threshold: cpu ..." (the PSI source's sentence),
#     the system-wide averages ("/proc/pressure/cpu: cpu some avg10 ..."), and, once the
#     run-queue latency is measured (from the daemon's second scan), what held the CPU that
#     waited most ("held: CPU N ran ...", its tasks) and the family it points to; its page
#     shows cpu pressure crossed and a run-queue table;
#     its alert reads "pressure-stall on pressure cpu[, naming ...]: incident ID opened";
#   - the hogs are that finding's tasks (what held the CPUs), so their cgroup's cpu.pressure is
#     read: a pressure-stall incident with cause "cgroup /cgwlatpsiPID" opens within 20 s of
#     the hogs, "cgroup /cgwlatpsiPID: cpu some avg10 N %, past the threshold's 25 % (some
#     500ms 2s)", its tasks hogs;
#   - the hogs stopped, the cgroup's incident resolves within 25 s (avg10 decays over about
#     10 s; the host's own load may keep "pressure cpu" past 25 %, so that one is not waited
#     for).
DMN_PIDNS=0
LIVE_BUDGET=${LIVE_BUDGET:-80}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-latencypsi
dmn_require nofuse
[ -r /proc/pressure/cpu ] || live_skip "no /proc/pressure/cpu (a kernel without PSI, or psi=0)"
dmn_journald optional
V2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$V2" ] || live_skip "no cgroup v2 mount"
CGN=cgwlatpsi$$
CG=$V2/$CGN
cg_cleanup() {
	local p
	if [ -d "$CG" ]; then
		while read -r p; do echo "$p" >"$V2/cgroup.procs" 2>/dev/null; done <"$CG/cgroup.procs"
		rmdir "$CG" || live_cleanup_error "rmdir $CG failed"
	fi
	return 0
}
live_on_exit cg_cleanup
mkdir "$CG" || live_fail "setup: mkdir $CG"
dmn_conf scan.interval=1 pressure.cpu="some 500ms 2s" pressure.memory=no pressure.io=no \
	pressure.page_after=0 latency.runq_p99_ms=0 audit.interval=0
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
# the hogs once the daemon has scanned (it says how it measures run-queue latency at its first
# scan; this was a fixed 2 s)
measured() { grep -q 'run-queue latency: ' "$ERR"; }
live_wait_for 10 measured || live_fail "the daemon did not say how it measures run-queue latency within 10 s: $(dmn_ctx)"
dmn_hogs "$(($(nproc) * 3))"
for p in "${HOGS[@]}"; do echo "$p" >"$CG/cgroup.procs" || live_fail "setup: move hog $p into $CG"; done
T0=$(live_now)
wait_for 15 opened || live_fail "no pressure-stall incident on \"pressure cpu\" within 15 s of $(($(nproc) * 3)) hogs: $(ls "$DMN_REPORTS" | head -5); $(grep -m3 pressure "$ERR" | tr '\n' '|'); $(dmn_ctx "" 300)"
took=$(live_elapsed_since "$T0")
# the run-queue measurement starts with the daemon's second scan: a crossing at its first (the
# host's own load) has no holder yet; a later report of the incident has
INC=$(jq -r .incident.id "$REP")
held() {
	local f
	for f in $(ls -t "$DMN_REPORTS/$INC"-[0-9]*-{opened,updated}.json 2>/dev/null | head -4); do
		FD=$(fcpu "$f")
		[ -n "$FD" ] && jq -e '(.tasks | length > 0) and (.evidence | any(startswith("held: ")))' <<<"$FD" >/dev/null && return 0
	done
	return 1
}
wait_for 10 held || live_fail "no report of the pressure cpu incident names what held a CPU: $(jq -c .evidence <<<"$FD" | head -c 900)"
ev=$(jq -r '.evidence[]' <<<"$FD")
grep -qE '^cpu pressure crossed its threshold: cpu ' <<<"$ev" ||
	live_fail "no 'cpu pressure crossed its threshold: ...' line: $(head -c 900 <<<"$ev")"
grep -qE '^/proc/pressure/cpu: cpu some avg10 [0-9.]+ %' <<<"$ev" ||
	live_fail "no system-wide averages line: $(head -c 900 <<<"$ev")"
grep -qE '^held: CPU [0-9]+ \(p99 wait [0-9.]+ ms, the highest\) ran ' <<<"$ev" ||
	live_fail "no line saying what held the CPU that waited most: $(head -c 900 <<<"$ev")"
grep -qE '^points to ' <<<"$ev" || live_fail "no family line: $(head -c 900 <<<"$ev")"
# its page (<id>.html beside the reports): the pressure table, cpu crossed, and the run-queue table
page=$DMN_REPORTS/$INC.html
# (rewritten with each of the incident's reports: one of a scan where cpu crossed, within 5 s)
pcrossed() { grep -q '^<tr id="pressure-cpu" class="crossed"><td>cpu</td><td>[0-9.]* %</td>' "$page"; }
wait_for 5 pcrossed ||
	live_fail "the incident's page $page does not show cpu pressure crossed: $(grep -E '^<tr id="pressure-|^<div class="verdict' "$page" 2>&1 | head -c 600)"
grep -q '^<table id="runq-cpus">' "$page" || live_fail "the incident's page $page has no run-queue table: $(grep -m2 'runq' "$page" 2>&1 | head -c 300)"
if [ "$DMN_JOURNALD" = 1 ]; then
	sel='.CGWATCH_SIGNATURE == "pressure-stall" and .CGWATCH_CAUSE == "pressure cpu" and .CGWATCH_STATE == "opened"'
	dmn_wait_msg 5 "$sel" || live_fail "no journal message opening pressure-stall with CGWATCH_CAUSE pressure cpu: $(dmn_digest)"
	msg=$(dmn_msgs "select($sel) | .MESSAGE")
else
	msg=$(grep 'pressure-stall on pressure cpu' "$ERR")
fi
grep -qE 'pressure-stall on pressure cpu(, naming .*)?: incident [^ ]+ opened, warning' <<<"$msg" ||
	live_fail "the alert does not read 'pressure-stall on pressure cpu, naming ...': $(head -c 300 <<<"$msg")"
# the hogs' own cgroup
cgfound() {
	local f
	for f in $(ls -t "$DMN_REPORTS"/*-pressure-stall*-{opened,updated}.json 2>/dev/null | head -6); do
		CFD=$(jq -c --arg c "cgroup /$CGN" '[.findings[] | select(.id == "pressure-stall" and .cause == $c)][0] // empty' "$f")
		[ -n "$CFD" ] && CREP=$f && return 0
	done
	return 1
}
wait_for 20 cgfound || live_fail "no pressure-stall incident on \"cgroup /$CGN\" within 20 s of the hogs: $(ls "$DMN_REPORTS" | grep pressure | head -5); $(grep -h "^some" "$CG/cpu.pressure")"
jq -e --arg c "$CGN" '.evidence | any(test("^cgroup /" + $c + ": cpu some avg10 [0-9.]+ %, past the threshold.s 25 % \\(some 500ms 2s\\)$"))' <<<"$CFD" >/dev/null ||
	live_fail "no cgroup line past the threshold: $(jq -c .evidence <<<"$CFD" | head -c 600)"
hogtask=$(jq --argjson f "$CFD" '[.tasks[] | select(.tid as $t | $f.tasks | index($t)) | .comm] | map(select(. == "hog")) | length' "$CREP")
[ "$hogtask" -ge 1 ] 2>/dev/null || live_fail "the cgroup finding's tasks hold no hog: $(jq -c --argjson f "$CFD" '[.tasks[] | select(.tid as $t | $f.tasks | index($t)) | {tid, comm}]' "$CREP")"
dmn_hogs_stop
# their cgroup's incident resolves (the host's own load may keep "pressure cpu" open: not
# asserted)
CINC=$(jq -r .incident.id "$CREP")
resolved() { ls "$DMN_REPORTS/$CINC"-[0-9]*-resolved.json >/dev/null 2>&1; }
wait_for 25 resolved || live_fail "the cgroup /$CGN incident did not resolve within 25 s of the hogs' end: $(grep -h '^some' "$CG/cpu.pressure"); $(ls "$DMN_REPORTS" | grep pressure | tail -3)"
live_pass "opened $took s after the hogs, $(grep -m1 '^points to' <<<"$ev" | cut -c1-60)...; their cgroup's too; resolved after them"

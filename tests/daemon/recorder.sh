#!/bin/bash
# live-daemon-recorder: the flight recorder of `cgwatch run` ([recorder] enabled, cpuset_opens,
# an instance of this test's own name, cgwdrecPID), with a real journald, thresholds warning
# 2 s, critical 4 s, scans every 0.5 s:
#   - the instance exists while the daemon runs (made by it: it runs as root here);
#   - a churn burst of CHURN_N (100) mkdir, tasks read, rmdir on a private v1 named hierarchy,
#     then a write of cpuset.mems (a v1 cpuset cgroup made for it) by a shell named
#     cgwmemsw, then a task blocked on FUSE: the incident's "opened" JSON report has a
#     recorder object whose events hold the churn (>= N mkdirs and rmdirs on that
#     hierarchy's root) and the write (a sys_openat by cgwmemsw), in that order, all before
#     the block (rel_s < 0, the write within 3 s of it), the events it lacks not naming openat;
#     its timeline and the text report say "N cgroup rmdirs in the 30 s before PID C blocked"
#     and "cpuset.mems opened for writing by PID ... (cgwmemsw) X s before PID C blocked";
#     the incident's page (<id>.html beside its reports) marks them on its time axis;
#   - the incident's bundle (at critical) holds tree/cgwatch/recorder/trace with those
#     events, its report.json the same sentences, and `check --root BUNDLE` replays them
#     (JSON timeline and text; the HTML page's timeline has marks of their kind);
#   - SIGTERM: the instance is gone; a daemon SIGKILLed leaves it, and the next start
#     replaces it: exactly one instance of the name, the old ring's marker gone;
#   - the main trace buffer's settings (tracing_on, current_tracer, buffer_size_kb,
#     set_event, trace_clock, events/enable) are the same before and after.
# Cleans up even on failure: the instance, the cgroups, the hierarchy, the processes.
LIVE_BUDGET=${LIVE_BUDGET:-90}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-recorder
dmn_require
live_require_tools tar zstd cp
N=${CHURN_N:-100}

TFS=/sys/kernel/tracing
[ -d "$TFS/instances" ] || live_skip "no tracefs with instances at $TFS"
NAME=cgwdrec$$
INST=$TFS/instances/$NAME
snapshot() {
	local f
	for f in tracing_on current_tracer buffer_size_kb set_event trace_clock events/enable; do
		printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$TFS/$f" 2>&1)"
	done
}
snapshot >"$LIVE_TMP/main.before"
inst_cleanup() {
	[ -d "$INST" ] && { rmdir "$INST" || live_cleanup_error "rmdir $INST failed"; }
	return 0
}
live_on_exit inst_cleanup              # runs after the daemons are killed (registered first)

CS=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ { print $5; exit }' /proc/self/mountinfo)
[ -n "$CS" ] || live_skip "no cgroup v1 cpuset hierarchy mounted here"
CG=$CS/$NAME
cg_cleanup() {
	[ -d "$CG" ] && { rmdir "$CG" || live_cleanup_error "rmdir $CG failed"; }
	return 0
}
live_on_exit cg_cleanup
mkdir "$CG" || live_fail "setup: mkdir $CG"
cat "$CS/cpuset.cpus" >"$CG/cpuset.cpus" || live_fail "setup: cpuset.cpus of $CG"
HIER=$LIVE_TMP/hier
live_v1_hierarchy "$HIER" "$NAME" nokeep
HID=$(awk -F: -v n="name=$NAME" '$2 == n { print $1 }' /proc/self/cgroup)
[ -n "$HID" ] || live_fail "setup: no hierarchy id for name=$NAME in /proc/self/cgroup"
cp /bin/bash "$LIVE_TMP/cgwmemsw" || live_fail "setup: cp /bin/bash"

dmn_journald required
dmn_conf recorder.enabled=yes recorder.cpuset_opens=yes recorder.instance="$NAME" \
	recorder.window=120 bundle.dir="$LIVE_TMP/bundles" bundle.min_interval=0
mkdir -p "$LIVE_TMP/tmp" || live_fail "setup: mkdir $LIVE_TMP/tmp"

# recording: the instance is there with its events on and the daemon said so
# what the daemon said of its recorder and what the instance holds, for a failure (dmn_ctx's
# tail alone is the first scan's lines)
rec_ctx() {
	printf 'instance %s: %s; recorder lines: %s; %s' "$INST" \
		"$([ -d "$INST" ] && echo "rmdir enable $(cat "$INST/events/cgroup/cgroup_rmdir/enable" 2>&1)" || echo absent)" \
		"$(grep -a 'recorder' "${DMN_ERRS[-1]}" | tail -4 | tr '\n' '|' | cut -c1-800)" "$(dmn_ctx "" 1200)"
}
recording() {
	[ -d "$INST" ] && [ "$(cat "$INST/events/cgroup/cgroup_rmdir/enable" 2>/dev/null)" = 1 ] &&
		grep -q "flight recorder on: $INST" "${DMN_ERRS[-1]}"
}
dmn_start daemon TMPDIR="$LIVE_TMP/tmp"
live_wait_for 10 recording || live_fail "no recording instance $INST 10 s after the start: $(rec_ctx)"
grep -q "flight recorder on: $INST.*recording .*syscalls:sys_enter_openat" "${DMN_ERRS[-1]}" ||
	live_fail "the start message does not name sys_enter_openat recorded: $(grep 'flight recorder' "${DMN_ERRS[-1]}" | head -c 400)"

# ---- the churn, the write, then the hang
i=0
while [ "$i" -lt "$N" ]; do
	mkdir "$HIER/c$i" && cat "$HIER/c$i/tasks" >/dev/null && rmdir "$HIER/c$i" ||
		live_fail "churn: step $i failed"
	i=$((i + 1))
done
sleep 0.3
"$LIVE_TMP/cgwmemsw" -c "echo 0 > '$CG/cpuset.mems'" || live_fail "the cpuset.mems write failed"
sleep 1
dmn_fuse_child cgw-recstuck
dmn_wait_msg $((DMN_WARN + 5)) ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\"" ||
	live_fail "no \"opened\" for pid $CHILD; messages: [$(dmn_digest)]; $(dmn_ctx)"
OPEN=$(dmn_msgs "select(.CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\")" | head -1)
INC=$(jq -r .CGWATCH_INCIDENT <<<"$OPEN")
REP=$(jq -r .CGWATCH_REPORT <<<"$OPEN")
_rep() { [ -s "$REP" ] && [ -s "${REP%.json}.txt" ]; }
live_wait_for 3 _rep || live_fail "no report $REP"

# check_readout JSON WHAT: the recorder object of a report (or replay) holds the churn and
# the write, in order, before the block, and the sentences
check_readout() {
	local j=$1 what=$2 why
	why=$(jq -r --arg hid "$HID" --argjson n "$N" --arg c "$CHILD" '
		.recorder as $r
		| if $r == null then "no recorder object"
		elif ($r | has("error")) then "recorder error: \($r.error)"
		else
		  [$r.events[] | select(.event == "cgroup_mkdir" and (.fields | startswith("root=\($hid) ")))] as $mk
		| [$r.events[] | select(.event == "cgroup_rmdir" and (.fields | startswith("root=\($hid) ")))] as $rm
		| [$r.events[] | select(.event == "sys_openat" and .comm == "cgwmemsw")] as $op
		| if ($mk | length) < $n or ($rm | length) < $n then "churn: \($mk | length) mkdirs, \($rm | length) rmdirs on root \($hid), want >= \($n)"
		elif ($op | length) != 1 then "\($op | length) sys_openat events by cgwmemsw, want 1"
		elif ($rm | last | .at) >= ($op[0].at) then "the last rmdir (\($rm | last | .at)) is not before the write (\($op[0].at))"
		elif ($op[0].rel_s >= 0 or $op[0].rel_s < -3 or ($mk[0].rel_s >= $op[0].rel_s)) then "times from the block: first mkdir \($mk[0].rel_s), write \($op[0].rel_s); want mkdir < write < 0, write > -3"
		elif $r.anchor != "PID \($c) blocked" then "anchor \($r.anchor), want PID \($c) blocked"
		elif ([$r.missing[] | select(startswith("syscalls:sys_enter_openat"))] | length) > 0 then "openat named missing: \($r.missing)"
		elif ([$r.timeline[] | select(.kind == "cgroup" and (.text | test("^[0-9]+ cgroup rmdirs in the 30 s before PID \($c) blocked")))] | length) != 1 then "no rmdir sentence: \([$r.timeline[].text])"
		elif ([$r.timeline[] | select(.kind == "cpuset" and (.text | test("^cpuset.mems opened for writing by PID [0-9]+ \\(cgwmemsw\\) [0-9.]+ s before PID \($c) blocked$")))] | length) != 1 then "no cpuset.mems sentence: \([$r.timeline[].text])"
		else "ok" end end' "$j" 2>&1)
	[ "$why" = ok ] || live_fail "$what ($j): $why"
}
check_readout "$REP" "the \"opened\" report"
TXT=${REP%.json}.txt
grep -q "^Kernel events before the hang (flight recorder" "$TXT" &&
	grep -qE "^ +-[0-9.]+ s  [0-9]+ cgroup rmdirs in the 30 s before PID $CHILD blocked" "$TXT" &&
	grep -qE "^ +-[0-9.]+ s  cpuset.mems opened for writing by PID [0-9]+ \(cgwmemsw\) [0-9.]+ s before PID $CHILD blocked" "$TXT" ||
	live_fail "text report $TXT lacks the recorder's sentences: $(grep -A6 '^Kernel events' "$TXT" | head -c 600)"
# the rmdir sentence comes before the write's in the text (time order)
l1=$(grep -nE "cgroup rmdirs in the 30 s before" "$TXT" | head -1 | cut -d: -f1)
l2=$(grep -n "cpuset.mems opened for writing" "$TXT" | head -1 | cut -d: -f1)
[ "$l1" -lt "$l2" ] || live_fail "text report: the churn (line $l1) is not before the write (line $l2)"

# the incident's page beside its reports: the recorder's marks on its time axis, listed
PAGE=$(dirname "$REP")/$INC.html
_page() { [ -s "$PAGE" ]; }
live_wait_for 3 _page || live_fail "no incident page $PAGE"
grep -q '<g class="mark recorder rec-cpuset">' "$PAGE" && grep -q '<g class="mark recorder rec-cgroup">' "$PAGE" &&
	grep -qE "<li class=\"recorder rec-cpuset\"><b>-[0-9.]+ s</b> cpuset.mems opened for writing by PID [0-9]+ \(cgwmemsw\)" "$PAGE" ||
	live_fail "the incident's page $PAGE has no recorder marks: $(grep -o 'class="mark [^"]*"' "$PAGE" | sort | uniq -c | tr '\n' ' ')"

# ---- its bundle, and a replay of it
dmn_wait_state escalated 1 $((DMN_CRIT + 4)) "$INC" ||
	live_fail "no \"escalated\" for $INC; messages: [$(dmn_digest)]; $(dmn_ctx)"
B=$LIVE_TMP/bundles/cgwatch-bundle-$INC.tar.zst
_made() { [ -s "$B" ]; }
live_wait_for 5 _made || live_fail "no bundle $B 5 s after \"escalated\": $(dmn_ctx "" 1200)"
tar -xOf "$B" tree/cgwatch/recorder/trace >"$LIVE_TMP/btrace" 2>"$LIVE_TMP/tar.err" ||
	live_fail "the bundle has no tree/cgwatch/recorder/trace: $(head -c 300 "$LIVE_TMP/tar.err")"
head -1 "$LIVE_TMP/btrace" | grep -qx '# cgwatch-recorder 1' && grep -q 'cgwmemsw-.*sys_openat(' "$LIVE_TMP/btrace" ||
	live_fail "tree/cgwatch/recorder/trace: $(head -c 400 "$LIVE_TMP/btrace")"
tar -xOf "$B" report.json >"$LIVE_TMP/breport.json" 2>/dev/null || live_fail "the bundle has no report.json"
check_readout "$LIVE_TMP/breport.json" "the bundle's report.json"
timeout -k 1 30 "$CGWATCH" check --root "$B" --config "$DMN_CONF" --format json >"$LIVE_TMP/replay.json" 2>"$LIVE_TMP/replay.err"
rc=$?
[ "$rc" = 1 ] || live_fail "check --root $B exits $rc, want 1: $(head -c 400 "$LIVE_TMP/replay.err")"
check_readout "$LIVE_TMP/replay.json" "the replay of the bundle"
k='[.recorder.timeline[] | .text]'
[ "$(jq -c "$k" "$LIVE_TMP/replay.json")" = "$(jq -c "$k" "$LIVE_TMP/breport.json")" ] ||
	live_fail "the replay's timeline differs from the bundle's report: $(jq -c "$k" "$LIVE_TMP/replay.json" | head -c 300) vs $(jq -c "$k" "$LIVE_TMP/breport.json" | head -c 300)"
timeout -k 1 30 "$CGWATCH" check --root "$B" --config "$DMN_CONF" >"$LIVE_TMP/replay.txt" 2>/dev/null
grep -qE "cpuset.mems opened for writing by PID [0-9]+ \(cgwmemsw\) [0-9.]+ s before PID $CHILD blocked" "$LIVE_TMP/replay.txt" ||
	live_fail "the replay's text lacks the write's sentence: $(grep -A6 '^Kernel events' "$LIVE_TMP/replay.txt" | head -c 500)"
timeout -k 1 30 "$CGWATCH" check --root "$B" --config "$DMN_CONF" --format html >"$LIVE_TMP/replay.html" 2>/dev/null
grep -q '<g class="mark recorder rec-cpuset">' "$LIVE_TMP/replay.html" &&
	grep -q '<g class="mark recorder rec-cgroup">' "$LIVE_TMP/replay.html" &&
	grep -q '<li class="recorder rec-cpuset"><b>-[0-9.]* s</b> cpuset.mems opened for writing' "$LIVE_TMP/replay.html" ||
	live_fail "the replay's page has no recorder marks: $(grep -o 'class="mark [^"]*"' "$LIVE_TMP/replay.html" | sort | uniq -c | tr '\n' ' ')"

# ---- stop: the instance goes; SIGKILL + restart: exactly one, fresh
dmn_stop TERM 5
[ "$DMN_STOP_RC" = 0 ] || live_fail "SIGTERM: exit $DMN_STOP_RC"
[ -d "$INST" ] && live_fail "the instance $INST is still there after SIGTERM"
dmn_start daemon2 TMPDIR="$LIVE_TMP/tmp"
live_wait_for 10 recording || live_fail "second start: no instance $INST: $(rec_ctx)"
echo "cgwdrec-marker-$$" >"$INST/trace_marker" || live_fail "setup: trace_marker"
grep -q "cgwdrec-marker-$$" "$INST/trace" || live_fail "setup: the marker is not in the ring"
dmn_stop KILL 5
[ -d "$INST" ] || live_fail "setup: the instance went away with the SIGKILLed daemon"
dmn_start daemon3 TMPDIR="$LIVE_TMP/tmp"
live_wait_for 10 recording || live_fail "start after SIGKILL: no recording instance: $(rec_ctx)"
cnt=$(ls "$TFS/instances" | grep -cx "$NAME")
[ "$cnt" = 1 ] || live_fail "$cnt instances named $NAME after SIGKILL + restart, want 1"
grep -q "cgwdrec-marker-$$" "$INST/trace" && live_fail "the restarted daemon kept the old ring (marker still there)"
# a reload with other [recorder] settings restarts it: the old instance gone, the new one
# there with its ring's size; one with only the readout's window changed keeps the ring
INSTB=${INST}b
instb_cleanup() {
	[ -d "$INSTB" ] && { rmdir "$INSTB" || live_cleanup_error "rmdir $INSTB failed"; }
	return 0
}
live_on_exit instb_cleanup
dmn_conf recorder.enabled=yes recorder.cpuset_opens=yes recorder.instance="${NAME}b" \
	recorder.buffer_kb=512 recorder.window=120 bundle.dir="$LIVE_TMP/bundles" bundle.min_interval=0
kill -HUP "$DPID"
restarted() {
	[ -d "$INSTB" ] && [ ! -d "$INST" ] && [ "$(cat "$INSTB/buffer_size_kb" 2>/dev/null || echo 0)" -ge 512 ] &&
		grep -q "flight recorder on: $INSTB" "${DMN_ERRS[-1]}"
}
live_wait_for 10 restarted || live_fail "SIGHUP with [recorder] instance ${NAME}b, buffer_kb 512: $(ls "$TFS/instances" | grep "$NAME" | tr '\n' ' ') $(cat "$INSTB/buffer_size_kb" 2>&1); $(dmn_ctx "" 1200)"
echo "cgwdrec-keep-$$" >"$INSTB/trace_marker" || live_fail "setup: trace_marker of $INSTB"
dmn_conf recorder.enabled=yes recorder.cpuset_opens=yes recorder.instance="${NAME}b" \
	recorder.buffer_kb=512 recorder.window=60 bundle.dir="$LIVE_TMP/bundles" bundle.min_interval=0
kill -HUP "$DPID"
live_wait_for 10 eval '[ "$(grep -c "configuration reloaded" "${DMN_ERRS[-1]}")" -ge 2 ]' ||
	live_fail "the second SIGHUP was not taken: $(dmn_ctx "" 1200)"
sleep 0.5
grep -q "cgwdrec-keep-$$" "$INSTB/trace" || live_fail "a reload changing only [recorder] window restarted the ring (its marker is gone)"
dmn_stop TERM 5
[ -d "$INSTB" ] && live_fail "the instance $INSTB is still there after SIGTERM"
[ -d "$INST" ] && live_fail "the instance $INST is back after SIGTERM"

snapshot >"$LIVE_TMP/main.after"
cmp -s "$LIVE_TMP/main.before" "$LIVE_TMP/main.after" ||
	live_fail "the main buffer's settings changed: $(diff "$LIVE_TMP/main.before" "$LIVE_TMP/main.after" | head -5 | tr '\n' '|')"
live_pass "churn ($N mkdir/rmdir) and the cpuset.mems write in the report, its bundle and a replay, before PID $CHILD blocked; instance gone after SIGTERM, one after SIGKILL + restart; SIGHUP with another instance and ring size restarts it, with only the window changed keeps it; main buffer unchanged"

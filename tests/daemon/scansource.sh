#!/bin/bash
# live-daemon-scansource: the daemon says its scan source once in its log, and finds a stuck
# task through either. A task blocked on FUSE; `cgwatch run` with the default [scan] source
# (auto) logs "scan source: bpf (task walker loaded ...)" exactly once over its scans and opens
# the task's incident; a second daemon, run with bpf() refused by a seccomp filter
# (tests/live/nobpf), logs "scan source: /proc (...refused...)" exactly once and opens it too.
# In the initial PID namespace (DMN_PIDNS=0: in one of its own the daemon reads /proc, the
# iterator's ids being the host's): the daemon sees the host, and only the incidents of this
# test's task are looked at. Then, in a PID namespace of its own, a third daemon says so and
# scans /proc.
# Memory, first: a daemon that locks its memory (lock_memory = yes, as by default), with the
# walker, the iterator and the run-queue program loaded, must hold less than 16 MiB locked
# (VmLck; VmRSS where it cannot lock): each load's copy of the kernel's BTF is given back
# (glibc's default mmap threshold left it on the locked heap: 22 MiB). Its thresholds are a
# day: it sees the host, whose other stuck tasks would open incidents (a bundle maps
# libarchive, ICU and libxml2; naming kernel stacks reads /proc/kallsyms for a scan).
# Alert latency through both sources: each of the first two daemons is scanning (it has said
# its source) before its task blocks (a fresh FUSE-stuck child each), and its "opened" alert
# must come at the first scan past the warning threshold: CGWATCH_BLOCKED_SEC within
# warning..warning + one interval (+0.5 s slack), and, with journald, journald's receive time
# at most warning + one interval + 1 s after the task blocked, CGWATCH_BLOCKED_SEC not above
# that (the same bounds as tests/daemon/journal.sh, which measures /proc in a PID namespace).
DMN_PIDNS=${DMN_PIDNS_SCANSOURCE:-0}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-scansource
dmn_require
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the iterator cannot load here"
"$LIVE_DIR/build.sh" && [ -x "$LIVE_BIN/nobpf" ] || live_fail "could not build tests/live/bin/nobpf"
dmn_journald optional
dmn_conf run.lock_memory=yes thresholds.blocked_warning=86400 thresholds.blocked_critical=86400 \
	thresholds.starved=86400 run.state_dir="$LIVE_TMP/state0" reports.dir="$LIVE_TMP/reports0" \
	bundle.dir="$LIVE_TMP/bundles0"

# said NAME PATTERN: how many lines of daemon NAME's log match PATTERN (grep -E)
said() { grep -cE "$2" "$LIVE_TMP/$1.err" 2>/dev/null; }
# the "opened" alert of daemon $DPID for the stuck child $CHILD
opened() { echo ".CGWATCH_STATE == \"opened\" and .CGWATCH_COMM == \"cgw-srcstuck\" and (._PID | tostring) == \"$DPID\" and (.CGWATCH_PID | tostring) == \"$CHILD\""; }
opened_by() { dmn_wait_msg 10 "$(opened)"; }
# stuck_after_start NAME: once daemon NAME has said its scan source (it is scanning), a fresh
# FUSE-stuck child (T_START: just before it blocked).
stuck_after_start() {
	_scanning() { [ "$(said "$1" '^cgwatch: scan source: ')" -ge 1 ] 2>/dev/null; }
	live_wait_for 10 _scanning "$1" || live_fail "$1: no 'scan source' line within 10 s: $(tail -c 300 "$LIVE_TMP/$1.err")"
	dmn_fuse_child cgw-srcstuck
}
# latency_ok NAME: daemon NAME's "opened" alert came at its first scan past the threshold.
latency_ok() {
	local sel b t
	sel=$(opened)
	b=$(dmn_msgs "select($sel)" | head -1 | jq -r '.CGWATCH_BLOCKED_SEC // empty')
	dmn_fcmp "$b" '>=' "$DMN_WARN" && dmn_fcmp "$b" '<=' "$(dmn_fcalc "$DMN_WARN + $DMN_INTERVAL + 0.5")" ||
		live_fail "$1: \"opened\" CGWATCH_BLOCKED_SEC=$b, want $DMN_WARN..$DMN_WARN+interval($DMN_INTERVAL)+0.5"
	LAT[$1]="blocked ${b} s at the alert"
	[ "$DMN_JOURNALD" = 1 ] || return 0
	t=$(dmn_fcalc "$(dmn_msg_time "$sel") - $T_START")
	dmn_fcmp "$t" '<=' "$(dmn_fcalc "$DMN_WARN + $DMN_INTERVAL + 1")" ||
		live_fail "$1: journald got the \"opened\" alert $t s after the task blocked, want at most $DMN_WARN+interval($DMN_INTERVAL)+1"
	dmn_fcmp "$b" '<=' "$(dmn_fcalc "$t * 1.1 + 0.05")" ||
		live_fail "$1: \"opened\" CGWATCH_BLOCKED_SEC=$b, but journald got it $t s after the task blocked"
	LAT[$1]+=", journald got it $t s after the block"
}
declare -A LAT

dmn_start mem
# the three programs loaded (the run-queue one at the first scan, which says so), two scans more
said_runq() { [ "$(said mem '^cgwatch: run-queue latency: ')" -ge 1 ] 2>/dev/null; }
live_wait_for 10 said_runq || live_fail "mem: no 'run-queue latency' line within 10 s: $(tail -c 300 "$LIVE_TMP/mem.err")"
sleep 1
mem=VmLck                                 # VmRSS where it could not lock (no CAP_IPC_LOCK)
grep -q 'locking memory (mlockall)' "$LIVE_TMP/mem.err" || mem=VmRSS
kb=$(awk -v m="$mem:" '$1 == m { print $2 }' "/proc/$DPID/status")
src=$(grep -m1 'scan source: ' "$LIVE_TMP/mem.err")
dmn_stop
[ "${kb:-0}" -gt 0 ] && [ "$kb" -lt 16384 ] ||
	live_fail "mem: $mem ${kb} kB, want under 16 MiB (${src#cgwatch: })"

dmn_conf
dmn_start bpf
stuck_after_start bpf
opened_by "$DPID" || live_fail "bpf: no incident opened for the stuck task within 10 s: $(dmn_digest); $(dmn_ctx)"
latency_ok bpf
sleep 2                                   # a few more scans (interval 0.5 s)
# kernel_said NAME: each kernel feature's line said exactly once by daemon NAME
kernel_said() {
	local f n
	for f in task-walker task-iterator runq-program tracepoint-counters; do
		n=$(said "$1" "^cgwatch: kernel: $f (used|available|refused|not-tried|off)( \\(.*\\))?$")
		[ "$n" = 1 ] || live_fail "$1: 'kernel: $f ...' said $n times, want once: $(grep 'kernel:' "$LIVE_TMP/$1.err" | head -5 | tr '\n' '|')"
	done
}
kernel_said bpf
# the walker where this kernel loads it; where it refuses it, the refusal said and the
# iter/task program used in its place
if [ "$(said bpf '^cgwatch: kernel: task-walker used ')" = 1 ]; then
	n=$(said bpf '^cgwatch: scan source: bpf \(task walker loaded \(the open-coded task iterator\)\)$')
	[ "$n" = 1 ] || live_fail "bpf: 'scan source: bpf (task walker loaded (the open-coded task iterator))' said $n times, want once: $(grep 'scan source' "$LIVE_TMP/bpf.err" | head -3 | tr '\n' '|')"
	live_proof scan-walker
elif [ "$(said bpf '^cgwatch: kernel: task-walker refused \(.+\)$')" = 1 ]; then
	n=$(said bpf '^cgwatch: scan source: bpf \(task iterator loaded; the kernel refused the task walker \(.+\)\)$')
	[ "$n" = 1 ] || live_fail "bpf: the walker refused, but 'scan source: bpf (task iterator loaded; the kernel refused the task walker (...))' said $n times, want once: $(grep 'scan source' "$LIVE_TMP/bpf.err" | head -3 | tr '\n' '|')"
	live_proof scan-iterator
else
	live_fail "bpf: the task walker neither used nor refused with a reason: $(grep 'kernel: task-walker' "$LIVE_TMP/bpf.err" | head -2 | tr '\n' '|')"
fi
dmn_stop
[ "$DMN_STOP_RC" = 0 ] || live_fail "bpf: exit $DMN_STOP_RC on SIGTERM"
dmn_fuse_release                          # the next daemon gets a task of its own
live_umount "$MNT"

dmn_conf run.state_dir="$LIVE_TMP/state2" reports.dir="$LIVE_TMP/reports2" bundle.dir="$LIVE_TMP/bundles2"
REAL=$CGWATCH
CGWATCH=$LIVE_TMP/cgwatch-nobpf
printf '#!/bin/sh\nexec %q %q "$@"\n' "$LIVE_BIN/nobpf" "$REAL" >"$CGWATCH" && chmod +x "$CGWATCH" ||
	live_fail "setup: wrapper"
dmn_start nobpf
stuck_after_start nobpf
opened_by "$DPID" || live_fail "nobpf: no incident opened for the stuck task within 10 s: $(dmn_digest); $(dmn_ctx)"
latency_ok nobpf
sleep 2
n=$(said nobpf '^cgwatch: scan source: /proc \(.*refused.*\)$')
[ "$n" = 1 ] || live_fail "nobpf: 'scan source: /proc (... refused ...)' said $n times, want once: $(grep 'scan source' "$LIVE_TMP/nobpf.err" | head -3 | tr '\n' '|')"
kernel_said nobpf
[ "$(said nobpf '^cgwatch: kernel: task-iterator refused \(.*refused.*\)$')" = 1 ] ||
	live_fail "nobpf: 'kernel: task-iterator refused (...)' not said: $(grep 'kernel:' "$LIVE_TMP/nobpf.err" | head -4 | tr '\n' '|')"
live_proof scan-proc
dmn_stop

dmn_conf run.state_dir="$LIVE_TMP/state3" reports.dir="$LIVE_TMP/reports3" bundle.dir="$LIVE_TMP/bundles3"
printf '#!/bin/sh\nexec unshare --pid --fork --mount-proc --kill-child %q "$@"\n' "$REAL" >"$CGWATCH" ||
	live_fail "setup: wrapper"
dmn_start pidns
said_pidns() { [ "$(said pidns '^cgwatch: scan source: /proc \(in a PID namespace of its own')" = 1 ]; }
live_wait_for 5 said_pidns || live_fail "pidns: not said once: $(grep 'scan source' "$LIVE_TMP/pidns.err" | head -3 | tr '\n' '|')"
dmn_stop
live_pass "$(grep -m1 'scan source' "$LIVE_TMP/bpf.err" | cut -c10-): ${LAT[bpf]}; $mem $kb kB; then $(grep -m1 'scan source' "$LIVE_TMP/nobpf.err" | cut -c10- | head -c 90): ${LAT[nobpf]}"

#!/bin/bash
# Live: the flight recorder (source-recorder.c), driven by tests/live/recorder/recdrive.c linked
# against cgwatch's objects, in a tracefs instance of its own name (cgwrecPID, not the
# daemon's), shows:
#   - a write of cpuset.mems (a v1 cpuset cgroup made for it), a churn burst of CHURN_N (200)
#     mkdir, tasks read, rmdir on a private v1 named hierarchy, then a second cpuset.mems
#     write, all seen in that order, with times inside the run; the churn's mkdirs and rmdirs
#     all there, on that hierarchy's root id; work queued on cgroup_pidlist_destroy seen and
#     no queued work of another workqueue recorded (the kernel-side filter); with sched_switch
#     on CPU 1 (-s 1), its switches read out merged in time order with the rest, no other CPU's;
#   - the instance gone once the recorder stops;
#   - after a SIGKILL of the recorder (the instance left behind, a marker written in its ring,
#     an event it never enables enabled) and a restart: exactly one instance of that name,
#     the marker gone and that event off (a new instance, not the old one reused);
#   - sched_switch forced to CPU 1 by the config ([recorder] sched_switch = 1, `cgwatch recorder
#     start --config`): a switch storm pinned to CPU 1 (bench/pingpong.c as cgwsw-in) is in
#     instances/NAME-switch, one pinned to CPU 0 (cgwsw-out) is not, nor is any switch of
#     another CPU, and none is in NAME's own ring; `recorder stop` removes both instances;
#   - `cgwatch bundle` made by hand and `check --capture` while that instance runs: their tree
#     holds its window (cgwatch/recorder/trace, with mkdirs made just before and the switches),
#     and the bundle's report.json a recorder object;
#   - the main buffer's settings (tracing_on, current_tracer, buffer_size_kb, trace_clock,
#     set_event, tracing_cpumask, the filters and enables of the events the recorder uses)
#     and the other instances unchanged.
# Cleans up even on failure: the instance and its owner file, the cgroups, the mount, the
# processes.
. "$(dirname "$0")/lib.sh"
live_init recorder
live_require_root
live_require_tools cc make awk mount umount timeout taskset zstd tar
live_mktemp

N=${CHURN_N:-200}
case ${BUILD:-build} in
/*) OBJ=$BUILD/obj ;;
*) OBJ=$LIVE_REPO/${BUILD:-build}/obj ;;
esac
[ -f "$OBJ/source-recorder.o" ] || live_fail "no $OBJ/source-recorder.o: run make -C $LIVE_REPO"

TFS=/sys/kernel/tracing
if [ ! -d "$TFS/instances" ]; then
	mount -t tracefs nodev "$TFS" 2>/dev/null && live_on_exit "umount $TFS"
	[ -d "$TFS/instances" ] || live_skip "no tracefs with instances at $TFS"
fi
NAME=cgwrec$$
INST=$TFS/instances/$NAME
RUNDIR_NEW=; [ -d /run/cgwatch ] || RUNDIR_NEW=1
inst_cleanup() {
	[ -d "$INST-switch" ] && { rmdir "$INST-switch" || live_cleanup_error "rmdir $INST-switch failed"; }
	[ -d "$INST" ] && { rmdir "$INST" || live_cleanup_error "rmdir $INST failed"; }
	rm -f "/run/cgwatch/recorder-$NAME.lock"      # a SIGKILLed owner's
	[ -n "$RUNDIR_NEW" ] && rmdir /run/cgwatch 2>/dev/null   # made for us, and empty
	return 0
}
live_on_exit inst_cleanup

live_cgwatch_objs "$OBJ"
DRV=$LIVE_TMP/recdrive
timeout 60 cc -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -include "$OBJ/../config.h" \
	-I"$LIVE_REPO/src" "${cg_cflags[@]}" -o "$DRV" "$LIVE_DIR/recorder/recdrive.c" \
	"${objs[@]}" "${cg_libs[@]}" 2>"$LIVE_TMP/cc.err" ||
	live_fail "could not build recdrive: $(head -c 300 "$LIVE_TMP/cc.err")"

# ---- the main buffer's settings, before
snapshot() {
	local f
	for f in tracing_on current_tracer buffer_size_kb trace_clock set_event tracing_cpumask \
		events/enable events/cgroup/enable events/cgroup/cgroup_mkdir/filter \
		events/workqueue/workqueue_queue_work/filter events/workqueue/workqueue_queue_work/enable \
		events/workqueue/workqueue_execute_start/filter \
		events/syscalls/sys_enter_openat/filter events/syscalls/sys_enter_openat/enable; do
		printf '%s: ' "$f"
		tr '\n' ' ' <"$TFS/$f" 2>&1
		echo
	done
	echo "instances: $(ls "$TFS/instances" | grep -vx "$NAME" | tr '\n' ' ')"
}
snapshot >"$LIVE_TMP/main.before"

# ---- a v1 cpuset cgroup to write cpuset.mems of, and a private v1 named hierarchy to churn
CS=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ { print $5; exit }' /proc/self/mountinfo)
[ -n "$CS" ] || live_skip "no cgroup v1 cpuset hierarchy mounted here"
CG=$CS/$NAME
MNT=$LIVE_TMP/hier
HNAME=cgwrec$$
cg_cleanup() {
	[ -d "$CG" ] && { rmdir "$CG" || live_cleanup_error "rmdir $CG failed"; }
	return 0
}
live_on_exit cg_cleanup
mkdir "$CG" || live_fail "mkdir $CG"
cat "$CS/cpuset.cpus" >"$CG/cpuset.cpus" || live_fail "setup: cpuset.cpus of $CG"
live_v1_hierarchy "$MNT" "$HNAME" nokeep
HID=$(awk -F: -v n="name=$HNAME" '$2 == n { print $1 }' /proc/self/cgroup)
[ -n "$HID" ] || live_fail "no hierarchy id for name=$HNAME in /proc/self/cgroup"

cat >"$LIVE_TMP/burst.sh" <<EOS
echo 0 > "$CG/cpuset.mems" || exit 1
sleep 0.2
i=0
while [ \$i -lt $N ]; do
	mkdir "$MNT/c\$i" && cat "$MNT/c\$i/tasks" >/dev/null && rmdir "$MNT/c\$i" || exit 1
	i=\$((i + 1))
done
sleep 0.2
echo 0 > "$CG/cpuset.mems" || exit 1
EOS

# ---- run: the burst recorded
timeout 60 "$DRV" -c -s 1 -n "$NAME" -b 1024 run "$LIVE_TMP/burst.sh" 120 >"$LIVE_TMP/run.out" \
	2>"$LIVE_TMP/run.err"
RC=$?
O=$LIVE_TMP/run.out
grep -q '^start rc=0 ' "$O" || live_fail "recorder_start: $(head -3 "$O" | tr '\n' '|') $(head -c 200 "$LIVE_TMP/run.err")"
grep -q '^script rc=0$' "$O" || live_fail "the burst script failed: $(grep '^script' "$O")"
grep -q '^read rc=0 ' "$O" || live_fail "recorder_read: $(grep '^read' "$O")"
grep -q '^stop rc=0$' "$O" || live_fail "recorder_stop: $(grep '^stop' "$O")"
[ "$RC" = 0 ] || live_fail "recdrive exit $RC"
[ -d "$INST" ] && live_fail "the instance $INST is still there after recorder_stop"
for e in cgroup:cgroup_mkdir cgroup:cgroup_rmdir workqueue:workqueue_queue_work syscalls:sys_enter_openat; do
	grep -qE "^enabled( .*)? $e( |$)" "$O" ||
		live_fail "$e not enabled: $(grep -E '^(enabled|missing)' "$O" | tr '\n' '|')"
done

# the checks, on the ev lines: T CPU PID COMM NAME FIELDS
awk -F'\t' -v hid="$HID" -v n="$N" -v out="$LIVE_TMP/why" '
function fail(m) { print m > out; bad = 1; exit 1 }
/^t0 / { split($0, a, " "); t0 = a[2] }
/^t1 / { split($0, a, " "); t1 = a[2] }
$1 != "ev" { next }
{ t = $2 + 0 }
prev != "" && t < prev { fail("events out of time order: " t " after " prev) }
{ prev = t }
# sys_enter_openat prints as sys_openat(...); flags 0x241: O_WRONLY|O_CREAT|O_TRUNC, a shell redirection
$6 == "sys_openat" && t >= t0 && t <= t1 { mems[++nm] = t }
$6 == "cgroup_mkdir" && $7 ~ ("^root=" hid " ") { mk++; if (!fmk) fmk = t; lmk = t }
$6 == "cgroup_rmdir" && $7 ~ ("^root=" hid " ") { rm++; if (!frm) frm = t; lrm = t }
$6 == "sched_switch" { sw++; if ($3 != 1) fail("a switch of CPU " $3 " read out, want CPU 1 only") }
$6 == "workqueue_queue_work" {
	if ($7 !~ /workqueue=(cgroup_pidlist_destroy|cpuset_migrate_mm|mm_percpu_wq) /)
		fail("queued work of another workqueue recorded: " $7)
	if ($7 ~ /workqueue=cgroup_pidlist_destroy /) pl++
}
END {
	if (bad) exit 1
	if (nm < 2) fail("cpuset.mems writes seen: " nm + 0 ", want 2")
	if (mk < n || rm < n) fail("mkdir " mk + 0 ", rmdir " rm + 0 " on root " hid ", want >= " n " each")
	if (!(t0 <= mems[1] && mems[1] < fmk && fmk <= frm && lrm < mems[nm] && mems[nm] <= t1))
		fail(sprintf("out of order: t0 %s mems %s mkdir %s..%s rmdir %s..%s mems %s t1 %s", t0, mems[1], fmk, lmk, frm, lrm, mems[nm], t1))
	if (pl < 1) fail("no work queued on cgroup_pidlist_destroy seen")
	if (sw < 1) fail("no sched_switch of CPU 1 read out (recdrive -s 1)")
	printf "mems at +%.3f s, %d mkdir +%.3f..+%.3f s, %d rmdir, mems at +%.3f s, %d pidlist works\n", mems[1] - t0, mk, fmk - t0, lmk - t0, rm, mems[nm] - t0, pl > out
}' "$O" || live_fail "$(cat "$LIVE_TMP/why")"
SEEN=$(cat "$LIVE_TMP/why")

# ---- SIGKILL and restart: one instance, a fresh ring
start_hold() {
	"$DRV" -n "$NAME" -b 256 hold >"$LIVE_TMP/hold$1.out" 2>&1 &
	HOLD=$!
	live_on_exit "live_kill_wait $HOLD"
	live_wait_for 10 grep -q '^start rc=' "$LIVE_TMP/hold$1.out" ||
		live_fail "recdrive hold ($1) did not start"
	grep -q '^start rc=0 ' "$LIVE_TMP/hold$1.out" ||
		live_fail "recdrive hold ($1): $(head -3 "$LIVE_TMP/hold$1.out" | tr '\n' '|')"
}
start_hold 1
[ -d "$INST" ] || live_fail "no $INST while the recorder holds"
echo "cgwrec-marker-$$" >"$INST/trace_marker" || live_fail "setup: trace_marker"
grep -q "cgwrec-marker-$$" "$INST/trace" || live_fail "setup: the marker is not in the ring"
live_kill_wait "$HOLD" || live_fail "the recorder did not die of SIGKILL"
[ -d "$INST" ] || live_fail "setup: the instance went away with the SIGKILLed recorder"
# a setting the recorder never makes: only a new instance is without it (the marker alone
# does not tell: setting the clock empties the ring)
echo 1 >"$INST/events/sched/sched_process_exec/enable" || live_fail "setup: sched_process_exec"
start_hold 2
cnt=$(ls "$TFS/instances" | grep -cx "$NAME")
[ "$cnt" = 1 ] || live_fail "$cnt instances named $NAME after the restart, want 1"
grep -q "cgwrec-marker-$$" "$INST/trace" && live_fail "the restarted recorder kept the old ring (marker still there)"
[ "$(cat "$INST/events/sched/sched_process_exec/enable")" = 0 ] ||
	live_fail "the restarted recorder kept the old instance (its sched_process_exec still enabled)"
[ "$(cat "$INST/events/cgroup/cgroup_mkdir/enable")" = 1 ] ||
	live_fail "the restarted recorder does not record cgroup_mkdir"
live_kill_wait "$HOLD"
inst_cleanup

# ---- sched_switch on CPU 1 only, as the config says
live_require_binary
[ -d "/sys/devices/system/cpu/cpu1" ] || live_skip "no CPU 1"
printf '[recorder]\ninstance = %s\nsched_switch = 1\n' "$NAME" >"$LIVE_TMP/sw.conf"
timeout 60 cc -O1 -Wall -pthread -o "$LIVE_TMP/cgwsw-in" "$LIVE_REPO/bench/pingpong.c" ||
	live_fail "could not build bench/pingpong.c"
cp "$LIVE_TMP/cgwsw-in" "$LIVE_TMP/cgwsw-out"
timeout 60 "$CGWATCH" recorder start --config "$LIVE_TMP/sw.conf" >"$LIVE_TMP/swstart.out" 2>&1 ||
	live_fail "recorder start: $(head -c 300 "$LIVE_TMP/swstart.out")"
grep -q "sched_switch on CPUs 1, in $INST-switch" "$LIVE_TMP/swstart.out" ||
	live_fail "recorder start did not say sched_switch on CPU 1: $(head -c 400 "$LIVE_TMP/swstart.out")"
[ "$(cat "$INST-switch/events/sched/sched_switch/filter" 2>&1)" = "CPU & CPUS{1}" ] ||
	live_fail "$INST-switch's filter: $(cat "$INST-switch/events/sched/sched_switch/filter" 2>&1)"
timeout 60 taskset -c 1 "$LIVE_TMP/cgwsw-in" 1 2000 >/dev/null || live_fail "the storm on CPU 1 failed"
timeout 60 taskset -c 0 "$LIVE_TMP/cgwsw-out" 0 2000 >/dev/null || live_fail "the storm on CPU 0 failed"
SW=$LIVE_TMP/switch.trace
cat "$INST-switch/trace" >"$SW" || live_fail "reading $INST-switch/trace"
nin=$(grep -c 'next_comm=cgwsw-in ' "$SW")
[ "$nin" -ge 2000 ] || live_fail "switches to cgwsw-in on CPU 1 recorded: $nin, want >= 2000"
# the fields, not the line's prefix: trace prints the prefix's comm from its cache of the pid's
# comm at read time, so the taskset process that became cgwsw-out shows as cgwsw-out there
# when it ran on CPU 1 before its affinity was set
grep -qE '(prev|next)_comm=cgwsw-out ' "$SW" &&
	live_fail "a switch of cgwsw-out (CPU 0) recorded: $(grep -m1 -E '(prev|next)_comm=cgwsw-out ' "$SW")"
other=$(grep -v '^#' "$SW" | grep -cv ' \[001\] ')
[ "$other" = 0 ] || live_fail "$other switches of other CPUs recorded: $(grep -v '^#' "$SW" | grep -m1 -v ' \[001\] ')"
grep -q 'sched_switch:' "$INST/trace" && live_fail "sched_switch in $INST's own ring"
# ---- a bundle made by hand (and check --capture) carries the running recorder's window
for i in 1 2 3; do mkdir "$MNT/cbyhand$i" && rmdir "$MNT/cbyhand$i" || live_fail "mkdir/rmdir $MNT/cbyhand$i"; done
timeout -k 2 60 "$CGWATCH" bundle --config "$LIVE_TMP/sw.conf" -o "$LIVE_TMP/hand.tar.zst" \
	>"$LIVE_TMP/hand.out" 2>&1 3>&- || live_fail "cgwatch bundle: $(head -c 300 "$LIVE_TMP/hand.out")"
HT=$LIVE_TMP/hand.trace
zstd -dc "$LIVE_TMP/hand.tar.zst" | tar -xOf - tree/cgwatch/recorder/trace >"$HT" 2>/dev/null ||
	live_fail "no tree/cgwatch/recorder/trace in a bundle made by hand: $(zstd -dc "$LIVE_TMP/hand.tar.zst" | tar -tf - | grep -c .) members"
for i in 1 2 3; do
	grep -q "cgroup_mkdir:.*cbyhand$i" "$HT" || live_fail "the hand bundle's recorder has no mkdir of cbyhand$i: $(grep -c cgroup_ "$HT") cgroup events"
done
grep -q ' \[001\] .*sched_switch:' "$HT" || live_fail "the hand bundle's recorder has no switch of CPU 1"
grep 'sched_switch:' "$HT" | grep -qv ' \[001\] ' && live_fail "the hand bundle has a switch of a CPU other than 1"
zstd -dc "$LIVE_TMP/hand.tar.zst" | tar -xOf - report.json | grep -q '"recorder"' ||
	live_fail "the hand bundle's report.json has no recorder object"
CAPD=$LIVE_TMP/capture
timeout -k 2 60 "$CGWATCH" check --config "$LIVE_TMP/sw.conf" --capture "$CAPD" >/dev/null 2>"$LIVE_TMP/cap.err" 3>&-
[ $? -le 1 ] || live_fail "check --capture: $(head -c 300 "$LIVE_TMP/cap.err")"
grep -q 'cgroup_mkdir:.*cbyhand3' "$CAPD/cgwatch/recorder/trace" 2>/dev/null ||
	live_fail "check --capture's tree has no recorder window with cbyhand3"
SEEN="$SEEN; a bundle made by hand and check --capture hold the recorder's window"
timeout 60 "$CGWATCH" recorder stop --config "$LIVE_TMP/sw.conf" >"$LIVE_TMP/swstop.out" 2>&1 ||
	live_fail "recorder stop: $(head -c 300 "$LIVE_TMP/swstop.out")"
[ -d "$INST-switch" ] && live_fail "$INST-switch still there after recorder stop"
[ -d "$INST" ] && live_fail "$INST still there after recorder stop"
SEEN="$SEEN; sched_switch on CPU 1: $nin switches to cgwsw-in, none of cgwsw-out on CPU 0"

# ---- the main buffer untouched
snapshot >"$LIVE_TMP/main.after"
cmp -s "$LIVE_TMP/main.before" "$LIVE_TMP/main.after" ||
	live_fail "the main buffer's settings changed: $(diff "$LIVE_TMP/main.before" "$LIVE_TMP/main.after" | head -5 | tr '\n' '|')"
live_pass "$SEEN; instance gone after stop; one fresh instance after SIGKILL + restart; main buffer unchanged"

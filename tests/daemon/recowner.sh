#!/bin/bash
# live-daemon-recowner: one owner per flight recorder instance. Two `cgwatch run` given the
# same [recorder] instance (cgwdownPID, this test's own):
#   - the first makes it and records (a marker written in its ring);
#   - the second says its recorder is off, naming the first's PID (the owner file
#     /run/cgwatch/recorder-NAME.lock), and runs on scanning without it; the instance is the
#     first's still: same ring (the marker there), its events on;
#   - the second stops (SIGTERM): the first's instance survives, marker and all;
#   - `cgwatch recorder stop` and `recorder start` (as the unit's ExecStopPost/ExecStartPre
#     run them) refuse it too, naming the first's PID, exit 3, and leave it;
#   - the first SIGKILLed (its lock goes with it, the file stays): a third daemon takes the
#     stale instance over (a fresh ring: the marker gone), and removes it on SIGTERM, with
#     its owner file;
#   - with /run/cgwatch read-only (a tmpfs in this test's mount namespace): a daemon keeps no
#     owner file, makes nothing, reads the instance `recorder start` made (and says why it is
#     not its owner), and leaves it when it stops.
# Cleans up even on failure: the daemons, the instance, the owner file (and /run/cgwatch when
# it made it and it is empty).
LIVE_BUDGET=${LIVE_BUDGET:-60}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-recowner
dmn_require nofuse

TFS=/sys/kernel/tracing
[ -d "$TFS/instances" ] || live_skip "no tracefs with instances at $TFS"
NAME=cgwdown$$
INST=$TFS/instances/$NAME
LOCK=/run/cgwatch/recorder-$NAME.lock
RUNDIR_NEW=; [ -d /run/cgwatch ] || RUNDIR_NEW=1
inst_cleanup() {
	[ -d "$INST" ] && { rmdir "$INST" || live_cleanup_error "rmdir $INST failed"; }
	rm -f "$LOCK"
	[ -n "$RUNDIR_NEW" ] && rmdir /run/cgwatch 2>/dev/null   # made for us, and empty
	return 0
}
live_on_exit inst_cleanup              # runs after the daemons are killed (registered first)

dmn_conf recorder.enabled=yes recorder.instance="$NAME" recorder.sched_switch=no
recording() {
	[ -d "$INST" ] && [ "$(cat "$INST/events/cgroup/cgroup_mkdir/enable" 2>/dev/null)" = 1 ] &&
		grep -q "flight recorder on: $INST" "${DMN_ERRS[-1]}"
}
said() { grep -a 'flight recorder' "${DMN_ERRS[-1]}" | head -3 | tr '\n' '|' | cut -c1-600; }

dmn_start first
P1=$DPID
live_wait_for 10 recording || live_fail "the first daemon does not record in $INST: $(said); $(dmn_ctx)"
echo "cgwdown-marker-$$" >"$INST/trace_marker" || live_fail "setup: trace_marker"
grep -q "cgwdown-marker-$$" "$INST/trace" || live_fail "setup: the marker is not in the ring"

# ---- a second daemon, the same instance
dmn_start second
P2=$DPID
refused() { grep -q "flight recorder is off" "${DMN_ERRS[-1]}"; }
live_wait_for 10 refused
grep -q "cgwdown-marker-$$" "$INST/trace" 2>/dev/null ||
	live_fail "the first's ring lost its marker when a second daemon started with its instance (replaced?): the second said $(said)"
refused || live_fail "the second daemon did not say its recorder is off: $(said); $(dmn_ctx)"
grep -q "flight recorder is off: tracefs instances/$NAME is not ours: held by cgwatch PID $P1 ($LOCK)" "${DMN_ERRS[-1]}" ||
	live_fail "the second daemon's refusal does not name the first's PID $P1: $(said)"
grep -q "flight recorder on" "${DMN_ERRS[-1]}" && live_fail "the second daemon says its recorder is on: $(said)"
sleep 1.5                              # three scans: it runs on
dmn_require_alive "the second daemon, without its recorder"
grep -q "cgwdown-marker-$$" "$INST/trace" 2>/dev/null ||
	live_fail "the first's ring lost its marker with the second daemon running (instance replaced?)"
dmn_stop TERM 5
[ "$DMN_STOP_RC" = 0 ] || live_fail "the second daemon: exit $DMN_STOP_RC after SIGTERM; $(dmn_ctx "$P2")"
[ -d "$INST" ] || live_fail "the first's instance $INST went away when the second daemon stopped"
grep -q "cgwdown-marker-$$" "$INST/trace" || live_fail "the first's ring lost its marker when the second daemon stopped"
[ "$(cat "$INST/events/cgroup/cgroup_mkdir/enable")" = 1 ] || live_fail "the first's cgroup_mkdir is off after the second stopped"
grep -qx "$P1" "$LOCK" || live_fail "the owner file $LOCK does not hold the first's PID $P1: $(head -c 100 "$LOCK" 2>&1)"

# ---- the unit's helpers, as root, refuse it too
for verb in stop start; do
	timeout -k 1 20 "$CGWATCH" recorder "$verb" --config "$DMN_CONF" >"$LIVE_TMP/$verb.out" 2>&1 3>&-
	rc=$?
	[ "$rc" = 3 ] || live_fail "recorder $verb beside the first daemon: exit $rc, want 3: $(head -c 300 "$LIVE_TMP/$verb.out")"
	grep -q "instances/$NAME not .*: held by cgwatch PID $P1 " "$LIVE_TMP/$verb.out" ||
		live_fail "recorder $verb does not name the owner $P1: $(head -c 300 "$LIVE_TMP/$verb.out")"
	grep -q "cgwdown-marker-$$" "$INST/trace" 2>/dev/null || live_fail "recorder $verb replaced or removed the first's instance"
done

# ---- the owner gone without a word: its instance is taken over
DPID=$P1
dmn_stop KILL 5
[ -d "$INST" ] || live_fail "setup: the instance went away with the SIGKILLed daemon"
[ -f "$LOCK" ] || live_fail "setup: the owner file went away with the SIGKILLed daemon"
dmn_start third
P3=$DPID
live_wait_for 10 recording || live_fail "a daemon after the owner's SIGKILL does not record: $(said); $(dmn_ctx)"
grep -q "cgwdown-marker-$$" "$INST/trace" && live_fail "the daemon after the SIGKILL kept the dead owner's ring"
grep -qx "$P3" "$LOCK" || live_fail "the owner file does not hold the third's PID $P3: $(head -c 100 "$LOCK" 2>&1)"
dmn_stop TERM 5
[ "$DMN_STOP_RC" = 0 ] || live_fail "the third daemon: exit $DMN_STOP_RC after SIGTERM"
[ -d "$INST" ] && live_fail "the instance $INST is still there after its owner's SIGTERM"
[ -e "$LOCK" ] && live_fail "the owner file $LOCK is still there after its owner's SIGTERM"

# ---- no owner file can be kept (a read-only /run/cgwatch, in this test's mount namespace):
# the daemon makes nothing, reads the instance `recorder start` made without owning it, and
# leaves it when it stops
timeout -k 1 20 "$CGWATCH" recorder start --config "$DMN_CONF" >"$LIVE_TMP/start2.out" 2>&1 3>&- ||
	live_fail "recorder start with no owner: $(head -c 300 "$LIVE_TMP/start2.out")"
[ -e "$LOCK" ] && live_fail "recorder start left its owner file $LOCK"
mount -t tmpfs -o ro,mode=0755 cgwowner /run/cgwatch || live_fail "setup: a read-only tmpfs on /run/cgwatch"
live_on_exit "umount /run/cgwatch"
dmn_start fourth
unowned() { grep -q "flight recorder on: $INST, made by \`cgwatch recorder start\` (this process may not make it: no owner file: cannot open $LOCK: Read-only file system)" "${DMN_ERRS[-1]}"; }
live_wait_for 10 unowned || live_fail "a daemon that can keep no owner file: $(said); $(dmn_ctx)"
dmn_stop TERM 5
[ -d "$INST" ] || live_fail "a daemon that did not own the instance removed it when it stopped"
umount /run/cgwatch || live_fail "umount /run/cgwatch"
timeout -k 1 20 "$CGWATCH" recorder stop --config "$DMN_CONF" >"$LIVE_TMP/stop2.out" 2>&1 3>&- ||
	live_fail "recorder stop: $(head -c 300 "$LIVE_TMP/stop2.out")"
[ -d "$INST" ] && live_fail "recorder stop left $INST"
live_pass "the second daemon named the owner PID $P1 and ran on without the recorder; the first's ring survived it and recorder stop/start; after the owner's SIGKILL a third took the instance over and removed it with its owner file; with no owner file possible, a daemon read the instance recorder start made and left it"

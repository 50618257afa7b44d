#!/bin/bash
# live-daemon-fulldisk: a report dir the daemon cannot write costs a warning,
# not the alert and not the daemon.
# Part 1: [reports] dir on a tiny tmpfs (size=16k) filled up before the daemon
# starts. A FUSE-stuck child opens an incident, escalates, is released: every
# message ("opened", "escalated", "resolved") is still sent, the daemon warns
# (stderr or its journal log) naming the report dir and "No space left on
# device", stays alive, leaves no temporary file, exits 0 on SIGTERM.
# Part 2: the same with the report dir on a tmpfs mounted read-only ("Read-only
# file system"). Two parts, two daemons: the daemon warns once per streak of
# failed writes, so a full disk that turns read-only would not warn again.
# In both, [run] state_dir is on the same tmpfs: "cannot save open incidents"
# is said once for the whole incident, not at every scan, and no temporary
# file is left there either.
# Messages come from a private journald when it can be started here, else
# from the daemon's stderr.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-fulldisk
dmn_require
dmn_journald optional

# part REPORT-DIR ERRNO-TEXT NAME: one incident from opening to resolution
# with the report dir unwritable, checked as said above.
part() {
	local rep=$1 err=$2 name=$3 inc states left
	dmn_conf reports.dir="$rep" run.state_dir="$rep/state"
	dmn_fuse_child "$name"
	dmn_start "daemon-$name"
	# By CGWATCH_PID: the stderr form of the message has no CGWATCH_COMM.
	dmn_wait_msg $((DMN_WARN + 4)) ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\"" ||
		live_fail "$err: no \"opened\" message for $name (pid $CHILD) within $((DMN_WARN + 4)) s; messages: [$(dmn_digest)]; $(dmn_ctx)"
	inc=$(dmn_get ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\"" CGWATCH_INCIDENT)
	_warned() { dmn_collect; grep -F "$rep" "$LIVE_TMP/log.txt" | grep -qF "$err"; }
	live_wait_for 2 _warned ||
		live_fail "$err: no warning naming $rep and \"$err\"; the daemon said: $(tail -c 500 "$LIVE_TMP/log.txt" | tr '\n' '|')"
	dmn_require_alive "$err: after the report write failed"
	dmn_wait_state escalated 1 $((DMN_CRIT + 2)) "$inc" ||
		live_fail "$err: no \"escalated\" message; messages: [$(dmn_digest)]; $(dmn_ctx)"
	dmn_fuse_release
	dmn_wait_state resolved 1 5 "$inc" ||
		live_fail "$err: no \"resolved\" message after the release; messages: [$(dmn_digest)]; $(dmn_ctx)"
	sleep 1
	dmn_collect
	dmn_require_alive "$err: 1 s after resolving"
	states=$(dmn_states "$inc")
	grep -Eq '^opened( updated)* escalated( updated)* resolved$' <<<"$states" ||
		live_fail "$err: states of $inc: '$states'; messages: [$(dmn_digest)]"
	left=$(ls -A "$rep" | grep -vx -e fill -e state)
	[ -z "$left" ] || live_fail "$err: left in the report dir: $(tr '\n' ' ' <<<"$left")"
	left=$(ls -A "$rep/state" 2>/dev/null)
	[ -z "$left" ] || live_fail "$err: left in the state dir: $(tr '\n' ' ' <<<"$left")"
	# the failure said once; a later success would add "...: again N times; now cleared"
	saves=$(grep -F "cannot save open incidents to $rep/" "$LIVE_TMP/log.txt" | grep -vc 'now cleared$')
	[ "$saves" = 1 ] || live_fail "$err: \"cannot save open incidents\" said $saves times for one incident, want once: $(grep -F "cannot save open incidents" "$LIVE_TMP/log.txt" | head -3 | tr '\n' '|')"
	dmn_stop TERM 3
	[ "$DMN_STOP_RC" = 0 ] || live_fail "$err: SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s; $(dmn_ctx)"
	live_umount "$MNT"      # the aborted FUSE mount; the next part mounts afresh
}

# Part 1: full.
FULL=$LIVE_TMP/full
mkdir -p "$FULL" || live_fail "setup: mkdir $FULL"
live_on_exit 'live_umount "$FULL"'
mount -t tmpfs -o size=16k,mode=755,nosuid,nodev cgwatch-test-full "$FULL" || live_fail "setup: mount -t tmpfs -o size=16k on $FULL failed"
mkdir "$FULL/state" || live_fail "setup: mkdir $FULL/state"
dd if=/dev/zero of="$FULL/fill" bs=4k count=64 2>"$LIVE_TMP/dd.err"     # ENOSPC expected
grep -q 'No space left' "$LIVE_TMP/dd.err" || live_fail "setup: filling the 16k tmpfs did not end in ENOSPC: $(cat "$LIVE_TMP/dd.err")"
if printf x >"$FULL/probe" 2>/dev/null; then
	live_fail "setup: $FULL still takes a write after filling it: $(df -k "$FULL" | tail -1)"
fi
rm -f "$FULL/probe"
part "$FULL" "No space left on device" cgw-full

# Part 2: read-only.
RO=$LIVE_TMP/ro
mkdir -p "$RO" || live_fail "setup: mkdir $RO"
live_on_exit 'live_umount "$RO"'
mount -t tmpfs -o size=16k,mode=755,nosuid,nodev cgwatch-test-ro "$RO" || live_fail "setup: mount -t tmpfs on $RO failed"
mkdir "$RO/state" || live_fail "setup: mkdir $RO/state"
mount -o remount,ro "$RO" || live_fail "setup: mount -o remount,ro $RO failed"
part "$RO" "Read-only file system" cgw-ro

live_pass

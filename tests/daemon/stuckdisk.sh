#!/bin/bash
# live-daemon-stuckdisk: a disk that does not answer costs a warning, never the alert.
# The daemon's [reports] dir, its [run] state_dir and its metrics file are each on a FUSE
# mount whose server never answers (tests/live/fusehold: any open, lookup or mkdir there
# sleeps in D until the server dies), read_timeout 1 s, while a FUSE-stuck child is blocked:
#   - it starts (the state dir's mkdir and the state file's read give up after the deadline)
#     and sends READY=1 within 5 s;
#   - the journal gets "opened" for the child within blocked_warning + 2 s of its block,
#     and "escalated" at the critical threshold: the alert never waits on a write;
#   - STATUS= keeps coming every scan (interval 0.5 s: no gap over 0.9 s while the three
#     writes hang);
#   - it says once each "reports directory R does not answer: reports are not being
#     written", "state directory S does not answer: ..." and "metrics file M does not
#     answer: ...", and "cannot save open incidents" at most once;
#   - SIGHUP with [reports] dir moved to a disk that answers: reports are written there
#     (the thread stuck on the old one is left behind), and messages name them;
#   - SIGTERM: exit 0 within 1 s (the stuck writer threads are not waited for);
#   - a second daemon with the same config reaches READY=1 within 5 s and also stops on
#     SIGTERM within 1 s; so does a third with the state dir the mount itself (there the
#     read of incidents.json is what hangs, not the mkdir).
# Cleanup kills the fusehold servers (their connections abort, releasing every waiter) and
# unmounts, whatever happened.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-stuckdisk
dmn_require
dmn_journald required

RMNT=$LIVE_TMP/rmnt                    # the reports dir is the mount itself
SMNT=$LIVE_TMP/smnt                    # the state dir is inside the mount
MMNT=$LIVE_TMP/mmnt                    # the metrics file is inside the mount
dmn_conf reports.dir="$RMNT" run.state_dir="$SMNT/state" run.metrics_file="$MMNT/cgwatch.prom" \
	scan.read_timeout=1

# hold DIR K: an uninitialised FUSE mount on DIR that answers nothing, until cleanup.
hold() {
	mkdir -p "$1" || live_fail "setup: mkdir $1"
	live_fusehold "hold$2" "$1"
}
hold "$RMNT" 1
hold "$SMNT" 2
hold "$MMNT" 3

dmn_fuse_child cgw-stuckdisk
dmn_notify_listen

# fields PID NAME [FROM]: "TIME VALUE" of every NAME= the daemon PID sent (from epoch FROM).
fields() {
	dmn_notify_fields "$1" | awk -v n="$2=" -v a="${3:-0}" \
		'index($3, n) == 1 && $1 >= a { v = $0; sub(/^[^ ]+ [^ ]+ /, "", v); print $1, substr(v, length(n) + 1) }'
}
gaps() { awk '{ if (NR > 1) { g = $1 - p; if (n == 0 || g < mn) mn = g; if (g > mx) mx = g; n++ } p = $1 } END { printf "%d %.3f %.3f", n, mn, mx }'; }

# start NAME: a daemon with the notify socket; FAIL unless READY=1 comes within 5 s.
start() {
	dmn_start "$1" NOTIFY_SOCKET="$NOTIFY_SOCK"
	_ready() { fields "$DPID" READY | grep -q ' 1$'; }
	live_wait_for 5 _ready || {
		dmn_require_alive "$1: waiting for READY=1"
		live_fail "$1: no READY=1 within 5 s with its state dir, reports dir and metrics file on mounts that do not answer; $(dmn_ctx) $(live_task_state "$DPID") $(cat "/proc/$DPID/stack" 2>/dev/null | head -3 | tr '\n' ' ')"
	}
}

start run1
dmn_wait_msg $((DMN_WARN + 4)) ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\"" ||
	live_fail "no \"opened\" message for the stuck child (pid $CHILD) within $((DMN_WARN + 4)) s; messages: [$(dmn_digest)]; $(dmn_ctx)"
t_open=$(dmn_msg_time ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\"")
late=$(dmn_fcalc "$t_open - $T_START")
dmn_fcmp "$late" '<=' "$((DMN_WARN + 2))" ||
	live_fail "\"opened\" came $late s after the child blocked (warning threshold $DMN_WARN s): late"
inc=$(dmn_get ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$CHILD\"" CGWATCH_INCIDENT)
dmn_wait_state escalated 1 $((DMN_CRIT + 3)) "$inc" ||
	live_fail "no \"escalated\" for $inc; messages: [$(dmn_digest)]; $(dmn_ctx)"

# The three warnings, each once (the writes hang for good: no second one).
_warned() {
	dmn_collect
	grep -qF "reports directory $RMNT does not answer: reports are not being written" "$LIVE_TMP/log.txt" &&
	grep -qF "state directory $SMNT/state does not answer" "$LIVE_TMP/log.txt" &&
	grep -qF "metrics file $MMNT/cgwatch.prom does not answer" "$LIVE_TMP/log.txt"
}
live_wait_for 4 _warned ||
	live_fail "the daemon did not say that each of the three does not answer; it said: $(tail -c 800 "$LIVE_TMP/log.txt" | tr '\n' '|')"

# Scans at the interval while the writes hang.
t0=$(live_now)
sleep 3
read -r n mn mx < <(fields "$DPID" STATUS "$t0" | gaps)
[ "$n" -ge 3 ] && dmn_fcmp "$mx" '<=' 0.9 ||
	live_fail "STATUS every scan (interval $DMN_INTERVAL) while the disks hang: $n gaps in 3 s, min $mn s, max $mx s"
dmn_require_alive "3 s into the hang"

# SIGHUP with [reports] dir moved to a disk that answers: the reports of the still open
# incident ("updated" every update_interval) are written there, while the state dir and the
# metrics file still hang.
REP2=$LIVE_TMP/reports2
mkdir -p "$REP2" || live_fail "setup: mkdir $REP2"
sed -i "s|^dir = .*|dir = $REP2|" "$DMN_CONF" || live_fail "setup: cannot edit $DMN_CONF"
kill -HUP "$DPID"
_moved() { ls "$REP2" 2>/dev/null | grep -q "^$inc-[0-9]*-[a-z]*\.json\$"; }
live_wait_for 5 _moved ||
	live_fail "after SIGHUP with [reports] dir = $REP2 (a disk that answers), no report of $inc there within 5 s: $(ls -A "$REP2" | tr '\n' ' '); $(dmn_ctx)"
dmn_wait_msg 3 ".CGWATCH_INCIDENT == \"$inc\" and (.CGWATCH_REPORT // \"\" | startswith(\"$REP2/\"))" ||
	live_fail "after SIGHUP, no message of $inc naming a report in $REP2; messages: [$(dmn_digest)]"

dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "run 1: SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s; $(dmn_ctx)"
dmn_collect
for w in "reports directory $RMNT does not answer" "state directory $SMNT/state does not answer" \
	"metrics file $MMNT/cgwatch.prom does not answer"; do
	c=$(grep -cF "$w" "$LIVE_TMP/log.txt")
	[ "$c" = 1 ] || live_fail "\"$w\" said $c times, want once: $(grep -F "$w" "$LIVE_TMP/log.txt" | head -3 | tr '\n' '|')"
done
c=$(grep -F "cannot save open incidents" "$LIVE_TMP/log.txt" | grep -vc 'now cleared$')
[ "$c" -le 1 ] || live_fail "\"cannot save open incidents\" said $c times"

# A restart does not hang on the state dir either.
start run2
sleep 1
dmn_require_alive "run 2: 1 s after READY"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "run 2: SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s; $(dmn_ctx)"

# And with the state dir the mount itself: its mkdir returns at once (EEXIST), the read of
# incidents.json in it is what hangs.
sed -i "s|^state_dir = .*|state_dir = $SMNT|" "$DMN_CONF" || live_fail "setup: cannot edit $DMN_CONF"
start run3
dmn_require_alive "run 3: after READY"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "run 3: SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s; $(dmn_ctx)"
grep -qF "state directory $SMNT does not answer" "${DMN_ERRS[-1]}" ||
	live_fail "run 3: no \"state directory $SMNT does not answer\"; stderr: $(tail -c 400 "${DMN_ERRS[-1]}" | tr '\n' '|')"

live_pass "opened $late s after the block; scans every $mn-$mx s while the disks hung"

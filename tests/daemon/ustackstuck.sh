#!/bin/bash
# live-daemon-ustackstuck: a process whose mmap lock is held for good (tests/live/mmaphold: a
# thread faulting on a FUSE file whose server never answers, a munmap queued behind it) has
# threads in findings, whose user stacks cannot be read. The daemon (interval 0.2 s,
# read_timeout 0.2 s) tries that process at most once: an unwind that passes its deadline is
# left behind, and later scans do not try the process again while it waits, nor while a read
# of its memory this scan timed out (each try would leave one more thread stuck, and stuck
# threads are what every deadline read draws on). After
# 4 s (some 20 scans) the daemon has at most 4 threads more than when the incident opened,
# and keeps scanning (STATUS= every scan, no gap over 1 s).
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-ustackstuck
dmn_require
dmn_journald optional
live_require_helpers mmaphold
dmn_conf scan.interval=0.2 scan.read_timeout=0.2 thresholds.blocked_warning=0.5 \
	thresholds.blocked_critical=30 bundle.auto=no

MNT=$LIVE_TMP/mnt
mkdir "$MNT" || live_fail "setup: mkdir $MNT"
live_on_exit 'live_umount "$MNT"'
live_on_exit 'live_kill_task "$VICTIM"'
live_on_exit 'live_kill_wait "$HELPER"'
"$LIVE_BIN/mmaphold" "$MNT" >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- </dev/null &
HELPER=$!
ready() { grep -q '^victim ' "$LIVE_TMP/helper.out" && VICTIM=$(awk '/^victim /{print $2}' "$LIVE_TMP/helper.out"); grep -qx ready "$LIVE_TMP/helper.out"; }
live_wait_for 10 ready || live_fail "setup: mmaphold: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err" | tr '\n' ' ')"

dmn_notify_listen
dmn_start daemon NOTIFY_SOCKET="$NOTIFY_SOCK"
opened() { dmn_collect; [ "$(dmn_count opened)" -ge 1 ]; }
live_wait_for 10 opened || live_fail "no fuse-wait incident opened: [$(dmn_digest)]; $(dmn_ctx)"
threads() { ls "/proc/$DPID/task" 2>/dev/null | wc -l; }
t0=$(threads)
T0=$(live_now)
sleep 4
dmn_require_alive "after 4 s of scans"
t1=$(threads)
[ "$t1" -le $((t0 + 4)) ] ||
	live_fail "the daemon went from $t0 to $t1 threads in 4 s: unwinds of the same stuck process left behind scan after scan"
gaps=$(dmn_notify_fields "$DPID" | awk -v a="$T0" 'index($3, "STATUS=") == 1 && $1 >= a { if (n++) { g = $1 - p; if (g > mx) mx = g } p = $1 } END { printf "%d %.3f", n, mx }')
read -r n mx <<<"$gaps"
[ "$n" -ge 8 ] && dmn_fcmp "$mx" '<' 1 || live_fail "STATUS= $n times in 4 s, largest gap $mx s: the scans did not keep their pace"
dmn_stop TERM 3
live_pass "threads $t0 -> $t1 over 4 s of scans; $n STATUS updates, largest gap $mx s"

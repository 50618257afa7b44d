#!/bin/bash
# live-daemon-crash: a crash of `cgwatch run` leaves its backtrace on stderr (the journal,
# under systemd) and the daemon dies of the signal, as it did without the handler (so the
# exit status, the core dump and systemd's Restart= are the kernel's). Three runs, scanning:
#   1. kill -SEGV of the daemon (the main thread, in its event loop): stderr says
#      "fatal signal SIGSEGV (sent by process N, uid 0) in thread DPID", one "#N 0x..." line
#      per frame, one of them a cgwatch function in the cgwatch binary (daemon_run), and "end of
#      backtrace; dying of SIGSEGV"; wait says 139 (killed by SIGSEGV).
#   2. the same with its stderr the journal's stream socket (systemd-cat, a private journald):
#      the lines read back with journalctl (skipped, and said, where journald cannot run).
#   3. SIGBUS sent (tgkill) to one of its other threads (a deadline reader or a file writer):
#      the backtrace is that thread's (its thread id, its thread function), on the signal
#      stack that thread set up; the daemon dies of SIGBUS (135).
# Core files are off for the daemons here (ulimit -c 0): core_pattern may write to the cwd.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-crash
dmn_require nofuse
live_require_tools python3
dmn_conf
ulimit -c 0

# ---- 1. the main thread ----
dmn_start run1
sleep 1.5                                  # three scans
dmn_require_alive "run 1 before the signal"
dmn_stop SEGV 5 2>/dev/null           # (not bash's "Segmentation fault")
ERR=${DMN_ERRS[-1]}
[ "$DMN_STOP_RC" = 139 ] ||
	live_fail "run 1: exit status $DMN_STOP_RC after kill -SEGV, want 139 (died of SIGSEGV); $(dmn_ctx)"
grep -Eq "^cgwatch: fatal signal SIGSEGV \(sent by process [0-9]+, uid 0\) in thread $DPID \"[^\"]*\" of process $DPID; backtrace:\$" "$ERR" ||
	live_fail "run 1: no \"fatal signal SIGSEGV ... in thread $DPID\" line; $(dmn_ctx "$DPID" 1500)"
nf=$(grep -Ec '^cgwatch:   #[0-9]+ 0x[0-9a-f]{16} ' "$ERR")
[ "$nf" -ge 3 ] || live_fail "run 1: $nf frame lines, want 3 at least; $(dmn_ctx "$DPID" 1500)"
grep -Eq "^cgwatch:   #[0-9]+ 0x[0-9a-f]+ daemon_run\+0x[0-9a-f]+ \($CGWATCH\+0x[0-9a-f]+\)\$" "$ERR" ||
	live_fail "run 1: no frame names daemon_run in $CGWATCH; $(dmn_ctx "$DPID" 1500)"
grep -q '^cgwatch: end of backtrace; dying of SIGSEGV$' "$ERR" ||
	live_fail "run 1: no \"end of backtrace; dying of SIGSEGV\"; $(dmn_ctx "$DPID" 1500)"

# ---- 2. stderr the journal's stream socket, as under systemd ----
JOURNAL="stderr to the journal: not tried"
if ! command -v systemd-cat >/dev/null; then
	JOURNAL="stderr to the journal: not tried, no systemd-cat"
elif ! dmn_journald optional; then
	JOURNAL="stderr to the journal: not tried, $DMN_JOURNALD_WHY"
else
	REAL=$CGWATCH
	WRAP=$LIVE_TMP/cgwatch-journal
	printf '#!/bin/sh\nexec systemd-cat -t cgwatch-crash %q "$@"\n' "$REAL" >"$WRAP" && chmod 755 "$WRAP" ||
		live_fail "setup: cannot write $WRAP"
	CGWATCH=$WRAP dmn_start journal
	sleep 1.5
	dmn_require_alive "run with stderr to the journal, before the signal"
	dmn_stop SEGV 5 2>/dev/null
	[ "$DMN_STOP_RC" = 139 ] ||
		live_fail "stderr to the journal: exit status $DMN_STOP_RC after kill -SEGV, want 139; $(dmn_ctx)"
	jlines() { timeout -k 1 5 journalctl -D "$DMN_JOURNAL_DIR" -o cat --no-pager -t cgwatch-crash 2>/dev/null; }
	jdone() { jlines | grep -q '^cgwatch: end of backtrace; dying of SIGSEGV$'; }
	live_wait_for 5 jdone ||
		live_fail "stderr to the journal: no \"end of backtrace\" in the journal 5 s after; it has: $(jlines | tail -c 600 | tr '\n' '|')"
	jlines | grep -Eq "^cgwatch: fatal signal SIGSEGV \(sent by process [0-9]+, uid 0\) in thread $DPID " ||
		live_fail "stderr to the journal: no \"fatal signal\" line for thread $DPID; it has: $(jlines | tail -c 600 | tr '\n' '|')"
	jlines | grep -Eq "^cgwatch:   #[0-9]+ 0x[0-9a-f]+ daemon_run\+0x[0-9a-f]+ \($REAL\+0x[0-9a-f]+\)\$" ||
		live_fail "stderr to the journal: no daemon_run frame; it has: $(jlines | tail -c 600 | tr '\n' '|')"
	CGWATCH=$REAL
	JOURNAL="stderr to the journal: the backtrace read back with journalctl"
fi

# ---- 3. another thread ----
[ "$(uname -m)" = x86_64 ] ||
	live_pass "$JOURNAL; part 3 sends tgkill by its x86_64 syscall number, this is $(uname -m)"
dmn_start run2
sleep 1.5
dmn_require_alive "run 2 before the signal"
# SIGBUS (7) with tgkill (syscall 234 on x86_64) to the first thread other than the main one
# that is still there when sent
TID=
for t in /proc/$DPID/task/*; do
	t=${t##*/}
	[ "$t" != "$DPID" ] || continue
	python3 -c 'import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True)
sys.exit(libc.syscall(234, int(sys.argv[1]), int(sys.argv[2]), 7) != 0)' "$DPID" "$t" &&
		TID=$t && break
done
[ -n "$TID" ] || live_fail "run 2: no thread besides the main one to send SIGBUS to after 1.5 s; $(dmn_ctx)"
for ((i = 0; i < 500; i++)); do
	_live_gone_or_zombie "$DPID" && break
	sleep 0.01
done
_live_gone_or_zombie "$DPID" || live_fail "run 2: still running 5 s after SIGBUS to thread $TID; $(dmn_ctx)"
wait "$DPID" 2>/dev/null
rc=$?
ERR=${DMN_ERRS[-1]}
[ "$rc" = 135 ] || live_fail "run 2: exit status $rc after SIGBUS to thread $TID, want 135 (died of SIGBUS); $(dmn_ctx "$DPID" 1500)"
grep -Eq "^cgwatch: fatal signal SIGBUS \(sent by process [0-9]+, uid 0\) in thread $TID \"[^\"]*\" of process $DPID; backtrace:\$" "$ERR" ||
	live_fail "run 2: no \"fatal signal SIGBUS ... in thread $TID\" line; $(dmn_ctx "$DPID" 1500)"
grep -Eq "^cgwatch:   #[0-9]+ 0x[0-9a-f]+ (dl_thread|lane_thread)\+0x[0-9a-f]+ \($CGWATCH\+0x[0-9a-f]+\)\$" "$ERR" ||
	live_fail "run 2: no frame names the thread's function (dl_thread or lane_thread); $(dmn_ctx "$DPID" 1500)"
grep -q '^cgwatch: end of backtrace; dying of SIGBUS$' "$ERR" ||
	live_fail "run 2: no \"end of backtrace; dying of SIGBUS\"; $(dmn_ctx "$DPID" 1500)"
live_pass "$JOURNAL"

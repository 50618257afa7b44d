#!/bin/bash
# live-daemon-harness: the test harness itself, without the daemon. In the
# private namespace a real systemd-journald starts and a message carrying
# CGWATCH_* fields comes back through dmn_collect (journalctl -o json); the
# stderr fallback parser reads `cgwatch: MESSAGE [K=V ...]` lines into the same
# fields; notifylisten receives READY=1, STATUS= and WATCHDOG=1 from
# systemd-notify with the sender's pid. SKIP when journald cannot run here.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-harness
live_require_root
[ -n "$DMN_IN_NS" ] || live_skip "no private mount namespace: $DMN_NS_WHY"
live_require_tools jq timeout awk logger systemd-notify
"$DMN_DIR/build.sh" || live_fail "could not build the helpers (run $DMN_DIR/build.sh)"
live_mktemp

# In a PID namespace of our own, our init is not the host's.
if [ "${DMN_PIDNS:-1}" != 0 ]; then
	[ "$(cat /proc/1/comm)" = sh ] || live_fail "PID 1 in the namespace is '$(cat /proc/1/comm)', want sh"
fi

dmn_journald required
awk '$5 == "/run/systemd" { for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "tmpfs") f = 1; break } } END { exit !f }' /proc/self/mountinfo ||
	live_fail "/run/systemd is not our tmpfs in the namespace"

# 1. journal: a message shaped like the daemon's, sent by logger --journald.
printf '%s\n' 'MESSAGE=PID 42 (x) blocked 2.5 s in fuse-wait: incident 20261130T071622Z-fuse-wait opened, warning' \
	MESSAGE_ID=0123456789abcdef0123456789abcdef PRIORITY=4 CGWATCH_STATE=opened \
	CGWATCH_INCIDENT=20261130T071622Z-fuse-wait CGWATCH_SIGNATURE=fuse-wait CGWATCH_PID=42 |
	timeout -k 1 5 logger --journald || live_fail "logger --journald failed"
got_journal() { dmn_collect; [ "$(dmn_count opened 20261130T071622Z-fuse-wait)" = 1 ]; }
live_wait_for 5 got_journal || live_fail "the fake incident message did not come back from journald: $(dmn_digest)"
m=$(dmn_msgs 'select(.CGWATCH_STATE == "opened")')
[ "$(jq -r '"\(.PRIORITY) \(.MESSAGE_ID) \(.CGWATCH_PID) \(._SOURCE)"' <<<"$m")" = "4 0123456789abcdef0123456789abcdef 42 journal" ] ||
	live_fail "journal fields came back wrong: $m"

# 2. the stderr fallback parser.
DMN_JOURNALD=0
printf '%s\n' 'cgwatch: warning: cannot write /x: No space left on device' \
	'cgwatch: PID 7 (a b) blocked 4.1 s in fuse-wait: incident 20261130T071622Z-fuse-wait escalated, critical [CGWATCH_STATE=escalated CGWATCH_INCIDENT=20261130T071622Z-fuse-wait CGWATCH_COMM=a b CGWATCH_PID=7 PRIORITY=2]' \
	>"$LIVE_TMP/fake.err"
DMN_PIDS=(7) DMN_ERRS=("$LIVE_TMP/fake.err")
dmn_collect
m=$(dmn_msgs)
[ "$(jq -r '"\(.CGWATCH_STATE)|\(.CGWATCH_COMM)|\(.PRIORITY)|\(._PID)|\(.MESSAGE)"' <<<"$m")" = "escalated|a b|2|7|PID 7 (a b) blocked 4.1 s in fuse-wait: incident 20261130T071622Z-fuse-wait escalated, critical" ] ||
	live_fail "stderr parser: $m"
grep -q 'No space left' "$LIVE_TMP/log.txt" || live_fail "stderr warnings not in log.txt"
DMN_PIDS=() DMN_ERRS=()

# 3. the notify listener, fed by systemd-notify (which also sends BARRIER=1
# with an fd it waits on: the listener must close passed fds).
dmn_notify_listen
NOTIFY_SOCKET=$NOTIFY_SOCK timeout -k 1 5 systemd-notify --ready --status='watching 1,234 tasks; 0 open incidents' ||
	live_fail "systemd-notify --ready failed or hung: $(cat "$NOTIFY_OUT")"
NOTIFY_SOCKET=$NOTIFY_SOCK timeout -k 1 5 systemd-notify WATCHDOG=1 || live_fail "systemd-notify WATCHDOG=1 failed"
got_notify() { dmn_notify_fields | grep -q ' WATCHDOG=1$'; }
live_wait_for 3 got_notify || live_fail "listener output: $(cat "$NOTIFY_OUT")"
# systemd-notify sends with its parent's pid where it may (here: timeout's).
f=$(dmn_notify_fields)
grep -Eq '^[0-9]+\.[0-9]{9} [1-9][0-9]* READY=1$' <<<"$f" &&
	grep -Eq ' STATUS=watching 1,234 tasks; 0 open incidents$' <<<"$f" &&
	grep -Eq ' WATCHDOG=1$' <<<"$f" || live_fail "listener fields: $(tr '\n' '|' <<<"$f") raw: $(tr '\n' '|' <"$NOTIFY_OUT")"

live_pass

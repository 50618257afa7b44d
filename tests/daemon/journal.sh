#!/bin/bash
# live-daemon-journal: `cgwatch run` against a real stuck task (a child of
# tests/live/fusehold blocked in fuse_get_req under an uninitialised FUSE
# mount), with a real systemd-journald (tests/daemon/lib.sh), thresholds
# warning 2 s, critical 4 s, scans every 0.5 s, update_interval 1 s.
# journalctl -o json must then show, for one incident only:
#   - exactly one "opened" message: MESSAGE_ID (32 hex digits), PRIORITY 4,
#     CGWATCH_INCIDENT <UTC YYYYMMDDTHHMMSSZ>-fuse-wait, CGWATCH_SIGNATURE
#     fuse-wait, CGWATCH_SEVERITY warning, CGWATCH_PID the child,
#     CGWATCH_COMM its name, CGWATCH_CAUSE "mount" and its mount, CGWATCH_USTACK its top user
#     frame (libc's stat, with module and offset), CGWATCH_BLOCKED_SEC (>= 2 s and what the child
#     had really been blocked when journald got it), CGWATCH_REPORT, and the
#     documented MESSAGE;
#   - exactly one "escalated" (PRIORITY 2, critical, blocked >= 4 s);
#   - "updated" ones only between them, at least update_interval apart;
#   - after the FUSE helper dies (the child returns ENOTCONN), exactly one
#     "resolved" (PRIORITY 5) whose MESSAGE says "PID N (comm) was blocked
#     at least D s in fuse-wait; resolved at HH:MM:SS", D the real time blocked
#     at the last scan that saw it (CGWATCH_BLOCKED_BOUND lower);
#   - the same MESSAGE_ID on all (and in `cgwatch signatures --catalog` when
#     that exists), the report files named by CGWATCH_REPORT exist, parse and
#     agree (dmn_check_reports); SIGTERM then exits 0;
#   - the metrics file ([run] metrics_file) has every documented metric, one
#     critical fuse-wait incident open while it is, none after, and
#     cgwatch_scans_total growing.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-journal
dmn_require
dmn_journald required
PROM=$LIVE_TMP/cgwatch.prom
dmn_conf run.metrics_file="$PROM"

COMM=cgw-stuck
dmn_fuse_child "$COMM"
dmn_start daemon

dmn_wait_state opened 1 $((DMN_WARN + 4)) ||
	live_fail "no \"opened\" message $((DMN_WARN + 4)) s after the daemon started (child $CHILD blocked $(live_elapsed_since "$T_START") s); messages: [$(dmn_digest)]; $(dmn_ctx)"
dmn_wait_state escalated 1 $((DMN_CRIT + 2)) ||
	live_fail "no \"escalated\" message with the child blocked $(live_elapsed_since "$T_START") s (critical: $DMN_CRIT s); messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 1.5            # more scans: nothing may be repeated
dmn_require_alive "before the release"
# The metrics file ([run] metrics_file) while the incident is open and critical.
# metric NAME -> its value (the whole line must be "NAME VALUE").
metric() { awk -v n="$1" 'index($0, n " ") == 1 && substr($0, length(n) + 2) !~ / / { print substr($0, length(n) + 2) }' "$PROM" 2>/dev/null; }
[ -f "$PROM" ] || live_fail "no metrics file $PROM with [run] metrics_file set; $(dmn_ctx)"
for k in cgwatch_tasks_scanned cgwatch_tasks_blocked cgwatch_tasks_starved cgwatch_blocked_seconds_max cgwatch_scan_duration_seconds cgwatch_scans_total; do
	[ -n "$(metric "$k")" ] || live_fail "metrics file has no '$k VALUE' line: $(grep -v '^#' "$PROM" | tr '\n' '|' | head -c 500)"
done
[ "$(metric 'cgwatch_incidents_open{signature="fuse-wait",severity="critical"}')" = 1 ] &&
	[ "$(metric cgwatch_tasks_blocked)" -ge 1 ] && dmn_fcmp "$(metric cgwatch_blocked_seconds_max)" '>=' "$DMN_CRIT" ||
	live_fail "metrics with the escalated incident open: $(grep -v '^#' "$PROM" | tr '\n' '|' | head -c 500)"
scans0=$(metric cgwatch_scans_total)
PID1=$CHILD             # dmn_fuse_release clears CHILD
dmn_fuse_release
dmn_wait_state resolved 1 5 ||
	live_fail "no \"resolved\" message 5 s after the child was released; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 1.5            # more scans: a second "resolved" or a new incident would show
dmn_collect
[ "$(metric cgwatch_scans_total)" -gt "$scans0" ] 2>/dev/null ||
	live_fail "metrics: cgwatch_scans_total did not grow ($scans0 -> $(metric cgwatch_scans_total))"
! grep -Eq '^cgwatch_incidents_open\{[^}]*\} *[1-9]' "$PROM" ||
	live_fail "metrics still count an open incident after \"resolved\": $(grep incidents_open "$PROM" | tr '\n' '|')"
dmn_require_alive "after the release"
dmn_stop TERM 5
[ "$DMN_STOP_RC" = 0 ] || live_fail "SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s; $(dmn_ctx)"

# ---- one incident, its states in order ----
incs=$(dmn_incidents)
[ "$(wc -l <<<"$incs")" = 1 ] && [ -n "$incs" ] ||
	live_fail "want exactly one incident, got: $(tr '\n' ' ' <<<"$incs"); messages: [$(dmn_digest)]"
INC=$incs
states=$(dmn_states "$INC")
grep -Eq '^opened( updated)* escalated( updated)* resolved$' <<<"$states" ||
	live_fail "states of $INC: '$states', want opened, escalated, resolved once each in that order (updated between); messages: [$(dmn_digest)]"
[[ $INC =~ ^([0-9]{8}T[0-9]{6}Z)-fuse-wait(-[0-9]+)?$ ]] ||
	live_fail "incident id '$INC' is not <YYYYMMDDTHHMMSSZ>-fuse-wait"
id_time=$(date -u -d "$(sed -E 's/^(....)(..)(..)T(..)(..)(..)Z$/\1-\2-\3 \4:\5:\6/' <<<"${BASH_REMATCH[1]}")" +%s) ||
	live_fail "incident id '$INC': bad time"

O='.CGWATCH_INCIDENT == "'$INC'" and .CGWATCH_STATE == "opened"'
E='.CGWATCH_INCIDENT == "'$INC'" and .CGWATCH_STATE == "escalated"'
R='.CGWATCH_INCIDENT == "'$INC'" and .CGWATCH_STATE == "resolved"'
t_open=$(dmn_msg_time "$O")
t_esc=$(dmn_msg_time "$E")

# ---- opened ----
m=$(dmn_msgs "select($O)")
for f in MESSAGE_ID PRIORITY CGWATCH_INCIDENT CGWATCH_SIGNATURE CGWATCH_SEVERITY CGWATCH_PID CGWATCH_COMM CGWATCH_BLOCKED_SEC CGWATCH_BLOCKED_BOUND CGWATCH_REPORT; do
	jq -e --arg f "$f" 'has($f)' <<<"$m" >/dev/null || live_fail "\"opened\" message has no $f: $m"
done
jq -e '.CGWATCH_BLOCKED_BOUND == "exact" or .CGWATCH_BLOCKED_BOUND == "lower"' <<<"$m" >/dev/null ||
	live_fail "\"opened\": CGWATCH_BLOCKED_BOUND is $(jq -c .CGWATCH_BLOCKED_BOUND <<<"$m"), want exact or lower"
mid=$(jq -r .MESSAGE_ID <<<"$m")
[[ $mid =~ ^[0-9a-f]{32}$ ]] || live_fail "MESSAGE_ID '$mid' is not 32 lowercase hex digits"
got=$(jq -r '[.PRIORITY, .CGWATCH_SIGNATURE, .CGWATCH_SEVERITY, .CGWATCH_PID, .CGWATCH_COMM] | join(" ")' <<<"$m")
[ "$got" = "4 fuse-wait warning $PID1 $COMM" ] ||
	live_fail "\"opened\": PRIORITY/SIGNATURE/SEVERITY/PID/COMM are '$got', want '4 fuse-wait warning $PID1 $COMM'"
got=$(jq -r '.CGWATCH_CAUSE // "none"' <<<"$m")
[ "$got" = "mount $MNT" ] || live_fail "\"opened\": CGWATCH_CAUSE is '$got', want 'mount $MNT'"
# the child's top user frame: libc's stat, unwound without stopping it
got=$(jq -r '.CGWATCH_USTACK // "none"' <<<"$m")
[[ "$got" =~ ^[a-z_0-9]*stat[a-z_0-9]*\+0x[0-9a-f]+\ \(/.*libc\.so\.6\+0x[0-9a-f]+\)$ ]] ||
	live_fail "\"opened\": CGWATCH_USTACK is '$got', want libc's stat function with its offset"
b=$(jq -r .CGWATCH_BLOCKED_SEC <<<"$m")
truth=$(dmn_fcalc "$t_open - $T_START")
# At most one interval past the warning threshold (plus scheduling slack), and
# what the child had really been blocked: measured from just before its stat()
# to journald receiving the message, minus one scan's latency; within 10 %
# either way, as tests/live/fuse.sh allows cgwatch check (se.exec_start is
# per-CPU rq clock_task: read on another CPU than the task's last one, it is
# off by that CPU pair's difference in accounted IRQ/steal time, 0.17 s here).
dmn_fcmp "$b" '>=' "$DMN_WARN" && dmn_fcmp "$b" '<=' "$(dmn_fcalc "$DMN_WARN + $DMN_INTERVAL + 0.5")" ||
	live_fail "\"opened\" CGWATCH_BLOCKED_SEC=$b, want $DMN_WARN..$DMN_WARN+interval($DMN_INTERVAL)+0.5"
dmn_fcmp "$b" '<=' "$(dmn_fcalc "$truth * 1.1 + 0.05")" && dmn_fcmp "$b" '>=' "$(dmn_fcalc "($truth - 0.6) * 0.9")" ||
	live_fail "\"opened\" CGWATCH_BLOCKED_SEC=$b, but the child had been blocked $truth s when journald got the message (allowed $(dmn_fcalc "($truth - 0.6) * 0.9")..$(dmn_fcalc "$truth * 1.1 + 0.05"))"
awk -v i="$id_time" -v t="$t_open" 'BEGIN { exit !(i >= t - 2.5 && i <= t + 1) }' ||
	live_fail "incident id time $(date -u -d "@$id_time" +%T) is not the opening time $(date -u -d "@${t_open%.*}" +%T) (UTC)"
msg=$(jq -r .MESSAGE <<<"$m")
[[ $msg =~ ^PID\ $PID1\ \($COMM\)\ blocked\ [0-9]+(\.[0-9]+)?\ s\ in\ fuse-wait:\ incident\ $INC\ opened,\ warning$ ]] ||
	live_fail "\"opened\" MESSAGE is '$msg', want 'PID $PID1 ($COMM) blocked N.N s in fuse-wait: incident $INC opened, warning'"

# ---- escalated ----
m=$(dmn_msgs "select($E)")
got=$(jq -r '[.MESSAGE_ID, .PRIORITY, .CGWATCH_SIGNATURE, .CGWATCH_SEVERITY, .CGWATCH_PID, .CGWATCH_COMM] | map(tostring) | join(" ")' <<<"$m")
[ "$got" = "$mid 2 fuse-wait critical $PID1 $COMM" ] ||
	live_fail "\"escalated\": MESSAGE_ID/PRIORITY/SIGNATURE/SEVERITY/PID/COMM are '$got', want '$mid 2 fuse-wait critical $PID1 $COMM'"
b=$(jq -r '.CGWATCH_BLOCKED_SEC // empty' <<<"$m")
dmn_fcmp "$b" '>=' "$DMN_CRIT" && dmn_fcmp "$b" '<=' "$(dmn_fcalc "$DMN_CRIT + $DMN_INTERVAL + 0.5")" ||
	live_fail "\"escalated\" CGWATCH_BLOCKED_SEC=$b, want $DMN_CRIT..$DMN_CRIT+interval($DMN_INTERVAL)+0.5"
msg=$(jq -r .MESSAGE <<<"$m")
[[ $msg =~ ^PID\ $PID1\ \($COMM\)\ blocked\ [0-9]+(\.[0-9]+)?\ s\ in\ fuse-wait:\ incident\ $INC\ escalated,\ critical$ ]] ||
	live_fail "\"escalated\" MESSAGE is '$msg', want 'PID $PID1 ($COMM) blocked N.N s in fuse-wait: incident $INC escalated, critical'"

# ---- updated: only at least update_interval apart (journald's clock) ----
ups=$(jq -r --arg i "$INC" '[.[] | select(.CGWATCH_INCIDENT == $i and .CGWATCH_STATE == "updated") | .__REALTIME_TIMESTAMP | tonumber / 1000000] | map(tostring) | join(" ")' "$LIVE_TMP/msgs.json")
awk -v u="$DMN_UPDATE" -v l="$ups" 'BEGIN { n = split(l, t, " "); for (i = 2; i <= n; i++) if (t[i] - t[i - 1] < u - 0.1) exit 1 }' ||
	live_fail "\"updated\" messages closer than update_interval ($DMN_UPDATE s): at $ups"
jq -e --arg i "$INC" --arg m "$mid" '[.[] | select(.CGWATCH_INCIDENT == $i) | .MESSAGE_ID == $m] | all' "$LIVE_TMP/msgs.json" >/dev/null ||
	live_fail "MESSAGE_ID differs between the messages of $INC: $(jq -c '[.[].MESSAGE_ID]' "$LIVE_TMP/msgs.json")"

# ---- resolved ----
m=$(dmn_msgs "select($R)")
got=$(jq -r '[.MESSAGE_ID, .PRIORITY, .CGWATCH_SIGNATURE] | map(tostring) | join(" ")' <<<"$m")
[ "$got" = "$mid 5 fuse-wait" ] || live_fail "\"resolved\": MESSAGE_ID/PRIORITY/SIGNATURE are '$got', want '$mid 5 fuse-wait'"
msg=$(jq -r .MESSAGE <<<"$m")
# docs/daemon.md's form; the daemon also appends " (incident ID)", accepted.
[[ $msg =~ ^PID\ $PID1\ \($COMM\)\ was\ blocked\ at\ least\ ([0-9]+(\.[0-9]+)?)\ s\ in\ fuse-wait\;\ resolved\ at\ ([0-9]{2}:[0-9]{2}:[0-9]{2})(\ \(incident\ $INC\))?$ ]] ||
	live_fail "\"resolved\" MESSAGE is '$msg', want 'PID $PID1 ($COMM) was blocked at least D s in fuse-wait; resolved at HH:MM:SS[ (incident $INC)]'"
d=${BASH_REMATCH[1]} at=${BASH_REMATCH[3]}
# The longest time seen blocked: the last scan before the release saw at least
# (release - start - one interval); no scan can have seen more than the release.
# 10 % either way, as above.
dmn_longest_ok "$d" "$T_START" "$T_REL0" "$T_REL1" ||
	live_fail "\"resolved\" says blocked $d s; the child was blocked $(dmn_fcalc "$T_REL0 - $T_START")..$(dmn_fcalc "$T_REL1 - $T_START") s (allowed $LO..$HI)"
t_res=$(dmn_msg_time "$R")
# "resolved at" in the daemon's local time (same TZ as here), within the scan that saw it.
awk -v a="$(date -d "$at" +%s)" -v r="$T_REL0" -v t="$t_res" 'BEGIN { exit !(a >= int(r) - 1 && a <= t + 1) }' ||
	live_fail "\"resolved at $at\", but the child was released at $(date -d "@${T_REL0%.*}" +%T) and journald got the message at $(date -d "@${t_res%.*}" +%T)"

# ---- the catalog knows the MESSAGE_ID (once `signatures --catalog` exists) ----
if timeout -k 1 5 "$CGWATCH" signatures --catalog >"$LIVE_TMP/catalog" 2>&1 3>&-; then
	grep -qi -- "$mid" "$LIVE_TMP/catalog" || live_fail "MESSAGE_ID $mid is not in \`cgwatch signatures --catalog\`"
else
	echo "note: cgwatch signatures --catalog: $(head -c 200 "$LIVE_TMP/catalog")" >&2
fi

# ---- report files ----
dmn_check_reports "$INC" fuse-wait
rep=$(dmn_get "$O" CGWATCH_REPORT)
jq -e '.incident.escalated == null and .incident.resolved == null' "$rep" >/dev/null ||
	live_fail "opened report $rep: escalated/resolved not null: $(jq -c '.incident | {opened, escalated, resolved}' "$rep")"
rep=$(dmn_get "$R" CGWATCH_REPORT)
jq -e '.incident.opened != null and .incident.escalated != null and .incident.resolved != null' "$rep" >/dev/null ||
	live_fail "resolved report $rep: opened/escalated/resolved: $(jq -c '.incident | {opened, escalated, resolved}' "$rep")"
tb=$(jq -r --argjson p "$PID1" '[.incident.tasks[]? | select(.pid == $p)][0] | "\(.blocked_s) \(.resolved)"' "$rep")
dmn_fcmp "${tb% *}" '>=' "$(dmn_fcalc "$d - 0.1")" && dmn_fcmp "${tb% *}" '<=' "$(dmn_fcalc "$d + 0.1")" && [ "${tb#* }" != null ] ||
	live_fail "resolved report $rep: task $PID1 has blocked_s/resolved '$tb', the message says $d s"
left=$(ls -A "$DMN_REPORTS" | grep -v -E '\.(json|txt|html)$')
[ -z "$left" ] || live_fail "temporary files left in $DMN_REPORTS: $(tr '\n' ' ' <<<"$left")"

live_pass

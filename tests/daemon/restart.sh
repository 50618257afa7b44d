#!/bin/bash
# live-daemon-restart: open incidents survive a restart of `cgwatch run`
# ([run] state_dir/incidents.json), neither lost nor duplicated.
# Part 1: a FUSE-stuck child opens an incident and escalates (warning 2 s,
# critical 4 s); SIGTERM (exit 0 within 1 s; incidents.json names the
# incident); a second daemon starts while the child is still stuck and must
# send neither "opened" nor "escalated" again; then the child is released and
# the second daemon sends one "resolved" for the same incident id, with the
# whole duration (both runs), and its report numbering continues (no report
# file overwritten); SIGINT stops it (exit 0 within 1 s).
# Part 2: an incident that ends while the daemon is down is resolved at the
# first scan of the next run, with the longest time the previous run saw.
# Messages come from a private journald when it can be started here, else
# from the daemons' stderr.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-restart
dmn_require
dmn_journald optional
dmn_conf

# ---- part 1 ----
dmn_fuse_child cgw-stuck
dmn_start run1
RUN1=$DPID
dmn_wait_state opened 1 $((DMN_WARN + 4)) ||
	live_fail "run 1: no \"opened\" within $((DMN_WARN + 4)) s; messages: [$(dmn_digest)]; $(dmn_ctx)"
INC=$(dmn_get '.CGWATCH_STATE == "opened"' CGWATCH_INCIDENT)
dmn_wait_state escalated 1 $((DMN_CRIT + 2)) "$INC" ||
	live_fail "run 1: no \"escalated\" for $INC; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 0.6
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "run 1: SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s; $(dmn_ctx "$RUN1")"
STATE=$DMN_STATE/incidents.json
[ -f "$STATE" ] || live_fail "no $STATE after run 1 stopped with an open incident; state dir: $(ls -A "$DMN_STATE" | tr '\n' ' ')"
jq -e --arg i "$INC" '[.. | strings] | index($i) != null' "$STATE" >/dev/null ||
	live_fail "$STATE does not name the open incident $INC: $(head -c 300 "$STATE" | cat -v)"
[ -z "$(ls -A "$DMN_STATE" | grep -v '^incidents\.json$')" ] ||
	live_fail "left in the state dir besides incidents.json: $(ls -A "$DMN_STATE" | tr '\n' ' ')"
dmn_collect
n1=$(jq length "$LIVE_TMP/msgs.json")

dmn_start run2
RUN2=$DPID
sleep 3                 # six scans with the task still stuck past critical
dmn_require_alive "run 2, task still stuck"
dmn_collect
[ "$(dmn_count opened)" = 1 ] && [ "$(dmn_count escalated)" = 1 ] ||
	live_fail "run 2 repeated the open incident: [$(dmn_digest)]"
[ "$(jq length "$LIVE_TMP/msgs.json")" -ge "$n1" ] || live_fail "messages lost?"
dmn_fuse_release
dmn_wait_state resolved 1 5 ||
	live_fail "run 2: no \"resolved\" within 5 s of the release; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 1.5
dmn_collect
incs=$(dmn_incidents | tr '\n' ' ')
[ "$incs" = "$INC " ] || live_fail "want one incident $INC across both runs, got: $incs; messages: [$(dmn_digest)]"
states=$(dmn_states "$INC")
grep -Eq '^opened( updated)* escalated( updated)* resolved$' <<<"$states" ||
	live_fail "states of $INC across the restart: '$states'; messages: [$(dmn_digest)]"
got=$(jq -r --arg i "$INC" '[.[] | select(.CGWATCH_INCIDENT == $i and (.CGWATCH_STATE == "opened" or .CGWATCH_STATE == "resolved")) | ._PID] | join(" ")' "$LIVE_TMP/msgs.json")
[ "$got" = "$RUN1 $RUN2" ] || live_fail "\"opened\"/\"resolved\" sent by pids '$got', want run 1 ($RUN1) then run 2 ($RUN2)"
msg=$(dmn_get '.CGWATCH_STATE == "resolved"' MESSAGE)
d=$(dmn_duration "$msg")
dmn_longest_ok "$d" "$T_START" "$T_REL0" "$T_REL1" ||
	live_fail "\"resolved\" after the restart says '$msg'; the child was blocked $(dmn_fcalc "$T_REL0 - $T_START") s in all (allowed $LO..$HI)"
dmn_check_reports "$INC" fuse-wait
o1=$(jq -r .incident.opened "$(dmn_get '.CGWATCH_STATE == "opened"' CGWATCH_REPORT)")
o2=$(jq -r .incident.opened "$(dmn_get '.CGWATCH_STATE == "resolved"' CGWATCH_REPORT)")
[ "$o1" = "$o2" ] && [ "$o1" != null ] || live_fail "incident.opened is '$o1' in run 1's report, '$o2' in run 2's resolved report"
if [ -f "$STATE" ] && jq -e --arg i "$INC" '[.. | strings] | index($i) != null' "$STATE" >/dev/null; then
	live_fail "$STATE still names $INC after it was resolved: $(head -c 300 "$STATE")"
fi
dmn_stop INT 3          # SIGINT stops it like SIGTERM
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "run 2: SIGINT: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s; $(dmn_ctx "$RUN2")"

# ---- part 2: resolved while the daemon was down ----
live_umount "$MNT"      # part 1's aborted mount; part 2 mounts afresh on the same dir
# No message between the opening and the stop (no escalation, no update): the
# blocked time run 3 saw last must reach run 4 through incidents.json alone.
dmn_conf thresholds.blocked_critical=30 incidents.update_interval=300
dmn_fuse_child cgw-stuck2
CHILD2=$CHILD T_START2=$T_START
dmn_start run3
RUN3=$DPID
inc2() { dmn_collect; INC2=$(jq -r --arg i "$INC" '[.[] | select(.CGWATCH_STATE == "opened" and .CGWATCH_INCIDENT != $i)][0].CGWATCH_INCIDENT // empty' "$LIVE_TMP/msgs.json"); [ -n "$INC2" ]; }
live_wait_for $((DMN_WARN + 4)) inc2 ||
	live_fail "run 3: no \"opened\" for the second child within $((DMN_WARN + 4)) s; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 3                 # run 3 sees it blocked much longer than at the opening
T_STOP3=$(live_now)
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] || live_fail "run 3: SIGTERM: exit status $DMN_STOP_RC; $(dmn_ctx "$RUN3")"
dmn_fuse_release         # the task recovers while no daemon runs
t4=$(live_now)
dmn_start run4
RUN4=$DPID
dmn_wait_state resolved 1 5 "$INC2" ||
	live_fail "run 4: $INC2 ended while the daemon was down and was not resolved within 5 s of the restart; messages: [$(dmn_digest)]; $(dmn_ctx)"
seen=$(live_elapsed_since "$t4")
t_res=$(dmn_msg_time ".CGWATCH_INCIDENT == \"$INC2\" and .CGWATCH_STATE == \"resolved\"")
[ -n "$t_res" ] && seen=$(dmn_fcalc "$t_res - $t4")
dmn_fcmp "$seen" '<=' "$(dmn_fcalc "$DMN_INTERVAL + 1.5")" ||
	live_fail "run 4: $INC2 resolved $seen s after the restart, want at the first scan (interval $DMN_INTERVAL s)"
sleep 1
dmn_collect
states=$(dmn_states "$INC2")
[[ $states =~ ^opened(\ updated|\ escalated)*\ resolved$ ]] || live_fail "states of $INC2: '$states'; messages: [$(dmn_digest)]"
got=$(jq -r --arg i "$INC2" '[.[] | select(.CGWATCH_INCIDENT == $i and .CGWATCH_STATE == "resolved") | ._PID] | join(" ")' "$LIVE_TMP/msgs.json")
[ "$got" = "$RUN4" ] || live_fail "\"resolved\" of $INC2 sent by '$got', want run 4 ($RUN4)"
msg=$(dmn_get ".CGWATCH_INCIDENT == \"$INC2\" and .CGWATCH_STATE == \"resolved\"" MESSAGE)
d=$(dmn_duration "$msg")
# The longest time seen blocked: by run 3's last scan, at most one interval
# before its SIGTERM (so more than at the opening: incidents.json must keep
# it); 10 % either way as in journal.sh.
dmn_longest_ok "$d" "$T_START2" "$T_STOP3" "$T_REL1" ||
	live_fail "\"resolved\" of $INC2 says '$msg'; run 3 was stopped when it had been blocked $(dmn_fcalc "$T_STOP3 - $T_START2") s (allowed $LO..$HI)"
[[ $msg == "PID $CHILD2 (cgw-stuck2) was blocked "* ]] || live_fail "\"resolved\" of $INC2 names the wrong task: '$msg'"
dmn_check_reports "$INC2" fuse-wait
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] || live_fail "run 4: SIGTERM: exit status $DMN_STOP_RC; $(dmn_ctx "$RUN4")"

live_pass

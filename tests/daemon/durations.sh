#!/bin/bash
# live-daemon-durations: the daemon never says a task has been blocked longer than it has, and
# never calls an incident critical before its tasks have really been blocked blocked_critical
# seconds, under load, when the kernel has forgotten when a task last ran.
#
# As tests/live/durations.sh: 200 children on an uninitialised FUSE mount, about half of
# them asleep with se.exec_start 0 (moved while still queued), 2 busy loops. Then `cgwatch run`
# (interval 0.5 s, warning 2 s, critical 4 s, update_interval 1 s) until the incident has
# escalated and been updated, the children are released, it resolves. For every message, and
# every report it names, with t = when journald got the message (or the report's mtime):
#   - no duration (CGWATCH_BLOCKED_SEC, every "N s" in MESSAGE; in the JSON report every
#     blocked_s and duration_s of the children and the incident, in the text report every
#     "N s" on a line naming a child) above t - T_START + one interval, T_START being just
#     before the first child was forked;
#   - severity critical only once t - T_START >= blocked_critical.
# And the incident opens, escalates (the children with exact times do reach 4 s) and
# resolves, with fuse-wait; in the last report before the release, every child whose
# se.exec_start the kernel shows, and did not change during the hang, is listed with an exact
# time.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-durations
dmn_require
dmn_journald optional
dmn_conf
N=200 COMM=cgw-ddur

dmn_hogs 2
dmn_block_forgotten "$N" "$COMM"
EXEC0_BEFORE=$EXEC0
# Each child's se.exec_start now and before the release: one that differs ran in between (a
# woken exclusive waiter goes back to sleep, its wait restarted; seen once in CI), so its
# wait is younger than the hang and no report owes it the hang's time.
exec_starts() {
	local t s
	for t in "${KIDS[@]}"; do
		s=
		{ read -r -d '' s <"/proc/$t/sched"; } 2>/dev/null
		s=${s#*se.exec_start}
		s=${s%%$'\n'*}
		echo "$t ${s##* }"
	done
}
exec_starts >"$LIVE_TMP/exec-start.before"
dmn_start daemon
dmn_wait_state opened 1 $((DMN_WARN + 6)) ||
	live_fail "no \"opened\" within $((DMN_WARN + 6)) s with $N tasks stuck; messages: [$(dmn_digest)]; $(dmn_ctx)"
# escalated: the children with exact times pass 4 s; or an opened message already critical
escalated() { dmn_collect; jq -e '[.[] | select(.CGWATCH_SEVERITY == "critical")] | length > 0' "$LIVE_TMP/msgs.json" >/dev/null; }
live_wait_for $((DMN_CRIT + 6)) escalated ||
	live_fail "the incident never became critical though the children have been blocked $(live_elapsed_since "$T_START") s (critical: $DMN_CRIT s); messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 1.5
dmn_require_alive "during the hang"
dmn_exec0
EXEC0_END=$EXEC0
exec_starts >"$LIVE_TMP/exec-start.end"
RAN=$(awk 'NR == FNR { a[$1] = $2; next } ($1 in a) && a[$1] != $2 { printf "%s%s", n++ ? " " : "", $1 }' \
	"$LIVE_TMP/exec-start.before" "$LIVE_TMP/exec-start.end")
dmn_release_many
dmn_wait_state resolved 1 6 ||
	live_fail "no \"resolved\" within 6 s of releasing the $N tasks; messages: [$(dmn_digest)]; $(dmn_ctx)"
sleep 0.5
dmn_collect
dmn_stop TERM 3
dmn_collect

# One line per message: index, state, severity, journald time (or "-"), report, blocked, MESSAGE.
jq -r '.[] | [.CGWATCH_STATE, .CGWATCH_SEVERITY, ((.__REALTIME_TIMESTAMP // "-") | tostring),
	(.CGWATCH_REPORT // "-"), (.CGWATCH_BLOCKED_SEC // "-"), (.MESSAGE | gsub("\t"; " "))] | @tsv' \
	"$LIVE_TMP/msgs.json" >"$LIVE_TMP/msgs.tsv"
nmsg=$(wc -l <"$LIVE_TMP/msgs.tsv")
kids_json=$(printf '%s\n' "${KIDS[@]}" | jq -s -c .)
problems=() worst=0 worst_what='' i=0
while IFS=$'\t' read -r st sev rt rep blocked msg; do
	i=$((i + 1))
	if [ "$rt" != - ]; then
		t=$(dmn_fcalc "$rt / 1000000")
	elif [ -f "$rep" ]; then
		t=$(stat -c %.9Y "$rep")
	else
		problems+=("untimed: message $i ($st): no journal time and no report to time it by")
		continue
	fi
	truth=$(dmn_fcalc "$t - $T_START")
	hi=$(dmn_fcalc "$truth + $DMN_INTERVAL")
	what="message $i ($st, $sev) at T_START+$truth s"
	if [ "$sev" = critical ] && ! dmn_fcmp "$truth" '>=' "$DMN_CRIT"; then
		problems+=("early-critical: $what: critical, but no child can have been blocked $DMN_CRIT s yet")
	fi
	d=$({ [ "$blocked" = - ] || echo "$blocked"; grep -oE '(^|[^0-9.])[0-9]+(\.[0-9]+)? s([^a-z]|$)' <<<"$msg" |
		grep -oE '[0-9]+(\.[0-9]+)?'; } | sort -g | tail -1)
	if [ -n "$d" ]; then
		dmn_fcmp "$d" '>' "$worst" && worst=$d worst_what="$what"
		dmn_fcmp "$d" '>' "$hi" && problems+=("over: $what says $d s > $hi s: $msg")
	fi
	[ -f "$rep" ] || { problems+=("missing: $what: its report $rep is missing"); continue; }
	rt=$(stat -c %.9Y "$rep")
	rtruth=$(dmn_fcalc "$rt - $T_START")
	rhi=$(dmn_fcalc "$rtruth + $DMN_INTERVAL")
	rwhat="report $(basename "$rep") written at T_START+$rtruth s"
	got=$(jq -r --argjson kids "$kids_json" --argjson hi "$rhi" '
		[ (.tasks[]? | select(.tid as $t | $kids | index($t)) | ["tasks[] tid \(.tid)", .blocked_s]),
		  (.incident.tasks[]? | ["incident.tasks[] tid \(.tid)", .blocked_s]),
		  ["incident.duration_s", .incident.duration_s],
		  (.incident.timeline[]? | ["incident.timeline[] \(.state)", .blocked_s]) ]
		| map(select(.[1] | numbers))
		| (max_by(.[1]) // ["none", 0]) as $m
		| "\($m[1]) \($m[0])", (.[] | select(.[1] > $hi) | "over \(.[0]) \(.[1])")' "$rep")
	read -r rmax rmax_what <<<"$(head -1 <<<"$got")"
	dmn_fcmp "$rmax" '>' "$worst" && worst=$rmax worst_what="$rwhat, $rmax_what"
	over=$(grep '^over ' <<<"$got")
	[ -z "$over" ] || problems+=("over: $rwhat: $(wc -l <<<"$over") durations > $rhi s, e.g. $(head -2 <<<"$over" | cut -c6- | tr '\n' ';')")
	rsev=$(jq -r '.incident.severity' "$rep")
	if [ "$rsev" = critical ] && ! dmn_fcmp "$rtruth" '>=' "$DMN_CRIT"; then
		problems+=("early-critical: $rwhat: incident critical, but no child can have been blocked $DMN_CRIT s yet")
	fi
	txt=${rep%.json}.txt
	d=$(grep -F "$COMM" "$txt" 2>/dev/null | grep -oE '(^|[^0-9.])[0-9]+(\.[0-9]+)? s([^a-z]|$)' | grep -oE '[0-9]+(\.[0-9]+)?' | sort -g | tail -1)
	[ -z "$d" ] || ! dmn_fcmp "$d" '>' "$rhi" || problems+=("over: text report $(basename "$txt"): shows $d s on a line naming $COMM > $rhi s")
done <"$LIVE_TMP/msgs.tsv"

# The last report before the release: every child whose se.exec_start the kernel shows has
# been blocked past the warning threshold, and its time is a fact: listed, exact.
rep=$(jq -r '[.[] | select(.CGWATCH_STATE != "resolved") | .CGWATCH_REPORT] | last // empty' "$LIVE_TMP/msgs.json")
if [ -f "$rep" ]; then
	exec0_json=$(tr ' ' '\n' <<<"$EXEC0_KIDS $RAN" | grep . | jq -s -c .)
	got=$(jq -r --argjson kids "$kids_json" --argjson z "$exec0_json" '
		((.tasks // []) | map({key: (.tid | tostring), value: .}) | from_entries) as $by
		| [ $kids[] | select(. as $k | $z | index($k) | not) | . as $k | $by[$k | tostring] as $t
		    | if $t == null then "\($k) not listed"
		      elif ($t.blocked_bound // "exact") != "exact" then "\($k) \($t.blocked_bound) \($t.blocked_s) s (age \($t.age_s) s)"
		      else empty end ]
		| "\(length) \(.[0:3] | join(", "))"' "$rep")
	[ "${got%% *}" = 0 ] ||
		problems+=("not-exact: report $(basename "$rep"): ${got%% *} of the $((N - EXEC0_BEFORE)) children whose se.exec_start the kernel shows are not listed as exact, e.g. ${got#* } (se.exec_start before and at the end: $(t=$(grep -oE '^[0-9]+' <<<"${got#* }" | head -1); grep -h "^$t " "$LIVE_TMP/exec-start.before" "$LIVE_TMP/exec-start.end" | tr '\n' ' '))")
fi
incs=$(dmn_msgs 'select(.CGWATCH_SIGNATURE != "fuse-wait") | .CGWATCH_INCIDENT' | sort -u | tr '\n' ' ')
[ -z "$incs" ] || problems+=("other-incident: not fuse-wait: $incs$(dmn_msgs 'select(.CGWATCH_SIGNATURE != "fuse-wait") | .MESSAGE' | head -1)")
for st in opened resolved; do
	[ "$(dmn_count "$st")" -ge 1 ] || problems+=("missing: no \"$st\" message")
done
what="$EXEC0_BEFORE of $N children in D with se.exec_start 0 ($EXEC0_END still before the release; $(wc -w <<<"$RAN") ran during the hang); $nmsg messages; largest duration $worst s ($worst_what)"
[ ${#problems[@]} = 0 ] ||
	live_fail "${#problems[@]} wrong ($(printf '%s\n' "${problems[@]}" | cut -d: -f1 | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')): $(printf '%s | ' "${problems[@]:0:3}" | head -c 900); $what"
live_pass "$what"

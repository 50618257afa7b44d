#!/bin/bash
# live-durations: `cgwatch check` never reports a task blocked longer than it has been, under
# load, when the kernel has forgotten when the task last ran.
#
# 200 children block on an uninitialised FUSE mount while 2 busy loops load the CPUs; each
# first burns 2 ms of CPU and a shuffler moves them from CPU to CPU as they block (statmany
# --spin 2 --shuffle 0.3). A child moved while EEVDF still has it queued (delayed dequeue)
# sleeps in D with se.exec_start 0 until it runs again: read as a time, "now - 0" is the
# uptime. The test counts those children first (none: it retries, then SKIPs: the run would
# prove nothing), then runs `check --threshold 0` 20 times (every 4th in text, with --all) and
# wants, in every run:
#   - every child whose se.exec_start the kernel shows reported, state D, fuse-wait; a child
#     with se.exec_start 0 reported or counted in scan.untimed (a single look cannot time it),
#     and if reported, its blocked_s not called exact;
#   - no task or finding critical (they have been blocked far less than blocked_critical, 60 s);
#   - no duration of a child (JSON blocked_s; in text, with --all, every "N s" on a line naming
#     it) above the time since the first fork to the end of that check plus the check's own time;
#   - a child whose blocked_s is exact not below 0.8 x the time since all were seen in D, minus
#     0.1 s (the clock leaves out steal and IRQ time).
# It runs in a private PID and mount namespace (tests/daemon/lib.sh): check sees only this
# test's tasks, and everything it made dies with it.
LIVE_BUDGET=${LIVE_BUDGET:-70}
. "$(dirname "$0")/../daemon/lib.sh"
dmn_enter_ns "$@"
live_init durations
dmn_require
N=200 RUNS=20 COMM=cgw-dur

dmn_hogs 2
dmn_block_forgotten "$N" "$COMM"
EXEC0_BEFORE=$EXEC0
kids_json=$(printf '%s\n' "${KIDS[@]}" | jq -s -c .)
exec0_json=$(tr ' ' '\n' <<<"$EXEC0_KIDS" | jq -s -c .)
echo "$EXEC0 of $N children in D with se.exec_start 0: $EXEC0_KIDS" >&2

fails=0 first='' worst=0 worst_what=''
for ((run = 1; run <= RUNS; run++)); do
	dmn_fcmp "$(live_elapsed_since "$LIVE_T0")" '<' $((LIVE_BUDGET - 8)) ||
		live_fail "only $((run - 1)) of $RUNS runs of check fit in ${LIVE_BUDGET} s (the last took ${took:-?} s); $fails failed so far${first:+: $first}"
	if ((run % 4 == 0)); then fmt=text; else fmt=json; fi
	((run == 1)) || sleep 0.25       # a check takes 0.1-1.5 s: spread the runs over a few seconds
	OUT=$LIVE_TMP/check$run.$fmt ERR=$LIVE_TMP/check$run.err
	if [ $fmt = json ]; then
		live_cgwatch "$OUT" "$ERR" check --format json --threshold 0
	else
		live_cgwatch "$OUT" "$ERR" check --format text --threshold 0 --all
	fi
	took=$(dmn_fcalc "$CG_T_AFTER - $CG_T_BEFORE")
	hi=$(dmn_fcalc "$CG_T_AFTER - $T_START + $took")          # the most any child can show
	lo=$(dmn_fcalc "0.8 * ($CG_T_BEFORE - $T_ALLD) - 0.1")     # the least an exact one can
	why=
	if [ "$CG_RC" != 1 ]; then
		why="exit $CG_RC, want 1 (stderr: $(head -c 200 "$ERR"))"
	elif [ $fmt = json ]; then
		live_json_check "$OUT" "run $run: check --format json --threshold 0"
		# one line per problem, worst first: "over|under|missing|..." and what
		why=$(jq -r --argjson kids "$kids_json" --argjson z "$exec0_json" --argjson hi "$hi" --argjson lo "$lo" '
			. as $root
			| ((.tasks // []) | map({key: (.tid | tostring), value: .}) | from_entries) as $by
			| def z(t): if ($z | index(t)) then " (se.exec_start 0)" else "" end;
			[ $kids[] as $k | $by[$k | tostring] as $t
			  | if $t == null then (if ($z | index($k)) then "untimed: \($k)" else "missing: child \($k) in D, its se.exec_start shown, is not in tasks[]" end)
			    elif ($t.blocked_s | type) != "number" then "no-number: child \($k)\(z($k)) has blocked_s \($t.blocked_s | tojson)"
			    elif $t.blocked_s > $hi then "over: child \($k)\(z($k)) blocked_s \($t.blocked_s) (\($t.blocked_bound // "no blocked_bound")) > \($hi) s"
			    elif ($z | index($k)) and ($t.blocked_bound // "exact") == "exact" then "exact: child \($k) has se.exec_start 0, yet blocked_s \($t.blocked_s) is called exact"
			    elif ($t.blocked_bound // "exact") == "exact" and $t.blocked_s < $lo then "under: child \($k) blocked_s \($t.blocked_s) (exact) < \($lo) s"
			    elif $t.state != "D" or $t.signature != "fuse-wait" then "wrong: child \($k)\(z($k)) state \($t.state) signature \($t.signature)"
			    elif $t.severity == "critical" then "critical: child \($k)\(z($k)) blocked_s \($t.blocked_s) is critical"
			    else empty end ]
			| ([.[] | select(startswith("untimed: "))] | length) as $u
			| map(select(startswith("untimed: ") | not))
			+ (if $u > ($root.scan.untimed // 0) then ["unaccounted: \($u) children with se.exec_start 0 neither in tasks[] nor counted in scan.untimed (\($root.scan.untimed // "absent"))"] else [] end)
			+ [ $root.findings[]? | select(.severity == "critical") | "critical: finding \(.id) is critical" ]
			| sort_by(if startswith("missing") or startswith("over") then 0 else 1 end) | .[]' "$OUT")
		max=$(jq -r --argjson kids "$kids_json" '[.tasks[]? | select(.tid as $t | $kids | index($t)) | .blocked_s | numbers] | max // 0' "$OUT")
	else
		[ -s "$OUT" ] || live_fail "run $run: check (text) printed nothing (rc $CG_RC): $(head -c 300 "$ERR")"
		# every "N s" on a line naming a child: its duration, or evidence about it
		why=$(grep -F "$COMM" "$OUT" | grep -oE '(^|[^0-9.])[0-9]+(\.[0-9]+)? s([^a-z]|$)' |
			grep -oE '[0-9]+(\.[0-9]+)?' | awk -v hi="$hi" -v c="$COMM" '$1 > hi { printf "over: text shows %s s on a line naming %s > %s s\n", $1, c, hi; exit }')
		[ -n "$why" ] || grep -qF "$COMM" "$OUT" || why="missing: no line names $COMM"
		grep -q '^CRITICAL' "$OUT" && why="${why:+$why; }critical: $(grep -m1 '^CRITICAL' "$OUT" | head -c 100)"
		max=$(grep -F "$COMM" "$OUT" | grep -oE '(^|[^0-9.])[0-9]+(\.[0-9]+)? s([^a-z]|$)' | grep -oE '[0-9]+(\.[0-9]+)?' | sort -g | tail -1)
	fi
	if dmn_fcmp "${max:-0}" '>' "$worst"; then worst=$max worst_what="run $run ($fmt), truth <= $hi s"; fi
	if [ -n "$why" ]; then
		fails=$((fails + 1))
		[ -n "$first" ] || first="run $run ($fmt; $(dmn_fcalc "$CG_T_AFTER - $T_START") s after the first fork, check took $took s): $(cut -d: -f1 <<<"$why" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }'); e.g. $(head -2 <<<"$why" | cut -d: -f2- | tr '\n' ';')"
	fi
done
dmn_exec0
what="$EXEC0_BEFORE of $N children in D with se.exec_start 0 ($EXEC0 still at the end); largest duration shown $worst s ($worst_what)"
[ "$fails" = 0 ] || live_fail "$fails of $RUNS runs of check are wrong; $what; $first"
live_pass "$what"

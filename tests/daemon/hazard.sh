#!/bin/bash
# live-daemon-hazard: `cgwatch run` audits the host again every [audit] interval (1 s here),
# off its scan loop, and says a hazard once when it starts to hold and once when it stops.
# The hazard is made and undone on purpose, in this test's own mount namespace: a private
# cgroup v1 named hierarchy (as live-auditpidlist), a loop creating and removing cgroups in it,
# and a reader holding one cgroup's cgroup.procs open: cgroup1-pidlist-churn (seed 000).
#   - with the churn but no reader, the rule does not hold: no message names it, its metric
#     cgwatch_hazard{id="cgroup1-pidlist-churn"} is 0;
#   - with the reader: exactly one "found" message (MESSAGE_ID the catalog's hazard id,
#     CGWATCH_HAZARD, CGWATCH_HAZARD_STATE=found, CGWATCH_SEVERITY warning, CGWATCH_SIGNATURE
#     cgroup1-pidlist-flush, CGWATCH_EVIDENCE naming the reader), still one after several more
#     audits, and the metric is 1;
#   - the reader gone: exactly one "cleared", still one after several more audits, metric 0;
#   - the first audit's other hazards (this host's own) are each said once as found, never
#     again nor cleared while nothing changes;
#   - the daemon's threads do not grow from one audit to the next;
#   - the scans keep their interval (0.5 s) while the audits run: no gap between STATUS=
#     lines above interval + 0.5 s; cgwatch_audit_timestamp_seconds advances.
#   - then, [hazards] local on an uninitialised FUSE mount (tests/live/fusehold), mounted
#     while the daemon runs: the audit
#     waits for it up to the read deadline (1 s), the scans keep their interval, "does not
#     answer" is said once, the built-in rules are still decided, SIGTERM exits at once.
#   - then, with audits every 600 s: a CPU layout change seen only in this namespace (a file
#     bind-mounted over /sys/devices/system/cpu/isolated) makes an audit within 4 s, only one
#     while it stays, and another when it is undone (cgwatch_audit_timestamp_seconds).
# Everything made is removed at exit (loop, reader, cgroups, mount), even on failure.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-hazard
dmn_require
live_require_tools mount umount
dmn_journald optional
HAZ=cgroup1-pidlist-churn
PROM=$LIVE_TMP/cgwatch.prom
MNT=$LIVE_TMP/hier
NAME=cgwhaz$$
READER= CHURN=
live_v1_hierarchy "$MNT" "$NAME"
stop_users() {
	touch "$LIVE_TMP/stop"
	[ -n "$CHURN" ] && live_kill_wait "$CHURN"
	[ -n "$READER" ] && live_kill_wait "$READER"
}
live_on_exit stop_users
# the churn: mkdir, read tasks, rmdir until told to stop; about 15 a second (the rule wants
# 1), paced so that it does not take a CPU from the daemon (nice 10) on a small host
( i=0; while [ ! -e "$LIVE_TMP/stop" ]; do
	mkdir "$MNT/c$i" && cat "$MNT/c$i/tasks" >/dev/null && rmdir "$MNT/c$i" || exit 1
	i=$((i + 1)); sleep 0.05; done ) &
CHURN=$!

dmn_conf audit.interval=1 run.metrics_file="$PROM"
dmn_notify_listen
dmn_start daemon NOTIFY_SOCKET="$NOTIFY_SOCK"
T0=$(live_now)

# hazard messages so far, as a JSON array in $LIVE_TMP/haz.json: from our journald, else
# parsed from the daemon's stderr lines "cgwatch: MESSAGE [KEY=VALUE ...]"
haz_collect() {
	if [ "$DMN_JOURNALD" = 1 ]; then
		timeout -k 1 10 journalctl -D "$DMN_JOURNAL_DIR" -o json --no-pager >"$LIVE_TMP/journal.json" 2>/dev/null ||
			live_fail "journalctl -D $DMN_JOURNAL_DIR -o json failed"
		jq -s '[.[] | select(has("CGWATCH_HAZARD_STATE"))]' "$LIVE_TMP/journal.json" >"$LIVE_TMP/haz.json"
	else
		jq -R -s '
			split("\n")
			| map(capture("^cgwatch: (?<MESSAGE>.*) \\[(?<f>CGWATCH_HAZARD_STATE=.*)\\]$"))
			| map(. as $m | ($m.f | [splits(" (?=[A-Z][A-Z0-9_]*=)")]
				| map(capture("^(?<k>[A-Z][A-Z0-9_]*)=(?<v>.*)$") | {(.k): .v}) | add)
				+ {MESSAGE: $m.MESSAGE})' "${DMN_ERRS[-1]}" >"$LIVE_TMP/haz.json"
	fi || live_fail "cannot read the hazard messages"
}
# haz_count ID STATE: how many messages say ID went to STATE
haz_count() { jq --arg i "$1" --arg s "$2" '[.[] | select(.CGWATCH_HAZARD == $i and .CGWATCH_HAZARD_STATE == $s)] | length' "$LIVE_TMP/haz.json"; }
haz_digest() { jq -r '[.[] | "\(.CGWATCH_HAZARD)/\(.CGWATCH_HAZARD_STATE)"] | join(" ")' "$LIVE_TMP/haz.json" | head -c 600; }
metric() { awk -v n="$1" 'index($0, n " ") == 1 && substr($0, length(n) + 2) !~ / / { print substr($0, length(n) + 2) }' "$PROM" 2>/dev/null; }
HM="cgwatch_hazard{id=\"$HAZ\"}"
# wait_metric VALUE SECONDS: the hazard's metric has that value
wait_metric() { _m() { [ "$(metric "$HM")" = "$1" ]; }; live_wait_for "$2" _m "$1"; }
# wait_count STATE SECONDS: one message with that state has come (journalctl every 0.25 s)
wait_count() {
	local i
	for ((i = 0; i < $2 * 4; i++)); do
		haz_collect
		[ "$(haz_count "$HAZ" "$1")" -ge 1 ] && return 0
		sleep 0.25
	done
	return 1
}
# threads: the fewest threads the daemon had over 2 s (an audit's own, and its deadline
# helper's, come and go)
threads() {
	local i n min=
	for ((i = 0; i < 20; i++)); do
		n=$(ls "/proc/$DPID/task" 2>/dev/null | wc -l)
		[ -z "$min" ] || [ "$n" -lt "$min" ] && min=$n
		sleep 0.1
	done
	echo "$min"
}

# ---- the churn alone: the rule is decided and does not hold ----
wait_metric 0 8 || live_fail "no '$HM 0' 8 s after the start, churn without a reader: $(grep -E 'hazard|audit' "$PROM" 2>/dev/null | tr '\n' '|'); $(dmn_ctx)"
t_a0=$(metric cgwatch_audit_timestamp_seconds)
haz_collect
[ "$(haz_count "$HAZ" found)" = 0 ] || live_fail "$HAZ found without a reader: [$(haz_digest)]"
cp "$LIVE_TMP/haz.json" "$LIVE_TMP/haz-start.json"

# ---- the reader: found, once ----
( exec 7<"$MNT/keep/cgroup.procs"; exec sleep "$LIVE_BUDGET" ) &
READER=$!
live_wait_for 3 test -L "/proc/$READER/fd/7" || live_fail "setup: the reader holds no fd 7"
T_R=$(live_now)
wait_count found 8 || live_fail "no \"found\" message for $HAZ 8 s after the reader opened cgroup.procs (audits every 1 s): [$(haz_digest)]; $(dmn_ctx)"
found_after=$(live_elapsed_since "$T_R")
wait_metric 1 4 || live_fail "\"found\" said but '$HM' is $(metric "$HM"), want 1"
threads0=$(threads)
sleep 3.5                 # three more audits: nothing may be repeated
haz_collect
n=$(haz_count "$HAZ" found)
[ "$n" = 1 ] || live_fail "$HAZ \"found\" said $n times over 3+ audits, want once: [$(haz_digest)]"
[ "$(haz_count "$HAZ" cleared)" = 0 ] || live_fail "$HAZ cleared while the reader holds the file: [$(haz_digest)]"
[ "$(metric "$HM")" = 1 ] || live_fail "'$HM' is $(metric "$HM") with the reader there, want 1"
m=$(jq -c --arg i "$HAZ" '[.[] | select(.CGWATCH_HAZARD == $i)][0]' "$LIVE_TMP/haz.json")
mid=$(sed -n 's/^#define HAZARD_MESSAGE_ID "\([0-9a-f]*\)"$/\1/p' "$DMN_DIR/../../src/cgwatch.h")
[ "$(jq -r .MESSAGE_ID <<<"$m")" = "$mid" ] || live_fail "MESSAGE_ID of \"found\" is $(jq -r .MESSAGE_ID <<<"$m"), want $mid"
[ "$(jq -r .CGWATCH_SEVERITY <<<"$m")" = warning ] && [ "$(jq -r .CGWATCH_SIGNATURE <<<"$m")" = cgroup1-pidlist-flush ] ||
	live_fail "\"found\" fields: $(head -c 400 <<<"$m")"
jq -r '.CGWATCH_EVIDENCE | if type == "string" then . else tostring end' <<<"$m" | grep -qF "PID $READER (sleep) holds $MNT/keep/cgroup.procs open" ||
	live_fail "\"found\" CGWATCH_EVIDENCE does not name the reader $READER: $(jq -c .CGWATCH_EVIDENCE <<<"$m" | head -c 400)"
if timeout -k 1 5 "$CGWATCH" signatures --catalog >"$LIVE_TMP/catalog" 2>&1 3>&-; then
	grep -qx -- "-- $mid" "$LIVE_TMP/catalog" || live_fail "hazard MESSAGE_ID $mid is not in \`cgwatch signatures --catalog\`"
fi

# ---- the reader gone: cleared, once ----
live_kill_wait "$READER"
READER=
wait_count cleared 8 || live_fail "no \"cleared\" message 8 s after the reader went: [$(haz_digest)]; $(dmn_ctx)"
wait_metric 0 4 || live_fail "\"cleared\" said but '$HM' is $(metric "$HM"), want 0"
sleep 3.5
haz_collect
[ "$(haz_count "$HAZ" cleared)" = 1 ] && [ "$(haz_count "$HAZ" found)" = 1 ] ||
	live_fail "after 3+ more audits: found $(haz_count "$HAZ" found), cleared $(haz_count "$HAZ" cleared) times, want once each: [$(haz_digest)]"
[ "$(metric "$HM")" = 0 ] || live_fail "'$HM' is $(metric "$HM") without the reader, want 0"
# this host's own hazards: each found once at the start, never repeated or cleared
other=$(jq -r --arg i "$HAZ" '[.[] | select(.CGWATCH_HAZARD != $i)] | group_by(.CGWATCH_HAZARD)[] | select(length != 1 or .[0].CGWATCH_HAZARD_STATE != "found") | .[0].CGWATCH_HAZARD' "$LIVE_TMP/haz.json")
[ -z "$other" ] || live_fail "the host's own hazards said more than once or cleared: $other: [$(haz_digest)]"
t_a1=$(metric cgwatch_audit_timestamp_seconds)
dmn_fcmp "$t_a1" '>=' "$(dmn_fcalc "$t_a0 + 5")" || live_fail "cgwatch_audit_timestamp_seconds $t_a0 -> $t_a1 over ~10 s of 1 s audits"

# every audit's thread (and the deadline reads' helper it starts) is gone with it
threads1=$(threads)
[ "$threads1" -le "$threads0" ] || live_fail "the daemon had $threads0 threads after the first audits, $threads1 ten audits later (the fewest over 2 s each)"

# ---- the scans kept their interval while the audits ran ----
read -r n mx < <(dmn_notify_fields "$DPID" | awk '$3 ~ /^STATUS=/ { if (p) { g = $1 - p; if (g > mx) mx = g; n++ } p = $1 } END { printf "%d %.3f\n", n, mx }')
[ "$n" -ge 15 ] && dmn_fcmp "$mx" '<=' "$(dmn_fcalc "$DMN_INTERVAL + 0.5")" ||
	live_fail "STATUS= lines: $n gaps, the longest $mx s, want none above $(dmn_fcalc "$DMN_INTERVAL + 0.5") s (scans every $DMN_INTERVAL s while audits run)"
dmn_require_alive "after the audits"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s; $(dmn_ctx)"
gap1=$mx

# ---- [hazards] local on a FUSE mount that does not answer: an audit waits on it (up to the
# read deadline, 1 s), the scans do not; said once; the built-in rules are still decided ----
FMNT=$LIVE_TMP/fmnt
mkdir "$FMNT" || live_fail "mkdir $FMNT"
rm -f "$PROM"
dmn_conf audit.interval=1 run.metrics_file="$PROM" hazards.local="$FMNT/hazards.d" scan.read_timeout=1
dmn_start daemon2 NOTIFY_SOCKET="$NOTIFY_SOCK"
# audits read the (absent) directory for 2 s, then it is a mount that does not answer: the
# next audit waits there (a first audit's wait would come before the first STATUS=)
sleep 2
live_fusehold fuse "$FMNT"
sleep 4
dmn_require_alive "with the rule directory stuck"
read -r n mx < <(dmn_notify_fields "$DPID" | awk '$3 ~ /^STATUS=/ { if (p) { g = $1 - p; if (g > mx) mx = g; n++ } p = $1 } END { printf "%d %.3f\n", n, mx }')
[ "$n" -ge 10 ] && dmn_fcmp "$mx" '<=' "$(dmn_fcalc "$DMN_INTERVAL + 0.5")" ||
	live_fail "rule directory stuck: STATUS= lines: $n gaps, the longest $mx s, want none above $(dmn_fcalc "$DMN_INTERVAL + 0.5") s"
w="hazard directory $FMNT/hazards.d does not answer"
c=$(grep -cF "$w" "$LIVE_TMP/daemon2.err")
[ "$c" = 1 ] || live_fail "\"$w\" said $c times over 4 audits, want once: $(tail -c 500 "$LIVE_TMP/daemon2.err" | tr '\n' '|')"
[ "$(metric "$HM")" = 0 ] || live_fail "rule directory stuck: the built-in rules are not decided ('$HM' is '$(metric "$HM")'): $(grep -v '^#' "$PROM" 2>/dev/null | tr '\n' '|' | head -c 400)"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "SIGTERM with a rule directory stuck: exit status $DMN_STOP_RC after $DMN_STOP_SEC s; $(dmn_ctx)"
gap2=$mx

# ---- the CPU layout changes: an audit at once, not at the interval (600 s here). The change
# is seen only in this mount namespace: a file holding "1" bind-mounted over
# /sys/devices/system/cpu/isolated (CPU 1 isolated, as a cpuset partition would make it) ----
ISOL=/sys/devices/system/cpu/isolated
[ -r "$ISOL" ] && [ "$(cat "$ISOL")" != 1 ] || live_skip "no $ISOL, or CPU 1 is isolated already"
rm -f "$PROM"
dmn_conf audit.interval=600 run.metrics_file="$PROM"
dmn_start daemon3
_audited() { [ -n "$(metric cgwatch_audit_timestamp_seconds)" ]; }
live_wait_for 5 _audited || live_fail "no first audit 5 s after the start; $(dmn_ctx)"
a0=$(metric cgwatch_audit_timestamp_seconds)
echo 1 >"$LIVE_TMP/isolated" || live_fail "setup: cannot write $LIVE_TMP/isolated"
live_on_exit "live_umount $ISOL"
mount --bind "$LIVE_TMP/isolated" "$ISOL" || live_fail "setup: mount --bind over $ISOL"
_after() { local a; a=$(metric cgwatch_audit_timestamp_seconds); [ -n "$a" ] && dmn_fcmp "$a" '>' "$1"; }
live_wait_for 4 _after "$a0" || live_fail "CPU layout changed (CPU 1 isolated), no audit within 4 s (last at $a0, interval 600 s); $(dmn_ctx)"
a1=$(metric cgwatch_audit_timestamp_seconds)
sleep 2                               # the same layout: no other audit
[ "$(metric cgwatch_audit_timestamp_seconds)" = "$a1" ] || live_fail "audits go on while the layout stays the same: $a1 -> $(metric cgwatch_audit_timestamp_seconds)"
live_umount "$ISOL"
live_wait_for 4 _after "$a1" || live_fail "CPU layout back (no isolated CPU), no audit within 4 s; $(dmn_ctx)"
dmn_require_alive "after the layout changes"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] || live_fail "SIGTERM after the layout changes: exit status $DMN_STOP_RC; $(dmn_ctx)"
live_pass "found $found_after s after the reader came, once; cleared once; longest STATUS gap $gap1 s ($gap2 s with the rule directory stuck); audits on a CPU layout change and back"

#!/bin/bash
# live-auditpidlist: `cgwatch audit` and the seed 000 setup. A private cgroup v1 named
# hierarchy (mounted in a temp dir, as live-churn does), a reader holding one cgroup's
# cgroup.procs open (as a monitoring agent between sweeps), and a loop creating, reading and
# removing cgroups there: cgroup1-pidlist-churn, naming the reader's PID and file and a churn of
# at least 1 cgroup a second over the window, exit 1. With the reader gone (churn still
# running), the rule is quiet. Everything made is removed at exit (loop, reader, cgroups,
# mount), even on failure.
. "$(dirname "$0")/lib.sh"
live_init auditpidlist
live_require_root
live_require_tools jq mount umount timeout
live_require_binary
live_mktemp
MNT=$LIVE_TMP/hier
NAME=cgwaudit$$
CHURN= READER=
live_v1_hierarchy "$MNT" "$NAME"
stop_users() {
	touch "$LIVE_TMP/stop"
	live_kill_wait "$CHURN"
	live_kill_wait "$READER"
}
live_on_exit stop_users

# the reader: cgroup.procs of keep open on fd 7 of a sleeping process
( exec 7<"$MNT/keep/cgroup.procs"; exec sleep 30 ) &
READER=$!
# the churn: mkdir, read tasks, rmdir until told to stop
( i=0; while [ ! -e "$LIVE_TMP/stop" ]; do
	mkdir "$MNT/c$i" && cat "$MNT/c$i/tasks" >/dev/null && rmdir "$MNT/c$i" || exit 1
	i=$((i + 1)); done ) &
CHURN=$!
sleep 0.3
live_wait_for 3 test -L "/proc/$READER/fd/7" || live_fail "setup: the reader holds no fd 7"

OUT=$LIVE_TMP/a.json ERR=$LIVE_TMP/a.err
live_cgwatch "$OUT" "$ERR" audit --format json
jq -e '.schema == "cgwatch.audit/1"' "$OUT" >/dev/null || live_fail "not a cgwatch.audit/1 document (rc $CG_RC): $(head -c 300 "$ERR")"
[ "$CG_RC" = 1 ] || live_fail "exit $CG_RC, want 1"
ev=$(jq -r '.hazards[] | select(.id == "cgroup1-pidlist-churn") | .evidence[]' "$OUT")
[ -n "$ev" ] || live_fail "no cgroup1-pidlist-churn; hazards: $(jq -c '[.hazards[].id]' "$OUT"); facts: $(jq -c '.facts | {r: .["cgroup.v1_procs_readers"], c: .["cgroup.churn_per_s"]}' "$OUT")"
grep -qF "PID $READER (sleep) holds $MNT/keep/cgroup.procs open (fd 7)" <<<"$ev" ||
	live_fail "the reader $READER is not named: $(head -c 500 <<<"$ev")"
churn=$(jq '.facts["cgroup.churn_per_s"].value' "$OUT")
awk -v c="$churn" 'BEGIN { exit !(c >= 1) }' || live_fail "churn_per_s $churn, want >= 1"

# the reader gone: quiet for this rule
live_kill_wait "$READER"
OUT=$LIVE_TMP/b.json ERR=$LIVE_TMP/b.err
live_cgwatch "$OUT" "$ERR" audit --format json
jq -e '[.hazards[].id] | index("cgroup1-pidlist-churn") | not' "$OUT" >/dev/null ||
	live_fail "without the reader, cgroup1-pidlist-churn is still named: $(jq -c '.facts["cgroup.v1_procs_readers"]' "$OUT")"
live_pass "churn $(printf %.0f "$churn") cgroups/s"

#!/bin/bash
# live-fuse: a task blocked on an uninitialised FUSE mount (fuse_get_req) is
# reported with signature fuse-wait, a fuse-wait finding, an accurate
# blocked_s, and exit 1; closing the FUSE fd releases it.
. "$(dirname "$0")/lib.sh"
live_init_fuse fuse jq timeout awk

# the child, blocked; cleanups (reverse order): the helper (closing its fd aborts the
# connection), the child if still there, the mount; the temp dir last
live_fuse_child

sleep 3
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --format json --threshold 1
live_json_check "$OUT" "check --format json --threshold 1"

# The truth, measured here: from just before the child's stat() to the
# moments before and after cgwatch ran.
lo=$(awk -v s="$T_START" -v t="$CG_T_BEFORE" 'BEGIN { printf "%.3f", t - s }')
hi=$(awk -v s="$T_START" -v t="$CG_T_AFTER" 'BEGIN { printf "%.3f", t - s }')

task=$(live_task_json "$OUT" "$CHILD")
[ -n "$task" ] || live_fail "child tid $CHILD not in tasks[] (rc $CG_RC): $(live_summary "$OUT")"
sig=$(jq -r '.signature' <<<"$task")
state=$(jq -r '.state' <<<"$task")
blocked=$(jq -r '.blocked_s' <<<"$task")
[ "$sig" = fuse-wait ] || live_fail "child $CHILD signature is '$sig', want fuse-wait; task=$(head -c 400 <<<"$task")"
[ "$state" = D ] || live_fail "child $CHILD state is '$state', want D"
awk -v b="$blocked" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(b ~ /^[0-9.]+$/ && b >= 0.9 * lo && b <= 1.1 * hi) }' ||
	live_fail "child $CHILD blocked_s=$blocked, measured $lo..$hi s (allowed ${lo}*0.9..${hi}*1.1)"

ids=$(jq -r '[.findings[]?.id] | join(",")' "$OUT")
jq -e '[.findings[]? | select(.id == "fuse-wait")] | length > 0' "$OUT" >/dev/null ||
	live_fail "no finding with id fuse-wait; findings: [$ids]"
jq -e --argjson t "$CHILD" '[.findings[]? | select(.id == "fuse-wait") | select((.tasks // []) | index($t))] | length > 0' "$OUT" >/dev/null ||
	live_fail "finding fuse-wait does not list tid $CHILD: $(jq -c '[.findings[]? | select(.id == "fuse-wait") | .tasks]' "$OUT")"
[ "$CG_RC" = 1 ] || live_fail "exit code $CG_RC, want 1; stderr: $(head -c 200 "$ERR")"

# Closing the fuse fd (the helper dying) must release the child with ENOTCONN.
live_kill_wait "$HELPER" 5 || live_fail "helper $HELPER did not die"
HELPER=
released() { grep -q '^released ' "$LIVE_TMP/helper.out"; }
live_wait_for 5 released ||
	live_fail "child $CHILD not released after the fuse fd closed: state=$(live_task_state "$CHILD")"
rel=$(grep '^released ' "$LIVE_TMP/helper.out")
[ "$rel" = "released ENOTCONN" ] || live_fail "child released with '$rel', want ENOTCONN"
live_wait_for 3 _live_gone_or_zombie "$CHILD" || live_fail "child $CHILD still alive after release: state=$(live_task_state "$CHILD")"
CHILD=

live_pass

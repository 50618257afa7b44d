#!/bin/bash
# live-vfork: a vfork parent waiting for its child (D, kernel_clone) is not a
# hang: signature vfork-wait, vfork_child names the child's pid, only
# info-severity findings, exit 0.
. "$(dirname "$0")/lib.sh"
live_init vfork
live_require_root
live_require_tools jq timeout awk
live_require_helpers vforkhold
live_require_binary
live_mktemp

live_vforkhold

sleep 2
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --threshold 1 --format json
live_json_check "$OUT" "check --threshold 1 --format json"

task=$(live_task_json "$OUT" "$PARENT")
[ -n "$task" ] || live_fail "vfork parent $PARENT not in tasks[] (rc $CG_RC): $(live_summary "$OUT")"
sig=$(jq -r '.signature' <<<"$task")
[ "$sig" = vfork-wait ] || live_fail "parent $PARENT signature '$sig', want vfork-wait; task=$(head -c 400 <<<"$task")"
# vfork_child: the child's pid, as a number (or an object with a pid/tid).
vc=$(jq -r '.vfork_child | if type == "object" then (.pid // .tid) else . end' <<<"$task")
[ "$vc" = "$CHILD" ] || live_fail "parent $PARENT vfork_child is $(jq -c '.vfork_child' <<<"$task"), want $CHILD"
f=$(live_findings_for "$OUT" "$PARENT")
[ -n "$f" ] || live_fail "parent $PARENT: no finding lists it; $(live_summary "$OUT")"
bad=$(tr ',' '\n' <<<"$f" | grep -v ':info$' | tr '\n' ' ')
[ -z "$bad" ] || live_fail "parent $PARENT: findings with severity other than info: $bad"
# vfork-wait is info-only: it never makes the exit 1 by itself (a hang of another program on
# this host, another test's say, may)
others=$(jq '[.findings[]? | select(.id != "vfork-wait" and (.severity == "warning" or .severity == "critical"))] | length' "$OUT")
want=$([ "$others" = 0 ] && echo 0 || echo 1)
[ "$CG_RC" = "$want" ] || live_fail "exit code $CG_RC, want $want (vfork-wait is info-only; $others other findings of warning or worse); $(live_summary "$OUT")"

live_pass

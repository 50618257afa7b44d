#!/bin/bash
# live-capturevfork: a vfork parent waiting for its child (vfork-wait, info). The capture
# keeps the child the finding links (its stat: the replay finds it as the parent's newest
# child), so `check --root` on it gives the same findings, times within 0.1 s and the same
# vfork_child.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init capturevfork
live_require_root
live_require_tools jq timeout awk find stat
live_require_helpers vforkhold
live_require_binary
live_mktemp

live_vforkhold

sleep 2
CAP=$LIVE_TMP/cap
capture_run "$CAP" --threshold 1
vc() { jq -r --argjson t "$PARENT" '[.tasks[]? | select(.tid == $t) | .vfork_child][0] // "none"' "$1"; }
[ "$(vc "$LIVE_TMP/live.json")" = "$CHILD" ] ||
	live_fail "live: parent $PARENT vfork_child $(vc "$LIVE_TMP/live.json"), want $CHILD: $(live_summary "$LIVE_TMP/live.json")"
capture_compare
capture_modes "$CAP"
[ "$(vc "$LIVE_TMP/replay.json")" = "$CHILD" ] ||
	live_fail "replay: parent $PARENT vfork_child $(vc "$LIVE_TMP/replay.json"), want $CHILD"
live_pass "$NCMP findings replayed alike, vfork child $CHILD"

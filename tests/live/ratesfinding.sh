#!/bin/bash
# live-ratesfinding: `check` counts cgroup activity when a finding's signature names a
# correlator that takes its evidence from the counts, decided from the signature file, not
# from its id.
#
# A task blocked on an uninitialised FUSE mount (tests/live/fusehold.c) is matched twice:
#   - by the shipped fuse-wait (correlator none): no "rates" object;
#   - by a local signature, test-fuse-churn (same frames, higher priority, correlator
#     cgroup-churn, added through [signatures] local): the finding has that id, the report a
#     live "rates" object over about 1 s, and the finding the churn evidence (forks counted).
. "$(dirname "$0")/lib.sh"
live_init_fuse ratesfinding jq timeout awk

mkdir "$LIVE_TMP/sigs" || live_fail "mkdir"

cat >"$LIVE_TMP/sigs/test-fuse-churn.conf" <<'EOF' || live_fail "cannot write the signature"
[signature]
id          = test-fuse-churn
severity    = warning
priority    = 99
states      = D
correlator  = cgroup-churn
title       = A FUSE wait, as a signature whose correlator needs the cgroup activity counts
summary     = Test signature of tests/live/ratesfinding.sh.
explanation = Matches what fuse-wait matches, with the cgroup-churn correlator.

[match]
frame = fuse_get_req
EOF
cat >"$LIVE_TMP/plain.conf" <<'EOF'
[thresholds]
starved = 86400
EOF
cat >"$LIVE_TMP/local.conf" <<EOF
[thresholds]
starved = 86400
[signatures]
local = $LIVE_TMP/sigs
EOF

live_fuse_child

# --all --threshold 0: the child is a finding however long it has been blocked, and even when
# its blocked time is unknown (se.exec_start reset by a move on a loaded machine).
# The shipped signature: no correlator, no counting (other D tasks of this host are reported
# too: the window may open for them, never for fuse-wait alone)
OUT=$LIVE_TMP/plain.json
live_cgwatch "$OUT" "$OUT.err" check --config "$LIVE_TMP/plain.conf" --all --threshold 0 --format json
live_json_check "$OUT" "check (fuse-wait)"
[ "$(jq -r --argjson t "$CHILD" '.tasks[]? | select(.tid == $t) | .signature' "$OUT")" = fuse-wait ] ||
	live_fail "child $CHILD not reported as fuse-wait: $(live_summary "$OUT")"
if jq -e 'has("rates")' "$OUT" >/dev/null; then
	jq -e '[.findings[].id] - ["fuse-wait"] | length > 0' "$OUT" >/dev/null ||
		live_fail "fuse-wait alone opened the counting window: $(jq -c '.rates | {source, window_s}' "$OUT")"
fi

# the local signature with the cgroup-churn correlator
OUT=$LIVE_TMP/local.json
live_cgwatch "$OUT" "$OUT.err" check --config "$LIVE_TMP/local.conf" --all --threshold 0 --format json
live_json_check "$OUT" "check (test-fuse-churn)"
[ "$(jq -r --argjson t "$CHILD" '.tasks[]? | select(.tid == $t) | .signature' "$OUT")" = test-fuse-churn ] ||
	live_fail "child $CHILD not matched by the local test-fuse-churn: $(live_summary "$OUT"); stderr: $(head -c 300 "$OUT.err")"
jq -e '.rates.live == true and .rates.window_s >= 0.9 and .rates.window_s < 5' "$OUT" >/dev/null ||
	live_fail "a cgroup-churn finding, but rates: $(jq -c '.rates // "absent" | if type == "object" then {source, live, window_s} else . end' "$OUT")"
jq -e '.findings[] | select(.id == "test-fuse-churn") | .evidence | any(test("forks in [0-9.]+ s"))' \
	"$OUT" >/dev/null ||
	live_fail "test-fuse-churn has no fork count in its evidence: $(jq -c '.findings[] | select(.id == "test-fuse-churn") | .evidence' "$OUT" | head -c 400)"
[ "$CG_RC" = 1 ] || live_fail "exit $CG_RC, want 1"
live_pass

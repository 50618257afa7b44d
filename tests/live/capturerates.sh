#!/bin/bash
# live-capturerates: the cgroup activity counts a live check measured travel in its capture.
# A task blocked on an uninitialised FUSE mount is matched by a local signature whose
# correlator (cgroup-churn) takes its evidence from the counts, so `check --capture DIR`
# counts over 1 s and writes DIR/cgwatch/rates. `check --root DIR` then reports the counts,
# window and source the live run had: the rates object of the replay is the live one's
# (source, window_s, events, forks, cgroups; live false, captured true, its first note
# "counted on the host with perf over 1.0 s (captured)" or "... from /proc/cgroups and
# /proc/stat ..."), and so are the finding's evidence lines of the counts. A copy of the tree with a malformed
# rates file replays with "cgwatch/rates: line N:" on stderr and in the report's unreadable
# files, counts from the tree's /proc files as a tree without it does ("counts, no rates"),
# and the same findings.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init_fuse capturerates jq timeout awk cp sed

mkdir "$LIVE_TMP/sigs" || live_fail "setup: mkdir"
cat >"$LIVE_TMP/sigs/test-fuse-churn.conf" <<'SIG' || live_fail "setup: cannot write the signature"
[signature]
id          = test-fuse-churn
severity    = warning
priority    = 99
states      = D
correlator  = cgroup-churn
title       = A FUSE wait, as a signature whose correlator needs the cgroup activity counts
summary     = Test signature of tests/live/capturerates.sh.
explanation = Matches what fuse-wait matches, with the cgroup-churn correlator.

[match]
frame = fuse_get_req
SIG
cat >"$LIVE_TMP/local.conf" <<CONF || live_fail "setup: cannot write the configuration"
[thresholds]
starved = 86400
[signatures]
local = $LIVE_TMP/sigs
CONF

live_fuse_child
CAP=$LIVE_TMP/cap
capture_run "$CAP" --config "$LIVE_TMP/local.conf" --all --threshold 0
L=$LIVE_TMP/live.json R=$LIVE_TMP/replay.json
[ "$(jq -r --argjson t "$CHILD" '.tasks[]? | select(.tid == $t) | .signature' "$L")" = test-fuse-churn ] ||
	live_fail "child $CHILD not matched by test-fuse-churn live: $(live_summary "$L")"
jq -e '.rates.live == true and .rates.window_s >= 0.9' "$L" >/dev/null ||
	live_fail "the live check did not count: rates $(jq -c '.rates // "absent" | if type == "object" then {source, live, window_s} else . end' "$L")"
[ -s "$CAP/cgwatch/rates" ] || live_fail "no $CAP/cgwatch/rates after a check that counted: $(ls "$CAP/cgwatch" | tr '\n' ' ')"
capture_compare

# the counts as the live run had them
key='.rates | {source, window_s, events, forks, cgroups}'
a=$(jq -cS "$key" "$L") b=$(jq -cS "$key" "$R")
[ "$a" = "$b" ] || live_fail "rates differ: live $(head -c 600 <<<"$a") replay $(head -c 600 <<<"$b")"
src=$(jq -r .rates.source "$L")
case $src in
perf) want="counted on the host with perf over 1.0 s (captured)" ;;
*) want="counted on the host from /proc/cgroups and /proc/stat over 1.0 s (captured)" ;;
esac
jq -e --arg w "$want" '.rates.live == false and .rates.captured == true and .rates.notes[0] == $w' "$R" >/dev/null ||
	live_fail "replay rates: $(jq -c '.rates | {live, captured, notes}' "$R" | head -c 400), want the note '$want'"
# the evidence lines of the counts (a task's line names "now" at the end of the scan, which
# the capture's clock file holds as of a moment later: not compared here)
ev='[.findings[]? | select(.id == "test-fuse-churn") | .evidence[] | select(test("tracepoint|/proc/cgroups|/proc/stat|forks|not counted|not measured"))]'
a=$(jq -c "$ev" "$L") b=$(jq -c "$ev" "$R")
[ "$a" != "[]" ] && [ "$a" = "$b" ] ||
	live_fail "the finding's evidence of the counts differs: live $(head -c 500 <<<"$a") replay $(head -c 500 <<<"$b")"
jq -e --arg w "$want" '[.findings[]? | select(.id == "test-fuse-churn") | .evidence[]] | any(test("forks in 1\\.0 s"))' "$R" >/dev/null ||
	live_fail "no fork count over the window in the replayed evidence: $(head -c 400 <<<"$b")"

# a malformed rates file: said with its line, and the replay counts from the tree
BAD=$LIVE_TMP/bad
cp -a "$CAP" "$BAD" || live_fail "setup: cp -a $CAP $BAD"
n=$(grep -n '^window ' "$BAD/cgwatch/rates" | cut -d: -f1)
sed -i 's/^window .*/window soon/' "$BAD/cgwatch/rates" || live_fail "setup: sed"
live_cgwatch "$LIVE_TMP/bad.json" "$LIVE_TMP/bad.err" check --format json --config "$LIVE_TMP/local.conf" --all --threshold 0 --root "$BAD"
live_json_check "$LIVE_TMP/bad.json" "check --root (a malformed cgwatch/rates)"
grep -q "cgwatch/rates: line $n: not a time" "$LIVE_TMP/bad.err" ||
	live_fail "a malformed cgwatch/rates (line $n): stderr $(head -c 400 "$LIVE_TMP/bad.err")"
jq -e --arg n "$n" '.scan.unreadable_files | any(.path == "cgwatch/rates" and (.why | startswith("line " + $n + ":")))' "$LIVE_TMP/bad.json" >/dev/null ||
	live_fail "the report does not name cgwatch/rates: $(jq -c .scan.unreadable_files "$LIVE_TMP/bad.json" | head -c 400)"
jq -e '.rates.captured == false and .rates.window_s == 0 and (.rates.notes | any(test("counts, no rates")))' "$LIVE_TMP/bad.json" >/dev/null ||
	live_fail "with a malformed cgwatch/rates the replay did not count from the tree: $(jq -c '.rates | {source, captured, window_s, notes}' "$LIVE_TMP/bad.json" | head -c 400)"
k='[.findings[]? | {id, cause, severity, tasks}] | sort_by(.id, .cause)'
[ "$(jq -c "$k" "$LIVE_TMP/bad.json")" = "$(jq -c "$k" "$R")" ] && [ "$CG_RC" = "$REPLAY_RC" ] ||
	live_fail "a malformed cgwatch/rates changed the findings: $(jq -c "$k" "$LIVE_TMP/bad.json" | head -c 400) (exit $CG_RC)"
live_pass "rates ($src, $(jq -r .rates.window_s "$L") s) replayed as captured; a malformed file named at line $n"

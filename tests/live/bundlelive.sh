#!/bin/bash
# live-bundlelive: `cgwatch bundle -o FILE` of this host while a task is stuck on a FUSE mount
# that never answers: the bundle is written (exit 0, its name printed), it verifies intact,
# its own report.json names the stuck task under fuse-wait with the mount as cause, and
# `check --root FILE` replays it to that report, durations included: the time the task had
# been blocked when the bundle was made, not when it is replayed. The capture directory is
# gone afterwards. Its manifest says what this host's kernel allowed (kernel_features), as a
# check here does.
. "$(dirname "$0")/lib.sh"
live_init_fuse bundlelive timeout awk jq zstd tar
live_fuse_child

CONF=$LIVE_TMP/cgwatch.conf
printf '[thresholds]\nblocked_warning = 1\n' >"$CONF" || live_fail "setup: $CONF"
sleep 2
OUT=$LIVE_TMP/host.tar.zst
CAPS_BEFORE=$(ls -d /tmp/cgwatch-capture-* 2>/dev/null | wc -l)
T0=$(live_now)
timeout -k 2 60 "$CGWATCH" bundle --config "$CONF" -o "$OUT" >"$LIVE_TMP/out" 2>"$LIVE_TMP/err" 3>&-
RC=$?
T1=$(live_now)
msg="rc=$RC out=$(head -c 200 "$LIVE_TMP/out") err=$(head -c 300 "$LIVE_TMP/err" | cat -v)"
[ "$RC" = 0 ] || live_fail "bundle exit $RC, want 0: $msg"
grep -q "^$OUT: [0-9]* members" "$LIVE_TMP/out" || live_fail "bundle did not name the file it wrote: $msg"
CAPS_AFTER=$(ls -d /tmp/cgwatch-capture-* 2>/dev/null | wc -l)
[ "$CAPS_AFTER" -le "$CAPS_BEFORE" ] || live_fail "the capture directory is left in /tmp"

timeout -k 2 30 "$CGWATCH" bundle --verify "$OUT" >"$LIVE_TMP/verify" 2>&1 3>&- ||
	live_fail "bundle --verify: $(head -c 300 "$LIVE_TMP/verify")"

# what this host's kernel allowed: the manifest's kernel_features, each program loaded
# ("available": the capture itself reads /proc) or refused with a reason, as a check here says
MAN=$(zstd -dc "$OUT" | tar -xOf - manifest.json) || live_fail "no manifest.json in the bundle"
jq -e --arg r "$(uname -r)" '.kernel_features.release == $r and .kernel_features.scan_source == "proc" and
	([.kernel_features.features[] | select(.name | test("^(task-walker|task-iterator|runq-program)$")) |
	  (.state == "available" or .state == "refused") and (.why | length > 0)] == [true, true, true])' \
	<<<"$MAN" >/dev/null || live_fail "manifest.json's kernel_features: $(jq -c .kernel_features <<<"$MAN" | head -c 600)"
live_cgwatch "$LIVE_TMP/here.json" "$LIVE_TMP/here.err" check --format json --config "$CONF"
w=$(jq -r '.kernel_features.features[] | select(.name == "task-iterator") | .state' <<<"$MAN")
h=$(live_kernel_feature "$LIVE_TMP/here.json" task-iterator)
case "${h%%:*} $w" in
"used available"|"refused refused") ;;
*) live_fail "the manifest says the task iterator is $w, a check here says $h" ;;
esac
REP=$(zstd -dc "$OUT" | tar -xOf - report.json) || live_fail "no report.json in the bundle"
lo=$(awk -v s="$T_START" -v t="$T0" 'BEGIN { printf "%.3f", t - s }')
hi=$(awk -v s="$T_START" -v t="$T1" 'BEGIN { printf "%.3f", t - s }')
f=$(jq -c --argjson t "$CHILD" '[.findings[] | select(.id == "fuse-wait" and (.tasks | index($t)))][0]' <<<"$REP")
[ "$f" != null ] || live_fail "report.json has no fuse-wait finding of $CHILD: $(jq -c '[.findings[] | {id, tasks}]' <<<"$REP")"
cause=$(jq -r '.cause' <<<"$f")
[ "$cause" = "mount $MNT" ] || live_fail "cause '$cause', want 'mount $MNT'"
b=$(jq --argjson t "$CHILD" '.tasks[] | select(.tid == $t) | .blocked_s' <<<"$REP")
awk -v b="$b" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(b >= lo - 0.2 && b <= hi + 0.2) }' ||
	live_fail "blocked_s $b in the bundle, the task had been blocked $lo..$hi s while it was made"

# replayed from the archive, later: the same findings and the times of the capture
sleep 1
timeout -k 2 30 "$CGWATCH" check --config "$CONF" --root "$OUT" --format json >"$LIVE_TMP/replay.json" 2>"$LIVE_TMP/replay.err" 3>&-
RRC=$?
[ "$RRC" = 1 ] || live_fail "check --root FILE exit $RRC, want 1: $(head -c 300 "$LIVE_TMP/replay.err")"
norm='[.findings[] | {id, cause, severity, tasks: (.tasks | sort), cpus}] | sort_by(.id, .cause)'
a=$(jq -c "$norm" <<<"$REP")
r=$(jq -c "$norm" "$LIVE_TMP/replay.json")
[ "$a" = "$r" ] || live_fail "the replay differs: bundle $a, replay $r"
rb=$(jq --argjson t "$CHILD" '.tasks[] | select(.tid == $t) | .blocked_s' "$LIVE_TMP/replay.json")
[ "$rb" = "$b" ] || live_fail "replayed blocked_s $rb, the bundle's $b"
live_pass "fuse-wait of $CHILD, cause $cause, ${b} s (blocked $lo..$hi s while bundled)"

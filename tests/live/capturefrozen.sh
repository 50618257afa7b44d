#!/bin/bash
# live-capturefrozen: a sleeper frozen in a v1 freezer cgroup (state D, its nanosleep stack:
# only freezer.state tells). `check --capture DIR` then `check --root DIR`: the same findings
# (frozen, info, cause "cgroup ...") and times within 0.1 s; the tree holds the freezer.state
# the live run read, under sys/. Through an archive: `bundle --root DIR -o FILE`, then
# `check --root FILE` (the archive itself) gives the live run's findings and times (within
# 0.1 s); and `cgwatch bundle -o FILE` of this host, replayed from the file, gives the report
# inside the bundle (made when it was: a later bundle has later times), the sleeper frozen.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init capturefrozen
live_require_root
live_require_tools jq timeout awk find stat zstd tar
live_require_binary
live_mktemp

FZ=/sys/fs/cgroup/freezer
[ -f "$FZ/tasks" ] || live_skip "no cgroup v1 freezer hierarchy at $FZ"
CG=$FZ/cgwatch-capture-$$
live_frozen_sleeper "$CG"

sleep 2
CAP=$LIVE_TMP/cap
capture_run "$CAP" --threshold 1
f=$(jq -c --argjson c "$SLEEPER" '[.findings[]? | select(.tasks | index($c))][0] // empty' "$LIVE_TMP/live.json")
[ "$(jq -r '.id + " " + .severity' <<<"$f")" = "frozen info" ] ||
	live_fail "live finding of $SLEEPER: $(head -c 300 <<<"$f"), want frozen info"
# the cause names the cgroup that is frozen: the v1 freezer's, not the task's v2 cgroup
[ "$(jq -r .cause <<<"$f")" = "cgroup ${CG#$FZ}" ] ||
	live_fail "live cause of $SLEEPER: $(jq -r .cause <<<"$f"), want cgroup ${CG#$FZ}"
jq -e --arg cg "${CG#$FZ}" '[.evidence[]? | select(contains("freezer cgroup " + $cg))] | length > 0' <<<"$f" >/dev/null ||
	live_fail "the evidence does not name freezer cgroup ${CG#$FZ}: $(jq -c .evidence <<<"$f" | head -c 400)"
capture_compare
capture_modes "$CAP"
[ "$(cat "$CAP${CG}/freezer.state" 2>/dev/null)" = FROZEN ] ||
	live_fail "the tree lacks ${CG#/}/freezer.state reading FROZEN"

# ---- the capture through an archive: bundle --root DIR, replayed from the file ----
B=$LIVE_TMP/cap.tar.zst
timeout -k 2 30 "$CGWATCH" bundle --root "$CAP" -o "$B" >"$LIVE_TMP/b.out" 2>"$LIVE_TMP/b.err" 3>&- ||
	live_fail "bundle --root the capture: $(head -c 300 "$LIVE_TMP/b.err")"
cp "$LIVE_TMP/replay.json" "$LIVE_TMP/replay-dir.json"
live_cgwatch "$LIVE_TMP/replay.json" "$LIVE_TMP/archive.err" check --format json --threshold 1 --root "$B"
REPLAY_RC=$CG_RC
live_json_check "$LIVE_TMP/replay.json" "check --root (the capture's bundle)"
capture_compare
f=$(jq -r --argjson c "$SLEEPER" '[.findings[]? | select(.tasks | index($c)) | .id + " " + .severity][0] // "none"' "$LIVE_TMP/replay.json")
[ "$f" = "frozen info" ] || live_fail "the capture's bundle replays $SLEEPER as $f, want frozen info"

# ---- this host bundled live, replayed from the file: the report inside the bundle ----
CONF=$LIVE_TMP/cgwatch.conf
printf '[thresholds]\nblocked_warning = 1\n' >"$CONF" || live_fail "setup: $CONF"
H=$LIVE_TMP/host.tar.zst
TMPDIR=$LIVE_TMP timeout -k 2 30 "$CGWATCH" bundle --config "$CONF" -o "$H" >"$LIVE_TMP/h.out" 2>"$LIVE_TMP/h.err" 3>&- ||
	live_fail "bundle of this host: $(head -c 300 "$LIVE_TMP/h.err")"
timeout 10 zstd -dc "$H" | timeout 10 tar -xOf - report.json >"$LIVE_TMP/live.json" ||
	live_fail "no report.json in the host's bundle"
LIVE_RC=$(timeout 10 zstd -dc "$H" | timeout 10 tar -xOf - manifest.json | jq .check_exit)
live_cgwatch "$LIVE_TMP/replay.json" "$LIVE_TMP/host.err" check --config "$CONF" --format json --root "$H"
REPLAY_RC=$CG_RC
live_json_check "$LIVE_TMP/replay.json" "check --root (the host's bundle)"
capture_compare
f=$(jq -r --argjson c "$SLEEPER" '[.findings[]? | select(.tasks | index($c)) | .id + " " + .severity][0] // "none"' "$LIVE_TMP/replay.json")
[ "$f" = "frozen info" ] || live_fail "the host's bundle replays $SLEEPER as $f, want frozen info"
live_pass "$NCMP findings replayed alike from the host's bundle; the capture's alike from the directory and its bundle"

#!/bin/bash
# live-capturetimeout: a capture meets a read of a live task's file that does not return. The
# helper tests/live/mmaphold serves a FUSE mount that never answers a READ; its victim process
# has a "holder" thread whose read of its own mapping of a file there holds the mmap_lock
# (D, in fuse), a "writer" thread in munmap that waits for the lock exclusive (D, mmap-lock),
# and a "waiter" thread in a stat under the mount (D, fuse-wait): cgwatch reads the path the
# waiter's stat names from its memory, and that read waits for the mmap_lock behind the
# writer (as /proc/PID/cmdline does, which the setup checks). `check --capture DIR` returns
# within the deadline (read_timeout 1 s here, exit 1), its DIR/cgwatch/unreadable lists the
# memory read as timed-out ("timed out after 1 s"), the rest of the tree is there (the
# waiter's stat, sched, stack, syscall) and `check --root DIR` replays it to the same findings
# (the waiter's fuse-wait, without a cause) and times within 0.1 s. `cgwatch bundle` of the
# host likewise: within the deadline, its manifest's "unreadable" lists the timed-out read,
# --verify passes, and `check --root FILE` reports the waiter.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init capturetimeout
live_require_root
live_require_fuse
live_require_tools timeout awk jq zstd tar find
live_require_helpers mmaphold
live_require_binary
live_mktemp
export TMPDIR=$LIVE_TMP               # the live bundle's capture directory: ours, checked below

# mmaphold on MNT; cleanups (reverse order): kill the server (aborts the connection, which
# releases every thread of the victim), the victim (dies with the server), then unmount
MNT=$LIVE_TMP/mnt
mkdir "$MNT" || live_fail "setup: mkdir $MNT"
live_on_exit 'live_umount "$MNT"'
live_on_exit 'live_kill_task "$VICTIM"'
live_on_exit 'live_kill_wait "$HELPER"'
"$LIVE_BIN/mmaphold" "$MNT" >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- </dev/null &
HELPER=$!
ready() { grep -q '^victim ' "$LIVE_TMP/helper.out" && VICTIM=$(awk '/^victim /{print $2}' "$LIVE_TMP/helper.out"); grep -qx ready "$LIVE_TMP/helper.out"; }
live_wait_for 10 ready || live_fail "setup: mmaphold: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err" | tr '\n' ' ')"
for role in holder waiter writer; do
	declare "$role=$(awk -v r="$role" '$1 == r {print $2}' "$LIVE_TMP/helper.out")"
done
[ -n "$holder" ] && [ -n "$waiter" ] && [ -n "$writer" ] || live_fail "setup: mmaphold printed no tids: $(tr '\n' ' ' <"$LIVE_TMP/helper.out")"
# the victim's memory map is locked: a reader of its command line waits
timeout -k 1 1 cat "/proc/$VICTIM/cmdline" >/dev/null 3>&-
[ $? = 124 ] || live_fail "setup: /proc/$VICTIM/cmdline did not block (the mmap_lock is not held)"

CONF=$LIVE_TMP/cgwatch.conf
printf '[scan]\nread_timeout = 1\n[thresholds]\nblocked_warning = 1\n' >"$CONF" || live_fail "setup: $CONF"
sleep 1.5

# ---- check --capture, then its replay ----
CAP=$LIVE_TMP/cap
live_cgwatch "$LIVE_TMP/live.json" "$LIVE_TMP/live.err" check --config "$CONF" --format json --capture "$CAP"
LIVE_RC=$CG_RC
TOOK=$(awk -v a="$CG_T_BEFORE" -v b="$CG_T_AFTER" 'BEGIN { printf "%.2f", b - a }')
live_json_check "$LIVE_TMP/live.json" "check --capture"
[ "$LIVE_RC" = 1 ] || live_fail "check --capture exit $LIVE_RC, want 1: $(head -c 300 "$LIVE_TMP/live.err")"
# one memory read waits its deadline (1 s); the rest is quick: well within check_timeout
awk -v t="$TOOK" 'BEGIN { exit !(t < 6) }' || live_fail "check --capture took $TOOK s"
finding_of() { jq -r --argjson t "$2" '[.findings[]? | select(.tasks | index($t)) | .id + ":" + (.cause // "-")][0] // "none"' "$1"; }
f=$(finding_of "$LIVE_TMP/live.json" "$waiter")
[ "$f" = fuse-wait:- ] || live_fail "live finding of the waiter $waiter: $f, want fuse-wait without a cause: $(live_summary "$LIVE_TMP/live.json")"
# the read that timed out is evidence: the path was not read, and why
ev=$(jq -r --argjson t "$waiter" '[.findings[]? | select(.tasks | index($t)) | .evidence[]?] | map(select(test("^(PID|TID) " + ($t | tostring) + " waits in "))) | .[0] // ""' "$LIVE_TMP/live.json")
grep -q "a path not read: reading it from its memory timed out after 1 s" <<<"$ev" ||
	live_fail "the waiter's evidence does not say its path read timed out: '$ev'"
f=$(finding_of "$LIVE_TMP/live.json" "$writer")
[ "${f%%:*}" = mmap-lock ] || live_fail "live finding of the writer $writer: $f, want mmap-lock"
UNR=$CAP/cgwatch/unreadable
[ -f "$UNR" ] || live_fail "no $UNR"
line=$(grep -E "^timed-out cgwatch/mem/$waiter-[0-9a-f]+ " "$UNR")
[ -n "$line" ] || live_fail "cgwatch/unreadable does not list the waiter's memory read as timed-out: $(head -c 600 "$UNR" | tr '\n' '|')"
grep -q 'timed out after 1 s$' <<<"$line" || live_fail "cgwatch/unreadable: '$line' does not say it timed out after 1 s"
for f in stat sched stack syscall; do
	[ -s "$CAP/proc/$VICTIM/task/$waiter/$f" ] || live_fail "the tree lacks proc/$VICTIM/task/$waiter/$f"
done
live_cgwatch "$LIVE_TMP/replay.json" "$LIVE_TMP/replay.err" check --config "$CONF" --format json --root "$CAP"
REPLAY_RC=$CG_RC
live_json_check "$LIVE_TMP/replay.json" "check --root (the capture)"
capture_compare
f=$(finding_of "$LIVE_TMP/replay.json" "$waiter")
[ "$f" = fuse-wait:- ] || live_fail "replayed finding of the waiter: $f"

# ---- cgwatch bundle of this host ----
OUT=$LIVE_TMP/host.tar.zst
T0=$(live_now)
timeout -k 2 30 "$CGWATCH" bundle --config "$CONF" -o "$OUT" >"$LIVE_TMP/b.out" 2>"$LIVE_TMP/b.err" 3>&-
RC=$?
BTOOK=$(live_elapsed_since "$T0")
msg="rc=$RC took ${BTOOK}s out=$(head -c 200 "$LIVE_TMP/b.out") err=$(head -c 300 "$LIVE_TMP/b.err" | cat -v)"
[ "$RC" = 0 ] || live_fail "bundle exit $RC, want 0: $msg"
awk -v t="$BTOOK" 'BEGIN { exit !(t < 8) }' || live_fail "bundle took too long: $msg"
left=$(find "$LIVE_TMP" -maxdepth 1 -name 'cgwatch-capture-*' | head -1)
[ -z "$left" ] || live_fail "the bundle's capture directory is left: $left"
MAN=$(timeout 10 zstd -dc "$OUT" | timeout 10 tar -xOf - manifest.json) || live_fail "no manifest.json: $msg"
jq -e --arg w "$waiter" '.unreadable | any((.path | startswith("tree/cgwatch/mem/" + $w + "-")) and (.why | test("timed out after 1 s")))' \
	<<<"$MAN" >/dev/null || live_fail "the manifest's unreadable does not list the waiter's memory read as timed out: $(jq -c .unreadable <<<"$MAN" | head -c 600)"
timeout -k 2 30 "$CGWATCH" bundle --verify "$OUT" >"$LIVE_TMP/verify" 2>&1 3>&- ||
	live_fail "bundle --verify: $(head -c 300 "$LIVE_TMP/verify")"
live_cgwatch "$LIVE_TMP/breplay.json" "$LIVE_TMP/breplay.err" check --config "$CONF" --format json --root "$OUT"
[ "$CG_RC" = 1 ] || live_fail "check --root the bundle: exit $CG_RC: $(head -c 300 "$LIVE_TMP/breplay.err")"
f=$(finding_of "$LIVE_TMP/breplay.json" "$waiter")
[ "$f" = fuse-wait:- ] || live_fail "the bundle replays the waiter as $f"
live_pass "check --capture in $TOOK s, bundle in $BTOOK s; the waiter's memory read listed as timed out, $NCMP findings replayed alike"

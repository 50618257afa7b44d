#!/bin/bash
# live-capturefuse: a task stuck on a FUSE mount that never answers (stat of a path under it).
# `check --capture DIR` writes a tree that `check --root DIR` replays to the same findings
# (id, cause "mount ...", severity, tasks, chain, cpus), the same exit code and every blocked
# time within 0.1 s; the cause comes from the stat() path as the live run read it from the
# task's memory (DIR/cgwatch/mem); a second task, in a mount namespace of its own, keeps its
# cause through its own mountinfo in the tree. Replayed 2 s later with other user names in
# /etc/passwd, its tasks keep the live user, unit and start. The tree is 0700/0600; a second capture into
# the same (non-empty) directory and --capture with --root are usage errors (exit 2), leaving
# it as is.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init_fuse capturefuse jq timeout awk find stat unshare
live_fuse_child
# a second one in a mount namespace of its own (a container's, a service's PrivateTmp=): its
# mount is only in its own mountinfo, which the capture keeps for the replay
NSMNT=$LIVE_TMP/ns-mnt
mkdir "$NSMNT" || live_fail "setup: mkdir $NSMNT"
live_on_exit 'live_kill_task "$NSCHILD"'
live_on_exit 'live_kill_wait "$NSHELPER"'
unshare -m --propagation private "$LIVE_BIN/fusehold" "$NSMNT" --child >"$LIVE_TMP/ns.out" 2>"$LIVE_TMP/ns.err" 3>&- &
NSHELPER=$!
ns_line() { grep -q '^child ' "$LIVE_TMP/ns.out"; }
live_wait_for 5 ns_line || live_fail "setup: fusehold in its own namespace: $(cat "$LIVE_TMP/ns.out" "$LIVE_TMP/ns.err")"
read -r _ NSCHILD _ < <(grep '^child ' "$LIVE_TMP/ns.out")
ns_wait() { [ "$(live_task_state "$NSCHILD")" = D ] && grep -q fuse_get_req "/proc/$NSCHILD/stack"; }
live_wait_for 5 ns_wait || live_fail "setup: child $NSCHILD not in D in fuse_get_req"

sleep 2
CAP=$LIVE_TMP/cap
capture_run "$CAP" --threshold 1
[ "$LIVE_RC" = 1 ] || live_fail "live exit code $LIVE_RC, want 1: $(live_summary "$LIVE_TMP/live.json")"
f=$(jq -c --argjson c "$CHILD" '[.findings[]? | select(.id == "fuse-wait" and (.tasks | index($c)))][0] // empty' "$LIVE_TMP/live.json")
[ -n "$f" ] || live_fail "no live fuse-wait finding for $CHILD: $(live_summary "$LIVE_TMP/live.json")"
[ "$(jq -r .cause <<<"$f")" = "mount $MNT" ] || live_fail "live cause $(jq -r .cause <<<"$f"), want mount $MNT"
nsf=$(jq -r --argjson c "$NSCHILD" '[.findings[]? | select(.tasks | index($c)) | .cause][0] // "none"' "$LIVE_TMP/live.json")
[ "$nsf" = "mount $NSMNT" ] || live_fail "live cause of $NSCHILD (own namespace): $nsf, want mount $NSMNT"
capture_compare
capture_modes "$CAP"
[ -f "$CAP/proc/self/sched" ] && [ -f "$CAP/proc/$CHILD/task/$CHILD/stack" ] ||
	live_fail "the tree lacks proc/self/sched or the child's stack: $(cd "$CAP" && find . | head -20 | tr '\n' ' ')"

# Replayed elsewhere, later: another machine's user names (here root is named "elsewhere" in a
# bind-mounted /etc/passwd) and another moment (2 s later). The finding tasks' user, unit and
# start are still the live run's (DIR/cgwatch/detail/TGID), not what libproc2 says there.
sleep 2.1
sed 's/^root:/elsewhere:/' /etc/passwd >"$LIVE_TMP/passwd.elsewhere" || live_fail "setup: passwd copy"
CG_T_BEFORE=$(live_now)
timeout -k 2 "$LIVE_CG_TIMEOUT" unshare -m --propagation private sh -c \
	'mount --bind "$1" /etc/passwd && exec "$2" check --format json --threshold 1 --root "$3"' \
	sh "$LIVE_TMP/passwd.elsewhere" "$CGWATCH" "$CAP" >"$LIVE_TMP/elsewhere.json" 2>"$LIVE_TMP/elsewhere.err" 3>&-
live_json_check "$LIVE_TMP/elsewhere.json" "check --root elsewhere"
who='[.findings[]?.tasks[]?] as $f | [.tasks[]? | select(.tid as $t | $f | index($t)) | {tid, user, unit, started}] | sort_by(.tid)'
a=$(jq -c "$who" "$LIVE_TMP/live.json") b=$(jq -c "$who" "$LIVE_TMP/elsewhere.json")
jq -e 'length > 0 and all(.user != "" and .started != null)' <<<"$a" >/dev/null ||
	live_fail "live tasks without user or start: $(head -c 400 <<<"$a")"
[ "$a" = "$b" ] || live_fail "user, unit or start differ replayed elsewhere: live $(head -c 500 <<<"$a") replay $(head -c 500 <<<"$b")"
[ -s "$CAP/cgwatch/detail/$CHILD" ] || live_fail "no cgwatch/detail/$CHILD in the tree"
# a detail file that is not one: named, the rest of the replay as before
cp "$CAP/cgwatch/detail/$CHILD" "$LIVE_TMP/detail.keep"
printf 'cgwatch-detail 1\nuser \001\n' >"$CAP/cgwatch/detail/$CHILD"
live_cgwatch "$LIVE_TMP/baddetail.json" "$LIVE_TMP/baddetail.err" check --format json --threshold 1 --root "$CAP"
cp "$LIVE_TMP/detail.keep" "$CAP/cgwatch/detail/$CHILD"
[ "$CG_RC" = "$REPLAY_RC" ] || live_fail "a bad detail file: exit $CG_RC, want $REPLAY_RC"
jq -e --arg p "cgwatch/detail/$CHILD" '[.scan.unreadable_files[] | select(.path == $p and (.why | test("not a detail file")))] | length == 1' \
	"$LIVE_TMP/baddetail.json" >/dev/null || live_fail "a bad detail file is not named: $(jq -c .scan.unreadable_files "$LIVE_TMP/baddetail.json" | head -c 400)"

before=$(find "$CAP" | wc -l)
live_cgwatch "$LIVE_TMP/again.json" "$LIVE_TMP/again.err" check --format json --capture "$CAP"
[ "$CG_RC" = 2 ] || live_fail "a capture into a non-empty directory: exit $CG_RC, want 2"
[ "$(find "$CAP" | wc -l)" = "$before" ] || live_fail "a refused capture changed the tree"
live_cgwatch "$LIVE_TMP/both.json" "$LIVE_TMP/both.err" check --root "$CAP" --capture "$LIVE_TMP/cap2"
[ "$CG_RC" = 2 ] || live_fail "--capture with --root: exit $CG_RC, want 2"
[ ! -e "$LIVE_TMP/cap2" ] || live_fail "--capture with --root made $LIVE_TMP/cap2"
live_pass "$NCMP findings replayed alike, causes mount $MNT and (own namespace) mount $NSMNT"

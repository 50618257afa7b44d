#!/bin/bash
# live-bundlestuck: `cgwatch bundle --root DIR` of a tree in which a file and a directory sit
# on FUSE mounts that never answer: the bundle is written within the deadlines (each stuck
# entry costs read_timeout, never a hang), the manifest lists both as unreadable ("timed out
# after 2 s") with the rest of the tree complete, and the bundle still replays to the findings
# of the tree. A bundle file on a FUSE mount that never answers: check --root FILE exits 3
# within the deadline, saying it timed out.
. "$(dirname "$0")/lib.sh"
live_init bundlestuck
live_require_root
live_require_fuse
live_require_tools timeout awk jq zstd tar
live_require_helpers fusehold
live_require_binary
live_mktemp

TREE=$LIVE_TMP/tree
cp -a "$LIVE_REPO/tests/fixtures/fuse-mounts" "$TREE" || live_fail "setup: copy the fixture"
STUCKF=$TREE/proc/4100/task/4100/wchan
STUCKD=$TREE/sys/stuck
mkdir "$STUCKD" || live_fail "setup: mkdir"
live_on_exit 'live_umount "$STUCKF"; live_umount "$STUCKD"'
live_on_exit 'live_kill_wait "$H1"; live_kill_wait "$H2"'
"$LIVE_BIN/fusehold" --file "$STUCKF" >"$LIVE_TMP/h1.out" 2>&1 3>&- &
H1=$!
"$LIVE_BIN/fusehold" "$STUCKD" >"$LIVE_TMP/h2.out" 2>&1 3>&- &
H2=$!
mounted() { grep -q '^mounted' "$LIVE_TMP/h1.out" && grep -q '^mounted' "$LIVE_TMP/h2.out"; }
live_wait_for 5 mounted || live_fail "setup: fusehold: $(cat "$LIVE_TMP"/h?.out)"

OUT=$LIVE_TMP/b.tar.zst
T0=$(live_now)
timeout -k 2 30 "$CGWATCH" bundle --root "$TREE" -o "$OUT" >"$LIVE_TMP/out" 2>"$LIVE_TMP/err" 3>&-
RC=$?
ELAPSED=$(live_elapsed_since "$T0")
msg="rc=$RC elapsed=${ELAPSED}s out=$(head -c 200 "$LIVE_TMP/out") err=$(head -c 300 "$LIVE_TMP/err" | cat -v)"
[ "$RC" = 0 ] || live_fail "bundle exit $RC, want 0: $msg"
awk -v e="$ELAPSED" 'BEGIN { exit !(e < 15) }' || live_fail "bundle took too long: $msg"
MAN=$(zstd -dc "$OUT" | tar -xOf - manifest.json) || live_fail "no manifest: $msg"
for p in tree/proc/4100/task/4100/wchan tree/sys/stuck; do
	jq -e --arg p "$p" '.unreadable | any(.path == $p and (.why | test("timed out after 2 s")))' \
		<<<"$MAN" >/dev/null || live_fail "$p is not unreadable (timed out) in the manifest: $(jq -c .unreadable <<<"$MAN")"
done
jq -e '.members | any(.path == "tree/proc/4100/task/4100/stack") and any(.path == "tree/proc/4300/fd/4")' \
	<<<"$MAN" >/dev/null || live_fail "the rest of the tree is not in the bundle"
# the helpers gone, the bundle replays (its wchan missing: the findings are the same)
live_kill_wait "$H1"
live_kill_wait "$H2"
live_umount "$STUCKF"
live_umount "$STUCKD"
timeout 30 "$CGWATCH" check --root "$OUT" --format json >"$LIVE_TMP/b.json" 2>"$LIVE_TMP/b.err" 3>&-
BRC=$?
[ "$BRC" = 1 ] || live_fail "check --root the bundle: exit $BRC: $(head -c 300 "$LIVE_TMP/b.err")"
n=$(jq '[.findings[] | select(.id == "fuse-wait")] | length' "$LIVE_TMP/b.json")
[ "$n" -ge 1 ] || live_fail "the replay has no fuse-wait finding"
# a bundle on a file system that does not answer: check --root gives up within the deadline
STUCKB=$LIVE_TMP/stuck.tar.zst
: >"$STUCKB"
live_on_exit 'live_umount "$STUCKB"'
live_on_exit 'live_kill_wait "$H3"'
"$LIVE_BIN/fusehold" --file "$STUCKB" >"$LIVE_TMP/h3.out" 2>&1 3>&- &
H3=$!
m3() { grep -q '^mounted' "$LIVE_TMP/h3.out"; }
live_wait_for 5 m3 || live_fail "setup: fusehold --file: $(cat "$LIVE_TMP/h3.out")"
T0=$(live_now)
timeout -k 2 20 "$CGWATCH" check --root "$STUCKB" >/dev/null 2>"$LIVE_TMP/s.err" 3>&-
SRC=$?
SEL=$(live_elapsed_since "$T0")
smsg="rc=$SRC elapsed=${SEL}s stderr=$(head -c 300 "$LIVE_TMP/s.err" | cat -v)"
[ "$SRC" = 3 ] || live_fail "check --root on a stuck bundle: exit $SRC, want 3: $smsg"
awk -v e="$SEL" 'BEGIN { exit !(e < 6) }' || live_fail "check --root on a stuck bundle took too long: $smsg"
grep -qF -- "$STUCKB" "$LIVE_TMP/s.err" && grep -q 'timed out' "$LIVE_TMP/s.err" ||
	live_fail "check --root on a stuck bundle: no timeout named: $smsg"
live_pass "bundled in ${ELAPSED}s"

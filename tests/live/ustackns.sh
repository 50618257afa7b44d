#!/bin/bash
# live-ustackns: a blocked program that lives where only its own mount namespace sees it, as
# a service's PrivateTmp binary or a container's. ustackhold-O2 is copied into a tmpfs mounted
# in a private mount namespace of the target's own (unshare -m --propagation private), and
# runs from there as a vfork parent in D; at the same path cgwatch's namespace holds another
# build (ustackhold-fp), so a reader that opens the path from cgwatch's side reads the wrong
# file. check --format json:
#   its frames are __vfork (libc) < middle < outer < main at the -O2 build's own offsets, read
#   from the mapped file itself (its unwind info; names from the file its namespace holds);
#   no ustack_error about its file.
. "$(dirname "$0")/lib.sh"
live_init ustackns
live_require_root
live_require_tools jq unshare mount awk timeout
live_require_helpers ustackhold-O2 ustackhold-fp
live_require_binary
live_mktemp

D=$LIVE_TMP/priv
mkdir -p "$D" || live_fail "setup: mkdir $D"
# cgwatch's side of the path: another build
cp "$LIVE_BIN/ustackhold-fp" "$D/hold" || live_fail "setup: cp fp"
# the target's side: a tmpfs over $D in its own namespace (gone with its last process), the
# -O2 build copied in; unshare and sh exec into the program, so $! is the target
unshare -m --propagation private sh -c 'mount -t tmpfs -o size=16m cgwatch-live "$1" &&
	cp "$2" "$1/hold" && exec "$1/hold" vfork 40' sh "$D" "$LIVE_BIN/ustackhold-O2" \
	>"$LIVE_TMP/t.out" 2>"$LIVE_TMP/t.err" 3>&- </dev/null &
T=$!
live_on_exit "live_kill_wait $T"
_blocked() { grep -q '^blocked ' "$LIVE_TMP/t.out" && [ "$(live_task_state "$T")" = D ]; }
live_wait_for 5 _blocked ||
	live_fail "setup: $D/hold in a private namespace: $(cat "$LIVE_TMP/t.out" "$LIVE_TMP/t.err") state $(live_task_state "$T")"
# and a reference: the same -O2 build from a path both sides see
"$LIVE_BIN/ustackhold-O2" vfork 40 >"$LIVE_TMP/r.out" 2>"$LIVE_TMP/r.err" 3>&- </dev/null &
R=$!
live_on_exit "live_kill_wait $R"
_rblocked() { grep -q '^blocked ' "$LIVE_TMP/r.out" && [ "$(live_task_state "$R")" = D ]; }
live_wait_for 5 _rblocked || live_fail "setup: reference ustackhold-O2: $(cat "$LIVE_TMP/r.out")"
grep -q " $D/hold\$" "/proc/$T/maps" || live_fail "setup: $D/hold not mapped in $T"
[ "$(stat -c %i "$D/hold")" != "$(awk -v p="$D/hold" '$6 == p { print $5; exit }' "/proc/$T/maps")" ] ||
	live_fail "setup: cgwatch's side of $D/hold is the mapped file"
sleep 1.2

CONF=$LIVE_TMP/c.conf
live_conf_check "$CONF" "ustack_max = 100"
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --config "$CONF" --threshold 1 --format json
live_json_check "$OUT" "check --format json"
frames() {
	jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] |
		[.ustack[]? | "\(.symbol // "-")@\(.module | split("/") | last)"] | join(" ")' "$OUT"
}
offsets() {
	jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] | [.ustack[]? | .offset] | join(" ")' "$OUT"
}
uerr() { jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0].ustack_error // ""' "$OUT"; }
f=$(frames "$T") e=$(uerr "$T")
[[ "$f" == "__vfork@libc.so.6 middle@hold outer@hold main@hold"* ]] ||
	live_fail "private namespace: user frames '$f', want __vfork middle outer main; error: $e"
[ "$(offsets "$T")" = "$(offsets "$R")" ] ||
	live_fail "private namespace: offsets '$(offsets "$T")', want the -O2 build's '$(offsets "$R")'"
[[ "$e" != *"file"* ]] || live_fail "private namespace: ustack_error '$e'"
live_pass "a program in a private tmpfs of its own mount namespace (another file at its path here) unwound from its mapped file: $f"

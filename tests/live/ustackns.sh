#!/bin/bash
# live-ustackns: a blocked program that lives where only its own mount namespace sees it, as
# a service's PrivateTmp binary or a container's. ustackhold-O2 is copied into a tmpfs mounted
# in a private mount namespace of the target's own (unshare -m --propagation private), and
# runs from there as a vfork parent in D; at the same path cgwatch's namespace holds another
# build (ustackhold-fp), so a reader that opens the path from cgwatch's side reads the wrong
# file. check --format json:
#   its frames are __vfork (libc) < middle < outer < main at the -O2 build's own offsets, read
#   from the mapped file itself (its unwind info; names from the file its namespace holds);
#   no ustack_error about its file;
# and a program whose directory another mount covers since it started (a tmpfs over it here,
# another build at its path): unwound from the file it maps and named from it (not from the
# other build at its path). Then again without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE, which
# map_files takes: the first still unwound (the path under its root is still the mapped
# file); the covered one stops at its own frame and says why (the file at its path is not the
# one mapped), never unwound nor named from the other build.
. "$(dirname "$0")/lib.sh"
live_init ustackns
live_require_root
live_require_tools jq unshare mount awk timeout setpriv
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
# the covered one: started from $M, then a tmpfs over $M here with the -fp build at its path
M=$LIVE_TMP/cov
mkdir -p "$M" && cp "$LIVE_BIN/ustackhold-O2" "$M/prog" || live_fail "setup: $M/prog"
"$M/prog" vfork 40 >"$LIVE_TMP/c.out" 2>"$LIVE_TMP/c.err" 3>&- </dev/null &
C=$!
live_on_exit "live_kill_wait $C"
_cblocked() { grep -q '^blocked ' "$LIVE_TMP/c.out" && [ "$(live_task_state "$C")" = D ]; }
live_wait_for 5 _cblocked || live_fail "setup: $M/prog: $(cat "$LIVE_TMP/c.out")"
live_on_exit "live_umount $(printf %q "$M")"
mount -t tmpfs -o size=16m cgwatch-live "$M" && cp "$LIVE_BIN/ustackhold-fp" "$M/prog" ||
	live_fail "setup: a tmpfs over $M"
grep -q " $M/prog\$" "/proc/$C/maps" || live_fail "setup: $M/prog not mapped as such in $C"
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
f=$(frames "$C") e=$(uerr "$C")
[[ "$f" == "__vfork@libc.so.6 middle@prog outer@prog main@prog"* ]] && [ "$(offsets "$C")" = "$(offsets "$R")" ] ||
	live_fail "covered: user frames '$f' at '$(offsets "$C")', want __vfork then its own frames named from the file it maps at '$(offsets "$R")'; error: $e"

# without the capabilities map_files takes
OUT=$LIVE_TMP/nocap.json
REAL=$CGWATCH
CGWATCH=$LIVE_TMP/cgwatch-nocap
printf '#!/bin/sh\nexec setpriv --inh-caps=-sys_admin,-checkpoint_restore --bounding-set=-sys_admin,-checkpoint_restore %q "$@"\n' \
	"$REAL" >"$CGWATCH" && chmod 755 "$CGWATCH" || live_fail "setup: cannot write $CGWATCH"
live_cgwatch "$OUT" "$ERR.nocap" check --config "$CONF" --threshold 1 --format json
CGWATCH=$REAL
live_json_check "$OUT" "check --format json without CAP_SYS_ADMIN"
f=$(frames "$T") e=$(uerr "$T")
[[ "$f" == "__vfork@libc.so.6 middle@hold outer@hold main@hold"* ]] ||
	live_fail "private namespace, no map_files: user frames '$f', want __vfork middle outer main; error: $e"
f=$(frames "$C") e=$(uerr "$C")
[ "$f" = "__vfork@libc.so.6 -@prog" ] &&
	[[ "$e" == "user stack ends at $M/prog+0x"*": no unwind info for it: the file at its path is not the one mapped"* ]] ||
	live_fail "covered, no map_files: user frames '$f', error '$e'; want __vfork, its frame unnamed, and the stop said"
live_pass "a program in a private tmpfs of its own mount namespace (another file at its path here) unwound from its mapped file; a covered one from its mapped file, named from it; without map_files the first by its root's path, the covered one stopped and said"

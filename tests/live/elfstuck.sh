#!/bin/bash
# live-elfstuck: naming a frame from a binary that does not answer must not hang the caller.
# A file under a FUSE mount that never answers (fusehold --file) named with a 1 s deadline:
# -ETIMEDOUT within 3 s, "timed out" said; named again, -ETIMEDOUT at once (< 0.5 s: the
# stuck read is not asked again, no second thread stuck); the caller then names its own main
# from its own binary. The same with a good stripped binary whose debug root is the stuck
# mount (the build-id lookup blocks): bounded the same way. The driver,
# tests/live/elfstuck/elfname.c, is linked with cgwatch's objects (BUILD as make's).
. "$(dirname "$0")/lib.sh"
live_init_fuse elfstuck cc strip awk timeout

case ${BUILD:-build} in
/*) OBJ=$BUILD/obj ;;
*) OBJ=$LIVE_REPO/${BUILD:-build}/obj ;;
esac
[ -f "$OBJ/source-elf.o" ] || live_fail "no $OBJ/source-elf.o: run make -C $LIVE_REPO"
live_cgwatch_objs "$OBJ"
NAME=$LIVE_TMP/elfname
timeout 60 cc -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I"$LIVE_REPO/src" "${cg_cflags[@]}" \
	-o "$NAME" "$LIVE_DIR/elfstuck/elfname.c" "${objs[@]}" "${cg_libs[@]}" 2>"$LIVE_TMP/cc.err" ||
	live_fail "could not build elfname: $(head -c 300 "$LIVE_TMP/cc.err")"
strip -o "$LIVE_TMP/stripped" "$NAME" || live_fail "setup: strip"

# check OUT LINE WANT_RC MAX_MS [MIN_MS]: line LINE of OUT has rc WANT_RC within the times
check() {
	local l rc ms
	l=$(sed -n "${2}p" "$1")
	rc=$(sed -n 's/^rc=\(-\{0,1\}[0-9]*\) .*/\1/p' <<<"$l")
	ms=$(sed -n 's/.* ms=\([0-9]*\) .*/\1/p' <<<"$l")
	[ "$rc" = "$3" ] && [ -n "$ms" ] && [ "$ms" -le "$4" ] && [ "$ms" -ge "${5:-0}" ] ||
		live_fail "call $2: '$l', want rc=$3 in ${5:-0}..$4 ms; all: $(tr '\n' '|' <"$1")"
}

# 1. the binary itself on the stuck mount
STUCK=$LIVE_TMP/bin
: >"$STUCK"
live_fusehold bin --file "$STUCK"
timeout -k 2 20 "$NAME" "$STUCK" 1000 1000 1000 >"$LIVE_TMP/out1" 2>&1
RC=$?
[ "$RC" != 124 ] && [ "$RC" != 137 ] || live_fail "elfname on a stuck binary did not return within 20 s"
check "$LIVE_TMP/out1" 1 -110 3000 900          # -ETIMEDOUT after the 1 s deadline
check "$LIVE_TMP/out1" 2 -110 500               # not asked again
grep -q 'timed out after 1000 ms' "$LIVE_TMP/out1" || live_fail "no 'timed out' said: $(cat "$LIVE_TMP/out1")"
check "$LIVE_TMP/out1" 3 0 3000                 # its own main, named
sed -n 3p "$LIVE_TMP/out1" | grep -q ' name=main ' ||
	live_fail "its own main not named: $(sed -n 3p "$LIVE_TMP/out1")"

# 2. a good stripped binary whose debug root is a directory on a stuck mount
mkdir "$LIVE_TMP/dbg"
live_fusehold dbg "$LIVE_TMP/dbg"
timeout -k 2 20 "$NAME" --debug-root "$LIVE_TMP/dbg" "$LIVE_TMP/stripped" 1000 1000 1000 \
	>"$LIVE_TMP/out2" 2>&1
RC=$?
[ "$RC" != 124 ] && [ "$RC" != 137 ] || live_fail "elfname with a stuck debug root did not return within 20 s"
check "$LIVE_TMP/out2" 1 -110 3000 900
check "$LIVE_TMP/out2" 2 -110 500
check "$LIVE_TMP/out2" 3 0 3000

live_pass "a stuck binary and a stuck debug root: -ETIMEDOUT after 1 s, then at once; the caller names its own main"

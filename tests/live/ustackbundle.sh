#!/bin/bash
# live-ustackbundle: captures and bundles carry what a replay needs to unwind the user stacks
# again. A vfork parent (tests/live/ustackhold.c, -O2 -g: __vfork < middle < outer < main),
# run from a copy of the program outside /tmp (a bundle's replay hides /tmp), then
# `check --capture DIR`, `bundle -o FILE` and `bundle --redact`, then the target killed:
#   - DIR holds cgwatch/ustack/TID (the thread unwound, the build-ids of libc and of the
#     program, the memory read) and proc/TID/maps;
#   - `check --root DIR` and `check --root FILE` give the live check's frames, pc for pc,
#     and no ustack_error (so does the bundle's own report.json);
#   - the program's file replaced by another build (ustackhold-fp) at its path: the bundle's
#     replay names the path, the recorded build-id and the one there, and stops at that
#     frame (__vfork, then the program's frame unnamed: no frame from the wrong build);
#   - libc's build-id edited in DIR's file: the replay stops at the first frame and says libc
#     is not on this machine;
#   - the redacted bundle holds no memory (its file says "redacted") and its replay says the
#     memory was left out, with no frames; its report.json keeps the frames.
# And 5 threads of one process in identical stacks under an uninitialised FUSE mount: one
# unwind recorded, and the replay shares it as live (the same frames and ustack_same_as);
# with ustack_max = 1 a thread the live check did not unwind says why, "(as captured)".
. "$(dirname "$0")/lib.sh"
live_init_fuse ustackbundle jq timeout awk readelf zstd tar
live_require_helpers ustackhold-O2 ustackhold-fp

# the program outside /tmp: a bundle's replay mounts a tmpfs over /tmp
BINDIR=$(mktemp -d /var/tmp/cgwatch-live-ustackbundle.XXXXXX) || live_fail "setup: mktemp in /var/tmp"
live_on_exit "rm -rf '$BINDIR'"
PROG=$BINDIR/prog
cp "$LIVE_BIN/ustackhold-O2" "$PROG" || live_fail "setup: cp"
BID=$(readelf -n "$PROG" | awk '/Build ID:/ {print $3; exit}')
OTHER=$(readelf -n "$LIVE_BIN/ustackhold-fp" | awk '/Build ID:/ {print $3; exit}')
LIBC=$(awk '$6 ~ /\/libc\.so\.6$/ {print $6; exit}' /proc/self/maps)
LIBCBID=$(readelf -n "$LIBC" | awk '/Build ID:/ {print $3; exit}')
[ -n "$BID" ] && [ -n "$OTHER" ] && [ "$BID" != "$OTHER" ] && [ -n "$LIBCBID" ] ||
	live_fail "setup: build-ids '$BID' '$OTHER' (libc $LIBC '$LIBCBID')"

"$PROG" vfork 40 >"$LIVE_TMP/t.out" 2>"$LIVE_TMP/t.err" 3>&- </dev/null &
T=$!
live_on_exit "live_kill_wait $T"
_blocked() { grep -q '^blocked ' "$LIVE_TMP/t.out" && [ "$(live_task_state "$T")" = D ]; }
live_wait_for 5 _blocked || live_fail "setup: $PROG: $(cat "$LIVE_TMP/t.out" "$LIVE_TMP/t.err") state $(live_task_state "$T")"
# the FUSE threads; cleanups (reverse order): the FUSE server first (its death releases the
# waiters), the unmount, then the process
MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
SN=
live_on_exit 'live_kill_wait "$SN" 10'
live_fusehold fuse "$MNT"
FUSED=$HELPER
"$PROG" statn "$MNT/y" 5 >"$LIVE_TMP/sn.out" 2>"$LIVE_TMP/sn.err" 3>&- </dev/null &
SN=$!
_sn_all() { [ "$(grep -c '^blocked ' "$LIVE_TMP/sn.out")" = 5 ]; }
live_wait_for 5 _sn_all || live_fail "setup: statn: $(cat "$LIVE_TMP/sn.out" "$LIVE_TMP/sn.err" | head -c 300)"
mapfile -t SNT < <(awk '/^blocked /{print $2}' "$LIVE_TMP/sn.out")
live_wait_for 5 eval 'live_count_state D "${SNT[@]}"; [ "$LIVE_COUNT" = 5 ]' ||
	live_fail "setup: $LIVE_COUNT of the 5 statn threads in D (first not: $LIVE_NOT)"
sleep 1.2

CONF=$LIVE_TMP/c.conf
printf '[thresholds]\nblocked_warning = 1\n[scan]\nustack_max = 1000\n' >"$CONF" || live_fail "setup: $CONF"
CAP=$LIVE_TMP/cap
live_cgwatch "$LIVE_TMP/live.json" "$LIVE_TMP/live.err" check --config "$CONF" --format json --capture "$CAP"
live_json_check "$LIVE_TMP/live.json" "check --capture"
B=$LIVE_TMP/b.tar.zst R=$LIVE_TMP/r.tar.zst
timeout -k 2 30 "$CGWATCH" bundle --config "$CONF" -o "$B" >"$LIVE_TMP/b.out" 2>"$LIVE_TMP/b.err" 3>&- ||
	live_fail "bundle: $(head -c 300 "$LIVE_TMP/b.err")"
timeout -k 2 30 "$CGWATCH" bundle --redact --config "$CONF" -o "$R" >"$LIVE_TMP/r.out" 2>"$LIVE_TMP/r.err" 3>&- ||
	live_fail "bundle --redact: $(head -c 300 "$LIVE_TMP/r.err")"
CONF1=$LIVE_TMP/c1.conf CAP1=$LIVE_TMP/cap1
printf '[thresholds]\nblocked_warning = 1\n[scan]\nustack_max = 1\n' >"$CONF1" || live_fail "setup: $CONF1"
live_cgwatch "$LIVE_TMP/live1.json" "$LIVE_TMP/live1.err" check --config "$CONF1" --format json --capture "$CAP1"
live_json_check "$LIVE_TMP/live1.json" "check --capture (ustack_max = 1)"
live_kill_wait "$T"
live_kill_wait "$FUSED"
live_kill_wait "$SN" 10
[ ! -e "/proc/$T" ] && [ ! -e "/proc/$SN" ] || live_fail "setup: $T or $SN still there after its kill"

# "sym@module-basename" per frame, innermost first; a task's ustack and ustack_error
frames() {
	jq -r --argjson t "$T" '[.tasks[]? | select(.tid == $t)][0] |
		[.ustack[]? | "\(.symbol // "-")@\(.module | split("/") | last)"] | join(" ")' "$1"
}
ustack() { jq -c --argjson t "$T" '[.tasks[]? | select(.tid == $t)][0].ustack' "$1"; }
uerr() { jq -r --argjson t "$T" '[.tasks[]? | select(.tid == $t)][0].ustack_error // ""' "$1"; }

f=$(frames "$LIVE_TMP/live.json")
[[ "$f" == "__vfork@libc.so.6 middle@prog outer@prog main@prog "* ]] && [ -z "$(uerr "$LIVE_TMP/live.json")" ] ||
	live_fail "live: frames '$f', error '$(uerr "$LIVE_TMP/live.json")'; want __vfork middle outer main ..."
LIVE=$(ustack "$LIVE_TMP/live.json")

# what the capture kept
U=$CAP/cgwatch/ustack/$T
[ -s "$U" ] && [ -s "$CAP/proc/$T/maps" ] || live_fail "capture: no $U or proc/$T/maps: $(ls "$CAP/cgwatch" "$CAP/proc/$T" | tr '\n' ' ')"
grep -qx "unwound $T" "$U" && grep -qx "module $BID $PROG" "$U" && grep -qx "module $LIBCBID $LIBC" "$U" &&
	grep -q '^mem ' "$U" || live_fail "capture: $U lacks the thread, a build-id or memory: $(grep -v '^mem ' "$U" | head -c 400)"
kb=$(awk '/^mem / {n += length($3) / 2} END {print n + 0}' "$U")
[ "$kb" -le 65536 ] || live_fail "capture: $kb bytes of memory kept, over 64 KiB"

# replays: the capture's tree and the bundle, after the target is gone
live_cgwatch "$LIVE_TMP/rd.json" "$LIVE_TMP/rd.err" check --config "$CONF" --format json --root "$CAP"
live_json_check "$LIVE_TMP/rd.json" "check --root DIR"
[ "$(ustack "$LIVE_TMP/rd.json")" = "$LIVE" ] && [ -z "$(uerr "$LIVE_TMP/rd.json")" ] ||
	live_fail "replay of DIR: frames '$(frames "$LIVE_TMP/rd.json")' error '$(uerr "$LIVE_TMP/rd.json")', want the live '$f'"
live_cgwatch "$LIVE_TMP/rb.json" "$LIVE_TMP/rb.err" check --config "$CONF" --format json --root "$B"
live_json_check "$LIVE_TMP/rb.json" "check --root FILE"
[ "$(ustack "$LIVE_TMP/rb.json")" = "$LIVE" ] && [ -z "$(uerr "$LIVE_TMP/rb.json")" ] ||
	live_fail "replay of the bundle: frames '$(frames "$LIVE_TMP/rb.json")' error '$(uerr "$LIVE_TMP/rb.json")', want the live '$f'"
# the FUSE threads: one unwind kept, and the replay shares it alike
mine() {
	jq -c --argjson p "$SN" --argjson v "$T" '[.tasks[]? | select(.pid == $p or .pid == $v) |
		{tid, ustack, ustack_same_as, ustack_error}] | sort_by(.tid)' "$1"
}
sn=$(jq -r --argjson p "$SN" '[.tasks[] | select(.pid == $p)] |
	"\(length) \([.[] | select(.ustack_same_as == null)] | length) \([.[] | .ustack[1].symbol] | unique | join(","))"' "$LIVE_TMP/live.json")
[ "$sn" = "5 1 middle" ] || live_fail "live: the 5 FUSE threads '$sn' (tasks, unwound, frame 1), want '5 1 middle'"
[ "$(grep -c '^unwound ' "$CAP/cgwatch/ustack/$SN")" = 1 ] && ! grep -q '^note ' "$CAP/cgwatch/ustack/$SN" ||
	live_fail "capture of the FUSE threads: $(grep -v '^mem ' "$CAP/cgwatch/ustack/$SN" | head -c 300)"
[ "$(mine "$LIVE_TMP/rd.json")" = "$(mine "$LIVE_TMP/live.json")" ] ||
	live_fail "replay of DIR, the FUSE threads: $(mine "$LIVE_TMP/rd.json" | head -c 500), live $(mine "$LIVE_TMP/live.json" | head -c 500)"
# ustack_max = 1: who was not unwound says so, as captured; who was, the same frames
live_cgwatch "$LIVE_TMP/rd1.json" "$LIVE_TMP/rd1.err" check --config "$CONF1" --format json --root "$CAP1"
live_json_check "$LIVE_TMP/rd1.json" "check --root DIR (ustack_max = 1)"
n1=$(jq -n -r --argjson a "$(mine "$LIVE_TMP/live1.json")" --argjson b "$(mine "$LIVE_TMP/rd1.json")" '
	if ($a | length) != ($b | length) or ($a | length) != 6 then "tasks \($a | length) \($b | length)"
	else [range($a | length) | . as $i | $a[$i] as $x | $b[$i] as $y |
		select($x.tid != $y.tid or $x.ustack != $y.ustack or $x.ustack_same_as != $y.ustack_same_as or
			($x.ustack_error != $y.ustack_error and
			 (($x.ustack | length) > 0 or ($x.ustack_error + " (as captured)") != $y.ustack_error))) |
		"\($x.tid): \($x.ustack_error) / \($y.ustack_error)"] as $bad |
	if ($bad | length) > 0 then $bad | join("; ")
	else "\([$b[] | select((.ustack_error // "") | test("ustack_max \\(1\\).* \\(as captured\\)$"))] | length)" end end')
[[ "$n1" =~ ^[1-6]$ ]] || live_fail "replay with ustack_max = 1: $n1"

zstd -dc "$B" | tar -xOf - report.json >"$LIVE_TMP/brep.json" 2>/dev/null || live_fail "no report.json in the bundle"
[ "$(ustack "$LIVE_TMP/brep.json")" = "$LIVE" ] ||
	live_fail "the bundle's report.json: frames '$(frames "$LIVE_TMP/brep.json")', want the live '$f'"

# another build at the program's path: said, and no frame of it
cp "$LIVE_BIN/ustackhold-fp" "$PROG.new" && mv -f "$PROG.new" "$PROG" || live_fail "setup: replacing $PROG"
live_cgwatch "$LIVE_TMP/rx.json" "$LIVE_TMP/rx.err" check --config "$CONF" --format json --root "$B"
fx=$(frames "$LIVE_TMP/rx.json") ex=$(uerr "$LIVE_TMP/rx.json")
[ "$fx" = "__vfork@libc.so.6 -@prog" ] &&
	[[ "$ex" == "user stack ends at prog+0x"*": replay: $PROG build-id $BID not on this machine (the file there is build-id $OTHER); its unwind info is not used" ]] ||
	live_fail "another build at $PROG: frames '$fx', error '$ex'"
pc1=$(jq -r --argjson t "$T" '[.tasks[] | select(.tid == $t)][0].ustack[1].pc' "$LIVE_TMP/rx.json")
[ "$pc1" = "$(jq -r '.[1].pc' <<<"$LIVE")" ] || live_fail "another build: frame 1 pc $pc1, the live $(jq -r '.[1].pc' <<<"$LIVE")"

# libc's build-id edited in the capture's file
sed -i "s/^module $LIBCBID /module 00$(printf '%s' "${LIBCBID:2}") /" "$U" || live_fail "setup: sed $U"
live_cgwatch "$LIVE_TMP/re.json" "$LIVE_TMP/re.err" check --config "$CONF" --format json --root "$CAP"
fe=$(frames "$LIVE_TMP/re.json") ee=$(uerr "$LIVE_TMP/re.json")
[ "$fe" = "-@libc.so.6" ] && [[ "$ee" == *"replay: $LIBC build-id 00${LIBCBID:2} not on this machine (the file there is build-id $LIBCBID)"* ]] ||
	live_fail "libc's build-id edited: frames '$fe', error '$ee'"

# the redacted bundle: no memory, and its replay says why there are no frames
zstd -dc "$R" | tar -xOf - "tree/cgwatch/ustack/$T" >"$LIVE_TMP/ru" 2>/dev/null || live_fail "no tree/cgwatch/ustack/$T in the redacted bundle"
grep -qx redacted "$LIVE_TMP/ru" && ! grep -q '^mem ' "$LIVE_TMP/ru" ||
	live_fail "redacted bundle's cgwatch/ustack/$T: $(head -c 300 "$LIVE_TMP/ru")"
live_cgwatch "$LIVE_TMP/rr.json" "$LIVE_TMP/rr.err" check --config "$CONF" --format json --root "$R"
fr=$(frames "$LIVE_TMP/rr.json") er=$(uerr "$LIVE_TMP/rr.json")
[ -z "$fr" ] && [[ "$er" == "user stack not replayed: the bundle was redacted"* ]] ||
	live_fail "redacted bundle's replay: frames '$fr', error '$er'"
zstd -dc "$R" | tar -xOf - report.json >"$LIVE_TMP/rrep.json" 2>/dev/null || live_fail "no report.json in the redacted bundle"
[[ "$(frames "$LIVE_TMP/rrep.json")" == "__vfork@libc.so.6 middle@"*" outer@"*" main@"* ]] ||
	live_fail "the redacted bundle's report.json: frames '$(frames "$LIVE_TMP/rrep.json")'"
live_pass "replayed '$f' from the tree and the bundle, 5 FUSE threads as one unwind, $n1 not unwound as captured; another build and an edited build-id said; redacted: memory left out"

#!/bin/bash
# live-ustack: the user stacks of blocked tasks, unwound without stopping them. One program
# (tests/live/ustackhold.c: main -> outer -> middle -> the blocking call, noinline) built
# -O2 -g, -O0 -g, -O2 -g -fno-omit-frame-pointer, and the -O2 one stripped, each a vfork
# parent in D; and one thread of a 9-thread process (the same -O2 build) blocked in stat
# under an uninitialised FUSE mount. check --format json and text:
#   -O2: ustack is __vfork (libc) < middle < outer < main, in order, the program's frames
#     named from its .symtab (symbol_from symtab, exact, its build_id and vaddr), libc's from
#     its own symbols;
#   -O0 and frame pointers: __vfork < middle < outer < main, the frames from outer on marked
#     fp_recovered (the frame pointer /proc/TID/syscall lacks, found by a stack scan), their
#     pcs the program's own return addresses ("chain" line), the frame after main its caller's;
#     then libc's start frames or an honest stop, never another "needs rbp" stop;
#   the same builds with decoy frame records in middle's locals (ustackhold decoy): either
#     that exact chain, or __vfork < middle_decoy and the frame-pointer stop: never a frame
#     that is not in the real chain; the same below 1 KiB of alloca (decoya: the prologue's
#     frame no longer keeps the scan above the locals), where the stop says why;
#   -O0 and frame pointers, middle called by main itself (ustackhold direct: the record's link
#     is main's record, whose own link is libc's rbp, not a record) and main itself blocked
#     (ustackhold self): __vfork < middle < main, or __vfork < main, then libc's start frames
#     to _start, their pcs the real chain, from main's caller (or main's) on fp_recovered;
#     never _start as the caller (the record of its indirect call, above main's); main
#     itself may stop instead, saying why;
#   stripped: the same module offsets as -O2, and no symbol in the program's own frames
#     (symbol_why says why), while libc's frame is still named from libc's symbols;
#   stripped with a .gnu_debuglink and its debug file in .debug/ beside it: named from the
#     debug file (symbol_from debug);
#   a copy of -O2 replaced by another build while it runs: unwound from the file it maps
#     (the -O2 build's offsets, all its frames), never from the new one, and named from it
#     (the deleted file, through /proc/PID/map_files);
#   a copy of -O2 with the stripped build bind-mounted over its path while it runs: named
#     from the file mapped, not from the one at the path;
#   a copy of -O2 in a tmpfs mounted only in its own mount namespace (unshare -m): its
#     frames named;
#   the FUSE thread: fstatat < middle < outer < stater (its thread function); the -O0
#     build's too, from outer on fp_recovered;
#   20 threads of one process in identical stacks: one unwind, the 19 others share it,
#     without reading their syscall lines again (strace, when installed);
#   the text report prints them under the kernel stack;
#   while cgwatch runs, every target's TracerPid stays 0 and its state is never T or t.
. "$(dirname "$0")/lib.sh"
live_init_fuse ustack jq timeout awk objcopy strip unshare readelf
live_require_helpers ustackhold-O2 ustackhold-O0 ustackhold-fp ustackhold-strip

# the vfork parents; cleanups kill each (and its child, which dies with it)
declare -A TID
for v in O2 O0 fp strip dO0 dfp aO0 afp mainO0 mainfp selfO0 selffp; do
	mode=vfork b=$v
	case $v in
	d*) mode=decoy b=${v#d} ;;
	a*) mode=decoya b=${v#a} ;;
	main*) mode=direct b=${v#main} ;;
	self*) mode=self b=${v#self} ;;
	esac
	"$LIVE_BIN/ustackhold-$b" $mode 40 >"$LIVE_TMP/$v.out" 2>"$LIVE_TMP/$v.err" 3>&- </dev/null &
	pid=$!
	live_on_exit "live_kill_wait $pid"
	_blocked() { grep -q '^blocked ' "$LIVE_TMP/$1.out" && [ "$(live_task_state "$2")" = D ]; }
	live_wait_for 5 _blocked "$v" "$pid" ||
		live_fail "setup: ustackhold-$v: $(cat "$LIVE_TMP/$v.out" "$LIVE_TMP/$v.err") state $(live_task_state "$pid")"
	TID[$v]=$pid
done
# a program whose file was replaced since it started (an upgrade): the file at its path is
# another one, whose unwind info and names must not be used for it
cp "$LIVE_BIN/ustackhold-O2" "$LIVE_TMP/repl" || live_fail "setup: cp"
"$LIVE_TMP/repl" vfork 40 >"$LIVE_TMP/repl.out" 2>"$LIVE_TMP/repl.err" 3>&- </dev/null &
pid=$!
live_on_exit "live_kill_wait $pid"
live_wait_for 5 _blocked repl "$pid" || live_fail "setup: repl: $(cat "$LIVE_TMP/repl.out")"
TID[repl]=$pid
cp "$LIVE_BIN/ustackhold-fp" "$LIVE_TMP/repl.new" && mv -f "$LIVE_TMP/repl.new" "$LIVE_TMP/repl" ||
	live_fail "setup: replacing $LIVE_TMP/repl"
# stripped, its debug file found by its .gnu_debuglink in .debug/ beside it
mkdir -p "$LIVE_TMP/dl/.debug" || live_fail "setup: mkdir dl"
( cd "$LIVE_TMP/dl" &&
	objcopy --only-keep-debug "$LIVE_BIN/ustackhold-O2" .debug/ustackhold-dl.debug &&
	strip -o ustackhold-dl "$LIVE_BIN/ustackhold-O2" &&
	cd .debug && objcopy --add-gnu-debuglink=ustackhold-dl.debug ../ustackhold-dl ) \
	>"$LIVE_TMP/dl.log" 2>&1 || live_fail "setup: debug file: $(head -c 300 "$LIVE_TMP/dl.log")"
# a copy run, then another file bind-mounted over its path: the path names another file now
cp "$LIVE_BIN/ustackhold-O2" "$LIVE_TMP/bm" || live_fail "setup: cp bm"
# a copy in a tmpfs that only its own mount namespace has: here the directory is empty
mkdir -p "$LIVE_TMP/priv" || live_fail "setup: mkdir priv"
for v in dl bm ns; do
	case $v in
	dl) set -- "$LIVE_TMP/dl/ustackhold-dl" vfork 40 ;;
	bm) set -- "$LIVE_TMP/bm" vfork 40 ;;
	ns) set -- unshare -m --propagation private sh -c 'mount -t tmpfs cgwtest "$1" &&
		cp "$2" "$1/ustackhold" && exec "$1/ustackhold" vfork 40' sh "$LIVE_TMP/priv" \
		"$LIVE_BIN/ustackhold-O2" ;;
	esac
	"$@" >"$LIVE_TMP/$v.out" 2>"$LIVE_TMP/$v.err" 3>&- </dev/null &
	pid=$!
	live_on_exit "live_kill_wait $pid"
	live_wait_for 5 _blocked "$v" "$pid" ||
		live_fail "setup: $v: $(cat "$LIVE_TMP/$v.out" "$LIVE_TMP/$v.err") state $(live_task_state "$pid")"
	TID[$v]=$pid
done
[ -z "$(ls -A "$LIVE_TMP/priv")" ] || live_fail "setup: the private tmpfs is seen here"
live_on_exit "live_umount $(printf %q "$LIVE_TMP/bm")"
mount --bind "$LIVE_BIN/ustackhold-strip" "$LIVE_TMP/bm" || live_fail "setup: bind mount over bm"
# the FUSE thread: its mount, then the process that stats under it. Cleanups (reverse
# order): the FUSE server first (its death aborts the connection and releases every waiter:
# threads queued on the directory's lock behind a lookup are not killable), the unmount,
# then the processes under it
MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
STATER= SN= ST0=
live_on_exit 'live_kill_wait "$ST0" 10'
live_on_exit 'live_kill_wait "$SN" 10'
live_on_exit 'live_kill_wait "$STATER" 10'
live_fusehold fuse "$MNT"
"$LIVE_BIN/ustackhold-O2" stat "$MNT/x" 8 >"$LIVE_TMP/st.out" 2>"$LIVE_TMP/st.err" 3>&- </dev/null &
STATER=$!
_st_line() { grep -q '^blocked ' "$LIVE_TMP/st.out"; }
live_wait_for 5 _st_line || live_fail "setup: ustackhold stat: $(cat "$LIVE_TMP/st.out" "$LIVE_TMP/st.err")"
FT=$(awk '/^blocked /{print $2}' "$LIVE_TMP/st.out")
_in_fuse() { [ "$(live_task_state "$FT")" = D ] && grep -q fuse "/proc/$FT/stack"; }
live_wait_for 5 _in_fuse || live_fail "setup: thread $FT not in D under FUSE: $(live_task_state "$FT")"
TID[fuse]=$FT
# the -O0 build's thread under the same mount: a thread's stack, not the process's
"$LIVE_BIN/ustackhold-O0" stat "$MNT/z" 2 >"$LIVE_TMP/st0.out" 2>"$LIVE_TMP/st0.err" 3>&- </dev/null &
ST0=$!
_st0_line() { grep -q '^blocked ' "$LIVE_TMP/st0.out"; }
live_wait_for 5 _st0_line || live_fail "setup: ustackhold-O0 stat: $(cat "$LIVE_TMP/st0.out" "$LIVE_TMP/st0.err")"
FT0=$(awk '/^blocked /{print $2}' "$LIVE_TMP/st0.out")
_in_fuse0() { [ "$(live_task_state "$FT0")" = D ] && grep -q fuse "/proc/$FT0/stack"; }
live_wait_for 5 _in_fuse0 || live_fail "setup: thread $FT0 not in D under FUSE: $(live_task_state "$FT0")"
TID[fuse0]=$FT0
# 20 threads of one process in identical stacks under the same mount: one unwind, shared
"$LIVE_BIN/ustackhold-O2" statn "$MNT/y" 20 >"$LIVE_TMP/sn.out" 2>"$LIVE_TMP/sn.err" 3>&- </dev/null &
SN=$!
_sn_all() { [ "$(grep -c '^blocked ' "$LIVE_TMP/sn.out")" = 20 ]; }
live_wait_for 5 _sn_all || live_fail "setup: ustackhold statn: $(cat "$LIVE_TMP/sn.out" "$LIVE_TMP/sn.err" | head -c 300)"
mapfile -t SNT < <(awk '/^blocked /{print $2}' "$LIVE_TMP/sn.out")
live_count_state D "${SNT[@]}"
live_wait_for 5 eval 'live_count_state D "${SNT[@]}"; [ "$LIVE_COUNT" = 20 ]' ||
	live_fail "setup: $LIVE_COUNT of the 20 statn threads in D (first not: $LIVE_NOT)"
sleep 1.2

# watch the targets while cgwatch runs: any TracerPid but 0, any state T or t
WATCH=$LIVE_TMP/watch.log
(
	trap 'exit 0' TERM
	while :; do
		for t in "${TID[@]}"; do
			st=$(grep -E '^(State|TracerPid):' "/proc/$t/status" 2>/dev/null | tr '\n' ' ')
			case "$st" in
			*"State:"*[Tt]\ \(*|*TracerPid:*[1-9]*) echo "$t: $st" >>"$WATCH" ;;
			esac
		done
	done
) 3>&- &
WATCHER=$!
live_on_exit "kill $WATCHER 2>/dev/null; wait $WATCHER 2>/dev/null"

CONF=$LIVE_TMP/c.conf
live_conf_check "$CONF" "ustack_max = 1000"
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --config "$CONF" --threshold 1 --format json
live_json_check "$OUT" "check --format json"
TXT=$LIVE_TMP/report.txt
live_cgwatch "$TXT" "$ERR.txt" check --config "$CONF" --threshold 1
kill "$WATCHER" 2>/dev/null
wait "$WATCHER" 2>/dev/null
[ ! -s "$WATCH" ] || live_fail "a target was traced or stopped while cgwatch ran: $(head -c 300 "$WATCH")"

# "sym@module-basename" per frame, innermost first
frames() {
	jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] |
		[.ustack[]? | "\(.symbol // "-")@\(.module | split("/") | last)"] | join(" ")' "$OUT"
}
uerr() { jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0].ustack_error // ""' "$OUT"; }

f=$(frames "${TID[O2]}")
[[ "$f" == "__vfork@libc.so.6 middle@ustackhold-O2 outer@ustackhold-O2 main@ustackhold-O2 "* ]] ||
	live_fail "-O2: user frames '$f', want __vfork middle outer main ...; error: $(uerr "${TID[O2]}")"
# the program's frames from its .symtab, with the build-id readelf gives and the link-time
# address (vaddr) of the same instruction as in the file (offset); libc's from its own
bid=$(readelf -n "$LIVE_BIN/ustackhold-O2" | awk '/Build ID:/{print $3}')
[ -n "$bid" ] || live_fail "setup: no build-id in ustackhold-O2"
jq -e --argjson t "${TID[O2]}" --arg bid "$bid" '[.tasks[] | select(.tid == $t)][0].ustack[1] |
	(.pc | test("^0x[0-9a-f]+$")) and (.offset | test("^0x[0-9a-f]+$")) and
	.symbol_from == "symtab" and .symbol_exact == true and (.symbol_offset | type) == "number" and
	.build_id == $bid and (.vaddr | test("^0x[0-9a-f]+$")) and .symbol_why == null' "$OUT" >/dev/null ||
	live_fail "-O2: frame 1 keys: $(jq -c --argjson t "${TID[O2]}" '[.tasks[] | select(.tid == $t)][0].ustack[1]' "$OUT"), want symbol_from symtab, build_id $bid"
# libc's names: its .symtab, else its debug file (libc6-dbg) by build-id, else .dynsym
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
libc_id=$(readelf -n "$LIBC" | awk '/Build ID:/{print $3}')
libc_from=dynsym
if readelf -S -W "$LIBC" 2>/dev/null | grep -q ' \.symtab '; then
	libc_from=symtab
elif [ -n "$libc_id" ] && [ -f "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ]; then
	libc_from=debug
fi
jq -e --argjson t "${TID[O2]}" --arg from "$libc_from" '[.tasks[] | select(.tid == $t)][0].ustack[0] |
	.symbol == "__vfork" and .symbol_from == $from' "$OUT" >/dev/null ||
	live_fail "-O2: frame 0 $(jq -c --argjson t "${TID[O2]}" '[.tasks[] | select(.tid == $t)][0].ustack[0]' "$OUT"), want __vfork from libc's $libc_from"
# the pcs of frames 2.. ("0x..." each) and which of all frames are marked fp_recovered
pcs() { jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] | [.ustack[2:][]? | .pc] | join(" ")' "$OUT"; }
marks() { jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] | [.ustack[]? | if .fp_recovered == true then "R" else "-" end] | join("")' "$OUT"; }
chain() { awk '/^chain /{print $2, $3, $4}' "$LIVE_TMP/$1.out"; }
for v in O0 fp; do
	f=$(frames "${TID[$v]}")
	e=$(uerr "${TID[$v]}")
	[[ "$f" == "__vfork@libc.so.6 middle@ustackhold-$v outer@ustackhold-$v main@ustackhold-$v "* ]] ||
		live_fail "-$v: user frames '$f', want __vfork middle outer main then main's callers; error: $e"
	read -r ro rm rs < <(chain "$v")
	[[ "$(pcs "${TID[$v]}") " == "$ro $rm $rs "* ]] ||
		live_fail "-$v: pcs of frames 2.. '$(pcs "${TID[$v]}")', want the real chain '$ro $rm $rs ...'"
	m=$(marks "${TID[$v]}")
	[[ "$m" =~ ^--RRR+$ ]] || live_fail "-$v: fp_recovered marks '$m', want --RRR...: every frame from outer on"
	[[ "$e" != *"needs rbp"* ]] || live_fail "-$v: ustack_error '$e' after the recovery"
done
f=$(frames "$FT0")
read -r ro rm rs < <(chain st0)
[[ "$f" == "fstatat@libc.so.6 middle@ustackhold-O0 outer@ustackhold-O0 stater@ustackhold-O0"* ]] &&
	[[ "$(pcs "$FT0") " == "$ro $rm "* ]] && [[ "$(marks "$FT0")" =~ ^--RR+$ ]] ||
	live_fail "-O0 FUSE thread $FT0: frames '$f' pcs 2.. '$(pcs "$FT0")' (real '$ro $rm') marks '$(marks "$FT0")', want fstatat middle outer stater, from outer on fp_recovered; error: $(uerr "$FT0")"
# decoys: the real chain, exactly, or the honest stop; nothing else
DECOY=
for v in dO0 dfp aO0 afp; do
	b=${v:1}
	f=$(frames "${TID[$v]}")
	e=$(uerr "${TID[$v]}")
	read -r ro rm rs < <(chain "$v")
	if [[ "$f" == "__vfork@libc.so.6 middle_decoy@ustackhold-$b outer@ustackhold-$b main@ustackhold-$b "* ]] &&
		[[ "$(pcs "${TID[$v]}") " == "$ro $rm $rs "* ]]; then
		DECOY+="${DECOY:+, }${v:0:1}-$b recovered"
	elif [ "$f" = "__vfork@libc.so.6 middle_decoy@ustackhold-$b" ] &&
		[[ "$e" == "user stack ends at middle_decoy+0x"*"needs rbp (frame-pointer code)"*"(no frame pointer recovered by a stack scan: "?*")" ]]; then
		DECOY+="${DECOY:+, }${v:0:1}-$b stopped"
	else
		live_fail "$v: frames '$f' pcs 2.. '$(pcs "${TID[$v]}")' (real chain '$ro $rm $rs'), error '$e': neither the real chain nor the stop"
	fi
done
# the outermost frame-pointer frame: the real chain to _start, or for main itself the stop
OUTERMOST=
for v in mainO0 mainfp selfO0 selffp; do
	b=${v#main} b=${b#self}
	f=$(frames "${TID[$v]}")
	e=$(uerr "${TID[$v]}")
	read -r r1 r2 _ < <(chain "$v")
	want="__vfork@libc.so.6 middle@ustackhold-$b main@ustackhold-$b" wpcs="$r1 $r2"
	[[ $v == self* ]] && want="__vfork@libc.so.6 main@ustackhold-$b" wpcs=$r1
	if [[ "$f" =~ ^"$want"( [^ ]+@libc\.so\.6)+" _start@ustackhold-$b"$ ]] &&
		[[ "$(pcs "${TID[$v]}") " == "$wpcs "* ]] && [[ "$(marks "${TID[$v]}")" =~ ^--RR+$ ]] &&
		[ -z "$e" ]; then
		OUTERMOST+="${OUTERMOST:+, }${v%"$b"} -$b recovered"
	elif [[ $v == self* ]] && [ "$f" = "$want" ] &&
		[[ "$e" == "user stack ends at main+0x"*"needs rbp (frame-pointer code)"*"(no frame pointer recovered by a stack scan: "?*")" ]]; then
		OUTERMOST+="${OUTERMOST:+, }self -$b stopped"
	else
		live_fail "$v: frames '$f' pcs 2.. '$(pcs "${TID[$v]}")' marks '$(marks "${TID[$v]}")' error '$e'; want '$want', libc's start frames and _start, pcs 2.. '$wpcs ...', from frame 2 on fp_recovered"
	fi
done
# stripped: the -O2 code at the same offsets, and no name in its own frames
want=$(jq -r --argjson t "${TID[O2]}" '[.tasks[] | select(.tid == $t)][0] | [.ustack[] | .offset] | join(" ")' "$OUT")
got=$(jq -r --argjson t "${TID[strip]}" '[.tasks[] | select(.tid == $t)][0] | [.ustack[] | .offset] | join(" ")' "$OUT")
[ -n "$got" ] && [ "$got" = "$want" ] ||
	live_fail "stripped: offsets '$got', want the -O2 build's '$want'; error: $(uerr "${TID[strip]}")"
named=$(jq -r --argjson t "${TID[strip]}" '[.tasks[] | select(.tid == $t)][0] |
	[.ustack[] | select((.module | endswith("/ustackhold-strip")) and .symbol != null) | .symbol] | join(",")' "$OUT")
[ -z "$named" ] || live_fail "stripped: its frames named '$named' (a name from nowhere)"
jq -e --argjson t "${TID[strip]}" --argjson o "${TID[O2]}" --arg bid "$bid" --arg from "$libc_from" '
	([.tasks[] | select(.tid == $o)][0].ustack[1].vaddr) as $v |
	[.tasks[] | select(.tid == $t)][0].ustack | .[0].symbol == "__vfork" and .[0].symbol_from == $from and
	.[1].symbol_from == null and .[1].build_id == $bid and .[1].vaddr == $v and
	(.[1].symbol_why | type) == "string"' "$OUT" >/dev/null ||
	live_fail "stripped: frames $(jq -c --argjson t "${TID[strip]}" '[.tasks[] | select(.tid == $t)][0].ustack[0:2]' "$OUT"), want libc named, its own unnamed with the -O2 vaddr, build_id and a symbol_why"
f=$(frames "${TID[dl]}")
[[ "$f" == "__vfork@libc.so.6 middle@ustackhold-dl outer@ustackhold-dl main@ustackhold-dl "* ]] &&
	jq -e --argjson t "${TID[dl]}" '[.tasks[] | select(.tid == $t)][0].ustack[1:4] | all(.symbol_from == "debug")' "$OUT" >/dev/null ||
	live_fail "debug file: frames '$f', want middle outer main from the debug file: $(jq -c --argjson t "${TID[dl]}" '[.tasks[] | select(.tid == $t)][0].ustack[1]' "$OUT"); error: $(uerr "${TID[dl]}")"
f=$(frames "${TID[bm]}")
[[ "$f" == "__vfork@libc.so.6 middle@bm"* ]] ||
	live_fail "bind-mounted over: frames '$f', want middle named from the mapped file; error: $(uerr "${TID[bm]}")"
# the private tmpfs: unwound and named from the file it maps, which is not here
f=$(frames "${TID[ns]}")
[[ "$f" == "__vfork@libc.so.6 middle@ustackhold outer@ustackhold main@ustackhold "* ]] ||
	live_fail "private tmpfs: frames '$f', want __vfork middle outer main; error: $(uerr "${TID[ns]}")"
f=$(frames "$FT")
[[ "$f" == "fstatat@libc.so.6 middle@ustackhold-O2 outer@ustackhold-O2 stater@ustackhold-O2"* ]] ||
	live_fail "FUSE thread $FT: user frames '$f', want fstatat middle outer stater; error: $(uerr "$FT")"

f=$(frames "${TID[repl]}")
e=$(uerr "${TID[repl]}")
got=$(jq -r --argjson t "${TID[repl]}" '[.tasks[] | select(.tid == $t)][0] | [.ustack[] | .offset] | join(" ")' "$OUT")
[[ "$f" == "__vfork@libc.so.6 middle@repl (deleted) outer@repl (deleted) main@repl (deleted) "* ]] && [ "$got" = "$want" ] &&
	[ -z "$e" ] ||
	live_fail "replaced binary: user frames '$f' at '$got', error '$e'; want __vfork then its own frames named from the deleted file mapped, at the -O2 build's offsets '$want'"
# the 20 identical threads: one unwound, 19 sharing it, all with its frames
sn=$(jq -r --argjson p "$SN" '[.tasks[] | select(.pid == $p)] |
	"\(length) \([.[] | select(.ustack_same_as == null)] | length) \([.[] | .ustack_same_as // empty] | unique | length) \([.[] | [.ustack[] | .offset] | join(",")] | unique | length) \(.[0].ustack[1].symbol)"' "$OUT")
[ "$sn" = "20 1 1 1 middle" ] ||
	live_fail "20 identical threads: '$sn' (tasks, unwound, distinct same_as, distinct stacks, frame 1), want '20 1 1 1 middle'"
# each of their syscall lines is read once, by the scan: the unwind reads its own thread's
# again (its registers as they are now), the 19 that share it read none (strace, if there)
if command -v strace >/dev/null; then
	timeout -k 2 "$LIVE_CG_TIMEOUT" strace -f -qq -e trace=openat,write -e signal=none \
		-o "$LIVE_TMP/strace.log" "$CGWATCH" check --config "$CONF" --threshold 1 \
		--format json --verbose >/dev/null 2>"$LIVE_TMP/strace.err" 3>&-
	n=$(grep -cE "\"/proc/$SN/task/[0-9]+/syscall\"" "$LIVE_TMP/strace.log")
	[ "$n" -ge 20 ] && [ "$n" -le 21 ] ||
		live_fail "20 identical threads: their syscall lines opened $n times, want 21: once each by the scan, once more by the one unwind"
	# and the unwinder sends shared frames once: its writes of 4 KiB or more (a stack's
	# frames) are at most one per unwind it made, not one per thread
	main=$(awk 'NR == 1 {print $1}' "$LIVE_TMP/strace.log")
	big=$(awk -v m="$main" '$1 != m && $2 ~ /^write\(/ && $NF + 0 >= 4096' "$LIVE_TMP/strace.log" | wc -l)
	unw=$(sed -n 's/.*user stacks: \([0-9]*\) unwound.*/\1/p' "$LIVE_TMP/strace.err" | head -1)
	[ -n "$unw" ] && [ "$big" -le "$unw" ] ||
		live_fail "the unwinder wrote $big messages of 4 KiB or more for ${unw:-?} unwinds: shared frames sent again for each thread"
fi
# text: under the task, after its kernel stack
awk -v t="${TID[O2]}" '$1 == "PID" && $2 == t { on = 1; next } on && /^  [A-Z]/ { on = 0 }
	on && /user stack \(read without stopping it\):/ { u = 1 }
	on && u && /#2 outer\+0x[0-9a-f]+ \(.*ustackhold-O2\+0x[0-9a-f]+\)/ { ok = 1 }
	END { exit !ok }' "$TXT" ||
	live_fail "text: no user stack with '#2 outer+0x...' under PID ${TID[O2]}: $(grep -A12 "PID ${TID[O2]} " "$TXT" | head -c 600)"
if [ "$libc_from" = dynsym ]; then
	grep -Eq '#0 __vfork\+0x[0-9a-f]+ \(.*libc\.so\.6\+0x[0-9a-f]+; nearest exported symbol\)' "$TXT" ||
		live_fail "text: libc's frame not said to be the nearest exported symbol: $(grep -m1 '#0 __vfork' "$TXT")"
fi
for t in "${TID[@]}"; do
	tp=$(awk '/^TracerPid:/{print $2}' "/proc/$t/status")
	[ "$tp" = 0 ] || live_fail "task $t TracerPid $tp after the checks"
done
live_pass "-O2, -O0 and frame pointers (recovered by stack scan, an -O0 thread too), decoys (${DECOY# }), called by main and main itself ($OUTERMOST), stripped, debug file, replaced, bind-mounted over, private tmpfs, a FUSE thread and 20 identical ones (one unwind) unwound; none traced or stopped"

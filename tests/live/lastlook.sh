#!/bin/bash
# live-lastlook: the last look of a check drops the suspects that are gone. 80 threads of one
# process stat one name under a FUSE mount that never answers (one in the request, killable,
# the others behind its lookup), beside a control thread of another process blocked on
# another name there. With that many suspects the BPF scan looks again by walking once more (its --verbose
# says "the program's records read again"); /proc's scan reads their stat and sched. A check
# told to wait before its last look (CGWATCH_TEST_LASTLOOK_PAUSE) reports all 81 when nothing
# moves; when the 80 threads are killed during that wait, it reports none of them and still the
# control, both ways.
. "$(dirname "$0")/lib.sh"
live_init_fuse lastlook jq timeout awk
live_require_helpers ustackhold-O2
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the task iterator cannot load here"

N=80
SN= CTL=
# cleanups run last registered first: the servers die first, which frees every waiter
live_on_exit '[ -z "$SN" ] || live_kill_wait "$SN"'
live_on_exit '[ -z "$CTL" ] || live_kill_wait "$CTL"'
# two mounts: a lookup holds its directory's lock, so the control has one of its own
FH=()
for m in mnt ctl; do
	mkdir "$LIVE_TMP/$m" || live_fail "setup: mkdir $LIVE_TMP/$m"
	live_on_exit "live_umount $LIVE_TMP/$m"
	"$LIVE_BIN/fusehold" "$LIVE_TMP/$m" >"$LIVE_TMP/$m.out" 2>"$LIVE_TMP/$m.err" 3>&- </dev/null &
	live_on_exit "live_kill_wait $!"
	_mounted() { grep -q mounted "$LIVE_TMP/$m.out"; }
	live_wait_for 5 _mounted || live_fail "setup: fusehold: $(cat "$LIVE_TMP/$m.out" "$LIVE_TMP/$m.err")"
done
MNT=$LIVE_TMP/mnt
# the control: a thread of another process that stays blocked
"$LIVE_BIN/ustackhold-O2" stat "$LIVE_TMP/ctl/z" 0 >"$LIVE_TMP/c.out" 2>"$LIVE_TMP/c.err" 3>&- </dev/null &
CTL=$!
_ctl() { grep -q '^blocked ' "$LIVE_TMP/c.out"; }
live_wait_for 5 _ctl || live_fail "setup: ustackhold stat: $(cat "$LIVE_TMP/c.out" "$LIVE_TMP/c.err")"
CHILD=$(awk '/^blocked /{print $2}' "$LIVE_TMP/c.out")
live_wait_for 5 eval '[ "$(live_task_state "$CHILD")" = D ]' || live_fail "setup: control thread $CHILD not in D"
# start N threads blocked under the mount; their tids in SNT
start_threads() {
	live_statn "$MNT/y$1" $N
	sleep 1.2
}
printf '[scan]\nustack_max = 0\n' >"$LIVE_TMP/bpf.conf"
printf '[scan]\nustack_max = 0\nsource = proc\n' >"$LIVE_TMP/proc.conf"
# ours FILE: how many of the N threads the report names, and whether the child is in it
ours() {
	jq -r --argjson t "$(printf '%s\n' "${SNT[@]}" | jq -sc .)" --argjson c "$CHILD" \
		'"\([.tasks[]? | select(.tid as $x | $t | index($x))] | length) \([.tasks[]? | select(.tid == $c)] | length)"' "$1"
}

start_threads 1
for src in bpf proc; do
	out=$LIVE_TMP/still-$src.json
	CGWATCH_TEST_LASTLOOK_PAUSE=0.3 live_cgwatch "$out" "$out.err" check --config "$LIVE_TMP/$src.conf" \
		--threshold 1 --verbose --format json
	live_json_check "$out" "check ($src, nothing moves)"
	[ "$(jq -r .scan.source "$out")" = "$src" ] || {
		[ $src = bpf ] && live_skip "the BPF task iterator did not load: $(jq -r .scan.source_why "$out")"
		live_fail "$src: scan.source $(jq -r .scan.source "$out")"; }
	read -r n c < <(ours "$out")
	[ "$n" = $N ] && [ "$c" = 1 ] || live_fail "$src, nothing moved: $n of $N threads and $c control reported"
	if [ $src = bpf ]; then
		grep -q "last look at [0-9]* suspects: the program's records read again" "$out.err" ||
			live_fail "bpf: the last look was not a walk: $(grep -o 'last look.*' "$out.err")"
	fi
done

for src in bpf proc; do
	[ -n "$SN" ] || start_threads 2
	out=$LIVE_TMP/gone-$src.json
	CGWATCH_TEST_LASTLOOK_PAUSE=3 timeout -k 2 20 "$CGWATCH" check --config "$LIVE_TMP/$src.conf" \
		--threshold 1 --verbose --format json >"$out" 2>"$out.err" 3>&- &
	CG=$!
	live_on_exit "kill -9 $CG 2>/dev/null"
	_paused() { grep -q "test: 3 s before the last look" "$out.err"; }
	live_wait_for 15 _paused || live_fail "$src: the check never reached its last look: $(tail -c 300 "$out.err")"
	live_kill_wait "$SN"
	SN=
	_all_gone() { for t in "${SNT[@]}"; do [ -e "/proc/$t" ] && return 1; done; return 0; }
	live_wait_for 2 _all_gone || live_fail "$src: the statn threads did not exit when killed"
	wait "$CG"
	live_json_check "$out" "check ($src, threads killed before the last look)"
	read -r n c < <(ours "$out")
	[ "$n" = 0 ] && [ "$c" = 1 ] ||
		live_fail "$src, threads gone at the last look: $n of $N still reported (want 0), control $c (want 1)"
done
live_pass "$N suspects kept when still and dropped when gone, by the BPF program's second walk and by /proc"

#!/bin/bash
# live-unwindbox: the user-stack unwinds run in a confined child, and whatever the child does,
# the check goes on. Two vfork parents of an unprivileged user (nobody) in D; `check` (root)
# with faults injected into the child (CGWATCH_TEST_UNWINDER, src/source-ustackbox.c):
#   escape: what a parser bug turned into code would try, each refused by the kernel: a file
#           opened for writing, a socket, a signal to the parent, exec, executable memory, a
#           write to stdout; the child holds only CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and the
#           map_files one (CapEff and CapBnd), no_new_privs and a seccomp filter; and with
#           all that, it still unwinds the user's stacks;
#   crash:  the child dies of SIGSEGV: the tasks say so, the report is whole;
#   lie:    the child sends a capture's record for a path outside the tree: refused, killed;
#   lieframes: the child says a task's frames are another's, whose unwind it does not share:
#           refused, killed;
#   spin:   the child computes and never answers: killed when silent past 4 read deadlines
#           + 2 s, and the check ends soon after;
#   loop:   each unwind never ends on its worker thread: after one read deadline each, the
#           child is ended and another takes the next task: both tasks say their unwind info
#           did not terminate.
# No cgwatch process is left after any of them.
. "$(dirname "$0")/lib.sh"
live_init unwindbox
live_require_root
live_require_tools jq timeout setpriv
live_require_binary
live_require_helpers ustackhold-O2
live_mktemp
U=65534
chmod 711 "$LIVE_TMP" || live_fail "setup: chmod"
cp "$LIVE_BIN/ustackhold-O2" "$LIVE_TMP/prog" && chmod 755 "$LIVE_TMP/prog" || live_fail "setup: cp"
ASUSER=(setpriv --reuid="$U" --regid="$U" --clear-groups --no-new-privs)
P=()
for i in 1 2; do
	"${ASUSER[@]}" "$LIVE_TMP/prog" vfork 60 >"$LIVE_TMP/p$i.out" 2>"$LIVE_TMP/p$i.err" 3>&- </dev/null &
	P+=($!)
	live_on_exit "live_kill_wait $!"
done
_blocked() { for p in "${P[@]}"; do [ "$(live_task_state "$p")" = D ] || return 1; done; }
live_wait_for 5 _blocked || live_fail "setup: the programs are not in D: $(cat "$LIVE_TMP"/p*.out "$LIVE_TMP"/p*.err | head -c 300)"
printf '[scan]\nread_timeout = 0.5\nustack_max = 1000\n' >"$LIVE_TMP/c.conf" || live_fail "setup: conf"
rm -f /etc/cgwatch-escape
live_on_exit "rm -f /etc/cgwatch-escape"

# ustack_error of task $2 in report $1
_uerr() { jq -r --argjson t "$2" '[.tasks[] | select(.tid == $t) | .ustack_error // ""][0] // ""' "$1"; }
_nframes() { jq --argjson t "$2" '[.tasks[] | select(.tid == $t) | .ustack[]?] | length' "$1"; }
_run() {                                  # fault: report in $LIVE_TMP/FAULT.json, seconds in T
	local f=$1
	CGWATCH_TEST_UNWINDER=$f live_cgwatch "$LIVE_TMP/$f.json" "$LIVE_TMP/$f.err" check \
		--format json --threshold 0 --config "$LIVE_TMP/c.conf"
	live_json_check "$LIVE_TMP/$f.json" "check ($f)"
	T=$(awk -v a="$CG_T_BEFORE" -v b="$CG_T_AFTER" 'BEGIN { printf "%.1f", b - a }')
	local left
	left=$(live_cgwatch_leftover)
	[ -z "$left" ] || { sleep 1; left=$(live_cgwatch_leftover); }
	[ -z "$left" ] || live_fail "$f: cgwatch processes left after the check: $left"
}

_run escape
e=$LIVE_TMP/escape.err
for what in "open for writing" socket "kill of the parent" exec "executable memory"; do
	line=$(grep "test: $what:" "$e")
	[ "$line" = "cgwatch: test: $what: Operation not permitted" ] ||
		live_fail "escape: '$what' in the child: '${line:-not tried}', want Operation not permitted"
done
grep -q "test: write to stdout: \(Operation not permitted\|Bad file descriptor\)" "$e" ||
	live_fail "escape: a write to stdout: $(grep 'stdout' "$e")"
[ ! -e /etc/cgwatch-escape ] || live_fail "escape: the child created /etc/cgwatch-escape"
eff=$(grep -o 'test: CapEff:.*' "$e" | grep -o '[0-9a-f]\{16\}$')
bnd=$(grep -o 'test: CapBnd:.*' "$e" | grep -o '[0-9a-f]\{16\}$')
last=$(cat /proc/sys/kernel/cap_last_cap)
want=$(printf '%016x' $(( (1 << 19) | (1 << 2) | (last >= 40 ? 1 << 40 : 1 << 21) )))
[ "$eff" = "$want" ] && [ "$bnd" = "$want" ] ||
	live_fail "escape: the child's capabilities CapEff $eff CapBnd $bnd, want $want"
grep -q "test: NoNewPrivs:.*1$" "$e" && grep -q "test: Seccomp:.*2$" "$e" ||
	live_fail "escape: no_new_privs or seccomp not set: $(grep -E 'NoNewPrivs|Seccomp' "$e" | tr '\n' ' ')"
for p in "${P[@]}"; do
	n=$(_nframes "$LIVE_TMP/escape.json" "$p")
	[ "${n:-0}" -gt 2 ] || live_fail "escape: the confined child did not unwind $p: $(_uerr "$LIVE_TMP/escape.json" "$p")"
done

_run crash
for p in "${P[@]}"; do
	m=$(_uerr "$LIVE_TMP/crash.json" "$p")
	[[ $m == *"the unwinder process died of Segmentation fault"* ]] || live_fail "crash: $p says '$m'"
done
[ "$(jq '[.findings[]?] | length' "$LIVE_TMP/crash.json")" -gt 0 ] || live_fail "crash: the report lost its findings"

_run lie                                  # a record for ../../etc: refused, the child killed
for p in "${P[@]}"; do
	m=$(_uerr "$LIVE_TMP/lie.json" "$p")
	[[ $m == *"the unwinder process sent what it may not send and was killed"* ]] || live_fail "lie: $p says '$m'"
done

_run lieframes                            # frames of a task it does not share: refused
for p in "${P[@]}"; do
	m=$(_uerr "$LIVE_TMP/lieframes.json" "$p")
	[[ $m == *"the unwinder process sent what it may not send and was killed"* ]] ||
		live_fail "lieframes: $p says '$m'"
done

_run spin                                 # silent past 4 x 0.5 + 2 = 4 s
for p in "${P[@]}"; do
	m=$(_uerr "$LIVE_TMP/spin.json" "$p")
	[[ $m == *"the unwinder process was silent for 4.0 s and was killed"* ]] || live_fail "spin: $p says '$m'"
done
awk -v t="$T" 'BEGIN { exit !(t >= 3.9 && t < 7) }' || live_fail "spin: the check took $T s, want 4-7"
T_SPIN=$T

_run loop                                 # a read deadline (0.5 s) per task, a child each
# (8 children a report at most: on a host with other blocked tasks, theirs may come first)
looped=$(jq '[.tasks[] | select((.ustack_error // "") | test("aborted after 500 ms"))] | length' "$LIVE_TMP/loop.json")
for p in "${P[@]}"; do
	m=$(_uerr "$LIVE_TMP/loop.json" "$p")
	[[ $m == *"the unwind was aborted after 500 ms: its unwind info did not terminate"* ]] ||
		{ [ "$looped" = 8 ] && [[ $m == *"ended 8 unwinder processes this report"* ]]; } ||
		live_fail "loop: $p says '$m' ($looped tasks' unwinds did not terminate)"
done
awk -v t="$T" 'BEGIN { exit !(t < 8) }' || live_fail "loop: the check took $T s, want < 8 (8 children at most)"
live_pass "escape refused 6 of 6 (CapEff $eff, no_new_privs, seccomp) and still unwound; crash named; two lies refused; a silent child killed (check $T_SPIN s); looping unwinds ended, a child each (check $T s)"

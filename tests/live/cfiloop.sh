#!/bin/bash
# live-cfiloop: a user's unwind info that never terminates costs cgwatch its deadline, once.
# As an unprivileged user (nobody), tests/live/cfiloop on x86-64: main -> loop_stat -> stat of
# a path on a FUSE mount of the user's whose server never answers (the stat blocks in D), where
# loop_stat's CFI has the CFA expression DW_OP_skip -3 (.cfi_escape 0x0f, 0x03, 0x2f, 0xfd,
# 0xff), which an unwinder evaluates without end and without reading memory: no deadline in its
# memory accessors stops it. [scan] read_timeout = 0.5 s.
#  (a) `check --format json --threshold 0` against it takes at most read_timeout (plus 1.5 s)
#      more wall time and at most read_timeout (plus 1 s) more CPU time (its children's
#      included) than a check against plain_stat, the same function with sound CFI (a control
#      whose user stack must unwind through plain_stat); it leaves no task of cgwatch behind;
#      and the process's ustack_error says its unwind info "did not terminate" (not that its
#      mmap lock is held).
#  (c) a function whose CFA expression divides INT64_MIN by -1 (SIGFPE in libunwind), beside
#      a plain_stat process: check ends normally, the first's ustack_error names the
#      unwinder's death (Floating point exception), and the second is still unwound.
#  (b) `cgwatch run` (interval 0.5 s, blocked_warning 1 s) watching three such processes for
#      about 10 s: over its last 5 s the daemon and every process it forked (alive, or reaped:
#      cutime) use under 10 % of one CPU, and none of their tasks spins: uses CPU across 1 s or
#      more of the samples (every 0.2 s) without a voluntary context switch, which holds
#      however little CPU a loaded host gives it (a healthy thread may wait on a loaded run
#      queue, R, for much of the time, but it sleeps once it has run). A report of it says
#      "did not terminate" for one of them.
# In a PID and mount namespace of its own (tests/daemon/lib.sh): check and the daemon see only
# this test's tasks, and everything it made dies with it.
LIVE_BUDGET=${LIVE_BUDGET:-40}
. "$(dirname "$0")/../daemon/lib.sh"
dmn_enter_ns "$@"
live_init cfiloop
[ "$(uname -m)" = x86_64 ] || live_skip "the looping CFI is x86-64 assembly; this is $(uname -m)"
dmn_require
live_require_tools setpriv getconf
live_require_helpers cfiloop fusehold
U=65534
RT=0.5
HZ=$(getconf CLK_TCK)
chmod 711 "$LIVE_TMP" || live_fail "setup: chmod $LIVE_TMP"
PIDS=()
live_on_exit 'for p in "${PIDS[@]}"; do live_kill_wait "$p"; done'
# start MODE: a FUSE mount of the user's, only theirs to use, on $LIVE_TMP/mntN (one each: on
# an uninitialised connection a second lookup waits for the first in fuse_lock_inode), and
# cfiloop MODE as the user stat()ing a name in it; its pid in P once it blocks there with a
# time the kernel keeps (se.exec_start not 0: one moved while still queued, as happens under
# load, has none until it runs again, and no check could tell how long it has been blocked)
start() {
	local n=${#PIDS[@]} try st
	mkdir "$LIVE_TMP/mnt$n" || live_fail "setup: mkdir $LIVE_TMP/mnt$n"
	live_fusehold "fuse$n" --owner "$U" "$LIVE_TMP/mnt$n"
	for try in 1 2 3; do
		setpriv --reuid="$U" --regid="$U" --clear-groups --no-new-privs "$LIVE_BIN/cfiloop" "$1" \
			"$LIVE_TMP/mnt$n/x$try" >"$LIVE_TMP/p$n.out" 2>"$LIVE_TMP/p$n.err" 3>&- </dev/null &
		P=$!
		PIDS[n]=$P
		_in_fuse() { [ "$(live_task_state "$P")" = D ] && grep -q fuse_get_req "/proc/$P/stack"; }
		live_wait_for 5 _in_fuse || live_fail "setup: cfiloop $1 $P not in D in fuse_get_req: state $(live_task_state "$P"), stack $(head -3 "/proc/$P/stack" | tr "\n" " "), $(cat "$LIVE_TMP/p$n.out" "$LIVE_TMP/p$n.err" | tr '\n' ' ')"
		st=$(awk '$1 == "se.exec_start" { print $3 }' "/proc/$P/sched")
		[ "$st" = 0.000000 ] || return 0
		live_kill_wait "$P"
	done
	live_skip "3 tries of cfiloop $1 all blocked with se.exec_start 0 (no time kept): nothing to test"
}
# timed_check OUT: check as root, bounded; its wall, user and system seconds (children too)
# in WALL and CPU
timed_check() {
	local t
	t=$( { TIMEFORMAT='%R %U %S'; time timeout -k 2 10 "$CGWATCH" check --config "$CONF" \
		--format json --threshold 0 >"$1" 2>"$1.err" 3>&-; } 2>&1)
	read -r WALL u s <<<"$t"
	CPU=$(dmn_fcalc "$u + $s")
	live_json_check "$1" "check"
}
# ustack_of REPORT PID: its user stack in short, or why it has none
ustack_of() {
	jq -r --argjson t "$2" '[.tasks[]? | select(.tid == $t)][0] as $k
		| if $k == null then "PID \($t) not in the report (\(.scan.untimed // 0) untimed)"
		  else ($k | {ustack_error, frames: [.ustack[]?.symbol]} | tostring) end' "$1"
}

CONF=$LIVE_TMP/check.conf
printf '[scan]\nread_timeout = %s\n' "$RT" >"$CONF"
# (a) the control, then the loop
start plain
timed_check "$LIVE_TMP/plain.json"
W0=$WALL C0=$CPU
jq -e --argjson t "$P" '[.tasks[]? | select(.tid == $t) | .ustack[]? | select(.symbol == "plain_stat")] | length > 0' \
	"$LIVE_TMP/plain.json" >/dev/null ||
	live_fail "control: the user stack of cfiloop plain $P does not go through plain_stat: $(ustack_of "$LIVE_TMP/plain.json" "$P" | head -c 400)"
live_kill_wait "$P"
start loop
timed_check "$LIVE_TMP/loop.json"
left=$(live_cgwatch_leftover)
[ -z "$left" ] || live_fail "(a) check returned and left tasks of cgwatch behind: $left"
dmn_fcmp "$WALL" '<=' "$(dmn_fcalc "$W0 + $RT + 1.5")" && dmn_fcmp "$CPU" '<=' "$(dmn_fcalc "$C0 + $RT + 1")" ||
	live_fail "(a) check against the looping CFI took $WALL s wall, $CPU s CPU; against sound CFI $W0 s, $C0 s (read_timeout $RT s)"
e=$(jq -r --argjson t "$P" '[.tasks[]? | select(.tid == $t)][0].ustack_error // ""' "$LIVE_TMP/loop.json")
[[ $e == *"did not terminate"* && $e != *"mmap lock"* ]] ||
	live_fail "(a) check took $WALL s, $CPU s CPU (control $W0 s, $C0 s); cfiloop loop $P: $(ustack_of "$LIVE_TMP/loop.json" "$P" | head -c 400); want an ustack_error saying its unwind info did not terminate"
A="check $WALL s, $C0 -> $CPU s CPU"
PA=$P

# (c) unwind info that crashes the unwinder (SIGFPE: INT64_MIN / -1), beside a sound process:
# the check ends normally, the crash is named for the first, and the second is still unwound
start fpe
PF=$P
start plain
timed_check "$LIVE_TMP/fpe.json"
e=$(jq -r --argjson t "$PF" '[.tasks[]? | select(.tid == $t)][0].ustack_error // ""' "$LIVE_TMP/fpe.json")
[[ $e == *"died of Floating point exception"* ]] ||
	live_fail "(c) cfiloop fpe $PF: $(ustack_of "$LIVE_TMP/fpe.json" "$PF" | head -c 400); want its unwinder's death named (check: $(tail -c 200 "$LIVE_TMP/fpe.json.err"))"
jq -e --argjson t "$P" '[.tasks[]? | select(.tid == $t) | .ustack[]? | select(.symbol == "plain_stat")] | length > 0' \
	"$LIVE_TMP/fpe.json" >/dev/null ||
	live_fail "(c) after the crash, cfiloop plain $P was not unwound: $(ustack_of "$LIVE_TMP/fpe.json" "$P" | head -c 400)"
live_kill_wait "$P"
live_kill_wait "$PF"

# (b) the daemon, three of them
start loop
PB=$P
start loop
LOOPS=$(printf '%s\n' "$PA" "$PB" "$P" | jq -s -c .)
dmn_conf scan.interval=0.5 scan.read_timeout=$RT thresholds.blocked_warning=1 \
	thresholds.blocked_critical=30 bundle.auto=no
dmn_start daemon
T0=$(live_now)
# ticks: the daemon's CPU, its reaped children's and every live descendant's, in TICKS;
# its tasks and theirs in TASKS
ticks() {
	local st pid ppid f sum=0 t
	local -A kids=()
	TASKS=()
	for f in /proc/[0-9]*/stat; do
		st=
		{ read -r -d '' st <"$f"; } 2>/dev/null    # status 1 at its end: no NUL in it
		[ -n "$st" ] || continue
		pid=${st%% *}
		st=${st##*) }
		read -r _ ppid _ <<<"$st"
		kids[$ppid]+=" $pid"
	done
	local todo=("$DPID") more
	while [ ${#todo[@]} -gt 0 ]; do
		pid=${todo[0]}
		todo=("${todo[@]:1}")
		st=
		{ read -r -d '' st <"/proc/$pid/stat"; } 2>/dev/null
		[ -n "$st" ] || continue
		st=${st##*) }
		read -r -a f <<<"$st"               # utime stime cutime cstime: 11..14 from the state
		sum=$((sum + f[11] + f[12] + f[13] + f[14]))
		for t in /proc/"$pid"/task/*; do TASKS+=("$pid/task/${t##*/}"); done
		read -r -a more <<<"${kids[$pid]:-}"
		todo+=("${more[@]}")
	done
	TICKS=$sum
}
while dmn_fcmp "$(live_elapsed_since "$T0")" '<' 4.5; do
	sleep 0.25
	dmn_require_alive "the first 4.5 s"
done
# 5 s of samples, every 0.2 s: the CPU the daemon's tasks used, and each task's CPU and
# voluntary context switches. A task that used CPU across 1 s or more of samples and never
# slept in between (no voluntary switch) spins, however little CPU a loaded host gives it;
# one that waits on the run queue is runnable too (R), but it sleeps once it has run
ticks
K0=$TICKS N0=$(ls "/proc/$DPID/task" | wc -l) U1=${EPOCHREALTIME/./}
declare -A F_T F_V F_C L_T L_V L_C RUNS
NS=0
while [ $((${EPOCHREALTIME/./} - U1)) -lt 5000000 ]; do   # microseconds
	sleep 0.2
	ticks
	now=${EPOCHREALTIME/./}
	for t in "${TASKS[@]}"; do
		st= v=
		{ read -r -d '' st <"/proc/$t/stat"; } 2>/dev/null
		[ -n "$st" ] || continue
		st=${st##*) }
		read -r -a f <<<"$st"
		{ while IFS= read -r l; do
			case $l in voluntary_ctxt_switches:*) v=${l##*[[:space:]]}; break ;; esac
		done <"/proc/$t/status"; } 2>/dev/null
		[ -n "$v" ] || continue
		[ "${f[0]}" = R ] && RUNS[$t]=$((${RUNS[$t]:-0} + 1))
		[ -n "${F_T[$t]:-}" ] || F_T[$t]=$now F_V[$t]=$v F_C[$t]=$((f[11] + f[12]))
		L_T[$t]=$now L_V[$t]=$v L_C[$t]=$((f[11] + f[12]))
	done
	NS=$((NS + 1))
done
ticks
K1=$TICKS N1=$(ls "/proc/$DPID/task" | wc -l)
pct=$(dmn_fcalc "100 * ($K1 - $K0) / $HZ / ((${EPOCHREALTIME/./} - $U1) / 1000000)")
spin=
for t in "${!F_T[@]}"; do
	[ $((${L_T[$t]} - ${F_T[$t]})) -ge 1000000 ] && [ "${L_V[$t]}" = "${F_V[$t]}" ] &&
		[ "${L_C[$t]}" -gt "${F_C[$t]}" ] &&
		spin+=" ${t//\/task\//:}($(cat "/proc/$t/comm" 2>/dev/null)): $((${L_C[$t]} - ${F_C[$t]})) ticks in $(dmn_fcalc "(${L_T[$t]} - ${F_T[$t]}) / 1000000") s, R in ${RUNS[$t]:-0}/$NS samples;"
done
dmn_require_alive "after its 5 s of samples"
B="daemon ${pct} % of a CPU over 5 s ($NS samples), threads $N0 -> $N1"
dmn_fcmp "$pct" '<' 10 && [ "$NS" -ge 10 ] && [ -z "$spin" ] ||
	live_fail "(b) $B; tasks that used CPU and never slept:${spin:- none} ((a) passed: $A)"
jq -e -s --argjson p "$LOOPS" '[.[] | .tasks[]? | select(.tid as $t | $p | index($t))
		| select((.ustack_error // "") | contains("did not terminate"))] | length > 0' \
		"$DMN_REPORTS"/*.json >/dev/null ||
	live_fail "(b) $B; but no report says the unwind of one of $LOOPS did not terminate: $(jq -r -s --argjson p "$LOOPS" '[.[] | .tasks[]? | select(.tid as $t | $p | index($t)) | .ustack_error] | unique | join(" | ")' "$DMN_REPORTS"/*.json 2>/dev/null | head -c 300); $(ls "$DMN_REPORTS" | head -5 | tr '\n' ' ')"
dmn_stop TERM 3
live_pass "$A; $B"

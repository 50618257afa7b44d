#!/bin/bash
# live-walkslices: the task walker (the daemon's default scan source, the open-coded task iterator; a check here loads it through [scan] source = walker)
# walks the host in runs of at most a quarter of a millisecond, each resuming at the process
# and thread where the last stopped, and counts every thread once. A process of 20,000
# sleeping threads, then a sleeper frozen in a v1 freezer cgroup (started after them: later
# in the task list); `check --verbose --format json --threshold 1`: the walker was used, its
# walk took more than one run (its debug line "task walk: N threads in R runs"), N and
# scan.threads are /proc's count of threads (counted just before and just after, within 300
# for other tests' tasks coming and going: a run resumed at the wrong place counts a run's
# worth of threads, thousands, twice or not at all), and the frozen sleeper is found. Then,
# those threads gone, 3,000 one-thread processes: the walker, /proc's count, the sleeper
# found; and 4,500 (more than the 4,000 above which each run's pass over the
# processes before it costs more than the iter/task program): the report says the task
# iterator was read, with /proc's count of threads, and the sleeper found.
. "$(dirname "$0")/lib.sh"
live_init walkslices
live_require_root
live_require_tools jq timeout awk
live_require_binary
live_require_helpers manythreads manyprocs
live_mktemp
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the walker cannot load here"
FZ=/sys/fs/cgroup/freezer
[ -f "$FZ/tasks" ] || live_skip "no cgroup v1 freezer hierarchy at $FZ"
N=20000

CG=$FZ/cgwatch-walkslices-$$
live_on_exit 'rmdir_cg'
live_on_exit 'live_kill_wait "$SLEEPER"'
live_on_exit 'thaw'
live_on_exit 'live_kill_wait "$MANY"'
live_on_exit 'live_kill_wait "$PROCS"'
live_on_exit 'live_kill_wait "$PROCS2"'
thaw() { [ -d "$CG" ] || return 0; echo THAWED >"$CG/freezer.state" || live_cleanup_error "could not thaw $CG"; }
rmdir_cg() { [ -d "$CG" ] || return 0; live_wait_for 3 rmdir "$CG" 2>/dev/null || live_cleanup_error "could not rmdir $CG"; }

"$LIVE_BIN/manythreads" "$N" >"$LIVE_TMP/many.out" 2>&1 3>&- &
MANY=$!
live_wait_for 30 grep -q '^ready$' "$LIVE_TMP/many.out" || live_fail "setup: $N threads not started: $(head -c 200 "$LIVE_TMP/many.out")"
mkdir "$CG" || live_fail "setup: mkdir $CG failed"
sleep 1000 3>&- &
SLEEPER=$!
echo "$SLEEPER" >"$CG/cgroup.procs" || live_fail "setup: could not move $SLEEPER into $CG"
asleep() { [ "$(live_task_state "$SLEEPER")" = S ]; }
live_wait_for 3 asleep || live_fail "setup: sleeper $SLEEPER not asleep"
echo FROZEN >"$CG/freezer.state" || live_fail "setup: could not write FROZEN"
is_frozen() { [ "$(cat "$CG/freezer.state")" = FROZEN ] && [ "$(live_task_state "$SLEEPER")" = D ]; }
live_wait_for 5 is_frozen || live_fail "setup: $CG not frozen, or $SLEEPER not in D"
sleep 1.2

threads() { local n=0 d; for d in /proc/[0-9]*/task; do set -- "$d"/*; [ -e "$1" ] && n=$((n + $#)); done; echo "$n"; }
printf '[scan]\nsource = walker\n' >"$LIVE_TMP/walker.conf"   # a check loads the walker too
# scan TAG FILE WANT ARGS...: a check (ARGS added) into $LIVE_TMP/FILE.json, counting /proc's
# threads before and after; its scan source must start with WANT, its scan.threads must be
# /proc's count within 300 (SCANNED; BEFORE, AFTER, LO, HI kept), the frozen sleeper found
scan() {
	local tag=$1 f=$2 want=$3 why
	shift 3
	BEFORE=$(threads)
	live_cgwatch "$LIVE_TMP/$f.json" "$LIVE_TMP/$f.err" check --format json --threshold 1 --config "$LIVE_TMP/walker.conf" "$@"
	AFTER=$(threads)
	live_json_check "$LIVE_TMP/$f.json" "check ($tag)"
	why=$(jq -r '.scan.source + ": " + .scan.source_why' "$LIVE_TMP/$f.json")
	WHY=$why
	[[ $why == "$want"* ]] || live_fail "$tag: $why, want $want"
	SCANNED=$(jq -r .scan.threads "$LIVE_TMP/$f.json")
	LO=$(( (BEFORE < AFTER ? BEFORE : AFTER) - 300 )) HI=$(( (BEFORE > AFTER ? BEFORE : AFTER) + 300 ))
	[ "$SCANNED" -ge "$LO" ] && [ "$SCANNED" -le "$HI" ] ||
		live_fail "$tag: scan.threads $SCANNED, want /proc's count ($BEFORE before, $AFTER after) within 300"
	jq -e --argjson t "$SLEEPER" '[.findings[]? | select(.id == "frozen" and (.tasks | index($t)))] | length == 1' \
		"$LIVE_TMP/$f.json" >/dev/null || live_fail "$tag: no frozen finding for $SLEEPER: $(live_summary "$LIVE_TMP/$f.json")"
}

# Where this kernel refuses the walker, the contract is that the report names the refusal and
# the iter/task program counts the same threads and finds the sleeper; the walker's runs
# cannot be tested then: SKIP, saying so
scan "$N threads" r "bpf: task " --verbose
case $(live_kernel_feature "$LIVE_TMP/r.json" task-walker) in
used:*) ;;
"refused: "?*)
	[[ $WHY == "bpf: task iterator loaded; the kernel refused the task walker ("* ]] ||
		live_fail "the walker refused, but the report does not say so in source_why: $WHY"
	live_skip "this kernel refused the task walker ($(live_kernel_feature "$LIVE_TMP/r.json" task-walker | head -c 200)); the iter/task program counted $SCANNED threads and found the frozen sleeper" ;;
*) live_fail "the task walker is neither used nor refused with a reason: $(live_kernel_feature "$LIVE_TMP/r.json" task-walker); $WHY" ;;
esac
[[ $WHY == "bpf: task walker loaded"* ]] || live_fail "$N threads: $WHY, want the task walker"
line=$(grep -m1 -E '^cgwatch: debug: task walk: [0-9]+ threads in [0-9]+ runs' "$LIVE_TMP/r.err") ||
	live_fail "no 'task walk' line in check --verbose: $(grep -m3 'debug' "$LIVE_TMP/r.err" | tr '\n' '|' | head -c 300)"
read -r walked runs < <(sed -E 's/^.*task walk: ([0-9]+) threads in ([0-9]+) runs.*$/\1 \2/' <<<"$line")
scanned=$SCANNED before=$BEFORE after=$AFTER
[ "$runs" -ge 2 ] || live_fail "$N threads walked in $runs run, want more than one: $line"
# the walk leaves out cgwatch itself and PID 1's threads (read from /proc, in scan.threads)
[ "$walked" -ge "$LO" ] && [ "$walked" -le "$HI" ] ||
	live_fail "walked $walked, want /proc's count of threads ($before before, $after after) within 300: $line"
live_kill_wait "$MANY"
# 3,000 processes: the walker still, each run resuming in a process found by its pid
"$LIVE_BIN/manyprocs" 3000 >"$LIVE_TMP/procs.out" 2>&1 3>&- &
PROCS=$!
live_wait_for 60 grep -q '^ready$' "$LIVE_TMP/procs.out" || live_fail "setup: 3000 processes not started: $(head -c 200 "$LIVE_TMP/procs.out")"
scan "3000 processes" f "bpf: task walker loaded" --verbose
line1=$(grep -m1 -E '^cgwatch: debug: task walk: [0-9]+ threads in [0-9]+ runs \([0-9]+ restarts, [0-9]+ on a full ring buffer\)' "$LIVE_TMP/f.err") ||
	live_fail "3000 processes: no 'task walk' line: $(grep -m3 'task walk' "$LIVE_TMP/f.err" | tr '\n' '|')"
# 1,500 more: 4,500
"$LIVE_BIN/manyprocs" 1500 >"$LIVE_TMP/procs2.out" 2>&1 3>&- &
PROCS2=$!
live_wait_for 60 grep -q '^ready$' "$LIVE_TMP/procs2.out" || live_fail "setup: 1500 more processes not started: $(head -c 200 "$LIVE_TMP/procs2.out")"
scan "4500 processes" p "bpf: task iterator read: "
live_proof scan-walker
live_proof scan-iterator
live_pass "${line#cgwatch: debug: }; scan.threads $scanned, /proc $before..$after; frozen $SLEEPER found; 3000 processes: ${line1#cgwatch: debug: }; 4500 processes: ${WHY:0:60}..., scan.threads $SCANNED"

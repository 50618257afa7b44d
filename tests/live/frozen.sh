#!/bin/bash
# live-frozen: tasks in a v1 freezer cgroup with freezer.state=FROZEN show
# state D, but they are not hung: cgwatch reports them with signature frozen,
# frozen true, only info-severity findings, and exits 0.
# Two tasks: a sleeper frozen while asleep (keeps its hrtimer_nanosleep stack,
# so only the freezer state tells) and a spinner frozen while running
# (__refrigerator on its stack).
. "$(dirname "$0")/lib.sh"
live_init frozen
live_require_root
live_require_tools jq timeout awk
live_require_binary
live_mktemp

FZ=/sys/fs/cgroup/freezer
[ -f "$FZ/freezer.state" ] || [ -f "$FZ/tasks" ] ||
	live_skip "no cgroup v1 freezer hierarchy at $FZ"
CG=$FZ/cgwatch-test-$$

# Cleanup (reverse order): thaw, kill the tasks, then remove the cgroup.
live_on_exit 'rmdir_cg'
live_on_exit 'live_kill_wait "$SPINNER"'
live_on_exit 'live_kill_wait "$SLEEPER"'
live_on_exit 'thaw'
thaw() {
	[ -d "$CG" ] || return 0
	echo THAWED >"$CG/freezer.state" || live_cleanup_error "could not thaw $CG"
}
rmdir_cg() {
	[ -d "$CG" ] || return 0
	live_wait_for 3 rmdir "$CG" 2>/dev/null || live_cleanup_error "could not rmdir $CG: tasks=$(tr '\n' ' ' <"$CG/tasks")"
}

mkdir "$CG" || live_fail "setup: mkdir $CG failed"
sleep 1000 3>&- &
SLEEPER=$!
bash -c 'while :; do :; done' 3>&- &
SPINNER=$!
echo "$SLEEPER" >"$CG/cgroup.procs" || live_fail "setup: could not move $SLEEPER into $CG"
echo "$SPINNER" >"$CG/cgroup.procs" || live_fail "setup: could not move $SPINNER into $CG"
# The sleeper must be asleep in nanosleep before it is frozen.
asleep() { [ "$(live_task_state "$SLEEPER")" = S ]; }
live_wait_for 3 asleep || live_fail "setup: sleeper $SLEEPER not sleeping: state $(live_task_state "$SLEEPER")"

echo FROZEN >"$CG/freezer.state" || live_fail "setup: could not write FROZEN"
is_frozen() { [ "$(cat "$CG/freezer.state")" = FROZEN ]; }
live_wait_for 5 is_frozen || live_fail "setup: $CG freezer.state is '$(cat "$CG/freezer.state")' after 5 s, want FROZEN"
for t in "$SLEEPER" "$SPINNER"; do
	[ "$(live_task_state "$t")" = D ] || live_fail "setup: frozen task $t in state '$(live_task_state "$t")', want D"
done

sleep 2
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --format json --threshold 1
live_json_check "$OUT" "check --format json --threshold 1"

for t in "$SLEEPER" "$SPINNER"; do
	what="frozen task $t ($(cat "/proc/$t/comm"), wchan $(cat "/proc/$t/wchan"))"
	task=$(live_task_json "$OUT" "$t")
	[ -n "$task" ] || live_fail "$what not in tasks[] (rc $CG_RC): $(live_summary "$OUT")"
	sig=$(jq -r '.signature' <<<"$task")
	frozen=$(jq -r '.frozen' <<<"$task")
	[ "$sig" = frozen ] || live_fail "$what: signature '$sig', want frozen; task=$(head -c 400 <<<"$task")"
	[ "$frozen" = true ] || live_fail "$what: frozen is '$frozen', want true"
	f=$(live_findings_for "$OUT" "$t")
	[ -n "$f" ] || live_fail "$what: no finding lists it; findings: $(live_summary "$OUT")"
	bad=$(tr ',' '\n' <<<"$f" | grep -v ':info$' | tr '\n' ' ')
	[ -z "$bad" ] || live_fail "$what: findings with severity other than info: $bad"
done
[ "$CG_RC" = 0 ] || live_fail "exit code $CG_RC, want 0 (frozen is info-only); $(live_summary "$OUT")"

live_pass

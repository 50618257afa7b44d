#!/bin/bash
# live-clockfloor: a D task on a CPU whose clock cgwatch cannot read by hopping there (here:
# cgwatch runs in a v1 cpuset of CPU 0 only, as a CPU saturated past the read deadline would
# leave it) is timed by the floor a runnable task there gives (its se.exec_start), even when
# the walk reaches that runnable task after the blocked one: a task stuck on FUSE on CPU 1, a
# busy loop started after it on CPU 1 (a higher pid: walked later). check --threshold 1 must
# report it as fuse-wait with a lower bound between 1 s and the time it has really waited
# (before, it was counted as untimed and not reported).
. "$(dirname "$0")/lib.sh"
live_init_fuse clockfloor jq timeout awk taskset
[ "$(nproc --all)" -ge 2 ] || live_skip "needs 2 CPUs"
CS=/sys/fs/cgroup/cpuset
[ -f "$CS/cpuset.cpus" ] || live_skip "no cgroup v1 cpuset hierarchy at $CS"
grep -qw 1 <(tr ',-' '  ' <"$CS/cpuset.cpus") || live_skip "CPU 1 is not in the root cpuset ($(cat "$CS/cpuset.cpus"))"
CG=$CS/cgwatch-clockfloor-$$
live_on_exit 'rmdir_cg'
rmdir_cg() { [ -d "$CG" ] || return 0; live_wait_for 3 rmdir "$CG" 2>/dev/null || live_cleanup_error "could not rmdir $CG"; }
mkdir "$CG" && echo 0 >"$CG/cpuset.cpus" && echo 0 >"$CG/cpuset.mems" || live_fail "setup: cpuset $CG"

MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
live_on_exit 'live_umount "$MNT"'
live_on_exit 'live_kill_task "$CHILD"'
live_on_exit 'live_kill_wait "$HELPER"'
taskset -c 1 "$LIVE_BIN/fusehold" "$MNT" --child >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- &
HELPER=$!
child_line() { grep -q '^child ' "$LIVE_TMP/helper.out"; }
live_wait_for 5 child_line || live_fail "setup: fusehold printed no child line: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err")"
read -r _ CHILD T_START < <(grep '^child ' "$LIVE_TMP/helper.out")   # T_START: before it blocked
in_fuse() { [ "$(live_task_state "$CHILD")" = D ] && grep -q fuse_get_req "/proc/$CHILD/stack"; }
live_wait_for 5 in_fuse || live_fail "setup: child $CHILD not in D in fuse_get_req"
[ "$(awk '{ print $39 }' "/proc/$CHILD/stat")" = 1 ] || live_fail "setup: child $CHILD last ran on CPU $(awk '{ print $39 }' "/proc/$CHILD/stat"), not 1"
# the busy loop on CPU 1, after the child: a higher pid, walked after it
live_on_exit 'live_kill_wait "$HOG"'
taskset -c 1 bash -c 'while (( SECONDS < 60 )); do :; done' 3>&- &   # one process, bounded
HOG=$!
[ "$HOG" -gt "$CHILD" ] || live_skip "pids wrapped: the loop ($HOG) would be walked before the child ($CHILD)"
sleep 2

OUT=$LIVE_TMP/check.json ERR=$LIVE_TMP/check.err
# cgwatch in the cpuset of CPU 0: it cannot hop onto CPU 1
CG_T_BEFORE=$(live_now)
timeout -k 2 20 sh -c 'echo $$ >"$1/tasks" && exec "$2" check --format json --threshold 1' sh "$CG" "$CGWATCH" \
	>"$OUT" 2>"$ERR" 3>&-
RC=$?
WAITED=$(live_elapsed_since "$T_START")
live_json_check "$OUT" "check in the cpuset of CPU 0"
t=$(jq -c --argjson c "$CHILD" '[.tasks[]? | select(.tid == $c)][0] // empty' "$OUT")
f=$(jq -r --argjson c "$CHILD" '[.findings[]? | select(.tasks | index($c)) | .id][0] // "none"' "$OUT")
[ "$RC" = 1 ] && [ "$f" = fuse-wait ] ||
	live_fail "child $CHILD on CPU 1: exit $RC, finding $f, want 1 and fuse-wait (untimed $(jq .scan.untimed "$OUT")): $(live_summary "$OUT")"
[ "$(jq -r .blocked_bound <<<"$t")" = lower ] ||
	live_fail "child $CHILD: blocked_bound $(jq -r .blocked_bound <<<"$t"), want lower (CPU 1's clock was not read)"
b=$(jq -r .blocked_s <<<"$t")
awk -v b="$b" -v w="$WAITED" 'BEGIN { exit !(b >= 1 && b <= w + 0.1) }' ||
	live_fail "child $CHILD: blocked_s $b, want between 1 and the $WAITED s it has waited"
live_pass "child on CPU 1 timed by the busy loop's floor: blocked at least $b s of $WAITED s"

#!/bin/bash
# live-lockowner: the owner of the lock a blocked task waits on, from the kernel
# (task->blocker, CONFIG_DETECT_HUNG_TASK_BLOCKER, read by the scan's task iterator). A task
# stat()s a path under a FUSE mount that never answers: it waits in fuse_get_req holding the
# mount root's i_rwsem for reading (the lookup); `mkdir` in that directory then waits to take
# it for writing. `check --format json` through the iterator: mkdir's task has lock {kind
# "rw-semaphore-write", owner_tid the stat()ing task, owner_likely}, its finding's chain
# is [mkdir, the owner], and its evidence names the owner blocked in fuse_get_req with its
# finding (fuse-wait). Through /proc ([scan] source = proc) none of it: the kernel shows it
# only in its own hung-task report.
. "$(dirname "$0")/lib.sh"
live_init_fuse lockowner jq timeout awk bpftool pgrep
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the iterator cannot load here"
# the kernel tracks what a task blocks on only with CONFIG_DETECT_HUNG_TASK_BLOCKER (6.16 on)
bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	awk "/STRUCT 'task_struct'/ { f = 1; next } f && /^\[/ { exit 1 } f && /'blocker'/ { exit 0 } END { if (!f) exit 1 }" ||
	live_skip "this kernel's task_struct has no blocker field (CONFIG_DETECT_HUNG_TASK_BLOCKER)"
live_fuse_child
OWNER=$CHILD
live_on_exit 'live_kill_task "$MK"'
(exec -a cgw-mkdir timeout 60 mkdir "$MNT/y") 2>/dev/null 3>&- &
MK=$!
mk_tid() { MKT=$(pgrep -x -P "$MK" mkdir || true); [ -z "$MKT" ] && [ "$(cat /proc/$MK/comm 2>/dev/null)" = mkdir ] && MKT=$MK; [ -n "$MKT" ] && [ "$(live_task_state "$MKT")" = D ]; }
live_wait_for 5 mk_tid || live_fail "setup: mkdir under $MNT not in D"
grep -q filename_create "/proc/$MKT/stack" || live_fail "setup: mkdir $MKT not waiting in filename_create: $(tr '\n' ' ' <"/proc/$MKT/stack")"
sleep 1.5

printf '[scan]\nsource = proc\n' >"$LIVE_TMP/proc.conf"
live_cgwatch "$LIVE_TMP/bpf.json" "$LIVE_TMP/bpf.err" check --format json --threshold 1
live_json_check "$LIVE_TMP/bpf.json" "check (bpf)"
live_cgwatch "$LIVE_TMP/proc.json" "$LIVE_TMP/proc.err" check --format json --threshold 1 --config "$LIVE_TMP/proc.conf"
live_json_check "$LIVE_TMP/proc.json" "check (proc)"
[ "$(jq -r .scan.source "$LIVE_TMP/bpf.json")" = bpf ] ||
	live_fail "the iterator was not used: $(jq -r .scan.source_why "$LIVE_TMP/bpf.json")"
lock=$(jq -c --argjson t "$MKT" '[.tasks[] | select(.tid == $t)][0].lock' "$LIVE_TMP/bpf.json")
jq -e --argjson o "$OWNER" '.kind == "rw-semaphore-write" and .owner_tid == $o and .owner_likely == true' <<<"$lock" >/dev/null ||
	live_fail "bpf: mkdir's lock $lock, want an rw-semaphore to write owned by $OWNER"
f=$(jq -c --argjson t "$MKT" '[.findings[] | select(.tasks | index($t))][0]' "$LIVE_TMP/bpf.json")
[ "$(jq -c .chain <<<"$f")" = "[$MKT,$OWNER]" ] || live_fail "bpf: chain $(jq -c .chain <<<"$f"), want [$MKT,$OWNER]"
jq -e --argjson o "$OWNER" 'any(.evidence[]; test("held for reading, its last reader PID \($o) .*itself blocked \\(D\\) for .* in fuse_get_req \\(finding fuse-wait"))' <<<"$f" >/dev/null ||
	live_fail "bpf: no evidence line naming the owner: $(jq -c .evidence <<<"$f" | head -c 600)"
fp=$(jq -c --argjson t "$MKT" '[.findings[] | select(.tasks | index($t))][0]' "$LIVE_TMP/proc.json")
jq -e --argjson t "$MKT" '.chain == [$t] and all(.evidence[]; test("rw-semaphore") | not)' <<<"$fp" >/dev/null ||
	live_fail "proc: the lock should be unknown: $(head -c 400 <<<"$fp")"
live_pass "$(jq -r --argjson o "$OWNER" '.evidence[] | select(test("last reader PID \($o)"))' <<<"$f" | head -c 160)"

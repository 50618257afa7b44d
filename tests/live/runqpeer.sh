#!/bin/bash
# live-runqpeer: cgwatch's run-queue waits against a runqlat-style bpftrace peer over the same
# window. CPU 1 is loaded by a SCHED_OTHER busy loop (tests/live/hog) and a forker
# (tests/live/forker 1 300: 300 new tasks a second created there, each exits at once), so a
# third or more of its waits are a new task's first (wake_up_new_task to its first run).
# `cgwatch runq --interval 3` runs under a name of its own (cgwrqPID); the peer counts only
# between that process's two map reads (bpf(2) BPF_MAP_LOOKUP_ELEM, its only two: the
# per-CPU "stats" map, read just after the program is switched to the other slot), so both
# see the same window. The peer measures as the kernel's sched_info does: from sched_wakeup or
# sched_wakeup_new, or from a switch-out that leaves the task runnable (preempted: prev_state
# TASK_REPORT_MAX), kept, not moved, by a wakeup while queued; to the switch-in, on CPU 1.
# Passes when CPU 1's counts agree within 5 % + 20 waits (a wait that straddles an edge is
# counted at its switch-in by the peer, at its switch-out by cgwatch), the p99s within 15 %
# (cgwatch's is interpolated in log2 buckets; the peer's waits are put in the same buckets),
# and the longest waits within 10 % + 0.5 ms (or cgwatch's is the peer's second longest: one
# wait at an edge). The PASS line also gives what Debian's
# runqlat.bt would have said (prev_state == TASK_RUNNING only, every wakeup restarting the
# wait): preempted tasks' waits missed, or shortened to the last wakeup while queued.
# SKIPs without bpftrace, BPF (the runq program refused) or a second CPU.
LIVE_BUDGET=${LIVE_BUDGET:-60}
. "$(dirname "$0")/lib.sh"
live_init runqpeer
live_require_root
live_require_tools jq timeout taskset awk
command -v bpftrace >/dev/null || live_skip "bpftrace is not installed"
live_require_helpers forker hog
live_require_binary
live_mktemp
[ "$(nproc --all)" -ge 2 ] && grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null ||
	live_skip "needs a second CPU online"
[ -e /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF (/sys/kernel/btf/vmlinux): neither cgwatch's program nor the peer can load"
[ -d /sys/kernel/tracing/events/syscalls/sys_enter_bpf ] ||
	live_skip "no syscalls:sys_enter_bpf tracepoint: the peer cannot find cgwatch's window"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"

NAME=cgwrq$$
cp "$CGWATCH" "$LIVE_TMP/$NAME" || live_fail "setup: cp cgwatch"
live_on_exit 'live_hard_kill "$PEER"; live_hard_kill "$FORKER"; live_kill_wait "$HOG"'

cat >"$LIVE_TMP/peer.bt" <<'EOF'
BEGIN { printf("ready\n"); }
tracepoint:syscalls:sys_enter_bpf
/comm == str($1) && args->cmd == 1/
{
	@edge++;
	if (@edge == 1) { @on = 1; }
	if (@edge == 2) {
		@on = 0;
		printf("end n %lld max %lld stock_n %lld stock_max %lld\n", @n, @max, @sn, @smax);
		exit();
	}
}
tracepoint:sched:sched_wakeup,
tracepoint:sched:sched_wakeup_new
{
	if (@q[args->pid] == 0) { @q[args->pid] = nsecs; }   /* queued since: kept */
	@s[args->pid] = nsecs;                               /* runqlat.bt: restarted */
}
tracepoint:sched:sched_switch
{
	if (args->prev_pid != 0) {
		/* runnable still: 0 (a yield) or TASK_REPORT_MAX (0x100, preempted) */
		if ((args->prev_state & 0xff) == 0) { @q[args->prev_pid] = nsecs; }
		if (args->prev_state == 0) { @s[args->prev_pid] = nsecs; }
	}
	$q = @q[args->next_pid];
	$s = @s[args->next_pid];
	if (@on && cpu == 1 && args->next_pid != 0) {
		if ($q) {
			$d = nsecs - $q;
			@n++;
			if ($d > @max) { @max = $d; }
			printf("w %lld\n", $d / 1000);
		}
		if ($s) {
			@sn++;
			if (nsecs - $s > @smax) { @smax = nsecs - $s; }
		}
	}
	delete(@q[args->next_pid]);
	delete(@s[args->next_pid]);
}
EOF

taskset -c 1 "$LIVE_BIN/hog" 1 40 >"$LIVE_TMP/hog.out" 2>&1 </dev/null &
HOG=$!
"$LIVE_BIN/forker" 1 300 40 >"$LIVE_TMP/forker.out" 2>&1 </dev/null &
FORKER=$!
live_wait_for 5 grep -q '^hogs ' "$LIVE_TMP/hog.out" || live_fail "setup: hog: $(cat "$LIVE_TMP/hog.out")"
live_wait_for 5 grep -q '^forking ' "$LIVE_TMP/forker.out" || live_fail "setup: forker: $(cat "$LIVE_TMP/forker.out")"

BPFTRACE_MAP_KEYS_MAX=65536 timeout -k 2 40 bpftrace "$LIVE_TMP/peer.bt" "$NAME" \
	>"$LIVE_TMP/peer.out" 2>"$LIVE_TMP/peer.err" </dev/null &
PEER=$!
live_wait_for 20 grep -q '^ready' "$LIVE_TMP/peer.out" ||
	live_skip "bpftrace could not attach the peer here: $(grep -v '^$' "$LIVE_TMP/peer.err" | tail -2 | tr '\n' ' ' | head -c 300)"

CGWATCH=$LIVE_TMP/$NAME live_cgwatch "$LIVE_TMP/runq.json" "$LIVE_TMP/runq.err" runq --interval 3
[ "$CG_RC" = 0 ] || live_fail "cgwatch runq exit $CG_RC: $(head -c 300 "$LIVE_TMP/runq.err")"
src=$(jq -r .source "$LIVE_TMP/runq.json")
[ "$src" = sched_switch ] ||
	live_skip "the run-queue program is not used here ($src: $(jq -r .why "$LIVE_TMP/runq.json" | head -c 200)): nothing exact to compare"
live_wait_for 10 grep -q '^end ' "$LIVE_TMP/peer.out" ||
	live_fail "the peer saw no end of cgwatch's window: $(tail -c 300 "$LIVE_TMP/peer.err")"
wait "$PEER" 2>/dev/null
PEER=
grep -q 'Lost [0-9]* events' "$LIVE_TMP/peer.err" &&
	live_fail "the peer lost events (its p99 would be wrong): $(grep -m1 Lost "$LIVE_TMP/peer.err")"

read -r _ _ pn _ pmax_ns _ sn _ smax_ns < <(grep '^end ' "$LIVE_TMP/peer.out")
cpu1=$(jq -c '[.cpus[] | select(.cpu == 1)][0] // empty' "$LIVE_TMP/runq.json")
[ -n "$cpu1" ] || live_fail "no CPU 1 in cgwatch's runq: $(head -c 300 "$LIVE_TMP/runq.json")"
cn=$(jq .count <<<"$cpu1") c99=$(jq .p99_ms <<<"$cpu1") cmax=$(jq .max_ms <<<"$cpu1")
forks=$(awk '/^w /' "$LIVE_TMP/peer.out" | wc -l)
# the peer's p99 as cgwatch computes one: log2 buckets of us, interpolated in the bucket
p99=$(awk -v max="$pmax_ns" '/^w / { us = $2; k = 0; while (us >= 2) { us /= 2; k++ } b[k]++; n++ }
	END { if (!n) { print 0; exit } rank = 0.99 * n; cum = 0
		for (k = 0; k < 64; k++) { if (!b[k]) continue
			if (cum + b[k] >= rank) { lo = k ? 2 ^ k : 0; hi = 2 ^ (k + 1); f = (rank - cum) / b[k]
				v = (lo + f * (hi - lo)) / 1000; m = max / 1e6; printf "%.3f", (v > m ? m : v); exit }
			cum += b[k] } }' "$LIVE_TMP/peer.out")
pmax=$(awk -v m="$pmax_ns" 'BEGIN { printf "%.3f", m / 1e6 }')
smax=$(awk -v m="$smax_ns" 'BEGIN { printf "%.3f", m / 1e6 }')
said="CPU 1 over 3 s: cgwatch $cn waits, p99 $c99 ms, max $cmax ms; peer $pn waits, p99 $p99 ms, max $pmax ms; runqlat.bt's way $sn waits, max $smax ms"
[ "$forks" -gt 0 ] && [ "$pn" -ge 300 ] || live_fail "the peer counted too few waits on CPU 1 to compare ($said)"
awk -v a="$cn" -v b="$pn" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 * b + 20) }' ||
	live_fail "the counts differ by more than 5 % + 20: $said"
awk -v a="$c99" -v b="$p99" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.15 * b) }' ||
	live_fail "the p99s differ by more than 15 %: $said"
# the longest waits: within 10 % + 0.5 ms, or cgwatch's is the peer's second longest (one wait
# that straddles an edge of the window, in the peer's count and not in cgwatch's, as above)
p2=$(awk '/^w /{print $2}' "$LIVE_TMP/peer.out" | sort -n | tail -2 | head -1)
awk -v a="$cmax" -v b="$pmax" -v s="${p2:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; e = a - s / 1000
	if (e < 0) e = -e; exit !(d <= 0.1 * b + 0.5 || (a < b && e <= 0.1 * a + 0.5)) }' ||
	live_fail "the longest waits differ by more than 10 % + 0.5 ms (the peer's second longest $(awk -v s="${p2:-0}" 'BEGIN { printf "%.3f", s / 1000 }') ms): $said"
live_proof runq-program
live_pass "$said"

#!/bin/bash
# live-daemon-latencyrstat: a latency incident that points to the rstat flush, with its
# readers. In the initial PID namespace (DMN_PIDNS=0: the run-queue measurement names tasks by
# their host ids), scans every 2 s, [latency] runq_p99_ms = 4 on one scan (the CPUs must pass
# it: the test is about what the evidence says, not the threshold), pressure off:
#   - a memory-controller subtree of CGROUPS (200) cgroups on a cgroup v1 memory hierarchy
#     mounted at a directory of our own in a private mount namespace (removed at the end,
#     children first), a task charging memory in it, and, once the daemon has scanned
#     twice without them (its "before": its metrics file counts two scans; this was a fixed
#     5 s, three scans), two readers per CPU (statread, named cgwstatrd)
#     reading its memory.stat files in a tight loop, as a monitoring agent that polls too
#     often, and with them the cpu.stat of a cgroup v2 subtree of our own (on the host's v2
#     mount): memory.stat reads flush the statistics only once enough updates are pending
#     (this kernel ratelimits mem_cgroup_flush_stats), so on two CPUs they alone contend for
#     the rstat lock a few times a minute (measured: 0 to 3 in 3 s, with 8 readers and
#     memory charged in 40 cgroups); cpu.stat reads flush the base statistics every time
#     (measured: 500 contentions/s with 4 readers). Both flush under the one rstat lock;
#     readers on both CPUs contend for it;
#   - within 30 s, a report of a runq-latency incident whose finding points to rstat-flush,
#     says "tracepoint cgroup:cgroup_rstat_lock_contended: X/s over 2.0 s, up from Y/s before
#     the latency" (the daemon's last interval without a latency finding) and names a reader, "rstat reader: PID N (cgwstatrd), ... has
#     css_rstat_flush (or cgroup_rstat_flush, mem_cgroup_flush_stats...) on its kernel stack",
#     with rstat-flush's remedies.
# Skips without the sched_switch program, perf counting of the tracepoint, or a v1 memory
# controller.
DMN_PIDNS=0
LIVE_BUDGET=${LIVE_BUDGET:-85}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-latencyrstat
dmn_require nofuse
live_require_tools taskset jq
[ -x "$DMN_BIN/statread" ] || live_fail "helper $DMN_BIN/statread missing after build"
[ "$(nproc --all)" -ge 2 ] || live_skip "needs two CPUs (readers on both contend)"
grep -qw memory /proc/cgroups || live_skip "no memory controller"
N=${CGROUPS:-200}

# the memory hierarchy, at a mount point of our own (this namespace's)
MC=$LIVE_TMP/memcg
mkdir "$MC" || live_fail "setup: mkdir $MC"
timeout 10 mount -t cgroup -o memory cgroup "$MC" 2>"$LIVE_TMP/mount.err" ||
	live_skip "cannot mount a cgroup v1 memory hierarchy: $(head -c 200 "$LIVE_TMP/mount.err")"
SUB=$MC/cgwlat$$
V2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$V2" ] || live_skip "no cgroup v2 mount (its cpu.stat is read with memory.stat)"
SUB2=$V2/cgwlat$$
memcg_cleanup() {
	local d i
	if [ -d "$SUB" ]; then
		for d in "$SUB"/c*; do
			[ -d "$d" ] || continue
			# tasks left in it go to the root first: an occupied cgroup cannot be removed
			while read -r i; do echo "$i" >"$MC/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
			rmdir "$d" 2>/dev/null || live_cleanup_error "rmdir $d failed"
		done
		rmdir "$SUB" || live_cleanup_error "rmdir $SUB failed"
	fi
	live_umount "$MC"
	if [ -d "$SUB2" ]; then
		for d in "$SUB2"/c*; do [ -d "$d" ] && { rmdir "$d" || live_cleanup_error "rmdir $d failed"; }; done
		rmdir "$SUB2" || live_cleanup_error "rmdir $SUB2 failed"
	fi
}
live_on_exit memcg_cleanup
mkdir "$SUB" || live_fail "setup: mkdir $SUB"
for i in $(seq 1 "$N"); do mkdir "$SUB/c$i" || live_fail "setup: mkdir $SUB/c$i"; done
mkdir "$SUB2" || live_fail "setup: mkdir $SUB2"
for i in $(seq 1 20); do mkdir "$SUB2/c$i" || live_fail "setup: mkdir $SUB2/c$i"; done

PIDS=()
live_on_exit 'for p in "${PIDS[@]}"; do live_kill_wait "$p"; done'
dmn_journald optional
dmn_conf scan.interval=2 latency.runq_p99_ms=4 latency.runq_scans=1 run.pin_housekeeping=no \
	pressure.cpu=no pressure.memory=no pressure.io=no run.metrics_file="$LIVE_TMP/rstat.prom"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"
dmn_start rstat
measured() { grep -q 'run-queue latency: ' "${DMN_ERRS[-1]}"; }
live_wait_for 5 measured || live_fail "the daemon did not say how it measures run-queue latency: $(dmn_ctx)"
grep -q 'run-queue latency: .*sched_switch' "${DMN_ERRS[-1]}" ||
	live_skip "run-queue latency is not measured by the sched_switch program here: $(grep 'run-queue latency' "${DMN_ERRS[-1]}" | head -c 300)"
# two scans without the readers: "before"
twice() { [ "$(sed -n 's/^cgwatch_scans_total \([0-9]*\)$/\1/p' "$LIVE_TMP/rstat.prom" 2>/dev/null)" -ge 2 ] 2>/dev/null; }
live_wait_for 10 twice || live_fail "the daemon did not scan twice within 10 s: $(grep scans_total "$LIVE_TMP/rstat.prom" 2>&1 | head -c 200); $(dmn_ctx)"

# memory charged in the subtree (stat updates for the flushes to fold), and the readers
for i in 1; do
	(
		echo "$BASHPID" >"$SUB/c$i/cgroup.procs" || exit 1
		end=$((SECONDS + 45))
		while [ $SECONDS -lt $end ]; do head -c 4000000 /dev/zero | tr '\0' a >/dev/null; done
	) &
	PIDS+=($!)
done
T0=$(live_now)
touch "$LIVE_TMP/t0"
for cpu in 0 1; do
	for i in 1 2; do
		taskset -c "$cpu" "$DMN_BIN/statread" 45 cgwstatrd "$SUB/memory.stat" "$SUB/c$((i * 7))/memory.stat" "$SUB2/cpu.stat" \
			>"$LIVE_TMP/reader$cpu$i.out" 2>&1 &
		PIDS+=($!)
	done
done

# a runq-latency report written since, pointing to rstat-flush with a reader named (the
# newest few only: the readers keep both CPUs busy, and this loop must stay cheap)
CHECK='[.findings[] | select(.id == "runq-latency" and .family == "rstat-flush")][0] // empty
	| select(.evidence | any(test("^tracepoint cgroup:cgroup_rstat_lock_contended: [0-9.]+/s over [0-9.]+ s, up from [0-9.]+(/s)? before the latency$")))
	| select(.evidence | any(test("^rstat reader: (PID|TID) [0-9]+ \\(cgwstatrd\\).* has (css_rstat_flush|cgroup_rstat_flush|mem_cgroup_flush_stats|do_flush_stats|__css_rstat_lock|__cgroup_rstat_lock)[^ ]* on its kernel stack$")))
	| select(.remedies | any(test("memory.stat")))'
found() {
	local f
	for f in $(ls -t "$DMN_REPORTS"/*-runq-latency*-{opened,updated}.json 2>/dev/null | head -4); do
		[ "$f" -nt "$LIVE_TMP/t0" ] || continue
		FD=$(jq -c "$CHECK" "$f" 2>/dev/null)
		[ -n "$FD" ] && return 0
	done
	return 1
}
# by the clock, not by count: each look runs jq on a loaded host
wait_found() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do found && return 0; sleep 0.5; done
	found
}
wait_found 30 || {
	last=$(ls -t "$DMN_REPORTS"/*-runq-latency*.json 2>/dev/null | head -1)
	live_fail "no runq-latency finding pointing to rstat-flush, with the rate and a reader, within 30 s of the readers: $(ls "$DMN_REPORTS" | grep -c runq) runq reports; the last: $([ -n "$last" ] && jq -c '[.findings[] | select(.id == "runq-latency")][0] | {cause, family, evidence}' "$last" | head -c 2500); $(dmn_ctx "" 300)"
}
rate=$(jq -r '.evidence[] | select(startswith("tracepoint cgroup:cgroup_rstat_lock_contended"))' <<<"$FD")
reader=$(jq -r '[.evidence[] | select(startswith("rstat reader: "))][0]' <<<"$FD")
live_pass "$(jq -r .cause <<<"$FD") after $(live_elapsed_since "$T0") s: ${rate#tracepoint }; $reader"

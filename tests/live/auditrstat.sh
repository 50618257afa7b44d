#!/bin/bash
# live-auditrstat: the audit counts the rstat lock's contention only where a memory.stat is
# held open, and then with perf over its window. With a process holding a memory.stat open
# (and four readers of it in loops): cgroup.memory_stat_readers counts it, and
# cgroup.rstat_contended_per_s is a number with its evidence "N rstat lock contentions/s over
# W s (perf)"; rstat-contended is named exactly when that number is 1 or more. Without any
# holder (none on this host but ours, or the test skips): the count is not made, said why.
. "$(dirname "$0")/lib.sh"
live_init auditrstat
live_require_root
live_require_tools jq timeout find
live_require_binary
live_mktemp
others=$(find /proc/[0-9]*/fd -lname '*/memory.stat' 2>/dev/null | head -3)
[ -z "$others" ] || live_skip "another process holds a memory.stat open here: $others"
STAT=$(ls /sys/fs/cgroup/memory.stat /sys/fs/cgroup/*/memory.stat 2>/dev/null | head -1)
[ -n "$STAT" ] || live_skip "no memory.stat (no memory controller)"
perf_ok() { jq -e '.facts["self.perf_tracepoints"].value == 1' "$1" >/dev/null; }

# without a holder: not counted
OUT=$LIVE_TMP/none.json ERR=$LIVE_TMP/none.err
live_cgwatch "$OUT" "$ERR" audit --format json
jq -e '.facts["cgroup.rstat_contended_per_s"] | .value == null and (.why_unknown | test("^not counted: no process holds a memory.stat open"))' "$OUT" >/dev/null ||
	live_fail "no holder: $(jq -c '.facts["cgroup.rstat_contended_per_s"]' "$OUT")"
perf_ok "$OUT" || live_skip "perf cannot count tracepoints here: $(jq -c '.facts["self.perf_tracepoints"]' "$OUT")"

# a holder, and readers in loops for the window
HOLDER= READERS=()
live_on_exit 'live_kill_wait "$HOLDER"'
live_on_exit 'for r in "${READERS[@]}"; do live_kill_wait "$r"; done'
sleep 20 7<"$STAT" >/dev/null 2>&1 &
HOLDER=$!
for i in 1 2 3 4; do      # each ends by itself within 10 s, killed sooner on exit
	(end=$((SECONDS + 10)); while [ $SECONDS -lt $end ]; do cat "$STAT"; done) >/dev/null 2>&1 &
	READERS+=($!)
done
OUT=$LIVE_TMP/held.json ERR=$LIVE_TMP/held.err
live_cgwatch "$OUT" "$ERR" audit --format json
n=$(jq '.facts["cgroup.memory_stat_readers"].value' "$OUT")
[ "$n" -ge 1 ] 2>/dev/null || live_fail "held: cgroup.memory_stat_readers = $n"
jq -e --arg s "$STAT" '.facts["cgroup.memory_stat_readers"].evidence | any(test("\\(sleep\\) holds " + $s + " open"))' "$OUT" >/dev/null ||
	live_fail "held: the holder is not named: $(jq -c '.facts["cgroup.memory_stat_readers"].evidence' "$OUT")"
v=$(jq '.facts["cgroup.rstat_contended_per_s"].value' "$OUT")
jq -e '.facts["cgroup.rstat_contended_per_s"] | (.value | type) == "number" and (.evidence | any(test("^[0-9.]+ rstat lock contentions/s over [0-9.]+ s \\(perf\\)$")))' "$OUT" >/dev/null ||
	live_fail "held: not counted: $(jq -c '.facts["cgroup.rstat_contended_per_s"]' "$OUT")"
named=$(jq '[.hazards[].id] | index("rstat-contended") != null' "$OUT")
want=$(awk -v v="$v" 'BEGIN { print (v >= 1) ? "true" : "false" }')
[ "$named" = "$want" ] || live_fail "held: rstat-contended named $named with $v contentions/s"
live_pass "$v contentions/s with 4 readers"

#!/bin/bash
# live-starved: a runnable task that gets no CPU. A SCHED_FIFO/10 task spins on CPU 1; a
# SCHED_FIFO/50 spinner then takes CPU 1 for a few seconds. The low one is runnable (R) but
# cannot run: check (starved = 1 s) reports it as `starved`, with the time since the spinner
# took over (within 10 %), its policy and priority, and names the spinner as the cause with
# its share of the CPU; the spinner itself is not reported.
# cgwatch and this script stay on CPU 0.
. "$(dirname "$0")/lib.sh"
live_init starved
live_require_root
live_require_tools jq timeout awk taskset
live_require_helpers spin
live_require_binary
live_mktemp
[ -d /sys/devices/system/cpu/cpu1 ] && grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null ||
	[ "$(nproc --all)" -ge 2 ] || live_skip "needs a second CPU"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"

live_on_exit 'live_kill_wait "$HIGH"'
live_on_exit 'live_kill_wait "$LOW"'

live_spin LOW 1 10 8
sleep 0.2
live_spin HIGH 1 50 4
T0=$(live_now)

printf '[thresholds]\nstarved = 1\n' >"$LIVE_TMP/cgwatch.conf"
sleep 2.5
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --config "$LIVE_TMP/cgwatch.conf" --format json
truth=$(live_elapsed_since "$T0")
live_json_check "$OUT" "check --format json"

task=$(live_task_json "$OUT" "$LOW")
[ -n "$task" ] || live_fail "low-priority task $LOW not reported (rc $CG_RC): $(live_summary "$OUT")"
got=$(jq -r '[.signature, .state, .policy, .rt_priority, .cpu] | map(tostring) | join(" ")' <<<"$task")
[ "$got" = "starved R SCHED_FIFO 10 1" ] ||
	live_fail "task $LOW: signature/state/policy/prio/cpu = '$got', want 'starved R SCHED_FIFO 10 1'"
b=$(jq -r .blocked_s <<<"$task")
# the report was taken between T0+2.5 s and the end of the cgwatch call: allow 10 % and the
# 100 ms second look
awk -v b="$b" -v t="$truth" 'BEGIN { exit !(b >= 2.5 * 0.9 && b <= t * 1.1 + 0.15) }' ||
	live_fail "task $LOW: blocked_s $b, want about 2.5..$truth s"
[ -z "$(live_task_json "$OUT" "$HIGH")" ] || live_fail "the spinner $HIGH itself is reported: $(live_task_json "$OUT" "$HIGH")"
# the cause is named: the spinner on CPU 1, real-time, with its share of the CPU
ev=$(jq -r '.findings[] | select(.id == "starved") | .evidence[]' "$OUT")
grep -qE "^CPU 1: $HIGH \(spin\) SCHED_FIFO/50 is runnable there .*, (9[0-9]|100) % of the CPU" <<<"$ev" ||
	live_fail "the starved finding does not name the spinner $HIGH with its share of CPU 1: $(head -c 600 <<<"$ev")"
[ "$CG_RC" = 1 ] || live_fail "exit code $CG_RC, want 1; $(live_summary "$OUT")"
live_pass

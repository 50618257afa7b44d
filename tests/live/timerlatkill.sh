#!/bin/bash
# live-timerlatkill: timerlat's global settings (osnoise/cpus, osnoise/print_stack) outlive a
# SIGKILLed `cgwatch runq` no longer. With osnoise/cpus 0 and print_stack 77 set first:
#   - a `cgwatch runq --interval 20` runs timerlat in instances/cgwtl-PID (settings changed);
#   - a second `cgwatch runq` meanwhile says timerlat is that PID's (the owner of
#     /run/cgwatch/timerlat.lock) and changes nothing;
#   - the first SIGKILLed mid-run: the next `cgwatch runq` puts osnoise/cpus and print_stack
#     back to 0 and 77 (from /run/cgwatch/timerlat.restore), and leaves no cgwtl- instance
#     and no restore file.
# The host's own osnoise/cpus and print_stack (as they were before the test) are put back by
# the test's trap whatever happens, and any cgwtl- instance of its runq removed. SKIPs without
# timerlat (Debian's generic kernels have none: tests/vm/timerlat.sh runs this check in a VM
# with the PREEMPT_RT kernel).
. "$(dirname "$0")/lib.sh"
live_init timerlatkill
live_require_root
live_require_tools jq timeout
live_require_binary
live_mktemp
T=/sys/kernel/tracing
[ -r "$T/available_tracers" ] || live_skip "no tracefs at $T"
grep -qw timerlat "$T/available_tracers" ||
	live_skip "no timerlat tracer in this kernel ($(uname -r): $(tr '\n' ' ' <"$T/available_tracers")); tests/vm/timerlat.sh checks it"

CPUS0=$(cat "$T/osnoise/cpus") PS0=$(cat "$T/osnoise/print_stack") ||
	live_fail "setup: cannot read osnoise/cpus and print_stack"
put_host_back() {
	local d
	for d in "$T"/instances/cgwtl-*; do
		[ -d "$d" ] || continue
		echo nop >"$d/current_tracer" 2>/dev/null
		rmdir "$d" || live_cleanup_error "rmdir $d failed"
	done
	echo "$PS0" >"$T/osnoise/print_stack" || live_cleanup_error "print_stack not put back to $PS0"
	echo "$CPUS0" >"$T/osnoise/cpus" || live_cleanup_error "osnoise/cpus not put back to $CPUS0"
}
live_on_exit put_host_back
echo 0 >"$T/osnoise/cpus" && echo 77 >"$T/osnoise/print_stack" ||
	live_fail "setup: cannot set osnoise/cpus 0, print_stack 77"

"$CGWATCH" runq --interval 20 >"$LIVE_TMP/k1.json" 2>"$LIVE_TMP/k1.err" </dev/null 3>&- &
K1=$!
live_on_exit "live_kill_wait $K1"
mid() { [ "$(cat "$T/instances/cgwtl-$K1/current_tracer" 2>/dev/null)" = timerlat ]; }
live_wait_for 10 mid || live_fail "the first runq's timerlat did not start in 10 s: $(head -c 300 "$LIVE_TMP/k1.err")"
during=$(cat "$T/osnoise/cpus")/$(cat "$T/osnoise/print_stack")

timeout -k 1 30 "$CGWATCH" runq --interval 1 >"$LIVE_TMP/k2.json" 2>"$LIVE_TMP/k2.err" 3>&-
busy=$(jq -r .timerlat "$LIVE_TMP/k2.json" 2>&1 | head -c 300)
grep -q "another cgwatch runs it: held by cgwatch PID $K1 " <<<"$busy" ||
	live_fail "a runq beside runq $K1's timerlat: timerlat $busy"
[ "$(cat "$T/osnoise/cpus")/$(cat "$T/osnoise/print_stack")" = "$during" ] ||
	live_fail "the refused runq changed the settings: $during before, $(cat "$T/osnoise/cpus")/$(cat "$T/osnoise/print_stack") after"

live_kill_wait "$K1" || live_fail "runq $K1 did not die of SIGKILL"
after_kill=$(cat "$T/osnoise/cpus")/$(cat "$T/osnoise/print_stack")
timeout -k 1 30 "$CGWATCH" runq --interval 1 >"$LIVE_TMP/k3.json" 2>"$LIVE_TMP/k3.err" 3>&-
cpus=$(cat "$T/osnoise/cpus") ps=$(cat "$T/osnoise/print_stack")
left=$(ls "$T/instances" | grep '^cgwtl-' | tr '\n' ' ')
[ "$cpus" = 0 ] && [ "$ps" = 77 ] ||
	live_fail "runq SIGKILLed mid-run (settings then $during, after the kill $after_kill), then a runq: osnoise/cpus '$cpus' (was 0), print_stack '$ps' (was 77); its timerlat $(jq -c .timerlat "$LIVE_TMP/k3.json" 2>&1 | head -c 200)"
[ -z "$left" ] || live_fail "instances left: $left"
[ -e /run/cgwatch/timerlat.restore ] &&
	live_fail "the restore file is still there: $(tr '\n' '|' </run/cgwatch/timerlat.restore)"
live_pass "a second runq named the owner $K1; SIGKILLed mid-run it left $after_kill, the next runq put back 0/77, nothing left"

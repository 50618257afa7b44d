# What every guest script sources (in the VM it is /vm/lib.sh: `. "${VM_GUEST_LIB:-/vm/lib.sh}"`;
# VM_GUEST_LIB lets a script that changes nothing run on the host too, to see its checks fail
# on a kernel without the tracers). Guest scripts run under bash; the other tools are busybox's
# (timeout, taskset, chrt, ...), jq, cgwatch and tests/live/spin. See tests/vm/lib.sh.

T=/sys/kernel/tracing              # tracefs, mounted by /init
VM_FILES=${VM_FILES:-/vm/files}    # the host's vm_file files without a destination of their own

# One line per check, which the host side gathers into the scenario's one result line:
#   g_pass CHECK [NOTE] | g_fail CHECK WHY | g_skip CHECK WHY (a kernel feature missing)
g_pass() { echo "PASS $1${2:+: $2}"; }
g_fail() { echo "FAIL $1: ${2:-failed}"; }
g_skip() { echo "SKIP $1: ${2:-skipped}"; }

# g_run OUT ERR SECONDS CMD...: CMD with stdout in OUT and stderr in ERR, killed after
# SECONDS; its exit status in G_RC (137 when killed).
g_run() {
	local out=$1 err=$2 secs=$3
	shift 3
	timeout -s KILL "$secs" "$@" >"$out" 2>"$err" </dev/null
	G_RC=$?
}

# g_spin VAR CPU PRIO SECONDS [SPIN_MS SLEEP_MS]: tests/live/spin in the background (a
# SCHED_FIFO PRIO busy loop on CPU that ends itself after SECONDS; with SPIN_MS SLEEP_MS it
# spins SPIN_MS then sleeps SLEEP_MS, over and over), its pid in VAR once it says it spins,
# its output in /tmp/VAR.out. Returns 1 (VAR empty) when it did not start within 3 s.
g_spin() {
	local var=$1 i
	shift
	spin "$@" >"/tmp/$var.out" 2>&1 &
	printf -v "$var" %s $!
	for ((i = 0; i < 60; i++)); do
		grep -q '^spinning ' "/tmp/$var.out" && return 0
		sleep 0.05
	done
	printf -v "$var" %s ""
	return 1
}

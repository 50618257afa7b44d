#!/bin/bash
# vm-kernels: cgwatch on the kernels a fleet of Debian 12 hosts runs, one VM boot each:
# Debian 12's generic 6.1 (linux-image-amd64) and the 6.12 of its security archive
# (linux-image-6.12-amd64, linux-image-6.12.*+deb12-amd64; where the machine's apt has no
# such package, bookworm-backports' linux-image-amd64, through an apt configuration of the
# test's own: tests/vm/lib.sh _vm_bpo); the third, the PREEMPT_RT 6.1, is checked in vm-timerlat's boot. On each, with
# FUSE's module from the kernel's own package loaded (tests/vm/lib.sh: vm_module),
# kernels.guest.sh:
#   - a task blocked on a FUSE mount that never answers (tests/live/fusehold) is found by
#     `check` as a fuse-wait finding with its exact time (blocked_bound exact, blocked_s within
#     10 % + 0.5 s of the time since it blocked) through each scan source: auto (the iterator,
#     with --rates: the tracepoint counters count a fork loop's forks), [scan] source =
#     walker (the walker where the kernel takes it; else its refusal named with the reason,
#     and on 6.1, which has no open-coded task iterator (6.7+), it must be refused) and proc;
#     where the report has scan.kernel, it says the same sources and refusals;
#   - `cgwatch runq --interval 1` (auto, then [latency] runq = schedstat) names its source and
#     counts waits on every CPU;
#   - `cgwatch run` logs its scan source once, its run-queue source, and "kernel: NAME STATE
#     (why)" lines well formed where it has them, and opens the FUSE task's incident with its
#     exact time.
# One line per kernel, vm-kernels-RELEASE (vm-kernels-6.1 or -6.12 before the kernel is
# known); each path seen working end to end is recorded for the suite (tests/proofs.sh).
# VM_KERNELS picks the kernels (default: "6.1 6.12").
if [ $# = 0 ]; then
	rc=0
	for k in ${VM_KERNELS:-6.1 6.12}; do
		bash "$0" "$k" || rc=1
	done
	exit $rc
fi
case $1 in
6.1) export VM_KERNEL_META=linux-image-amd64 VM_KERNEL_CACHED_RE='^linux-image-6\.1\.[0-9]+-[0-9]+-amd64$' ;;
6.12) export VM_KERNEL_META=linux-image-6.12-amd64 VM_KERNEL_BPO_META=linux-image-amd64 \
	VM_KERNEL_CACHED_RE='^linux-image-6\.12\.[0-9]+\+(deb12|bpo)-amd64$' ;;
*) echo "FAIL vm-kernels-$1: not a kernel of the matrix (6.1, 6.12)"; exit 1 ;;
esac
# a boot here is about a minute under TCG alone, three times that beside the suite's fixtures
VM_TIMEOUT=${VM_TIMEOUT:-300} VM_GUEST_TIMEOUT=${VM_GUEST_TIMEOUT:-260}
VM_MODULES_WANT=fuse
. "$(dirname "$0")/lib.sh"
vm_init "kernels-$1"
[ -z "$VM_KERNEL_PKG" ] || LIVE_NAME=kernels-${VM_KERNEL_PKG#linux-image-}
live_require_helpers fusehold
vm_bin "$LIVE_BIN/fusehold"
vm_file "$VM_DIR/kernels.conf"
vm_boot "$VM_DIR/kernels.guest.sh"
rel=$(awk '$1 == "KERNEL-RELEASE" { print $2; exit }' "$VM_OUT")
[ -z "$rel" ] || LIVE_NAME=kernels-$rel
vm_kernels_proofs "$VM_OUT" "$rel"
vm_result

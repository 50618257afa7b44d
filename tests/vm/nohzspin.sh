#!/bin/bash
# vm-nohzspin: a real-time spinner alone on a nohz_full CPU, where the kernel accounts its CPU
# time only at the residual 1 Hz tick (seed 004's layout: the audit used to read 0 % there).
# Debian 12's generic 6.1 booted with isolcpus=1 nohz_full=1, RT throttling off, a
# SCHED_FIFO/50 loop (tests/live/spin) on CPU 1. nohzspin.guest.sh:
#   - frozen: the loop's schedstat, read every 0.1 s over 1 s, stands still most of the time
#     (SKIP where this kernel keeps the tick: the rest then proves nothing about nohz_full);
#   - audit: `cgwatch audit` three times, each naming the loop on CPU 1 in rt.spinners with
#     100 % of the CPU, measured as "ran it throughout", and (6.1 has no fair server) the
#     critical rt-spinner-unthrottled;
#   - check: a SCHED_OTHER loop on CPU 1, then the spinner there again: the loop starves;
#     `cgwatch check` (starved threshold 2 s) names the spinner on CPU 1 at 100 % of the
#     CPU, running throughout.
# A spinner needs multi-threaded TCG: single-threaded, the spinning vCPU gives the other one
# 100 ms slices (tests/vm/lib.sh, the issue of seed 004 live).
export VM_KERNEL_META=linux-image-amd64 VM_KERNEL_CACHED_RE='^linux-image-6\.1\.[0-9]+-[0-9]+-amd64$'
export VM_TCG_THREAD=${VM_TCG_THREAD:-multi}
VM_TIMEOUT=${VM_TIMEOUT:-240} VM_GUEST_TIMEOUT=${VM_GUEST_TIMEOUT:-150}
. "$(dirname "$0")/lib.sh"
vm_init nohzspin
VM_APPEND="isolcpus=1 nohz_full=1"
vm_boot "$VM_DIR/nohzspin.guest.sh"
vm_result

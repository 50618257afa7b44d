#!/bin/bash
# vm-timerlat: cgwatch's timerlat measurement on a kernel that has the tracer (Debian's
# PREEMPT_RT kernel in a VM; tests/vm/lib.sh). First the harness's smoke checks
# (tracers.guest.sh, in the same boot: the tracers are there, check reports, runq misses only
# irqsoff, timerlat in an instance sees a FIFO 99 loop's delays), then timerlat.guest.sh:
#   - runq: `cgwatch runq --interval 2` with a SCHED_FIFO/99 loop on CPU 1 (spins SPIN_MS,
#     sleeps 1 ms): CPU 1's timerlat object has a thread latency of at least half a spin and
#     names the loop (its pid and comm) as what held the CPU; the runq's timerlat says the
#     CPUs it ran on; afterwards osnoise/cpus and osnoise/print_stack are what they were (set
#     to other values first) and no cgwtl- instance is left;
#   - busy: with someone else's timerlat running in instances/other, runq says so and leaves
#     it running;
#   - stale: an instance cgwtl-PID of a PID that is gone, running timerlat, is removed and
#     cgwatch's own run goes ahead;
#   - killed: a runq beside another runq's timerlat run is refused naming that runq's PID (the
#     owner of /run/cgwatch/timerlat.lock); the first SIGKILLed mid-run (osnoise/cpus and
#     print_stack still changed), the next runq puts them back to what they were before the
#     first (0 and 77), from /run/cgwatch/timerlat.restore, and leaves no instance nor file;
#   - daemon: `cgwatch run` (timerlat.conf: 1 s scans, p99 past 10 ms on 2 scans, timerlat
#     auto) with the FIFO 99 loop and a sleeper on CPU 1: a runq-latency incident on cpu 1
#     opens and a report of it carries "timerlat: CPU 1 over" naming the loop as what held
#     the CPU.
# Before those, in the same boot (one boot less under TCG), tests/vm/kernels.sh's checks for
# this kernel, the matrix's PREEMPT_RT 6.1 (kernels.guest.sh, with FUSE's module): their own
# result line, vm-kernels-RELEASE, printed before vm-timerlat's, and their proofs recorded.
# (under TCG beside the suite's fixtures this boot took 115 s without the matrix's checks)
VM_TIMEOUT=${VM_TIMEOUT:-300} VM_GUEST_TIMEOUT=${VM_GUEST_TIMEOUT:-260}
VM_MODULES_WANT=fuse
. "$(dirname "$0")/lib.sh"
vm_init timerlat
live_require_helpers fusehold
vm_bin "$LIVE_BIN/fusehold"
vm_file "$VM_DIR/kernels.guest.sh"
vm_file "$VM_DIR/kernels.conf"
vm_file "$VM_DIR/timerlat.conf" /etc/cgwatch/timerlat.conf
vm_file "$VM_DIR/tracers.conf" /etc/cgwatch/tracers.conf
vm_file "$VM_DIR/tracers.guest.sh"
vm_env SPIN_MS=20 SLEEP_MS=1
vm_boot "$VM_DIR/timerlat.guest.sh"
vm_kernels_result
vm_result

#!/bin/bash
# vm-tracers: the VM harness's smoke test. A Debian PREEMPT_RT kernel boots with the latency
# tracers this host lacks: available_tracers lists timerlat and osnoise, `cgwatch check
# --format json` reports with a scan object, and `cgwatch runq` names only irqsoff among the
# tracers it misses; and timerlat in a tracefs instance on CPU 1 sees its thread delayed by a
# FIFO 99 loop there (tracers.guest.sh; with an argument, variables and a file handed in).
# The note gives the VM's time, boot to poweroff.
. "$(dirname "$0")/lib.sh"
vm_init tracers
vm_file "$VM_DIR/tracers.conf" /etc/cgwatch/tracers.conf
vm_env SPIN_MS=20 SLEEP_MS=1
vm_boot "$VM_DIR/tracers.guest.sh" 1
vm_result

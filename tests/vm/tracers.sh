#!/bin/bash
# vm-tracers: the VM harness's smoke test. A Debian PREEMPT_RT kernel boots with the latency
# tracers this host lacks: available_tracers lists timerlat and osnoise, `cgwatch check
# --format json` reports with a scan object, and `cgwatch runq` names only irqsoff among the
# tracers it misses (tracers.guest.sh). The note gives the VM's time, boot to poweroff.
. "$(dirname "$0")/lib.sh"
vm_init tracers
vm_boot "$VM_DIR/tracers.guest.sh"
vm_result

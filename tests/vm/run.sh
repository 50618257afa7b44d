#!/bin/bash
# Run the VM scenarios (root, qemu; see lib.sh): each tests/vm/NAME.sh boots a Debian kernel
# in a VM and runs NAME.guest.sh there: timerlat, Debian's PREEMPT_RT 6.1 with the latency
# tracers (and the kernel matrix's checks for it), kernels, the generic 6.1 and the 6.12
# (one line per kernel), nohzspin, a real-time spinner alone on a nohz_full CPU (the generic
# 6.1), and seed004, seed 004 reproduced live on the generic and PREEMPT_RT 6.1 (one line per
# kernel). Extra arguments select scenarios by name.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../live/scenarios.sh"
SCENARIOS_ALL=(timerlat kernels nohzspin seed004)
# the backstop: kernels.sh's two boots, each its VM_TIMEOUT (300 s), the initramfs and the
# first run's download (180 s), nohzspin's boot (240 s), seed004's two (240 s each)
scenarios_main vm "$here" 1850 "$@"

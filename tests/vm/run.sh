#!/bin/bash
# Run the VM scenarios (root, qemu; see lib.sh): each tests/vm/NAME.sh boots a Debian kernel
# with the latency tracers in a VM and runs NAME.guest.sh there. Extra arguments select
# scenarios by name.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../live/scenarios.sh"
SCENARIOS_ALL=(timerlat)
# the backstop: lib.sh's VM_TIMEOUT (150 s), the initramfs, the first run's download (180 s)
scenarios_main vm "$here" 400 "$@"

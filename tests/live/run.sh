#!/bin/bash
# Run every live scenario (root, real kernel): build the helpers, then each tests/live/NAME.sh
# in turn. Extra arguments select scenarios by name.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/scenarios.sh"
SCENARIOS_ALL=(fuse fusecause fuselookup frozen vfork hostname stuckroot deadline watchdog starved clock kmsg churn quickcheck ratesfinding durations cpuclocks farclock capsandbox kmsgcaps capturefuse capturemem capturefrozen capturevfork capturehog capturerates capturetimeout bundlestuck bundlelive bundleredact bundlesecrets clockfloor elfstuck hostileopen cfiloop ustack ustackspawn ustacktimeout ustackbundle ustackns ustacknsdebug unwindbox ksymsstack lastlook cgroupthreads auditspin auditself auditpidlist auditunit auditrstat htmlpage recorder bpfsame lockowner walkdefer walkslices runqlat runqpeer runqnice timerlatkill)
scenarios_main live "$here" 75 "$@"

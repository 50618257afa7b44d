#!/bin/bash
# Run every live scenario (root, real kernel): build the helpers, then each tests/live/NAME.sh
# in turn. Extra arguments select scenarios by name.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/scenarios.sh"
if ! "$here/build.sh"; then
	echo "FAIL live-build: helpers did not compile"
	exit 1
fi
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(fuse fusecause frozen vfork hostname stuckroot deadline watchdog starved clock kmsg churn quickcheck ratesfinding durations cpuclocks farclock capsandbox kmsgcaps bundlestuck)
run_scenarios live "$here" 75 "${scenarios[@]}"

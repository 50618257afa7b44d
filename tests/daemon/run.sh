#!/bin/bash
# Run every daemon scenario (root, real kernel, `cgwatch run`): build the helpers, then each
# tests/daemon/NAME.sh in turn. Extra arguments select scenarios by name. See lib.sh for the
# namespace and the private journald.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../live/scenarios.sh"
if ! "$here/build.sh"; then
	echo "FAIL live-daemon-build: helpers did not compile"
	exit 1
fi
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(harness journal notify restart fulldisk stuckdisk storm durations phantom memlock)
run_scenarios live-daemon "$here" 90 "${scenarios[@]}"

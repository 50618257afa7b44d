#!/bin/bash
# Run every daemon scenario (root, real kernel, `cgwatch run`): build the helpers, then each
# tests/daemon/NAME.sh in turn. Extra arguments select scenarios by name. See lib.sh for the
# namespace and the private journald.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../live/scenarios.sh"
SCENARIOS_ALL=(harness journal notify restart fulldisk stuckdisk storm durations phantom memlock bundle bundleopen crash ustackstuck hazard recorder scansource exactdur leaks)
scenarios_main live-daemon "$here" 90 "$@"

#!/bin/bash
# Run every daemon scenario (root, real kernel, `cgwatch run`): build the helpers, then the
# tests/daemon/NAME.sh scripts. Extra arguments select scenarios by name. See lib.sh for the
# namespace and the private journald.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../live/scenarios.sh"
# Two at a time: each runs in PID and mount namespaces of its own (lib.sh), its daemon sees
# only its own tasks, and most of a scenario is waiting on thresholds; those with busy loops
# (dmn_hogs) or in the initial PID namespace (DMN_PIDNS=0 in the script) run alone
# (tests/live/scenarios.sh). SCENARIO_LANES=1: one after another, as always with DMN_PIDNS=0
# (then each daemon scans the whole host).
SCENARIO_LANES=${SCENARIO_LANES:-2}
[ "${DMN_PIDNS:-1}" != 0 ] || SCENARIO_LANES=1
# hazard (27 s) starts beside bundle (43 s): the two long ones overlap
SCENARIOS_ALL=(harness journal notify restart fulldisk stuckdisk storm durations phantom memlock bundle hazard bundleopen crash ustackstuck recorder recowner scansource exactdur leaks runqmetrics psistart pressure latency latencyrstat latencypsi latencyhog soak)
scenarios_main live-daemon "$here" 90 "$@"

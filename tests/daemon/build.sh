#!/bin/bash
# Build the daemon-test helpers into tests/daemon/bin/, and the live-test helpers they share
# (fusehold) into tests/live/bin/. Quiet on success; exits 1 on a compiler error.
here=$(cd "$(dirname "$0")" && pwd)
"$here/../live/build.sh" && "$here/../live/build.sh" "$here"

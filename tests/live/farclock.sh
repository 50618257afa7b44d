#!/bin/bash
# live-farclock: check pinned to one CPU, tasks blocked on the other: see cpuclocks.sh.
CPUCLOCKS_NAME=farclock
. "$(dirname "$0")/cpuclocks.sh"
